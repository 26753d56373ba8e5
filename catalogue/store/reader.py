"""Reading the catalogue: look-ups, search, statistics, solved games (python-chess ``Tablebase`` style).

:func:`open_catalogue` checks that the location holds a catalogue of the current
schema and returns a :class:`Catalogue`; nothing on disk changes, and a missing,
foreign, corrupt or newer database raises :class:`~whist_catalogue.errors.CatalogueError`.
Connections are made lazily, on the first query, and pooled.

A level is read from its ``deal`` rows when it has them (the low levels), else
from the level store (:mod:`whist_catalogue.store.levels`): the value from its
chunk, and everything else derived as the build would have stored it — the
outcome ρ(val), the best leads and replies from α, whose entries are level
n−1's values of the reductions D_ij (§7.2), and the single-suit paper's
quantities by its direct formulas.  Decoded chunks are cached (512 MB of codes),
so once a deal's chunks are in memory a look-up with best moves takes well
under a millisecond.

A :class:`Catalogue` is a :class:`~whist_catalogue.theory.solution.Solver`: ``solve(deal)``
returns the stored :class:`~whist_catalogue.theory.solution.SuitSolution`, or raises
:class:`NotInCatalogue` (a :class:`LookupError`) when the deal's level is not
complete, so that a caller can fall back to computing it
(:class:`whist_catalogue.store.solvers.ChainSolver`).  Raising look-ups come paired with
forgiving ones (``record`` / ``get_record``).
"""

from __future__ import annotations

import json
import os
import threading
import weakref
from itertools import compress
from math import comb
from dataclasses import dataclass
from functools import lru_cache
from datetime import datetime
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Generator, Iterator, Sequence

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from whist_catalogue.engine.chunks import CHUNK_DEALS, Chunk, ChunkError
from whist_catalogue.engine.codes import ValueTable
from whist_catalogue.constants import MAX_LEVEL_N, SCALE
from whist_catalogue.engine.encoding import decode_value
from whist_catalogue.errors import CatalogueDamagedError, CatalogueError, InvalidDealError
from whist_catalogue.store.database import (Location, MalformedContentError, database_errors, parse_location,
                                            reader_engine)
from whist_catalogue.store.levels import (ChunkCache, alpha_keys, checked_chunk, colex_ranks, move_masks_from_alpha,
                                          moves_width,
                                          reduction_masks, table_from_bytes)
from whist_catalogue.store.models import (DealRow, LevelChunkRow, LevelRow, SolvedGameRow,
                                          solved_game_checksum)
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.solution import SuitSolution, mask_positions
from whist_catalogue.theory.ranking import rank, unrank
from whist_catalogue.theory.values import Infinitesimal, Outcome, Value, rho

if TYPE_CHECKING:
    from whist_catalogue.engine.statistics import LevelStatistics

__all__ = [
    "open_catalogue",
    "Catalogue",
    "DealRecord",
    "LevelInfo",
    "SearchCoverage",
    "NotInCatalogue",
    "record_from_row",
    "check_row_types",
    "value_from_columns",
]


class NotInCatalogue(CatalogueError, LookupError):
    """The deal's level is not (completely) in the catalogue: compute it instead.

    A :class:`LookupError`, so that a solver chain moves on to the next solver, and
    a :class:`~whist_catalogue.errors.CatalogueError`, so that the command line reports
    it as one line when nothing can move on.
    """


# -- what a row means -------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _decoded(numerator: int, rank: int) -> Value:
    # A level holds a few hundred distinct values: a batch builds each Fraction once.
    return decode_value(numerator, rank)


def value_from_columns(number_scaled: int, inf_sign: int, stoppers: int) -> Value:
    """The value q + x of a row: q = number_scaled / 2^24; x = ε_k, −ε_k or 0 from sign and stoppers."""
    x = Infinitesimal() if inf_sign == 0 else Infinitesimal.epsilon(stoppers) if inf_sign > 0 else -Infinitesimal.epsilon(stoppers)
    return Value(Fraction(number_scaled, SCALE), x)


def _masks(blob: bytes) -> tuple[int, ...]:
    return tuple(int.from_bytes(blob[i : i + 2], "little") for i in range(0, len(blob), 2))


@dataclass(frozen=True, slots=True)
class DealRecord:
    """One row of the catalogue, as domain objects."""

    deal: Deal
    value: Value
    """val(D)."""
    outcome: Outcome
    """χ(D) = ρ(val(D))."""
    move_masks: tuple[int, ...]
    """Best leads and replies as position masks (:meth:`SuitSolution.move_masks`)."""
    h_lower: int
    """H̲ (single-suit paper, end of §5)."""
    h_upper: int
    """H̄."""
    h: int
    """H of Theorem 9.1."""
    greedy: Outcome
    """Greedy Whist outcome (Theorem 6.1)."""
    five_card: tuple[str, str]
    """Five-card winner with West on lead, with East on lead (Theorem 7.2)."""
    ace: str
    """Who holds the highest card."""
    flags: int
    """Counterexample bits, ``CHECK_NAMES`` order."""

    @property
    def key(self) -> int:
        return self.deal.key

    @property
    def n(self) -> int:
        return self.deal.n

    @property
    def label(self) -> str:
        return self.deal.label

    @property
    def solution(self) -> SuitSolution:
        return SuitSolution.from_move_masks(self.deal, self.value, self.move_masks)

    @property
    def counterexamples(self) -> tuple[str, ...]:
        """Names of the checks (``whist_catalogue.engine.levels.CHECK_NAMES``) this deal is a counterexample to."""
        from whist_catalogue.engine.levels import CHECK_NAMES  # Numba loads with the engine, not with a look-up

        return tuple(name for c, name in enumerate(CHECK_NAMES) if self.flags >> c & 1)

    def best_leads(self) -> dict[str, list[str]]:
        """Card numbers (docs/spec.md §2: card k is the k-th lowest) of every best lead, per side."""
        west, east = self.deal.west_cards, self.deal.east_cards
        return {
            "west": [str(c) for c in mask_positions(self.move_masks[0], west)],
            "east": [str(c) for c in mask_positions(self.move_masks[1], east)],
        }

    def best_replies(self) -> dict[str, dict[str, list[str]]]:
        """For each lead (card number), the other side's best replies."""
        n, west, east = self.n, self.deal.west_cards, self.deal.east_cards
        masks = self.move_masks
        return {
            "east": {str(w): [str(c) for c in mask_positions(masks[2 + i], east)] for i, w in enumerate(west)},
            "west": {str(e): [str(c) for c in mask_positions(masks[2 + n + j], west)] for j, e in enumerate(east)},
        }

    def to_json(self) -> dict[str, Any]:
        """One ``search --json`` line."""
        return {
            "key": self.key,
            "label": self.label,
            "n": self.n,
            "value": self.value.to_json(),
            "outcome": _outcome_json(self.outcome),
            "best_leads": self.best_leads(),
            "h_lower": self.h_lower,
            "h_upper": self.h_upper,
            "h": self.h,
            "greedy": _outcome_json(self.greedy),
            "five_card": {"west_leads": self.five_card[0], "east_leads": self.five_card[1]},
            "ace": self.ace,
            "counterexamples": list(self.counterexamples),
        }


def _outcome_json(o: Outcome) -> dict[str, int]:
    return {"west_leads": int(o.west_leads), "east_leads": int(o.east_leads)}


_INTEGER_COLUMNS = ("key", "number_scaled", "inf_sign", "stoppers", "west_leads", "east_leads", "h_lower",
                    "h_upper", "h", "greedy_west_leads", "greedy_east_leads", "flags")


def check_row_types(row: DealRow | Any) -> None:
    """:class:`~whist_catalogue.store.database.MalformedContentError` (reported as a corrupt catalogue) for a cell
    this software would not have written: a type, a moves blob of the wrong length, a player that is not W or E."""
    for name in _INTEGER_COLUMNS:
        if type(getattr(row, name)) is not int:
            raise MalformedContentError(f"deal key {row.key!r}: column {name} holds"
                                        f" {type(getattr(row, name)).__name__}, not an integer")
    if type(row.moves) is not bytes:
        raise MalformedContentError(f"deal key {row.key}: moves hold {type(row.moves).__name__}, not bytes")
    n = (row.key.bit_length() - 1) // 2  # the key's sentinel bit is 2n
    if len(row.moves) != moves_width(n) * (2 + 2 * n):
        raise MalformedContentError(
            f"deal key {row.key}: moves hold {len(row.moves)} bytes, not {moves_width(n) * (2 + 2 * n)}")
    for name in ("five_card_west_leads", "five_card_east_leads", "ace"):
        if getattr(row, name) not in ("W", "E"):
            raise MalformedContentError(f"deal key {row.key}: column {name} holds {getattr(row, name)!r},"
                                        " not W or E")


def record_from_row(row: DealRow | Any) -> DealRecord:
    """A :class:`DealRecord` from a ``deal`` row (ORM object or a Core row with the same names)."""
    check_row_types(row)
    return DealRecord(
        deal=Deal.from_key(row.key),
        value=value_from_columns(row.number_scaled, row.inf_sign, row.stoppers),
        outcome=Outcome(row.west_leads, row.east_leads),
        move_masks=_masks(row.moves),
        h_lower=row.h_lower,
        h_upper=row.h_upper,
        h=row.h,
        greedy=Outcome(row.greedy_west_leads, row.greedy_east_leads),
        five_card=(row.five_card_west_leads, row.five_card_east_leads),
        ace=row.ace,
        flags=row.flags,
    )


@dataclass(frozen=True, slots=True)
class SearchCoverage:
    """The levels a search covered, and those it asks for that the catalogue lacks."""

    searched: list[int]
    missing: list[int]
    impossible: bool = False
    """No deal of any level can match (``value = 1/3``: no single-suit value is 1/3)."""

    def describe(self) -> str:
        """One line for a person: which levels were searched, and which are missing."""
        from whist_catalogue.store.levels import level_ranges

        if self.impossible:
            return "0 matched: no deal of any level can match this search"
        text = f"searched levels {level_ranges(self.searched)}" if self.searched else "searched no level"
        if self.missing:
            text += (f"; level{'s' if len(self.missing) > 1 else ''} {level_ranges(self.missing)}"
                     f" {'are' if len(self.missing) > 1 else 'is'} not in the catalogue"
                     f" (whist-catalogue build --max-n {max(self.missing)} adds"
                     f" {'them' if len(self.missing) > 1 else 'it'})")
        return text

    def to_json(self) -> dict[str, list[int]]:
        return {"levels": self.searched, "missing_levels": self.missing}


@dataclass(frozen=True, slots=True)
class LevelInfo:
    """The ``level`` row of one n."""

    n: int
    complete: bool
    row_count: int
    checksum: str | None
    software_version: str | None
    built_at: datetime | None
    build_seconds: float | None
    storage: str | None = None
    """``rows`` (a ``deal`` row per deal, and chunks), ``chunks`` (chunks only), None (rows, built before the
    level store)."""
    stored_bytes: int | None = None
    """Bytes of the level's chunks."""
    chunk_deals: int | None = None

    @property
    def has_rows(self) -> bool:
        return self.storage != "chunks"

    def to_json(self) -> dict[str, Any]:
        return {
            "storage": self.storage,
            "stored_bytes": self.stored_bytes,
            "n": self.n,
            "complete": self.complete,
            "row_count": self.row_count,
            "checksum": self.checksum,
            "software_version": self.software_version,
            "built_at": self.built_at.isoformat() if self.built_at else None,
            "build_seconds": self.build_seconds,
        }


LevelProgressCallback = Callable[[int, int, int], None]
"""progress(n, done, total): deals of level n searched so far."""


def _check_level_info(info: LevelInfo) -> None:
    """A ``level`` row this software could have written (else the catalogue is corrupt:
    :class:`~whist_catalogue.store.database.MalformedContentError`, reported by
    :func:`~whist_catalogue.store.database.database_errors`)."""
    if isinstance(info.n, bool) or not isinstance(info.n, int) or not 1 <= info.n <= MAX_LEVEL_N:
        raise MalformedContentError(f"the level table names level n = {info.n!r} (levels are 1…{MAX_LEVEL_N})")
    if not isinstance(info.row_count, int) or info.row_count < 0:
        raise MalformedContentError(f"level {info.n} records {info.row_count!r} rows")
    if info.complete not in (True, False):
        raise MalformedContentError(f"level {info.n} records complete = {info.complete!r}")
    if info.storage not in (None, "rows", "chunks"):
        raise MalformedContentError(f"level {info.n} records a storage of no known kind: {str(info.storage)[:20]!r}")
    if info.chunk_deals is not None and (type(info.chunk_deals) is not int or info.chunk_deals < 1):
        raise MalformedContentError(f"level {info.n} records {str(info.chunk_deals)[:20]!r} deals a chunk")
    for name in ("checksum", "software_version"):
        if getattr(info, name) is not None and not isinstance(getattr(info, name), str):
            raise MalformedContentError(f"level {info.n} records a {name} of the wrong type")


# -- the catalogue ----------------------------------------------------------------------------


def open_catalogue(location: str | os.PathLike[str] | None = None) -> Catalogue:
    """Open the catalogue at ``location`` (a path or SQLAlchemy URL; default: the settings' catalogue) for reading."""
    from whist_catalogue.store.settings import database_location

    loc = parse_location(database_location(location))
    return Catalogue(loc, reader_engine(loc))


class Catalogue:
    """Read access to a catalogue (use :func:`open_catalogue`).

    Thread safety: one instance may be shared by threads.  Each call takes its
    own connection from the engine's pool and returns it before it returns; the
    iterators of :meth:`iter_search` hold a connection until exhausted or closed
    and belong to the thread that made them.  A build may run at the same time
    (SQLite WAL): every call sees the levels committed when it started.

    Usable as a context manager; :meth:`close` releases the connections.
    """

    def __init__(self, location: Location, engine: Engine) -> None:
        self.location = location
        self._engine = engine
        self._complete: frozenset[int] = frozenset()
        self._info: dict[int, LevelInfo] = {}
        self._lock = threading.Lock()
        self.chunks = ChunkCache(self._load_chunk)
        self._streams: weakref.WeakSet = weakref.WeakSet()

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

    def _session(self) -> Session:
        return Session(self._engine)

    def connect(self) -> sa.Connection:
        """A Core connection of the pool (a context manager)."""
        return self._engine.connect()

    # -- the level store --------------------------------------------------------------------------
    def _load_chunk(self, n: int, index: int) -> Chunk:
        """Chunk ``index`` of level n, checked once as it enters the cache (:func:`~whist_catalogue.store.levels.
        checked_chunk`: its SHA-256, and its header against its place) — a chunk damaged, swapped or from another
        level is named here instead of being served as an answer."""
        chunk_deals = self._chunk_deals(n)
        chunks = LevelChunkRow.__table__
        with database_errors(self.location), self._engine.connect() as connection:
            row = connection.execute(
                sa.select(chunks.c.data, chunks.c.checksum, chunks.c.start, chunks.c.stop)
                .where(chunks.c.n == n, chunks.c.chunk == index)
            ).one_or_none()
        if row is None:
            raise CatalogueDamagedError(f"catalogue {self.location} is damaged: level {n} is marked complete"
                                        f" but its chunk {index} is missing (run whist-catalogue verify)")
        try:
            return checked_chunk(n, index, chunk_deals, row.data, row.checksum, row.start, row.stop)
        except ChunkError as exc:
            raise CatalogueDamagedError(f"catalogue {self.location} is damaged: level {n} chunk {index}: {exc}"
                                        " (run whist-catalogue verify)") from None

    def _chunk_deals(self, n: int) -> int:
        info = self.level_info(n)
        if info is None or not info.complete or info.storage is None:
            raise NotInCatalogue(f"level n = {n} is not in the level store of catalogue {self.location}")
        return info.chunk_deals or CHUNK_DEALS

    def _chunk_code(self, n: int, r: int) -> tuple[Chunk, int]:
        """The chunk holding rank r of level n, and r's place in it (its header was checked on loading, so the
        place lies inside it)."""
        chunk = self.chunks.get(n, r // self._chunk_deals(n))
        return chunk, r - chunk.start

    def values_at(self, n: int, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(numerator, infinitesimal) engine arrays of the deals of level n with these ranks, from the chunks."""
        if n == 0:
            return np.zeros(ranks.shape, np.int32), np.zeros(ranks.shape, np.int8)
        size = self._chunk_deals(n)
        indexes = ranks // size
        first, last = int(indexes.min()), int(indexes.max())
        if first == last:  # one chunk: the common case below n = 14
            chunk, _ = self._chunk_code(n, first * size)
            codes = chunk.codes[ranks - chunk.start]
            return chunk.table.numerator[codes], chunk.table.infinitesimal[codes]
        numerator = np.empty(ranks.shape, np.int32)
        infinitesimal = np.empty(ranks.shape, np.int8)
        for index in np.unique(indexes).tolist():
            chunk, _ = self._chunk_code(n, index * size)
            where = indexes == index
            codes = chunk.codes[ranks[where] - chunk.start]
            numerator[where] = chunk.table.numerator[codes]
            infinitesimal[where] = chunk.table.infinitesimal[codes]
        return numerator, infinitesimal

    def chunk_value(self, deal: Deal) -> Value:
        """val(D) as its level's chunk holds it (whatever other form the level has)."""
        if deal.n == 0:
            return Value(0)
        chunk, i = self._chunk_code(deal.n, rank(deal.west))
        code = chunk.codes[i]
        return decode_value(int(chunk.table.numerator[code]), int(chunk.table.infinitesimal[code]))

    def _alpha(self, deal: Deal) -> tuple[Value, np.ndarray, Chunk, int]:
        """(value, α as labeled-value keys, its chunk, its place there) of a deal of a chunk-only level: the
        value from its chunk, α_ij from level n−1's values of the reductions D_ij (§7.2)."""
        n = deal.n
        chunk, i = self._chunk_code(n, rank(deal.west))
        code = chunk.codes[i]
        value = _decoded(int(chunk.table.numerator[code]), int(chunk.table.infinitesimal[code]))
        return value, self._alphas(n, np.array(deal.west, np.int64)), chunk, i

    def _alphas(self, n: int, wests: np.ndarray) -> np.ndarray:
        """α of deals of level n by West's masks (any shape, each deal gaining an n × n matrix)."""
        if n > 1:
            below = self.level_info(n - 1)
            if below is None or not below.complete or below.storage is None:
                # A complete level is built from the one below; without it the best moves cannot be derived.
                raise CatalogueDamagedError(
                    f"catalogue {self.location} is damaged: level {n} is complete but level {n - 1}, from whose"
                    " values its best moves are derived, is not in its level store (run whist-catalogue verify)")
        west_cards, east_cards, reductions = reduction_masks(n, wests)
        numerator, infinitesimal = self.values_at(n - 1, colex_ranks(reductions, 2 * n - 2))
        return alpha_keys(west_cards, east_cards, numerator, infinitesimal)

    def _derived(self, deal: Deal) -> tuple[Value, tuple[int, ...], int]:
        """(value, best-move masks, check bits) of a deal of a chunk-only level."""
        value, alpha, chunk, i = self._alpha(deal)
        return value, move_masks_from_alpha(alpha), int(chunk.flags[i])

    def derived_solution(self, deal: Deal) -> SuitSolution:
        """Value and optimal moves (docs/spec.md §3) of a deal of a chunk-only level, read off α as
        :func:`whist_catalogue.theory.solution.solution_from_labeled` does, without the check bits or the
        single-suit quantities."""
        return self.derived_solutions(deal.n, [deal])[0]

    def derived_solutions(self, n: int, deals: Sequence[Deal]) -> list[SuitSolution]:
        """:meth:`derived_solution` of deals of the chunk-only level n, in whole-array steps: a batch pays
        NumPy's call overhead once, not once a deal."""
        wests = np.fromiter((d.west for d in deals), np.int64, len(deals))
        numerator, infinitesimal = self.values_at(n, colex_ranks(wests, 2 * n))
        alpha = self._alphas(n, wests)
        row_min = alpha.min(axis=2)
        col_max = alpha.max(axis=1)
        west_leads = (row_min == row_min.max(axis=1)[:, None]).tolist()
        east_leads = (col_max == col_max.min(axis=1)[:, None]).tolist()
        east_replies = (alpha == row_min[:, :, None]).tolist()
        west_replies = (alpha == col_max[:, None, :]).transpose(0, 2, 1).tolist()
        solutions = []
        for k, (deal, num, inf) in enumerate(zip(deals, numerator.tolist(), infinitesimal.tolist())):
            west, east = deal.west_cards, deal.east_cards
            solutions.append(SuitSolution(
                deal=deal,
                value=_decoded(num, inf),
                west_leads=tuple(compress(west, west_leads[k])),
                east_leads=tuple(compress(east, east_leads[k])),
                east_replies=tuple(tuple(compress(east, row)) for row in east_replies[k]),
                west_replies=tuple(tuple(compress(west, col)) for col in west_replies[k]),
            ))
        return solutions

    def derived_record(self, deal: Deal) -> DealRecord:
        """The deal's record from the level store: the value from its chunk, the rest derived (module docstring)."""
        from whist_catalogue.single_suit.formulas import quantities

        if deal.ace_holder is None:
            raise InvalidDealError("the empty deal has no record")
        value, move_masks, flags = self._derived(deal)
        q = quantities(deal)
        return DealRecord(
            deal=deal,
            value=value,
            outcome=rho(value),
            move_masks=move_masks,
            h_lower=q.h_lower,
            h_upper=q.h_upper,
            h=q.h,
            greedy=q.greedy_whist_outcome,
            five_card=(q.five_card_west_leads, q.five_card_east_leads),
            ace=deal.ace_holder,
            flags=flags,
        )

    # -- levels ---------------------------------------------------------------------------------
    def levels(self) -> list[LevelInfo]:
        """Every ``level`` row, by n."""
        with database_errors(self.location), self._session() as session:
            t = LevelRow.__table__.c
            try:
                rows = session.execute(
                    sa.select(t.n, t.complete, t.row_count, t.checksum, t.software_version, t.built_at,
                              t.build_seconds, t.storage, t.stored_bytes, t.chunk_deals).order_by(t.n)
                ).all()
            except (ValueError, TypeError, OverflowError) as exc:
                # Raised by SQLAlchemy's result processors (a date that does not parse, text in a number column):
                # the level table holds what no build wrote.
                raise MalformedContentError(f"the level table holds a cell no build wrote ({exc})") from None
            infos = [LevelInfo(*r) for r in rows]
            for info in infos:
                _check_level_info(info)
        with self._lock:
            self._complete = frozenset(i.n for i in infos if i.complete)
            self._info = {i.n: i for i in infos}
        return infos

    def level_info(self, n: int) -> LevelInfo | None:
        """The ``level`` row of n (None if there is none)."""
        if n not in self._info or not self._info[n].complete:
            self.levels()
        return self._info.get(n)

    def complete_levels(self) -> frozenset[int]:
        self.levels()
        return self._complete

    @property
    def max_n(self) -> int:
        """The largest n such that every level 1…n is complete (0 if none)."""
        complete = self.complete_levels()
        n = 0
        while n + 1 in complete:
            n += 1
        return n

    def _is_complete(self, n: int) -> bool:
        if n in self._complete:
            return True
        return n in self.complete_levels()  # a build may have completed it since

    # -- look-ups -------------------------------------------------------------------------------
    def get_record(self, deal: Deal, default: DealRecord | None = None) -> DealRecord | None:
        """The deal's row, or ``default`` when its level is not complete."""
        try:
            return self.record(deal)
        except NotInCatalogue:
            return default

    def record(self, deal: Deal) -> DealRecord:
        """The deal's row; :class:`NotInCatalogue` when its level is not complete."""
        if deal.n == 0 or not self._is_complete(deal.n):
            raise NotInCatalogue(f"deal {deal.label or '(empty)'}: level n = {deal.n} is not in catalogue {self.location}")
        if not self._info[deal.n].has_rows:
            return self.derived_record(deal)
        with database_errors(self.location), self._session() as session:
            row = session.get(DealRow, deal.key)
            if row is None:
                raise CatalogueDamagedError(f"catalogue {self.location} is damaged: level {deal.n} is marked"
                                            f" complete but deal {deal.label} is missing (run whist-catalogue verify)")
            return record_from_row(row)

    def solve(self, deal: Deal) -> SuitSolution:
        """Value and optimal moves (docs/spec.md §3); :class:`NotInCatalogue` when the level is not complete."""
        if deal.n and self._is_complete(deal.n) and not self._info[deal.n].has_rows:
            return self.derived_solution(deal)
        return self.record(deal).solution

    def value(self, deal: Deal) -> Value:
        if deal.n and self._is_complete(deal.n) and not self._info[deal.n].has_rows:
            return self.chunk_value(deal)
        return self.record(deal).value

    def solve_many(self, deals: Sequence[Deal]) -> list[SuitSolution | None]:
        """:meth:`solve` of each deal, None where its level is not complete; the deals of each chunk-only level
        derived together (:meth:`derived_solutions`)."""
        found: list[SuitSolution | None] = [None] * len(deals)
        by_level: dict[int, list[int]] = {}
        for i, deal in enumerate(deals):
            if deal.n and self._is_complete(deal.n) and not self._info[deal.n].has_rows:
                by_level.setdefault(deal.n, []).append(i)
            else:
                try:
                    found[i] = self.solve(deal)
                except NotInCatalogue:
                    pass
        for n, places in by_level.items():
            for i, solution in zip(places, self.derived_solutions(n, [deals[i] for i in places])):
                found[i] = solution
        return found

    def records(self, deals: Sequence[Deal]) -> list[DealRecord]:
        """Several deals in one query (e.g. the suits of a multi-suit deal)."""
        for deal in deals:
            if deal.n == 0 or not self._is_complete(deal.n):
                raise NotInCatalogue(f"deal {deal.label or '(empty)'}: level n = {deal.n} is not in the catalogue")
        derived = {d.key: self.derived_record(d) for d in deals if not self._info[d.n].has_rows}
        keys = sorted({d.key for d in deals if d.key not in derived})
        rows: dict[int, Any] = {}
        if keys:
            with database_errors(self.location), self._session() as session:
                rows = {r.key: r for r in session.execute(sa.select(DealRow).where(DealRow.key.in_(keys))).scalars()}
        missing = [d.label for d in deals if d.key not in rows and d.key not in derived]
        if missing:
            raise CatalogueDamagedError(f"catalogue {self.location} is damaged: deals {missing} are missing")
        return [derived[d.key] if d.key in derived else record_from_row(rows[d.key]) for d in deals]

    # -- search ---------------------------------------------------------------------------------
    # Row levels are searched by SQL; levels held only as chunks by the same condition evaluated over
    # their chunks (:class:`whist_catalogue.store.search.ChunkQuery`).  Row levels lie below chunk-only
    # levels, so "rows, then chunk levels by n, each in rank order" is key order.

    def _chunk_only_levels(self, query: Any) -> list[int]:
        self.levels()
        asked = set(query.asked())
        return sorted(n for n, i in self._info.items() if i.complete and i.storage == "chunks" and n in asked)

    def level_values(self, n: int) -> tuple[np.ndarray, Any]:
        """(codes, value table) of every deal of level n by rank: the level as the engine holds it
        (:class:`whist_catalogue.engine.levels.Level`), read from its chunks."""
        from whist_catalogue.store.levels import read_level_values

        with database_errors(self.location), self._engine.connect() as connection:
            try:
                codes, table, _ = read_level_values(connection, n)
            except ChunkError as exc:
                raise CatalogueDamagedError(f"catalogue {self.location} is damaged: {exc}"
                                            " (run whist-catalogue verify)") from None
        return codes, table

    def level_table(self, n: int) -> tuple[ValueTable, np.ndarray]:
        """Level n's distinct values (V's order) and how many deals have each, as stored at build time."""
        levels = LevelRow.__table__
        with database_errors(self.location), self._engine.connect() as connection:
            row = connection.execute(sa.select(levels.c.value_table, levels.c.statistics)
                                     .where(levels.c.n == n)).one_or_none()
        if row is None or row.value_table is None:
            raise NotInCatalogue(f"level n = {n} is not in the level store of catalogue {self.location}")
        with database_errors(self.location):  # malformed contents: the catalogue is reported corrupt
            table = table_from_bytes(row.value_table)
            statistics = _json_object(row.statistics, f"level {n}'s statistics")
            try:
                counts = np.array(statistics["counts"], np.int64)
            except (KeyError, TypeError, ValueError, OverflowError):
                counts = None
            if counts is None or counts.shape != (len(table),):
                raise MalformedContentError(f"level {n}'s statistics do not match its value table")
        return table, counts

    def scan_chunks(self, n: int) -> Iterator[Chunk]:
        """Level n's chunks in rank order, decoded and checked one at a time (:func:`~whist_catalogue.store.levels.
        checked_chunk`; bounded memory; the look-up cache is left alone)."""
        chunk_deals = self._chunk_deals(n)
        chunks = LevelChunkRow.__table__
        statement = (sa.select(chunks.c.chunk, chunks.c.data, chunks.c.checksum, chunks.c.start, chunks.c.stop)
                     .where(chunks.c.n == n).order_by(chunks.c.chunk))
        expected = 0
        with database_errors(self.location), self._engine.connect() as connection:
            for index, data, checksum, start, stop in connection.execution_options(yield_per=1).execute(statement):
                try:
                    if index != expected:
                        raise ChunkError(f"found where chunk {expected} belongs")
                    yield checked_chunk(n, index, chunk_deals, data, checksum, start, stop)
                except ChunkError as exc:
                    raise CatalogueDamagedError(f"catalogue {self.location} is damaged: level {n} chunk {index}:"
                                                f" {exc} (run whist-catalogue verify)") from None
                expected += 1
        if expected * chunk_deals < comb(2 * n, n):
            raise CatalogueDamagedError(f"catalogue {self.location} is damaged: level {n} is marked complete but"
                                        f" its chunk {expected} is missing (run whist-catalogue verify)")

    def level(self, n: int, columns: str | Sequence[str] | None = None, *, where: str | None = None,
              to: str = "numpy") -> Any:
        """Level n's deals in rank order as columns (docs/dataset.md): a dict of NumPy arrays, a pandas DataFrame
        (``to="pandas"``) or a ``pyarrow.Table`` (``to="arrow"``).  ``columns``: names or groups of
        :data:`whist_catalogue.store.columns.COLUMNS` (default: key, label, the value, the outcome, H, Greedy
        Whist, Five-card, the ace); ``where``: a search expression (docs/search.md).  The whole level is held in
        memory: for the large levels use :meth:`level_batches`."""
        from whist_catalogue.store.dataset import read_level

        return read_level(self, n, columns, where=where, to=to)  # pyright: ignore[reportArgumentType]  # the checker sees this file and its installed link as two modules (docs/architecture.md)

    def level_batches(self, n: int, columns: str | Sequence[str] | None = None, *, where: str | None = None,
                      to: str = "numpy") -> Iterator[Any]:
        """:meth:`level` a chunk (≤ 2^20 deals) at a time, in bounded memory: any level, level 16 included."""
        from whist_catalogue.store.dataset import level_batches

        return level_batches(self, n, columns, where=where, to=to)  # pyright: ignore[reportArgumentType]  # the checker sees this file and its installed link as two modules (docs/architecture.md)

    def _count_chunk_level(self, query: Any, n: int, progress: LevelProgressCallback | None = None) -> int:
        if not query.per_deal:
            table, counts = self.level_table(n)
            return int(counts[query.on_table(n, table.numerator, table.infinitesimal)].sum())
        total, done, found = comb(2 * n, n), 0, 0
        if progress is not None:
            progress(n, 0, total)
        for chunk in self.scan_chunks(n):
            found += int(np.count_nonzero(query.on_chunk(chunk)))
            done += chunk.stop - chunk.start
            if progress is not None:
                progress(n, done, total)
        return found

    def count(self, expression: str | None = None, *, level: int | None = None,
              progress: LevelProgressCallback | None = None) -> int:
        """How many deals match a search expression (:mod:`whist_catalogue.store.search`) and/or lie in a level,
        over every complete level (:meth:`coverage` says which).

        ``progress(n, done, total)`` follows a level held as chunks whose deals are searched one chunk at a time
        (a condition on the value alone is decided from the level's stored counts at once, with no progress).
        """
        from whist_catalogue.store.search import ChunkQuery

        query = ChunkQuery(expression, level=level)
        with database_errors(self.location), self._session() as session:
            total = session.execute(sa.select(sa.func.count()).select_from(DealRow).where(query.sql)).scalar_one()
        return total + sum(self._count_chunk_level(query, n, progress) for n in self._chunk_only_levels(query))

    def coverage(self, expression: str | None = None, *, level: int | None = None) -> SearchCoverage:
        """Which levels a search covers, and which of those it asks for the catalogue lacks."""
        from whist_catalogue.store.search import ChunkQuery

        asked = ChunkQuery(expression, level=level).asked()
        complete = self.complete_levels()
        searched = [n for n in asked if n in complete]
        # A search that does not restrict n asks for every level; only a bounded one can miss some.
        bounded = len(asked) < MAX_LEVEL_N
        top = max(complete, default=0)
        missing = [n for n in asked if n not in complete and (bounded or n <= top)]
        return SearchCoverage(searched, missing, impossible=not asked)

    def search(self, expression: str | None = None, *, level: int | None = None, limit: int | None = None,
               offset: int = 0) -> list[DealRecord]:
        """The matching deals in key order (one page: ``offset``, ``limit``)."""
        with self.iter_search(expression, level=level, limit=limit, offset=offset) as rows:
            return list(rows)

    def iter_search(self, expression: str | None = None, *, level: int | None = None, limit: int | None = None,
                    offset: int = 0, progress: LevelProgressCallback | None = None) -> _RecordStream:
        """The matching deals in key order, streamed (constant memory); a context manager and an iterator.

        The expression is parsed here, so a bad one raises before anything is read.  A level held as chunks
        is searched a chunk at a time, and each chunk's matches are yielded as soon as it is done;
        ``progress(n, done, total)`` follows those levels.
        """
        from whist_catalogue.store.search import ChunkQuery

        query = ChunkQuery(expression, level=level)
        statement = sa.select(DealRow).where(query.sql).order_by(DealRow.key)
        if offset:
            statement = statement.offset(offset)
        if limit is not None:
            statement = statement.limit(limit)

        def tail(emitted: int) -> Iterator[DealRecord]:
            """The matches on chunk-only levels, after ``emitted`` rows from SQL."""
            remaining = None if limit is None else limit - emitted
            if remaining == 0:
                return
            skip = 0
            if offset and not emitted:  # the offset may reach past every row match
                with database_errors(self.location), self._session() as session:
                    rows = session.execute(sa.select(sa.func.count()).select_from(DealRow)
                                           .where(query.sql)).scalar_one()
                skip = max(0, offset - rows)
            for n in self._chunk_only_levels(query):
                total = comb(2 * n, n)
                for chunk in self.scan_chunks(n):
                    matches = np.flatnonzero(query.on_chunk(chunk))
                    if progress is not None:
                        progress(n, chunk.stop, total)
                    if skip >= len(matches):
                        skip -= len(matches)
                        continue
                    matches, skip = matches[skip:], 0
                    for i in matches.tolist():
                        yield self.derived_record(Deal(n, unrank(n, chunk.start + i)))
                        if remaining is not None:
                            remaining -= 1
                            if remaining == 0:
                                return

        return _RecordStream(self, statement, tail=tail)

    def stream_deals(self, statement: sa.Select, expression: str | None = None, *, level: int | None = None,
                     limit: int | None = None) -> Generator[Any, None, None]:
        """The Core rows of ``select(*deal columns)`` (``statement``, the condition of ``expression`` and
        ``level``), then those of chunk-only levels as rows with the same attributes, derived deal by deal
        (export): key order, constant memory, at most ``limit``."""
        from whist_catalogue.store.search import ChunkQuery

        query = ChunkQuery(expression, level=level)
        emitted = 0
        for row in self.stream(statement):
            emitted += 1
            yield row
        for n in self._chunk_only_levels(query):
            for chunk in self.scan_chunks(n):
                for i in np.flatnonzero(query.on_chunk(chunk)).tolist():
                    if limit is not None and emitted >= limit:
                        return
                    emitted += 1
                    yield _deal_row(self.derived_record(Deal(n, unrank(n, chunk.start + i))))

    def stream(self, statement: sa.Select, batch: int = 10_000) -> Iterator[sa.Row]:
        """Stream the Core rows of any select, in batches (constant memory)."""
        rows = self._stream(statement, batch)
        self._streams.add(rows)
        return rows

    def _stream(self, statement: sa.Select, batch: int) -> Iterator[sa.Row]:
        for chunk in self._chunks(statement, batch):
            yield from chunk

    def stream_chunks(self, statement: sa.Select, batch: int = 65_536) -> Iterator[Sequence[sa.Row]]:
        """Stream the Core rows of any select as lists of up to ``batch`` rows (for numpy: no per-row call)."""
        chunks = self._chunks(statement, batch)
        self._streams.add(chunks)
        return chunks

    def _chunks(self, statement: sa.Select, batch: int) -> Iterator[Sequence[sa.Row]]:
        with database_errors(self.location), self._engine.connect() as conn:
            result = conn.execution_options(yield_per=batch).execute(statement)
            for part in result.partitions(batch):
                yield part

    # -- statistics -----------------------------------------------------------------------------
    def value_counts(self, n: int) -> dict[Value, int]:
        """How many deals of level n have each value: as counted at build time, or read from the rows of a
        level built before the level store."""
        info = self.level_info(n)
        if info is not None and info.storage is not None:
            table, counts = self.level_table(n)
            return {decode_value(int(a), int(b)): int(c)
                    for a, b, c in zip(table.numerator, table.infinitesimal, counts)}
        statement = (
            sa.select(DealRow.number_scaled, DealRow.inf_sign, DealRow.stoppers, sa.func.count())
            .where(DealRow.in_level(n))
            .group_by(DealRow.number_scaled, DealRow.inf_sign, DealRow.stoppers)
        )
        with database_errors(self.location), self._session() as session:
            return {value_from_columns(q, s, k): c for q, s, k, c in session.execute(statement)}

    def statistics(self, n: int) -> "LevelStatistics":
        """The statistics of docs/spec.md §4 for a complete level (the same object ``scan`` builds)."""
        if not self._is_complete(n):
            raise NotInCatalogue(f"level n = {n} is not complete in catalogue {self.location}")
        from whist_catalogue.engine.statistics import LevelStatistics  # Numba, only for statistics

        return LevelStatistics(n, self.value_counts(n))

    # -- solved games ---------------------------------------------------------------------------
    def solved_games(self) -> list[tuple[str, dict[str, int]]]:
        """(name, parameters) of every stored solved game."""
        with database_errors(self.location), self._session() as session:
            rows = session.execute(sa.select(SolvedGameRow.name, SolvedGameRow.parameters)
                                   .order_by(SolvedGameRow.name, SolvedGameRow.id)).all()
            return [(name, _json_object(params, f"solved game {name}")) for name, params in rows]

    def solved_game(self, name: str, **parameters: int) -> dict[str, Any] | None:
        """The stored solution (docs/spec.md §6 JSON) of a game, or None if it is not stored."""
        key = json.dumps(parameters, sort_keys=True, separators=(",", ":"))
        with database_errors(self.location), self._session() as session:
            row = session.execute(
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
    """A JSON object stored by ``build``; :class:`~whist_catalogue.store.database.MalformedContentError`
    (reported as a corrupt catalogue) when it is not one."""
    if not isinstance(text, (str, bytes)):
        raise MalformedContentError(f"{what} is not text")
    try:
        obj = json.loads(text)
    except ValueError as exc:
        raise MalformedContentError(f"{what} is not valid JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise MalformedContentError(f"{what} is not a JSON object")
    return obj


def _deal_row(record: DealRecord) -> Any:
    """A derived record as a row with the ``deal`` table's column names (what export formats)."""
    from types import SimpleNamespace

    v = record.value
    x = v.infinitesimal
    return SimpleNamespace(
        key=record.key, n=record.n, number_scaled=int(v.number * SCALE), inf_sign=x.sign, stoppers=abs(x.index),
        west_leads=int(record.outcome.west_leads), east_leads=int(record.outcome.east_leads),
        moves=b"".join(int(m).to_bytes(moves_width(record.n), "little") for m in record.move_masks),
        h_lower=record.h_lower,
        h_upper=record.h_upper, h=record.h, greedy_west_leads=int(record.greedy.west_leads),
        greedy_east_leads=int(record.greedy.east_leads), five_card_west_leads=record.five_card[0],
        five_card_east_leads=record.five_card[1], ace=record.ace, flags=record.flags,
    )


class _RecordStream:
    """Records of a select, fetched in batches, then those of ``tail``; close it (or use ``with``) to release
    the connection."""

    def __init__(self, catalogue: Catalogue, statement: sa.Select, batch: int = 2_000,
                 tail: Callable[[int], Iterator[DealRecord]] | None = None) -> None:
        self._catalogue = catalogue
        self._statement = statement
        self._batch = batch
        self._tail = tail
        self._iterator: Iterator[DealRecord] | None = None

    def _generate(self) -> Iterator[DealRecord]:
        emitted = 0
        with database_errors(self._catalogue.location), self._catalogue._session() as session:
            result = session.execute(self._statement, execution_options={"yield_per": self._batch})
            for row in result.scalars():
                emitted += 1
                yield record_from_row(row)
        if self._tail is not None:
            yield from self._tail(emitted)

    def __iter__(self) -> Iterator[DealRecord]:
        if self._iterator is None:
            self._iterator = self._generate()
            self._catalogue._streams.add(self._iterator)
        return self._iterator

    def __next__(self) -> DealRecord:
        return next(iter(self))

    def close(self) -> None:
        if self._iterator is not None:
            self._iterator.close()  # type: ignore[attr-defined]

    def __enter__(self) -> _RecordStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
