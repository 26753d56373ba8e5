"""Filling the catalogue from the engine, level by level, resumably (docs/spec.md §5).

The build is a generator of :class:`BuildProgress` events, so the command
line's tqdm bar and the app's progress dialog consume the same thing
(:func:`build_steps`); :func:`build` drives it with a callback.  Stopping the
iteration (``close()``, or simply not asking for more) abandons the level in
progress: its transaction is rolled back.

Steps:

1. Open the database for writing (:func:`whist_catalogue.store.database.writer_engine`):
   created if missing, upgraded by alembic if an older catalogue of ours,
   refused if foreign or newer.
2. Record the plan: a ``level`` row with ``complete = False`` for every n ≤ N
   not yet present (one small transaction), so that ``verify`` can report an
   interrupted level as incomplete.
3. For each level n ≤ N not complete (the level store, :mod:`whist_catalogue.store.levels`):
   value its deals chunk by chunk from level n−1 — read back from the
   catalogue's own chunks when this run did not just compute it, so a resumed
   build never recomputes the levels below — and commit each chunk
   (:func:`whist_catalogue.engine.chunks.pack_chunk`, with its SHA-256) in its own
   transaction; a chunk an interrupted run committed is read, not recomputed.
   Then ONE transaction completes the level: for n ≤ ``rows_max_n`` its
   ``deal`` rows (best moves and the single-suit paper's quantities, Core
   ``insert()`` executemany), the level's value table and statistics, and
   ``complete`` — then commit.  A process killed at any moment loses no
   committed chunk, and leaves each level either complete and valid or not
   marked complete.
4. The solved matrix games (:mod:`whist_catalogue.games.solved_games`): chemin-de-fer and
   Le Her for N = 3 … 52 cards, one transaction, skipped when already stored by
   this software version.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from math import comb
from typing import TYPE_CHECKING, Callable, Generator, Iterator, Literal, Sequence

import numpy as np
import sqlalchemy as sa
from sqlalchemy.orm import Session

from whist_catalogue import __version__
from whist_catalogue.constants import MAX_BUILD_N
from whist_catalogue.engine.chunks import CHUNK_DEALS, Chunk, ChunkError, encode_chunk, pack_chunk, read_chunk
from whist_catalogue.engine.codes import ValueTable, encode, remap, union
from whist_catalogue.engine.levels import CHECK_NAMES, Level, compute_range
from whist_catalogue.errors import CatalogueDamagedError, DealTooLargeError
from whist_catalogue.store.database import Location, database_errors, parse_location, sqlite_maintenance, writer_engine
from whist_catalogue.store.levels import (ROWS_MAX_N, checked_chunk, chunk_checksum, chunk_count, deal_columns,
                                          level_ranges, read_level_values, table_to_bytes, value_columns)
from whist_catalogue.store.lock import BuildLock
from whist_catalogue.store.models import (DealRow, LevelChunkRow, LevelRow, SolvedGameRow,
                                          solved_game_checksum, table_of)
from whist_catalogue.store.verify import level_checksum
from whist_catalogue.theory.ranking import level_masks

if TYPE_CHECKING:
    from whist_catalogue.store.reader import LevelInfo

__all__ = [
    "BuildEstimate",
    "estimate_build",
    "BuildProgress",
    "BuildSummary",
    "build_steps",
    "build",
    "level_rows",
    "level_columns",
    "COLUMNS",
    "BATCH_ROWS",
    "SOLVED_GAMES",
    "file_size",
    "ChunkComputer",
    "chunk_range",
    "compute_chunk",
    "local_chunks",
]

BATCH_ROWS = 20_000
"""Rows per executemany call; one progress event per batch."""
REBUILD_INDEXES_ROWS = 100_000
"""On SQLite, a level at least this big is loaded without indexes, which are then rebuilt (same transaction)."""
SOLVED_GAMES: tuple[tuple[str, dict[str, int]], ...] = (("chemin-de-fer", {}),) + tuple(
    ("le-her", {"cards": cards}) for cards in range(3, 53)
)
"""What ``build`` stores in ``solved_game``."""
FLAG_MASK = (1 << len(CHECK_NAMES)) - 1

Stage = Literal["repair", "plan", "compile", "load", "compute", "finish", "store", "level", "games", "done"]


@dataclass(frozen=True, slots=True)
class BuildProgress:
    """One step of a build.

    ``stage`` is ``repair`` (level n was marked complete but is not all there: it
    is stored again; ``done`` = rows or deals found), ``plan`` (once, ``total`` =
    levels to store, ``message`` the build's estimate: :meth:`BuildEstimate.describe`),
    ``compile`` (the engine's kernels loading — compiled by Numba on a first run), ``load`` (level n read back from the catalogue to resume above
    it), ``compute`` (``done`` of ``total`` deals of level n valued and their chunks
    committed), ``finish`` (level n's statistics, and rows for a low level),
    ``store`` (``done`` of ``total`` rows of level n inserted), ``level`` (level n
    committed, or skipped if it was complete), ``games`` (``done`` of ``total``
    solved games) and ``done`` (once, at the end).  Events come at least every
    second or so in every stage, so closing the generator cancels promptly.
    """

    stage: Stage
    n: int | None
    done: int
    total: int
    message: str = ""


@dataclass
class BuildSummary:
    """What a build did; :meth:`to_json` is the ``--json`` summary line."""

    location: str
    max_n: int
    stored: list[int] = field(default_factory=list)
    """Levels written by this run."""
    already_complete: list[int] = field(default_factory=list)
    """Levels that were complete before this run (resumed past)."""
    repaired: list[int] = field(default_factory=list)
    """Levels marked complete whose rows were not all there: stored again by this run."""
    rows_written: int = 0
    """``deal`` rows written (levels n ≤ ROWS_MAX_N only; above, a level is chunks only)."""
    complete: list[int] = field(default_factory=list)
    """Every complete level of the catalogue after this run — levels above ``max_n`` built before included,
    since the file's size counts them."""
    stored_bytes: int = 0
    """Bytes of the chunks of the levels this run stored, as the catalogue records them per level."""
    deals: int = 0
    """Deals in the catalogue's complete levels (:attr:`complete`)."""
    solved_games: int = 0
    """Solved games written by this run."""
    seconds: float = 0.0
    file_bytes: int | None = None
    """Size of the SQLite file (with its WAL), None for a server."""

    @property
    def bytes_per_deal(self) -> float | None:
        if self.file_bytes is None or not self.deals:
            return None
        return self.file_bytes / self.deals

    def to_json(self) -> dict:
        return {
            "catalogue": self.location,
            "max_n": self.max_n,
            "levels_stored": self.stored,
            "levels_already_complete": self.already_complete,
            "levels_repaired": self.repaired,
            "rows_written": self.rows_written,
            "levels_complete": self.complete,
            "stored_bytes": self.stored_bytes,
            "deals": self.deals,
            "solved_games_written": self.solved_games,
            "seconds": round(self.seconds, 3),
            "file_bytes": self.file_bytes,
            # four significant figures: a catalogue to n = 17 stores 0.03213 bytes a deal, which one decimal
            # place rounded to 0.0
            "bytes_per_deal": None if self.bytes_per_deal is None else float(f"{self.bytes_per_deal:.4g}"),
        }


# -- one level as rows ------------------------------------------------------------------------


COLUMNS = (
    "key", "n", "numerator", "denominator", "number_scaled", "fraction_scaled", "inf_sign", "stoppers",
    "west_leads", "east_leads", "moves", "h_lower", "h_upper", "h", "greedy_west_leads", "greedy_east_leads",
    "five_card_west_leads", "five_card_east_leads", "ace", "flags",
)  # fmt: skip
"""The ``deal`` columns, in the order of the tuples :func:`level_rows` produces."""


def level_columns(level: Level) -> dict[str, np.ndarray]:
    """Every ``deal`` column of a level computed with moves and checks, as numpy arrays in key order.

    ``moves`` is the (rows, 2 + 2n) uint16 array of position masks; the player columns hold ``"W"``/``"E"``.
    What :func:`level_rows` stores, and what ``verify --full`` compares the stored rows with.
    """
    n = level.n
    if level.moves is None or level.flags is None:
        raise ValueError(f"level {n} must be computed with moves and checks to be stored")
    per_value = value_columns(level.table.numerator, level.table.infinitesimal)
    return {
        **{name: column[level.codes] for name, column in per_value.items()},
        **deal_columns(n, level_masks(n)),
        "n": np.full(len(level), n, dtype=np.int16),
        "moves": np.ascontiguousarray(level.moves, dtype="<u2"),
        "flags": (level.flags & FLAG_MASK).astype(np.int16),
    }


def level_rows(level: Level, batch: int | None = None) -> tuple[list[str], Iterator[list[tuple]], str]:
    """The ``deal`` rows of a level computed with moves and checks: (columns, batches of rows, checksum).

    Every column is derived from the engine's arrays with numpy (:func:`level_columns`); the rows are
    plain tuples in key order, made a batch at a time (so memory holds the level's arrays, not millions
    of Python objects), ready for an executemany.  The checksum covers every column
    (:func:`whist_catalogue.store.verify.level_checksum`).
    """
    n = level.n
    arrays = level_columns(level)
    checksum = level_checksum(n, arrays)
    width = 2 + 2 * n
    arrays["moves"] = arrays["moves"].view(np.dtype((np.void, 2 * width))).ravel()
    keys = arrays["key"]
    size = batch or BATCH_ROWS

    def batches() -> Iterator[list[tuple]]:
        for start in range(0, len(keys), size):
            stop = min(len(keys), start + size)
            data = [[n] * (stop - start) if c == "n" else arrays[c][start:stop].tolist() for c in COLUMNS]
            yield list(zip(*data))

    return list(COLUMNS), batches(), checksum


# -- the build ------------------------------------------------------------------------------------


ROW_BYTES_PER_DEAL = 150
"""Disk a deal of a level stored with rows (n ≤ ROWS_MAX_N): docs/benchmarks.md measured 149.4."""
CHUNK_BYTES_PER_DEAL = 0.035
"""Disk a deal of a chunks-only level when the catalogue records none: level 11 in docs/benchmarks.md
(the ratio falls slowly with n, 0.021 at n = 16, so an estimate from it errs on the large side)."""
ROW_SECONDS_PER_DEAL = 8e-6
"""Wall time a deal of a level stored with rows (n ≤ ROWS_MAX_N) adds to valuing it: its best moves, the
single-suit paper's quantities and the ``deal`` row — 7.3–8.9 µs a deal at levels 8–10 (docs/benchmarks.md,
"The engine's estimates"; the figure of 67 µs it replaces had Numba's first compile in it)."""
LEVEL_SECONDS = 0.03
"""Wall time each level adds whatever its size: its transactions, table and statistics."""
GAMES_SECONDS = 13.0
"""Solving and storing the solved games (chemin-de-fer, Le Her for N = 3 … 52): 13–14 s here."""


@dataclass(frozen=True)
class BuildEstimate:
    """About what building levels ``levels`` takes and adds: deals, seconds, bytes of disk and of memory."""

    levels: tuple[int, ...]
    deals: int
    seconds: float
    bytes: float
    measured: bool
    """True when the disk a deal is the catalogue's own (its top chunks-only level's recorded size)."""
    memory: int = 0
    """The build's peak resident memory (:func:`whist_catalogue.engine.plan.build_memory`)."""

    def describe(self) -> str:
        """``155,117,520 deals to value and store (level 15): about 1 min, 3.6 MB of disk and 700 MB of
        memory`` — what the command line says before a build and the app's Catalogue view before Build."""
        from whist_catalogue.engine.plan import amount, duration

        if not self.levels:
            return "no level to value and store" + (f": about {duration(self.seconds)}" if self.seconds else "")
        span = ("level " if len(self.levels) == 1 else "levels ") + level_ranges(list(self.levels))
        return (f"{self.deals:,} deals to value and store ({span}): about {duration(self.seconds)}, "
                f"{amount(self.bytes)} of disk and {amount(self.memory)} of memory")

    def basis(self) -> str:
        """Where the figures come from, for a reader who wants to know how far to trust them."""
        from whist_catalogue.engine.plan import CALIBRATED_ON

        disk = "the sizes this catalogue records for its levels" if self.measured else "docs/benchmarks.md"
        return f"time and memory from the engine's model, measured on {CALIBRATED_ON}; disk from {disk}"


def estimate_build(levels: Sequence[LevelInfo], target: int, rows_max_n: int = ROWS_MAX_N, *,
                   games: bool = False) -> BuildEstimate:
    """What building every level up to ``target`` the catalogue lacks takes and adds (``games``: and solving the
    solved games).  Time and memory come from the engine's model (:func:`whist_catalogue.engine.plan.level_seconds`
    with ``build=True``, :func:`~whist_catalogue.engine.plan.build_memory`) — never from a level's recorded time,
    which holds whatever else the machine did then, a first run's compile included.  Disk comes from the size
    the catalogue records (``level.stored_bytes``) of its highest complete chunks-only level — a level stored with
    rows costs far more a deal, so the file's size divided by its deals says nothing of the next level — else
    from docs/benchmarks.md."""
    from whist_catalogue.engine.plan import build_memory, level_seconds

    complete = {i.n for i in levels if i.complete}
    todo = tuple(n for n in range(1, target + 1) if n not in complete)
    chunked = [i for i in levels if i.complete and i.storage == "chunks" and i.row_count >= 10_000]
    sized = max((i for i in chunked if i.stored_bytes), key=lambda i: i.n, default=None)
    chunk_bytes = sized.stored_bytes / sized.row_count if sized and sized.stored_bytes else CHUNK_BYTES_PER_DEAL
    deals = size = 0.0
    seconds = GAMES_SECONDS if games else 0.0
    for n in todo:
        count = comb(2 * n, n)
        deals += count
        rows = n <= rows_max_n
        seconds += level_seconds(n, build=True) + LEVEL_SECONDS + (count * ROW_SECONDS_PER_DEAL if rows else 0.0)
        size += count * (ROW_BYTES_PER_DEAL + chunk_bytes if rows else chunk_bytes)
    return BuildEstimate(todo, int(deals), seconds, size, sized is not None, build_memory(todo) if todo else 0)


def file_size(location: Location) -> int | None:
    if location.path is None:
        return None
    return sum(p.stat().st_size for p in (location.path, location.path.with_name(location.path.name + "-wal"))
               if p.exists())


def _levels_state(session: Session) -> dict[int, LevelRow]:
    return {row.n: row for row in session.execute(sa.select(LevelRow)).scalars()}


def _level_info(row: LevelRow) -> LevelInfo:
    from whist_catalogue.store.reader import LevelInfo

    return LevelInfo(row.n, row.complete, row.row_count, row.checksum, row.software_version, row.built_at,
                     row.build_seconds, row.storage, row.stored_bytes, row.chunk_deals)


def _plan(session: Session, max_n: int) -> tuple[list[int], list[int]]:
    """Mark every missing level ≤ max_n as planned; return (complete, to store).

    A level completed before the level store existed (no ``storage``) counts as
    complete: :func:`_adopt_rows` gives it chunks.
    """
    with session.begin():
        state = _levels_state(session)
        complete = sorted(n for n, row in state.items() if row.complete and n <= max_n)
        todo = [n for n in range(1, max_n + 1) if n not in complete]
        for n in todo:
            if n not in state:
                session.add(LevelRow(n=n, complete=False, row_count=0))
    return complete, todo


def _inserter(session: Session, columns: list[str]) -> Callable[[list[tuple]], object]:
    """An executemany of plain tuples into ``deal``.

    On SQLite the statement SQLAlchemy compiles from ``insert()`` goes to the
    driver's executemany (through :meth:`~sqlalchemy.engine.Connection.exec_driver_sql`,
    so it stays inside the session's transaction) — about twice as fast as
    executing the Core statement with one dict per row, which is what other
    backends get (psycopg batches those itself).
    """
    connection = session.connection()
    statement = sa.insert(table_of(DealRow))
    if connection.dialect.name == "sqlite":
        compiled = statement.compile(dialect=connection.dialect, column_keys=columns)
        if list(compiled.positiontup or ()) != columns:
            raise AssertionError("the compiled insert does not take the columns in order")
        sql = str(compiled)
        return lambda batch: connection.exec_driver_sql(sql, batch)
    return lambda batch: connection.execute(statement, [dict(zip(columns, row)) for row in batch])


def _store_rows(session: Session, level: Level) -> Iterator[BuildProgress]:
    """Level n's ``deal`` rows, inside the caller's transaction: leftovers deleted, every row inserted."""
    n = level.n
    size = len(level)
    columns, batches, checksum = level_rows(level)
    session.execute(sa.delete(DealRow).where(DealRow.in_level(n)))
    insert_many = _inserter(session, columns)
    # A big level on SQLite: indexes dropped and created again after the rows — sorting beats
    # millions of scattered b-tree inserts (about 30 % faster at n = 12) and packs them tighter.
    # Inside the level's transaction, so other connections keep seeing the indexes (WAL).
    rebuild = size >= REBUILD_INDEXES_ROWS and session.connection().dialect.name == "sqlite"
    if rebuild:
        for index in table_of(DealRow).indexes:
            session.execute(sa.schema.DropIndex(index))
    done = 0
    for batch in batches:
        insert_many(batch)
        done += len(batch)
        yield BuildProgress("store", n, done, size)
    if rebuild:
        for index in table_of(DealRow).indexes:
            session.execute(sa.schema.CreateIndex(index))
    stored = session.execute(sa.select(sa.func.count()).select_from(DealRow).where(DealRow.in_level(n))).scalar_one()
    if stored != comb(2 * n, n) or done != stored:
        raise AssertionError(f"level {n}: {stored} rows stored, expected {comb(2 * n, n)}")
    session.info["checksum"] = checksum


# -- the level store: chunks ---------------------------------------------------------------------------


class _Values:
    """Level n's chunks as they are committed, with the counts the level's statistics need; at the end, the
    level as the engine's codes into the union of the chunks' tables (:mod:`whist_catalogue.engine.codes`).

    Only what a later step reads is kept: each chunk's codes when level n is level n + 1's ``previous``
    (``codes``), its check bits when level n gets ``deal`` rows (``flags``), and otherwise its table and
    per-value counts alone — so the top level of a build (level 17: 2.3 billion deals) is not held in memory
    at one byte of codes and one of check bits a deal."""

    def __init__(self, n: int, *, codes: bool = True, flags: bool = True) -> None:
        self.n = n
        self.size = comb(2 * n, n)
        self.keep_codes, self.keep_flags = codes, flags
        self.kept: list[tuple[int, int, ValueTable, np.ndarray | None, np.ndarray | None]] = []
        """(start, stop, the chunk's table, its codes if kept, its check bits if kept), a chunk each."""
        self.counted: list[tuple[ValueTable, np.ndarray]] = []
        self.flagged = np.zeros(len(CHECK_NAMES), np.int64)

    def add(self, chunk: Chunk) -> None:
        self.counted.append((chunk.table, np.bincount(chunk.codes, minlength=len(chunk.table))))
        if chunk.flags.any():
            self.flagged += [np.count_nonzero(chunk.flags & (1 << c)) for c in range(len(CHECK_NAMES))]
        if self.keep_codes or self.keep_flags:
            self.kept.append((chunk.start, chunk.stop, chunk.table, chunk.codes if self.keep_codes else None,
                              chunk.flags if self.keep_flags else None))

    def table(self) -> ValueTable:
        return union([table for table, _ in self.counted])

    def level(self) -> Level:
        """Level n's values (codes into :meth:`table`), to compute level n + 1 from."""
        if not self.keep_codes:
            raise AssertionError(f"level {self.n}'s codes were not kept")
        table = self.table()
        codes = np.empty(self.size, np.uint16)
        for start, stop, chunk_table, chunk_codes, _ in self.kept:
            assert chunk_codes is not None
            codes[start:stop] = remap(chunk_codes, chunk_table, table)
        return Level.from_codes(self.n, codes, table)

    def flags(self) -> np.ndarray:
        if not self.keep_flags:
            raise AssertionError(f"level {self.n}'s check bits were not kept")
        flags = np.empty(self.size, np.uint8)
        for start, stop, _, _, chunk_flags in self.kept:
            assert chunk_flags is not None
            flags[start:stop] = chunk_flags
        return flags

    def table_and_statistics(self) -> tuple[bytes, str]:
        table = self.table()
        counts = np.zeros(len(table), np.int64)
        for chunk_table, per_code in self.counted:
            mapped = remap(np.arange(len(chunk_table), dtype=np.uint16), chunk_table, table)
            np.add.at(counts, mapped, per_code)
        flagged = {name: int(k) for name, k in zip(CHECK_NAMES, self.flagged)}
        statistics = {"counts": counts.tolist(), "counterexamples": flagged}
        return table_to_bytes(table), json.dumps(statistics, separators=(",", ":"))


ChunkComputer = Callable[[int, Level, list[int]], Iterator[tuple[int, bytes]]]
"""``compute(n, previous, indexes)`` yields (index, encoded chunk) for each chunk index of level n asked for, in any
order: the seam where a cluster plugs in (``build_steps(compute_chunks=…)``)."""


def chunk_range(n: int, index: int) -> tuple[int, int]:
    """[start, stop): the ranks of chunk ``index`` of level n."""
    return index * CHUNK_DEALS, min(comb(2 * n, n), (index + 1) * CHUNK_DEALS)


def compute_chunk(n: int, previous: Level, index: int) -> bytes:
    """Chunk ``index`` of level n, valued from level n−1 and encoded (:mod:`whist_catalogue.engine.chunks`)."""
    start, stop = chunk_range(n, index)
    part = compute_range(n, previous, start, stop, checks=True)
    codes, table = encode(part.numerator, part.infinitesimal)
    assert part.flags is not None  # computed with checks
    return pack_chunk(n, start, codes, table, part.flags & FLAG_MASK)


def local_chunks(n: int, previous: Level, indexes: list[int]) -> Iterator[tuple[int, bytes]]:
    """The default :data:`ChunkComputer`: one chunk after another in this process (the kernels use every core)."""
    for index in indexes:
        yield index, compute_chunk(n, previous, index)


def _store_chunks(session: Session, n: int, previous: Level, values: _Values,
                  compute_chunks: ChunkComputer) -> Iterator[BuildProgress]:
    """Level n's chunks: those stored by an earlier, interrupted run are read back; each missing one is
    computed, encoded and committed in its own transaction (a killed build loses no finished chunk)."""
    size = comb(2 * n, n)
    count = chunk_count(n, CHUNK_DEALS)
    chunks = table_of(LevelChunkRow)
    with session.begin():
        # Rows of no place in the level (a duplicated or renumbered chunk row) would make it cover more than
        # C(2n, n) deals: they go before anything is computed.
        stray = sa.or_(chunks.c.chunk < 0, chunks.c.chunk >= count)
        session.execute(sa.delete(chunks).where(chunks.c.n == n, stray))
        stored = {row.chunk: row for row in session.execute(
            sa.select(chunks.c.chunk, chunks.c.data, chunks.c.checksum, chunks.c.start, chunks.c.stop)
            .where(chunks.c.n == n)).all()}
    missing = []
    for index in range(count):
        row = stored.get(index)
        try:
            chunk = None if row is None else checked_chunk(n, index, CHUNK_DEALS, row.data, row.checksum, row.start,
                                                           row.stop)
        except ChunkError:
            # Damaged by the disk or by hand — not by a crash of the build (commits are atomic), but a chunk not
            # in its place, or not what its checksum says, is written again all the same.
            chunk = None
        if chunk is not None:
            values.add(chunk)
        else:
            missing.append(index)
    done = size - sum(stop - start for start, stop in map(lambda i: chunk_range(n, i), missing))
    yield BuildProgress("compute", n, done, size)
    for index, data in compute_chunks(n, previous, missing):
        chunk = read_chunk(data)
        if (chunk.n, chunk.start, chunk.stop) != (n, *chunk_range(n, index)):
            raise AssertionError(f"level {n} chunk {index}: got ranks [{chunk.start}, {chunk.stop}) of level {chunk.n}")
        with session.begin():
            session.execute(sa.delete(chunks).where(chunks.c.n == n, chunks.c.chunk == index))
            session.execute(sa.insert(chunks).values(n=n, chunk=index, start=chunk.start, stop=chunk.stop, data=data,
                                                     checksum=chunk_checksum(data)))
        values.add(chunk)
        done += chunk.stop - chunk.start
        yield BuildProgress("compute", n, done, size)


def _adopt_rows(session: Session, n: int) -> Iterator[BuildProgress]:
    """Chunks, value table and statistics for a level completed before the level store existed, read from
    its ``deal`` rows (key order is rank order), in one transaction; its rows, checksum and build stamp are
    kept as they were."""
    size = comb(2 * n, n)
    values = _Values(n, codes=False, flags=False)  # the table and statistics only
    chunks = table_of(LevelChunkRow)
    with session.begin():
        connection = session.connection()
        statement = (sa.select(DealRow.number_scaled, DealRow.inf_sign, DealRow.stoppers, DealRow.flags)
                     .where(DealRow.in_level(n)).order_by(DealRow.key))
        result = connection.execution_options(yield_per=CHUNK_DEALS).execute(statement)
        start = 0
        for index, part in enumerate(result.partitions(CHUNK_DEALS)):
            columns = np.array(part, np.int64).reshape(-1, 4).T
            stop = start + columns.shape[1]
            numerator = columns[0].astype(np.int32)
            infinitesimal = (columns[1] * (columns[2] + 1)).astype(np.int8)
            data = encode_chunk(n, start, stop, numerator, infinitesimal, (columns[3] & FLAG_MASK).astype(np.uint8))
            session.execute(sa.delete(chunks).where(chunks.c.n == n, chunks.c.chunk == index))
            session.execute(sa.insert(chunks).values(n=n, chunk=index, start=start, stop=stop, data=data,
                                                     checksum=chunk_checksum(data)))
            values.add(read_chunk(data))
            start = stop
            yield BuildProgress("load", n, stop, size, f"adding level {n}'s chunks")
        if start != size:
            raise AssertionError(f"level {n} is marked complete with {start} of {size} rows")
        table, statistics = values.table_and_statistics()
        row = session.get_one(LevelRow, n)
        row.storage, row.chunk_deals, row.value_table, row.statistics = "rows", CHUNK_DEALS, table, statistics
        row.stored_bytes = session.execute(sa.select(sa.func.sum(sa.func.length(chunks.c.data)))
                                           .where(chunks.c.n == n)).scalar_one()


def _load_level(session: Session, n: int) -> Level:
    """Level n's values, read back from its chunks."""
    if n == 0:
        return Level.empty()
    with session.begin():
        codes, table, _ = read_level_values(session.connection(), n)
    return Level.from_codes(n, codes, table)


def _finish_level(session: Session, n: int, previous: Level, values: _Values, started: float,
                  rows: bool) -> Iterator[BuildProgress]:
    """One transaction: the rows (low levels), the level's table and statistics, and ``complete``."""
    table, statistics = values.table_and_statistics()
    with session.begin():
        checksum = None
        if rows:
            from whist_catalogue.engine.levels import Checks, compute_moves

            level = values.level()
            level.moves, level.checks, level.flags = compute_moves(n, previous), Checks(n), values.flags()
            yield from _store_rows(session, level)
            checksum = session.info.pop("checksum")
        chunks = table_of(LevelChunkRow)
        count, covered, stored_bytes = session.execute(
            sa.select(sa.func.count(), sa.func.sum(chunks.c.stop - chunks.c.start),
                      sa.func.sum(sa.func.length(chunks.c.data))).where(chunks.c.n == n)
        ).one()
        if count != chunk_count(n, CHUNK_DEALS) or covered != comb(2 * n, n):
            raise AssertionError(f"level {n}: {count} chunks cover {covered} deals, expected {comb(2 * n, n)}")
        row = session.get(LevelRow, n) or LevelRow(n=n)
        row.complete = True
        row.row_count = comb(2 * n, n)
        row.checksum = checksum
        row.software_version = __version__
        row.built_at = datetime.now(timezone.utc)
        row.build_seconds = round(time.perf_counter() - started, 3)
        row.storage = "rows" if rows else "chunks"
        row.chunk_deals = CHUNK_DEALS
        row.value_table = table
        row.statistics = statistics
        row.stored_bytes = int(stored_bytes)
        session.add(row)
    # committed: the level is now complete


def _stale_games(session: Session) -> tuple[dict[tuple[str, str], SolvedGameRow], list[tuple[str, dict[str, int]]]]:
    """The stored solved games by (name, parameters), and those to solve: missing, or stored by another version."""
    with session.begin():
        existing = {
            (r.name, r.parameters): r
            for r in session.execute(sa.select(SolvedGameRow)).scalars()
        }
    stale = [(name, params) for name, params in SOLVED_GAMES
             if (r := existing.get((name, _canonical(params)))) is None or r.software_version != __version__
             or r.checksum is None]
    return existing, stale


def _store_games(session: Session) -> Iterator[BuildProgress]:
    from whist_catalogue.games import solved_games

    existing, stale = _stale_games(session)
    if not stale:
        return
    total = len(stale)
    with session.begin():
        for i, (name, params) in enumerate(stale, 1):
            solution = solved_games.solve(name, **params)
            key = (name, _canonical(params))
            row = existing.get(key) or SolvedGameRow(name=name, parameters=key[1])
            row.solution = json.dumps(solution, ensure_ascii=False, sort_keys=False)
            row.checksum = solved_game_checksum(name, key[1], row.solution)
            row.software_version = __version__
            row.computed_at = datetime.now(timezone.utc)
            session.add(row)
            yield BuildProgress("games", None, i, total, " ".join([name, *(f"{k}={v}" for k, v in params.items())]))


def _canonical(params: dict[str, int]) -> str:
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


def _prepare_engine() -> Iterator[BuildProgress]:
    """Load every kernel the build uses before its first level (:func:`_warm_up`), so that level 1's recorded
    time (``level.build_seconds``, which the Catalogue view lists) is level 1's own; and when Numba has to
    compile them (a first run: its cache is empty or stale), say so the moment it starts
    (:data:`whist_catalogue.theory.jit.PREPARING`), instead of a bar stuck at 0 %.  The warm-up runs in a
    thread of its own so that this generator can speak while it compiles; a cancel leaves it to finish (and
    cache) in the background."""
    from whist_catalogue.theory.jit import PREPARING, announcing

    compiling = threading.Event()
    failed: list[BaseException] = []

    def warm_up() -> None:
        try:
            with announcing(lambda _: compiling.set()):
                _warm_up()
        except BaseException as exc:  # noqa: BLE001 - raised again in the build's own thread
            failed.append(exc)

    started = time.perf_counter()
    worker = threading.Thread(target=warm_up, name="whist-catalogue warm-up", daemon=True)
    worker.start()
    said = False
    while worker.is_alive():
        worker.join(0.1)
        if compiling.is_set() and not said:
            said = True
            yield BuildProgress("compile", None, 0, 1, PREPARING)
    if failed:
        raise failed[0]
    if said:
        yield BuildProgress("compile", None, 1, 1, f"engine ready in {time.perf_counter() - started:.0f} s")


def _warm_up() -> None:
    """Levels 1–2 as :func:`build_steps` makes them, rows and all, to load (or compile) each kernel it calls —
    and as the engine values a deal beyond the catalogue (the mirror shortcut), which the app asks for next."""
    from whist_catalogue.engine.levels import Checks, compute_level, compute_moves

    previous = Level.empty()
    for n in (1, 2):
        values = _Values(n)
        values.add(read_chunk(compute_chunk(n, previous, 0)))
        values.table_and_statistics()
        level = values.level()
        level.moves, level.checks, level.flags = compute_moves(n, previous), Checks(n), values.flags()
        level_columns(level)
        compute_level(n, previous, symmetry=True)
        previous = level


# -- before a build: the lock, and a check of what it resumes from -----------------------------------


def _lock(loc: Location, create_parent: bool) -> BuildLock:
    if create_parent and loc.path is not None:
        loc.path.parent.mkdir(parents=True, exist_ok=True)
    return BuildLock(loc).acquire()


def _remove_new_catalogue(loc: Location) -> None:
    """Remove the catalogue file this build created, with its side files (the build lock is still held)."""
    assert loc.path is not None
    path = Path(os.path.realpath(loc.path))  # through a symlink SQLite created the target: the symlink stays
    for suffix in ("-wal", "-shm", "-journal", ""):
        try:
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        except OSError:
            pass  # what cannot be removed stays; the error that ended the build is the one to report


def _preflight(session: Session, loc: Location) -> list[tuple[int, int]]:
    """Check what the build resumes from; return (n, deals found) of each complete level to store again.

    The schema's tables must all be there (else :class:`CatalogueDamagedError`: the catalogue is
    damaged beyond resuming), and each level marked complete must hold all C(2n, n) deals as
    recorded — in its chunks, and in its ``deal`` rows when it has them.  A level that does not is
    marked incomplete here, in one transaction, so the build stores it again.  (Checksums are
    ``verify``'s: they read every row and chunk.)
    """
    with session.begin():
        tables = set(sa.inspect(session.connection()).get_table_names())
    needed = {DealRow.__tablename__, LevelRow.__tablename__, LevelChunkRow.__tablename__, SolvedGameRow.__tablename__}
    missing = sorted(needed - tables)
    if missing:
        raise CatalogueDamagedError(
            f"catalogue {loc} is damaged: table {', '.join(missing)} is missing; delete the catalogue and build"
            " it again"
        )
    repairs = []
    with session.begin():
        for row in session.execute(sa.select(LevelRow).where(LevelRow.complete)).scalars():
            if not 1 <= row.n <= MAX_BUILD_N:
                raise CatalogueDamagedError(f"catalogue {loc} is damaged: its level table names level {row.n!r};"
                                            " delete the catalogue and build it again")
            size = comb(2 * row.n, row.n)
            counts = []
            misplaced = False
            if row.storage is not None:  # a level of the level store: its chunks cover every rank once
                chunks = LevelChunkRow.__table__.c
                expected = chunk_count(row.n, CHUNK_DEALS)
                in_place = sa.and_(chunks.chunk >= 0, chunks.chunk < expected)
                covered = sa.func.coalesce(sa.func.sum(sa.case((in_place, chunks.stop - chunks.start), else_=0)), 0)
                placed, rows_found = session.execute(
                    sa.select(covered, sa.func.count()).where(chunks.n == row.n)).one()
                counts.append(placed)
                # A chunk row of no place in the level (duplicated, renumbered) is damage the build repairs.
                misplaced = rows_found != expected
            if row.storage != "chunks":  # rows too (and only rows, before the level store)
                counts.append(session.execute(sa.select(sa.func.count()).select_from(DealRow)
                                              .where(DealRow.in_level(row.n))).scalar_one())
            found = min(counts)
            if found != size or row.row_count != size or misplaced:
                row.complete = False
                repairs.append((row.n, found))
    return repairs


def build_steps(
    location: str | os.PathLike[str],
    max_n: int,
    *,
    games: bool = True,
    create_parent: bool = False,
    rows_max_n: int = ROWS_MAX_N,
    compute_chunks: ChunkComputer | None = None,
) -> Generator[BuildProgress, None, BuildSummary]:
    """Build (or resume) the catalogue at ``location`` up to ``max_n`` cards a hand; see the module docstring.

    A generator of :class:`BuildProgress`; its return value (``StopIteration.value``)
    is the :class:`BuildSummary`.  Closing it early (the app's cancel button) rolls back the
    transaction in progress — at most one chunk, or one level's completion — within a second
    or two at n = 16; every committed chunk is kept for the next run.  Levels n ≤ ``rows_max_n``
    also get ``deal`` rows; ``compute_chunks`` (a :data:`ChunkComputer`) values chunks
    elsewhere, e.g. on a cluster.
    """
    if not 1 <= max_n <= MAX_BUILD_N:
        raise DealTooLargeError(f"--max-n must be between 1 and {MAX_BUILD_N}, got {max_n}")
    started = time.perf_counter()
    loc = parse_location(location)
    lock = _lock(loc, create_parent)  # one writer at a time: a second build is refused here
    # A build that creates its catalogue and ends before storing a level takes the file away again: a refused
    # or failed build (a full disk, a bad option found late) leaves nothing on disk.
    created = loc.path is not None and not loc.path.exists()
    try:
        engine = writer_engine(loc, create_parent=create_parent)
    except BaseException:
        if created:
            _remove_new_catalogue(loc)
        lock.release()
        raise
    summary = BuildSummary(str(loc), max_n)
    failed = True
    try:
        with database_errors(loc), Session(engine, autobegin=False, expire_on_commit=False) as session:
            for n, found in _preflight(session, loc):
                summary.repaired.append(n)
                what = (f"holds {found:,} of {comb(2 * n, n):,} deals" if found != comb(2 * n, n)
                        else "has chunk rows out of their places")
                yield BuildProgress("repair", n, found, comb(2 * n, n),
                                    f"level {n} was marked complete but {what}: storing it again")
            complete, todo = _plan(session, max_n)
            summary.already_complete = complete
            with session.begin():
                state = _levels_state(session)
                legacy = sorted(r.n for r in state.values() if r.complete and r.storage is None)
                recorded = [_level_info(row) for row in state.values()]
            estimate = estimate_build(recorded, max_n, rows_max_n, games=games and bool(_stale_games(session)[1]))
            yield BuildProgress("plan", None, 0, len(todo), estimate.describe())
            for n in legacy:
                yield from _adopt_rows(session, n)
            if todo:
                yield from _prepare_engine()
            previous: Level | None = None
            for n in range(1, max(todo, default=0) + 1):
                if n in complete:
                    yield BuildProgress("level", n, 1, 1, "already complete")
                    continue
                level_started = time.perf_counter()
                if previous is None or previous.n != n - 1:
                    yield BuildProgress("load", n - 1, 0, 1, f"reading level {n - 1} back from the catalogue")
                    previous = _load_level(session, n - 1)
                    yield BuildProgress("load", n - 1, 1, 1, f"read level {n - 1} back from the catalogue")
                rows = n <= rows_max_n
                values = _Values(n, codes=rows or n < todo[-1], flags=rows)
                yield from _store_chunks(session, n, previous, values, compute_chunks or local_chunks)
                yield BuildProgress("finish", n, 0, 1, "storing rows and statistics" if rows else "statistics")
                yield from _finish_level(session, n, previous, values, level_started, rows)
                summary.stored.append(n)
                summary.rows_written += values.size if rows else 0
                yield BuildProgress("level", n, 1, 1, "stored")
                previous = values.level() if n < todo[-1] else None  # the last level is nobody's previous
                del values
            for n in complete:
                if n > max(todo, default=0):
                    yield BuildProgress("level", n, 1, 1, "already complete")
            if games:
                before = summary.solved_games
                for event in _store_games(session):
                    summary.solved_games = before + event.done
                    yield event
            with session.begin():
                state = _levels_state(session)
            summary.complete = sorted(n for n, row in state.items() if row.complete)
            summary.deals = sum(comb(2 * n, n) for n in summary.complete)
            summary.stored_bytes = sum(state[n].stored_bytes or 0 for n in summary.stored if n in state)
        if loc.is_sqlite:
            with database_errors(loc):
                sqlite_maintenance(engine, analyze=bool(summary.stored))
        failed = False
    finally:
        engine.dispose()
        try:
            if failed and created and not summary.stored:
                _remove_new_catalogue(loc)
        finally:
            lock.release()
    summary.file_bytes = file_size(loc)
    summary.seconds = time.perf_counter() - started
    yield BuildProgress("done", None, 1, 1, "done")
    return summary


def build(
    location: str | os.PathLike[str],
    max_n: int,
    *,
    progress: Callable[[BuildProgress], None] | None = None,
    **options,
) -> BuildSummary:
    """Run :func:`build_steps` to the end, calling ``progress`` with each event."""
    steps = build_steps(location, max_n, **options)
    while True:
        try:
            event = next(steps)
        except StopIteration as stop:
            return stop.value
        if progress is not None:
            progress(event)

