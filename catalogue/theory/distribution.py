"""Exact outcome distributions of multi-suit deals (Theorem 9.1 of the multi-suit paper).

Wästlund, *On two-person symmetric multi-suit whist*, Theorem 9.1: the outcome of a
symmetric multi-suit deal is ρ (§6.5) of the sum in V (§6.3) of its suits' values.
So when each suit is dealt independently and uniformly — suit i one of the
C(2nᵢ, nᵢ) ways of giving West nᵢ of its 2nᵢ cards — the outcome of the whole
deal is ρ of a sum of independent random values, each distributed as the values
of one level of the catalogue.  Its exact distribution is a convolution in V of
the levels' value counts, however many deals there are.

The sum is kept in the semigroup's own terms: the numerical parts exactly (as
integers over 2^24, the scale of :mod:`.packed` and of the engine's encoding), the
infinitesimal parts added by :class:`~.values.Infinitesimal` itself (§6.1.4), and
ρ is :func:`~.values.rho`.  The suits are split into two halves; each half's sum
is convolved in full, and only the outcome of the two halves' sum is counted —
by cumulative counts for the sums that are not a half-integer (where ρ ignores
the infinitesimal part), and by matching fractional parts for the half-integers
(where the infinitesimal breaks the tie).

The counts are integers; probabilities are formed once, as :class:`~fractions.Fraction`.
The tests check every count against the brute-force minimax of :mod:`.referee`
over every deal, and against sampled deals played through :mod:`.multisuit`.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from fractions import Fraction
from math import comb, prod
from typing import Iterable, Mapping, Sequence

import numpy as np

from whist_catalogue.errors import InvalidValueError
from whist_catalogue.theory.values import ZERO_INF, Infinitesimal, Outcome, Value, rho

__all__ = [
    "OutcomeDistribution",
    "outcome_distribution",
    "MAX_SUITS",
]

SCALE_BITS = 24
_SCALE = 1 << SCALE_BITS
_HALF = _SCALE >> 1
MAX_SUITS = 64
"""Suits a distribution may have: the sums' numerators stay far inside int64 (64 · 25 · 2^24 < 2^35)."""

# A half's sum: for each infinitesimal part, how many deals have each numerical part (× 2^24).
_Sum = dict[Infinitesimal, dict[int, int]]


class OutcomeDistribution:
    """How many deals of given suit sizes have each outcome χ = (West's tricks with West on lead, with East on lead).

    Every deal counts once: ``deals`` = ∏ C(2nᵢ, nᵢ).
    """

    __slots__ = ("sizes", "counts", "deals")

    def __init__(self, sizes: Sequence[int], counts: Mapping[Outcome, int]) -> None:
        self.sizes: tuple[int, ...] = tuple(sizes)
        self.counts: dict[Outcome, int] = {o: c for o, c in sorted(counts.items()) if c}
        self.deals: int = sum(self.counts.values())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OutcomeDistribution):
            return NotImplemented
        return self.sizes == other.sizes and self.counts == other.counts

    def __repr__(self) -> str:
        return f"OutcomeDistribution({self.sizes!r}, {self.counts!r})"

    @property
    def tricks(self) -> int:
        """N = n₁ + … + n_k: the tricks of the whole deal."""
        return sum(self.sizes)

    def probability(self, outcome: Outcome | tuple[int, int]) -> Fraction:
        return Fraction(self.counts.get(Outcome(*outcome), 0), self.deals)

    def probabilities(self) -> dict[Outcome, Fraction]:
        return {o: Fraction(c, self.deals) for o, c in self.counts.items()}

    def marginal(self, leader: str) -> dict[int, int]:
        """Deals with West taking each number of tricks when ``leader`` ("W" or "E") leads."""
        out: dict[int, int] = defaultdict(int)
        for o, c in self.counts.items():
            out[int(o.west_leads if leader == "W" else o.east_leads)] += c
        return dict(sorted(out.items()))

    def expected_tricks(self, leader: str) -> Fraction:
        """E[West's tricks] when ``leader`` leads."""
        return Fraction(sum(t * c for t, c in self.marginal(leader).items()), self.deals)

    @property
    def dealer_advantage(self) -> Fraction:
        """E[tricks of the player who does not lead] − N/2: the dealer's advantage of §11 of the single-suit
        paper, for k suits.  Swapping the hands maps the deals onto themselves, so this is also half of what
        not having the lead is worth: (E[West's tricks, East on lead] − E[West's tricks, West on lead]) / 2."""
        return self.expected_tricks("E") - Fraction(self.tricks, 2)

    @property
    def lead_worth(self) -> Fraction:
        """E[West's tricks with East on lead] − E[West's tricks with West on lead]: the tricks that not having
        the lead is worth (twice :attr:`dealer_advantage`)."""
        return self.expected_tricks("E") - self.expected_tricks("W")

    @property
    def lead_matters(self) -> Fraction:
        """Pr[the outcome depends on who leads]."""
        return Fraction(sum(c for o, c in self.counts.items() if o.west_leads != o.east_leads), self.deals)

    @property
    def leader_gains(self) -> Fraction:
        """Pr[the player on lead takes a trick more than he would without it] (the sum has ±ε₀ on a tie)."""
        return Fraction(sum(c for o, c in self.counts.items() if o.west_leads > o.east_leads), self.deals)

    @property
    def dealer_gains(self) -> Fraction:
        """Pr[the player not on lead takes a trick more than he would on lead]."""
        return Fraction(sum(c for o, c in self.counts.items() if o.west_leads < o.east_leads), self.deals)

    def to_json(self) -> dict[str, object]:
        """Counts as integers, probabilities and expectations as exact ``p/q`` strings."""

        def text(q: Fraction) -> str:
            return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"

        return {
            "sizes": list(self.sizes),
            "deals": self.deals,
            "outcomes": [
                {"west_leads": int(o.west_leads), "east_leads": int(o.east_leads), "deals": c,
                 "probability": text(Fraction(c, self.deals))}
                for o, c in self.counts.items()
            ],
            "expected_west_leads": text(self.expected_tricks("W")),
            "expected_east_leads": text(self.expected_tricks("E")),
            "dealer_advantage": text(self.dealer_advantage),
            "lead_matters": text(self.lead_matters),
            "leader_gains": text(self.leader_gains),
            "dealer_gains": text(self.dealer_gains),
        }


def _scaled(value: Value) -> int:
    scaled = value.number * _SCALE
    if scaled.denominator != 1:
        raise InvalidValueError(f"{value} has a denominator beyond 2^{SCALE_BITS}")
    return scaled.numerator


def _level_sum(counts: Mapping[Value, int]) -> _Sum:
    out: _Sum = {}
    for v, c in counts.items():
        if c:
            out.setdefault(v.infinitesimal, {})[_scaled(v)] = c
    return out


def _add(a: _Sum, b: _Sum) -> _Sum:
    """The distribution of the sum in V of independent values distributed as a and b."""
    out: _Sum = {}
    for xa, da in a.items():
        for xb, db in b.items():
            # §6.1.4 through the theory's own addition of infinitesimals.
            target = out.setdefault(xa + xb, defaultdict(int))
            for qa, ca in da.items():
                for qb, cb in db.items():
                    target[qa + qb] += ca * cb
    return {x: dict(d) for x, d in out.items()}


def _half(levels: Iterable[_Sum]) -> _Sum:
    total: _Sum = {ZERO_INF: {0: 1}}
    for level in levels:
        total = _add(total, level)
    return total


@lru_cache(maxsize=None)
def _tie_class(x: Infinitesimal) -> Outcome:
    """ρ of 1/2 + x: how the infinitesimal breaks a tie (§6.5) — (0, 0), (1, 1), (0, 1) or (1, 0)."""
    return rho(Value(Fraction(1, 2), x))


def _combine(a: _Sum, b: _Sum) -> dict[Outcome, int]:
    """Deals of each outcome ρ(α + β), α distributed as a and β as b, without listing the sums α + β."""
    counts: dict[Outcome, int] = defaultdict(int)

    # Half-integer sums: ρ needs the infinitesimal part, and only through the tie it breaks — four ways (§6.5).
    # Match fractional parts; group B's integer parts by how its infinitesimal breaks the tie with A's.
    xs_b = list(b)
    b_by_fraction: dict[int, list[dict[int, int]]] = defaultdict(lambda: [{} for _ in xs_b])
    for j, xb in enumerate(xs_b):
        for qb, cb in b[xb].items():
            b_by_fraction[qb & (_SCALE - 1)][j][qb >> SCALE_BITS] = cb
    # Deals whose sum is t + 1/2, by how the tie is broken and by t.
    tie_counts: dict[Outcome, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for xa, da in a.items():
        # The theory's addition and ρ, once per pair of infinitesimal parts.
        tie_class = [_tie_class(xa + xb) for xb in xs_b]
        a_by_fraction: dict[int, dict[int, int]] = defaultdict(dict)
        for qa, ca in da.items():
            a_by_fraction[qa & (_SCALE - 1)][qa >> SCALE_BITS] = ca
        for fa, ia in a_by_fraction.items():
            fb = (_HALF - fa) & (_SCALE - 1)
            parts = b_by_fraction.get(fb)
            if parts is None:
                continue
            carry = (fa + fb) >> SCALE_BITS  # 1 when the fractional parts add up to 3/2
            merged: dict[Outcome, dict[int, int]] = defaultdict(lambda: defaultdict(int))  # B's, by tie class
            for j, ib in enumerate(parts):
                if ib:
                    target = merged[tie_class[j]]
                    for tb, cb in ib.items():
                        target[tb] += cb
            for tie, ib in merged.items():
                by_t = tie_counts[tie]
                for ta, ca in ia.items():
                    base = ta + carry
                    for tb, cb in ib.items():
                        by_t[base + tb] += ca * cb
    ties: dict[int, int] = defaultdict(int)  # deals whose sum is t + 1/2, by t
    for (west, east), by_t in tie_counts.items():
        for t, c in by_t.items():
            ties[t] += c
            counts[Outcome(t + west, t + east)] += c

    # Every other sum: ρ rounds to the nearest integer t, whatever the infinitesimal part.  Count the sums below
    # each t + 1/2 from B's cumulative counts; the ones strictly between t − 1/2 and t + 1/2 round to t.
    na: dict[int, int] = defaultdict(int)
    nb: dict[int, int] = defaultdict(int)
    for da in a.values():
        for qa, ca in da.items():
            na[qa] += ca
    for db in b.values():
        for qb, cb in db.items():
            nb[qb] += cb
    qa_array = np.fromiter(na, np.int64, len(na))
    ca_array = np.array(list(na.values()), dtype=object)
    qb_sorted = sorted(nb)
    qb_array = np.array(qb_sorted, np.int64)
    cumulative = np.zeros(len(qb_sorted) + 1, dtype=object)
    cumulative[1:] = np.cumsum(np.array([nb[q] for q in qb_sorted], dtype=object))
    low = (int(qa_array.min()) + qb_sorted[0]) >> SCALE_BITS
    high = ((int(qa_array.max()) + qb_sorted[-1]) >> SCALE_BITS) + 1
    ts = list(range(low - 1, high + 1))
    bounds = np.array([(2 * t + 1) * _HALF for t in ts], np.int64)
    below = np.searchsorted(qb_array, bounds[None, :] - qa_array[:, None], side="left")
    less = ca_array @ cumulative[below]  # less[i]: deals whose sum is below ts[i] + 1/2
    for i in range(1, len(ts)):
        t = ts[i]
        inside = int(less[i]) - int(less[i - 1]) - ties.get(t - 1, 0)
        if inside:
            counts[Outcome(t, t)] += inside
    return counts


def outcome_distribution(sizes: Sequence[int], level_counts: Mapping[int, Mapping[Value, int]]) -> OutcomeDistribution:
    """The exact distribution of χ over every deal with suits of the given sizes.

    ``level_counts[n]`` is how many deals with n cards a hand have each value — a complete level:
    its counts must add up to C(2n, n).
    """
    sizes = tuple(sizes)
    if not sizes:
        raise ValueError("a deal needs at least one suit")
    if len(sizes) > MAX_SUITS:
        raise ValueError(f"at most {MAX_SUITS} suits")
    if any(n < 1 for n in sizes):
        raise ValueError("every suit needs at least one card a hand")
    levels: dict[int, _Sum] = {}
    for n in set(sizes):
        counts = level_counts[n]
        if sum(counts.values()) != comb(2 * n, n) or any(c < 0 for c in counts.values()):
            raise ValueError(f"the value counts of level {n} are not complete: they add up to "
                             f"{sum(counts.values())}, not C({2 * n}, {n}) = {comb(2 * n, n)}")
        levels[n] = _level_sum(counts)
    # Balance the halves by the number of distinct sums, which grows with the suits' sizes.
    order = sorted(sizes, reverse=True)
    first, second = [], []
    for n in order:
        (first if sum(first) <= sum(second) else second).append(n)
    counts = _combine(_half(levels[n] for n in first), _half(levels[n] for n in second))
    result = OutcomeDistribution(sizes, counts)
    if result.deals != prod(comb(2 * n, n) for n in sizes):
        raise ArithmeticError(f"{result.deals} deals counted for sizes {sizes}")  # a bug, never an input
    return result
