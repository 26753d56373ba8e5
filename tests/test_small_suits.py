"""The preloaded table of every suit with n ≤ 8 (theory/small_suits.py) against the engine and the definition."""

import pytest

from whist_catalogue.engine.levels import levels
from whist_catalogue.theory.ranking import level_masks
from whist_catalogue.errors import DealTooLargeError, InvalidDealError
from whist_catalogue.store.solvers import ComputingSolver
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.definition import RecursiveSolver
from whist_catalogue.theory.packed import unpack
from whist_catalogue.theory.small_suits import PACK_MAX_N, TABLE_MAX_N, SuitTable, preloaded


def test_every_deal_up_to_8_equals_the_engine_value_and_lowest_best_leads():
    """Values and first leads to n = 8; every best move (docs/spec.md §3) read off the table's α to n = 6."""
    codes, leads = preloaded()
    table = SuitTable()
    seen = 0
    for level in levels(TABLE_MAX_N, moves=True):
        n = level.n
        for r, west in enumerate(level_masks(n)):
            deal = Deal(n, int(west))
            solution = level.solution(deal)
            assert unpack(codes[deal.key]) == solution.value, deal
            assert leads[deal.key] == (solution.west_leads[0], solution.east_leads[0]), deal
            # A table without a solver answers levels 7 and 8 too, loading them when first asked.
            assert table.code(deal) == codes[deal.key] and table.leads(deal) == leads[deal.key], deal
            if n <= 6:
                assert table.solve(deal) == solution
            seen += 1
    assert seen == len(codes) == len(leads) == 17_576  # Σ C(2n, n), n = 1…8
    assert [len(d) for d in preloaded(PACK_MAX_N)] == [1_274, 1_274]  # what a pack deals: loaded at once


def test_solutions_from_the_table_equal_the_definition_up_to_5():
    table, recursive = SuitTable(), RecursiveSolver()
    for n in range(1, 6):
        for west in level_masks(n):
            deal = Deal(n, int(west))
            assert table.solve(deal) == recursive.solve(deal)


def test_beyond_the_table_the_solver_answers_and_is_remembered():
    deal = Deal.from_label("EWWEWEEWWEWEWEWEWE")  # n = 9
    assert deal.n == TABLE_MAX_N + 1
    with pytest.raises(DealTooLargeError):
        SuitTable().code(deal)
    solver = ComputingSolver()
    table = SuitTable(solver)
    expected = solver.solve(deal)
    assert table.value(deal) == expected.value
    assert table.leads(deal) == (expected.west_leads[0], expected.east_leads[0])
    assert table.solve(deal) == expected
    assert table.code_of_key(deal.key) == table.code(deal)


def test_bad_keys():
    table = SuitTable()
    for bad in (0, -3, 0b100, "AQ/KJ"):
        with pytest.raises(InvalidDealError):
            table.code_of_key(bad)
    assert table.code(Deal(0, 0)) == 0
