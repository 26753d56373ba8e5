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
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import numpy as np
from numpy.typing import DTypeLike

from whist_catalogue.constants import SCALE, SCALE_BITS
from whist_catalogue.errors import counted
from whist_catalogue.theory.packed import scaled
from whist_catalogue.theory.values import ZERO_INF, Infinitesimal, Outcome, Value, rho

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "OutcomeDistribution",
    "outcome_distribution",
    "draw_distribution",
    "MAX_SUITS",
]

_HALF = SCALE >> 1
MAX_SUITS = 64
"""Suits a distribution may have: the sums' numerators stay far inside int64 (64 · 25 · 2^24 < 2^35)."""

# A half's sum: for each infinitesimal part, how many deals have each numerical part (× 2^24).
_Sum = dict[Infinitesimal, dict[int, int]]


class OutcomeDistribution:
    """How many deals of given suit sizes have each outcome χ = (West's tricks with West on lead, with East on lead).

    Every deal counts once: ``deals`` = ∏ C(2nᵢ, nᵢ).  Rendered once for every interface: :meth:`to_json`
    (``distribution --json``), :meth:`text` (the command line), :meth:`headline` and :meth:`summary` (the
    app shows the same rows), :func:`draw_distribution` (the app and the distributions report).
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

    def summary(self) -> tuple[tuple[str, Fraction], ...]:
        """What follows from the counts, as people read it: (what, the exact number), in the order shown."""
        return (
            ("E[West's tricks], West leads", self.expected_tricks("W")),
            ("E[West's tricks], East leads", self.expected_tricks("E")),
            ("dealer's advantage (E[non-leader's tricks] − N/2)", self.dealer_advantage),
            ("Pr[the lead changes the outcome]", self.lead_matters),
            ("  the leader gains a trick", self.leader_gains),
            ("  the non-leader gains a trick", self.dealer_gains),
        )

    def headline(self) -> str:
        return (f"suits {','.join(map(str, self.sizes))}: {counted(len(self.sizes), 'suit')}, "
                f"{counted(self.tricks, 'trick')}, {self.deals:,} deals")

    def text(self) -> str:
        """The distribution for a terminal (``whist-catalogue distribution``): every outcome, then :meth:`summary`."""
        width = max(len(f"{c:,}") for c in self.counts.values())
        lines = [self.headline(), "  West's tricks        deals      probability", "  West leads  East leads"]
        for o, c in self.counts.items():
            p = Fraction(c, self.deals)
            lines.append(f"  {int(o.west_leads):>10}  {int(o.east_leads):>10}  {c:>{width},}  {float(p):.6f}  {p}")
        lines += [f"{what}: {float(q):.6f} = {q}" for what, q in self.summary()]
        return "\n".join(lines)

    def to_json(self) -> dict[str, object]:
        """Counts as integers, probabilities and expectations as exact ``p/q`` strings."""
        return {
            "sizes": list(self.sizes),
            "deals": self.deals,
            "outcomes": [
                {"west_leads": int(o.west_leads), "east_leads": int(o.east_leads), "deals": c,
                 "probability": str(Fraction(c, self.deals))}
                for o, c in self.counts.items()
            ],
            "expected_west_leads": str(self.expected_tricks("W")),
            "expected_east_leads": str(self.expected_tricks("E")),
            "dealer_advantage": str(self.dealer_advantage),
            "lead_matters": str(self.lead_matters),
            "leader_gains": str(self.leader_gains),
            "dealer_gains": str(self.dealer_gains),
        }


def _level_sum(counts: Mapping[Value, int]) -> _Sum:
    out: _Sum = {}
    for v, c in counts.items():
        if c:
            out.setdefault(v.infinitesimal, {})[scaled(v)] = c
    return out


def _total(a: _Sum) -> int:
    return sum(sum(d.values()) for d in a.values())


def _add(a: _Sum, b: _Sum) -> _Sum:
    """The distribution of the sum in V of independent values distributed as a and b."""
    return _convolve(a, b, np.int64 if _total(a) * _total(b) < 1 << 62 else object)


def _convolve(a: _Sum, b: _Sum, dtype: DTypeLike) -> _Sum:
    """:func:`_add` by outer sums and products in NumPy, then each numerical part's counts added up (sorted, summed
    by runs); the counts of ``dtype``: int64 while every count of the sum fits, else object (Python integers)."""
    arrays_b = [(xb, np.fromiter(db, np.int64, len(db)), np.fromiter(db.values(), dtype, len(db)))
                for xb, db in b.items()]
    parts: dict[Infinitesimal, list[tuple[np.ndarray, np.ndarray]]] = defaultdict(list)
    for xa, da in a.items():
        qa = np.fromiter(da, np.int64, len(da))
        ca = np.fromiter(da.values(), dtype, len(da))
        for xb, qb, cb in arrays_b:
            # §6.1.4 through the theory's own addition of infinitesimals.
            parts[xa + xb].append((np.add.outer(qa, qb).ravel(), np.multiply.outer(ca, cb).ravel()))
    out: _Sum = {}
    for x, pieces in parts.items():
        sums = np.concatenate([p[0] for p in pieces])
        counts = np.concatenate([p[1] for p in pieces])
        order = np.argsort(sums, kind="stable")
        sums, counts = sums[order], counts[order]
        starts = np.flatnonzero(np.concatenate(([True], sums[1:] != sums[:-1])))
        out[x] = dict(zip(sums[starts].tolist(), np.add.reduceat(counts, starts).tolist()))
    return out


def _half(levels: Iterable[_Sum]) -> _Sum:
    total: _Sum = {ZERO_INF: {0: 1}}
    for level in levels:
        total = _add(total, level)
    return total


@lru_cache(maxsize=None)
def _tie_class(x: Infinitesimal) -> Outcome:
    """ρ of 1/2 + x: how the infinitesimal breaks a tie (§6.5) — (0, 0), (1, 1), (0, 1) or (1, 0)."""
    return rho(Value(Fraction(1, 2), x))


_LIMB_BITS = 20
_LIMBS = 3
"""Counts below 2^60 are split into three 20-bit limbs, so that a product of limbs summed over up to 2^23 terms
stays inside int64: NumPy's integer matrix product then counts exactly, and Python ints put the limbs together."""


def _exact_dot(weights: list[int], columns: np.ndarray) -> list[int]:
    """Σ_i weights[i] · columns[i, j] for every j, exactly (columns: nonnegative integers)."""
    if len(weights) < 1 << 23 and max(weights, default=0) < 1 << 60 and int(columns.max(initial=0)) < 1 << 60:
        w = np.array(weights, dtype=np.int64)
        c = columns.astype(np.int64)
        mask = (1 << _LIMB_BITS) - 1
        w_limbs = [(w >> (_LIMB_BITS * i)) & mask for i in range(_LIMBS)]
        c_limbs = [(c >> (_LIMB_BITS * i)) & mask for i in range(_LIMBS)]
        totals = [0] * columns.shape[1]
        for i, wl in enumerate(w_limbs):
            for j, cl in enumerate(c_limbs):
                part = wl @ cl
                shift = _LIMB_BITS * (i + j)
                for k, value in enumerate(part.tolist()):
                    totals[k] += value << shift
        return totals
    return [int(x) for x in np.array(weights, dtype=object) @ columns.astype(object)]


def _combine(a: _Sum, b: _Sum) -> dict[Outcome, int]:
    """Deals of each outcome ρ(α + β), α distributed as a and β as b, without listing the sums α + β."""
    counts: dict[Outcome, int] = defaultdict(int)

    # Half-integer sums: ρ needs the infinitesimal part, and only through the tie it breaks — four ways (§6.5).
    # Match fractional parts; for each of A's infinitesimal parts, add up B's counts by how the tie is broken.
    xs_b = list(b)
    classes: list[Outcome] = []
    class_of: dict[Outcome, int] = {}
    # B by fractional part: which infinitesimal parts occur (as indices into xs_b), and a dense matrix of counts,
    # one row per infinitesimal part, one column per integer part from the least one.
    rows: dict[int, dict[int, dict[int, int]]] = defaultdict(dict)
    for j, xb in enumerate(xs_b):
        for qb, cb in b[xb].items():
            rows[qb & (SCALE - 1)].setdefault(j, {})[qb >> SCALE_BITS] = cb
    b_by_fraction: dict[int, tuple[np.ndarray, int, np.ndarray]] = {}
    for fb, by_x in rows.items():
        low = min(min(d) for d in by_x.values())
        high = max(max(d) for d in by_x.values())
        matrix = np.zeros((len(by_x), high - low + 1), dtype=object)
        for r, d in enumerate(by_x.values()):
            for t, c in d.items():
                matrix[r, t - low] = c
        b_by_fraction[fb] = (np.fromiter(by_x, np.int64, len(by_x)), low, matrix)
    tie_totals: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))  # by class, by t: sum = t + 1/2
    for xa, da in a.items():
        # The theory's addition and ρ, once per pair of infinitesimal parts.
        tie_class = np.empty(len(xs_b), np.int64)
        for j, xb in enumerate(xs_b):
            outcome = _tie_class(xa + xb)
            if outcome not in class_of:
                class_of[outcome] = len(classes)
                classes.append(outcome)
            tie_class[j] = class_of[outcome]
        a_by_fraction: dict[int, dict[int, int]] = defaultdict(dict)
        for qa, ca in da.items():
            a_by_fraction[qa & (SCALE - 1)][qa >> SCALE_BITS] = ca
        for fa, ia in a_by_fraction.items():
            fb = (_HALF - fa) & (SCALE - 1)
            found = b_by_fraction.get(fb)
            if found is None:
                continue
            present, low_b, matrix = found
            carry = (fa + fb) >> SCALE_BITS  # 1 when the fractional parts add up to 3/2
            low_a = min(ia)
            vector = np.zeros(max(ia) - low_a + 1, dtype=object)
            for t, c in ia.items():
                vector[t - low_a] = c
            row_class = tie_class[present]
            for k in np.unique(row_class).tolist():
                merged = matrix[row_class == k].sum(axis=0)
                by_t = tie_totals[k]
                for offset, c in enumerate(np.convolve(vector, merged).tolist()):
                    if c:
                        by_t[low_a + low_b + carry + offset] += c
    ties: dict[int, int] = defaultdict(int)  # deals whose sum is t + 1/2, by t
    for k, by_t in tie_totals.items():
        west, east = classes[k]
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
    qb_sorted = sorted(nb)
    qb_array = np.array(qb_sorted, np.int64)
    running = 0
    cumulative_list = [0]
    for q in qb_sorted:
        running += nb[q]
        cumulative_list.append(running)
    cumulative = np.array(cumulative_list, dtype=np.int64 if running < 1 << 62 else object)
    low = (int(qa_array.min()) + qb_sorted[0]) >> SCALE_BITS
    high = ((int(qa_array.max()) + qb_sorted[-1]) >> SCALE_BITS) + 1
    ts = list(range(low - 1, high + 1))
    bounds = np.array([(2 * t + 1) * _HALF for t in ts], np.int64)
    below = np.searchsorted(qb_array, bounds[None, :] - qa_array[:, None], side="left")
    less = _exact_dot(list(na.values()), cumulative[below])  # less[i]: deals whose sum is below ts[i] + 1/2
    for i in range(1, len(ts)):
        t = ts[i]
        inside = less[i] - less[i - 1] - ties.get(t - 1, 0)
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
    first: list[int] = []
    second: list[int] = []
    for n in order:
        (first if sum(first) <= sum(second) else second).append(n)
    result = OutcomeDistribution(sizes, _combine(_half(levels[n] for n in first), _half(levels[n] for n in second)))
    if result.deals != prod(comb(2 * n, n) for n in sizes):
        raise ArithmeticError(f"{result.deals} deals counted for sizes {sizes}")  # a bug, never an input
    return result


def draw_distribution(figure: Figure, result: OutcomeDistribution) -> None:
    """Plot a distribution onto ``figure`` (cleared first): West's tricks with West and with East on lead, and how
    often the lead changes the outcome.  Used by the app and by ``scripts/reports/distributions.py``; the caller
    imports matplotlib, this module does not."""
    figure.clear()
    left, right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [3, 1]})
    west, east = result.marginal("W"), result.marginal("E")
    tricks = sorted(set(west) | set(east))
    width = 0.4
    left.bar([t - width / 2 for t in tricks], [west.get(t, 0) / result.deals for t in tricks], width,
             label=f"West on lead (mean {float(result.expected_tricks('W')):.4f})", color="#2563eb")
    left.bar([t + width / 2 for t in tricks], [east.get(t, 0) / result.deals for t in tricks], width,
             label=f"East on lead (mean {float(result.expected_tricks('E')):.4f})", color="#f59e0b")
    # Both tails fade below the resolution of a plot long before 0 and N tricks: show where the mass is.
    shown = [t for t in tricks if max(west.get(t, 0), east.get(t, 0)) * 10**5 >= result.deals] or tricks
    left.set_xlim(shown[0] - 1, shown[-1] + 1)
    from matplotlib.ticker import MaxNLocator  # the caller has matplotlib; a look-up never loads it

    left.xaxis.set_major_locator(MaxNLocator(integer=True))
    left.set_xlabel("West's tricks")
    left.set_ylabel("probability")
    left.set_title(f"suits {','.join(map(str, result.sizes))}: {result.deals:.3e} deals" if result.deals > 10**6
                   else f"suits {','.join(map(str, result.sizes))}: {result.deals:,} deals")
    left.legend(loc="upper left", fontsize="small")
    shares = [float(result.dealer_gains), float(result.leader_gains)]
    # A narrow panel beside the wide one: short labels in a small font, so that at 1000×700 nothing overlaps.
    right.bar(["non-\nleader", "leader"], shares, color=["#f59e0b", "#2563eb"])
    right.set_ylabel("Pr[gains a trick by the lead]", fontsize="small")
    right.set_title(f"lead changes\nthe outcome:\n{float(result.lead_matters):.4f}", fontsize="small")
    right.tick_params(labelsize="small")
    for k, share in enumerate(shares):
        right.annotate(f"{share:.2g}", (k, share), ha="center", va="bottom", fontsize="x-small")
    figure.suptitle(f"dealer's advantage E[non-leader's tricks] − N/2 = {float(result.dealer_advantage):.5f}")
