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
   Then ONE transaction completes the level: its value table and statistics,
   its row's checksum (:func:`whist_catalogue.store.levels.level_row_checksum`)
   and ``complete`` — then commit.  A process killed at any moment loses no
   committed chunk, and leaves each level either complete and valid or not
   marked complete.  A level read back that the next one cannot be computed
   from (the engine finds Theorem 8.8 violated) is damage, reported as such.
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
from typing import Callable, Generator, Iterator, Sequence

import numpy as np
import sqlalchemy as sa
from sqlalchemy.orm import Session

from whist_catalogue import __version__
from whist_catalogue.constants import MAX_BUILD_N, MAX_LEVEL_N
from whist_catalogue.engine.chunks import CHUNK_DEALS, Chunk, pack_chunk, read_chunk
from whist_catalogue.engine.codes import ValueTable, encode, remap, union
from whist_catalogue.engine.levels import CHECK_NAMES, Level, compute_range
from whist_catalogue.engine.plan import CALIBRATED_ON, amount, build_memory, duration, level_seconds
from whist_catalogue.errors import CatalogueDamagedError, ChunkError, DealTooLargeError
from whist_catalogue.store.database import Location, database_errors, parse_location, sqlite_maintenance, writer_engine
from whist_catalogue.store.endings import EndingsSummary, build_endings, check_endings_target
from whist_catalogue.store.levels import (checked_chunk, chunk_checksum, chunk_count, level_row_checksum,
                                          level_row_problem, raw_level_rows, read_level_values, table_to_bytes)
from whist_catalogue.store.lock import BuildLock
from whist_catalogue.store.models import LevelChunkRow, LevelRow, SolvedGameRow, solved_game_checksum, table_of
from whist_catalogue.store.reader import level_info_of
from whist_catalogue.store.records import BuildProgress, LevelInfo, level_ranges, level_span

__all__ = [
    "BuildEstimate",
    "estimate_build",
    "BuildProgress",
    "BuildSummary",
    "build_steps",
    "build",
    "SOLVED_GAMES",
    "file_size",
    "ChunkComputer",
    "chunk_range",
    "compute_chunk",
    "local_chunks",
]

SOLVED_GAMES: tuple[tuple[str, dict[str, int]], ...] = (("chemin-de-fer", {}),) + tuple(
    ("le-her", {"cards": cards}) for cards in range(3, 53)
)
"""What ``build`` stores in ``solved_game``."""
FLAG_MASK = (1 << len(CHECK_NAMES)) - 1

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
    """Levels marked complete that were not all there, or whose row was damaged: stored again by this run."""
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
    endings: EndingsSummary | None = None
    """What the run did to the table of two-hand endings (``build --endings K``), None when not asked."""

    @property
    def bytes_per_deal(self) -> float | None:
        if self.file_bytes is None or not self.deals:
            return None
        return self.file_bytes / self.deals

    def text(self) -> str:
        """One line for people, the command line's and the app's: what the catalogue holds now and what this run
        added, each figure about the levels it names (the file's size counts every complete level, those above
        --max-n included)."""

        def chunks(size: int) -> str:
            return f"{size / 1e6:.1f} MB of chunks" if size >= 100_000 else f"{size:,} bytes of chunks"

        size = f", {self.file_bytes / 1e6:.1f} MB" if self.file_bytes is not None else ""
        said = [f"catalogue {self.location}: {level_span(self.complete)} complete ({self.deals:,} deals{size})"
                if self.complete else f"catalogue {self.location}: no complete level"]
        said.append(f"this run stored {level_span(self.stored)} ({chunks(self.stored_bytes)})" if self.stored
                    else "nothing to store")
        if self.repaired:
            said.append(f"{level_span(self.repaired)} {'was' if len(self.repaired) == 1 else 'were'} damaged "
                        "and stored again")
        if self.endings is not None:
            table = self.endings
            held = f"the table of endings holds k = {level_ranges(table.complete)}" if table.complete \
                else "the table of endings holds no level"
            if table.stored:
                held += f", this run stored k = {level_ranges(table.stored)} ({chunks(table.stored_bytes)})"
            said.append(held)
        said.append(f"{self.seconds:.1f} s")
        return "; ".join(said)

    def to_json(self) -> dict:
        return {
            "catalogue": self.location,
            "max_n": self.max_n,
            "levels_stored": self.stored,
            "levels_already_complete": self.already_complete,
            "levels_repaired": self.repaired,
            "levels_complete": self.complete,
            "stored_bytes": self.stored_bytes,
            "deals": self.deals,
            "solved_games_written": self.solved_games,
            "seconds": round(self.seconds, 3),
            "file_bytes": self.file_bytes,
            # four significant figures: a catalogue to n = 17 stores 0.03213 bytes a deal, which one decimal
            # place rounded to 0.0
            "bytes_per_deal": None if self.bytes_per_deal is None else float(f"{self.bytes_per_deal:.4g}"),
            **(self.endings.to_json() if self.endings is not None else {}),
        }


# -- the build ------------------------------------------------------------------------------------


CHUNK_BYTES_PER_DEAL = 0.035
"""Disk a deal of a chunks-only level when the catalogue records none: level 11 in docs/benchmarks.md
(the ratio falls slowly with n, 0.021 at n = 16, so an estimate from it errs on the large side)."""
LEVEL_SECONDS = 0.03
"""Wall time each level adds whatever its size: its transactions, table and statistics."""
GAMES_SECONDS = 2.0
"""Solving and storing the solved games (chemin-de-fer, Le Her for N = 3 … 52): 1.6 s at load 5 (``build --max-n 1``
with and without ``--no-games``)."""


@dataclass(frozen=True)
class BuildEstimate:
    """About what building levels ``levels`` takes and adds: deals, seconds, bytes of disk and of memory."""

    levels: tuple[int, ...]
    deals: int
    seconds: float
    bytes: float
    measured: bool
    """True when the disk a deal is the catalogue's own (its top level's recorded size)."""
    memory: int = 0
    """The build's peak resident memory (:func:`whist_catalogue.engine.plan.build_memory`)."""

    def describe(self) -> str:
        """``155,117,520 deals to value and store (level 15): about 44 s, 3.9 MB of disk and 411 MB of
        memory`` — what the command line says before a build and the app's Catalogue view before Build."""
        if not self.levels:
            return "no level to value and store" + (f": about {duration(self.seconds)}" if self.seconds else "")
        span = level_span(self.levels)
        return (f"{self.deals:,} deals to value and store ({span}): about {duration(self.seconds)}, "
                f"{amount(self.bytes)} of disk and {amount(self.memory)} of memory")

    def basis(self) -> str:
        """Where the figures come from, for a reader who wants to know how far to trust them."""
        disk = "the sizes this catalogue records for its levels" if self.measured else "docs/benchmarks.md"
        return f"time and memory from the engine's model, measured on {CALIBRATED_ON}; disk from {disk}"


def estimate_build(levels: Sequence[LevelInfo], target: int, *, games: bool = False) -> BuildEstimate:
    """What building every level up to ``target`` the catalogue lacks takes and adds (``games``: and solving the
    solved games).  Time and memory come from the engine's model (:func:`whist_catalogue.engine.plan.level_seconds`
    with ``build=True``, :func:`~whist_catalogue.engine.plan.build_memory`) — never from a level's recorded time,
    which holds whatever else the machine did then, a first run's compile included.  Disk comes from the size
    the catalogue records (``level.stored_bytes``) of its highest complete level of some size, else from
    docs/benchmarks.md."""
    complete = {i.n for i in levels if i.complete}
    todo = tuple(n for n in range(1, target + 1) if n not in complete)
    chunked = [i for i in levels if i.complete and i.row_count >= 10_000]
    sized = max((i for i in chunked if i.stored_bytes), key=lambda i: i.n, default=None)
    chunk_bytes = sized.stored_bytes / sized.row_count if sized and sized.stored_bytes else CHUNK_BYTES_PER_DEAL
    deals = size = 0.0
    seconds = GAMES_SECONDS if games else 0.0
    for n in todo:
        count = comb(2 * n, n)
        deals += count
        seconds += level_seconds(n, build=True) + LEVEL_SECONDS
        size += count * chunk_bytes
    return BuildEstimate(todo, int(deals), seconds, size, sized is not None, build_memory(todo) if todo else 0)


def file_size(location: Location) -> int | None:
    if location.path is None:
        return None
    return sum(p.stat().st_size for p in (location.path, location.path.with_name(location.path.name + "-wal"))
               if p.exists())


def _levels_state(session: Session) -> dict[int, LevelRow]:
    return {row.n: row for row in session.execute(sa.select(LevelRow)).scalars()}


def _plan(session: Session, max_n: int) -> tuple[list[int], list[int]]:
    """Mark every missing level ≤ max_n as planned; return (complete, to store)."""
    with session.begin():
        state = _levels_state(session)
        complete = sorted(n for n, row in state.items() if row.complete and n <= max_n)
        todo = [n for n in range(1, max_n + 1) if n not in complete]
        for n in todo:
            if n not in state:
                session.add(LevelRow(n=n, complete=False, row_count=0))
    return complete, todo


# -- the level store: chunks ---------------------------------------------------------------------------


class _Values:
    """Level n's chunks as they are committed, with the counts the level's statistics need; at the end, the
    level as the engine's codes into the union of the chunks' tables (:mod:`whist_catalogue.engine.codes`).

    Only what a later step reads is kept: each chunk's codes when level n is level n + 1's ``previous``
    (``codes``), and otherwise its table and per-value counts alone — so the top level of a build (level 17:
    2.3 billion deals) is not held in memory at a byte of codes a deal."""

    def __init__(self, n: int, *, codes: bool = True) -> None:
        self.n = n
        self.size = comb(2 * n, n)
        self.keep_codes = codes
        self.kept: list[tuple[int, int, ValueTable, np.ndarray]] = []
        """(start, stop, the chunk's table, its codes), a chunk each, when kept."""
        self.counted: list[tuple[ValueTable, np.ndarray]] = []
        self.flagged = np.zeros(len(CHECK_NAMES), np.int64)

    def add(self, chunk: Chunk) -> None:
        self.counted.append((chunk.table, np.bincount(chunk.codes, minlength=len(chunk.table))))
        if chunk.flags.any():
            self.flagged += [np.count_nonzero(chunk.flags & (1 << c)) for c in range(len(CHECK_NAMES))]
        if self.keep_codes:
            self.kept.append((chunk.start, chunk.stop, chunk.table, chunk.codes))

    def table(self) -> ValueTable:
        return union([table for table, _ in self.counted])

    def level(self) -> Level:
        """Level n's values (codes into :meth:`table`), to compute level n + 1 from."""
        if not self.keep_codes:
            raise AssertionError(f"level {self.n}'s codes were not kept")
        table = self.table()
        codes = np.empty(self.size, np.uint16)
        for start, stop, chunk_table, chunk_codes in self.kept:
            codes[start:stop] = remap(chunk_codes, chunk_table, table)
        return Level(self.n, codes, table)

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


def _load_level(session: Session, n: int) -> Level:
    """Level n's values, read back from its chunks."""
    if n == 0:
        return Level.empty()
    with session.begin():
        codes, table, _ = read_level_values(session.connection(), n)
    return Level(n, codes, table)


def _finish_level(session: Session, n: int, values: _Values, started: float) -> None:
    """One transaction: the level's table, statistics and row checksum, and ``complete``."""
    table, statistics = values.table_and_statistics()
    with session.begin():
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
        row.software_version = __version__
        row.built_at = datetime.now(timezone.utc)
        row.build_seconds = round(time.perf_counter() - started, 3)
        row.chunk_deals = CHUNK_DEALS
        row.value_table = table
        row.statistics = statistics
        row.stored_bytes = int(stored_bytes)
        row.checksum = level_row_checksum(n, row.row_count, CHUNK_DEALS, row.stored_bytes, table, statistics)
        session.add(row)


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
            solution = solved_games.solve(name, **params).to_json()
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
    """Levels 1–2 as :func:`build_steps` makes them, stored nowhere, to load (or compile) each kernel it calls —
    and as the engine values a deal beyond the catalogue (the mirror shortcut), which the app asks for next."""
    from whist_catalogue.engine.levels import compute_level

    previous = Level.empty()
    for n in (1, 2):
        values = _Values(n)
        values.add(read_chunk(compute_chunk(n, previous, 0)))
        values.table_and_statistics()
        compute_level(n, previous, symmetry=True)
        previous = values.level()


# -- before a build: a check of what it resumes from -----------------------------------------------------


def _remove_new_catalogue(loc: Location) -> None:
    """Remove the catalogue file this build created, with its side files (the build lock is still held)."""
    assert loc.path is not None
    path = Path(os.path.realpath(loc.path))  # through a symlink SQLite created the target: the symlink stays
    for suffix in ("-wal", "-shm", "-journal", ""):
        try:
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        except OSError:
            pass  # what cannot be removed stays; the error that ended the build is the one to report


def _preflight(session: Session, loc: Location) -> list[tuple[int, int, str]]:
    """Check what the build resumes from; return (n, deals found, what is wrong) of each complete level to store
    again.

    The schema's tables must all be there and every level row must name a level (else
    :class:`CatalogueDamagedError`: the catalogue is damaged beyond resuming).  Each level marked complete
    must hold all C(2n, n) deals in chunks each in its place, and its row must pass its checksum
    (:func:`whist_catalogue.store.levels.level_row_problem`); a level that does not is marked incomplete here,
    in one transaction, so the build stores it again.  (The chunks' own SHA-256 are checked as they are read.)
    """
    with session.begin():
        tables = set(sa.inspect(session.connection()).get_table_names())
    needed = {LevelRow.__tablename__, LevelChunkRow.__tablename__, SolvedGameRow.__tablename__}
    missing = sorted(needed - tables)
    if missing:
        raise CatalogueDamagedError(
            f"catalogue {loc} is damaged: table {', '.join(missing)} is missing; delete the catalogue and build"
            " it again"
        )
    repairs = []
    chunks = LevelChunkRow.__table__.c
    with session.begin():
        for row in raw_level_rows(session.connection()):
            n, problem = row["n"], level_row_problem(row)
            complete = row["complete"] in (True, False) and bool(row["complete"])
            if type(n) is not int or not 1 <= n <= MAX_LEVEL_N or (complete and n > MAX_BUILD_N):
                raise CatalogueDamagedError(f"catalogue {loc} is damaged: its level table names level"
                                            f" {str(n)[:20]!r}; delete the catalogue and build it again")
            if not complete:
                if problem is not None:
                    raise CatalogueDamagedError(f"catalogue {loc} is damaged: {problem}; delete the catalogue and"
                                                " build it again")
                continue
            size, expected = comb(2 * n, n), chunk_count(n, CHUNK_DEALS)
            in_place = sa.and_(chunks.chunk >= 0, chunks.chunk < expected)
            covered = sa.func.coalesce(sa.func.sum(sa.case((in_place, chunks.stop - chunks.start), else_=0)), 0)
            found, rows_found = session.execute(sa.select(covered, sa.func.count()).where(chunks.n == n)).one()
            if found != size:
                what = f"holds {found:,} of {size:,} deals"
            elif rows_found != expected:  # a chunk row of no place in the level (duplicated, renumbered)
                what = "has chunk rows out of their places"
            elif problem is not None:
                what = "its level row differs from its checksum"
            else:
                continue
            session.execute(sa.update(LevelRow).where(LevelRow.n == n).values(complete=False))
            repairs.append((n, found, what))
    return repairs


def build_steps(
    location: str | os.PathLike[str],
    max_n: int,
    *,
    games: bool = True,
    create_parent: bool = False,
    compute_chunks: ChunkComputer | None = None,
    endings: int = 0,
) -> Generator[BuildProgress, None, BuildSummary]:
    """Build (or resume) the catalogue at ``location`` up to ``max_n`` cards a hand; see the module docstring.

    A generator of :class:`BuildProgress`; its return value (``StopIteration.value``)
    is the :class:`BuildSummary`.  Closing it early (the app's cancel button) rolls back the
    transaction in progress — at most one chunk, or one level's completion — within a second
    or two at n = 16; every committed chunk is kept for the next run.  ``compute_chunks`` (a
    :data:`ChunkComputer`) values chunks elsewhere, e.g. on a cluster.  ``endings`` = K > 0 then stores levels
    1 … K of the table of two-hand endings (:func:`whist_catalogue.store.endings.build_endings`).
    """
    if not 1 <= max_n <= MAX_BUILD_N:
        raise DealTooLargeError(f"--max-n must be between 1 and {MAX_BUILD_N}, got {max_n}")
    if endings:
        check_endings_target(endings)
    started = time.perf_counter()
    loc = parse_location(location)
    if create_parent and loc.path is not None:
        loc.path.parent.mkdir(parents=True, exist_ok=True)
    lock = BuildLock(loc).acquire()  # one writer at a time: a second build is refused here
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
    failed: BaseException | None = None
    try:
        with database_errors(loc), Session(engine, autobegin=False, expire_on_commit=False) as session:
            for n, found, what in _preflight(session, loc):
                summary.repaired.append(n)
                yield BuildProgress("repair", n, found, comb(2 * n, n),
                                    f"level {n} was marked complete but {what}: storing it again")
            complete, todo = _plan(session, max_n)
            summary.already_complete = complete
            with session.begin():
                recorded = [level_info_of(row) for row in raw_level_rows(session.connection())]
            estimate = estimate_build(recorded, max_n, games=games and bool(_stale_games(session)[1]))
            yield BuildProgress("plan", None, 0, len(todo), estimate.describe())
            if todo:
                yield from _prepare_engine()
            previous: Level | None = None
            read_back: int | None = None
            """The level this run read back from the catalogue, which every level it computes stems from."""
            for n in range(1, max(todo, default=0) + 1):
                if n in complete:
                    yield BuildProgress("level", n, 1, 1, "already complete")
                    continue
                level_started = time.perf_counter()
                if previous is None or previous.n != n - 1:
                    yield BuildProgress("load", n - 1, 0, 1, f"reading level {n - 1} back from the catalogue")
                    previous = _load_level(session, n - 1)
                    read_back = n - 1 if n > 1 else None
                    yield BuildProgress("load", n - 1, 1, 1, f"read level {n - 1} back from the catalogue")
                values = _Values(n, codes=n < todo[-1])
                try:
                    yield from _store_chunks(session, n, previous, values, compute_chunks or local_chunks)
                except ArithmeticError as exc:
                    if read_back is None:
                        raise  # computed from nothing stored: a bug of the engine
                    raise CatalogueDamagedError(
                        f"catalogue {loc} is damaged: level {read_back}: level {n} cannot be computed from its values"
                        f" as stored ({exc}) (run whist-catalogue verify)") from None
                yield BuildProgress("finish", n, 0, 1, "statistics")
                _finish_level(session, n, values, level_started)
                summary.stored.append(n)
                yield BuildProgress("level", n, 1, 1, "stored")
                previous = values.level() if n < todo[-1] else None  # the last level is nobody's previous
                del values
            for n in complete:
                if n > max(todo, default=0):
                    yield BuildProgress("level", n, 1, 1, "already complete")
            if games:
                for event in _store_games(session):
                    summary.solved_games = event.done
                    yield event
            if endings:
                summary.endings = EndingsSummary()
                yield from build_endings(session, loc, endings, summary.endings)
            with session.begin():
                state = _levels_state(session)
            summary.complete = sorted(n for n, row in state.items() if row.complete)
            summary.deals = sum(comb(2 * n, n) for n in summary.complete)
            summary.stored_bytes = sum(state[n].stored_bytes or 0 for n in summary.stored if n in state)
        if loc.is_sqlite:
            with database_errors(loc):
                sqlite_maintenance(engine, analyze=bool(summary.stored))
    except BaseException as exc:
        failed = exc
        raise
    finally:
        engine.dispose()
        try:
            # A catalogue this build created goes when it fails before its first level. Once a level is stored it
            # stays, a full disk included: it is committed (in the write-ahead log if that could not be folded in,
            # which the next open folds), and a failed build loses no finished work.
            if failed is not None and created and not summary.stored:
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

