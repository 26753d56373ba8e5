"""The single-suit paper's formulas against its worked examples and the brute-force referees."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from whist_catalogue.errors import InvalidDealError
from whist_catalogue.single_suit import formulas as ss
from whist_catalogue.theory import referee
from whist_catalogue.theory.deals import Deal, parse_deal
from whist_catalogue.theory.ranking import level_masks
from whist_catalogue.theory.values import Outcome


def every_deal(max_n: int):
    for n in range(1, max_n + 1):
        for mask in level_masks(n):
            yield Deal(n, int(mask))


# -- the paper's worked examples (§2 of the journal version, §3 and §7) ---------------------
def test_deal_5_matrix_and_diagonal_sums():
    # (5) K Q 10 against A J 9, §3: A and T_{-2} … T_2 as printed.
    deal = parse_deal("KQT/AJ9")
    assert deal.label == "EWEWWE"
    assert ss.a_matrix(deal) == ((1, -1, -1), (1, 1, -1), (1, 1, -1))
    assert ss.t_diagonal_sums(deal) == {-2: 1, -1: 2, 0: 1, 1: -2, 2: -1}
    assert ss.h_bounds(deal) == (0, 1)


def test_deal_5_holding_up():
    # §2.3: with West on lead East takes two tricks at Whist (by holding up) but only one at Greedy Whist.
    deal = parse_deal("KQT/AJ9")
    assert ss.whist_outcome(deal).west_leads == 1
    assert ss.greedy_whist_outcome(deal).west_leads == 2
    assert ss.h_whist(deal) == 0 and ss.h_greedy(deal) == 1


def test_deal_14():
    # (14) K Q 8 7 against A J 10 9: with West on lead East can hold West to one trick.
    deal = parse_deal("KQ87/AJT9")
    assert deal.label == "WWEEEWWE"
    assert ss.whist_outcome(deal).west_leads == 1
    assert ss.t_diagonal_sums(deal)[0] == -2
    assert ss.five_card_winner(deal, True) == ss.five_card_winner(deal, False) == "E"
    # "if West leads the king": East can still hold West to one trick.
    king = 7
    assert referee.tricks_after_lead((deal,), True, 0, king) == 1


def test_journal_examples_1_to_4():
    # (1) K Q against A J at Five-card: the player on lead wins.
    d1 = parse_deal("KQ/AJ")
    assert ss.five_card_winner(d1, True) == "W" and ss.five_card_winner(d1, False) == "E"
    # (2) K J against A Q: West takes no trick on lead and one with East on lead.
    d2 = parse_deal("KJ/AQ")
    assert ss.greedy_whist_outcome(d2) == ss.whist_outcome(d2) == Outcome(0, 1)
    # (3) K 10 9 against A Q J: West on lead takes one trick, leading the nine or the ten.
    d3 = parse_deal("KT9/AQJ")
    assert ss.greedy_whist_outcome(d3).west_leads == ss.whist_outcome(d3).west_leads == 1
    assert ss.normal_lead(d3, True) in (1, 2)
    # (4) Q J 9 against A K 10: one trick, and West must lead the queen or the jack.
    d4 = parse_deal("QJ9/AKT")
    assert ss.greedy_whist_outcome(d4).west_leads == ss.whist_outcome(d4).west_leads == 1
    assert ss.normal_lead(d4, True) in (3, 4)


# -- Theorem 9.1 against the referee ----------------------------------------------------------
def test_theorem_9_1_against_brute_force_up_to_8():
    for deal in every_deal(8):
        assert ss.whist_outcome(deal) == referee.single_suit_outcome(deal), deal.label


def test_h_is_one_of_the_bounds_and_swapping_negates_everything():
    # Theorem 8.1 (H ∈ {H̲, H̄}), H̄ − H̲ ≤ 1, and the symmetry T_k(D̄) = −T_{−k}(D).
    for deal in every_deal(7):
        lower, upper = ss.h_bounds(deal)
        h = ss.h_whist(deal)
        assert upper - lower in (0, 1) and h in (lower, upper)
        mirror = deal.swapped()
        assert ss.h_bounds(mirror) == (-upper, -lower)
        assert ss.h_whist(mirror) == -h
        t, tm = ss.t_diagonal_sums(deal), ss.t_diagonal_sums(mirror)
        assert all(tm[k] == -t[-k] for k in t)


def test_lemma_5_2_shape():
    # T_k = n + k up to some r, T_k = −n + k from some s on, strictly decreasing between.
    for deal in every_deal(7):
        n = deal.n
        t = {**ss.t_diagonal_sums(deal), -n: 0, n: 0}
        r = max(k for k in range(-n, n + 1) if all(t[j] == n + j for j in range(-n, k + 1)))
        s = min(k for k in range(-n, n + 1) if all(t[j] == -n + j for j in range(k, n + 1)))
        assert r < s
        assert all(t[k] > t[k + 1] for k in range(r, s))


# -- Greedy Whist and Five-card against their brute force -------------------------------------
def test_theorem_6_1_and_7_2_against_brute_force_up_to_7():
    for deal in every_deal(7):
        assert ss.greedy_whist_outcome(deal) == referee.greedy_whist_outcome(deal), deal.label
        for west_on_lead in (True, False):
            assert ss.five_card_winner(deal, west_on_lead) == referee.five_card_winner(deal, west_on_lead)


def test_theorem_6_2_odd_n():
    # With n odd the same player takes the majority of the tricks wherever the lead is.
    for deal in every_deal(7):
        if deal.n % 2:
            west_leads, east_leads = ss.greedy_whist_outcome(deal)
            assert (2 * west_leads > deal.n) == (2 * east_leads > deal.n)


# -- the normal strategy -------------------------------------------------------------------
@lru_cache(maxsize=None)
def west_normal_against_best_east(deal: Deal, west_on_lead: bool, greedy: bool, last_trick: bool) -> int:
    """West's score when West plays the normal strategy and East answers as well as he can.

    The score is West's tricks, or with ``last_trick`` 1 if West takes the last trick;
    with ``greedy`` the second player must beat the card led if he can.
    """
    if deal.n == 0:
        return 0
    scores = []
    if west_on_lead:
        lead = ss.normal_lead(deal, True)
        replies = list(deal.east_cards)
        if greedy and any(e > lead for e in replies):
            replies = [e for e in replies if e > lead]
        plays = [(lead, e) for e in replies]
    else:
        plays = [(ss.normal_reply(deal, e), e) for e in deal.east_cards]
    for w, e in plays:
        won = int(w > e)
        rest = deal.without(w, e)
        if last_trick:
            score = won if deal.n == 1 else west_normal_against_best_east(rest, bool(won), greedy, last_trick)
        else:
            score = won + west_normal_against_best_east(rest, bool(won), greedy, last_trick)
        scores.append(score)
    return min(scores)


def test_normal_strategy_is_optimal_in_greedy_whist_and_five_card():
    # Theorems 6.1 and 7.1: the normal strategy achieves the value against every defence.
    for deal in every_deal(7):
        greedy = referee.greedy_whist_outcome(deal)
        assert west_normal_against_best_east(deal, True, True, False) == greedy.west_leads, deal.label
        assert west_normal_against_best_east(deal, False, True, False) == greedy.east_leads, deal.label
        for west_on_lead in (True, False):
            wins = west_normal_against_best_east(deal, west_on_lead, True, True)
            assert wins == (referee.five_card_winner(deal, west_on_lead) == "W"), deal.label


def test_theorem_8_2_normal_strategy_in_whist():
    # Without the greedy rule the normal strategy still guarantees (n + H̲)/2, rounded for the player not on lead.
    for deal in every_deal(7):
        lower = ss.h_lower(deal)
        assert west_normal_against_best_east(deal, True, False, False) >= (deal.n + lower) // 2
        assert west_normal_against_best_east(deal, False, False, False) >= (deal.n + lower + 1) // 2


def test_normal_lead_and_reply_details():
    deal = Deal.from_label("WWEEWE")  # K 10 9 against A Q J
    assert ss.normal_lead(deal, True) == 2  # A_{2,1} = −1 is the entry with j − i smallest
    assert ss.normal_lead(deal, False) == 4  # A_{3,2} = 1: East leads E_2 = the queen
    assert ss.normal_reply(deal, 2) == 3  # the cheapest card that wins
    assert ss.normal_reply(deal, 6) == 1  # nothing beats the ace: the smallest card
    assert ss.normal_lead(Deal.from_label("EEWW"), True) == 4  # all high: cash from the top
    with pytest.raises(InvalidDealError):
        ss.normal_reply(deal, 7)
    with pytest.raises(InvalidDealError):
        ss.five_card_winner(Deal(0, 0), True)


# -- the per-level kernels -------------------------------------------------------------------
@pytest.mark.slow
def test_level_kernels_agree_with_the_per_deal_api():
    for n in range(1, 9):
        level = ss.level_quantities(n)
        assert len(level) == len(level_masks(n))
        for r, mask in enumerate(level.masks):
            deal = Deal(n, int(mask))
            q = ss.quantities(deal)
            greedy = q.greedy_whist_outcome
            whist = q.whist_outcome
            got = (
                int(level.h_lower[r]),
                int(level.h_upper[r]),
                int(level.h[r]),
                int(level.greedy_west_leads[r]),
                int(level.greedy_east_leads[r]),
                "W" if level.five_card_west_wins_west_leads[r] else "E",
                "W" if level.five_card_west_wins_east_leads[r] else "E",
                "W" if level.ace_west[r] else "E",
                int(level.whist_west_leads[r]),
                int(level.whist_east_leads[r]),
            )
            want = (
                q.h_lower,
                q.h_upper,
                q.h,
                greedy.west_leads,
                greedy.east_leads,
                q.five_card_west_leads,
                q.five_card_east_leads,
                deal.ace_holder,
                whist.west_leads,
                whist.east_leads,
            )
            assert got == want, deal.label


def test_level_kernel_on_a_slice_and_bad_masks():
    full = ss.level_quantities(5)
    part = ss.level_quantities(5, full.masks[100:140])
    assert np.array_equal(part.h, full.h[100:140])
    with pytest.raises(InvalidDealError):
        ss.level_quantities(3, np.array([0b000111, 0b001111], np.int64))
    with pytest.raises(InvalidDealError):
        ss.level_quantities(0)
