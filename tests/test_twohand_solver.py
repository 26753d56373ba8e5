"""The exact two-hand solver against plain minimax (tests/twohand_minimax.py): every legal card's result, both
leaders, every deal of up to 4 cards a hand over up to 3 suits with each trump choice and none, and thousands
of seeded random deals of up to 6 cards a hand; positions after the lead; optimal lines; the API; bad input."""

from __future__ import annotations

import itertools
import json
import random
from typing import Sequence

import pytest

from twohand_minimax import Minimax, every_card, every_reply, follower_wins, hands
from whist_catalogue.constants import MAX_SEARCH_N
from whist_catalogue.errors import (
    BeyondSearchError,
    DuplicateCardError,
    IllegalMoveError,
    InvalidDealError,
    TrumpSuitError,
    UnevenHandsError,
)
from whist_catalogue.theory.deals import Notation, Suit, TwoHandDeal
from whist_catalogue.twohand.position import Position
from whist_catalogue.twohand.solver import LeaderAnswer, TwoHandSolution, solve, solve_many


def _compositions(total: int, parts: int):
    for cuts in itertools.combinations(range(1, total), parts - 1):
        bounds = (0, *cuts, total)
        yield [bounds[i + 1] - bounds[i] for i in range(parts)]


def every_deal(n: int, suits: int):
    """Every deal of n cards a hand over exactly ``suits`` nonempty suits (owner strings), each trump choice."""
    for sizes in _compositions(2 * n, suits):
        for west in itertools.combinations(range(2 * n), n):
            owned, dealt, start = set(west), [], 0
            for m in sizes:
                cards = range(start, start + m)
                dealt.append(Suit(tuple(c - start + 1 for c in cards if c in owned),
                                  tuple(c - start + 1 for c in cards if c not in owned), Notation.OWNER))
                start += m
            for trump in (None, *range(suits)):
                yield TwoHandDeal(tuple(dealt), trump)


def random_deal(rng: random.Random, n: int, suits: int | None = None) -> TwoHandDeal:
    """n cards a hand dealt from a pack of ``suits`` suits of 13 ranks (a void wherever it falls), trumps or not."""
    suits = suits or rng.randint(1, 5)
    cards = rng.sample([(s, r) for s in range(suits) for r in range(2, 15)], 2 * n)
    west = set(rng.sample(cards, n))
    dealt = []
    for s in range(suits):
        held = sorted(r for x, r in cards if x == s)
        if held:
            dealt.append(Suit(tuple(r for r in held if (s, r) in west), tuple(r for r in held if (s, r) not in west),
                              Notation.RANKS))
    return TwoHandDeal(tuple(dealt), rng.choice([None, rng.randrange(len(dealt))]))


def assert_equals_minimax(deal: TwoHandDeal, solutions: Sequence[TwoHandSolution], memo: bool) -> None:
    """Each solution of the deal has minimax's outcome and every first card's result, both leaders."""
    for leader in "WE":
        tricks, results = every_card(deal, leader, memo)
        for solution in solutions:
            answer = solution.answer(leader)
            assert answer.west_tricks == tricks, (deal.text(), leader)
            assert {(r.suit, r.card): r.west_tricks for r in answer.moves} == results, (deal.text(), leader)


def test_every_deal_of_up_to_4_cards_a_hand_over_up_to_3_suits_with_each_trump_choice():
    """8,778 deals: plain minimax, no memo at all (about 8 s), against the batch solver three ways — as it
    answers (the symmetric deals from the theory, the others from the table of endings), searching with the
    theory's leaves only, and searching with neither."""
    deals = [d for n in range(1, 5) for k in range(1, 4) for d in every_deal(n, k)]
    assert len(deals) == 8778
    answered = solve_many(deals)
    assert {s.source for s in answered} == {"theory", "search"}
    ways = zip(answered, solve_many(deals, endings=False), solve_many(deals, theory=False, endings=False))
    for deal, solutions in zip(deals, ways):
        assert_equals_minimax(deal, solutions, memo=False)


def test_thousands_of_random_deals_of_up_to_6_cards_a_hand():
    """2,500 seeded deals of 1 to 6 cards a hand in 1 to 5 suits (so some endings are beyond the table's four
    suits), against minimax remembering exact hands: as answered, and searched without the endings."""
    rng = random.Random(2929)
    deals = [random_deal(rng, rng.randint(1, 6)) for _ in range(2500)]
    assert sum(d.n == 6 for d in deals) > 300 and sum(d.trump is not None for d in deals) > 1000
    assert sum(len(d.suits) > 4 for d in deals) > 100
    for deal, solutions in zip(deals, zip(solve_many(deals), solve_many(deals, endings=False))):
        assert_equals_minimax(deal, solutions, memo=True)


def test_random_deals_of_7_cards_a_hand_endings_of_the_table():
    """80 seeded deals of 7 cards a hand (every one of them an ending of the table when in at most 4 suits)."""
    rng = random.Random(7777)
    deals = [random_deal(rng, 7, rng.randint(2, 5)) for _ in range(80)]
    answered = solve_many(deals)
    searched = [(d, s) for d, s in zip(deals, answered) if s.source == "search"]
    assert len(searched) > 60 and all(s.endings > 0 for d, s in searched if len(d.suits) <= 4)
    for deal, solutions in zip(deals, zip(answered, solve_many(deals, endings=False))):
        assert_equals_minimax(deal, solutions, memo=True)


def test_positions_after_the_lead():
    """Every reply to a random lead of random deals, searched and from the theory alike."""
    rng = random.Random(77)
    for _ in range(600):
        deal = random_deal(rng, rng.randint(1, 6), rng.randint(1, 3))
        leader = rng.choice("WE")
        west, east = hands(deal)
        led = rng.choice(sorted(west if leader == "W" else east))
        solution = solve(Position(deal, leader, led), line=False, endings=rng.random() < 0.5)
        (answer,) = solution.answers
        replies = every_reply(deal, leader, led, memo=True)
        assert {(r.suit, r.card): r.west_tricks for r in answer.moves} == replies, (deal.text(), leader, led)
        pick = min if leader == "W" else max
        assert answer.west_tricks == pick(replies.values())
        assert answer.to_play == ("E" if leader == "W" else "W")


def assert_line_is_optimal(deal: TwoHandDeal, answer: LeaderAnswer) -> None:
    """Each card of the line is legal and keeps West's tricks at the position's value, by minimax."""
    assert answer.line is not None
    game = Minimax(deal.trump, memo=True)
    west, east = hands(deal)
    leader, led, tricks = answer.leader, answer.led, answer.west_tricks
    cards = list(answer.line)
    assert len(cards) == 2 * deal.n - (led is not None)
    while cards:
        if led is None:
            card = cards.pop(0)
            assert card.player == leader and (card.suit, card.rank) in (west if leader == "W" else east)
            led = (card.suit, card.rank)
            assert game.after_lead(west, east, leader, led) == tricks, (deal.text(), answer)
        reply = cards.pop(0)
        follower = "E" if leader == "W" else "W"
        hand = east if leader == "W" else west
        following = [c for c in hand if c[0] == led[0]]
        assert reply.player == follower and (reply.suit, reply.rank) in (following or hand)
        assert game.after_trick(west, east, leader, led, (reply.suit, reply.rank)) == tricks, (deal.text(), answer)
        winner = follower if follower_wins(led, (reply.suit, reply.rank), deal.trump) else leader
        west_card, east_card = (led, (reply.suit, reply.rank)) if leader == "W" else ((reply.suit, reply.rank), led)
        west, east = west - {west_card}, east - {east_card}
        tricks -= winner == "W"
        leader, led = winner, None
    assert tricks == 0


def test_optimal_lines_of_deals_and_positions():
    rng = random.Random(31)
    sources = set()
    for _ in range(300):
        deal = random_deal(rng, rng.randint(1, 6), rng.randint(1, 4))
        solution = solve(deal, theory=rng.random() < 0.8, endings=rng.random() < 0.5)
        sources.add(solution.source)
        for answer in solution.answers:
            assert_line_is_optimal(deal, answer)
        leader = rng.choice("WE")
        west, east = hands(deal)
        led = rng.choice(sorted(west if leader == "W" else east))
        for answer in solve(Position(deal, leader, led)).answers:
            assert_line_is_optimal(deal, answer)
    assert sources == {"theory", "search"}


class TestAnswers:
    def test_a_ruff_against_no_trumps(self):
        # West: AK of spades; East: QJ of hearts. Without trumps West takes both tricks on lead and East none;
        # with hearts trumps East ruffs.
        plain = solve("AK/-, -/QJ")
        assert plain.outcome == (2, 0) and plain.source == "search" and plain.value is None
        ruffed = solve("trumps ♥: AK/-, -/QJ")
        assert ruffed.outcome == (0, 0)
        assert solve("trumps ♠: AK/-, -/QJ").outcome == (2, 2)

    def test_equivalent_cards_share_a_result_and_every_card_is_named(self):
        solution = solve("AKQ/-, -/432")
        west = solution.answer("W")
        assert [(r.suit, r.card, r.west_tricks) for r in west.moves] == [(0, 12, 3), (0, 13, 3), (0, 14, 3)]
        assert [r.card for r in west.best()] == [12, 13, 14]

    def test_a_symmetric_deal_is_the_theorys_and_has_a_value(self):
        solution = solve("AQ/KJ, 7/6", trumps="S")
        assert solution.source == "theory" and solution.nodes == 0
        assert solution.value is not None and solution.value.text() == "2 + 1/2 − ε₀"
        assert solution.outcome == (2, 2)
        searched = solve("AQ/KJ, 7/6", trumps="S", theory=False, endings=False)
        assert searched.source == "search" and searched.value is None and searched.theory_leaves == 0
        assert searched.answers[0].moves == solution.answers[0].moves

    def test_json_and_text(self):
        """The command line's JSON and text (outcome --cards, moves), the counters and the lines of play beside."""
        solution = solve("trumps ♥: AK2/-, 5/QJ43")
        data = json.loads(json.dumps(solution.to_json()))
        assert data["endings"] == solution.endings > 0 and data["nodes"] == solution.nodes
        assert data["deal"] == "trumps ♥: AK2/-, 5/QJ43" and data["trumps"] == 1 and data["source"] == "search"
        assert data["value"] is None and data["suits"] is None
        assert data["outcome"] == {"west_leads": solution.answers[0].west_tricks,
                                   "east_leads": solution.answers[1].west_tricks}
        assert {k: data[k] for k in ("outcome", "lead", "cards")} == \
            {k: v for k, v in solution.record().to_json().items() if k in ("outcome", "lead", "cards")}
        first = data["cards"]["west"][0]
        assert set(first) == {"suit", "card", "west_tricks"} and first["suit"] in (0, 1)
        assert {c["player"] for c in data["line"]["east_leads"]} == {"W", "E"}
        text = solution.text()
        assert text.startswith("trumps ♥: AK2/-, 5/QJ43\n  answered     by search")
        assert "outcome      West takes" in text and "    suit 2 (5/QJ43)  3:1  4:1  J:0*  Q:0*\n" in text
        assert "  a line with East on lead  E:" in text
        position = solve(Position("trumps ♥: AK2/-, 5/QJ43", "W", (0, 14))).to_json()
        assert position["to_play"] == "E" and position["led"] == {"suit": 0, "card": "A"}
        # East, void in spades, ruffs with any of his four hearts: QJ are one run, 43 another, each its result.
        assert [(m["suit"], m["card"]) for m in position["moves"]] == [(1, "3"), (1, "4"), (1, "J"), (1, "Q")]
        assert position["moves"][0]["west_tricks"] == position["moves"][1]["west_tricks"]
        theory = solve("AQ/KJ, 7/6", trumps="S").to_json()
        assert theory["source"] == "theory" and theory["value"]["text"] == "2 + 1/2 − ε₀"
        assert theory["lead"] == {"west": {"suit": 1, "card": "7"}, "east": {"suit": 1, "card": "6"}}  # §10.4

    def test_notebook_drawing(self):
        html = solve("trumps ♥: AK2/-, 5/QJ43")._repr_html_()
        assert "<svg" in html and "trumps ♥" in html and "outcome      West takes 0 tricks" in html

    def test_a_batch_answers_as_one_deal_at_a_time(self):
        rng = random.Random(4)
        deals = [random_deal(rng, rng.randint(1, 9), 4) for _ in range(200)]
        texts = [d.text() for d in deals]
        for one, many in zip((solve(t, line=False) for t in texts), solve_many(texts)):
            assert one.answers == many.answers and one.source == many.source
            assert one.record() == many.record()  # the same answer as the command line renders it (the counters differ:
            assert many.to_json()["outcome"] == one.to_json()["outcome"]  # the transposition table's state differs)


class TestBadInput:
    def test_hands_of_different_sizes(self):
        with pytest.raises(UnevenHandsError, match="West holds 4 cards, East 3"):
            solve("AK2/-, 5/QJ3")

    def test_a_card_twice(self):
        with pytest.raises(DuplicateCardError, match="twice"):
            solve("AKA/-, -/QJ2")

    def test_a_trump_suit_the_deal_does_not_have(self):
        with pytest.raises(TrumpSuitError, match="no trump suit 'C'"):
            solve("AK/-, -/QJ", trumps="C")

    def test_a_deal_past_the_searchs_limit(self):
        n = MAX_SEARCH_N + 1
        text = " ".join(map(str, range(1, n + 1))) + " / -, - / " + " ".join(map(str, range(1, n + 1)))
        with pytest.raises(BeyondSearchError, match=f"{n} cards a hand.*at most {MAX_SEARCH_N} cards a hand"):
            solve(text)
        with pytest.raises(BeyondSearchError):
            solve_many(["AK/-, -/QJ", text])

    def test_a_card_led_that_is_not_the_leaders(self):
        with pytest.raises(IllegalMoveError, match="West does not hold Q"):
            solve(Position("AK/-, -/QJ", "W", (1, 12)))

    def test_not_a_deal(self):
        with pytest.raises(InvalidDealError, match="not a card rank"):
            solve("AK/-, -/QX")
