"""Theorem 10.1's linear-time algorithm against the direct formulas, the referee and the recursive definition."""

from __future__ import annotations

import csv
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from whist_catalogue.errors import InvalidDealError
from whist_catalogue.single_suit import formulas as ss
from whist_catalogue.single_suit import linear_time as lt
from whist_catalogue.theory import referee
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.ranking import level_masks
from whist_catalogue.theory.values import Value

# The appendix tables of the multi-suit paper, kept in the repository (the file says where they come from).
PAPER_VALUES = Path(__file__).parent / "data" / "paper-values-up-to-4-cards.tsv"


def every_deal(max_n: int):
    for n in range(1, max_n + 1):
        for mask in level_masks(n):
            yield Deal(n, int(mask))


def deal_from_vector(c: np.ndarray) -> Deal:
    return Deal.from_label("".join("E" if x == 1 else "W" for x in c))


# -- the algorithm against the direct formulas ---------------------------------------------
def test_diagonal_sums_by_the_procedure_of_section_10():
    for deal in every_deal(8):
        t = lt.t_diagonal_sums_linear(deal)
        direct = ss.t_diagonal_sums(deal)
        assert {k: int(t[k + deal.n - 1]) for k in direct} == direct, deal.label


@pytest.mark.slow
def test_against_the_direct_formula_on_every_deal_up_to_10():
    # The level kernel runs the same linear-time core once per deal, without Python overhead.
    for n in range(1, 11):
        level = ss.level_quantities(n)
        for r, mask in enumerate(level.masks):
            q = ss.quantities(Deal(n, int(mask)))
            assert (level.h_lower[r], level.h_upper[r], level.h[r]) == (q.h_lower, q.h_upper, q.h), q.deal.label
    for deal in every_deal(8):
        got = lt.solve_linear(deal)
        assert (got.h_lower, got.h_upper, got.h) == (ss.h_lower(deal), ss.h_upper(deal), ss.h_whist(deal))


@pytest.mark.parametrize("n", [1, 2, 3, 50, 1_000, 100_000])
def test_one_deal_in_numpy_equals_the_level_kernels_numba_steps(n):
    """:func:`solve_vector` (whole-array NumPy steps, for one huge deal) against the card-by-card Numba kernel
    the level computations use, on random deals of every size and on deals whose ace either side holds."""
    from whist_catalogue.single_suit.kernels import evaluate_vector

    rng = np.random.default_rng(n)
    for trial in range(40 if n < 1_000 else 4):
        c = rng.permutation(np.repeat(np.array([1, -1], np.int8), n))
        if trial < 2:  # the top card to East, then to West: both branches of Theorem 9.1's condition
            owner = 1 if trial == 0 else -1
            j = int(np.flatnonzero(c == owner)[-1])
            c[j], c[-1] = c[-1], c[j]
        got = lt.solve_vector(c)
        s, t = np.empty(2 * n + 1, np.int64), np.empty(2 * n + 1, np.int64)
        expected = tuple(int(x) for x in evaluate_vector(c, n, s, t))
        assert (got.h_lower, got.h_upper, got.h, got.trace) == expected, (n, trial)


def test_against_the_referee_up_to_7():
    for deal in every_deal(7):
        assert lt.whist_outcome_linear(deal) == referee.single_suit_outcome(deal), deal.label


@settings(max_examples=30, deadline=None)
@given(st.integers(20, 120).flatmap(lambda n: st.permutations(["W"] * n + ["E"] * n)))
def test_against_the_direct_formula_on_random_large_deals(owners):
    deal = Deal.from_label("".join(owners))
    got = lt.solve_linear(deal)
    assert (got.h_lower, got.h_upper) == ss.h_bounds(deal)
    assert got.h == ss.h_whist(deal)
    assert got.trace == ss.t_diagonal_sums(deal)[0]
    t = lt.t_diagonal_sums_linear(deal)
    assert list(t) == [ss.t_diagonal_sums(deal)[k] for k in range(-deal.n + 1, deal.n)]


def test_vector_notation_and_bad_vectors():
    deal = Deal.from_label("EWEWWE")
    assert list(lt.owner_vector(deal)) == [1, -1, 1, -1, -1, 1]
    assert list(lt.partial_sums(lt.owner_vector(deal))) == [0, 1, 0, 1, 0, -1, 0]
    big = Deal.from_label("WE" * 700 + "EW" * 300)
    assert deal_from_vector(lt.owner_vector(big)) == big
    for bad in ([1, 1, -1], [1, 1], [1, 0, -1, 1], [[1, -1]]):
        with pytest.raises(InvalidDealError):
            lt.solve_vector(np.array(bad, np.int8))
    assert lt.solve_vector(np.zeros(0, np.int8)).outcome == (0, 0)


# -- Theorem 12.1 of the multi-suit paper ----------------------------------------------------
def check_detection(deal: Deal, value: Value) -> str:
    found = lt.detect_simple_value(deal)
    q = value.number
    if value.is_number and q.denominator <= 2:
        assert found.value == value, (deal.label, found, value)
        assert found.kind == ("integral" if q.denominator == 1 else "half-integral")
    else:
        assert found.kind == "bounds" and found.value is None, (deal.label, found, value)
        k = found.outcome.west_leads
        assert found.outcome == (k, k)
        assert Value(found.lower) < value < Value(found.upper) and value != Value(k), (deal.label, value)
    return found.kind


def test_theorem_12_1_against_the_paper_tables():
    with PAPER_VALUES.open() as f:
        rows = [row for row in csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t")]
    kinds = Counter()
    for row in rows:
        deal = Deal.from_label(row["deal"])
        value = Value(Fraction(row["number"]), row["infinitesimal"])
        kinds[check_detection(deal, value)] += 1
        # The tables list East holding the ace; swapping the hands turns val into n − val.
        kinds[check_detection(deal.swapped(), deal.n - value)] += 1
    assert kinds["integral"] and kinds["half-integral"] and kinds["bounds"]


def test_theorem_12_1_against_the_recursive_definition_up_to_6():
    from whist_catalogue.theory.definition import val

    kinds = Counter(check_detection(deal, val(deal)) for deal in every_deal(6))
    assert set(kinds) == {"integral", "half-integral", "bounds"}


# -- many random deals at once ---------------------------------------------------------------
def test_sample_matches_single_evaluations():
    sample = lt.sample_deals(9, 300, seed=12345, with_psi=True)
    for i in range(0, 300, 7):
        c = lt.random_deal_vector(9, 12345, i)
        deal = deal_from_vector(c)
        assert sample.h[i] == ss.h_whist(deal)
        assert (sample.h_lower[i], sample.h_upper[i]) == ss.h_bounds(deal)
        assert sample.ace_west[i] == (deal.ace_holder == "W")
        assert sample.king_west[i] == (deal.owner(2 * deal.n - 1) == "W")
        # ψ of §11.4 on the deal turned so West has the ace: cards 1 … 2n−1 reversed.
        turned = deal if deal.ace_holder == "W" else deal.swapped()
        label = turned.label
        psi = Deal.from_label(label[-2::-1] + label[-1])
        assert sample.h_psi[i] == ss.h_whist(psi)
        # ψ_K, the same for the king: cards 1 … 2n−2 reversed.
        turned = deal if deal.owner(2 * deal.n - 1) == "W" else deal.swapped()
        label = turned.label
        assert sample.h_psi_king[i] == ss.h_whist(Deal.from_label(label[-3::-1] + label[-2:]))
    smaller = lt.sample_deals(9, 100, seed=12345)
    assert np.array_equal(smaller.h, sample.h[:100]) and smaller.h_psi is None is smaller.h_psi_king


def test_random_deals_are_uniform():
    # 20 deals with n = 3; a chi-square test at a fixed seed is deterministic.
    from scipy.stats import chisquare

    count = 40_000
    labels = Counter(
        "".join("E" if x == 1 else "W" for x in lt.random_deal_vector(3, 99, i)) for i in range(count)
    )
    assert len(labels) == 20
    assert chisquare(list(labels.values())).pvalue > 0.01
    assert lt.sample_deals(3, count, seed=99).ace_west.mean() == pytest.approx(0.5, abs=0.01)


def test_sample_arguments():
    with pytest.raises(InvalidDealError):
        lt.sample_deals(0, 10, seed=1)
    with pytest.raises(ValueError):
        lt.sample_deals(5, -1, seed=1)
    with pytest.raises(ValueError):
        lt.sample_deals(5, 1, seed=-1)
    assert len(lt.sample_deals(5, 0, seed=1)) == 0


def test_normal_leads_in_linear_time_and_when_theorem_8_2_makes_them_best():
    """The linear normal lead equals §4.2's O(n²) reference on every deal with n ≤ 7; when Theorem 8.2
    says it is a best lead, brute-force minimax agrees (every deal with n ≤ 6)."""
    from whist_catalogue.single_suit.formulas import normal_lead
    from whist_catalogue.single_suit.linear_time import normal_leads
    from whist_catalogue.theory import referee
    from whist_catalogue.theory.ranking import level_masks

    determined = undetermined = 0
    for n in range(1, 8):
        for west in level_masks(n):
            deal = Deal(n, int(west))
            found = normal_leads(deal)
            assert (found.west, found.east) == (normal_lead(deal, True), normal_lead(deal, False)), deal
            if n > 6:
                continue
            outcome = referee.single_suit_outcome(deal)
            for west_leads, card, best in ((True, found.west, found.west_is_best), (False, found.east, found.east_is_best)):
                target = outcome.west_leads if west_leads else outcome.east_leads
                if best:
                    assert referee.tricks_after_lead([deal], west_leads, 0, card) == target, deal
                    determined += 1
                else:
                    undetermined += 1
    assert determined > 1000 and undetermined > 10
