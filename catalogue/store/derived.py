"""What a deal's record holds beyond its value, derived when asked from the level store (docs/level-store.md).

The level store keeps each deal's value only.  The best leads and replies come from the deal's matrix α of
the multi-suit paper's §7.2, whose entries α_ij are level n−1's values of the reductions D_ij (plus the trick
W_i and E_j make), read off as :func:`whist_catalogue.theory.solution.solution_from_labeled` does (docs/spec.md
§3); the outcome is ρ(val) (Corollary 8.9); the single-suit paper's quantities come from its direct formulas.
Everything works on whole arrays of deals of one level, so a batch pays NumPy's overhead once.

* :func:`colex_ranks`, :func:`reduction_masks`, :func:`alpha_keys` — α of deals from level n−1's values;
* :func:`solutions`, :func:`records` — value and best moves, and the full :class:`~.records.DealRecord`.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import TYPE_CHECKING, Sequence

import numpy as np

from whist_catalogue.constants import SCALE
from whist_catalogue.engine.encoding import decode_value, key_of_parts
from whist_catalogue.store.fields import DealColumns, ValuesAt
from whist_catalogue.store.records import DealRecord
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.solution import SuitSolution
from whist_catalogue.theory.values import Outcome, Value, rho

if TYPE_CHECKING:
    from whist_catalogue.engine.chunks import Chunk

__all__ = ["colex_ranks", "reduction_masks", "alpha_keys", "alphas", "ALPHA_BATCH", "solutions", "records"]


_BINOMIALS = np.array([[comb(p, t) for t in range(64)] for p in range(64)], np.int64)
"""C(p, t) (0 for t > p)."""
_POSITIONS = np.arange(64, dtype=np.int64)


def colex_ranks(masks: np.ndarray, bits: int) -> np.ndarray:
    """Colex ranks of masks with ``bits`` positions (vectorised :func:`whist_catalogue.theory.ranking.rank`):
    a set bit at position p that is the t-th set bit from below adds C(p, t)."""
    held = (masks[..., None] >> _POSITIONS[:bits]) & 1
    return (held * _BINOMIALS[_POSITIONS[:bits], np.cumsum(held, axis=-1)]).sum(axis=-1)


def reduction_masks(n: int, west: int | np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(W_i positions, E_j positions, West's mask of every D_ij as an n × n array) for West's mask ``west``;
    for an array of masks, each result gains its leading axes (a batch of deals of one level)."""
    west = np.asarray(west, np.int64)
    positions = np.arange(2 * n, dtype=np.int64)
    held = (west[..., None] >> positions) & 1
    # A stable sort on "not West's" lists West's positions, then East's, each from below.
    order = np.argsort(1 - held, axis=-1, kind="stable")
    w, e = order[..., :n], order[..., n:]
    low = np.minimum(w[..., :, None], e[..., None, :])
    high = np.maximum(w[..., :, None], e[..., None, :])
    m = west[..., None, None]
    # Delete bits high and low (high first, so low's place is unchanged) and close the gaps.
    m = ((m >> (high + 1)) << high) | (m & ((np.int64(1) << high) - 1))
    m = ((m >> (low + 1)) << low) | (m & ((np.int64(1) << low) - 1))
    return w, e, m


def alpha_keys(west_cards: np.ndarray, east_cards: np.ndarray, numerator: np.ndarray,
               infinitesimal: np.ndarray) -> np.ndarray:
    """α_ij of §7.2 as integers whose order is the order of labeled values (§7.1,
    :func:`whist_catalogue.engine.encoding.labeled_key`): W_i and E_j's positions (as
    :func:`reduction_masks` gives them) and val(D_ij) as n × n engine arrays (or batches of them)."""
    west_trick = west_cards[..., :, None] > east_cards[..., None, :]
    number = numerator.astype(np.int64) + west_trick * SCALE
    rank = infinitesimal.astype(np.int64)
    # Ties of value: East's label above West's for a number, West's above East's otherwise.
    tie = np.where(rank == 0, ~west_trick, west_trick)
    return key_of_parts(number, rank, tie)


# A level holds a few hundred distinct values: a batch builds each Fraction, and finds each outcome, once.
_decoded = lru_cache(maxsize=4096)(decode_value)
_outcome = lru_cache(maxsize=4096)(rho)


def alphas(n: int, wests: np.ndarray, values_at: ValuesAt) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(W_i positions, E_j positions, α) of deals of level n by West's masks, α a batch of n × n matrices."""
    west_cards, east_cards, reductions = reduction_masks(n, wests)
    numerator, infinitesimal = values_at(n - 1, colex_ranks(reductions, 2 * n - 2))
    return west_cards, east_cards, alpha_keys(west_cards, east_cards, numerator, infinitesimal)


def _values(n: int, wests: np.ndarray, values_at: ValuesAt) -> list[Value]:
    numerator, infinitesimal = values_at(n, colex_ranks(wests, 2 * n))
    return [_decoded(a, b) for a, b in zip(numerator.tolist(), infinitesimal.tolist())]


def _move_masks(alpha: np.ndarray) -> np.ndarray:
    """Best leads and replies of a batch of deals as :meth:`SuitSolution.move_masks` position masks, one row a
    deal: the rules of :func:`whist_catalogue.theory.solution.solution_from_labeled` on α (row i = W_i)."""
    weights = np.int64(1) << np.arange(alpha.shape[-1], dtype=np.int64)
    row_min = alpha.min(axis=2)
    col_max = alpha.max(axis=1)
    west_leads = ((row_min == row_min.max(axis=1)[:, None]) * weights).sum(axis=1)
    east_leads = ((col_max == col_max.min(axis=1)[:, None]) * weights).sum(axis=1)
    east_replies = ((alpha == row_min[:, :, None]) * weights).sum(axis=2)
    west_replies = ((alpha == col_max[:, None, :]) * weights[:, None]).sum(axis=1)
    return np.concatenate([west_leads[:, None], east_leads[:, None], east_replies, west_replies], axis=1)


def solutions(n: int, deals: Sequence[Deal], values_at: ValuesAt) -> list[SuitSolution]:
    """Value and best moves (docs/spec.md §3) of deals of level n: the value from level n, α from level n−1."""
    wests = np.fromiter((d.west for d in deals), np.int64, len(deals))
    moves = _move_masks(alphas(n, wests, values_at)[2]).tolist()
    return [SuitSolution.from_move_masks(deal, value, masks)
            for deal, value, masks in zip(deals, _values(n, wests, values_at), moves)]


def records(chunk: Chunk, places: np.ndarray, values_at: ValuesAt,
            masks: np.ndarray | None = None) -> list[DealRecord]:
    """The full records of the deals at ``places`` (increasing) of a decoded chunk (module docstring): the value
    and the check bits from the chunk, the single-suit quantities by the fields' array kernels
    (:class:`whist_catalogue.store.fields.DealColumns`: the search's and the dataset's own), the best moves
    from α over level n−1's values — a batch of deals in whole-array steps.  ``masks``: West's masks of those
    deals, if the caller holds them."""
    n = chunk.n
    columns = DealColumns(chunk, places, masks=masks)
    found: list[DealRecord] = []
    table = chunk.table
    numerators, ranks = table.numerator.tolist(), table.infinitesimal.tolist()
    h_lower, h_upper, h, t0 = (a.tolist() for a in columns.quantities(2))
    greedy_west, greedy_east = (a.tolist() for a in columns.greedy())
    for start in range(0, len(places), ALPHA_BATCH):
        part = slice(start, start + ALPHA_BATCH)
        wests = columns.masks[part]
        moves = _move_masks(alphas(n, wests, values_at)[2]).tolist()
        for i, (west, code, bits, move) in enumerate(zip(wests.tolist(), columns.codes[part].tolist(),
                                                         columns.flags[part].tolist(), moves), start):
            deal = Deal(n, west)
            assert deal.ace_holder is not None  # n ≥ 1
            value = _decoded(numerators[code], ranks[code])
            found.append(DealRecord(
                deal=deal, value=value, outcome=_outcome(value), move_masks=tuple(move),
                h_lower=h_lower[i], h_upper=h_upper[i], h=h[i],
                greedy=Outcome(greedy_west[i], greedy_east[i]),
                five_card=("W" if t0[i] >= 0 else "E", "W" if t0[i] > 0 else "E"),  # Theorem 7.2
                ace=deal.ace_holder, flags=int(bits),
            ))
    return found


ALPHA_BATCH = 4096
"""Deals whose α are held at once: n² int64 entries each, a few tens of MB at n = 16."""
