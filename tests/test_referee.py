"""The brute-force referees: the pruned search against plain minimax, and the rules' textbook examples."""

import random

import pytest

from whist_catalogue.theory import referee
from whist_catalogue.theory.deals import Deal, parse_deal, parse_multisuit
from whist_catalogue.theory.values import Outcome


def random_deal(rng: random.Random, max_suits: int, max_n: int) -> list[Deal]:
    suits = []
    for _ in range(rng.randint(1, max_suits)):
        n = rng.randint(1, max_n)
        suits.append(Deal(n, sum(1 << p for p in rng.sample(range(2 * n), n))))
    return suits


def test_alpha_beta_equals_plain_minimax_on_random_small_deals():
    rng = random.Random(20261121)
    for _ in range(400):
        suits = random_deal(rng, 3, 3)
        assert referee.whist_outcome(suits) == referee.plain_whist_outcome(suits), [d.label for d in suits]


def test_alpha_beta_equals_plain_minimax_on_larger_deals():
    rng = random.Random(8)
    for _ in range(100):
        suits = random_deal(rng, 4, 4)
        if sum(d.n for d in suits) > 8:
            continue
        referee.clear_caches()
        assert referee.whist_outcome(suits) == referee.plain_whist_outcome(suits), [d.label for d in suits]


@pytest.mark.parametrize(
    "text, outcome",
    [
        ("AQ/KJ", (1, 2)),  # multi-suit paper (2)
        ("KQT/AJ9", (1, 2)),  # single-suit paper (5): East holds up
        ("A/K", (1, 1)),
        ("K/A", (0, 0)),
        ("KJ/AQ, K/A", (1, 1)),  # (14): the heart king is an exit
        ("KJ/AQ, A/K, K/A", (2, 1)),  # (15): elimination and throw-in, the lead is an advantage
    ],
)
def test_known_outcomes(text, outcome):
    assert referee.whist_outcome([s.deal for s in parse_multisuit(text)]) == Outcome(*outcome)


def test_tricks_after_a_lead():
    # With K Q 10 against A J 9 and West on lead, any lead gives West exactly one trick.
    d = parse_deal("KQT/AJ9")
    assert [referee.tricks_after_lead([d], True, 0, c) for c in d.west_cards] == [1, 1, 1]
    # East to lead A Q against K J (cards 2 and 4): either lead gives West his king trick.
    d = parse_deal("KJ/AQ")
    assert referee.tricks_after_lead([d], False, 0, 2) == 1
    assert referee.tricks_after_lead([d], False, 0, 4) == 1
    with pytest.raises(ValueError):
        referee.tricks_after_lead([d], True, 0, 4)


def test_tricks_after_a_trick():
    d = parse_deal("KQT/AJ9")
    # West leads the king (5); East ducks with the nine (1): East gets two of the remaining tricks.
    assert referee.tricks_after_trick([d], 0, 5, 1) == 1
    # East wins with the ace (6): West keeps Q 10 over J 9 and takes the last two.
    assert referee.tricks_after_trick([d], 0, 5, 6) == 2


def test_five_card_journal_example_1():
    # Journal version §2.1: K Q against A J — the player on lead wins Five-card.
    d = parse_deal("KQ/AJ")
    assert referee.five_card_winner(d, west_on_lead=True) == "W"
    assert referee.five_card_winner(d, west_on_lead=False) == "E"


def test_greedy_whist_differs_from_whist_by_the_hold_up():
    # Single-suit paper (5): greedy, East must win the king with the ace, so West gets two tricks on lead.
    d = parse_deal("KQT/AJ9")
    assert referee.greedy_whist_outcome(d) == Outcome(2, 2)
    assert referee.single_suit_outcome(d) == Outcome(1, 2)
