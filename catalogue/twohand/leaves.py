"""The theory's exact leaves of the two-hand search: Theorem 9.1 of the multi-suit paper, on packed values.

At the start of a trick where every suit still in play is *even* — each hand holds as many of its cards
as the other — nobody can ever ruff or discard again: whichever suit is led, the other hand holds a card
of it, and after the trick the suit is even again.  From there the play is symmetric multi-suit whist,
trumps or not, and Theorem 9.1 gives West's tricks exactly: ρ(Σ val(suit)) (§6.5), its first component
with West on lead, its second with East.

The suits' values come from the preloaded table of every suit with n ≤ 8
(:mod:`whist_catalogue.theory.small_suits`), packed as in :mod:`whist_catalogue.theory.packed` so that the
sum is an integer sum.  :func:`leaf_codes` lays them out as one int64 array indexed by the suit's integer
key (docs/spec.md §2: West's mask over the suit's cards in play, lowest card first, plus the sentinel bit),
every key below 2^17; :func:`rho` is :func:`~whist_catalogue.theory.packed.rho_packed` compiled for the kernels
(the theory's own integer arithmetic, one ρ for both).
A position with an even suit of more than :data:`LEAF_MAX_N` cards a hand is no leaf: the search goes on.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from whist_catalogue.theory.jit import kernel
from whist_catalogue.theory.packed import fields_packed, rho_fields
from whist_catalogue.theory.small_suits import TABLE_MAX_N, table_arrays

__all__ = ["LEAF_MAX_N", "LEAF_KEYS", "leaf_codes", "rho"]

LEAF_MAX_N = TABLE_MAX_N
"""The largest even suit (cards a hand) a leaf can value: the preloaded table's."""
LEAF_KEYS = 1 << (2 * LEAF_MAX_N + 1)
"""Every key of a suit with at most :data:`LEAF_MAX_N` cards a hand is below this."""


@cache
def leaf_codes() -> np.ndarray:
    """The packed value of every even suit with 1 ≤ n ≤ :data:`LEAF_MAX_N` at its key (0 elsewhere: the empty
    suit, key 1, is worth 0, and uneven keys are never asked)."""
    keys, codes, _ = table_arrays()
    table = np.zeros(LEAF_KEYS, dtype=np.int64)
    table[np.frombuffer(keys, dtype=np.uint32)] = np.frombuffer(codes, dtype=np.int64)
    return table  # writable: the kernels are compiled for one array type, and this one is shared read-only by use


_fields = kernel(fields_packed)
_rho = kernel(rho_fields)


@kernel
def rho(code):
    """ρ of a packed value (§6.5): West's tricks with West on lead, and with East on lead."""
    number, index, west, east = _fields(code)
    return _rho(number, index, west, east)
