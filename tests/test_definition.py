"""The literal recursive definition of val(D) (§7) against the papers' values and the brute-force referee."""

import csv
from fractions import Fraction
from pathlib import Path

import pytest

from whist_catalogue.theory import referee
from whist_catalogue.theory.deals import Deal, parse_deal
from whist_catalogue.theory.definition import (
    Interval,
    interval,
    labeled_values,
    maxmin,
    minmax,
    simplest_in_interval,
    solve,
    val,
)
from whist_catalogue.theory.labeled import EAST, WEST, LabeledValue
from whist_catalogue.theory.ranking import level_masks
from whist_catalogue.theory.values import EPSILON0, Infinitesimal, Value, rho

# The appendix tables of the multi-suit paper, kept in the repository (the file says where they come from).
TESTDATA = Path(__file__).parent / "data" / "paper-values-up-to-4-cards.tsv"


def paper_rows():
    with TESTDATA.open() as f:
        rows = [r for r in csv.reader(f, delimiter="\t") if r and not r[0].startswith("#")]
    return rows[1:]


@pytest.mark.parametrize("west, east, label, number, inf", paper_rows())
def test_appendix_tables_1_and_2(west, east, label, number, inf):
    deal = parse_deal(f"{west}/{east}")
    assert deal.label == label
    assert val(deal) == Value(Fraction(number), Infinitesimal.from_code(inf))
    # The appendix lists deals where East holds the ace; the rest follow from val(D) = |D| − val(D̄).
    assert val(deal.swapped()) == deal.n - val(deal)


def all_deals(max_n):
    return [Deal(n, int(m)) for n in range(1, max_n + 1) for m in level_masks(n)]


def test_outcome_is_rho_of_value_for_every_deal_up_to_7():
    """Corollary 8.9, χ(D) = ρ(val(D)), against minimax of the game itself: 4,706 deals."""
    deals = all_deals(7)
    assert len(deals) == 4706
    mismatches = [d.label for d in deals if rho(val(d)) != referee.single_suit_outcome(d)]
    assert mismatches == []


def test_symmetry_for_every_deal_up_to_6():
    for d in all_deals(6):
        assert val(d.swapped()) == d.n - val(d)


@pytest.mark.parametrize(
    "text, value",
    [
        ("AQ/KJ", "1 + 1/2"),  # Theorem 10.4, D_1
        ("AKT/QJ9", "2 + 1/4"),  # D_2
        ("AKQ8/JT97", "3 + 1/8"),  # D_3
        ("AKQJ6/T9875", "4 + 1/16"),
        ("KQ9/AJT", "1 + 1/4"),  # §10.1
        ("KQJ7/AT98", "2 + 1/8"),
        ("KQJT5/A9876", "3 + 1/16"),
        ("13 12 9 8 7 2 1 / 14 11 10 6 5 4 3", "3 + 3/8"),  # §12.2, found by computer search
        ("AQJ/KT9", "2"),  # §3.3.1, deal (9)
        ("AQT/KJ9", "2"),
        ("AQ9/KJT", "2"),
    ],
)
def test_values_in_the_text(text, value):
    assert val(parse_deal(text)) == Value.from_str(value)


def test_theorem_10_4_general():
    # D_k: West holds 2, k+3, …, 2k+2 and East 1, 3, …, k+2; val(D_k) = k + 1/2^k.
    for k in range(1, 7):
        west = [2] + list(range(k + 3, 2 * k + 3))
        label = "".join("W" if c in west else "E" for c in range(1, 2 * k + 3))
        assert val(Deal.from_label(label)) == Value(k + Fraction(1, 2**k))


def test_theorems_10_2_and_10_3():
    for n in range(1, 7):
        assert val(Deal.from_label("W" * n + "E" * n)) == Value(0, EPSILON0)
    # West holds the k highest cards and the smallest card; every other West card is below East's.
    for k in range(0, 4):
        for low in range(1, 4):
            label = "W" * low + "E" * (k + low) + "W" * k
            assert val(Deal.from_label(label)) == Value(k, Infinitesimal.epsilon(k)), label


def test_lemma_10_1_interval_of_K_against_A():
    i = interval(Deal.from_label("WE"))
    assert i.maxmin == i.minmax == LabeledValue(EAST, Value(0))
    inside = [Value(0, EPSILON0), Value(0, Infinitesimal.fuzzy()), Value(0, Infinitesimal.epsilon(1))]
    outside = [Value(0), Value(0, -EPSILON0), Value(Fraction(1, 4)), Value(-1)]
    assert all(v in i for v in inside)
    assert not any(v in i for v in outside)
    assert simplest_in_interval(i) == Value(0, EPSILON0)


def test_left_and_right_sets_are_down_and_up_closed():
    """§7.3: x ∈ L and y ≤ x give y ∈ L; x ∈ R and y ≥ x give y ∈ R (probes are totally ordered)."""
    probes = sorted(
        (Value(Fraction(p, 8), x) for p in range(-8, 40)
         for x in [Infinitesimal(), EPSILON0, -EPSILON0] + [Infinitesimal.epsilon(k) for k in (-2, -1, 1, 2)]),
        key=lambda v: (v.number, v.infinitesimal.rank),
    )
    for d in all_deals(4):
        i = interval(d)
        left = [i.in_left(v) for v in probes]
        right = [i.in_right(v) for v in probes]
        assert left == sorted(left, reverse=True)  # a prefix of True
        assert right == sorted(right)  # a suffix of True


def test_maxmin_at_most_minmax():
    for d in all_deals(5):
        assert maxmin(d) <= minmax(d)


def test_two_half_integers_would_be_ambiguous():
    i = Interval(LabeledValue(WEST, Value(0)), LabeledValue(EAST, Value(1)))
    with pytest.raises(ArithmeticError, match="unique"):
        simplest_in_interval(i)


def test_best_moves_of_the_hold_up_deal():
    # Single-suit paper (5): K Q 10 against A J 9.  If West leads the king or queen East
    # holds up with the nine; against the ten he wins with the jack.
    d = parse_deal("KQT/AJ9")
    s = solve(d)
    k, q, t = 5, 4, 2
    assert set(s.west_leads) == {q, k}
    assert s.replies("W", k) == (1,) and s.replies("W", q) == (1,)
    assert s.replies("W", t) == (3,)
    alpha = labeled_values(d)
    assert alpha[2][0] == LabeledValue(WEST, Value(Fraction(3, 2)))
