"""Section 11 of the single-suit paper: counts, limit law, dealer's advantage, value of the ace.

Wästlund, *A solution of two-person single-suit whist*, §11
(``papers/single-suit-whist.md``), for a deal drawn uniformly from the C(2n, n)
deals with n cards a hand:

* **exact, over every deal of a level** (:func:`exact_level`, by the per-level
  kernels of :mod:`whist_catalogue.single_suit.formulas`): Lemma 11.2 (T₀ uniform on
  {−n, −n+2, …, n}); Theorem 11.4, formula (38), the number of deals with
  T_k > 0 (:func:`count_t_positive_formula`); the distribution of H of
  Theorem 9.1; the expected tricks of the dealer (§11.3, Theorem 11.12) and of
  the holders of the ace and the king (§11.4); the bounds of Theorem 11.8,
  Lemma 11.9 and Theorem 11.11 (Pr[H = H̄ | East holds the ace]);
  Lemma 11.7 exactly by its hypergeometric probability (:func:`lemma_11_7_margin`);
  Theorem 11.1, the generalised ballot theorem, by counting lattice paths
  (:func:`touching_paths`);
* **the limit law** of Theorem 11.5, H_n/√n → ξ: Pr[ξ > x] as the integral (53)
  (:func:`limit_survival_integral`) and as the closed form (55) with the
  confluent hypergeometric ₁F₁ (:func:`limit_survival`), the density, and the
  Taylor expansion quoted after (63) (:func:`taylor_coefficients`);
* **sampling** beyond the catalogue with the batched linear-time algorithm of
  Theorem 10.1 (:func:`sample_statistics`): the Kolmogorov–Smirnov distance of
  H_n/√n to the limit law, and the dealer's and the ace holder's advantages with
  95 % confidence intervals;
* figures that both ``scripts/reports/asymptotics.py`` and the desktop app
  draw (:func:`draw_figure` on a given matplotlib ``Figure``).

Exact results are integers and :class:`~fractions.Fraction`; floats appear
only in the limit law and in sampled statistics.

Two estimators deserve a word.  *Dealer's advantage*: who deals is independent
of the cards, so average over both seats — the dealer gains exactly
½·[H ≢ n (mod 2)] over n/2 (West's tricks are ⌊(n+H)/2⌋ on lead and ⌈(n+H)/2⌉
otherwise), a bounded quantity with a small variance.  *Ace holder's advantage*:
with the lead decided at random the ace holder's tricks minus the opponent's
are ±H; §11.4's involution ψ maps the deals where West holds the ace onto
themselves, preserving the uniform distribution, and makes H(D) + H(ψ(D)) ≈ 2,
so the pair mean (H(D′) + H(ψ(D′)))/2, D′ the deal turned so that West holds
the ace, is an unbiased estimator whose variance is far below that of H alone.
The king gets the same treatment with ψ_K, which keeps the two top cards and
reverses cards 1 … 2n−2; the report shows both estimators side by side.
"""

from __future__ import annotations

import math
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from whist_catalogue.errors import InvalidDealError
from whist_catalogue.single_suit.formulas import level_quantities
from whist_catalogue.single_suit.kernels import level_statistics_kernel, reversed_below_kernel
from whist_catalogue.single_suit.linear_time import sample_deals
from whist_catalogue.theory.jit import announcing

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "catalan",
    "count_t_positive_formula",
    "ExactLevel",
    "exact_level",
    "lemma_11_7_margin",
    "touching_paths",
    "ballot_formula",
    "limit_survival_integral",
    "limit_survival",
    "limit_cdf",
    "limit_density",
    "limit_moment",
    "taylor_coefficients",
    "PAPER_TAYLOR",
    "ks_distance",
    "sample_h",
    "Estimate",
    "SampledLevel",
    "sample_statistics",
    "SAMPLE_PLAN",
    "AsymptoticsData",
    "compute_data",
    "FIGURES",
    "draw_figure",
]

Z95 = 1.959963984540054
"""The two-sided 95 % quantile of the standard normal distribution."""


# -- exact counts ---------------------------------------------------------------------------
def catalan(n: int) -> int:
    return comb(2 * n, n) // (n + 1)


def count_t_positive_formula(n: int, k: int) -> int:
    """Formula (38) of Theorem 11.4: the number of deals with n cards a hand and T_k > 0, for 1 ≤ k ≤ n.

    Σ_{m=k}^{⌈(n+k)/2⌉} (k/m) C(2m, m+k) · (⌈(n+k)/2⌉ − m)/(n − m + 1) · C(2n−2m, n−m),
    summed exactly; the sum must come out an integer.
    """
    if not 1 <= k <= n:
        raise ValueError(f"formula (38) is stated for 1 ≤ k ≤ n, got k = {k}, n = {n}")
    top = -(-(n + k) // 2)
    total = sum(
        Fraction(k, m) * comb(2 * m, m + k) * Fraction(top - m, n - m + 1) * comb(2 * n - 2 * m, n - m)
        for m in range(k, top + 1)
    )
    if total.denominator != 1:
        raise ArithmeticError(f"formula (38) gives a non-integer {total} for n = {n}, k = {k}")
    return int(total)


@dataclass(frozen=True)
class ExactLevel:
    """§11's quantities over every deal with n cards a hand, counted exactly."""

    n: int
    deals: int
    """C(2n, n)."""
    t0_counts: dict[int, int]
    """T₀ → number of deals (Lemma 11.2 says: C(2n,n)/(n+1) for each of −n, −n+2, …, n)."""
    t_positive: dict[int, int]
    """k → number of deals with T_k > 0, −n < k < n (formula (38) for k ≥ 1)."""
    t_one_or_two: dict[int, int]
    """k → number of deals with T_k ∈ {1, 2} (Lemma 11.9)."""
    t_nonnegative_from: dict[int, int]
    """h → number of deals with T_k ≥ 0 for some h ≤ k < n, 0 ≤ h ≤ n (Theorem 11.8)."""
    h_counts: dict[int, int]
    """H → number of deals (Theorem 9.1)."""
    h_counts_west_ace: dict[int, int]
    """H → number of deals where West holds the ace."""
    dealer_tricks_east_deals: Fraction
    """Expected tricks of East when East deals (West leads): n − ⌊(n+H)/2⌋."""
    dealer_tricks_west_deals: Fraction
    """Expected tricks of West when West deals (East leads): ⌈(n+H)/2⌉."""
    parity_differs: int
    """Deals with H ≢ n (mod 2): the lead costs a trick."""
    ace_holder_tricks: Fraction
    """Expected tricks of the ace holder, the lead decided at random: (n ± H)/2."""
    ace_advantage: Fraction
    """Expected tricks of the ace holder minus his opponent's (lead at random): E[±H]."""
    king_advantage: Fraction
    """The same for the holder of the king, card 2n − 1 (the remark closing §11.4)."""
    east_ace_h_upper: int
    """Deals where East holds the ace and H = H̄ (Theorem 11.11)."""
    ace_rule: int
    """Deals where H = H̄ if West holds the ace and H = H̲ if East does (§11.2)."""
    psi_pair_sums: dict[int, int]
    """H(D) + H(ψ(D)) → number of deals D where West holds the ace (ψ of §11.4)."""
    psi_identity_failures: int
    """West-ace deals with H(D) + H(ψ(D)) ≠ [H(D) = H̄(D)] + [H(ψ(D)) = H̄(ψ(D))] (an observation, not the paper's)."""
    seconds: float = field(default=0.0, compare=False)

    @property
    def dealer_advantage(self) -> Fraction:
        """Expected tricks of the dealer minus n/2 (Theorem 11.12 predicts 1/4 + O(n^(−1/5)))."""
        return self.dealer_tricks_west_deals - Fraction(self.n, 2)

    def lemma_11_2_holds(self) -> bool:
        uniform = self.deals // (self.n + 1)
        return self.t0_counts == {t: uniform for t in range(-self.n, self.n + 1, 2)} and uniform == catalan(self.n)

    def formula_38_mismatches(self) -> list[int]:
        """The k ≥ 1 for which (38) disagrees with the count (empty when the theorem holds)."""
        return [k for k in range(1, self.n) if count_t_positive_formula(self.n, k) != self.t_positive[k]]

    def theorem_11_8_margin(self) -> float:
        """max over integers h ≥ 1 of Pr[some k ≥ h has T_k ≥ 0] / (2 e^(−h²/2n)); ≤ 1 when the bound holds."""
        return max(
            (self.t_nonnegative_from[h] / self.deals) / (2 * math.exp(-h * h / (2 * self.n)))
            for h in range(1, self.n + 1)
        )

    def lemma_11_9_margin(self) -> float:
        """max over 0 ≤ k < n of Pr[T_k ∈ {1, 2}] / (2/(n − k + 3)); ≤ 1 when the bound holds."""
        return max((self.t_one_or_two[k] / self.deals) / (2 / (self.n - k + 3)) for k in range(0, self.n))

    @property
    def east_ace_h_upper_probability(self) -> Fraction:
        """Pr[H = H̄ | East holds the ace]; Theorem 11.11 bounds it by 2√(log n / n) + O(1/√n)."""
        return Fraction(self.east_ace_h_upper, self.deals // 2)

    def ks_distance(self) -> float:
        """sup_x |Pr[H_n/√n ≤ x] − Pr[ξ ≤ x]|, exactly over the level."""
        values = np.array(sorted(self.h_counts))
        counts = np.array([self.h_counts[h] for h in values])
        return ks_distance(values, counts, self.n)


@lru_cache(maxsize=None)
def exact_level(n: int) -> ExactLevel:
    """Count §11's quantities over all C(2n, n) deals of level n (about 5 s for n = 14)."""

    if not 1 <= n <= 16:
        raise InvalidDealError(f"exact counts are for 1 ≤ n ≤ 16, got {n}")
    start = time.perf_counter()
    level = level_quantities(n)
    size = len(level)
    h = level.h.astype(np.int64)
    lower = level.h_lower.astype(np.int64)
    upper = level.h_upper.astype(np.int64)
    west_ace = level.ace_west
    west_king = ((level.masks >> (2 * n - 2)) & 1).astype(bool)

    chunks = min(size, 64)
    t0 = np.zeros((chunks, 2 * n + 1), np.int64)
    positive = np.zeros((chunks, 2 * n + 1), np.int64)
    one_or_two = np.zeros((chunks, 2 * n + 1), np.int64)
    from_h = np.zeros((chunks, n + 1), np.int64)
    level_statistics_kernel(level.masks, n, t0, positive, one_or_two, from_h)
    t0, positive, one_or_two, from_h = (a.sum(axis=0) for a in (t0, positive, one_or_two, from_h))

    def histogram(values: np.ndarray) -> dict[int, int]:
        keys, counts = np.unique(values, return_counts=True)
        return {int(k): int(c) for k, c in zip(keys, counts)}

    sign_ace = np.where(west_ace, 1, -1)
    sign_king = np.where(west_king, 1, -1)
    west_on_lead = (n + h) // 2
    east_on_lead = (n + h + 1) // 2
    rule = h == np.where(west_ace, upper, lower)
    # ψ reverses cards 1 … 2n−1 and keeps the ace: value the partners directly.
    ace_masks = np.ascontiguousarray(level.masks[west_ace])
    psi_h = np.empty(ace_masks.shape[0], np.int64)
    psi_upper = np.empty(ace_masks.shape[0], np.int64)
    reversed_below_kernel(ace_masks, n, 1, psi_h, psi_upper)
    pair_sums = h[west_ace] + psi_h
    identity = rule[west_ace].astype(np.int64) + (psi_h == psi_upper).astype(np.int64)
    return ExactLevel(
        n=n,
        deals=size,
        t0_counts={t - n: int(c) for t, c in enumerate(t0) if c},
        t_positive={k: int(positive[k + n]) for k in range(-n + 1, n)},
        t_one_or_two={k: int(one_or_two[k + n]) for k in range(-n + 1, n)},
        t_nonnegative_from={hh: int(from_h[hh]) for hh in range(n + 1)},
        h_counts=histogram(h),
        h_counts_west_ace=histogram(h[west_ace]),
        dealer_tricks_east_deals=Fraction(int((n - west_on_lead).sum()), size),
        dealer_tricks_west_deals=Fraction(int(east_on_lead.sum()), size),
        parity_differs=int(((n + h) % 2 == 1).sum()),
        ace_holder_tricks=Fraction(int((n + sign_ace * h).sum()), 2 * size),
        ace_advantage=Fraction(int((sign_ace * h).sum()), size),
        king_advantage=Fraction(int((sign_king * h).sum()), size),
        east_ace_h_upper=int(((h == upper) & ~west_ace).sum()),
        ace_rule=int(rule.sum()),
        psi_pair_sums=histogram(pair_sums),
        psi_identity_failures=int((pair_sums != identity).sum()),
        seconds=time.perf_counter() - start,
    )


def lemma_11_7_margin(n: int) -> float:
    """max over i ≤ j of Pr[A_ij = 1 | East holds card 2n] / e^(−(j−i)²/2n); ≤ 1 when Lemma 11.7 holds.

    Exact: A_ij = 1 iff more than (i+j−1+j−i)/2 of the i+j−1 lowest cards are
    East's, and given East's ace the lowest 2n−1 cards hold n−1 East cards in
    uniformly random places, a hypergeometric count.
    """
    total = comb(2 * n - 1, n - 1)
    worst = 0.0
    for i in range(1, n + 1):
        for j in range(i, n + 1):
            k, p = j - i, i + j - 1
            favourable = sum(
                comb(p, e) * comb(2 * n - 1 - p, n - 1 - e) for e in range(max(0, p - n), min(p, n - 1) + 1) if 2 * e - p > k
            )
            worst = max(worst, favourable / total / math.exp(-k * k / (2 * n)))
    return worst


def touching_paths(p: int, q: int, k: int) -> int:
    """Lattice paths from (0, 0) to (p, q), unit steps up or right, with exactly one point on j − i = k (by counting)."""
    # ways[i][j][t]: paths to (i, j) meeting the line t times so far (t = 0, 1, or 2 meaning "more").
    ways = [[[0, 0, 0] for _ in range(q + 1)] for _ in range(p + 1)]
    ways[0][0][1 if k == 0 else 0] = 1
    for i in range(p + 1):
        for j in range(q + 1):
            if i == j == 0:
                continue
            on_line = j - i == k
            for t in range(3):
                came = (ways[i - 1][j][t] if i else 0) + (ways[i][j - 1][t] if j else 0)
                if came:
                    ways[i][j][min(t + on_line, 2)] += came
    return ways[p][q][1]


def ballot_formula(p: int, q: int, k: int) -> Fraction:
    """Theorem 11.1 for 0 ≤ p ≤ p + k ≤ q, and its reflection for k > q − p: the number of k-touching paths."""
    if 0 <= p and 0 <= k <= q - p:
        return Fraction(q - p, q + p) * comb(p + q, p)
    return Fraction(p - q + 2 * k, p + q) * comb(p + q, p + k)


# -- the limit law --------------------------------------------------------------------------
def _integrand(t: float, x: float) -> float:
    return (1 - t) * math.exp(-2 * x * x / t) / (t**1.5 * (2 - t) ** 1.5)


def limit_survival_integral(x: float) -> float:
    """Pr[ξ > x] for x > 0 by the integral (53), with adaptive quadrature."""
    from scipy.integrate import quad

    if x <= 0:
        raise ValueError(f"(53) holds for x > 0, got {x}")
    value, _ = quad(_integrand, 0.0, 1.0, args=(x,), epsabs=1e-14, epsrel=1e-13, limit=500)
    return 2 * x / math.sqrt(math.pi) * value


_TAIL = 8.0
"""Beyond x = 8 the two terms of (55) overflow and cancel; Pr[ξ > 8] < 1e-58 by (53), so it is taken as 0."""


def _closed_form(x: np.ndarray) -> np.ndarray:
    from scipy.special import hyp1f1

    x = np.minimum(x, _TAIL)
    value = (0.5 + x * x) * np.exp(-x * x) - 2 * x * np.exp(-2 * x * x) / math.sqrt(math.pi) * hyp1f1(2.0, 1.5, x * x)
    return np.where(x < _TAIL, value, 0.0)


def limit_survival(x: float | np.ndarray) -> float | np.ndarray:
    """Pr[ξ > x] for every real x: the closed form (55) for x > 0, 1/2 at 0, and Pr[ξ > x] = 1 − Pr[ξ > −x] below."""
    a = np.asarray(x, dtype=float)
    g = _closed_form(np.abs(a))
    out = np.where(a > 0, g, np.where(a < 0, 1 - g, 0.5))
    return float(out) if out.ndim == 0 else out


def limit_cdf(x: float | np.ndarray) -> float | np.ndarray:
    """Pr[ξ ≤ x], the limit law of H_n/√n (Theorem 11.5)."""
    return 1 - limit_survival(x)


def limit_density(x: float | np.ndarray) -> float | np.ndarray:
    """The density of ξ, −d/dx of (55) (even in x; 2/√π at the peak x = 0)."""
    from scipy.special import hyp1f1

    full = np.abs(np.asarray(x, dtype=float))
    a = np.minimum(full, _TAIL)
    z = a * a
    # d/dx ₁F₁(2; 3/2; x²) = 2x · (4/3) ₁F₁(3; 5/2; x²).
    inner = (1 - 4 * z) * hyp1f1(2.0, 1.5, z) + (8.0 / 3.0) * z * hyp1f1(3.0, 2.5, z)
    out = -(a - 2 * a**3) * np.exp(-z) + 2 / math.sqrt(math.pi) * np.exp(-2 * z) * inner
    out = np.where(full < _TAIL, out, 0.0)
    return float(out) if out.ndim == 0 else out


def limit_moment(power: int) -> float:
    """E[|ξ|^power], by integrating the density."""
    from scipy.integrate import quad

    value, _ = quad(lambda t: t**power * float(limit_density(t)), 0.0, _TAIL, epsabs=1e-13, epsrel=1e-12, limit=500)
    return 2 * value


def taylor_coefficients(order: int) -> list[tuple[Fraction, Fraction]]:
    """The Taylor coefficients c_0 … c_order of (55) at 0, exactly: c_m = a_m + b_m/√π as (a_m, b_m).

    (1/2 + x²) e^(−x²) gives the even powers, −(2x/√π) e^(−2x²) ₁F₁(2; 3/2; x²) the odd ones.
    """
    half = order // 2 + 1
    exp1 = [Fraction((-1) ** j, math.factorial(j)) for j in range(half + 1)]  # e^(−z)
    exp2 = [Fraction((-2) ** j, math.factorial(j)) for j in range(half + 1)]  # e^(−2z)
    hyper, term = [], Fraction(1)
    for j in range(half + 1):  # ₁F₁(2; 3/2; z) = Σ (2)_j / ((3/2)_j j!) z^j
        hyper.append(term)
        term = term * (2 + j) / (Fraction(3, 2) + j) / (j + 1)
    even = [Fraction(1, 2) * exp1[j] + (exp1[j - 1] if j else 0) for j in range(half + 1)]
    odd = [sum(exp2[i] * hyper[j - i] for i in range(j + 1)) for j in range(half + 1)]
    coefficients = []
    for m in range(order + 1):
        if m % 2 == 0:
            coefficients.append((even[m // 2], Fraction(0)))
        else:
            coefficients.append((Fraction(0), Fraction(-2 * odd[m // 2])))
    return coefficients


PAPER_TAYLOR: tuple[tuple[Fraction, Fraction], ...] = (
    (Fraction(1, 2), Fraction(0)),
    (Fraction(0), Fraction(-2)),
    (Fraction(1, 2), Fraction(0)),
    (Fraction(0), Fraction(4, 3)),
    (Fraction(-3, 4), Fraction(0)),
    (Fraction(0), Fraction(-4, 15)),
    (Fraction(5, 12), Fraction(0)),
)
"""The expansion quoted after (63): 1/2 − (2/√π)x + x²/2 + (4/(3√π))x³ − (3/4)x⁴ − (4/(15√π))x⁵ + (5/12)x⁶."""


def ks_distance(values: np.ndarray, counts: np.ndarray, n: int) -> float:
    """Kolmogorov–Smirnov distance between the law of H/√n given by a histogram of H and the limit law."""
    order = np.argsort(values)
    values = np.asarray(values, dtype=float)[order]
    counts = np.asarray(counts, dtype=float)[order]
    cumulative = np.cumsum(counts) / counts.sum()
    before = np.concatenate(([0.0], cumulative[:-1]))
    limit = np.asarray(limit_cdf(values / math.sqrt(n)))
    # The limit is continuous, so the supremum is reached at a jump, on one side or the other.
    return float(max(np.abs(cumulative - limit).max(), np.abs(before - limit).max()))


# -- sampling -------------------------------------------------------------------------------
def sample_h(n: int, count: int, seed: int) -> np.ndarray:
    """H of ``count`` uniformly random deals with n cards a hand (linear-time algorithm, seeded)."""
    return sample_deals(n, count, seed).h


@dataclass(frozen=True)
class Estimate:
    """A sample mean with its 95 % normal confidence interval."""

    mean: float
    half_width: float

    @classmethod
    def of(cls, values: np.ndarray) -> Estimate:
        values = np.asarray(values, dtype=float)
        return cls(float(values.mean()), float(Z95 * values.std(ddof=1) / math.sqrt(values.size)))

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    def __str__(self) -> str:
        return f"{self.mean:.4f} ± {self.half_width:.4f}"


@dataclass(frozen=True)
class SampledLevel:
    """Statistics of ``count`` random deals with n cards a hand."""

    n: int
    count: int
    seed: int
    h_values: np.ndarray = field(repr=False, compare=False)
    """The values H takes in the sample, ascending."""
    h_counts: np.ndarray = field(repr=False, compare=False)
    """How often each value occurs."""
    ks: float
    """Kolmogorov–Smirnov distance of H/√n to the limit law."""
    scaled_mean: float
    """Mean of H/√n."""
    scaled_std: float
    """Standard deviation of H/√n."""
    dealer_advantage: Estimate
    """Expected tricks of the dealer minus n/2 (Theorem 11.12: 1/4)."""
    ace_advantage: Estimate
    """Ace holder's expected tricks minus the opponent's, by the ψ pairs (§11.4: 1)."""
    ace_advantage_plain: Estimate
    """The same from ±H alone, for comparison."""
    king_advantage: Estimate
    """The same for the king (§11.4: 1/2), by the ψ_K pairs (cards 1 … 2n−2 reversed)."""
    king_advantage_plain: Estimate
    """The same from ±H alone."""
    east_ace_h_upper: Estimate
    """Pr[H = H̄ | East holds the ace] (Theorem 11.11)."""
    ace_rule: Estimate
    """Pr[H = H̄ if West holds the ace, H̲ if East does] (§11.2)."""
    seconds: float = field(default=0.0, compare=False)
    """Wall time of the sampling kernel."""


def sample_statistics(n: int, count: int, seed: int) -> SampledLevel:
    """Draw ``count`` deals (and their ψ partners) and estimate §11's quantities, with 95 % intervals."""
    if count < 2:
        raise ValueError("need at least two deals for an interval")
    start = time.perf_counter()
    sample = sample_deals(n, count, seed, with_psi=True)
    seconds = time.perf_counter() - start
    h = sample.h
    west_ace = sample.ace_west
    ace_sign = np.where(west_ace, 1, -1)
    plain = ace_sign * h
    assert sample.h_psi is not None and sample.h_psi_king is not None
    values, counts = np.unique(h, return_counts=True)
    scaled = h / math.sqrt(n)
    east = ~west_ace
    return SampledLevel(
        n=n,
        count=count,
        seed=seed,
        h_values=values,
        h_counts=counts,
        ks=ks_distance(values, counts, n),
        scaled_mean=float(scaled.mean()),
        scaled_std=float(scaled.std(ddof=1)),
        dealer_advantage=Estimate.of(0.5 * ((n + h) % 2)),
        ace_advantage=Estimate.of((plain + sample.h_psi) / 2),
        ace_advantage_plain=Estimate.of(plain),
        king_advantage=Estimate.of((np.where(sample.king_west, 1, -1) * h + sample.h_psi_king) / 2),
        king_advantage_plain=Estimate.of(np.where(sample.king_west, 1, -1) * h),
        east_ace_h_upper=Estimate.of((h == sample.h_upper)[east]),
        ace_rule=Estimate.of(h == np.where(west_ace, sample.h_upper, sample.h_lower)),
        seconds=seconds,
    )


SAMPLE_PLAN: tuple[tuple[int, int], ...] = (
    (30, 100_000),
    (100, 100_000),
    (300, 100_000),
    (1_000, 100_000),
    (3_000, 100_000),
    (10_000, 100_000),
    (100_000, 10_000),
)
"""(n, number of deals) sampled by the report: the issue's four sizes and three in between."""


# -- everything the report and the app draw -------------------------------------------------
@dataclass(frozen=True, eq=False)
class AsymptoticsData:
    """Exact levels and samples, enough to draw every figure."""

    exact: tuple[ExactLevel, ...]
    samples: tuple[SampledLevel, ...]


def compute_data(
    max_exact_n: int = 14,
    plan: Sequence[tuple[int, int]] = SAMPLE_PLAN,
    seed: int = 20050221,
    progress: Callable[[str], None] | None = None,
) -> AsymptoticsData:
    """Exact levels 1 … max_exact_n and one sample per (n, count) of ``plan``, each with its own seed.
    ``progress`` hears each step, and before a first use's Numba compile that the kernels are being prepared
    (:func:`~whist_catalogue.theory.jit.announcing`)."""
    with announcing(progress) if progress else nullcontext():
        return _compute_data(max_exact_n, plan, seed, progress)


def _compute_data(max_exact_n: int, plan: Sequence[tuple[int, int]], seed: int,
                  progress: Callable[[str], None] | None) -> AsymptoticsData:
    exact = []
    for n in range(1, max_exact_n + 1):
        if progress:
            progress(f"exact n = {n}")
        exact.append(exact_level(n))
    samples = []
    for i, (n, count) in enumerate(plan):
        if progress:
            progress(f"sampling {count} deals with n = {n}")
        samples.append(sample_statistics(n, count, seed + i))
    return AsymptoticsData(tuple(exact), tuple(samples))


def _cdf_steps(values: np.ndarray, counts: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(values, dtype=float) / math.sqrt(n)
    y = np.cumsum(counts) / np.sum(counts)
    return x, y


def _draw_limit_law(figure: Figure, data: AsymptoticsData) -> None:
    left, right = figure.subplots(1, 2)
    grid = np.linspace(-2.0, 2.0, 801)
    left.plot(grid, limit_cdf(grid), color="black", linewidth=2, label="limit law (Theorem 11.5)")
    curves = [(f"exact n = {level.n}", level.n, np.array(sorted(level.h_counts)),
               np.array([level.h_counts[h] for h in sorted(level.h_counts)]), "--") for level in data.exact[-1:]]
    curves += [(f"n = {s.n:,} ({s.count:,} deals)", s.n, s.h_values, s.h_counts, "-") for s in data.samples]
    for label, n, values, counts, style in curves:
        x, y = _cdf_steps(values, counts, n)
        left.step(x, y, where="post", linestyle=style, linewidth=1, label=label)
        right.plot(x, y - limit_cdf(x), marker=".", markersize=2, linestyle="none", label=label)
    left.set_xlim(-2, 2)
    left.set_xlabel("x")
    left.set_ylabel("Pr[Hₙ/√n ≤ x]")
    left.set_title("Distribution functions")
    left.legend(fontsize="x-small")
    right.axhline(0, color="black", linewidth=1)
    right.set_xlim(-2, 2)
    right.set_xlabel("x = H/√n at the jumps")
    right.set_ylabel("empirical − limit")
    right.set_title("Difference at each value of H")


def _draw_density(figure: Figure, data: AsymptoticsData) -> None:
    ax = figure.add_subplot(1, 1, 1)
    grid = np.linspace(-2.0, 2.0, 801)
    for s in data.samples:
        if s.n in (100, 10_000, 100_000):
            root = math.sqrt(s.n)
            # Bins of g consecutive values of H, edges halfway between values, about 0.05 wide.
            g = max(1, round(0.05 * root))
            reach = math.ceil(2 * root)
            edges = np.arange(-reach - 0.5, reach + 0.5 + g, g)
            hist, _ = np.histogram(s.h_values, bins=edges, weights=s.h_counts)
            ax.stairs(hist / (s.count * g / root), edges / root, label=f"n = {s.n:,}")
    ax.plot(grid, limit_density(grid), color="black", linewidth=2, label="density of ξ")
    ax.set_xlim(-2, 2)
    ax.set_xlabel("x")
    ax.set_ylabel("density")
    ax.legend(fontsize="small")


def _draw_estimates(ax, data: AsymptoticsData, exact_of, sampled_of, label: str, marker: str, first: int = 1) -> None:
    levels = [level for level in data.exact if level.n >= first]
    ax.plot(
        [level.n for level in levels],
        [float(exact_of(level)) for level in levels],
        marker=marker,
        linestyle="-",
        label=f"{label}: exact",
    )
    estimates = [sampled_of(s) for s in data.samples]
    ax.errorbar(
        [s.n for s in data.samples],
        [e.mean for e in estimates],
        yerr=[e.half_width for e in estimates],
        marker=marker,
        linestyle="none",
        capsize=3,
        label=f"{label}: sampled, 95 % interval",
    )


def _draw_dealer(figure: Figure, data: AsymptoticsData) -> None:
    ax = figure.add_subplot(1, 1, 1)
    _draw_estimates(ax, data, lambda e: e.dealer_advantage, lambda s: s.dealer_advantage, "dealer − n/2", "o")
    ax.axhline(0.25, color="black", linewidth=1, linestyle="--", label="1/4 (Theorem 11.12)")
    ax.set_xscale("log")
    ax.set_xlabel("n (cards a hand)")
    ax.set_ylabel("expected tricks of the dealer − n/2")
    ax.legend(fontsize="small")


def _draw_ace(figure: Figure, data: AsymptoticsData) -> None:
    ax = figure.add_subplot(1, 1, 1)
    _draw_estimates(ax, data, lambda e: e.ace_advantage, lambda s: s.ace_advantage, "ace", "o")
    _draw_estimates(ax, data, lambda e: e.king_advantage, lambda s: s.king_advantage, "king", "s", first=2)
    ax.axhline(1.0, color="black", linewidth=1, linestyle="--", label="1 (§11.4, the ace)")
    ax.axhline(0.5, color="gray", linewidth=1, linestyle=":", label="1/2 (§11.4, the king)")
    ax.set_xscale("log")
    ax.set_ylim(-0.5, 2.0)
    ax.set_xlabel("n (cards a hand)")
    ax.set_ylabel("holder's expected tricks − opponent's (random lead)")
    ax.legend(fontsize="small")


def _draw_ace_rule(figure: Figure, data: AsymptoticsData) -> None:
    ax = figure.add_subplot(1, 1, 1)
    _draw_estimates(
        ax, data, lambda e: e.east_ace_h_upper_probability, lambda s: s.east_ace_h_upper, "Pr[H = H̄ | East's ace]", "o"
    )
    ns = np.geomspace(3, max([s.n for s in data.samples] + [level.n for level in data.exact]), 200)
    ax.plot(ns, 2 * np.sqrt(np.log(ns) / ns), color="black", linestyle="--", label="2√(log n / n)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (cards a hand)")
    ax.set_ylabel("probability")
    ax.legend(fontsize="small")


_DRAWERS = {
    "limit-law": ("Hₙ/√n against the limit law of Theorem 11.5", _draw_limit_law),
    "density": ("Histogram of Hₙ/√n and the density of ξ", _draw_density),
    "dealer-advantage": ("The dealer's advantage (Theorem 11.12)", _draw_dealer),
    "ace-advantage": ("The value of the ace and of the king (§11.4)", _draw_ace),
    "ace-rule": ("Pr[H = H̄ | East holds the ace] (Theorem 11.11)", _draw_ace_rule),
}
FIGURES: dict[str, str] = {name: title for name, (title, _) in _DRAWERS.items()}
"""Figure name → title, for :func:`draw_figure`."""


def draw_figure(name: str, figure: Figure, data: AsymptoticsData) -> None:
    """Draw the figure ``name`` (a key of :data:`FIGURES`) onto ``figure``, which is cleared first."""
    if name not in _DRAWERS:
        raise KeyError(f"no figure {name!r}; the figures are {', '.join(FIGURES)}")
    figure.clear()
    title, draw = _DRAWERS[name]
    draw(figure, data)
    figure.suptitle(title)
    figure.tight_layout()
