"""``scan``: every deal up to a bound, valued in memory, with the papers' conjectures checked.

For each level n the engine (:mod:`whist_catalogue.engine.levels`) values all C(2n, n)
deals and counts, with the first counterexample if any:

* Conjecture 12.2 (multi-suit paper): a non-numerical value is q + ε_q for a
  nonnegative integer q, or the mirror image p − ε_{n−p} of one (val(D) =
  |D| − val(D̄));
* Conjecture 12.3: a non-integral number has fractional part 1/2^k, 1 − 1/2^k,
  3/8 or 5/8;
* Conjecture 12.4: against a lead that can be beaten by a card below the top
  card of the suit, winning as cheaply as possible is an optimal reply — in
  every multi-suit context, i.e. it yields no worse an outcome than the best
  reply for every value of the other suits;
* Theorem 8.10: val(D) = k ⇔ val(D₀) = k − 1/2;
* Theorem 9.4 (single-suit paper): in single-suit whist there is no point in
  holding up when a card below the ace can win;

and, as an observation beyond the papers, how often winning cheaply is not a
best reply in the stronger sense of labeled values (docs/spec.md §3), although it is
still optimal.  A counterexample is re-verified with the literal recursive
definition (and, for statements about tricks, the brute-force referee) before
it is reported.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Iterator

import numpy as np

from whist_catalogue.engine.codes import ValueTable
from whist_catalogue.engine.levels import CHECK_NAMES, Checks, Level, levels, table_outcomes
from whist_catalogue.engine.statistics import LevelStatistics
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.labeled import LabeledValue
from whist_catalogue.theory.ranking import level_masks, unrank
from whist_catalogue.theory.values import EPSILON0, Infinitesimal, Value, rho

__all__ = [
    "CheckResult",
    "LevelReport",
    "scan",
    "reverify",
    "reachable_subdeals",
    "level_report",
    "two_theories_range",
    "two_theories_result",
    "CHECK_TITLES",
    "conjecture_12_2_holds",
    "conjecture_12_3_holds",
    "theorem_8_10_holds",
]

CHECK_TITLES = {
    "conjecture_12_2": "Conjecture 12.2 (non-numbers are q + ε_q or mirror images)",
    "conjecture_12_3": "Conjecture 12.3 (fractional parts 1/2^k, 1 − 1/2^k, 3/8, 5/8)",
    "conjecture_12_4": "Conjecture 12.4 (beat cheaply below the top card: optimal)",
    "theorem_8_10": "Theorem 8.10 (val(D) = k ⇔ val(D₀) = k − 1/2)",
    "theorem_9_4": "Theorem 9.4, single-suit paper (no hold-up below the ace)",
    "conjecture_12_4_labeled": "Stronger form of 12.4, not the paper's: beating cheaply is a best reply by labeled values",
    "single_suit_theorem_9_1": "Two theories agree: ρ(val(D)) = the outcome by H of Theorem 9.1, single-suit paper",
}

REVERIFY_BUDGET = 20_000
"""The recursive definition re-checks a counterexample when it has at most this many reachable sub-deals."""


def reachable_subdeals(deal: Deal, limit: int) -> int | None:
    """How many distinct deals the recursion of §7 visits from ``deal``, or None beyond ``limit``."""
    seen = {deal}
    frontier = [deal]
    while frontier:
        d = frontier.pop()
        # Equivalent cards (one run of a hand) lead to the same reduction: try the top of each run.
        tops_w = [i for i, c in enumerate(d.west_cards, 1) if i == d.n or d.west_cards[i] != c + 1]
        tops_e = [j for j, c in enumerate(d.east_cards, 1) if j == d.n or d.east_cards[j] != c + 1]
        for i in tops_w:
            for j in tops_e:
                rest = d.reduction(i, j)[1]
                if rest not in seen:
                    seen.add(rest)
                    if len(seen) > limit:
                        return None
                    frontier.append(rest)
    return len(seen)


@dataclass(frozen=True)
class CheckResult:
    name: str
    checked: int
    counterexamples: int
    first: Deal | None
    reverified: bool | None = None
    """Whether the literal definition confirms the first counterexample (None: not attempted)."""

    def to_json(self) -> dict:
        return {
            "checked": self.checked,
            "counterexamples": self.counterexamples,
            "first_counterexample": self.first.label if self.first else None,
            "reverified": self.reverified,
        }

    @classmethod
    def from_json(cls, name: str, obj: dict) -> CheckResult:
        first = obj["first_counterexample"]
        return cls(name, obj["checked"], obj["counterexamples"], Deal.from_label(first) if first else None,
                   obj["reverified"])


@dataclass
class LevelReport:
    n: int
    statistics: LevelStatistics
    checks: list[CheckResult] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict:
        out = self.statistics.to_json()
        out["checks"] = {c.name: c.to_json() for c in self.checks}
        out["seconds"] = round(self.seconds, 3)
        return out

    @classmethod
    def from_json(cls, obj: dict) -> LevelReport:
        """A report read back from its ``scan --json`` line (a long run's levels, rendered again later)."""
        counts = {}
        for key, count in obj["values"].items():
            number, infinitesimal = key.split("|")
            counts[Value(Fraction(number), Infinitesimal.from_code(infinitesimal))] = count
        checks = [CheckResult.from_json(name, c) for name, c in obj["checks"].items()]
        return cls(obj["n"], LevelStatistics(obj["n"], counts), checks, obj["seconds"])


def conjecture_12_2_holds(value: Value, n: int) -> bool:
    """Conjecture 12.2 for one value of an n-card deal, stated on :class:`Value` objects."""
    x = value.infinitesimal
    if x.is_zero:
        return True
    q = value.number
    if q.denominator != 1:
        return False
    if x.sign > 0:
        return x == Infinitesimal.epsilon(int(q))
    return x == -Infinitesimal.epsilon(n - int(q))


def conjecture_12_3_holds(value: Value) -> bool:
    """Conjecture 12.3 for one value."""
    if not value.is_number or value.denominator == 1:
        return True
    f = value.number - (value.number.numerator // value.number.denominator)
    return f.numerator == 1 or f.numerator == f.denominator - 1 or f in (Fraction(3, 8), Fraction(5, 8))


def theorem_8_10_holds(value: Value, reduced: Value) -> bool:
    """val(D) = k ⇔ val(D₀) = k − 1/2, given val(D) and val(D₀)."""
    d_integral = value.is_number and value.denominator == 1
    d0_half_odd = reduced.is_number and reduced.denominator == 2
    return d_integral == d0_half_odd and (not d_integral or reduced.number == value.number - Fraction(1, 2))


def reverify(name: str, deal: Deal) -> bool:
    """Confirm a counterexample to check ``name`` independently of the engine.

    Values come from the literal recursive definition, which must agree with the
    brute-force referee on the deal; statements about tricks are replayed by the
    referee itself.
    """
    from whist_catalogue.theory import definition, referee

    value = definition.val(deal)
    if rho(value) != referee.single_suit_outcome(deal):
        raise ArithmeticError(f"definition and referee disagree on {deal.label}")
    if name == "conjecture_12_2":
        return not conjecture_12_2_holds(value, deal.n)
    if name == "conjecture_12_3":
        return not conjecture_12_3_holds(value)
    if name == "theorem_8_10":
        return not theorem_8_10_holds(value, definition.val(deal.without_lowest()))
    # Lead-by-lead checks: is there a lead the definition (or referee) confirms as a counterexample?
    alpha = definition.labeled_values(deal)
    top = 2 * deal.n
    w, e = deal.west_cards, deal.east_cards
    for leader in ("W", "E"):
        leads, others = (w, e) if leader == "W" else (e, w)
        for li, lead in enumerate(leads):
            winners = [j for j, c in enumerate(others) if c > lead]
            if not winners or others[winners[0]] == top:
                continue
            cheap, low = winners[0], 0
            a_cheap = alpha[li][cheap] if leader == "W" else alpha[cheap][li]
            a_low = alpha[li][low] if leader == "W" else alpha[low][li]
            # The replying side wants West's result small when East replies, large when West does.
            worse = (lambda a, b: a > b) if leader == "W" else (lambda a, b: a < b)
            if name == "conjecture_12_4_labeled" and worse(a_cheap, a_low):
                return True
            if name == "conjecture_12_4" and any(
                worse(context_tricks(a_cheap, f), context_tricks(a_low, f)) for f in contexts(a_cheap, a_low)
            ):
                return True
            if name == "theorem_9_4":
                west, east = (lead, others[cheap]) if leader == "W" else (others[cheap], lead)
                t_cheap = referee.tricks_after_trick((deal,), 0, west, east)
                west, east = (lead, others[low]) if leader == "W" else (others[low], lead)
                if worse(t_cheap, referee.tricks_after_trick((deal,), 0, west, east)):
                    return True
    return False


def context_tricks(a: LabeledValue, f: Value) -> int:
    """West's tricks from (P, x) played beside other suits of total value f: ρ(x + f) for P on lead."""
    o = rho(a.value + f)
    return o.west_leads if a.player == "W" else o.east_leads


def contexts(*alphas: LabeledValue) -> list[Value]:
    """Values f of other suits that separate labeled values if anything does (§6.5, Lemma 10.8).

    Only the half-integer nearest a tie matters for the numerical part; for the
    infinitesimal part every ε_k a few stoppers beyond those present, 0 and ±ε₀.
    """
    reach = 3 + max(abs(a.value.infinitesimal.index) for a in alphas)
    infinitesimals = [Infinitesimal(), EPSILON0 + -EPSILON0]
    infinitesimals += [x for k in range(reach + 1) for x in (Infinitesimal.epsilon(k), -Infinitesimal.epsilon(k))]
    numbers = {Fraction(1, 2) - a.value.number for a in alphas}
    numbers |= {q + d for q in list(numbers) for d in (Fraction(-1, 2**40), Fraction(1, 2**40))}
    return [Value(q, x) for q in numbers for x in infinitesimals]


SLICE = 1 << 24
"""Deals per slice when comparing with the single-suit formulas, to keep memory flat at n = 16."""


def two_theories_range(n: int, start: int, stop: int, codes: np.ndarray,
                       table: ValueTable) -> tuple[int, int | None]:
    """ρ(val(D)) against Wästlund's H for the deals with ranks in [start, stop), given their values as codes
    into ``table``: (how many disagree, the rank of the first that does or None)."""
    from whist_catalogue.single_suit.formulas import level_quantities

    q = level_quantities(n, level_masks(n, start, stop))
    west, east = table_outcomes(table)
    bad = (west[codes] != q.whist_west_leads) | (east[codes] != q.whist_east_leads)
    if not bad.any():
        return 0, None
    return int(bad.sum()), start + int(np.flatnonzero(bad)[0])


def two_theories_result(n: int, deals: int, mismatches: int, first: int | None) -> CheckResult:
    """The check of Theorem 9.1's H over a whole level, from the counts of :func:`two_theories_range`."""
    if first is None:
        return CheckResult("single_suit_theorem_9_1", deals, 0, None)
    deal = Deal(n, unrank(n, first))
    # The brute-force referee decides which theory is wrong.
    from whist_catalogue.single_suit.formulas import whist_outcome
    from whist_catalogue.theory import referee

    if referee.single_suit_outcome(deal) == whist_outcome(deal):
        raise ArithmeticError(f"the engine's value of {deal.label} contradicts the referee")
    return CheckResult("single_suit_theorem_9_1", deals, mismatches, deal, True)


def _two_theories(level: Level) -> CheckResult:
    """ρ(val(D)) from the engine against Wästlund's H (Theorem 9.1, single-suit paper), deal by deal."""
    mismatches, first = 0, None
    for start in range(0, len(level), SLICE):
        stop = min(len(level), start + SLICE)
        bad, at = two_theories_range(level.n, start, stop, level.codes[start:stop], level.table)
        mismatches += bad
        if first is None:
            first = at
    return two_theories_result(level.n, len(level), mismatches, first)


def level_report(n: int, counts: dict[Value, int], checks: Checks, two_theories: CheckResult,
                 seconds: float) -> LevelReport:
    """One level's report from its value counts and checks, each first counterexample re-verified
    by the literal definition when it is small enough."""
    results = []
    for c, name in enumerate(CHECK_NAMES):
        first = checks.first_deal(c)
        confirmed = None
        if first is not None and reachable_subdeals(first, REVERIFY_BUDGET) is not None:  # affordable
            confirmed = reverify(name, first)
            if confirmed is False:
                raise ArithmeticError(f"the engine reports {first.label} against {name}, the definition does not")
        results.append(CheckResult(name, int(checks.checked[c]), int(checks.counterexamples[c]), first, confirmed))
    results.append(two_theories)
    return LevelReport(n, LevelStatistics(n, counts), results, seconds)


def scan(max_n: int, *, progress: Callable[[int, int, int], None] | None = None) -> Iterator[LevelReport]:
    """Value every deal with 1 ≤ n ≤ max_n level by level and report statistics and checks."""
    started = time.perf_counter()
    for level in levels(max_n, checks=True, progress=progress):
        counts = level.value_counts()
        assert level.checks is not None
        report = level_report(level.n, counts, level.checks, _two_theories(level), 0.0)
        now = time.perf_counter()
        report.seconds = now - started
        yield report
        started = now
