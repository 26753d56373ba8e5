"""Foster's chemin-de-fer: his Tables 1–7 reproduced, and the exact minimax solution certified."""

from __future__ import annotations

from fractions import Fraction

import pytest

from whist_catalogue.games import chemin_de_fer as cdf
from whist_catalogue.games.matrix_games import (
    CertificationError,
    MatrixGameSolution,
    round_decimal,
    solve_matrix_game,
    truncate_decimal,
)

F = Fraction

H_STAR = F(575, 704)
VALUE = F(389724220, 30386933291)
DRAW_ON_6_10 = F(20533, 54626)


@pytest.fixture(scope="module")
def solution() -> cdf.CheminDeFerSolution:
    return cdf.solve()


# -- Tables 1 and 2 ---------------------------------------------------------------------------------


def test_table_1_initial_score_probabilities():
    a = cdf.initial_score_probabilities()
    assert a[0] == F(595, 4043)  # §6, worked in the text
    assert a[0] == F(96 * 95 + 24**2 * 8 + 24 * 23, 312 * 311)
    assert sum(a) == 1
    assert len({a[i] for i in (1, 3, 5, 7, 9)}) == 1 and len({a[i] for i in (2, 4, 6, 8)}) == 1
    # Table 1 prints 10 decimals, truncated (a_0 = 0.14716794459…).
    assert truncate_decimal(a[0], 10) == cdf.FOSTER_TABLE_1[0]
    assert truncate_decimal(a[1], 10) == cdf.FOSTER_TABLE_1[1]
    assert truncate_decimal(a[2], 10) == cdf.FOSTER_TABLE_1[2]


def test_table_2_further_point_probabilities():
    b = cdf.further_point_probabilities()
    assert b[0] == F(16, 52) and set(b[1:10]) == {F(4, 52)} and b[cdf.STAND] == 0
    assert truncate_decimal(b[0], 10) == cdf.FOSTER_TABLE_2[0]
    assert truncate_decimal(b[1], 10) == cdf.FOSTER_TABLE_2[1]


# -- the model --------------------------------------------------------------------------------------


def test_payoff_rules():
    assert cdf.payoff(3, 8, 5, 7) == 1  # a natural 8 beats an ordinary hand whatever was drawn
    assert cdf.payoff(9, 8, cdf.STAND, cdf.STAND) == -1 and cdf.payoff(8, 8, cdf.STAND, cdf.STAND) == 0
    assert cdf.payoff(8, 5, cdf.STAND, 4) == -1  # A's natural beats B's drawn 9
    assert cdf.payoff(5, 3, 9, 2) == 1  # 5 + 9 = 4 against 3 + 2 = 5
    assert cdf.payoff(6, 6, cdf.STAND, 0) == 0  # "10" (no card) and a 0-point card both add nothing


def test_payoff_is_antisymmetric():
    # The fact behind Foster's reduction: the game is symmetric when B copies A's rule.
    for i in range(10):
        for j in range(10):
            for l in range(11):
                for m in range(11):
                    assert cdf.payoff(i, j, l, m) == -cdf.payoff(j, i, m, l)


@pytest.mark.parametrize("h", [F(0), F(1, 3), F(1)])
def test_copying_as_rule_is_fair(h):
    a = cdf.initial_score_probabilities()
    total = sum(
        a[i] * cdf.player_further_point(i, l, h) * a[j] * cdf.player_further_point(j, m, h) * cdf.payoff(i, j, l, m)
        for i in range(10)
        for j in range(10)
        for l in range(11)
        for m in range(11)
    )
    assert total == 0


# -- G(h): the envelope against the full sum and Foster's reduction ---------------------------------


def test_full_sum_agrees_with_the_cell_decomposition():
    env = cdf.envelope()
    for number, table in cdf.FOSTER_TABLES.items():
        strategy = tuple(int(table.draws(j, l)) for j in cdf.BANKER_SCORES for l in cdf.A_MOVES)
        for h in (F(0), F(3, 7), F(1)):
            assert cdf.banker_gain(h, table) == env.gain(h, strategy), number


def test_foster_reduction_agrees_with_the_envelope(solution):
    env = cdf.envelope()
    points = list(cdf.FOSTER_TABLE_3) + list(solution.breakpoints) + [F(1, 7), F(2, 3), F(22, 23)]
    for h in points:
        g, table = cdf.foster_gain(h)
        assert g == env(h) == solution.G(h)
        if h not in solution.breakpoints:
            assert table == cdf.DecisionTable.from_choices(env.best_response(h))


def test_table_3_to_three_decimals(solution):
    for h, printed in cdf.FOSTER_TABLE_3.items():
        assert round_decimal(solution.G(h) * 100, 3) == printed, h


def test_table_3_is_not_straight_between_0_and_half():
    # Foster: "Between h=0 and h=0.5, the graph is a straight line".  His own Table 3 says
    # otherwise: slopes −0.344 and −0.320 differ by more than rounding to 3 decimals allows.
    g = {h: F(v) for h, v in cdf.FOSTER_TABLE_3.items()}
    left = (g[F(1, 4)] - g[F(0)]) / F(1, 4)
    right = (g[F(1, 2)] - g[F(1, 4)]) / F(1, 4)
    assert right - left > 4 * F(5, 10000) / F(1, 4)


# -- Tables 4–7 -------------------------------------------------------------------------------------


def test_tables_4_to_7_are_the_decision_tables_of_the_ranges(solution):
    assert [r.foster_number for r in solution.ranges] == [4, 5, 6, 7]
    assert [r.table for r in solution.ranges] == [cdf.FOSTER_TABLES[n] for n in (4, 5, 6, 7)]
    # The ringed cells: (3, 9), then (6, 10), then (4, 1).
    assert [r.changed for r in solution.ranges] == [(), ((3, 9),), ((6, 10),), ((4, 1),)]
    assert solution.breakpoints == (F(1709, 4224), H_STAR, F(2557, 2688))
    assert solution.ranges[0].start == 0 and solution.ranges[-1].end == 1


def test_each_breakpoint_is_a_root_of_z(solution):
    for (j, l), h in zip([(3, 9), (6, 10), (4, 1)], solution.breakpoints):
        assert cdf.foster_z(j, l, h) == 0


def test_foster_samples_fall_in_his_ranges(solution):
    # His tables at the h he computed: 0, 0.25 → Table 4; 0.5 … 0.8 → Table 5; 0.85, 0.9 → Table 6; 1 → Table 7.
    expected = {0: 4, F(1, 4): 4, F(1, 2): 5, F(3, 4): 5, F(31, 40): 5, F(4, 5): 5, F(17, 20): 6, F(9, 10): 6, 1: 7}
    for h, number in expected.items():
        assert cdf.foster_gain(h)[1] == cdf.FOSTER_TABLES[number], h
        assert solution.ranges[number - 4].start <= h <= solution.ranges[number - 4].end


def test_decision_table_text_forms():
    table = cdf.FOSTER_TABLES[5]
    assert cdf.DecisionTable.from_str(str(table)) == table
    assert table.draws(3, 9) and not cdf.FOSTER_TABLES[4].draws(3, 9)
    assert table.text().splitlines()[1] == "  3  1  1  1  1  1  1  1  1  0  1  1"
    with pytest.raises(ValueError, match="invalid decision table"):
        cdf.DecisionTable.from_str("1111/xx")
    with pytest.raises(ValueError, match="4 rows of 11"):
        cdf.DecisionTable.from_str("111")


# -- the exact minimax solution ---------------------------------------------------------------------


def test_exact_minimax(solution):
    assert solution.h == H_STAR
    assert solution.value == VALUE == solution.G(H_STAR) == min(solution.G(h) for h in solution.breakpoints)
    assert [(p, r.foster_number) for p, r in solution.banker_mixture] == [(1 - DRAW_ON_6_10, 5), (DRAW_ON_6_10, 6)]
    assert solution.mixed_cells == (((6, 10), DRAW_ON_6_10),)
    # Foster's readings off Fig. 3: h "about 0.8", value "about 1.29 %", stand on (6, 10) "with frequency 0.6".
    assert round(float(solution.h), 1) == 0.8
    assert abs(float(solution.value) * 100 - 1.29) < 0.01
    assert round(float(1 - DRAW_ON_6_10), 1) == 0.6


def test_minimax_is_certified(solution):
    solution.certify()
    assert solution.is_certified


def test_certification_catches_a_wrong_banker_mixture(solution):
    table5 = solution.ranges[1]
    pure = cdf.CheminDeFerSolution(solution.h, solution.value, solution.ranges, ((F(1), table5),), ())
    with pytest.raises(CertificationError, match="against h = 1"):
        pure.certify()
    wrong_value = cdf.CheminDeFerSolution(
        solution.h, solution.value + F(1, 10**6), solution.ranges, solution.banker_mixture, solution.mixed_cells
    )
    assert not wrong_value.is_certified


def test_foster_method_agrees_with_the_general_solver(solution):
    # The N×2 game over every strategy that varies the three cells that ever change (8 rows).
    matrix, tables = solution.reduced_matrix()
    assert len(matrix) == 8
    for row, table in zip(matrix, tables):
        assert row == (cdf.banker_gain(0, table), cdf.banker_gain(1, table))
    general = solve_matrix_game(matrix)
    assert general.value == VALUE
    assert general.player2 == (1 - H_STAR, H_STAR)  # columns: A stands on 5 / calls on 5
    # Foster's mixture is a certified solution of the same matrix.
    weights = {r.table: p for p, r in solution.banker_mixture}
    MatrixGameSolution.certified(matrix, [weights.get(t, 0) for t in tables], (1 - H_STAR, H_STAR))
