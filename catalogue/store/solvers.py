"""Where a single-suit deal's answer comes from, decided here once for the command line and the app.

:func:`default_solver` is the chain both use: a deal inside a complete level of the
catalogue is read from it; any other deal is computed — by the literal recursive
definition of the multi-suit paper's §7 when small, by the engine's in-memory levels
otherwise — so answers are the same wherever they come from (tests check the three
against each other).  :func:`answer` (and :func:`answer_many`) ask that chain and,
for a single suit beyond all of it, give what the linear-time theory gives
(Theorem 10.1 of the single-suit paper, Theorem 12.1 of the multi-suit paper):
``value``, ``outcome``, ``moves`` and the deal explorer all call them, so each says
the same thing about a suit of any size, and names what it cannot give and why.

A two-hand deal of more cards a hand than the shipped table of endings holds is answered from the catalogue's
table of endings when that reaches it (docs/two-hand.md): :func:`catalogue_endings` says once whether it does,
for the command line's batch and the app alike.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from functools import cache
from typing import TYPE_CHECKING, Callable, NamedTuple, Sequence, TypeVar

from whist_catalogue.constants import MAX_ENDING_N, MAX_ENGINE_N
from whist_catalogue.errors import DealTooLargeError, IllegalMoveError
from whist_catalogue.store.identity import catalogue_path
from whist_catalogue.store.settings import database_location
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.solution import (CATALOGUE, DEFINITION, ENGINE, LINEAR_TIME, PRELOADED, Solver,
                                             SolverBase, SuitSolution)
from whist_catalogue.theory.values import Value

T = TypeVar("T")

if TYPE_CHECKING:
    from whist_catalogue.theory.definition import RecursiveSolver
    from whist_catalogue.engine.levels import EngineSolver
    from whist_catalogue.engine.plan import EnginePlan
    from whist_catalogue.single_suit.linear_time import LinearAnswer
    from whist_catalogue.store.endings import CatalogueEndings
    from whist_catalogue.store.reader import Catalogue
    from whist_catalogue.theory.deals import Suit
    from whist_catalogue.theory.labeled import Player
    from whist_catalogue.theory.moves import CardResult
    from whist_catalogue.theory.small_suits import SuitTable
    from whist_catalogue.theory.values import Outcome

__all__ = ["ComputingSolver", "ChainSolver", "default_solver", "check_location", "catalogue_endings", "SuitAnswer",
           "answer",
           "answer_many", "MovesAnswer", "answer_moves", "PRELOADED", "CATALOGUE", "DEFINITION", "ENGINE",
           "LINEAR_TIME"]

RECURSIVE_MAX_N = 6
"""Below this the literal definition answers at once; above, the engine's levels are cheaper."""


class ComputingSolver(SolverBase):
    """Computes values directly: the recursive definition for tiny deals, the engine beyond.

    ``max_n`` bounds the engine (default: what half the memory holds,
    :func:`whist_catalogue.engine.plan.engine_bound`).  Given a ``catalogue``, the engine
    starts from the catalogue's top complete level instead of from nothing, so a deal
    one level beyond it costs one level of work.  Safe to share between threads (the
    engine computes each level once, under a lock).
    """

    source = ENGINE
    """(Or :data:`DEFINITION`: :meth:`solve_sourced` says which.)"""

    def __init__(self, max_n: int | None = None, *, catalogue: Catalogue | None = None) -> None:
        from whist_catalogue.engine.plan import engine_bound  # light: no NumPy, no Numba
        from whist_catalogue.theory.definition import RecursiveSolver  # not on the start-up of `outcome -`

        self.max_n = engine_bound() if max_n is None else max_n
        self._catalogue = catalogue
        self._recursive: RecursiveSolver = RecursiveSolver()
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
            from whist_catalogue.engine.plan import beyond_reach

            raise DealTooLargeError(beyond_reach(n, self.max_n))
        with self._lock:
            if self._engine is None:
                # Numba loads with the engine, and only when a deal needs it.
                from whist_catalogue.engine.levels import EngineSolver, Level

                catalogue = self._catalogue
                top = catalogue.max_n if catalogue is not None else 0
                seed = ((lambda: Level(top, *catalogue.level_values(top)))
                        if catalogue is not None and top else None)
                self._engine = EngineSolver(self.max_n, seed=seed, seed_n=top or None)
        return self._engine

    def solve(self, deal: Deal) -> SuitSolution:
        return self.solve_sourced(deal)[0]

    def value(self, deal: Deal) -> Value:
        return self._seeded(lambda: self._solver(deal).value(deal))

    def solve_sourced(self, deal: Deal) -> tuple[SuitSolution, str]:
        """The solution and which of the two computed it (:data:`DEFINITION` or :data:`ENGINE`)."""
        solver = self._solver(deal)
        return self._seeded(lambda: solver.solve(deal)), solver.source

    def _seeded(self, ask: Callable[[], T]) -> T:
        """``ask()``; the engine finding Theorem 8.8 violated in a level it computed from the catalogue's top
        level means that level's values are not those a build wrote: damage, named, not a bug."""
        try:
            return ask()
        except ArithmeticError as exc:
            catalogue = self._catalogue
            top = catalogue.max_n if catalogue is not None else 0
            if catalogue is None or not top:
                raise
            raise catalogue.damaged(f"level {top}: the levels above it cannot be computed from its values as stored"
                                    f" ({exc})") from None


class ChainSolver(SolverBase):
    """Ask each solver in turn; the first that knows the deal answers."""

    def __init__(self, *solvers: Solver) -> None:
        self.solvers = solvers
        self.source = solvers[0].source if solvers else ""
        self.sources: Counter[str] = Counter()
        """How many answers each member gave, by its class's name."""

    def first_answer(self, ask: Callable[[Solver], T]) -> T:
        """``ask(solver)`` of the first solver that knows the deal (one that does not raises LookupError or
        DealTooLargeError), counted in :attr:`sources`; the last solver's error when none does."""
        last: Exception | None = None
        for solver in self.solvers:
            try:
                result = ask(solver)
            except (LookupError, DealTooLargeError) as exc:
                last = exc
                continue
            self.sources[type(solver).__name__] += 1
            return result
        assert last is not None
        raise last

    def solve(self, deal: Deal) -> SuitSolution:
        return self.solve_sourced(deal)[0]

    def solve_many(self, deals: Sequence[Deal]) -> list[SuitSolution | None]:
        """:meth:`solve` of each deal: the first solver answers what it knows as a batch, the chain the rest."""
        return [s for s, _ in self.solve_many_sourced(deals)]

    def value(self, deal: Deal) -> Value:
        return self.first_answer(lambda solver: solver.value(deal))

    def solve_sourced(self, deal: Deal) -> tuple[SuitSolution, str]:
        return self.first_answer(lambda solver: solver.solve_sourced(deal))

    def solve_many_sourced(self, deals: Sequence[Deal]) -> list[tuple[SuitSolution | None, str]]:
        """The first solver answers what it knows as one batch, the chain each of the rest."""
        if not deals:
            return []
        first = self.solvers[0]
        found = first.solve_many(deals)
        answered = sum(s is not None for s in found)
        if answered:
            self.sources[type(first).__name__] += answered
        return [(s, first.source) if s is not None else self.solve_sourced(d) for s, d in zip(found, deals)]

    def close(self) -> None:
        """Close every solver of the chain (a catalogue's connections: SQLite then folds and removes its ``-wal``
        and ``-shm`` files)."""
        for solver in self.solvers:
            solver.close()


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
    if db is None and not is_url and not catalogue_path(location).exists():
        return ComputingSolver(max_n)
    from whist_catalogue.store.reader import open_catalogue  # only the store imports SQLAlchemy

    catalogue = open_catalogue(location)
    return ChainSolver(catalogue, ComputingSolver(max_n, catalogue=catalogue))


def check_location(db: str | os.PathLike[str] | None) -> None:
    """A catalogue that exists where the settings point must be one (docs/spec.md §4), and one named by ``--db``
    must exist, even when the preloaded table answers every deal: a SQLite file is checked without SQLAlchemy (so
    ``--db`` costs what ``$WHIST_CATALOGUE_DB`` costs, docs/benchmarks.md), a URL is opened."""
    location = database_location(db)
    if "://" in location:
        default_solver(db).close()
        return
    from whist_catalogue.store.identity import check_catalogue_file

    path = catalogue_path(location)
    if db is not None or path.exists():
        check_catalogue_file(path)


def catalogue_endings(db: str | os.PathLike[str] | None = None, catalogue: Catalogue | None = None
                      ) -> CatalogueEndings | None:
    """The table of two-hand endings of the catalogue at ``db`` (or the default one; or of ``catalogue``, already
    open) when it holds a level beyond the shipped table's (:data:`~whist_catalogue.constants.MAX_ENDING_N`), else
    None: then the search answers as without a catalogue.  Asked once for a whole batch; a SQLite file is asked
    without SQLAlchemy (:func:`~whist_catalogue.store.identity.ending_top`), so a catalogue without the table costs
    a millisecond.  Close the returned reader's ``catalogue`` when it was opened here."""
    from whist_catalogue.store.identity import ending_top

    opened = catalogue is None
    if catalogue is None:
        location = database_location(db)
        if "://" not in location:
            path = catalogue_path(location)
            if not path.exists() or ending_top(path) <= MAX_ENDING_N:
                return None
        from whist_catalogue.store.reader import open_catalogue

        catalogue = open_catalogue(location)
    from whist_catalogue.store.endings import CatalogueEndings

    endings = CatalogueEndings(catalogue)
    if endings.reaches_beyond_shipped():
        return endings
    if opened:
        catalogue.close()
    return None


# -- the one decision: the chain, then linear time ----------------------------------------------


class SuitAnswer(NamedTuple):
    """What the theory gives for one single-suit deal, and where it came from.

    Either ``solution`` (the value and every best move, from the chain of solvers) or ``linear`` (what the
    linear-time theory gives a suit beyond them all) is set; ``beyond`` then says why the solvers did not
    answer, and :attr:`not_given` what is missing.
    """

    deal: Deal
    source: str
    """One of :data:`PRELOADED`, :data:`CATALOGUE`, :data:`DEFINITION`, :data:`ENGINE`, :data:`LINEAR_TIME`."""
    solution: SuitSolution | None
    linear: LinearAnswer | None = None
    beyond: str = ""

    @property
    def outcome(self) -> Outcome:
        """χ(D): ρ(val(D)) (Corollary 8.9), or Theorem 10.1's."""
        if self.solution is not None:
            return self.solution.outcome
        assert self.linear is not None
        return self.linear.outcome

    @property
    def value(self) -> Value | None:
        """val(D), or None when only bounds are known (Theorem 12.1: :attr:`LinearAnswer.detection`)."""
        if self.solution is not None:
            return self.solution.value
        assert self.linear is not None
        return self.linear.detection.value

    @property
    def not_given(self) -> str:
        """What is not known about the deal and why ("" when the solvers answered)."""
        if self.linear is None:
            return ""
        missing = ("" if self.linear.detection.value is not None
                   else "the exact value (Theorem 12.1 names only an integer or half an odd integer); ")
        return (f"{missing}every best lead and the best replies (they need the values of the deals one trick on, "
                f"α of the multi-suit paper's §7.2): {self.beyond}")


def _linear(deal: Deal, beyond: str) -> SuitAnswer:
    from whist_catalogue.single_suit.linear_time import linear_answer  # NumPy, only for a suit this large

    return SuitAnswer(deal, LINEAR_TIME, None, linear_answer(deal), beyond)


def _beyond_encoding(deal: Deal) -> str:
    from whist_catalogue.engine.plan import beyond_reach, engine_bound  # light: no NumPy, no Numba

    return beyond_reach(deal.n, engine_bound())


def answer(solver: Solver, deal: Deal) -> SuitAnswer:
    """Everything the theory gives for ``deal``: the chain's solution (catalogue → recursive definition →
    engine), else — a suit beyond the engine's reach — the linear-time answer."""
    if deal.n > MAX_ENGINE_N:  # no solver can hold it: not even asked (no catalogue opened, no engine planned)
        return _linear(deal, _beyond_encoding(deal))
    try:
        solution, source = solver.solve_sourced(deal)
    except DealTooLargeError as exc:
        if deal.n == 0:
            raise
        return _linear(deal, str(exc))
    return SuitAnswer(deal, source, solution)


def answer_many(solver: Solver, deals: Sequence[Deal]) -> list[SuitAnswer]:
    """:func:`answer` of each deal, those the chain answers asked as one batch (the catalogue derives a
    level's best moves in whole-array steps); the source of a batch's answer is the first solver's that knew
    it.  A deal the chain cannot answer is then answered alone, in order."""
    small = [d for d in deals if d.n <= MAX_ENGINE_N]
    try:
        batch = solver.solve_many_sourced(small)
    except DealTooLargeError:
        return [answer(solver, d) for d in deals]
    found = iter(batch)
    answers = []
    for deal in deals:
        if deal.n > MAX_ENGINE_N:  # beyond every solver: answer() takes the linear-time theory at once
            answers.append(answer(solver, deal))
            continue
        solution, source = next(found)
        answers.append(SuitAnswer(deal, source, solution) if solution is not None else answer(solver, deal))
    return answers


# -- every card's result: values (Theorem 9.1), else, for one suit alone, χ by Theorem 10.1 --------

LINEAR_MOVES_WORK = 20_000_000
"""The most card steps ``moves`` spends on a single suit beyond the engine: each deal one trick on is solved in
linear time, n² of them at the start of a trick (n·n² steps; n ≤ 271) and n after the lead (n ≤ 4,472)."""


class MovesAnswer(NamedTuple):
    """Every legal card of the player to move with West's tricks from this trick on, and where they came from."""

    results: list[CardResult]
    source: str
    """``"values"`` (the suits' values, Theorem 9.1 one trick on) or :data:`LINEAR_TIME`."""
    beyond: str = ""
    """For :data:`LINEAR_TIME`: why the values were not available."""


def answer_moves(table: SuitTable, suits: Sequence[Suit], leader: Player,
                 led: tuple[int, int] | None = None) -> MovesAnswer:
    """The moves of :func:`whist_catalogue.theory.moves.suit_card_results` from the suits' values; for a single
    suit beyond the engine's reach, the same results from the outcome of each deal one trick on (Theorem 10.1,
    exact for a suit played alone) — within :data:`LINEAR_MOVES_WORK`, else :class:`DealTooLargeError` saying so."""
    from whist_catalogue.theory.moves import CardResult, outcome_card_results, suit_card_results

    if len(suits) == 1 and suits[0].n > MAX_ENGINE_N:
        beyond = _beyond_encoding(suits[0].deal)  # no solver can hold it: not even asked
    else:
        try:
            return MovesAnswer(suit_card_results(suits, leader, table, led), "values")
        except DealTooLargeError as exc:
            if len(suits) != 1:
                raise
            beyond = str(exc)
    suit = suits[0]
    n = suit.n
    steps = n * n * n if led is None else n * n
    if steps > LINEAR_MOVES_WORK:
        bound = "n ≤ 271 at the start of a trick" if led is None else "n ≤ 4,472 after the lead"
        raise DealTooLargeError(
            f"{beyond}; the linear-time theory gives each card's result by solving every deal one trick on, "
            f"{n * n if led is None else n:,} deals of {n - 1} cards a hand here, too many ({bound})")
    from whist_catalogue.single_suit.linear_time import whist_outcome_linear

    outcome = cache(whist_outcome_linear)  # a deal one trick on is reached by several cards

    if led is not None:
        index, rank = led
        if index != 0:
            raise IllegalMoveError(f"there is no suit {index} (suits are numbered from 0)")
        own = suit.west if leader == "W" else suit.east
        if rank not in own:
            raise IllegalMoveError(f"{'West' if leader == 'W' else 'East'} does not hold {suit.card_name(rank)} in suit 0")
    card = None if led is None else suit.card_of(led[1])
    results = outcome_card_results(suit.deal, leader, outcome, card)
    return MovesAnswer([CardResult(r.suit, suit.rank_of(r.card), r.west_tricks) for r in results], LINEAR_TIME, beyond)
