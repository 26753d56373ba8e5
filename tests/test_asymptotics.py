"""Section 11 of the single-suit paper: exact identities over every deal, the limit law, sampling, figures."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numba
import numpy as np
import pytest

from whist_catalogue.single_suit import asymptotics as asy
from whist_catalogue.single_suit import formulas as ss
from whist_catalogue.theory import referee
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.ranking import level_masks, level_size


# -- exact identities over every deal ---------------------------------------------------------
@pytest.mark.parametrize("n", range(1, 11))
def test_lemma_11_2_and_formula_38_over_every_deal(n):
    level = asy.exact_level(n)
    assert level.deals == level_size(n)
    # Lemma 11.2: T_0 uniform on {−n, −n+2, …, n}, each value taken by the Catalan number of deals.
    assert level.t0_counts == {t: asy.catalan(n) for t in range(-n, n + 1, 2)}
    assert level.lemma_11_2_holds()
    # Theorem 11.4: formula (38) against the count, for every k ≥ 1.
    for k in range(1, n):
        assert asy.count_t_positive_formula(n, k) == level.t_positive[k], (n, k)
    assert level.formula_38_mismatches() == []
    assert asy.count_t_positive_formula(n, n) == 0  # T_n is an empty sum


def test_formula_38_known_values():
    # n = 2: T_1 = A_12 > 0 iff W_1 > E_2, i.e. the deal EEWW only.
    assert asy.count_t_positive_formula(2, 1) == 1
    with pytest.raises(ValueError):
        asy.count_t_positive_formula(3, 0)


@pytest.mark.parametrize("n", range(1, 7))
def test_level_counts_against_direct_formulas_and_the_referee(n):
    level = asy.exact_level(n)
    t0, positive, one_or_two, from_h = Counter(), Counter(), Counter(), Counter()
    h_counts, west_ace_h = Counter(), Counter()
    east_deals = west_deals = ace_tricks = ace_adv = king_adv = parity = east_upper = ace_rule = 0
    for mask in level_masks(n):
        deal = Deal(n, int(mask))
        t = ss.t_diagonal_sums(deal)
        t0[t[0]] += 1
        for k, v in t.items():
            positive[k] += v > 0
            one_or_two[k] += v in (1, 2)
        for h in range(n + 1):
            from_h[h] += any(t[k] >= 0 for k in range(h, n))
        lower, upper = ss.h_bounds(deal)
        h = ss.h_whist(deal)
        h_counts[h] += 1
        # Tricks from the brute-force referee, not from H.
        west_leads, east_leads = referee.single_suit_outcome(deal)
        east_deals += n - west_leads
        west_deals += east_leads
        parity += west_leads != east_leads
        ace = 1 if deal.ace_holder == "W" else -1
        king = 1 if deal.owner(2 * n - 1) == "W" else -1
        west_mean = Fraction(west_leads + east_leads, 2)
        ace_tricks += west_mean if ace == 1 else n - west_mean
        ace_adv += ace * (2 * west_mean - n)
        king_adv += king * (2 * west_mean - n)
        if ace == 1:
            west_ace_h[h] += 1
        east_upper += ace == -1 and h == upper
        ace_rule += h == (upper if ace == 1 else lower)
    size = level_size(n)
    assert level.t0_counts == dict(t0)
    assert level.t_positive == {k: positive[k] for k in range(-n + 1, n)}
    assert level.t_one_or_two == {k: one_or_two[k] for k in range(-n + 1, n)}
    assert level.t_nonnegative_from == {h: from_h[h] for h in range(n + 1)}
    assert level.h_counts == dict(h_counts)
    assert level.h_counts_west_ace == dict(west_ace_h)
    assert level.dealer_tricks_east_deals == level.dealer_tricks_west_deals == Fraction(west_deals, size)
    assert level.dealer_tricks_east_deals == Fraction(east_deals, size)
    assert level.parity_differs == parity
    assert level.ace_holder_tricks == ace_tricks / size
    assert level.ace_advantage == Fraction(ace_adv) / size
    assert level.king_advantage == Fraction(king_adv) / size
    assert level.east_ace_h_upper == east_upper
    assert level.ace_rule == ace_rule


def test_small_exact_values():
    # n = 1: the ace holder takes the only trick; whoever leads, the dealer's expected share is 1/2.
    one = asy.exact_level(1)
    assert one.h_counts == {-1: 1, 1: 1}
    assert one.ace_advantage == 1 and one.dealer_advantage == 0
    # n = 2: K J against A Q (WEWE, example (2)) and its mirror are the two deals out of six that depend on the lead.
    two = asy.exact_level(2)
    assert two.parity_differs == 2 and two.dealer_advantage == Fraction(1, 6)


@pytest.mark.parametrize("n", range(1, 8))
def test_psi_pairs_against_direct_formulas(n):
    # ψ of §11.4: West keeps the ace, and holds card i < 2n of ψ(D) iff he holds card 2n − i of D.
    sums, failures = Counter(), 0
    for mask in level_masks(n):
        deal = Deal(n, int(mask))
        if deal.ace_holder != "W":
            continue
        west = sum(1 << (i - 1) for i in range(1, 2 * n) if deal.owner(2 * n - i) == "W")
        psi = Deal(n, west | 1 << (2 * n - 1))
        q, qp = ss.quantities(deal), ss.quantities(psi)
        sums[q.h + qp.h] += 1
        failures += q.h + qp.h != (q.h == q.h_upper) + (qp.h == qp.h_upper)
    level = asy.exact_level(n)
    assert level.psi_pair_sums == dict(sums)
    assert level.psi_identity_failures == failures


@pytest.mark.parametrize("n", range(1, 11))
def test_bounds_of_theorem_11_8_and_lemma_11_9(n):
    level = asy.exact_level(n)
    assert level.theorem_11_8_margin() <= 1
    assert level.lemma_11_9_margin() <= 1


def test_lemma_11_7_exactly():
    assert all(asy.lemma_11_7_margin(n) <= 1 for n in range(1, 26))


def test_generalised_ballot_theorem_11_1():
    for p in range(0, 6):
        for q in range(p, p + 6):
            if p + q == 0:
                continue
            for k in range(0, q + 3):
                assert asy.touching_paths(p, q, k) == asy.ballot_formula(p, q, k), (p, q, k)


# -- the limit law ----------------------------------------------------------------------------
def test_integral_53_equals_closed_form_55():
    for x in np.linspace(0.01, 5.0, 120):
        assert abs(asy.limit_survival_integral(float(x)) - asy.limit_survival(float(x))) < 1e-10, x
    with pytest.raises(ValueError):
        asy.limit_survival_integral(0.0)


def test_limit_law_is_a_symmetric_distribution():
    x = np.linspace(-6, 6, 2001)
    cdf = asy.limit_cdf(x)
    assert np.all(np.diff(cdf) > -1e-15)
    assert cdf[0] < 1e-12 and cdf[-1] > 1 - 1e-12
    assert np.allclose(asy.limit_cdf(x) + asy.limit_cdf(-x), 1, atol=1e-14)
    assert asy.limit_cdf(0.0) == 0.5
    assert asy.limit_moment(0) == pytest.approx(1, abs=1e-10)
    assert asy.limit_density(0.0) == pytest.approx(2 / math.sqrt(math.pi), abs=1e-14)
    for x0 in (0.1, 0.7, 1.5):
        step = 1e-5
        slope = (asy.limit_survival(x0 + step) - asy.limit_survival(x0 - step)) / (2 * step)
        assert asy.limit_density(x0) == pytest.approx(-slope, abs=1e-8)
    assert asy.limit_survival(1e6) == 0.0 and asy.limit_survival(-1e6) == 1.0


def test_taylor_expansion_after_63():
    assert tuple(asy.taylor_coefficients(6)) == asy.PAPER_TAYLOR
    coefficients = asy.taylor_coefficients(7)
    root = math.sqrt(math.pi)

    def series(x, order):
        return sum((float(a) + float(b) / root) * x**m for m, (a, b) in enumerate(coefficients[: order + 1]))

    c7 = float(coefficients[7][0]) + float(coefficients[7][1]) / root
    for x in (0.02, 0.04, 0.08):
        # The truncation at x⁶ leaves c₇x⁷ + O(x⁸).
        assert (asy.limit_survival(x) - series(x, 6)) / x**7 == pytest.approx(c7, abs=0.5 * x + 1e-3)
    # Pr[ξ > x] = 1/2 − (2/√π)x + x|x|/2 + O(x³) on both sides of 0: not twice differentiable at 0.
    for x in (-0.01, 0.01):
        expected = 0.5 - 2 / root * x + 0.5 * x * abs(x)
        assert asy.limit_survival(x) == pytest.approx(expected, abs=2 * abs(x) ** 3)


def test_ks_distance():
    assert asy.ks_distance(np.array([0]), np.array([5]), 4) == pytest.approx(0.5)
    # A fine histogram of the limit law itself is within a bin of it.
    n = 10**6
    h = np.arange(-3 * 1000, 3 * 1000 + 1)
    weights = asy.limit_cdf((h + 0.5) / 1000) - asy.limit_cdf((h - 0.5) / 1000)
    assert asy.ks_distance(h, weights, n) < 2e-3


# -- sampling -----------------------------------------------------------------------------------
def test_sampled_statistics_match_the_exact_ones():
    n = 8
    exact = asy.exact_level(n)
    sample = asy.sample_statistics(n, 60_000, seed=7)
    again = asy.sample_statistics(n, 60_000, seed=7)
    assert again == sample and np.array_equal(again.h_counts, sample.h_counts)
    for estimate, truth in (
        (sample.dealer_advantage, exact.dealer_advantage),
        (sample.ace_advantage, exact.ace_advantage),
        (sample.ace_advantage_plain, exact.ace_advantage),
        (sample.king_advantage, exact.king_advantage),
        (sample.king_advantage_plain, exact.king_advantage),
        (sample.east_ace_h_upper, exact.east_ace_h_upper_probability),
        (sample.ace_rule, Fraction(exact.ace_rule, exact.deals)),
    ):
        assert estimate.low - estimate.half_width < truth < estimate.high + estimate.half_width
    # The ψ pairs make a much tighter interval than ±H alone.
    assert sample.ace_advantage.half_width < 0.5 * sample.ace_advantage_plain.half_width
    assert sample.king_advantage.half_width < sample.king_advantage_plain.half_width
    assert sample.h_counts.sum() == 60_000
    assert len(asy.sample_h(n, 10, seed=7)) == 10


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="a statistical test that needs the compiled kernels' speed")
def test_sampling_large_n_is_close_to_the_limit_law():
    sample = asy.sample_statistics(2_000, 20_000, seed=3)
    assert sample.ks < 0.03
    assert sample.scaled_std == pytest.approx(asy.limit_moment(2) ** 0.5, abs=0.02)


# -- figures -------------------------------------------------------------------------------------
def test_every_figure_draws():
    from matplotlib.figure import Figure

    data = asy.compute_data(max_exact_n=6, plan=((100, 2_000), (1_000, 300)), seed=1)
    for name in asy.FIGURES:
        figure = Figure()
        asy.draw_figure(name, figure, data)
        assert figure.axes and all(ax.has_data() for ax in figure.axes)
    with pytest.raises(KeyError):
        asy.draw_figure("no-such-figure", Figure(), data)
