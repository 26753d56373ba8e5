"""The compact, exact encoding of single-suit values used by the engine and the catalogue.

A single-suit value q + x (never ±ε₀, §7.5) is stored as two small integers:

* ``numerator``: q · 2^SCALE_BITS, exact because the denominator of an n-card
  deal's value is at most 2^(n−1) (the simplest number between two values of
  denominator ≤ 2^(n−2) has denominator ≤ 2^(n−1); Theorem 10.4 reaches it);
* ``infinitesimal``: the rank of x in the order of §6.1.6 —
  0 for 0, ±1 for ±ε₀ (ε₀ and −ε₀), ±(k+1) for ε_{±k}, k ≥ 1.

Labeled values (§7.1) are packed into one integer *key* whose integer order is
the labeled order, so kernels compare them with ``<``.
"""

from __future__ import annotations

from fractions import Fraction

from whist_catalogue.constants import INF_OFFSET, SCALE
from whist_catalogue.errors import InvalidValueError
from whist_catalogue.theory.packed import scaled
from whist_catalogue.theory.values import Exits, Infinitesimal, Value

__all__ = [
    "infinitesimal_from_rank",
    "encode_value",
    "decode_value",
    "labeled_key",
    "key_of_parts",
    "value_key",
    "parts_of_value_key",
]


def infinitesimal_from_rank(rank: int) -> Infinitesimal:
    if rank == 0:
        return Infinitesimal()
    if rank == 1:
        return Infinitesimal(0, Exits.WEST)
    if rank == -1:
        return Infinitesimal(0, Exits.EAST)
    return Infinitesimal.epsilon(rank - 1 if rank > 0 else rank + 1)


def encode_value(v: Value) -> tuple[int, int]:
    """(numerator over 2^SCALE_BITS, infinitesimal rank)."""
    numerator = scaled(v)
    if v.infinitesimal.is_fuzzy:
        raise InvalidValueError("±ε₀ is not the value of a single-suit deal and has no compact code")
    return numerator, v.infinitesimal.rank


def decode_value(numerator: int, rank: int) -> Value:
    return Value(Fraction(int(numerator), SCALE), infinitesimal_from_rank(int(rank)))


def labeled_key(player: str, numerator: int, rank: int) -> int:
    """An integer whose order is the order of labeled values (§7.1).

    Ties of value are broken by the leader: East above West for a number, West
    above East otherwise.
    """
    west = player == "W"
    tie = (not west) if rank == 0 else west
    return key_of_parts(numerator, rank, int(tie))


def value_key(numerator, rank):  # noqa: ANN001, ANN201 - ints, or NumPy int64 arrays elementwise
    """One integer whose order is the order of single-suit values (§6.1.6: by number, then by infinitesimal):
    the rank, made positive by INF_OFFSET, below the number.  Sorts and merges the engine's value tables."""
    return (numerator << 8) + (rank + INF_OFFSET)


def parts_of_value_key(key):  # noqa: ANN001, ANN201 - ints, or NumPy int64 arrays elementwise
    """(numerator, rank) of a :func:`value_key`."""
    return key >> 8, (key & 255) - INF_OFFSET


def key_of_parts(numerator, rank, tie):  # noqa: ANN001, ANN201 - ints, or NumPy int64 arrays elementwise
    """The labeled key of a value (numerator over 2^SCALE_BITS, infinitesimal rank) and the tie bit (1: this label
    is the greater of two equal values): :func:`value_key` with the tie below it — the one formula the catalogue's
    NumPy steps share with :func:`labeled_key` (the engine's Numba kernels take the same steps, ``kernels.key_of``,
    and the tests compare them)."""
    return value_key(numerator, rank) * 2 + tie
