"""The recursive definition of val(D) (§7 of the multi-suit paper), kept literal.

For a nonempty single-suit deal D with West's cards W_1 < … < W_n and East's
E_1 < … < E_n:

1. §7.2 — the reductions D_ij (West plays W_i, East plays E_j) and the labeled
   values α_ij = (P, val(D_ij)), P the winner of the trick;
2. maxmin(D) = max_i min_j α_ij and minmax(D) = min_j max_i α_ij;
3. §7.3, Definition 7.1 — the sets L(D) and R(D);
4. §7.4 — the interval I(D) of values in neither, and
5. §7.5, Definition 7.4 — val(D), the simplest element of I(D), unique by
   Theorem 7.2 with Theorem 8.8.

This module is the reference the fast engine is checked against: it follows
the definitions word for word, memoised on the canonical deal, and favours
clarity over speed (practical up to about n = 8).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import ceil, floor
from typing import Iterator

from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.labeled import EAST, WEST, LabeledValue, labeled_matrix, maximum, minimum
from whist_catalogue.theory.solution import DEFINITION, SolverBase, SuitSolution, solution_from_labeled
from whist_catalogue.theory.values import EPSILON0, Infinitesimal, Value

__all__ = [
    "val",
    "labeled_values",
    "maxmin",
    "minmax",
    "Interval",
    "interval",
    "simplest_in_interval",
    "solve",
    "RecursiveSolver",
]


@lru_cache(maxsize=None)
def val(deal: Deal) -> Value:
    """val(D) of a single-suit deal, by Definition 7.4."""
    if deal.n == 0:
        return Value(0)
    return simplest_in_interval(interval(deal))


@lru_cache(maxsize=None)
def labeled_values(deal: Deal) -> tuple[tuple[LabeledValue, ...], ...]:
    """The matrix α_ij = (P, val(D_ij)) of §7.2; row i is West's card W_i, column j East's E_j."""
    return labeled_matrix(deal, val)


@lru_cache(maxsize=None)
def maxmin(deal: Deal) -> LabeledValue:
    """max_i min_j α_ij: what West can ensure by his choice of lead."""
    return maximum(minimum(row) for row in labeled_values(deal))


@lru_cache(maxsize=None)
def minmax(deal: Deal) -> LabeledValue:
    """min_j max_i α_ij: what East can ensure by his choice of lead."""
    alpha = labeled_values(deal)
    return minimum(maximum(row[j] for row in alpha) for j in range(deal.n))


@dataclass(frozen=True)
class Interval:
    """I(D) of §7.4, described by maxmin(D) and minmax(D)."""

    maxmin: LabeledValue
    minmax: LabeledValue

    def in_left(self, v: Value) -> bool:
        """v ∈ L(D), Definition 7.1 (i)–(ii)."""
        q = Value(v.number)
        if not self.maxmin >= LabeledValue(EAST, q):
            return False
        return v.is_number or self.minmax >= LabeledValue(WEST, v)

    def in_right(self, v: Value) -> bool:
        """v ∈ R(D), Definition 7.1 (i)–(ii) for R."""
        q = Value(v.number)
        if not self.minmax <= LabeledValue(WEST, q):
            return False
        return v.is_number or self.maxmin <= LabeledValue(EAST, v)

    def __contains__(self, v: Value) -> bool:
        return not self.in_left(v) and not self.in_right(v)


def interval(deal: Deal) -> Interval:
    return Interval(maxmin(deal), minmax(deal))


def _candidates(i: Interval) -> Iterator[list[Value]]:
    """Values that could lie in I, grouped by complexity class, simplest class first.

    Every element of I has its numerical part between those of maxmin and
    minmax: a value whose numerical part is below maxmin's lies in L, one above
    minmax's lies in R (Definition 7.1).  Between two dyadic numbers a and b the
    simplest number has denominator at most twice the larger of theirs, and a
    non-number in I has the numerical part a = b (otherwise a number lies
    strictly between them).  By Lemma 7.3, x + ε_k with k one past the stoppers
    of minmax or maxmin is in I when no number is, bounding the search.
    """
    a, b = i.maxmin.value.number, i.minmax.value.number
    max_den = max(a.denominator, b.denominator, 2) * 2
    # (i) half-integers, complexity 0.
    yield [Value(Fraction(m, 2)) for m in range(floor(2 * a) - 1, ceil(2 * b) + 2)]
    # (ii) numbers with minimal denominator 2^k, complexity k − 1.
    den = 4
    while den <= max_den:
        lo, hi = floor(a * den) - 1, ceil(b * den) + 1
        yield [Value(Fraction(p, den)) for p in range(lo, hi + 1) if p % 2]
        den *= 2
    # (iii) q ± ε_k, complexity ω + k.
    bases = sorted({a, b})
    stoppers = 2 + max(abs(i.maxmin.value.infinitesimal.index), abs(i.minmax.value.infinitesimal.index))
    for k in range(stoppers + 1):
        yield [Value(q, x) for q in bases for x in (Infinitesimal.epsilon(k), -Infinitesimal.epsilon(k))]
    # (iv) q ± ε₀, complexity ω + ω.
    yield [Value(q, EPSILON0 + -EPSILON0) for q in bases]


def simplest_in_interval(i: Interval) -> Value:
    """The simplest element of I (Theorem 7.2); raises if it is not unique."""
    for group in _candidates(i):
        members = [v for v in group if v in i]
        if len(members) == 1:
            return members[0]
        if members:
            raise ArithmeticError(f"I(D) between {i.maxmin} and {i.minmax} has no unique simplest element: {members}")
    raise ArithmeticError(f"I(D) between {i.maxmin} and {i.minmax} is empty")


@lru_cache(maxsize=None)
def solve(deal: Deal) -> SuitSolution:
    """Value and optimal moves of a deal (docs/spec.md §3), straight from the definition."""
    return solution_from_labeled(deal, val(deal), labeled_values(deal))


class RecursiveSolver(SolverBase):
    """A :class:`~whist_catalogue.theory.solution.Solver` backed by the literal definition (small deals only)."""

    max_n = 9
    source = DEFINITION

    def solve(self, deal: Deal) -> SuitSolution:
        return solve(deal)

    def value(self, deal: Deal) -> Value:
        return val(deal)
