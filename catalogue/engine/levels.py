"""The engine: the value and optimal moves of every single-suit deal, level by level.

Level n holds all C(2n, n) deals with n cards a hand, indexed by the colex
rank of West's cards (:mod:`whist_catalogue.theory.ranking`).  Each deal's value comes from
its reductions D_ij at level n−1, exactly as in §7 of the multi-suit paper; the
kernels live in :mod:`whist_catalogue.engine.kernels`.  Values are stored compactly
and exactly (:mod:`whist_catalogue.engine.encoding`): a numerator over 2^24 (int32) and an
infinitesimal rank (int8) — five bytes a deal.

What the papers prove is used to cut work, each shortcut switchable so tests
can compare it with the full n² computation:

* ``runs`` — adjacent cards of one hand are equivalent, so one lead or reply
  per run of such cards suffices;
* ``reply_rule`` — §12.1: to a lead it is optimal either to win as cheaply as
  possible or to play the lowest card, so two replies per lead suffice;
* ``symmetry`` — val(D) = |D| − val(D̄) (appendix of the paper): only the
  deals where East holds the ace (the first half of the level in colex order)
  are computed, the rest are mirrored.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from math import comb
from typing import Callable, Iterator

import numpy as np

from whist_catalogue.engine import kernels as K
from whist_catalogue.engine.encoding import MAX_ENGINE_N, SCALE, decode_value
from whist_catalogue.errors import DealTooLargeError
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.labeled import labeled_matrix
from whist_catalogue.theory.ranking import binomial_table, level_masks, level_size, rank
from whist_catalogue.theory.solution import SuitSolution, solution_from_labeled
from whist_catalogue.theory.values import Value

__all__ = ["Level", "Checks", "compute_level", "levels", "EngineSolver", "CHECK_NAMES", "Progress"]

Progress = Callable[[int, int], None]
"""progress(done, total) — deals of the current level finished so far."""

CHECK_NAMES = (
    "conjecture_12_2",
    "conjecture_12_3",
    "conjecture_12_4",
    "theorem_8_10",
    "theorem_9_4",
    "conjecture_12_4_labeled",
)
"""The checks of :class:`Checks`, in the kernels' order."""

CHUNK = 1 << 22
"""Deals per kernel call: small enough for a lively progress bar, large enough to amortise the call."""


def _blocks() -> int:
    return max(1, 8 * (os.cpu_count() or 1))


@dataclass
class Checks:
    """Per-check counts over one level: (checked, counterexamples, rank of the first counterexample)."""

    n: int
    checked: np.ndarray = field(default_factory=lambda: np.zeros(K.N_CHECKS, np.int64))
    counterexamples: np.ndarray = field(default_factory=lambda: np.zeros(K.N_CHECKS, np.int64))
    first: list[int | None] = field(default_factory=lambda: [None] * K.N_CHECKS)

    def add(self, counts: np.ndarray, first_bad: np.ndarray) -> None:
        self.checked += counts[:, :, 0].sum(axis=0)
        self.counterexamples += counts[:, :, 1].sum(axis=0)
        for c in range(K.N_CHECKS):
            found = first_bad[:, c][first_bad[:, c] >= 0]
            if found.size and self.first[c] is None:
                self.first[c] = int(found.min())

    def first_deal(self, check: int) -> Deal | None:
        r = self.first[check]
        if r is None:
            return None
        from whist_catalogue.theory.ranking import unrank

        return Deal(self.n, unrank(self.n, r))


@dataclass
class Level:
    """Every deal with n cards a hand: values, and optionally best moves."""

    n: int
    numerator: np.ndarray
    """val(D) · 2^24 by rank (int32)."""
    infinitesimal: np.ndarray
    """Rank of the infinitesimal part of val(D) (int8, :mod:`whist_catalogue.engine.encoding`)."""
    moves: np.ndarray | None = None
    """(size, 2 + 2n) uint16 position masks of best leads and replies (SPEC §3), if computed."""
    checks: Checks | None = None
    flags: np.ndarray | None = None
    """Per deal (uint8, when computed with checks): bit c set when the deal is a
    counterexample to check ``CHECK_NAMES[c]``."""

    def __len__(self) -> int:
        return self.numerator.shape[0]

    def value(self, r: int) -> Value:
        return decode_value(int(self.numerator[r]), int(self.infinitesimal[r]))

    def outcomes(self, start: int = 0, stop: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """χ = ρ(val) of the deals with ranks in [start, stop) (Corollary 8.9): West's tricks with West,
        and with East, on lead (int8)."""
        inf = self.infinitesimal[start:stop]
        whole, frac = np.divmod(self.numerator[start:stop].astype(np.int64), SCALE)
        half = SCALE // 2
        up = (frac > half) | ((frac == half) & (inf > 0))
        west = whole + up
        # On an exact half-integer ρ favours the player not on lead.
        east = west + ((frac == half) & (inf == 0))
        return west.astype(np.int8), east.astype(np.int8)

    def value_of(self, deal: Deal) -> Value:
        return self.value(rank(deal.west))

    def solution(self, deal: Deal) -> SuitSolution:
        if self.moves is None:
            raise ValueError(f"level {self.n} was computed without moves")
        r = rank(deal.west)
        return SuitSolution.from_move_masks(deal, self.value(r), [int(x) for x in self.moves[r]])

    @classmethod
    def empty(cls) -> Level:
        """Level 0: the empty deal, of value 0."""
        return cls(0, np.zeros(1, np.int32), np.zeros(1, np.int8), np.zeros((1, 2), np.uint16))


def compute_level(
    n: int,
    previous: Level,
    *,
    runs: bool = True,
    reply_rule: bool = True,
    symmetry: bool = False,
    moves: bool = False,
    checks: bool = False,
    progress: Progress | None = None,
) -> Level:
    """Level n from level n−1 (see the module docstring for the shortcuts)."""
    if not 1 <= n <= MAX_ENGINE_N:
        raise DealTooLargeError(f"the engine handles 1 ≤ n ≤ {MAX_ENGINE_N}, not n = {n}")
    if previous.n != n - 1:
        raise ValueError(f"level {n} needs level {n - 1}, got level {previous.n}")
    if symmetry and checks:
        raise ValueError("the checks visit every deal; compute them without the symmetry shortcut")
    size = level_size(n)
    table = binomial_table()
    prev_num = np.ascontiguousarray(previous.numerator, dtype=np.int32)
    prev_inf = np.ascontiguousarray(previous.infinitesimal, dtype=np.int8)
    numer = np.empty(size, np.int32)
    inf = np.empty(size, np.int8)
    computed = comb(2 * n - 1, n) if symmetry else size  # East holds the ace in ranks below this
    blocks = _blocks()
    result_checks = Checks(n) if checks else None
    flags = np.zeros(size, np.uint8)
    counts = np.zeros((blocks, K.N_CHECKS, 2), np.int64)
    first_bad = np.full((blocks, K.N_CHECKS), -1, np.int64)
    for start in range(0, computed, CHUNK):
        stop = min(computed, start + CHUNK)
        counts[:] = 0
        K.level_values(n, start, stop, table, prev_num, prev_inf, SCALE, reply_rule, runs, checks,
                       numer[start:stop], inf[start:stop], flags[start:stop], counts, first_bad, blocks)
        ambiguous = flags[start:stop] & K.FLAG_AMBIGUOUS
        if ambiguous.any():
            bad = start + int(np.flatnonzero(ambiguous)[0])
            raise ArithmeticError(f"I(D) has two half-integers for level {n} rank {bad} (Theorem 8.8)")
        if result_checks is not None:
            result_checks.add(counts, first_bad)
        if progress:
            progress(stop, size)
    if computed < size:
        K.mirror_values(n, computed, size, table, numer, inf, SCALE, blocks)
        if progress:
            progress(size, size)
    level = Level(n, numer, inf, checks=result_checks, flags=flags if checks else None)
    if moves:
        level.moves = compute_moves(n, previous)
    return level


def compute_moves(n: int, previous: Level) -> np.ndarray:
    """Best leads and replies of every deal of level n (full α over runs)."""
    if n > 16:
        raise DealTooLargeError(f"best moves are stored as 16-bit masks, up to n = 16, not n = {n}")
    out = np.zeros((level_size(n), 2 + 2 * n), np.uint16)
    K.level_moves(n, binomial_table(), np.ascontiguousarray(previous.numerator), np.ascontiguousarray(previous.infinitesimal),
                  SCALE, out, _blocks())
    return out


def levels(max_n: int, *, keep_previous: bool = False, progress: Callable[[int, int, int], None] | None = None,
           **options) -> Iterator[Level]:
    """Levels 1…max_n in order; each is computed from the one before.

    ``progress(n, done, total)`` reports within each level.  Only two levels are
    held at a time unless the caller keeps them.
    """
    previous = Level.empty()
    for n in range(1, max_n + 1):
        hook = (lambda done, total, n=n: progress(n, done, total)) if progress else None
        level = compute_level(n, previous, progress=hook, **options)
        yield level
        previous = level


class EngineSolver:
    """A :class:`~whist_catalogue.theory.solution.Solver` that computes whole levels of values in memory on demand.

    Suited to deals beyond a catalogue's reach.  Levels hold values only (five
    bytes a deal); a deal's best moves are read off its α matrix, whose entries
    are values of level n−1.  Level 14 takes about 15 s and 200 MB.

    Thread-safe: levels are computed under a lock, and read freely once computed.
    """

    def __init__(self, max_n: int = 14) -> None:
        self.max_n = max_n
        self._levels: list[Level] = [Level.empty()]
        self._lock = threading.Lock()

    def level(self, n: int) -> Level:
        if n > self.max_n:
            raise DealTooLargeError(
                f"a deal with {n} cards a hand is beyond the engine's bound here (n ≤ {self.max_n});"
                " build the catalogue further to look it up"
            )
        if len(self._levels) <= n:
            with self._lock:
                while len(self._levels) <= n:
                    self._levels.append(compute_level(len(self._levels), self._levels[-1]))
        return self._levels[n]

    def solve(self, deal: Deal) -> SuitSolution:
        return solution_from_labeled(deal, self.value(deal), labeled_matrix(deal, self.value))

    def value(self, deal: Deal) -> Value:
        if deal.n == 0:
            return Value(0)
        return self.level(deal.n).value_of(deal)


def masks(n: int) -> np.ndarray:
    """West's masks of level n in rank order (re-exported for callers of the engine)."""
    return level_masks(n)
