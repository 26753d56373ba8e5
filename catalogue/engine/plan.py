"""What the engine will compute before it starts: the levels, the deals, the time and the memory (docs/spec.md §7).

A deal beyond the catalogue (a level it lacks, or n > 16) is valued by the
engine, which computes every deal of each missing level from the level below
(§7 of the multi-suit paper) — seconds at n = 13, minutes at n = 16, the better
part of an hour at n = 17.  :class:`EnginePlan` says so up front, and an
:class:`EngineObserver` installed with :func:`observing` hears the plan before
any work and the progress of each level after; raising from either stops the
work (a user's cancel), keeping the levels already finished.

Light on purpose — no NumPy, no Numba — so that an interface can install an
observer without loading the engine it may never need.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from contextvars import ContextVar
from math import comb
from typing import Iterator, NamedTuple, Protocol

from whist_catalogue.constants import MAX_BUILD_N, MAX_ENGINE_N

__all__ = ["EnginePlan", "EngineObserver", "observing", "current_observer", "engine_bound", "beyond_reach", "plan_levels",
           "CORE_SECONDS_PER_DEAL", "BYTES_PER_DEAL", "duration"]

CORE_SECONDS_PER_DEAL = 0.48e-6
"""CPU time a deal with the mirror shortcut: levels 11–14 took 190–285 ns a deal of wall time on 2 cores
(docs/benchmarks.md, "The engine beyond the catalogue")."""
BYTES_PER_DEAL = 2
"""A computed level holds a 2-byte code a deal (:mod:`.codes`)."""
READ_SECONDS_PER_DEAL = 0.05e-6
"""Reading a catalogue level's chunks into memory: about 50 ms a chunk of a million deals."""


def duration(seconds: float) -> str:
    """``45 s``, ``3 min``, ``1 h 20 min``: an estimate in words."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 3600:
        return f"{round(seconds / 60)} min"
    return f"{int(seconds // 3600)} h {round(seconds % 3600 / 60)} min"


def _size(count: int) -> str:
    if count >= 10**9:
        return f"{count / 10**9:.1f} billion"
    if count >= 10**6:
        return f"{count / 10**6:.0f} million"
    return f"{count:,}"


def _bytes(count: int) -> str:
    if count >= 10**9:
        return f"{count / 10**9:.1f} GB"
    return f"{max(1, round(count / 10**6))} MB"


class EnginePlan(NamedTuple):
    """The work before the engine can value a deal with ``n`` cards a hand.  (A named tuple: this module is
    imported by every look-up command, and a dataclass costs a millisecond to create.)"""

    n: int
    levels: tuple[int, ...]
    """The levels to compute, in order (empty: nothing to do)."""
    seeded_from: int | None = None
    """A level read from the catalogue to start from, if any."""
    cores: int = 1

    @property
    def deals(self) -> int:
        return sum(comb(2 * k, k) for k in self.levels)

    @property
    def seconds(self) -> float:
        """About how long, on this machine's cores."""
        read = comb(2 * self.seeded_from, self.seeded_from) * READ_SECONDS_PER_DEAL if self.seeded_from else 0.0
        return read + self.deals * CORE_SECONDS_PER_DEAL / self.cores

    @property
    def memory(self) -> int:
        """Bytes the levels hold once computed (the seed level included)."""
        held = self.levels + ((self.seeded_from,) if self.seeded_from else ())
        return sum(comb(2 * k, k) for k in held) * BYTES_PER_DEAL

    @property
    def span(self) -> str:
        """``level 15`` or ``levels 1–13``: the levels to compute, in words (a nonempty plan)."""
        first, last = self.levels[0], self.levels[-1]
        return f"level {last}" if first == last else f"levels {first}–{last}"

    def overall(self, n: int, done: int) -> int:
        """Deals of the whole plan valued once ``done`` deals of its level n are: one count over all its levels."""
        return sum(comb(2 * k, k) for k in self.levels if k < n) + done

    def describe(self) -> str:
        """``computing levels 15–16 (756 million deals): about 3 min and 1.5 GB of memory``."""
        if not self.levels:
            return "nothing to compute"
        start = f"reading level {self.seeded_from} from the catalogue, then " if self.seeded_from else ""
        return (f"{start}computing {self.span} ({_size(self.deals)} deals): about {duration(self.seconds)}"
                f" and {_bytes(self.memory)} of memory")


class EngineObserver(Protocol):
    """Told of the engine's work; raising from a method stops it (finished levels are kept).  Subclass it, or
    pass any object with these two methods."""

    def planned(self, plan: EnginePlan) -> None:
        """Before the first level is computed."""

    def progress(self, n: int, done: int, total: int) -> None:
        """Deals of level n valued so far."""


_observer: ContextVar[EngineObserver | None] = ContextVar("engine_observer", default=None)


def current_observer() -> EngineObserver | None:
    return _observer.get()


@contextmanager
def observing(observer: EngineObserver | None) -> Iterator[None]:
    """Install ``observer`` for the engine work this thread (or task) starts inside the block."""
    token = _observer.set(observer)
    try:
        yield
    finally:
        _observer.reset(token)


def plan_levels(n: int, computed: set[int] | frozenset[int], seed: int | None = None) -> EnginePlan:
    """The levels needed for n given those held (``computed``), starting above ``seed`` (a catalogue's top
    complete level, read when none of its own is held) or from nothing."""
    held = [k for k in computed if k <= n]
    start = max(held, default=0)
    seeded = None
    if seed is not None and start < seed < n:
        start, seeded = seed, seed
    if start >= n:
        return EnginePlan(n, ())
    return EnginePlan(n, tuple(range(start + 1, n + 1)), seeded, os.cpu_count() or 1)


def beyond_reach(n: int, max_n: int) -> str:
    """Why a deal with n cards a hand is not valued here, with the one remedy that exists: a catalogue built
    further when n is a level a catalogue can hold, else none (only the linear-time theory reaches it)."""
    said = f"a deal with {n} cards a hand is beyond the engine's reach here (n ≤ {max_n})"
    if n <= MAX_BUILD_N:
        return f"{said}; build the catalogue further (whist-catalogue build --max-n {n}) to look it up"
    return f"{said} and of any catalogue (n ≤ {MAX_BUILD_N})"


def engine_bound(memory: int | None = None) -> int:
    """The largest n whose levels 1…n fit in half the memory (physical memory if not given): the engine's
    reach here.  Level 17 holds 2.3 billion deals, 4.7 GB."""
    if memory is None:
        try:
            memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (AttributeError, ValueError, OSError):
            memory = 8 * 2**30
    n, held = 0, 0
    while True:
        held += comb(2 * (n + 1), n + 1) * BYTES_PER_DEAL
        if held > memory // 2 or n + 1 > MAX_ENGINE_N:
            return n
        n += 1
