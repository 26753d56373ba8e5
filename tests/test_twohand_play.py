"""Playing a deal card by card (twohand/play.py): the theory's moves on symmetric deals, the search's on any other; legal
moves, recommendations, undo."""

import pytest
from twohand_minimax import every_card, every_reply

from whist_catalogue.errors import IllegalMoveError
from whist_catalogue.store.solvers import ComputingSolver
from whist_catalogue.theory import referee
from whist_catalogue.theory.deals import TwoHandDeal, parse_multisuit, parse_two_hand
from whist_catalogue.theory.multisuit import LeadRule, Trick
from whist_catalogue.twohand.play import Move, Play, PlayHistory

SOLVER = ComputingSolver()
DEAL_27 = "AKQ8/JT97, AQ87/KJT9, AJT7/KQ98, KQ9/AJT"


def test_recommendation_in_deal_27_is_a_small_heart():
    play = Play.start(parse_multisuit(DEAL_27), "W", SOLVER)
    rule, suits = play.lead_rule()
    assert rule is LeadRule.EXIT and suits == (1,)
    assert set(play.optimal_moves()) == {Move(1, 7), Move(1, 8)}
    assert play.recommended() == Move(1, 7)
    assert play.expected_west_tricks() == 9


@pytest.mark.parametrize("leader", ["W", "E"])
def test_self_play_reaches_the_referees_outcome(leader):
    suits = parse_multisuit(DEAL_27)
    play = Play.start(suits, leader, SOLVER)
    while not play.finished:
        move, _ = play.play_recommended()
    outcome = referee.whist_outcome([s.deal for s in suits])
    assert play.west_tricks == (outcome.west_leads if leader == "W" else outcome.east_leads)
    assert play.west_tricks + play.east_tricks == 15


def test_following_suit_and_turns():
    play = Play.start(parse_multisuit("AQ/KJ, A/K"), "W", SOLVER)
    assert play.to_play == "W"
    play.play(Move(0, 12))  # West leads the queen
    assert play.to_play == "E"
    assert play.legal_moves() == [Move(0, 11), Move(0, 13)]
    with pytest.raises(IllegalMoveError, match="follow suit 1"):
        play.play(Move(1, 13))
    trick = play.play(Move(0, 13))
    assert trick is not None and trick.winner == "E"
    assert play.to_play == "E" and play.east_tricks == 1
    with pytest.raises(IllegalMoveError, match="does not hold"):
        play.play(Move(0, 14))


def test_undo_restores_the_position():
    play = Play.start(parse_multisuit(DEAL_27), "W", SOLVER)
    before = (list(play.suits), play.leader, list(play.legal_moves()))
    play.play(Move(1, 7))
    play.play(Move(1, 9))
    assert play.undo() == Move(1, 9)
    assert play.undo() == Move(1, 7)
    assert (list(play.suits), play.leader, list(play.legal_moves())) == before
    with pytest.raises(IllegalMoveError, match="nothing to undo"):
        play.undo()


def test_replies_are_best_replies():
    # Single-suit paper (5): against the king East holds up with the nine.
    play = Play.start(parse_multisuit("KQT/AJ9"), "W", SOLVER)
    play.play(Move(0, 13))
    assert play.optimal_moves() == [Move(0, 9)]


def test_finished_deal():
    play = Play.start(parse_multisuit("A/K"), "W", SOLVER)
    play.play_recommended()
    play.play_recommended()
    assert play.finished and play.west_tricks == 1
    assert play.optimal_moves() == []
    with pytest.raises(IllegalMoveError, match="over"):
        play.recommended()


def test_line_to_end_leaves_the_position_alone():
    suits = parse_multisuit(DEAL_27)
    play = Play.start(suits, "E", SOLVER)
    play.play(Move(0, 10))  # East leads the spade ten; the line continues from West's reply
    line = play.line_to_end()
    assert play.led == Move(0, 10) and len(play.tricks) == 0
    assert len(line) == 15 and line[0].lead == 10 and line[0].leader == "E"
    # Both sides optimal from the start: the line ends with the referee's outcome, 9 tricks for West.
    assert sum(t.winner == "W" for t in line) == referee.whist_outcome([s.deal for s in suits]).east_leads
    copy = play.copy()
    copy.play(copy.recommended())
    assert play.led == Move(0, 10) and copy.led is None
    assert copy.undo() == Move(0, line[0].reply) and copy.led == Move(0, 10)


def test_after_an_off_line_lead_the_reply_is_best_for_the_whole_deal():
    # The deal: West leads the T of the second suit; the 3 is best within the suit, the K in the deal.
    play = Play.start(parse_multisuit("7/6, JT5/K83, 3/A"), "W", SOLVER)
    play.play(Move(1, 10))
    assert play.card_results() == {Move(1, 3): 3, Move(1, 8): 3, Move(1, 13): 2}
    assert play.optimal_moves() == [Move(1, 13)] and play.recommended() == Move(1, 13)
    assert play.cost(Move(1, 3)) == 1 and play.cost(Move(1, 13)) == 0


def test_every_reply_and_lead_of_the_app_is_optimal_after_random_play():
    """Random cards for one side (off the line, often), the app's card for the other: each app card is
    optimal by brute-force minimax, and the deal ends with the referee's value of the last position."""
    import random

    from test_multisuit import random_multisuit

    rng = random.Random(1912)
    checked = 0
    for _ in range(60):
        suits = random_multisuit(rng, 7)
        play = Play.start(suits, rng.choice("WE"), SOLVER)
        user = rng.choice("WE")
        while not play.finished:
            if play.to_play == user:
                play.play(rng.choice(play.legal_moves()))
                continue
            move = play.recommended()
            deals = [s.deal for s in play.suits]
            mover_is_west = play.to_play == "W"
            if play.led is None:
                expected = referee.whist_outcome(deals)
                best = expected.west_leads if mover_is_west else expected.east_leads
                got = referee.tricks_after_lead(deals, mover_is_west, move.suit, play.suits[move.suit].card_of(move.rank))
            else:
                suit = play.suits[move.suit]
                led, mine = suit.card_of(play.led.rank), suit.card_of(move.rank)
                w, e = (mine, led) if mover_is_west else (led, mine)
                pick = max if mover_is_west else min
                others = suit.deal.west_cards if mover_is_west else suit.deal.east_cards
                best = pick(
                    referee.tricks_after_trick(deals, move.suit, *((c, led) if mover_is_west else (led, c)))
                    for c in others
                )
                got = referee.tricks_after_trick(deals, move.suit, w, e)
            assert got == best, ([str(s) for s in play.suits], play.leader, play.led, move)
            assert play.card_results()[move] == play.west_tricks + got
            play.play(move)
            checked += 1
    assert checked > 150


def _state(play: Play) -> tuple:
    return list(play.suits), play.leader, play.led, list(play.tricks), play.legal_moves()


def test_a_history_steps_back_and_forward_through_the_line_without_losing_it():
    suits = parse_multisuit("KQT/AJ9, AQ/KJ")
    history = PlayHistory(Play.start(suits, "W", SOLVER))
    while not history.play.finished:
        history.play_card(history.play.recommended())
    line = [c.move for c in history.line]
    assert len(line) == 10 and len(history.tricks) == 5 and history.at_end
    # every position of the line is the one a fresh play of its first k cards reaches
    for k in [3, 0, 10, 7, 2, 2, 9]:
        history.go_to(k)
        fresh = Play.start(suits, "W", SOLVER)
        for move in line[:k]:
            fresh.play(move)
        assert history.cursor == k and _state(history.play) == _state(fresh)
        assert [c.move for c in history.line] == line  # stepping never drops a card
    history.go_to_trick(2)
    assert history.cursor == 4 and len(history.play.tricks) == 2 and history.play.led is None
    assert history.back() and history.cursor == 3 and history.play.led == line[2]
    assert history.forward() and history.forward() and history.cursor == 5
    history.go_to(99)
    assert history.at_end and not history.forward()
    history.go_to(-5)
    assert history.cursor == 0 and not history.back()


def test_replaying_the_next_card_keeps_the_line_and_another_card_cuts_it():
    suits = parse_multisuit("KQT/AJ9")
    history = PlayHistory(Play.start(suits, "W", SOLVER))
    for move in (Move(0, 13), Move(0, 9), Move(0, 12), Move(0, 11)):
        history.play_card(move)
    history.go_to(2)
    history.play_card(Move(0, 12))  # the line's own next card: the rest stays
    assert len(history.line) == 4 and history.cursor == 3
    history.go_to(2)
    card = history.play_card(Move(0, 10))  # another card: the line ends there
    assert [c.move for c in history.line] == [Move(0, 13), Move(0, 9), Move(0, 10)]
    assert history.at_end and card.player == "W" and card.trick is None
    reply = history.play_card(Move(0, 14))
    assert reply.trick is not None and reply.trick.winner == "E" and reply.player == "E"
    with pytest.raises(IllegalMoveError):
        history.play_card(Move(0, 2))
    assert len(history.line) == 4  # a rejected card changes nothing


def test_a_history_records_what_each_card_cost():
    history = PlayHistory(Play.start(parse_multisuit("KQT/AJ9"), "W", SOLVER))
    history.play_card(Move(0, 13))  # West leads the K: a best lead
    history.play_card(Move(0, 14))  # East takes it with the A instead of holding up with the 9
    assert [c.cost for c in history.line] == [0, 1]
    assert [c.cost for c in history.played] == [0, 1]
    history.back()
    assert [c.cost for c in history.played] == [0]


# -- two-hand deals: voids, ruffs, discards, every position answered by the search or the theory ----------------


def test_a_void_lets_the_follower_ruff_or_discard_and_the_trick_goes_by_the_rules():
    deal = parse_two_hand("trumps ♥: AK2/-, 5/QJ43")
    play = Play.start(deal.suits, "W", SOLVER, deal.trump)
    assert play.source == "search" and play.lead_rule() is None
    play.play(Move(0, 14))  # West leads the ace of spades; East has none: any card
    assert play.legal_moves() == [Move(1, 3), Move(1, 4), Move(1, 11), Move(1, 12)]
    trick = play.play(Move(1, 3))  # East ruffs with the 3 of trumps
    assert trick == Trick("W", 0, 14, 3, 1, True) and trick.winner == "E" and play.leader == "E"
    assert play.hand("E", 1) == (4, 11, 12) and play.hand("W", 0) == (2, 13)
    play.play(Move(1, 4))  # East leads a trump; West follows with the 5 ...
    assert play.legal_moves() == [Move(1, 5)]
    assert play.play(Move(1, 5)).winner == "W"  # ... which beats the 4
    play.play(Move(0, 13))  # West leads the king of spades: East ruffs or — here, only trumps — ruffs
    assert play.play(Move(1, 11)).winner == "E"
    # without trumps the same card is a discard, and the leader keeps the trick
    plain = Play.start(deal.suits, "W", SOLVER)
    plain.play(Move(0, 14))
    trick = plain.play(Move(1, 3))
    assert trick is not None and not trick.ruff and trick.winner == "W"


def test_a_deal_leaves_the_search_for_the_theory_when_its_suits_are_even_again():
    # AK/-, -/QJ, K/A: after West's A and East's discard of the J the spades and hearts are each 1 : 0 and 0 : 1;
    # after one more such trick every suit left is even, and the theory answers
    deal = parse_two_hand("AK/-, -/QJ, K/A")
    play = Play.start(deal.suits, "W", SOLVER)
    play.play(Move(0, 14))
    play.play(Move(1, 11))
    assert play.source == "search"
    play.play(Move(0, 13))
    play.play(Move(1, 12))
    assert play.source == "theory" and play.west_tricks == 2
    assert play.lead_rule() is not None and play.card_results() == {Move(2, 13): 2}


def _minimax_results(play: Play) -> dict[Move, int]:
    """Each legal card's final West tricks by plain minimax (tests/twohand_minimax.py) of the cards still held."""
    live = [i for i, s in enumerate(play.suits) if s.west or s.east]
    deal = TwoHandDeal(tuple(play.suits[i] for i in live), live.index(play.trump) if play.trump in live else None)
    if play.led is None:
        _, results = every_card(deal, play.leader, memo=True)
    else:
        results = every_reply(deal, play.leader, (live.index(play.led.suit), play.led.rank), memo=True)
    return {Move(live[s], r): play.west_tricks + k for (s, r), k in results.items()}


def test_every_card_of_the_app_is_optimal_after_random_play_by_minimax():
    """Random cards for one side (often costly), the recommended card for the other, on random deals with voids and
    trumps: every position's card results equal plain minimax's, each recommended card is a best one, and a deal
    played out ends with the tricks its results promised."""
    import random

    from test_twohand_solver import random_deal

    rng = random.Random(2024)
    checked = searched = theory = 0
    for _ in range(40):
        deal = random_deal(rng, rng.randint(2, 6))
        play = Play.start(deal.suits, rng.choice("WE"), SOLVER, deal.trump)
        user = rng.choice("WE")
        while not play.finished:
            assert play.card_results() == _minimax_results(play), (deal.text(), play.moves)
            searched += play.source == "search"
            theory += play.source == "theory"
            if play.to_play == user:
                play.play(rng.choice(play.legal_moves()))
                continue
            promised = play.expected_west_tricks()
            move = play.recommended()
            assert play.cost(move) == 0 and play.card_results()[move] == promised
            play.play(move)
            checked += 1
    assert checked > 60 and searched > 100 and theory > 10


def test_the_search_positions_agree_with_the_solver_and_the_line_keeps_its_promise():
    from whist_catalogue.twohand.position import Position
    from whist_catalogue.twohand.solver import solve

    deal = parse_two_hand("trumps ♠: AKQ2/J5, KJ9/T8, QT3/AK, 7/Q2, -/964")
    for leader in "WE":
        play = Play.start(deal.suits, leader, SOLVER, deal.trump)
        answer = solve(deal).answer(leader)
        assert play.card_results() == {Move(r.suit, r.card): r.west_tricks for r in answer.moves}
        assert play.expected_west_tricks() == answer.west_tricks
        line = play.line_to_end()
        assert len(line) == 11 and sum(t.winner == "W" for t in line) == answer.west_tricks
        play.play(play.legal_moves()[0])  # the lowest card, a mistake or not
        after = solve(Position(deal, leader, (play.led.suit, play.led.rank))).answers[0]
        assert play.card_results() == {Move(r.suit, r.card): r.west_tricks for r in after.moves}
        copy = play.copy()
        assert copy.trump == 0 and copy.card_results() == play.card_results()
