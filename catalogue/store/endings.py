"""The table of two-hand endings in the catalogue: levels k = 1 … K of :mod:`whist_catalogue.twohand.endings` as
checksummed chunks, built, read and checked as the level store's levels are (docs/two-hand.md, "The table in
the catalogue"; docs/level-store.md).

* **Stored**: a level's values in chunks of :data:`~whist_catalogue.twohand.endings.CHUNK_POSITIONS` positions
  (four bits a position, zlib-compressed, :func:`encode_ending_chunk`), each with its SHA-256 in
  ``ending_chunk``; one ``ending_level`` row per level with its positions, chunk size, West's tricks counted
  and bytes, under a SHA-256 of its own (:func:`ending_row_checksum`).
* **Built** (:func:`build_endings`, run by ``build --endings K`` inside :func:`whist_catalogue.store.build.
  build_steps`): level by level from the level below by retrograde analysis, each chunk committed in its own
  transaction and the level marked complete in one more — a killed build loses no finished level and no
  committed chunk.  Level k needs level k − 1 in memory (read back, checked, when this run did not compute it).
* **Read** (:class:`CatalogueEndings`): a row against its checksum, a chunk against its SHA-256, CRC-32 and place
  as it is read; damage is :class:`~whist_catalogue.errors.CatalogueDamagedError` ("check failed: …", exit
  status 1), never an answer.  :meth:`CatalogueEndings.table_for` gives the search a table holding only the
  chunks some positions need: a position the catalogue's levels answer says so (source ``"catalogue"``).
  :meth:`CatalogueEndings.search` (a batch's words: ``outcome`` and ``moves``, and :func:`search_task` on a Dask
  worker) and :meth:`CatalogueEndings.solve` (one deal: the app's Multi-suit view) are where the command line and
  the app answer from the catalogue's table.
* **Verified** (:func:`check_endings`, a check of ``verify``): the rows, every chunk, the counts, and a sample of
  positions a level searched again without the table, both leaders.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import struct
import time
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property, lru_cache, partial
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Sequence

import numpy as np
import sqlalchemy as sa
from sqlalchemy.orm import Session

from whist_catalogue import __version__
from whist_catalogue.constants import MAX_ENDING_N, MAX_SEARCH_N
from whist_catalogue.engine.plan import amount, duration
from whist_catalogue.errors import CatalogueDamagedError, CatalogueError, ChunkError, UsageError
from whist_catalogue.store.database import database_errors, recorded_time
from whist_catalogue.store.levels import ChunkCache, raw_level_rows
from whist_catalogue.store.models import EndingChunkRow, EndingLevelRow, table_of
from whist_catalogue.store.records import BuildProgress, level_ranges

if TYPE_CHECKING:
    from whist_catalogue.theory.deals import TwoHandDeal
    from whist_catalogue.theory.small_suits import SuitTable
    from whist_catalogue.twohand.batch import Found
    from whist_catalogue.twohand.endings import EndingTable
    from whist_catalogue.twohand.position import Position
    from whist_catalogue.twohand.solver import TwoHandSolution

Words = tuple[int, int, int, int, int]
"""A position as the search takes it (:func:`whist_catalogue.twohand.solver.words`)."""

__all__ = [
    "MAX_STORED_K",
    "ENDING_MAGIC",
    "EndingInfo",
    "EndingsEstimate",
    "EndingsSummary",
    "encode_ending_chunk",
    "decode_ending_chunk",
    "checked_ending_chunk",
    "ending_row_checksum",
    "ending_row_problem",
    "estimate_endings",
    "build_endings",
    "CatalogueEndings",
    "search_task",
    "check_endings",
]

MAX_STORED_K = 15
"""The largest level ``build --endings`` takes: the format's (West's tricks in four bits).  What a machine can
build is said by the estimate first (level 14 holds level 13's 1.9 GB while it is computed, level 15 level 14's
7.2 GB)."""
ENDING_MAGIC = b"WEC1"
_HEADER = struct.Struct("<4sBBHQQI")
_LEVEL = 6
"""zlib's level for a chunk: 9 saves 3 % more here and takes twice as long."""
CACHE_BYTES = 256 << 20
"""Decoded chunks a reader keeps (512 KiB each): a batch's positions meet the same chunks again."""
SEARCH_BLOCK = 64
"""Positions :meth:`CatalogueEndings.search` gives one table: 64 random 13-card deals need about 230 chunks of
levels 12 and 13 (120 MB decoded), so that a batch's memory stays that and the cache's whatever its size."""

_chunks = table_of(EndingChunkRow)
_levels = table_of(EndingLevelRow)


# -- a chunk ----------------------------------------------------------------------------------------------


def encode_ending_chunk(k: int, start: int, stop: int, values: np.ndarray) -> bytes:
    """The chunk of level k's positions [start, stop): header (magic ``WEC1``, k, start, stop, the payload's
    CRC-32) and the values (four bits a position, whole words: :func:`~whist_catalogue.twohand.endings.build_level`)
    zlib-compressed."""
    payload = zlib.compress(values.tobytes(), _LEVEL)
    return _HEADER.pack(ENDING_MAGIC, k, 0, 0, start, stop, zlib.crc32(payload)) + payload


def decode_ending_chunk(data: bytes) -> tuple[int, int, int, np.ndarray]:
    """(k, start, stop, values as bytes) of an encoded chunk, or :class:`ChunkError` saying why it is not one."""
    if len(data) < _HEADER.size:
        raise ChunkError(f"{len(data)} bytes are too few for a chunk of endings")
    magic, k, zero, zero2, start, stop, crc = _HEADER.unpack_from(data)
    payload = data[_HEADER.size:]
    if magic != ENDING_MAGIC or zero or zero2:
        raise ChunkError("not a chunk of the table of endings (its header is wrong)")
    if zlib.crc32(payload) != crc:
        raise ChunkError("its CRC-32 differs from its header's")
    try:
        raw = zlib.decompress(payload)
    except zlib.error as exc:
        raise ChunkError(f"cannot decompress its values ({exc})") from None
    positions = stop - start
    if stop <= start or len(raw) != -(-positions // 16) * 8:
        raise ChunkError(f"{len(raw):,} bytes of values for positions [{start:,}, {stop:,})")
    values = np.frombuffer(raw, dtype=np.uint8)
    tail = positions % 16
    if tail and (values[-8:].view(np.uint64)[0] >> np.uint64(4 * tail)) != 0:
        raise ChunkError("values beyond its last position")
    return k, start, stop, values


def checked_ending_chunk(k: int, index: int, chunk_positions: int, size: int, data: Any, checksum: Any,
                         start: Any, stop: Any) -> np.ndarray:
    """Chunk ``index`` of level k (of ``size`` positions) decoded from its ``ending_chunk`` row, or
    :class:`ChunkError` saying what is wrong: its SHA-256 against the one recorded at build time, its CRC-32, its
    own header — level and positions — against the place it is read for and against the row's start and stop."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ChunkError(f"its data holds {type(data).__name__}, not bytes")
    if hashlib.sha256(data).hexdigest() != checksum:
        raise ChunkError("checksum differs from the one recorded at build time")
    found_k, found_start, found_stop, values = decode_ending_chunk(bytes(data))
    first = index * chunk_positions
    last = min(size, first + chunk_positions)
    if (found_k, found_start, found_stop) != (k, first, last):
        raise ChunkError(f"its header says level {found_k}, positions [{found_start:,}, {found_stop:,}); chunk"
                         f" {index} of level {k} holds positions [{first:,}, {last:,})")
    if (start, stop) != (found_start, found_stop):
        raise ChunkError(f"its row records positions [{start}, {stop}), its header [{found_start:,}, {found_stop:,})")
    return values


def _tricks(values: np.ndarray, positions: int, k: int) -> np.ndarray:
    """How many of the positions have West taking 0 … k tricks."""
    nibbles = np.empty(2 * len(values), dtype=np.uint8)
    nibbles[0::2] = values & 15
    nibbles[1::2] = values >> 4
    return np.bincount(nibbles[:positions], minlength=k + 1)[: k + 1].astype(np.int64)


# -- a level's row -----------------------------------------------------------------------------------------


def ending_row_checksum(k: Any, positions: Any, chunk_positions: Any, stored_bytes: Any, statistics: Any) -> str | None:
    """``ending_level.checksum``: SHA-256 (hex) of what a reader takes from a complete level's row, or None when a
    cell holds a type no build writes."""
    if not all(type(x) is int for x in (k, positions, chunk_positions, stored_bytes)) or not isinstance(statistics,
                                                                                                          str):
        return None
    text = (f"ending level {k}\npositions {positions}\nchunk_positions {chunk_positions}\n"
            f"stored_bytes {stored_bytes}\n{statistics}\n")
    return hashlib.sha256(text.encode()).hexdigest()


def _counts(row: Mapping[str, Any]) -> list[int] | None:
    try:
        counts = json.loads(row["statistics"])["west_tricks"]
    except (KeyError, TypeError, ValueError):
        return None
    if not (isinstance(counts, list) and len(counts) == row["k"] + 1 and all(type(c) is int and c >= 0
                                                                              for c in counts)):
        return None
    return counts


def ending_row_problem(row: Mapping[str, Any]) -> str | None:
    """What is wrong with an ``ending_level`` row (a mapping of its cells), or None: a cell of a type or range no
    build writes; for a complete level, a checksum that differs from the row's, or counts that do not sum to its
    positions.  Each text names the level."""
    from whist_catalogue.twohand.endings import positions

    k = row["k"]
    if type(k) is not int or not 1 <= k <= MAX_STORED_K:
        return f"a row of the table of endings names level k = {repr(k)[:24]} (levels are 1…{MAX_STORED_K})"
    if row["complete"] not in (True, False):
        return f"level {k} of the table of endings records complete = {repr(row['complete'])[:24]}"
    if row["positions"] != positions(k):
        return f"level {k} of the table of endings records {repr(row['positions'])[:24]} positions, not {positions(k):,}"
    if not row["complete"]:
        return None
    if row["checksum"] is None or row["checksum"] != ending_row_checksum(
            k, row["positions"], row["chunk_positions"], row["stored_bytes"], row["statistics"]):
        return (f"level {k} of the table of endings: its row differs from the checksum recorded at build time (its"
                " counts, chunk size or bytes were changed, or it was never checksummed)")
    counts = _counts(row)
    if counts is None or sum(counts) != row["positions"]:
        return f"level {k} of the table of endings: its counts do not sum to its positions"
    if not (type(row["chunk_positions"]) is int and row["chunk_positions"] > 0 and row["chunk_positions"] % 16 == 0):
        return f"level {k} of the table of endings records {row['chunk_positions']!r} positions a chunk"
    return None


@dataclass(frozen=True)
class EndingInfo:
    """One level of the table of endings in a catalogue, as ``stats`` shows it."""

    k: int
    complete: bool
    positions: int
    stored_bytes: int | None
    build_seconds: float | None
    west_tricks: list[int] | None
    """How many positions West on lead takes 0, 1, …, k tricks in."""
    problem: str | None = None
    built_at: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        return {"ending_level": self.k, "complete": self.complete, "positions": self.positions,
                "stored_bytes": self.stored_bytes, "build_seconds": self.build_seconds,
                "built_at": self.built_at.isoformat() if self.built_at else None, "west_tricks": self.west_tricks}

    def text(self) -> str:
        if not self.complete:
            return f"endings k = {self.k}: incomplete (interrupted or not yet built)"
        size = amount(self.stored_bytes or 0)
        mean = sum(t * c for t, c in enumerate(self.west_tricks or [])) / max(self.positions, 1)
        seconds = f", built in {self.build_seconds:,.1f} s" if self.build_seconds is not None else ""
        return (f"endings k = {self.k}: {self.positions:,} positions in {size} of chunks{seconds}; West on lead"
                f" takes {mean:.3f} of {self.k} tricks on average; by tricks: "
                + ", ".join(f"{t} ×{c:,}" for t, c in enumerate(self.west_tricks or [])))


def _info(row: Mapping[str, Any]) -> EndingInfo:
    problem = ending_row_problem(row)
    seconds = row["build_seconds"]
    return EndingInfo(
        k=row["k"], complete=bool(row["complete"]),
        positions=row["positions"] if type(row["positions"]) is int else 0,
        stored_bytes=row["stored_bytes"] if type(row["stored_bytes"]) is int else None,
        build_seconds=float(seconds) if isinstance(seconds, (int, float)) else None,
        west_tricks=_counts(row) if row["complete"] else None, problem=problem,
        built_at=recorded_time(row["built_at"]))


# -- the estimate ------------------------------------------------------------------------------------------

SECONDS_PER_POSITION = {9: 0.19e-6, 10: 0.21e-6, 11: 0.23e-6, 12: 0.25e-6, 13: 0.27e-6}
"""Wall seconds a position of level k on both cores of the idle development machine, for a catalogue that records
no level of its own: the CPU time a position measured in memory (0.343 µs at k = 9 … 0.408 at 11, × 1.09 a level
beyond) over 1.8 cores (docs/benchmarks.md, "The table of two-hand endings"); beyond 13, 9 % more a level."""
BYTES_PER_POSITION = {9: 0.0468, 10: 0.0320, 11: 0.0219, 12: 0.0158, 13: 0.0128}
"""Bytes of chunks a position of level k, as stored here; below 9 a level is under 0.6 MB; beyond 13 the ratio
falls by 0.9 a level (levels 9–13 fall by 0.72 a level, the first tenth of level 14 stored 0.0120)."""


def _per_position(measured: dict[int, float], k: int, below: float, growth: float) -> float:
    """Level k's rate: as measured at 9–13, ``below`` under 9, × ``growth`` a level beyond 13."""
    if k in measured:
        return measured[k]
    return below if k < 9 else measured[13] * growth ** (k - 13)


_seconds_per_position = partial(_per_position, SECONDS_PER_POSITION, below=SECONDS_PER_POSITION[9], growth=1.09)
_bytes_per_position = partial(_per_position, BYTES_PER_POSITION, below=0.1, growth=0.9)


@dataclass(frozen=True)
class EndingsEstimate:
    """What building levels ``levels`` of the table adds: positions, seconds, bytes of disk, peak memory."""

    levels: tuple[int, ...]
    positions: int
    seconds: float
    bytes: float
    memory: int
    """Bytes of the table held at the peak: level k − 1 while level k is computed, and level k too when a later
    level needs it."""
    measured: bool
    """True when the rates are the catalogue's own (its largest level's recorded time and bytes)."""

    def describe(self) -> str:
        if not self.levels:
            return "the table of endings: every level asked for is complete"
        rates = "at the rates of its largest level" if self.measured else "at the development machine's rates, idle"
        return (f"the table of endings, k = {level_ranges(self.levels)}: {self.positions:,} positions, about"
                f" {duration(self.seconds)} on two cores and {amount(self.bytes)} of disk, {amount(self.memory)} of"
                f" memory for the table at its peak ({rates})")


def estimate_endings(infos: Sequence[EndingInfo], target: int) -> EndingsEstimate:
    """What building every level up to ``target`` the catalogue lacks would add, from the time and bytes its
    largest complete level of some size records, else the figures measured on this machine."""
    from whist_catalogue.twohand.endings import level_bytes, positions

    complete = {i.k for i in infos if i.complete and i.problem is None}
    todo = tuple(k for k in range(1, target + 1) if k not in complete)
    known = [i for i in infos if i.complete and i.problem is None and i.k >= 9 and i.build_seconds and i.stored_bytes]
    ref = max(known, key=lambda i: i.k, default=None)
    time_scale = bytes_scale = 1.0  # the catalogue's own rates over those measured here, at its largest level
    if ref is not None and ref.build_seconds and ref.stored_bytes:
        time_scale = ref.build_seconds / ref.positions / _seconds_per_position(ref.k)
        bytes_scale = ref.stored_bytes / ref.positions / _bytes_per_position(ref.k)
    seconds = time_scale * sum(positions(k) * _seconds_per_position(k) for k in todo)
    size = bytes_scale * sum(positions(k) * _bytes_per_position(k) for k in todo)
    memory = max((level_bytes(k - 1) + (level_bytes(k) if k < target else 0) for k in todo if k > 1), default=0)
    return EndingsEstimate(todo, sum(positions(k) for k in todo), seconds, size, memory, ref is not None)


# -- the build ---------------------------------------------------------------------------------------------


@dataclass
class EndingsSummary:
    """What a build did to the table of endings."""

    stored: list[int] = field(default_factory=list)
    already_complete: list[int] = field(default_factory=list)
    repaired: list[int] = field(default_factory=list)
    complete: list[int] = field(default_factory=list)
    stored_bytes: int = 0
    """Bytes of chunks of the levels this run stored."""

    def to_json(self) -> dict[str, Any]:
        return {"ending_levels_stored": self.stored, "ending_levels_already_complete": self.already_complete,
                "ending_levels_repaired": self.repaired, "ending_levels_complete": self.complete,
                "ending_stored_bytes": self.stored_bytes}


def check_endings_target(max_k: int) -> None:
    """``--endings K`` within the format and this machine's memory, before any work."""
    from whist_catalogue.twohand.endings import level_bytes

    if not 1 <= max_k <= MAX_STORED_K:
        raise UsageError(f"--endings must be between 1 and {MAX_STORED_K} (West's tricks in four bits), got {max_k}")
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return
    needed = level_bytes(max_k - 1) if max_k > 1 else 0
    if needed > memory // 2:
        raise UsageError(f"--endings {max_k} holds level {max_k - 1} of the table in memory while level {max_k} is"
                         f" computed: {needed / 1e9:.1f} GB, more than half of this machine's {memory / 1e9:.1f} GB")


def _preflight(session: Session, location: Any) -> list[tuple[int, str]]:
    """The table's tables must be there and its rows readable (else the catalogue is damaged beyond resuming); a
    level marked complete whose row fails its checksum, whose chunks do not tile it or one of whose chunks fails
    its SHA-256 is marked incomplete, in one transaction, so that it is stored again (its good chunks kept).
    Returns (k, what was wrong) of each."""
    with session.begin():
        tables = set(sa.inspect(session.connection()).get_table_names())
    missing = sorted({_levels.name, _chunks.name} - tables)
    if missing:
        raise CatalogueDamagedError(f"catalogue {location} is damaged: table {', '.join(missing)} is missing; delete"
                                    " the catalogue and build it again")
    from whist_catalogue.twohand.endings import CHUNK_POSITIONS, chunk_count

    repairs = []
    with session.begin():
        for row in raw_level_rows(session.connection(), table=_levels):
            k, problem = row["k"], ending_row_problem(row)
            if type(k) is not int or not 1 <= k <= MAX_STORED_K or row["complete"] not in (True, False):
                raise CatalogueDamagedError(f"catalogue {location} is damaged: {problem}; delete the catalogue and"
                                            " build it again")
            if not row["complete"]:
                continue
            expected = chunk_count(k)
            in_place = sa.and_(_chunks.c.chunk >= 0, _chunks.c.chunk < expected)
            covered = sa.func.coalesce(sa.func.sum(sa.case((in_place, _chunks.c.stop - _chunks.c.start), else_=0)), 0)
            found, rows = session.execute(sa.select(covered, sa.func.count()).where(_chunks.c.k == k)).one()
            # Each chunk's bytes against its SHA-256 too (a tenth of a second for level 13's 60 MB): a damaged chunk
            # is stored again rather than left for readers to trip on.
            damaged = [c for c, data, checksum in session.execute(
                sa.select(_chunks.c.chunk, _chunks.c.data, _chunks.c.checksum).where(_chunks.c.k == k))
                if not isinstance(data, bytes) or hashlib.sha256(data).hexdigest() != checksum]
            if problem is not None:
                what = "its row differs from its checksum"
            elif row["chunk_positions"] != CHUNK_POSITIONS:
                what = f"it records {row['chunk_positions']} positions a chunk"
            elif found != row["positions"] or rows != expected:
                what = f"its chunks hold {found:,} of its {row['positions']:,} positions"
            elif damaged:
                what = f"its chunk {damaged[0]} differs from its checksum"
            else:
                continue
            session.execute(sa.update(_levels).where(_levels.c.k == k).values(complete=False))
            repairs.append((k, what))
    return repairs


def _read_chunks(session: Session, k: int, into: EndingTable | None) -> dict[int, np.ndarray]:
    """Level k's stored chunks that pass their checks, one at a time: each one's counts of West's tricks by its
    index, and its values copied into ``into`` (a table holding level k) when given.  A chunk that fails is deleted
    (it is computed again), and so are rows of no place in the level."""
    from whist_catalogue.twohand.endings import CHUNK_POSITIONS, chunk_count, level_size

    size, count = level_size(k), chunk_count(k)
    found: dict[int, np.ndarray] = {}
    bad = []
    with session.begin():
        session.execute(sa.delete(_chunks).where(_chunks.c.k == k, sa.or_(_chunks.c.chunk < 0,
                                                                           _chunks.c.chunk >= count)))
        rows = session.connection().execution_options(yield_per=1).execute(
            sa.select(_chunks.c.chunk, _chunks.c.data, _chunks.c.checksum, _chunks.c.start, _chunks.c.stop)
            .where(_chunks.c.k == k))
        for index, data, checksum, start, stop in rows:
            try:
                values = checked_ending_chunk(k, index, CHUNK_POSITIONS, size, data, checksum, start, stop)
            except ChunkError:
                bad.append(index)
                continue
            found[index] = _tricks(values, stop - start, k)
            if into is not None:
                into.chunk_view(k, index)[:] = values
        rows.close()
        if bad:
            session.execute(sa.delete(_chunks).where(_chunks.c.k == k, _chunks.c.chunk.in_(bad)))
    return found


def _load_level(session: Session, location: Any, k: int) -> EndingTable:
    """Level k read back from the catalogue, every chunk checked, as a table holding it alone."""
    from whist_catalogue.twohand.endings import EndingTable, chunk_count

    table = EndingTable.allocate({k: range(chunk_count(k))} if k else {}, "catalogue")
    if k and len(_read_chunks(session, k, table)) != chunk_count(k):
        raise CatalogueDamagedError(f"catalogue {location} is damaged: level {k} of the table of endings lost chunks"
                                    " while it was read (run whist-catalogue verify)")
    return table


def build_endings(session: Session, location: Any, max_k: int, summary: EndingsSummary) -> Iterator[BuildProgress]:
    """Store levels 1 … ``max_k`` of the table the catalogue lacks (the module docstring); its events say
    ``endings-plan`` (the estimate, before any work), ``endings-load`` (level k − 1 read back), ``endings`` (done
    of total positions of level ``n`` = k), ``endings-level`` (level k stored), ``endings-repair`` (a complete
    level found damaged: stored again)."""
    from whist_catalogue.twohand.endings import (CHUNK_POSITIONS, EndingTable, build_level, chunk_count, chunk_range,
                                                 level_size)

    for k, what in _preflight(session, location):
        summary.repaired.append(k)
        yield BuildProgress("endings-repair", k, 0, 1, f"level {k} of the table of endings was marked complete but"
                                                         f" {what}: storing it again")
    with session.begin():
        rows = {r["k"]: r for r in raw_level_rows(session.connection(), table=_levels)}
        complete = sorted(k for k, r in rows.items() if r["complete"] and k <= max_k)
        for k in range(1, max_k + 1):
            if k not in rows:
                session.execute(sa.insert(_levels).values(k=k, complete=False, positions=level_size(k)))
    summary.already_complete = complete
    todo = [k for k in range(1, max_k + 1) if k not in complete]
    estimate = estimate_endings([_info(r) for r in rows.values()], max_k)
    yield BuildProgress("endings-plan", None, 0, len(todo), estimate.describe())
    below: EndingTable | None = None
    for k in todo:
        started = time.perf_counter()
        if below is None or below.max_k != k - 1:
            if k > 1:
                yield BuildProgress("endings-load", k - 1, 0, 1, f"reading level {k - 1} of the table of endings back")
            below = _load_level(session, location, k - 1)
        # Level k itself is kept (for level k + 1) only when this run goes on above it.
        level = EndingTable.allocate({k: range(chunk_count(k))}, "catalogue") if k < todo[-1] else None
        stored = _read_chunks(session, k, level)
        size = level_size(k)
        done = sum(chunk_range(k, c)[1] - chunk_range(k, c)[0] for c in stored)
        yield BuildProgress("endings", k, done, size)
        for index in range(chunk_count(k)):
            if index in stored:
                continue
            start, stop = chunk_range(k, index)
            values = build_level(k, below, start, stop)
            data = encode_ending_chunk(k, start, stop, values)
            with session.begin():
                session.execute(sa.insert(_chunks).values(k=k, chunk=index, start=start, stop=stop, data=data,
                                                          checksum=hashlib.sha256(data).hexdigest()))
            stored[index] = _tricks(values, stop - start, k)
            if level is not None:
                level.chunk_view(k, index)[:] = values
            done += stop - start
            yield BuildProgress("endings", k, done, size)
        counts = np.sum(list(stored.values()), axis=0)
        statistics = json.dumps({"west_tricks": counts.tolist()}, separators=(",", ":"))
        with session.begin():
            count, covered, stored_bytes = session.execute(
                sa.select(sa.func.count(), sa.func.sum(_chunks.c.stop - _chunks.c.start),
                          sa.func.sum(sa.func.length(_chunks.c.data))).where(_chunks.c.k == k)).one()
            if count != chunk_count(k) or covered != size:
                raise AssertionError(f"ending level {k}: {count} chunks cover {covered} positions, expected {size}")
            stored_bytes = int(stored_bytes)
            session.execute(sa.update(_levels).where(_levels.c.k == k).values(
                complete=True, positions=size, chunk_positions=CHUNK_POSITIONS, statistics=statistics,
                stored_bytes=stored_bytes, software_version=__version__, built_at=datetime.now(timezone.utc),
                build_seconds=round(time.perf_counter() - started, 3),
                checksum=ending_row_checksum(k, size, CHUNK_POSITIONS, stored_bytes, statistics)))
        summary.stored.append(k)
        summary.stored_bytes += stored_bytes
        yield BuildProgress("endings-level", k, 1, 1, "stored level of the table of endings")
        below = level
    with session.begin():
        summary.complete = sorted(r["k"] for r in raw_level_rows(session.connection(), table=_levels) if r["complete"])


# -- reading -----------------------------------------------------------------------------------------------


class CatalogueEndings:
    """The table of endings of an open catalogue (:class:`~whist_catalogue.store.reader.Catalogue`): its levels,
    and tables for the search holding the chunks some positions need, each chunk checked as it is read and kept
    (decoded) for the next look-up."""

    def __init__(self, catalogue: Any) -> None:
        self.catalogue = catalogue
        self._cache = ChunkCache(self._load_chunk, CACHE_BYTES, lambda values: values.nbytes)

    @cached_property
    def rows(self) -> dict[int, dict[str, Any]]:
        """The table's rows by k, read once (two of the app's workers racing may read them twice, harmlessly)."""
        try:
            with database_errors(self.catalogue.location), self.catalogue.connect() as connection:
                rows = raw_level_rows(connection, table=_levels)
        except CatalogueError as exc:
            raise self.catalogue.damaged(f"the table of endings cannot be read: {exc}") from None
        for row in rows:
            if type(row["k"]) is not int or not 1 <= row["k"] <= MAX_STORED_K:
                raise self.catalogue.damaged(ending_row_problem(row) or "a row of the table of endings names no level")
        return {r["k"]: r for r in rows}

    def levels(self) -> list[EndingInfo]:
        """Every level the catalogue's table lists, by k."""
        return [_info(r) for _, r in sorted(self.rows.items())]

    def complete_levels(self) -> frozenset[int]:
        """The levels stored whole (a damaged row is named when its level is read, not here)."""
        return frozenset(k for k, r in self.rows.items() if r["complete"] is True or r["complete"] == 1)

    def reaches_beyond_shipped(self) -> bool:
        """Whether the catalogue holds a level the shipped table does not (k > :data:`~whist_catalogue.constants.
        MAX_ENDING_N`): only then does it answer a deal the search would not answer alike."""
        return max(self.complete_levels(), default=0) > MAX_ENDING_N

    def _row(self, k: int) -> dict[str, Any]:
        row = self.rows.get(k)
        if row is None or not row["complete"]:
            raise LookupError(f"level {k} of the table of endings is not in catalogue {self.catalogue.location}")
        problem = ending_row_problem(row)
        if problem is not None:
            raise self.catalogue.damaged(problem)
        return row

    def chunk(self, k: int, index: int, *, keep: bool = True) -> np.ndarray:
        """Chunk ``index`` of complete level k's values, checked as it is read, and kept for the next look-up
        (the least recently used go beyond :data:`CACHE_BYTES`) unless ``keep`` is False."""
        return self._cache.get(k, index) if keep else self._load_chunk(k, index)

    def _load_chunk(self, k: int, index: int) -> np.ndarray:
        from whist_catalogue.twohand.endings import level_size

        row = self._row(k)
        with database_errors(self.catalogue.location), self.catalogue.connect() as connection:
            stored = connection.execute(sa.select(_chunks.c.data, _chunks.c.checksum, _chunks.c.start, _chunks.c.stop)
                                        .where(_chunks.c.k == k, _chunks.c.chunk == index)).one_or_none()
        if stored is None:
            raise self.catalogue.damaged(f"level {k} of the table of endings is marked complete but its chunk {index}"
                                         " is missing")
        try:
            return checked_ending_chunk(k, index, row["chunk_positions"], level_size(k), stored.data,
                                        stored.checksum, stored.start, stored.stop)
        except ChunkError as exc:
            raise self.catalogue.damaged(f"level {k} of the table of endings, chunk {index}: {exc}") from None

    def table_for(self, positions: Iterable[tuple[int, int, int, int, int]]) -> EndingTable | None:
        """A table for the search holding what the catalogue has of what these positions need — each given as the
        kernels' words (West's cards, suits' starts, trump flag) with its leader (−1: a whole deal) and the bit of
        a card led (0: none) — beside the shipped levels; None when the catalogue holds no level above those.
        A position of ≤ K cards a hand is then answered from the catalogue's table
        (:meth:`~whist_catalogue.twohand.endings.EndingTable.answers`, source ``"catalogue"``)."""
        from whist_catalogue.twohand.endings import CHUNK_POSITIONS, EndingTable, endings

        shipped = endings()
        stored = {k for k in self.complete_levels() if k > MAX_ENDING_N}
        asked = [p for p in positions if MAX_ENDING_N < int(p[0]).bit_count() <= max(stored, default=0) + 1]
        levels = {k for p in asked for k in (int(p[0]).bit_count(), int(p[0]).bit_count() - 1)} & stored
        if not levels:
            return None
        # The index of only the levels these positions reach (a level's shapes take a tenth of a second to list).
        skeleton = EndingTable.of_chunks({k: {} for k in levels})
        wanted: dict[int, set[int]] = {}
        for W, B, tf, lead, led in asked:
            for k, at in skeleton.places(W, B, tf, lead, led):
                if k in levels and at >= 0:
                    wanted.setdefault(k, set()).add(at // CHUNK_POSITIONS)
        chunks: dict[int, dict[int, np.ndarray]] = {k: {c: self.chunk(k, c) for c in sorted(held)}
                                                    for k, held in wanted.items()}
        for k in range(1, MAX_ENDING_N + 1):
            chunks[k] = dict(_split(shipped.level(k), k))
        return EndingTable.of_chunks(chunks, "catalogue")

    def search(self, words: Sequence[Words], block: int = SEARCH_BLOCK) -> Found:
        """:func:`whist_catalogue.twohand.batch.search_task` of these positions (the command line's batch), each
        answered from the catalogue's table where its levels hold it and every position one trick on (source
        ``"catalogue"``), else searched; ``block`` positions a table (:data:`SEARCH_BLOCK`)."""
        from whist_catalogue.twohand.batch import search_task

        values: list[list[int]] = []
        results: list[list[list[int]]] = []
        sources: list[str] = []
        for start in range(0, len(words), block):
            part = words[start : start + block]
            table = self.table_for(part)
            found = search_task(part, table if table is not None else True)
            values += found[0]
            results += found[1]
            sources += found[2]
        return values, results, sources

    def solve(self, deal: Position | TwoHandDeal | str, trumps: str | int | None = None, *, line: bool = True,
              table: SuitTable | None = None) -> TwoHandSolution:
        """:func:`whist_catalogue.twohand.solver.solve` of one deal or position (the app's Multi-suit view), answered
        from the catalogue's table when its levels hold the position and every position one trick on (source
        ``"catalogue"``): the theory's when every suit is even, else searched."""
        from whist_catalogue.twohand.position import as_position
        from whist_catalogue.twohand.solver import solve, words

        position = as_position(deal, trumps)
        found = None
        if not position.deal.symmetric and MAX_ENDING_N < position.deal.n <= MAX_SEARCH_N:
            found = self.table_for([words(position)])
        return solve(position, line=line, table=table, endings=found if found is not None else True)

    def level_table(self, top: int) -> EndingTable:
        """Whole levels 1 … ``top`` (the shipped ones, then the catalogue's), for the search to use as leaves or a
        benchmark to load; every chunk checked."""
        from whist_catalogue.twohand.endings import EndingTable, chunk_count, endings

        shipped = endings()
        table = EndingTable.allocate({k: range(chunk_count(k)) for k in range(1, top + 1)}, "catalogue")
        for k in range(1, top + 1):
            parts = dict(_split(shipped.level(k), k)) if k <= MAX_ENDING_N else None
            for c in range(chunk_count(k)):
                table.chunk_view(k, c)[:] = parts[c] if parts is not None else self.chunk(k, c, keep=False)
        return table


@lru_cache(maxsize=4)
def _opened(location: str) -> CatalogueEndings:
    """The catalogue at ``location`` opened once in this process (a Dask worker's), for its table of endings."""
    from whist_catalogue.store.reader import open_catalogue

    return CatalogueEndings(open_catalogue(location))


def search_task(words: Sequence[Words], location: str) -> Found:
    """:meth:`CatalogueEndings.search` of the catalogue at ``location``: what a Dask worker runs for ``outcome`` and
    ``moves --cluster`` when the catalogue's table reaches beyond the shipped one.  The worker opens the catalogue
    itself, once (a SQLite file on the disk the workers share, as ``scan --cluster``'s share their levels, or a
    database server's URL), and reads only the chunks its positions need."""
    return _opened(location).search(words)


def _split(values: np.ndarray, k: int) -> Iterator[tuple[int, np.ndarray]]:
    """A whole level's values cut into its chunks (views)."""
    from whist_catalogue.twohand.endings import chunk_count, chunk_range

    for c in range(chunk_count(k)):
        start, stop = chunk_range(k, c)
        yield c, values[start // 2 : -(-stop // 16) * 8]


# -- verify ------------------------------------------------------------------------------------------------


def check_endings(ctx: Any) -> None:
    """``verify``'s check of the table of endings (a :data:`whist_catalogue.store.verify.CHECKS` entry): every row
    one this software could write, under its checksum; a complete level above an incomplete one named; per
    complete level, its chunks tile its positions, each with its SHA-256, CRC-32 and header as recorded, and the
    row's counts and bytes agree with them; ``ctx.sample`` positions a level (4 by default) searched again without
    the table, with either side on lead, equal to the stored values; with ``ctx.full``, every level computed again
    from the one below and compared chunk by chunk; no chunk of a level the table does not list."""
    from whist_catalogue.twohand.endings import (CHUNK_POSITIONS, EndingTable, build_level, chunk_count, chunk_range,
                                                 level_size)

    problems = ctx.report.problems
    try:
        with database_errors(ctx.catalogue.location), ctx.catalogue.connect() as connection:
            rows = {r["k"]: r for r in raw_level_rows(connection, table=_levels)}
        listed = {row[0] for row in ctx.query(sa.select(_chunks.c.k).group_by(_chunks.c.k))}
    except CatalogueError as exc:
        problems.append(f"the table of endings cannot be read: {exc}")
        return
    for k in sorted(listed - set(rows), key=str):
        problems.append(f"ending_chunk holds chunks of level {k!r} of the table of endings, which ending_level does"
                        " not list (its row deleted or damaged; build --endings again)")
    good: dict[int, dict[str, Any]] = {}
    for k, row in sorted(rows.items(), key=lambda item: str(item[0])):
        problem = ending_row_problem(row)
        if problem is not None:
            problems.append(f"table of endings: {problem}")
        elif not row["complete"]:
            problems.append(f"level {k} of the table of endings: incomplete (interrupted or not yet built; rerun"
                            " build --endings to finish it)")
        else:
            good[k] = row
    for k in sorted(good):
        if k > 1 and k - 1 not in good:
            problems.append(f"level {k} of the table of endings is complete but level {k - 1}, from which it is"
                            " made, is not")
    previous: EndingTable | None = EndingTable.of_chunks({}) if ctx.full else None
    for k in sorted(good):
        ctx.step(f"endings k = {k}")
        row = good[k]
        size, expected = level_size(k), chunk_count(k)
        counts = np.zeros(k + 1, dtype=np.int64)
        stored_bytes = 0
        seen: set[int] = set()
        table = EndingTable.allocate({k: range(expected)}, "catalogue")
        found: list[str] = []
        try:
            chunk_rows = ctx.query(sa.select(_chunks.c.chunk, _chunks.c.data, _chunks.c.checksum, _chunks.c.start,
                                             _chunks.c.stop).where(_chunks.c.k == k).order_by(_chunks.c.chunk))
        except CatalogueError as exc:
            problems.append(f"level {k} of the table of endings: chunks cannot be read: {exc}")
            continue
        for index, data, checksum, start, stop in chunk_rows:
            stored_bytes += len(data) if isinstance(data, (bytes, bytearray, memoryview)) else 0
            if not (isinstance(index, int) and 0 <= index < expected):
                found.append(f"level {k} of the table of endings: a chunk {index!r} that belongs to no place in it")
                continue
            try:
                values = checked_ending_chunk(k, index, CHUNK_POSITIONS, size, data, checksum, start, stop)
            except ChunkError as exc:
                found.append(f"level {k} of the table of endings, chunk {index}: {exc}")
                continue
            seen.add(index)
            counts += _tricks(values, stop - start, k)
            table.chunk_view(k, index)[:] = values
        missing = sorted(set(range(expected)) - seen)
        if missing and not found:
            found.append(f"level {k} of the table of endings: chunk{'s' if len(missing) > 1 else ''}"
                         f" {', '.join(map(str, missing[:5]))}{' …' if len(missing) > 5 else ''} of {expected} missing")
        if not found and row["stored_bytes"] != stored_bytes:
            found.append(f"level {k} of the table of endings records {row['stored_bytes']!r} bytes of chunks, its"
                         f" chunks hold {stored_bytes:,}")
        if not found and counts.tolist() != _counts(row):
            found.append(f"level {k} of the table of endings: its counts differ from its chunks'")
        if not found:
            found.extend(_check_sample(k, table, ctx.rng, ctx.sample))
            if not found:
                ctx.report.ending_levels.append(k)
                ctx.report.ending_positions += size
                ctx.report.ending_sampled += min(ctx.sample, size)
            if ctx.full and previous is not None:
                if previous.max_k == k - 1:
                    for index in range(expected):
                        start, stop = chunk_range(k, index)
                        if not np.array_equal(build_level(k, previous, start, stop), table.chunk_view(k, index)):
                            found.append(f"level {k} of the table of endings, chunk {index}: differs from the level"
                                         f" computed again from level {k - 1}")
                            break
                previous = table
        elif ctx.full:
            previous = None
        problems.extend(found)
        ctx.step(f"endings k = {k}")
        del table


def _check_sample(k: int, table: EndingTable, rng: random.Random, sample: int) -> list[str]:
    """``sample`` positions of level k (all, if fewer) searched again without any table, with West and with East
    on lead: what differs from the table."""
    from whist_catalogue.theory.deals import Notation, Suit, TwoHandDeal
    from whist_catalogue.twohand.endings import ending_value, level_size, position_at, shapes
    from whist_catalogue.twohand.solver import solve_many

    keys, offsets = shapes(k)
    scratch = np.zeros(8, dtype=np.int64)
    picks = rng.sample(range(level_size(k)), min(sample, level_size(k)))
    found, deals = [], []
    for at in picks:
        W, B, tf = (int(x) for x in position_at(k, at, keys, offsets, scratch))
        starts = [i for i in range(2 * k + 1) if B >> i & 1]
        suits = []
        for lo, hi in zip(starts, starts[1:]):
            west = tuple(2 + i for i in range(hi - lo) if W >> (lo + i) & 1)
            east = tuple(2 + i for i in range(hi - lo) if not W >> (lo + i) & 1)
            suits.append(Suit(west, east, Notation.RANKS))
        deals.append((at, W, B, tf, TwoHandDeal(tuple(suits), 0 if tf else None)))
    for (at, W, B, tf, deal), solution in zip(deals, solve_many([d for *_, d in deals], endings=False)):
        for lead in (0, 1):
            stored = int(ending_value(np.uint64(W), np.uint64(B), tf, lead, k, table.words))
            searched = solution.answers[lead].west_tricks
            if stored != searched:
                who = "West" if lead == 0 else "East"
                found.append(f"level {k} of the table of endings: position {at:,} ({deal.text()}, {who} on lead)"
                             f" holds {stored} tricks for West, the search finds {searched}")
    return found
