"""Choosing where single-suit values come from: the catalogue, else the engine.

:func:`default_solver` is what the command line and the app use.  A deal
inside a complete level of the catalogue is read from it; any other deal is
computed — by the literal recursive definition when small, by the engine's
in-memory levels otherwise — so answers are the same wherever they come from
(tests check the three against each other).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from whist_catalogue.errors import DealTooLargeError
from whist_catalogue.store.settings import database_location
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.definition import RecursiveSolver
from whist_catalogue.theory.solution import Solver, SuitSolution, solve_many
from whist_catalogue.theory.values import Value

if TYPE_CHECKING:
    from whist_catalogue.engine.levels import EngineSolver
    from whist_catalogue.engine.plan import EnginePlan
    from whist_catalogue.store.reader import Catalogue

__all__ = ["ComputingSolver", "ChainSolver", "default_solver"]

RECURSIVE_MAX_N = 6
"""Below this the literal definition answers at once; above, the engine's levels are cheaper."""


class ComputingSolver:
    """Computes values directly: the recursive definition for tiny deals, the engine beyond.

    ``max_n`` bounds the engine (default: what half the memory holds,
    :func:`whist_catalogue.engine.plan.engine_bound`).  Given a ``catalogue``, the engine
    starts from the catalogue's top complete level instead of from nothing, so a deal
    one level beyond it costs one level of work.  Safe to share between threads (the
    engine computes each level once, under a lock).
    """

    def __init__(self, max_n: int | None = None, *, catalogue: Catalogue | None = None) -> None:
        from whist_catalogue.engine.plan import engine_bound  # light: no NumPy, no Numba

        self.max_n = engine_bound() if max_n is None else max_n
        self._catalogue = catalogue
        self._recursive = RecursiveSolver()
        self._engine: EngineSolver | None = None
        self._lock = threading.Lock()

    def plan(self, n: int) -> EnginePlan:
        """What valuing a deal with n cards a hand would make the engine compute now (nothing for small n, or
        once its level is computed); :class:`DealTooLargeError` beyond the engine's reach."""
        if n <= RECURSIVE_MAX_N:
            from whist_catalogue.engine.plan import EnginePlan

            return EnginePlan(n, ())
        return self._engine_solver(n).plan(n)

    def _solver(self, deal: Deal) -> Solver:
        if deal.n <= RECURSIVE_MAX_N:
            return self._recursive
        return self._engine_solver(deal.n)

    def _engine_solver(self, n: int) -> EngineSolver:
        if n > self.max_n:
            raise DealTooLargeError(
                f"a deal with {n} cards a hand is beyond the engine's reach here (n ≤ {self.max_n});"
                " build the catalogue further to look it up"
            )
        with self._lock:
            if self._engine is None:
                # Numba loads with the engine, and only when a deal needs it.
                from whist_catalogue.engine.levels import EngineSolver, Level

                catalogue = self._catalogue
                top = catalogue.max_n if catalogue is not None else 0
                seed = ((lambda: Level.from_codes(top, *catalogue.level_values(top)))
                        if catalogue is not None and top else None)
                self._engine = EngineSolver(self.max_n, seed=seed, seed_n=top or None)
        return self._engine

    def solve(self, deal: Deal) -> SuitSolution:
        return self._solver(deal).solve(deal)

    def value(self, deal: Deal) -> Value:
        return self._solver(deal).value(deal)


class ChainSolver:
    """Ask each solver in turn; the first that knows the deal answers."""

    def __init__(self, *solvers: Solver) -> None:
        self.solvers = solvers
        self.sources: dict[str, int] = {}

    def _each(self, deal: Deal, method: str):
        last: Exception | None = None
        for solver in self.solvers:
            try:
                result = getattr(solver, method)(deal)
            except (LookupError, DealTooLargeError) as exc:
                last = exc
                continue
            name = type(solver).__name__
            self.sources[name] = self.sources.get(name, 0) + 1
            return result
        assert last is not None
        raise last

    def solve(self, deal: Deal) -> SuitSolution:
        return self._each(deal, "solve")

    def solve_many(self, deals: Sequence[Deal]) -> list[SuitSolution]:
        """:meth:`solve` of each deal: the first solver answers what it knows as a batch, the chain the rest."""
        first, *_ = self.solvers
        found = solve_many(first, deals)
        name = type(first).__name__
        answered = sum(s is not None for s in found)
        if answered:
            self.sources[name] = self.sources.get(name, 0) + answered
        return [s if s is not None else self._each(deal, "solve") for s, deal in zip(found, deals)]

    def value(self, deal: Deal) -> Value:
        return self._each(deal, "value")

    def close(self) -> None:
        """Close the solvers that hold resources (a catalogue's connections: SQLite then folds and removes its
        ``-wal`` and ``-shm`` files)."""
        for solver in self.solvers:
            close = getattr(solver, "close", None)
            if close is not None:
                close()


def default_solver(db: str | os.PathLike[str] | None = None, *, max_n: int | None = None) -> Solver:
    """The catalogue at ``db`` (or the default one) backed by direct computation.

    A catalogue named by ``--db`` must exist and be ours (:class:`CatalogueError`
    otherwise).  Without it — ``$WHIST_CATALOGUE_DB`` or the default file — a file
    that does not exist means "not built yet": values are computed.  Anything that
    does exist must be a readable catalogue: a text file, a foreign or damaged
    database is reported, never silently passed over.
    """
    location = database_location(db)
    is_url = "://" in location
    if db is None and not is_url and not Path(location).expanduser().exists():
        return ComputingSolver(max_n)
    from whist_catalogue.store.reader import open_catalogue  # only the store imports SQLAlchemy

    catalogue = open_catalogue(location)
    return ChainSolver(catalogue, ComputingSolver(max_n, catalogue=catalogue))
