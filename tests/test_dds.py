"""DDS, Bo Haglund's double-dummy solver (through endplay), as an independent referee of the whole theory.

Random 4-suit deals of up to 13 cards a hand, mapped to bridge as in
``whist_catalogue.scripts.benchmarks.dds`` (West → North, East → East, notrump,
the free low cards to South and West: the two-hand benchmark's mapping, whose test is tests/test_twohand_dds.py): outcomes and first leads against DDS's
every optimal lead, and every legal card of random positions — trick starts and
after the lead — against DDS's score of every card.  The 2,000-deal and
1,000-position run, with the speed ratio, is that script (docs/benchmarks.md).
"""

import random

from whist_catalogue.scripts.benchmarks.dds import (
    dds_moves,
    dds_outcome,
    random_deal,
    random_position,
)
from whist_catalogue.theory.deals import parse_multisuit
from whist_catalogue.theory.moves import suit_card_results
from whist_catalogue.theory.multisuit import evaluate
from whist_catalogue.theory.small_suits import SuitTable

TABLE = SuitTable()


def test_dds_on_a_small_deal():
    suits = parse_multisuit("AQ/KJ, 7/6")
    assert dds_outcome(suits, "W") == (2, {(0, 14), (0, 12), (1, 7)})
    # 7/6 is worth 1 − ε₀, East's exit: East leads the 6 and West makes 2, not 3 (Lemma 9.3).
    assert dds_outcome(suits, "E") == (2, {(1, 6)})


def test_outcomes_and_first_leads_agree_with_dds_on_150_deals():
    rng = random.Random(2012)
    sizes = set()
    for _ in range(150):
        suits = random_deal(rng, rng.randint(9, 13))
        sizes.add(sum(s.n for s in suits))
        e = evaluate([s.deal for s in suits], TABLE)
        for leader, tricks, lead in (("W", e.outcome.west_leads, e.west_lead), ("E", e.outcome.east_leads, e.east_lead)):
            dds_tricks, dds_leads = dds_outcome(suits, leader)
            assert tricks == dds_tricks, [str(s) for s in suits]
            assert (lead.suit, suits[lead.suit].rank_of(lead.card)) in dds_leads, [str(s) for s in suits]
    assert 13 in sizes


def test_every_legal_card_agrees_with_dds_on_300_positions():
    rng = random.Random(1212)
    mid_trick = cards = 0
    for _ in range(300):
        suits, leader, led = random_position(rng, random_deal(rng, 13))
        ours = {(r.suit, r.card): r.west_tricks for r in suit_card_results(suits, leader, TABLE, led)}
        assert ours == dds_moves(suits, leader, led), ([str(s) for s in suits], leader, led)
        mid_trick += led is not None
        cards += len(ours)
    assert mid_trick > 100 and cards > 1000
