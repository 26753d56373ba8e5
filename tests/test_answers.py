"""Where a single suit's answer comes from (store.solvers.answer, answer_many, answer_moves), checked against
independent computations: the preloaded table (made by the engine, checked against the recursive definition),
the suits' values one trick on (Theorem 9.1), and the catalogue."""

from __future__ import annotations

from fractions import Fraction

import pytest
from catalogue_testing import build_catalogue

from whist_catalogue.errors import DealTooLargeError, IllegalMoveError
from whist_catalogue.store.reader import open_catalogue
from whist_catalogue.store.solvers import (CATALOGUE, DEFINITION, LINEAR_TIME, PRELOADED, ChainSolver,
                                           ComputingSolver, answer, answer_many, answer_moves)
from whist_catalogue.theory.deals import Deal, parse_suit
from whist_catalogue.theory.moves import card_results, outcome_card_results, suit_card_results
from whist_catalogue.theory.ranking import level_masks
from whist_catalogue.theory.small_suits import SuitTable
from whist_catalogue.single_suit.linear_time import whist_outcome_linear
from whist_catalogue.theory.values import Infinitesimal, Value

MAX_N = 5
DEALS = [Deal(n, int(m)) for n in range(1, MAX_N + 1) for m in level_masks(n)]
NO_SOLVER = SuitTable(None, preload=False)
"""Answers nothing itself: every deal goes to the linear-time theory, as a suit beyond the engine would."""


def test_the_linear_time_answer_agrees_with_the_values_on_every_deal_up_to_5():
    table = SuitTable()
    for deal in DEALS:
        exact = answer(table, deal)
        linear = answer(NO_SOLVER, deal)
        assert exact.source == PRELOADED and exact.linear is None and exact.not_given == ""
        assert linear.source == LINEAR_TIME and linear.solution is None and "no solver" in linear.beyond
        assert linear.outcome == exact.outcome
        value = exact.solution.value
        detection = linear.linear.detection
        if linear.value is not None:  # Theorem 12.1 names it: an integer or half an odd integer
            assert linear.value == value and value.number.denominator <= 2 and value.infinitesimal == Infinitesimal()
        else:  # strictly between two half-integers, and not the integer between them
            assert Value(detection.lower) < value < Value(detection.upper) and value != Value(detection.lower + Fraction(1, 2))
            assert "the exact value" in linear.not_given
        # A normal lead Theorem 8.2 calls best takes the optimum, as one trick of look-ahead on the values shows.
        leads = linear.linear.leads
        results = {(r.card): r.west_tricks for r in card_results([deal], "W", table)}
        assert leads.west_is_best <= (results[leads.west] == exact.outcome.west_leads)
        results = {(r.card): r.west_tricks for r in card_results([deal], "E", table)}
        assert leads.east_is_best <= (results[leads.east] == exact.outcome.east_leads)


def test_answer_many_is_answer_deal_by_deal():
    table = SuitTable()
    deals = DEALS[::7] + [Deal.from_label("EW" * 13)]  # and one beyond the engine's encoding
    many = answer_many(table, deals)
    assert [a.source for a in many[:-1]] == [PRELOADED] * (len(deals) - 1) and many[-1].source == LINEAR_TIME
    assert [(a.deal, a.solution, a.outcome) for a in many] == [(a.deal, a.solution, a.outcome)
                                                              for a in (answer(table, d) for d in deals)]


def test_a_suit_beyond_the_engine_is_not_even_asked_of_the_solvers():
    class Refuses:
        def solve(self, deal):
            raise AssertionError("asked")

        value = solve

    deal = Deal.from_label("WE" * 26)
    found = answer(Refuses(), deal)
    assert found.source == LINEAR_TIME and found.value == Value(Fraction(25, 2))  # (WE)^n: (n − 1)/2 (Theorem 12.1)
    assert "of any catalogue (n ≤ 18)" in found.beyond and "build the catalogue" not in found.beyond


def test_the_engine_s_reach_advises_a_build_only_where_a_catalogue_can_reach():
    with pytest.raises(DealTooLargeError, match=r"build --max-n 8\) to look it up"):
        ComputingSolver(7).value(Deal.from_label("WE" * 8))
    found = answer(ComputingSolver(7), Deal.from_label("WE" * 8))
    assert found.source == LINEAR_TIME and found.value == Value(Fraction(7, 2))


def test_sources_name_the_catalogue_then_the_definition(tmp_path):
    path = build_catalogue(tmp_path / "c.sqlite", 3, games=False)
    with open_catalogue(path) as catalogue:
        chain = ChainSolver(catalogue, ComputingSolver(6, catalogue=catalogue))
        small, larger = Deal.from_label("EWWE"), Deal.from_label("EWWEEW" + "WE")
        assert answer(chain, small).source == CATALOGUE
        assert answer(chain, larger).source == DEFINITION
        assert [a.source for a in answer_many(chain, [small, larger, small])] == [CATALOGUE, DEFINITION, CATALOGUE]
        assert answer(chain, larger).solution == ComputingSolver(6).solve(larger)


def test_moves_of_one_suit_from_outcomes_equal_the_moves_from_values():
    """One trick of look-ahead on χ by Theorem 10.1 (a suit alone needs no values) against the suits' values."""
    table = SuitTable()
    for deal in (d for d in DEALS if d.n <= 4):
        for leader in "WE":
            assert outcome_card_results(deal, leader, whist_outcome_linear) == card_results([deal], leader, table)
            for card in (deal.west_cards if leader == "W" else deal.east_cards):
                assert (outcome_card_results(deal, leader, whist_outcome_linear, card)
                        == card_results([deal], leader, table, (0, card)))


def test_answer_moves_falls_back_to_linear_time_for_one_suit_only():
    suit = parse_suit("KQT98/AJ765")
    table = SuitTable()
    for leader, led in (("W", None), ("E", None), ("W", (0, 13)), ("E", (0, 11))):
        exact = answer_moves(table, [suit], leader, led)
        linear = answer_moves(NO_SOLVER, [suit], leader, led)
        assert exact.source == "values" and linear.source == LINEAR_TIME
        assert linear.results == exact.results == suit_card_results([suit], leader, table, led)
    with pytest.raises(IllegalMoveError):
        answer_moves(NO_SOLVER, [suit], "W", (0, 14))  # East's ace
    with pytest.raises(DealTooLargeError):  # two suits need values: no linear-time answer
        answer_moves(NO_SOLVER, [suit, suit], "W")
    with pytest.raises(DealTooLargeError, match="too many"):
        answer_moves(NO_SOLVER, [parse_suit("WE" * 300)], "W")

