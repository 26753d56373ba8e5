"""What is known about one single-suit deal: its value and its optimal moves (docs/spec.md §3).

:class:`SuitSolution` is the common currency between the solvers (the recursive
definition, the engine, the catalogue) and their users (multi-suit play, the
command line, the app).  Optimal moves follow docs/spec.md §3, with α_ij the labeled
values of §7.2:

* best West leads: every W_i with min_j α_ij = maxmin(D);
* best East leads: every E_j with max_i α_ij = minmax(D);
* best East replies to W_i: every E_j minimising α_ij;
* best West replies to E_j: every W_i maximising α_ij.

The compact form packs each set of moves as a mask over hand positions
(bit i−1 for W_i or E_i), so a deal's moves take 2 + 2n small integers.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol, Sequence

from whist_catalogue.theory.deals import Card, Deal
from whist_catalogue.theory.immutable import notebook_html
from whist_catalogue.theory.labeled import LabeledValue, maximum, minimum
from whist_catalogue.theory.values import Outcome, Value, rho

__all__ = ["SuitSolution", "Solver", "SolverBase", "positions_mask", "mask_positions", "solution_from_labeled",
           "PRELOADED", "CATALOGUE", "DEFINITION", "ENGINE", "LINEAR_TIME"]


def positions_mask(cards: Sequence[Card], hand: Sequence[Card]) -> int:
    """Mask with bit i−1 set when hand[i−1] (the i-th lowest card of the hand) is in cards."""
    return sum(1 << hand.index(c) for c in cards)


def mask_positions(mask: int, hand: Sequence[Card]) -> tuple[Card, ...]:
    return tuple(c for i, c in enumerate(hand) if mask >> i & 1)


class SuitSolution(NamedTuple):
    """The value and the optimal moves of a single-suit deal."""

    deal: Deal
    value: Value
    """val(D)."""
    west_leads: tuple[Card, ...]
    """West's best leads (cards of :attr:`deal`, lowest first)."""
    east_leads: tuple[Card, ...]
    """East's best leads."""
    east_replies: tuple[tuple[Card, ...], ...]
    """east_replies[i−1]: East's best replies when West leads W_i."""
    west_replies: tuple[tuple[Card, ...], ...]
    """west_replies[j−1]: West's best replies when East leads E_j."""

    @property
    def outcome(self) -> Outcome:
        """χ(D) = ρ(val(D)) (Corollary 8.9)."""
        return rho(self.value)

    def leads(self, player: str) -> tuple[Card, ...]:
        return self.west_leads if player == "W" else self.east_leads

    def replies(self, leader: str, card: Card) -> tuple[Card, ...]:
        """The best replies of the other player when ``leader`` leads ``card``."""
        if leader == "W":
            return self.east_replies[self.deal.west_cards.index(card)]
        return self.west_replies[self.deal.east_cards.index(card)]

    def _repr_html_(self) -> str:
        return notebook_html(self)  # not `_repr_html_ = notebook_html`: mypy reads that as a field

    # -- compact form, for storage -----------------------------------------------------
    def move_masks(self) -> tuple[int, ...]:
        """(west_leads, east_leads, east_replies[0..n−1], west_replies[0..n−1]) as position masks."""
        w, e = self.deal.west_cards, self.deal.east_cards
        return (
            positions_mask(self.west_leads, w),
            positions_mask(self.east_leads, e),
            *(positions_mask(r, e) for r in self.east_replies),
            *(positions_mask(r, w) for r in self.west_replies),
        )

    @classmethod
    def from_move_masks(cls, deal: Deal, value: Value, masks: Sequence[int]) -> SuitSolution:
        n = deal.n
        if len(masks) != 2 + 2 * n:
            raise ValueError(f"expected {2 + 2 * n} move masks for n={n}, got {len(masks)}")
        w, e = deal.west_cards, deal.east_cards
        return cls(
            deal=deal,
            value=value,
            west_leads=mask_positions(masks[0], w),
            east_leads=mask_positions(masks[1], e),
            east_replies=tuple(mask_positions(m, e) for m in masks[2 : 2 + n]),
            west_replies=tuple(mask_positions(m, w) for m in masks[2 + n :]),
        )


def solution_from_labeled(deal: Deal, value: Value, alpha: Sequence[Sequence[LabeledValue]]) -> SuitSolution:
    """The optimal moves of docs/spec.md §3 read off the matrix α_ij of labeled values (row i = W_i)."""
    n = deal.n
    w, e = deal.west_cards, deal.east_cards
    if n == 0:
        return SuitSolution(deal, value, (), (), (), ())
    row_min = [minimum(row) for row in alpha]
    col_max = [maximum(alpha[i][j] for i in range(n)) for j in range(n)]
    maxmin, minmax = maximum(row_min), minimum(col_max)
    return SuitSolution(
        deal=deal,
        value=value,
        west_leads=tuple(c for c, a in zip(w, row_min) if a == maxmin),
        east_leads=tuple(c for c, a in zip(e, col_max) if a == minmax),
        east_replies=tuple(tuple(c for c, a in zip(e, alpha[i]) if a == row_min[i]) for i in range(n)),
        west_replies=tuple(tuple(c for i, c in enumerate(w) if alpha[i][j] == col_max[j]) for j in range(n)),
    )


PRELOADED, CATALOGUE, DEFINITION, ENGINE, LINEAR_TIME = (
    "preloaded table", "catalogue", "recursive definition", "engine", "linear time")
"""Where an answer comes from (:attr:`Solver.source`), in the order ``whist_catalogue.store.solvers`` asks them."""


class Solver(Protocol):
    """Anything that can value single-suit deals: the definition, the engine, the catalogue, the preloaded table,
    and the chains of them (:mod:`whist_catalogue.store.solvers`).

    A solver that does not know a deal raises a :class:`LookupError` (the catalogue lacks its level) or
    :class:`~whist_catalogue.errors.DealTooLargeError` (beyond its reach), so that a chain asks the next one.
    :class:`SolverBase` gives every method but :meth:`solve` and :meth:`value` from those two.
    """

    source: str
    """Where its answers come from: :data:`CATALOGUE`, :data:`DEFINITION`, :data:`ENGINE` …"""

    def solve(self, deal: Deal) -> SuitSolution:
        """Value and optimal moves (docs/spec.md §3)."""
        ...

    def value(self, deal: Deal) -> Value:
        """val(D) alone (cheaper than :meth:`solve` where the moves need α)."""
        ...

    def solve_many(self, deals: Sequence[Deal]) -> list[SuitSolution | None]:
        """:meth:`solve` of each deal, None where the solver does not know it (a :class:`LookupError`); a batch
        where the solver has one (the catalogue derives a level's deals in whole-array steps)."""
        ...

    def solve_sourced(self, deal: Deal) -> tuple[SuitSolution, str]:
        """:meth:`solve` and the :attr:`source` of the solver that answered (a chain's member)."""
        ...

    def solve_many_sourced(self, deals: Sequence[Deal]) -> list[tuple[SuitSolution | None, str]]:
        """:meth:`solve_many` with each answer's source."""
        ...

    def close(self) -> None:
        """Release what the solver holds (a catalogue's connections, so SQLite removes its side files)."""
        ...


class SolverBase:
    """The :class:`Solver` methods a solver has from its own :meth:`solve` (one deal at a time, its own
    :attr:`source`, nothing to release); a solver overrides what it does better."""

    source = ""

    def solve(self, deal: Deal) -> SuitSolution:
        raise NotImplementedError

    def solve_many(self, deals: Sequence[Deal]) -> list[SuitSolution | None]:
        found: list[SuitSolution | None] = []
        for deal in deals:
            try:
                found.append(self.solve(deal))
            except LookupError:
                found.append(None)
        return found

    def solve_sourced(self, deal: Deal) -> tuple[SuitSolution, str]:
        return self.solve(deal), self.source

    def solve_many_sourced(self, deals: Sequence[Deal]) -> list[tuple[SuitSolution | None, str]]:
        return [(s, self.source) for s in self.solve_many(deals)]

    def close(self) -> None:
        pass
