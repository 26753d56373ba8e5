"""Reading the catalogue: look-ups, search, statistics, solved games (python-chess ``Tablebase`` style).

:func:`open_catalogue` checks that the location holds a catalogue of the current
schema and returns a :class:`Catalogue`; nothing on disk changes, and a missing,
foreign, corrupt or newer database raises :class:`~whist_catalogue.errors.CatalogueError`.
Connections are made lazily, on the first query, and pooled.

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
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Iterator, Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from whist_catalogue.engine.encoding import SCALE
from whist_catalogue.errors import CatalogueError
from whist_catalogue.store.database import Location, database_errors, parse_location, reader_engine
from whist_catalogue.store.models import DealRow, LevelRow, SolvedGameRow
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.solution import SuitSolution, mask_positions
from whist_catalogue.theory.values import Infinitesimal, Outcome, Value

if TYPE_CHECKING:
    from whist_catalogue.engine.statistics import LevelStatistics

__all__ = [
    "open_catalogue",
    "Catalogue",
    "DealRecord",
    "LevelInfo",
    "NotInCatalogue",
    "record_from_row",
    "value_from_columns",
]


class NotInCatalogue(CatalogueError, LookupError):
    """The deal's level is not (completely) in the catalogue: compute it instead.

    A :class:`LookupError`, so that a solver chain moves on to the next solver, and
    a :class:`~whist_catalogue.errors.CatalogueError`, so that the command line reports
    it as one line when nothing can move on.
    """


# -- what a row means -------------------------------------------------------------------------


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
        """Card numbers (SPEC §2: card k is the k-th lowest) of every best lead, per side."""
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


def record_from_row(row: DealRow | Any) -> DealRecord:
    """A :class:`DealRecord` from a ``deal`` row (ORM object or a Core row with the same names)."""
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
class LevelInfo:
    """The ``level`` row of one n."""

    n: int
    complete: bool
    row_count: int
    checksum: str | None
    software_version: str | None
    built_at: datetime | None
    build_seconds: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "complete": self.complete,
            "row_count": self.row_count,
            "checksum": self.checksum,
            "software_version": self.software_version,
            "built_at": self.built_at.isoformat() if self.built_at else None,
            "build_seconds": self.build_seconds,
        }


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
        self._lock = threading.Lock()

    # -- life cycle -------------------------------------------------------------------------
    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Catalogue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"open_catalogue({str(self.location)!r})"

    def _session(self) -> Session:
        return Session(self._engine)

    # -- levels ---------------------------------------------------------------------------------
    def levels(self) -> list[LevelInfo]:
        """Every ``level`` row, by n."""
        with database_errors(self.location), self._session() as session:
            rows = session.execute(sa.select(LevelRow).order_by(LevelRow.n)).scalars().all()
            infos = [
                LevelInfo(r.n, r.complete, r.row_count, r.checksum, r.software_version, r.built_at, r.build_seconds)
                for r in rows
            ]
        with self._lock:
            self._complete = frozenset(i.n for i in infos if i.complete)
        return infos

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
        with database_errors(self.location), self._session() as session:
            row = session.get(DealRow, deal.key)
            if row is None:
                raise CatalogueError(f"catalogue {self.location} is damaged: level {deal.n} is marked complete"
                                     f" but deal {deal.label} is missing (run whist-catalogue verify)")
            return record_from_row(row)

    def solve(self, deal: Deal) -> SuitSolution:
        """Value and optimal moves (SPEC §3); :class:`NotInCatalogue` when the level is not complete."""
        return self.record(deal).solution

    def value(self, deal: Deal) -> Value:
        return self.record(deal).value

    def records(self, deals: Sequence[Deal]) -> list[DealRecord]:
        """Several deals in one query (e.g. the suits of a multi-suit deal)."""
        for deal in deals:
            if deal.n == 0 or not self._is_complete(deal.n):
                raise NotInCatalogue(f"deal {deal.label or '(empty)'}: level n = {deal.n} is not in the catalogue")
        keys = sorted({d.key for d in deals})
        with database_errors(self.location), self._session() as session:
            rows = {r.key: r for r in session.execute(sa.select(DealRow).where(DealRow.key.in_(keys))).scalars()}
            missing = [d.label for d in deals if d.key not in rows]
            if missing:
                raise CatalogueError(f"catalogue {self.location} is damaged: deals {missing} are missing")
            return [record_from_row(rows[d.key]) for d in deals]

    # -- search ---------------------------------------------------------------------------------
    def count(self, expression: str | None = None, *, level: int | None = None) -> int:
        """How many deals match a search expression (:mod:`whist_catalogue.store.search`) and/or lie in a level."""
        from whist_catalogue.store.search import search_condition

        condition = search_condition(expression, level=level)
        with database_errors(self.location), self._session() as session:
            return session.execute(sa.select(sa.func.count()).select_from(DealRow).where(condition)).scalar_one()

    def search(self, expression: str | None = None, *, level: int | None = None, limit: int | None = None,
               offset: int = 0) -> list[DealRecord]:
        """The matching deals in key order (one page: ``offset``, ``limit``)."""
        with self.iter_search(expression, level=level, limit=limit, offset=offset) as rows:
            return list(rows)

    def iter_search(self, expression: str | None = None, *, level: int | None = None, limit: int | None = None,
                    offset: int = 0) -> _RecordStream:
        """The matching deals in key order, streamed (constant memory); a context manager and an iterator.

        The expression is parsed here, so a bad one raises before anything is read.
        """
        from whist_catalogue.store.search import search_condition

        statement = sa.select(DealRow).where(search_condition(expression, level=level)).order_by(DealRow.key)
        if offset:
            statement = statement.offset(offset)
        if limit is not None:
            statement = statement.limit(limit)
        return _RecordStream(self, statement)

    def iter_rows(self, statement: sa.Select) -> _RecordStream:
        """Stream the rows of a ``select(DealRow)`` built elsewhere (export, verify)."""
        return _RecordStream(self, statement)

    def stream(self, statement: sa.Select, batch: int = 10_000) -> Iterator[sa.Row]:
        """Stream the Core rows of any select, in batches (constant memory)."""
        with database_errors(self.location), self._engine.connect() as conn:
            result = conn.execution_options(yield_per=batch).execute(statement)
            yield from result

    # -- statistics -----------------------------------------------------------------------------
    def value_counts(self, n: int) -> dict[Value, int]:
        """How many deals of level n have each value (read from the rows)."""
        statement = (
            sa.select(DealRow.number_scaled, DealRow.inf_sign, DealRow.stoppers, sa.func.count())
            .where(DealRow.in_level(n))
            .group_by(DealRow.number_scaled, DealRow.inf_sign, DealRow.stoppers)
        )
        with database_errors(self.location), self._session() as session:
            return {value_from_columns(q, s, k): c for q, s, k, c in session.execute(statement)}

    def statistics(self, n: int) -> "LevelStatistics":
        """The statistics of SPEC §4 for a complete level (the same object ``scan`` builds)."""
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
        return [(name, json.loads(params)) for name, params in rows]

    def solved_game(self, name: str, **parameters: int) -> dict[str, Any] | None:
        """The stored solution (SPEC §6 JSON) of a game, or None if it is not stored."""
        key = json.dumps(parameters, sort_keys=True, separators=(",", ":"))
        with database_errors(self.location), self._session() as session:
            text = session.execute(
                sa.select(SolvedGameRow.solution).where(SolvedGameRow.name == name, SolvedGameRow.parameters == key)
            ).scalar_one_or_none()
        return None if text is None else json.loads(text)


class _RecordStream:
    """Records of a select, fetched in batches; close it (or use ``with``) to release the connection."""

    def __init__(self, catalogue: Catalogue, statement: sa.Select, batch: int = 2_000) -> None:
        self._catalogue = catalogue
        self._statement = statement
        self._batch = batch
        self._iterator: Iterator[DealRecord] | None = None

    def _generate(self) -> Iterator[DealRecord]:
        with database_errors(self._catalogue.location), self._catalogue._session() as session:
            result = session.execute(self._statement, execution_options={"yield_per": self._batch})
            for row in result.scalars():
                yield record_from_row(row)

    def __iter__(self) -> Iterator[DealRecord]:
        if self._iterator is None:
            self._iterator = self._generate()
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
