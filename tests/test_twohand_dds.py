"""DDS, Bo Haglund's bridge double-dummy solver (through endplay), as an independent referee of the two-hand
solver: deals mapped to bridge as in ``whist_catalogue.scripts.benchmarks.twohand`` (West → North, East → East,
the trump suit kept, South and West of the table holding only low non-trump cards), every legal first card's
result for both leaders equal, on 2,000 seeded deals of each kind: 13 cards a hand without trumps and with uneven
suits, 9 cards a hand with trumps (about 20 s, most of it DDS's); the benchmark script compares larger batches
through the command line (docs/benchmarks.md)."""

import random

import pytest

from whist_catalogue.scripts.benchmarks.twohand import bridge_deal, dds_first_cards, our_first_cards, random_two_hand
from whist_catalogue.theory.deals import parse_two_hand
from whist_catalogue.twohand.solver import solve_many


def test_the_mapping_to_bridge():
    deal = parse_two_hand("trumps ♥: AK2/-, 5/QJ43")
    board, cards = bridge_deal(deal)
    # Each suit on the top ranks, in its order; South and West get the highest free cards of the side suits
    # (the spades below the three in play, diamonds, clubs) and never a heart, with which they could ruff.
    assert board.to_pbn() == "N:AKQ.Q.. .AKJT.. J..AKQ. ..J.AKQ"
    assert cards[(0, 14)] == (0, 14) and cards[(0, 12)] == (0, 2) and cards[(1, 13)] == (1, 11)
    # East ruffs everything: West takes nothing whatever he leads; East on lead gives one trick by leading low.
    assert dds_first_cards(deal, "W") == {(0, 14): 0, (0, 13): 0, (0, 2): 0, (1, 5): 0}
    assert dds_first_cards(deal, "E") == {(1, 12): 0, (1, 11): 0, (1, 4): 1, (1, 3): 1}


@pytest.mark.parametrize("cards, trumps, seed", [(13, False, 1313), (9, True, 909)])
def test_every_first_card_of_both_leaders_agrees_with_dds_on_2000_deals(cards, trumps, seed):
    rng = random.Random(seed)
    deals = [random_two_hand(rng, cards, trumps, uneven=not trumps) for _ in range(2000)]
    checked = 0
    for deal, solution in zip(deals, solve_many(deals)):
        board = bridge_deal(deal)
        for leader in "WE":
            assert our_first_cards(solution, leader) == dds_first_cards(deal, leader, board), (deal.text(), leader)
            checked += 1
    assert checked == 4000
    assert all(not d.symmetric for d in deals) if not trumps else sum(d.trump is not None for d in deals) == 2000
