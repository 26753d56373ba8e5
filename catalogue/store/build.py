"""Filling the catalogue from the engine, level by level, resumably (SPEC §5).

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
3. For n = 1 … N: compute level n with the engine (values, best moves, checks)
   and the single-suit paper's quantities (:func:`whist_catalogue.single_suit.formulas.level_quantities`).
   A level already complete is not stored again; it is only computed, in memory
   and without moves, when the next level needs it.  An incomplete level is
   stored in ONE transaction: leftover rows deleted, every row inserted (Core
   ``insert()`` executemany), its ``level`` row set complete with row count and
   checksum — then commit.  A process killed at any moment leaves each level
   either complete and valid or not marked complete.
4. The solved matrix games (:mod:`whist_catalogue.games.solved_games`): chemin-de-fer and
   Le Her for N = 3 … 52 cards, one transaction, skipped when already stored by
   this software version.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from math import comb
from typing import Callable, Generator, Iterator, Literal

import numpy as np
import sqlalchemy as sa
from sqlalchemy.orm import Session

from whist_catalogue import __version__
from whist_catalogue.engine.encoding import SCALE
from whist_catalogue.engine.levels import CHECK_NAMES, Level, compute_level
from whist_catalogue.errors import DealTooLargeError
from whist_catalogue.store.database import Location, database_errors, parse_location, sqlite_maintenance, writer_engine
from whist_catalogue.store.models import DealRow, LevelRow, SolvedGameRow
from whist_catalogue.store.verify import level_checksum
from whist_catalogue.theory.ranking import level_masks

__all__ = [
    "BuildProgress",
    "BuildSummary",
    "build_steps",
    "build",
    "level_rows",
    "COLUMNS",
    "MAX_BUILD_N",
    "BATCH_ROWS",
    "SOLVED_GAMES",
    "file_size",
]

MAX_BUILD_N = 16
"""Best moves are stored as 16-bit position masks (SPEC §3): up to 16 cards a hand."""
BATCH_ROWS = 20_000
"""Rows per executemany call; one progress event per batch."""
REBUILD_INDEXES_ROWS = 100_000
"""On SQLite, a level at least this big is loaded without indexes, which are then rebuilt (same transaction)."""
SOLVED_GAMES: tuple[tuple[str, dict[str, int]], ...] = (("chemin-de-fer", {}),) + tuple(
    ("le-her", {"cards": cards}) for cards in range(3, 53)
)
"""What ``build`` stores in ``solved_game``."""
FLAG_MASK = (1 << len(CHECK_NAMES)) - 1

Stage = Literal["plan", "compute", "store", "level", "games", "done"]


@dataclass(frozen=True, slots=True)
class BuildProgress:
    """One step of a build.

    ``stage`` is ``plan`` (once, ``total`` = levels to store), ``compute`` (level
    n being valued, ``done`` = 0), ``store`` (``done`` of ``total`` rows of level n
    inserted), ``level`` (level n committed, or skipped if it was complete),
    ``games`` (``done`` of ``total`` solved games) and ``done`` (once, at the end).
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
    rows_written: int = 0
    deals: int = 0
    """Deals in the catalogue's complete levels 1…max_n."""
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
            "rows_written": self.rows_written,
            "deals": self.deals,
            "solved_games_written": self.solved_games,
            "seconds": round(self.seconds, 3),
            "file_bytes": self.file_bytes,
            "bytes_per_deal": None if self.bytes_per_deal is None else round(self.bytes_per_deal, 1),
        }


# -- one level as rows ------------------------------------------------------------------------


COLUMNS = (
    "key", "n", "numerator", "denominator", "number_scaled", "fraction_scaled", "inf_sign", "stoppers",
    "west_leads", "east_leads", "moves", "h_lower", "h_upper", "h", "greedy_west_leads", "greedy_east_leads",
    "five_card_west_leads", "five_card_east_leads", "ace", "flags",
)  # fmt: skip
"""The ``deal`` columns, in the order of the tuples :func:`level_rows` produces."""


def _player(west: np.ndarray) -> np.ndarray:
    return np.where(west, "W", "E")


def level_rows(level: Level, batch: int | None = None) -> tuple[list[str], Iterator[list[tuple]], str]:
    """The ``deal`` rows of a level computed with moves and checks: (columns, batches of rows, checksum).

    Every column is derived from the engine's arrays with numpy; the rows are
    plain tuples in key order, made a batch at a time (so memory holds the
    level's arrays, not millions of Python objects), ready for an executemany.
    """
    from whist_catalogue.single_suit.formulas import level_quantities

    n = level.n
    if level.moves is None or level.flags is None:
        raise ValueError(f"level {n} must be computed with moves and checks to be stored")
    masks = level_masks(n)
    keys = masks | np.int64(1 << (2 * n))
    scaled = level.numerator.astype(np.int64)
    low_bit = scaled & -scaled
    # The reduced denominator is 2^24 / (lowest set bit of q·2^24), at least 1; 0 is 0/1.
    denominator = np.where(low_bit == 0, 1, np.maximum(1, SCALE // np.maximum(low_bit, 1)))
    numerator = scaled * denominator // SCALE
    rank = level.infinitesimal.astype(np.int64)
    west_leads, east_leads = level.outcomes()
    q = level_quantities(n, masks)
    if not np.array_equal(q.ace_west, (masks >> (2 * n - 1)) & 1 == 1):
        raise AssertionError(f"level {n}: the single-suit quantities are not in rank order")
    width = 2 + 2 * n
    moves = np.ascontiguousarray(level.moves, dtype="<u2")
    checksum = level_checksum(keys, scaled, rank, moves)
    arrays = {
        "key": keys,
        "numerator": numerator,
        "denominator": denominator.astype(np.int32),
        "number_scaled": scaled.astype(np.int32),
        "fraction_scaled": (scaled & (SCALE - 1)).astype(np.int32),
        "inf_sign": np.sign(rank).astype(np.int8),
        "stoppers": np.maximum(np.abs(rank) - 1, 0).astype(np.int8),
        "west_leads": west_leads.astype(np.int8),
        "east_leads": east_leads.astype(np.int8),
        "moves": moves.view(np.dtype((np.void, 2 * width))).ravel(),
        "h_lower": q.h_lower,
        "h_upper": q.h_upper,
        "h": q.h,
        "greedy_west_leads": q.greedy_west_leads,
        "greedy_east_leads": q.greedy_east_leads,
        "five_card_west_leads": _player(q.five_card_west_wins_west_leads),
        "five_card_east_leads": _player(q.five_card_west_wins_east_leads),
        "ace": _player(q.ace_west),
        "flags": (level.flags & FLAG_MASK).astype(np.int16),
    }

    size = batch or BATCH_ROWS

    def batches() -> Iterator[list[tuple]]:
        for start in range(0, len(keys), size):
            stop = min(len(keys), start + size)
            data = [[n] * (stop - start) if c == "n" else arrays[c][start:stop].tolist() for c in COLUMNS]
            yield list(zip(*data))

    return list(COLUMNS), batches(), checksum


# -- the build ------------------------------------------------------------------------------------


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


def _inserter(session: Session, columns: list[str]) -> Callable[[list[tuple]], None]:
    """An executemany of plain tuples into ``deal``.

    On SQLite the statement SQLAlchemy compiles from ``insert()`` goes to the
    driver's executemany (through :meth:`~sqlalchemy.engine.Connection.exec_driver_sql`,
    so it stays inside the session's transaction) — about twice as fast as
    executing the Core statement with one dict per row, which is what other
    backends get (psycopg batches those itself).
    """
    connection = session.connection()
    statement = sa.insert(DealRow.__table__)
    if connection.dialect.name == "sqlite":
        compiled = statement.compile(dialect=connection.dialect, column_keys=columns)
        if list(compiled.positiontup or ()) != columns:
            raise AssertionError("the compiled insert does not take the columns in order")
        sql = str(compiled)
        return lambda batch: connection.exec_driver_sql(sql, batch)
    return lambda batch: connection.execute(statement, [dict(zip(columns, row)) for row in batch])


def _store_level(session: Session, level: Level, started: float) -> Iterator[BuildProgress]:
    """Level n in one transaction: delete leftovers, insert every row, mark complete, commit."""
    n = level.n
    size = len(level)
    columns, batches, checksum = level_rows(level)
    with session.begin():
        session.execute(sa.delete(DealRow).where(DealRow.in_level(n)))
        insert_many = _inserter(session, columns)
        # A big level on SQLite: indexes dropped and created again after the rows — sorting beats
        # millions of scattered b-tree inserts (about 30 % faster at n = 12) and packs them tighter.
        # Inside the level's transaction, so other connections keep seeing the indexes (WAL).
        rebuild = size >= REBUILD_INDEXES_ROWS and session.connection().dialect.name == "sqlite"
        if rebuild:
            for index in DealRow.__table__.indexes:
                session.execute(sa.schema.DropIndex(index))
        done = 0
        for batch in batches:
            insert_many(batch)
            done += len(batch)
            yield BuildProgress("store", n, done, size)
        if rebuild:
            for index in DealRow.__table__.indexes:
                session.execute(sa.schema.CreateIndex(index))
        stored = session.execute(sa.select(sa.func.count()).select_from(DealRow).where(DealRow.in_level(n))).scalar_one()
        if stored != comb(2 * n, n) or done != stored:
            raise AssertionError(f"level {n}: {stored} rows stored, expected {comb(2 * n, n)}")
        row = session.get(LevelRow, n) or LevelRow(n=n)
        row.complete = True
        row.row_count = stored
        row.checksum = checksum
        row.software_version = __version__
        row.built_at = datetime.now(timezone.utc)
        row.build_seconds = round(time.perf_counter() - started, 3)
        session.add(row)
        yield BuildProgress("store", n, size, size)
    # committed: the level is now complete


def _store_games(session: Session) -> Iterator[BuildProgress]:
    from whist_catalogue.games import solved_games

    with session.begin():
        existing = {
            (r.name, r.parameters): r
            for r in session.execute(sa.select(SolvedGameRow)).scalars()
        }
    wanted = [(name, params) for name, params in SOLVED_GAMES]
    stale = [(name, params) for name, params in wanted
             if (r := existing.get((name, _canonical(params)))) is None or r.software_version != __version__]
    if not stale:
        return
    total = len(stale)
    with session.begin():
        for i, (name, params) in enumerate(stale, 1):
            solution = solved_games.solve(name, **params)
            key = (name, _canonical(params))
            row = existing.get(key) or SolvedGameRow(name=name, parameters=key[1])
            row.solution = json.dumps(solution, ensure_ascii=False, sort_keys=False)
            row.software_version = __version__
            row.computed_at = datetime.now(timezone.utc)
            session.add(row)
            yield BuildProgress("games", None, i, total, " ".join([name, *(f"{k}={v}" for k, v in params.items())]))


def _canonical(params: dict[str, int]) -> str:
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


def build_steps(
    location: str | os.PathLike[str],
    max_n: int,
    *,
    games: bool = True,
    create_parent: bool = False,
) -> Generator[BuildProgress, None, BuildSummary]:
    """Build (or resume) the catalogue at ``location`` up to ``max_n`` cards a hand; see the module docstring.

    A generator of :class:`BuildProgress`; its return value (``StopIteration.value``)
    is the :class:`BuildSummary`.  Closing it early rolls back the level in progress.
    """
    if not 1 <= max_n <= MAX_BUILD_N:
        raise DealTooLargeError(f"--max-n must be between 1 and {MAX_BUILD_N}, got {max_n}")
    started = time.perf_counter()
    loc = parse_location(location)
    engine = writer_engine(loc, create_parent=create_parent)
    summary = BuildSummary(str(loc), max_n)
    try:
        with database_errors(loc), Session(engine, autobegin=False, expire_on_commit=False) as session:
            complete, todo = _plan(session, max_n)
            summary.already_complete = complete
            yield BuildProgress("plan", None, 0, len(todo), f"{len(todo)} levels to store")
            last_needed = max(todo, default=0)
            previous = Level.empty()
            for n in range(1, last_needed + 1):
                level_started = time.perf_counter()
                if n in complete:
                    # Only needed as the previous level of the next one: values only.
                    previous = compute_level(n, previous)
                    yield BuildProgress("level", n, 1, 1, "already complete")
                    continue
                yield BuildProgress("compute", n, 0, comb(2 * n, n))
                level = compute_level(n, previous, moves=True, checks=True)
                yield from _store_level(session, level, level_started)
                summary.stored.append(n)
                summary.rows_written += len(level)
                yield BuildProgress("level", n, 1, 1, "stored")
                previous = Level(n, level.codes, level.table)  # drop moves and flags
                del level
            if games:
                before = summary.solved_games
                for event in _store_games(session):
                    summary.solved_games = before + event.done
                    yield event
            summary.deals = sum(comb(2 * n, n) for n in range(1, max_n + 1))
        if loc.is_sqlite:
            sqlite_maintenance(engine, analyze=bool(summary.stored))
    finally:
        engine.dispose()
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

