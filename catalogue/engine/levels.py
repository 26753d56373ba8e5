"""The engine: the value and optimal moves of every single-suit deal, level by level.

Level n holds all C(2n, n) deals with n cards a hand, indexed by the colex
rank of West's cards (:mod:`whist_catalogue.theory.ranking`).  Each deal's value comes from
its reductions D_ij at level n−1, exactly as in §7 of the multi-suit paper; the
kernels live in :mod:`whist_catalogue.engine.kernels`.  A level holds its values
as 2-byte codes into a table of its distinct values (:mod:`whist_catalogue.engine.codes`);
the kernels work in the exact encoding of :mod:`whist_catalogue.engine.encoding`
(a numerator over 2^24 and an infinitesimal rank).

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
from whist_catalogue.engine.codes import Encoder, ValueTable
from whist_catalogue.constants import CHECK_NAMES, MAX_ENGINE_N, MAX_MASKED_MOVES_N, SCALE
from whist_catalogue.engine.plan import (CHUNK, REMAP_DEALS, EnginePlan, beyond_reach, current_observer, engine_bound,
                                         plan_levels)
from whist_catalogue.errors import DealTooLargeError
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.labeled import labeled_matrix
from whist_catalogue.theory.ranking import binomial_table, level_size, rank, unrank
from whist_catalogue.theory.solution import ENGINE, SolverBase, SuitSolution, solution_from_labeled
from whist_catalogue.theory.values import Value

__all__ = [
    "Level", "LevelRange", "Checks", "compute_level", "compute_range", "levels", "EngineSolver", "CHECK_NAMES",
    "Progress", "table_outcomes",
]

Progress = Callable[[int, int], None]
"""progress(done, total) — deals of the current level finished so far."""


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
        """Add the kernel's per-block counts (blocks × checks × 2) and first counterexamples (−1: none)."""
        first = [int(ranks[ranks >= 0].min()) if (ranks >= 0).any() else None for ranks in first_bad.T]
        self.merge(Checks(self.n, counts[:, :, 0].sum(axis=0), counts[:, :, 1].sum(axis=0), first))

    def merge(self, other: Checks) -> None:
        """Add the counts of another part of the same level (parts may arrive in any order)."""
        self.checked += other.checked
        self.counterexamples += other.counterexamples
        self.first = [b if a is None else a if b is None else min(a, b) for a, b in zip(self.first, other.first)]

    def first_deal(self, check: int) -> Deal | None:
        r = self.first[check]
        if r is None:
            return None
        return Deal(self.n, unrank(self.n, r))


@dataclass
class Level:
    """Every deal with n cards a hand: values as 2-byte codes, and optionally best moves."""

    n: int
    codes: np.ndarray
    """val(D) by rank, as uint16 codes into :attr:`table` (may be a read-only ``np.memmap``)."""
    table: ValueTable
    """The level's distinct values, in value order."""
    moves: np.ndarray | None = None
    """(size, 2 + 2n) uint16 position masks of best leads and replies (docs/spec.md §3), if computed."""
    checks: Checks | None = None
    flags: np.ndarray | None = None
    """Per deal (uint8, when computed with checks): bit c set when the deal is a
    counterexample to check ``CHECK_NAMES[c]``."""

    def __post_init__(self) -> None:
        if self.codes.dtype != np.uint16 or self.codes.shape != (level_size(self.n),):
            raise ValueError(f"level {self.n} needs {level_size(self.n)} uint16 codes, got {self.codes.dtype}"
                             f" {self.codes.shape}")

    def __len__(self) -> int:
        return self.codes.shape[0]

    @property
    def numerator(self) -> np.ndarray:
        """val(D) · 2^24 by rank (int32), materialised from the codes."""
        return self.table.numerator[self.codes]

    @property
    def infinitesimal(self) -> np.ndarray:
        """Rank of the infinitesimal part of val(D) (int8, :mod:`whist_catalogue.engine.encoding`), materialised."""
        return self.table.infinitesimal[self.codes]

    def value(self, r: int) -> Value:
        return self.table.value(int(self.codes[r]))

    def value_counts(self) -> dict[Value, int]:
        """How many deals of the level have each value."""
        counts = np.bincount(self.codes, minlength=len(self.table))
        return {self.table.value(c): int(k) for c, k in enumerate(counts) if k}

    def outcomes(self, start: int = 0, stop: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """χ = ρ(val) of the deals with ranks in [start, stop) (Corollary 8.9): West's tricks with West,
        and with East, on lead (int8)."""
        west, east = table_outcomes(self.table)
        codes = self.codes[start:stop]
        return west[codes], east[codes]

    def solution(self, deal: Deal) -> SuitSolution:
        if self.moves is None:
            raise ValueError(f"level {self.n} was computed without moves")
        r = rank(deal.west)
        return SuitSolution.from_move_masks(deal, self.value(r), [int(x) for x in self.moves[r]])

    @classmethod
    def empty(cls) -> Level:
        """Level 0: the empty deal, of value 0."""
        return cls(0, np.zeros(1, np.uint16), ValueTable(np.zeros(1, np.int32), np.zeros(1, np.int8)),
                   np.zeros((1, 2), np.uint16))


def table_outcomes(table: ValueTable) -> tuple[np.ndarray, np.ndarray]:
    """ρ of each value of a table (Corollary 8.9): West's tricks with West, and with East, on lead (int8)."""
    inf = table.infinitesimal
    whole, frac = np.divmod(table.numerator.astype(np.int64), SCALE)
    half = SCALE // 2
    up = (frac > half) | ((frac == half) & (inf > 0))
    west = whole + up
    # On an exact half-integer ρ favours the player not on lead.
    east = west + ((frac == half) & (inf == 0))
    return west.astype(np.int8), east.astype(np.int8)


@dataclass
class LevelRange:
    """The deals of level n with ranks in [start, stop), valued: the unit of work of a chunk or a cluster task."""

    n: int
    start: int
    stop: int
    numerator: np.ndarray
    """val(D) · 2^24 (int32), indexed by rank − start."""
    infinitesimal: np.ndarray
    """Infinitesimal rank (int8), indexed by rank − start."""
    flags: np.ndarray | None
    """Check flags (uint8) when computed with checks."""
    checks: Checks | None


def _check_step(n: int, previous: Level) -> None:
    if not 1 <= n <= MAX_ENGINE_N:
        raise DealTooLargeError(f"the engine handles 1 ≤ n ≤ {MAX_ENGINE_N}, not n = {n}")
    if previous.n != n - 1:
        raise ValueError(f"level {n} needs level {n - 1}, got level {previous.n}")


def compute_range(
    n: int,
    previous: Level,
    start: int,
    stop: int,
    *,
    runs: bool = True,
    reply_rule: bool = True,
    checks: bool = False,
) -> LevelRange:
    """The values of the deals of level n with ranks in [start, stop), from level n−1."""
    _check_step(n, previous)
    if not 0 <= start <= stop <= level_size(n):
        raise ValueError(f"ranks [{start}, {stop}) are not within level {n}")
    blocks = _blocks()
    numer = np.empty(stop - start, np.int32)
    inf = np.empty(stop - start, np.int8)
    flags = np.zeros(stop - start, np.uint8)
    counts = np.zeros((blocks, K.N_CHECKS, 2), np.int64)
    first_bad = np.full((blocks, K.N_CHECKS), -1, np.int64)
    K.level_values(n, start, stop, binomial_table(), previous.codes, previous.table.numerator,
                   previous.table.infinitesimal, SCALE, reply_rule, runs, checks, numer, inf, flags, counts,
                   first_bad, blocks)
    ambiguous = flags & K.FLAG_AMBIGUOUS
    if ambiguous.any():
        bad = start + int(np.flatnonzero(ambiguous)[0])
        raise ArithmeticError(f"I(D) has two half-integers for level {n} rank {bad} (Theorem 8.8)")
    found = None
    if checks:
        found = Checks(n)
        found.add(counts, first_bad)
    return LevelRange(n, start, stop, numer, inf, flags if checks else None, found)


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
    _check_step(n, previous)
    if symmetry and checks:
        raise ValueError("the checks visit every deal; compute them without the symmetry shortcut")
    size = level_size(n)
    computed = comb(2 * n - 1, n) if symmetry else size  # East holds the ace in ranks below this
    codes = np.empty(size, np.uint16)
    encoder = Encoder()
    flags = np.zeros(size, np.uint8) if checks else None
    result_checks = Checks(n) if checks else None
    for start in range(0, computed, CHUNK):
        stop = min(computed, start + CHUNK)
        part = compute_range(n, previous, start, stop, runs=runs, reply_rule=reply_rule, checks=checks)
        encoder.add(part.numerator, part.infinitesimal, out=codes[start:stop])
        if flags is not None and result_checks is not None:
            assert part.flags is not None and part.checks is not None  # computed with checks
            flags[start:stop] = part.flags
            result_checks.merge(part.checks)
        if progress:
            progress(stop, size)
    if computed < size:
        # Mirror images n − v of every value seen join the table first, then the kernel copies codes.
        seen_num, seen_inf = encoder.seen()
        mirror = encoder.add(n * SCALE - seen_num, -seen_inf)
        K.mirror_codes(n, computed, size, binomial_table(), codes, mirror, _blocks())
        if progress:
            progress(size, size)
    table, final = encoder.finish()
    # Provisional codes become final ones a slice at a time: np.take or a fancy index over the whole level widens
    # its uint16 indices to intp first, 8 bytes a deal (1.2 GB more at n = 15, 19 GB at n = 17).
    for start in range(0, size, REMAP_DEALS):
        provisional = codes[start : start + REMAP_DEALS]
        provisional[...] = final[provisional]
    level = Level(n, codes, table, checks=result_checks, flags=flags)
    if moves:
        level.moves = compute_moves(n, previous)
    return level


def compute_moves(n: int, previous: Level) -> np.ndarray:
    """Best leads and replies of every deal of level n (full α over runs)."""
    if n > MAX_MASKED_MOVES_N:
        raise DealTooLargeError(f"best moves are stored as 16-bit masks, up to n = {MAX_MASKED_MOVES_N}, not n = {n}")
    out = np.zeros((level_size(n), 2 + 2 * n), np.uint16)
    K.level_moves(n, binomial_table(), previous.codes, previous.table.numerator, previous.table.infinitesimal,
                  SCALE, out, _blocks())
    return out


def levels(max_n: int, *, progress: Callable[[int, int, int], None] | None = None,
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


class EngineSolver(SolverBase):
    """A :class:`~whist_catalogue.theory.solution.Solver` that computes whole levels of values in memory on demand.

    Suited to deals beyond a catalogue's reach.  Levels hold values only (two
    bytes a deal); a deal's best moves are read off its α matrix, whose entries
    are values of level n−1.  Levels are computed with the mirror shortcut
    (val(D) = n − val(D̄)); how long a level takes is :func:`~.plan.level_seconds`.

    ``seed()``, when given, returns a complete level to start from — a catalogue's top
    level — so that only the levels above it are computed.  Before any work the
    :class:`~.plan.EngineObserver` installed with :func:`~.plan.observing` hears the
    plan (:meth:`plan`), then each level's progress; raising from it stops the work,
    and the levels finished so far are kept.

    Thread-safe: levels are computed under a lock, and read freely once computed.
    """

    source = ENGINE

    def __init__(self, max_n: int | None = None, *, seed: Callable[[], Level | None] | None = None,
                 seed_n: int | None = None) -> None:
        """``max_n``: the engine's reach (default :func:`~.plan.engine_bound`, what half the memory holds);
        ``seed_n``: the level ``seed()`` returns, so that a plan can be made before reading it."""
        self.max_n = engine_bound() if max_n is None else max_n
        self._levels: dict[int, Level] = {0: Level.empty()}
        self._seed, self._seed_n = seed, seed_n
        self._lock = threading.Lock()

    def plan(self, n: int) -> EnginePlan:
        """What valuing a deal with n cards a hand would compute now (nothing once level n is held)."""
        self._check_reach(n)
        return plan_levels(n, frozenset(self._levels), self._seed_n if self._seed is not None else None)

    def _check_reach(self, n: int) -> None:
        if n > self.max_n:
            raise DealTooLargeError(beyond_reach(n, self.max_n))

    def level(self, n: int) -> Level:
        found = self._levels.get(n)
        if found is not None:
            return found
        self._check_reach(n)
        with self._lock:
            plan = self.plan(n)
            observer = current_observer()
            if plan.levels and observer is not None:
                observer.planned(plan)
            if plan.seeded_from is not None:
                seed = self._seed
                seeded = seed() if seed is not None else None
                self._seed = None  # read once: a failure to read is the catalogue's, reported as such
                if seeded is not None and seeded.n == plan.seeded_from:
                    self._levels[seeded.n] = seeded
                else:
                    plan = plan_levels(n, frozenset(self._levels))
                    if observer is not None:
                        observer.planned(plan)
            for k in plan.levels:
                hook = (lambda done, total, k=k: observer.progress(k, done, total)) if observer else None
                self._levels[k] = compute_level(k, self._levels[k - 1], symmetry=True, progress=hook)
        return self._levels[n]

    def solve(self, deal: Deal) -> SuitSolution:
        return solution_from_labeled(deal, self.value(deal), labeled_matrix(deal, self.value))

    def value(self, deal: Deal) -> Value:
        if deal.n == 0:
            return Value(0)
        return self.level(deal.n).value(rank(deal.west))
