"""Numbering the deals of one level: the combinatorial number system.

Level n holds all C(2n, n) single-suit deals with n cards a hand.  A deal is
identified by West's mask (bit k set when West holds card k+1, docs/spec.md §2), and
its *rank* within the level is the colexicographic rank of that set of bit
positions p_1 < … < p_n:

    rank = C(p_1, 1) + C(p_2, 2) + … + C(p_n, n).

For a fixed number of set bits, colex order is increasing numeric order of the
masks, so :func:`level_masks` lists a level in rank order and every per-deal
array of a level (values, outcomes, the single-suit paper's quantities) is
indexed by this rank.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb

import numpy as np

from whist_catalogue.constants import MAX_RANKED_N

__all__ = ["level_size", "rank", "unrank", "level_masks", "binomial_table"]


def level_size(n: int) -> int:
    """C(2n, n): the number of deals with n cards a hand."""
    return comb(2 * n, n)


@lru_cache(maxsize=None)
def binomial_table(size: int = 2 * MAX_RANKED_N + 2) -> np.ndarray:
    """C(p, t) for 0 ≤ p, t < size as int64 (zero where t > p)."""
    table = np.zeros((size, size), dtype=np.int64)
    for p in range(size):
        for t in range(p + 1):
            table[p, t] = comb(p, t)
    table.setflags(write=False)
    return table


def rank(west: int) -> int:
    """The colex rank of West's mask within its level."""
    r, t, p = 0, 0, 0
    while west:
        if west & 1:
            t += 1
            r += comb(p, t)
        west >>= 1
        p += 1
    return r


def unrank(n: int, r: int) -> int:
    """West's mask of the deal of level n with colex rank r."""
    if not 0 <= r < level_size(n):
        raise ValueError(f"rank {r} out of range for level {n}")
    mask = 0
    p = 2 * n - 1
    for t in range(n, 0, -1):
        while comb(p, t) > r:
            p -= 1
        mask |= 1 << p
        r -= comb(p, t)
        p -= 1
    return mask


_PARALLEL_MASKS = 1 << 16
"""Ranges from this many deals on are filled in parts on all cores (a chunk of 2^20 deals: 8 ms on one)."""


def level_masks(n: int, start: int = 0, stop: int | None = None) -> np.ndarray:
    """West's masks of the deals of level n with ranks in [start, stop), in rank order (int64).

    By default the whole level, C(2n, n) masks.
    """
    if not 0 <= n <= MAX_RANKED_N:
        raise ValueError(f"level {n} out of range 0..{MAX_RANKED_N}")
    size = level_size(n)
    stop = size if stop is None else stop
    if not 0 <= start <= stop <= size:
        raise ValueError(f"ranks [{start}, {stop}) out of range for level {n}")
    out = np.empty(stop - start, dtype=np.int64)
    if stop - start >= _PARALLEL_MASKS:
        parts = 16
        bounds = np.array([(stop - start) * i // parts for i in range(parts + 1)], np.int64)
        firsts = np.array([unrank(n, start + int(b)) for b in bounds[:-1]], np.int64)
        from whist_catalogue.theory.ranking_kernels import fill_masks_in_parts

        fill_masks_in_parts(firsts, bounds, out)
    elif stop > start:
        from whist_catalogue.theory.ranking_kernels import fill_masks

        fill_masks(unrank(n, start), out)
    return out
