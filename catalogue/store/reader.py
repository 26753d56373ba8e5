"""Reading the catalogue: look-ups, search, statistics, solved games (python-chess ``Tablebase`` style).

:func:`open_catalogue` checks that the location holds a catalogue of the current schema and returns a
:class:`Catalogue`; nothing on disk changes, and a missing, foreign, corrupt or newer database raises
:class:`~whist_catalogue.errors.CatalogueError`.  Connections are made lazily, on the first query, and pooled.

Every level is read from the level store (:mod:`whist_catalogue.store.levels`): the value from its chunk, and
everything else derived as :mod:`whist_catalogue.store.derived` says — the outcome ρ(val), the best leads and
replies from α, whose entries are level n−1's values of the reductions D_ij (§7.2), and the single-suit
paper's quantities by its direct formulas.  What is read is checked first: a level's row against its checksum
when the level list is read, each chunk as it enters the cache (512 MB of codes; once a deal's chunks are in
memory a look-up with best moves takes well under a millisecond).  Damage is a
:class:`~whist_catalogue.errors.CatalogueDamagedError` naming the level, never an answer.

A :class:`Catalogue` is a :class:`~whist_catalogue.theory.solution.Solver`: ``solve(deal)`` returns the stored
:class:`~whist_catalogue.theory.solution.SuitSolution`, or raises :class:`~whist_catalogue.errors.NotInCatalogue`
(a :class:`LookupError`) when the deal's level is not complete, so that a caller can fall back to computing it
(:class:`whist_catalogue.store.solvers.ChainSolver`).
"""

from __future__ import annotations

import json
import os
import weakref
from math import comb
from typing import TYPE_CHECKING, Any, Iterator, Sequence

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from whist_catalogue.constants import MAX_LEVEL_N
from whist_catalogue.engine.chunks import Chunk
from whist_catalogue.engine.codes import ValueTable
from whist_catalogue.engine.encoding import decode_value
from whist_catalogue.engine.statistics import LevelStatistics
from whist_catalogue.errors import (CatalogueDamagedError, ChunkError, InvalidDealError, MalformedContentError,
                                    NotInCatalogue)
from whist_catalogue.store import derived
from whist_catalogue.store.database import Location, database_errors, parse_location, reader_engine, recorded_time
from whist_catalogue.store.levels import (CACHE_BYTES, ChunkCache, checked_chunk, level_counts, level_row_problem,
                                          raw_level_rows, read_level_values)
from whist_catalogue.store.models import LevelChunkRow, SolvedGameRow, solved_game_checksum
from whist_catalogue.store.records import DealRecord, LevelInfo, SearchCoverage
from whist_catalogue.store.settings import database_location
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.ranking import rank
from whist_catalogue.theory.solution import CATALOGUE, SolverBase, SuitSolution
from whist_catalogue.theory.values import Value

if TYPE_CHECKING:
    from whist_catalogue.games.solved_games import SolvedGame
    from whist_catalogue.store.search import LevelProgress, Matches

__all__ = ["open_catalogue", "Catalogue", "level_info_of"]

_chunks = LevelChunkRow.__table__


def open_catalogue(location: str | os.PathLike[str] | None = None) -> Catalogue:
    """Open the catalogue at ``location`` (a path or SQLAlchemy URL; default: the settings' catalogue) for reading."""
    loc = parse_location(database_location(location))
    return Catalogue(loc, reader_engine(loc))


def level_info_of(row: dict[str, Any]) -> LevelInfo:
    """The :class:`LevelInfo` of a raw ``level`` row; a row naming no level, or whose completeness is no truth
    value, makes the whole table untrustworthy (:class:`MalformedContentError`)."""
    n, problem = row["n"], level_row_problem(row)
    if type(n) is not int or not 1 <= n <= MAX_LEVEL_N or row["complete"] not in (True, False):
        raise MalformedContentError(problem or f"the level table names level n = {n!r}")
    seconds = row["build_seconds"]
    return LevelInfo(
        n=n, complete=bool(row["complete"]), row_count=row["row_count"] if type(row["row_count"]) is int else 0,
        checksum=row["checksum"] if isinstance(row["checksum"], str) else None,
        software_version=row["software_version"] if isinstance(row["software_version"], str) else None,
        built_at=recorded_time(row["built_at"]),
        build_seconds=float(seconds) if isinstance(seconds, (int, float)) else None,
        stored_bytes=row["stored_bytes"] if type(row["stored_bytes"]) is int else None,
        chunk_deals=row["chunk_deals"] if type(row["chunk_deals"]) is int else None,
        value_table=row["value_table"] if isinstance(row["value_table"], bytes) else None,
        statistics=row["statistics"] if isinstance(row["statistics"], str) else None,
        problem=problem if row["complete"] else None,
    )


class Catalogue(SolverBase):
    """Read access to a catalogue (use :func:`open_catalogue`).

    Thread safety: one instance may be shared by threads.  Each call takes its own connection from the engine's
    pool and returns it before it returns; the iterators of :meth:`iter_search` hold a connection until
    exhausted or closed and belong to the thread that made them.  A build may run at the same time (SQLite
    WAL): every call sees the levels committed when it started.  Usable as a context manager; :meth:`close`
    releases the connections.
    """

    def __init__(self, location: Location, engine: Engine) -> None:
        self.location = location
        self._engine = engine
        self._info: dict[int, LevelInfo] = {}
        # The codes only: check bits are inflated for full records and searches, which are rarer than look-ups
        # of values and moves; counting them up front would halve what the cache holds for those.
        self.chunks = ChunkCache(self._load_chunk, CACHE_BYTES, lambda chunk: chunk.codes.nbytes)
        self._streams: weakref.WeakSet[Any] = weakref.WeakSet()

    # -- life cycle -------------------------------------------------------------------------
    def close(self) -> None:
        # Streams a caller abandoned (an error mid-export, say) still hold connections: close them first, so
        # that every connection is closed now and SQLite removes its -wal and -shm files.
        for stream in list(self._streams):
            stream.close()
        self._engine.dispose()

    def __enter__(self) -> Catalogue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"open_catalogue({str(self.location)!r})"

    def connect(self) -> sa.Connection:
        """A Core connection of the pool (a context manager)."""
        return self._engine.connect()

    def damaged(self, what: str) -> CatalogueDamagedError:
        """The error for damage found while reading (``what`` names the level, and the chunk or deal)."""
        return CatalogueDamagedError(f"catalogue {self.location} is damaged: {what} (run whist-catalogue verify)")

    # -- levels ---------------------------------------------------------------------------------
    def levels(self) -> list[LevelInfo]:
        """Every ``level`` row, by n, each complete one checked against its checksum (:attr:`LevelInfo.problem`)."""
        with database_errors(self.location), self.connect() as connection:
            infos = [level_info_of(row) for row in raw_level_rows(connection)]
        self._info = {i.n: i for i in infos}  # one rebinding: a thread reads the old dict or the new one
        return infos

    def level_info(self, n: int) -> LevelInfo | None:
        """The ``level`` row of n (None if there is none)."""
        found = self._info.get(n)
        if found is None or not found.complete:
            self.levels()  # a build may have completed it since
            found = self._info.get(n)
        return found

    def complete_levels(self) -> frozenset[int]:
        return frozenset(i.n for i in self.levels() if i.complete)

    @property
    def max_n(self) -> int:
        """The largest n such that every level 1…n is complete (0 if none)."""
        complete = self.complete_levels()
        n = 0
        while n + 1 in complete:
            n += 1
        return n

    def level_row(self, n: int) -> LevelInfo:
        """The row of complete level n, checked: :class:`~whist_catalogue.errors.NotInCatalogue` when the level is
        not complete, :class:`~whist_catalogue.errors.CatalogueDamagedError` when its row is damaged."""
        info = self.level_info(n)
        if info is None or not info.complete:
            raise NotInCatalogue(f"level n = {n} is not in catalogue {self.location}")
        if info.problem is not None:
            raise self.damaged(info.problem)
        return info

    def level_table(self, n: int) -> tuple[ValueTable, np.ndarray]:
        """Level n's distinct values (V's order) and how many deals have each, as stored at build time."""
        info = self.level_row(n)
        return level_counts({"n": n, "value_table": info.value_table, "statistics": info.statistics})

    def value_counts(self, n: int) -> dict[Value, int]:
        """How many deals of level n have each value, as counted at build time."""
        table, counts = self.level_table(n)
        return {decode_value(int(a), int(b)): int(c) for a, b, c in zip(table.numerator, table.infinitesimal, counts)}

    def statistics(self, n: int) -> LevelStatistics:
        """The statistics of docs/spec.md §4 for a complete level (the same object ``scan`` builds)."""
        return LevelStatistics(n, self.value_counts(n))

    # -- chunks -----------------------------------------------------------------------------------
    def _load_chunk(self, n: int, index: int) -> Chunk:
        """Chunk ``index`` of level n, checked once as it enters the cache (:func:`~whist_catalogue.store.levels.
        checked_chunk`: its SHA-256, and its header against its place) — a chunk damaged, swapped or from another
        level is named here instead of being served as an answer."""
        chunk_deals = self.chunk_deals(n)
        with database_errors(self.location), self.connect() as connection:
            row = connection.execute(sa.select(_chunks.c.data, _chunks.c.checksum, _chunks.c.start, _chunks.c.stop)
                                     .where(_chunks.c.n == n, _chunks.c.chunk == index)).one_or_none()
        if row is None:
            raise self.damaged(f"level {n} is marked complete but its chunk {index} is missing")
        try:
            return checked_chunk(n, index, chunk_deals, row.data, row.checksum, row.start, row.stop)
        except ChunkError as exc:
            raise self.damaged(f"level {n} chunk {index}: {exc}") from None

    def chunk_deals(self, n: int) -> int:
        """Deals a chunk of complete level n (its last chunk may hold fewer)."""
        chunk_deals = self.level_row(n).chunk_deals
        assert chunk_deals is not None  # a complete row without one fails its checksum
        return chunk_deals

    def scan_chunks(self, n: int, first: int = 0) -> Iterator[Chunk]:
        """Level n's chunks in rank order from chunk ``first``, decoded and checked one at a time (bounded memory;
        the look-up cache is left alone)."""
        chunk_deals = self.chunk_deals(n)
        statement = (sa.select(_chunks.c.chunk, _chunks.c.data, _chunks.c.checksum, _chunks.c.start, _chunks.c.stop)
                     .where(_chunks.c.n == n, _chunks.c.chunk >= first).order_by(_chunks.c.chunk))
        expected = first
        with database_errors(self.location), self.connect() as connection:
            for index, data, checksum, start, stop in connection.execution_options(yield_per=1).execute(statement):
                try:
                    if index != expected:
                        raise ChunkError(f"found where chunk {expected} belongs")
                    yield checked_chunk(n, index, chunk_deals, data, checksum, start, stop)
                except ChunkError as exc:
                    raise self.damaged(f"level {n} chunk {index}: {exc}") from None
                expected += 1
        if expected * chunk_deals < comb(2 * n, n):
            raise self.damaged(f"level {n} is marked complete but its chunk {expected} is missing")

    def values_at(self, n: int, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(numerator, infinitesimal) engine arrays of the deals of level n with these ranks (any shape), from the
        chunks: one chunk read at once (the common case below n = 14), else each chunk's part put in place."""
        if n == 0 or ranks.size == 0:
            return np.zeros(ranks.shape, np.int32), np.zeros(ranks.shape, np.int8)
        indexes = ranks // self.chunk_deals(n)
        if int(indexes.min()) == int(indexes.max()):
            chunk = self.chunks.get(n, int(indexes.flat[0]))
            codes = chunk.codes[ranks - chunk.start]
            return chunk.table.numerator[codes], chunk.table.infinitesimal[codes]
        numerator = np.empty(ranks.shape, np.int32)
        infinitesimal = np.empty(ranks.shape, np.int8)
        for index in np.unique(indexes).tolist():
            chunk = self.chunks.get(n, index)
            where = indexes == index
            codes = chunk.codes[ranks[where] - chunk.start]
            numerator[where] = chunk.table.numerator[codes]
            infinitesimal[where] = chunk.table.infinitesimal[codes]
        return numerator, infinitesimal

    def level_values(self, n: int) -> tuple[np.ndarray, ValueTable]:
        """(codes, value table) of every deal of level n by rank: the level as the engine holds it
        (:class:`whist_catalogue.engine.levels.Level`), read from its chunks and checked against its row."""
        with database_errors(self.location), self.connect() as connection:
            try:
                codes, table, _ = read_level_values(connection, n)
            except ChunkError as exc:
                raise self.damaged(str(exc)) from None
        return codes, table

    # -- look-ups (the Solver protocol) ------------------------------------------------------------
    source = CATALOGUE

    def _level_of(self, deal: Deal) -> int:
        if deal.n == 0:
            raise NotInCatalogue("the empty deal is in no level of the catalogue")
        info = self._info.get(deal.n)
        if info is None or not info.complete or info.problem is not None:
            self.level_row(deal.n)
        if deal.n > 1:
            below = self.level_info(deal.n - 1)
            if below is None or not below.complete:
                # A complete level is built from the one below; without it the best moves cannot be derived.
                raise self.damaged(f"level {deal.n} is complete but level {deal.n - 1}, from whose values its best"
                                   " moves are derived, is not")
        return deal.n

    def _level_of_or_none(self, deal: Deal) -> int | None:
        try:
            return self._level_of(deal)
        except NotInCatalogue:
            return None

    def _by_level(self, deals: Sequence[Deal]) -> dict[int, list[int]]:
        """The places of the deals of each level the catalogue holds (None-answers for the others)."""
        by_level: dict[int, list[int]] = {}
        for i, deal in enumerate(deals):
            n = self._level_of_or_none(deal)
            if n is not None:
                by_level.setdefault(n, []).append(i)
        return by_level

    def value(self, deal: Deal) -> Value:
        """val(D) as its level's chunk holds it; :class:`~whist_catalogue.errors.NotInCatalogue` when the level is
        not complete."""
        if deal.n == 0:
            return Value(0)
        self._level_of(deal)
        numerator, infinitesimal = self.values_at(deal.n, np.array([rank(deal.west)], np.int64))
        return decode_value(int(numerator[0]), int(infinitesimal[0]))

    def solve(self, deal: Deal) -> SuitSolution:
        """Value and optimal moves (docs/spec.md §3); :class:`~whist_catalogue.errors.NotInCatalogue` when the
        deal's level is not complete."""
        return derived.solutions(self._level_of(deal), [deal], self.values_at)[0]

    def solve_many(self, deals: Sequence[Deal]) -> list[SuitSolution | None]:
        """Value and optimal moves (docs/spec.md §3) of each deal, None where its level is not complete; the
        deals of each level derived together (:func:`whist_catalogue.store.derived.solutions`)."""
        found: list[SuitSolution | None] = [None] * len(deals)
        for n, places in self._by_level(deals).items():
            for i, solution in zip(places, derived.solutions(n, [deals[i] for i in places], self.values_at)):
                found[i] = solution
        return found

    def records(self, deals: Sequence[Deal]) -> list[DealRecord]:
        """The full records of several deals (e.g. the suits of a multi-suit deal), each chunk's together
        (:func:`whist_catalogue.store.derived.records`); :class:`~whist_catalogue.errors.NotInCatalogue` when one's
        level is not complete."""
        by_chunk: dict[tuple[int, int], list[int]] = {}
        for i, deal in enumerate(deals):
            if deal.n == 0:
                raise InvalidDealError("the empty deal has no record")
            if self._level_of_or_none(deal) is None:
                raise NotInCatalogue(f"deal {deal.label}: level n = {deal.n} is not in catalogue {self.location}")
            by_chunk.setdefault((deal.n, rank(deal.west) // self.chunk_deals(deal.n)), []).append(i)
        found: dict[int, DealRecord] = {}
        for (n, index), places in by_chunk.items():
            chunk = self.chunks.get(n, index)
            order = sorted(places, key=lambda i: deals[i].west)  # rank order is the masks' order
            ranks = np.array([rank(deals[i].west) - chunk.start for i in order], np.int64)
            masks = np.array([deals[i].west for i in order], np.int64)
            for i, record in zip(order, derived.records(chunk, ranks, self.values_at, masks)):
                found[i] = record
        return [found[i] for i in range(len(deals))]

    def record(self, deal: Deal) -> DealRecord:
        """The deal's record; :class:`~whist_catalogue.errors.NotInCatalogue` when its level is not complete."""
        if deal.n == 0:
            raise NotInCatalogue(f"the empty deal is in no level of catalogue {self.location}")
        return self.records([deal])[0]

    # -- search and the dataset (:mod:`whist_catalogue.store.search`, :mod:`whist_catalogue.store.dataset`) -----
    def count(self, expression: str | None = None, *, level: int | None = None,
              progress: LevelProgress | None = None) -> int:
        """How many deals of the complete levels match a search expression and/or lie in a level (:meth:`coverage`
        says which levels); ``progress(n, done, total)`` follows a level searched a chunk at a time (a condition
        on the value alone is decided from the level's stored counts at once, with no progress)."""
        from whist_catalogue.store.search import count

        return count(self, expression, level=level, progress=progress)

    def coverage(self, expression: str | None = None, *, level: int | None = None) -> SearchCoverage:
        """Which levels a search covers, and which of those it asks for the catalogue lacks."""
        from whist_catalogue.store.search import coverage

        return coverage(self.complete_levels(), expression, level=level)

    def iter_search(self, expression: str | None = None, *, level: int | None = None, limit: int | None = None,
                    offset: int = 0, after: int | None = None,
                    progress: LevelProgress | None = None) -> Matches:
        """The matching deals in key order, streamed a chunk at a time (close it, or use ``with``, to release its
        connection): those past ``offset`` matches, or past the deal whose key is ``after`` (paging by key: the
        search starts at that deal's chunk).  The expression is parsed here, so a bad one raises before anything
        is read; ``progress(n, done, total)`` follows the levels searched."""
        from whist_catalogue.store.search import matches

        found = matches(self, expression, level=level, limit=limit, offset=offset, after=after,
                        progress=progress)
        self._streams.add(found)
        return found

    def search(self, expression: str | None = None, *, level: int | None = None, limit: int | None = None,
               offset: int = 0, after: int | None = None) -> list[DealRecord]:
        """The matching deals in key order (one page: ``offset`` or ``after``, ``limit``)."""
        with self.iter_search(expression, level=level, limit=limit, offset=offset, after=after) as found:
            return list(found)

    def level(self, n: int, columns: str | Sequence[str] | None = None, *, where: str | None = None,
              to: str = "numpy") -> Any:
        """Level n's deals in rank order as columns (docs/dataset.md): a dict of NumPy arrays, a pandas DataFrame
        (``to="pandas"``) or a ``pyarrow.Table`` (``to="arrow"``); ``columns``: names or groups of
        :data:`whist_catalogue.store.fields.COLUMNS`; ``where``: a search expression.  The whole level is held in
        memory: for the large levels use :meth:`level_batches`."""
        from whist_catalogue.store.dataset import read_level

        return read_level(self, n, columns, where=where, to=to)

    def level_batches(self, n: int, columns: str | Sequence[str] | None = None, *, where: str | None = None,
                      to: str = "numpy") -> Iterator[Any]:
        """:meth:`level` a chunk (≤ 2^20 deals) at a time, in bounded memory: any level, level 16 included."""
        from whist_catalogue.store.dataset import level_batches

        return level_batches(self, n, columns, where=where, to=to)

    # -- solved games ---------------------------------------------------------------------------
    def solved_games(self) -> list[tuple[str, dict[str, int]]]:
        """(name, parameters) of every stored solved game."""
        with database_errors(self.location), self.connect() as connection:
            rows = connection.execute(sa.select(SolvedGameRow.name, SolvedGameRow.parameters)
                                      .order_by(SolvedGameRow.name, SolvedGameRow.id)).all()
            return [(name, _json_object(params, f"solved game {name}")) for name, params in rows]

    def solved_game(self, name: str, **parameters: int) -> dict[str, Any] | None:
        """The stored solution (docs/spec.md §6 JSON) of a game, or None if it is not stored."""
        key = json.dumps(parameters, sort_keys=True, separators=(",", ":"))
        with database_errors(self.location), self.connect() as connection:
            row = connection.execute(
                sa.select(SolvedGameRow.solution, SolvedGameRow.checksum)
                .where(SolvedGameRow.name == name, SolvedGameRow.parameters == key)
            ).one_or_none()
            if row is None:
                return None
            what = f"solved game {name} {key}"
            if not isinstance(row.solution, str) or row.checksum != solved_game_checksum(name, key, row.solution):
                # What the build stored is checked before it is shown; verify solves the game again.
                raise MalformedContentError(f"{what}: its solution differs from the checksum recorded at build time")
            return _json_object(row.solution, what)


def _json_object(text: Any, what: str) -> dict[str, Any]:
    """A JSON object stored by ``build``; :class:`~whist_catalogue.errors.MalformedContentError` (reported as a
    corrupt catalogue) when it is not one."""
    if not isinstance(text, (str, bytes)):
        raise MalformedContentError(f"{what} is not text")
    try:
        obj = json.loads(text)
    except ValueError as exc:
        raise MalformedContentError(f"{what} is not valid JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise MalformedContentError(f"{what} is not a JSON object")
    return obj


def stored_or_solved(catalogue: Catalogue | None, name: str, **parameters: int) -> SolvedGame:
    """The solution the catalogue stored (``build`` stores both games), else the game solved now — for the
    command line's ``solve --db`` and the app's Solutions view alike.  A catalogue that cannot be read is an
    error, not a reason to solve quietly."""
    # Imported here: the games' module costs a look-up's start-up 10 ms, and only this function needs it.
    from whist_catalogue.games import solved_games

    stored = None if catalogue is None else catalogue.solved_game(name, **parameters)
    return solved_games.SolvedGame.from_json(stored) if stored is not None else solved_games.solve(name, **parameters)
