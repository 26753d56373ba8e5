"""What the engine will compute before it starts: the levels, the deals, the time and the memory (docs/spec.md §7).

A deal beyond the catalogue (a level it lacks, or n > 16) is valued by the
engine, which computes every deal of each missing level from the level below
(§7.2 of the multi-suit paper) — a second at n = 13, a minute and a half at n = 16,
several minutes at n = 17.  :class:`EnginePlan` says so up front, and an
:class:`EngineObserver` installed with :func:`observing` hears the plan before
any work and the progress of each level after; raising from either stops the
work (a user's cancel), keeping the levels already finished.

Every estimate of time and memory the command line and the app give is made here, one function a
quantity, so the two never disagree: :func:`level_seconds` (a level valued as ``value`` or as ``build``
values it), :func:`read_seconds`, :func:`engine_memory` (the engine's peak), :func:`build_memory` (the
build's) and, from the engine's memory, :func:`engine_bound` (how far the engine reaches here).  Time is a
level's deals times a cost a deal that grows with n, over the cores, with constants measured on
:data:`CALIBRATED_ON` — never a level's recorded time, which holds whatever else the machine did then.
Memory is what the computation holds: 2 bytes a deal of every level kept, the chunk in hand and the process
itself.  docs/benchmarks.md ("The engine's estimates") has the measurements behind each constant and the
model against measured peaks.

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
           "level_seconds", "read_seconds", "engine_memory", "build_memory", "duration", "amount", "CALIBRATED_ON",
           "CHUNK", "CODE_BYTES", "PROCESS_BYTES"]

# -- the model: every estimate of time and memory the command line and the app give ------------------------

CALIBRATED_ON = "a 2-core AMD EPYC (Zen 5) virtual machine"
"""Where the time model's constants were measured, 26 November 2026 (docs/benchmarks.md, "The engine's
estimates"); another machine's speed a core scales them, and the machine this project ran on earlier took up to
1.6 times the CPU a deal."""
VALUE_CPU_NS = (96.0, 7.4)
"""(a, b): CPU nanoseconds a deal of level n takes to value as ``value`` does (the mirror shortcut: half the
level by the kernel, the other half mirrored, then coded), a + b·n — a deal's work and its reads of level n − 1
grow with n.  Fitted to levels 12–16 (189–218 ns a deal)."""
BUILD_CPU_NS = (286.0, 14.8)
"""The same as ``build`` values a level: every deal by the kernel with the papers' checks, a chunk of a
million deals at a time encoded, compressed and committed (468–537 ns a deal at levels 12–16)."""
PARALLEL_GAIN = 0.8
"""What each core beyond the first adds to the speed: the kernels run on every core, and only 2–3 % of the CPU
time is one thread's (coding, zlib, SQLite).  Idle builds of levels 16–18 kept 1.71–1.83 cores busy
(docs/level-store.md); level 15's value took 34.8 s of CPU in 20.1 s with another program beside it."""
READ_NS = 20.0
"""Wall nanoseconds a deal to read a level from the catalogue's chunks (level 14: 0.9 s)."""

CHUNK = 1 << 22
"""Deals the engine values per kernel call (:func:`whist_catalogue.engine.levels.compute_level`): small
enough for a lively progress bar, large enough to amortise the call."""
REMAP_DEALS = 1 << 20
"""Codes turned into final ones at a time once a level's table is complete: NumPy widens each index to 8 bytes
first, which over a whole level would hold 8 bytes a deal more (1.2 GB at n = 15)."""
REMAP_BYTES = 10
"""A remapped code's index widened to 8 bytes, and its 2-byte result."""
CODE_BYTES = 2
"""A computed level holds a 2-byte code a deal (:mod:`.codes`)."""
CHUNK_BUFFER_BYTES = 6
"""While a level is valued, each deal of the chunk in hand holds its numerator (4 bytes), its infinitesimal
and its check flags (1 byte each)."""
READ_BYTES = 5
"""Reading a level from the catalogue holds, a deal, every decoded chunk's code (one byte in a chunk of at most
256 values, as most are from n = 15 on) and check bits beside the level's own codes and check bits (3 bytes),
until the chunks are dropped: 4.9–5.7 bytes a deal measured, the build reading levels 14–17 back."""
READ_LEFT_BYTES = 1
"""What of that reading stays resident after it, a deal: the decoded chunks are small arrays, and the C
allocator keeps part of their heap for later (at n = 16 the peak was 100 MB above the model without it)."""
PROCESS_BYTES = 210 * 10**6
"""The command line's own resident memory once the engine works beside an open catalogue: Python, NumPy,
SQLAlchemy, Numba and its loaded kernels (180–220 MB measured at n = 13–15).  The app's own (Qt, its views)
comes on top of it."""


def level_seconds(n: int, *, build: bool = False, cores: int | None = None) -> float:
    """About how long valuing level n takes on ``cores`` cores (default: this machine's): as ``value`` and the
    app's explorer do (:class:`~whist_catalogue.engine.levels.EngineSolver`), or as ``build`` does
    (``build=True``)."""
    # Fitted to levels 12–16; above them the kernels wait on memory more (level 17's 4.7 GB read at random for
    # level 18 cost 31 % more CPU a deal than level 16's for level 17, docs/level-store.md), so there the estimate
    # errs short.
    a, b = BUILD_CPU_NS if build else VALUE_CPU_NS
    cores = cores or os.cpu_count() or 1
    return comb(2 * n, n) * (a + b * n) * 1e-9 / (1 + (cores - 1) * PARALLEL_GAIN)


def read_seconds(n: int) -> float:
    """About how long reading level n from the catalogue takes."""
    return comb(2 * n, n) * READ_NS * 1e-9


def engine_memory(levels: tuple[int, ...], held: tuple[int, ...] = (), seed: int | None = None) -> int:
    """Peak resident memory, in bytes, of a process whose engine values ``levels`` in order, holding ``held``
    already and reading ``seed`` from the catalogue first: every level it keeps at 2 bytes a deal, the chunk
    in hand, what reading the seed left behind and the process itself (:data:`PROCESS_BYTES`) — or, if larger,
    the moment the seed level is read.  Measured against the peaks of ``value`` at n = 13–16 in docs/benchmarks.md."""
    kept = CODE_BYTES * sum(comb(2 * k, k) for k in set(held) | set(levels) | ({seed} if seed else set()))
    if seed:
        kept += READ_LEFT_BYTES * comb(2 * seed, seed)
    in_hand = 0
    if levels:
        top = comb(2 * levels[-1], levels[-1])
        in_hand = min(top, CHUNK) * CHUNK_BUFFER_BYTES + min(top, REMAP_DEALS) * REMAP_BYTES
    reading = 0
    if seed:
        reading = CODE_BYTES * sum(comb(2 * k, k) for k in set(held)) + READ_BYTES * comb(2 * seed, seed)
    return PROCESS_BYTES + max(kept + in_hand, reading)


def build_memory(levels: tuple[int, ...]) -> int:
    """Peak resident memory, in bytes, of ``build`` storing ``levels`` (in order, the first read back from the
    catalogue's level below it unless it is level 1).  While level n is valued the build holds level n − 1; a
    level below the top one also keeps its chunks' codes, and at its end assembles the level from them to value
    the next one from — level n − 1, the chunks and the assembled level at once, 2 + 4 bytes a deal of level n
    (the top level keeps only its chunks' tables).  Measured against ``build`` at n = 15–16 and the builds to
    n = 17 and 18 in docs/benchmarks.md."""
    if not levels:
        return PROCESS_BYTES
    first = levels[0]
    peak = READ_BYTES * comb(2 * first - 2, first - 1) if first > 1 else 0
    for n in levels:
        size = comb(2 * n, n)
        held = CODE_BYTES * comb(2 * n - 2, n - 1) + (2 * CODE_BYTES * size if n != levels[-1] else 0)
        peak = max(peak, held + min(size, CHUNK) * CHUNK_BUFFER_BYTES)
    return PROCESS_BYTES + peak


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


def amount(size: float) -> str:
    """``3.6 MB``, ``390 MB``, ``1.6 GB``: bytes in decimal units, to two or three significant figures."""
    if size >= 10**9:
        return f"{size / 10**9:.1f} GB"
    if size >= 10 * 10**6:
        return f"{round(size / 10**6)} MB"
    if size >= 10**6:
        return f"{size / 10**6:.1f} MB"
    return f"{max(1, round(size / 10**3))} kB"


class EnginePlan(NamedTuple):
    """The work before the engine can value a deal with ``n`` cards a hand.  (A named tuple: this module is
    imported by every look-up command, and a dataclass costs a millisecond to create.)"""

    n: int
    levels: tuple[int, ...]
    """The levels to compute, in order (empty: nothing to do)."""
    seeded_from: int | None = None
    """A level read from the catalogue to start from, if any."""
    cores: int = 1
    held: tuple[int, ...] = ()
    """Levels the engine holds already, and keeps: they count in its memory."""

    @property
    def deals(self) -> int:
        return sum(comb(2 * k, k) for k in self.levels)

    @property
    def seconds(self) -> float:
        """About how long, on this machine's cores (:func:`level_seconds`, :func:`read_seconds`)."""
        read = read_seconds(self.seeded_from) if self.seeded_from else 0.0
        return read + sum(level_seconds(k, cores=self.cores) for k in self.levels)

    @property
    def memory(self) -> int:
        """The process's peak resident memory while the plan runs (:func:`engine_memory`)."""
        return engine_memory(self.levels, self.held, self.seeded_from)

    @property
    def span(self) -> str:
        """``level 15`` or ``levels 1–13``: the levels to compute, in words (a nonempty plan)."""
        first, last = self.levels[0], self.levels[-1]
        return f"level {last}" if first == last else f"levels {first}–{last}"

    def overall(self, n: int, done: int) -> int:
        """Deals of the whole plan valued once ``done`` deals of its level n are: one count over all its levels."""
        return sum(comb(2 * k, k) for k in self.levels if k < n) + done

    def describe(self) -> str:
        """``computing levels 15–16 (756 million deals): about 2 min and 1.8 GB of memory``: the memory is the
        process's peak, itself included."""
        if not self.levels:
            return "nothing to compute"
        start = f"reading level {self.seeded_from} from the catalogue, then " if self.seeded_from else ""
        return (f"{start}computing {self.span} ({_size(self.deals)} deals): about {duration(self.seconds)}"
                f" and {amount(self.memory)} of memory")


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
    return EnginePlan(n, tuple(range(start + 1, n + 1)), seeded, os.cpu_count() or 1,
                      tuple(sorted(k for k in computed if k > 0)))


def beyond_reach(n: int, max_n: int) -> str:
    """Why a deal with n cards a hand is not valued here, with the one remedy that exists: a catalogue built
    further when n is a level a catalogue can hold, else none (only the linear-time theory reaches it)."""
    said = f"a deal with {n} cards a hand is beyond the engine's reach here (n ≤ {max_n})"
    if n <= MAX_BUILD_N:
        return f"{said}; build the catalogue further (whist-catalogue build --max-n {n}) to look it up"
    return f"{said} and of any catalogue (n ≤ {MAX_BUILD_N})"


def engine_bound(memory: int | None = None) -> int:
    """The largest n the engine computes from nothing (every level 1…n, all kept) within half the memory
    (physical memory if not given), by :func:`engine_memory`: the engine's reach here.  Levels 1–17 take
    6.2 GB of codes, levels 1–18 24.5 GB: n ≤ 17 with 24 GiB."""
    if memory is None:
        try:
            memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (AttributeError, ValueError, OSError):
            memory = 8 * 2**30
    n = 0
    while n < MAX_ENGINE_N and engine_memory(tuple(range(1, n + 2))) <= memory // 2:
        n += 1
    return n
