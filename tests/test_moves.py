"""Every legal card's result (theory/moves.py) against brute-force minimax of the card game (theory/referee.py)."""

import random

import pytest

from whist_catalogue.errors import IllegalMoveError
from whist_catalogue.store.solvers import ComputingSolver
from whist_catalogue.theory import referee
from whist_catalogue.theory.deals import parse_multisuit
from whist_catalogue.theory.moves import CardResult, best_results, card_results, suit_card_results
from whist_catalogue.theory.small_suits import SuitTable
from test_multisuit import random_multisuit

TABLE = SuitTable(ComputingSolver())


def test_every_card_at_trick_starts_and_after_every_lead_on_200_random_deals():
    rng = random.Random(12)
    positions = 0
    for _ in range(200):
        deals = [s.deal for s in random_multisuit(rng, 8)]
        for leader in ("W", "E"):
            west = leader == "W"
            leads = card_results(deals, leader, TABLE)
            expected = [
                CardResult(i, c, referee.tricks_after_lead(deals, west, i, c))
                for i, d in enumerate(deals)
                for c in (d.west_cards if west else d.east_cards)
            ]
            assert leads == expected
            # The best lead is the outcome (Theorem 9.1 again, now card by card).
            outcome = referee.whist_outcome(deals)
            assert best_results(leads, leader)[0].west_tricks == (outcome.west_leads if west else outcome.east_leads)
            for lead in leads:
                replies = card_results(deals, leader, TABLE, (lead.suit, lead.card))
                for r in replies:
                    w, e = (lead.card, r.card) if west else (r.card, lead.card)
                    assert r.west_tricks == referee.tricks_after_trick(deals, lead.suit, w, e)
                assert (min if west else max)(r.west_tricks for r in replies) == lead.west_tricks
                positions += 1
    assert positions > 1500


def test_the_issue_s_deal_east_must_take_with_the_king():
    # West leads the T of suit 2 (0-based 1): best within the suit is the 3, but the K holds West to 2.
    suits = parse_multisuit("7/6, JT5/K83, 3/A")
    replies = suit_card_results(suits, "W", TABLE, (1, 10))
    assert [(r.card, r.west_tricks) for r in replies] == [(3, 3), (8, 3), (13, 2)]
    assert best_results(replies, "E") == [CardResult(1, 13, 2)]
    assert TABLE.solve(suits[1].deal).replies("W", suits[1].card_of(10)) == (suits[1].card_of(3),)


def test_empty_suits_and_illegal_leads():
    suits = parse_multisuit("AQ/KJ, A/K")
    deals = [suits[0].deal, suits[1].deal.without(2, 1)]
    assert {r.suit for r in card_results(deals, "E", TABLE)} == {0}
    with pytest.raises(IllegalMoveError):
        card_results(deals, "W", TABLE, (1, 1))
    with pytest.raises(IllegalMoveError):
        suit_card_results(suits, "W", TABLE, (0, 13))  # the K is East's
    with pytest.raises(IllegalMoveError):
        suit_card_results(suits, "W", TABLE, (5, 14))
