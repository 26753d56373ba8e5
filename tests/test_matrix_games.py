"""The exact matrix-game solver against known games and an independent brute-force referee."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from whist_catalogue.errors import GameArgumentError, WhistError
from whist_catalogue.games.matrix_games import (
    CertificationError,
    InvalidMatrixError,
    MatrixGameSolution,
    as_matrix,
    round_decimal,
    solve_2x2,
    solve_by_simplex,
    solve_matrix_game,
    truncate_decimal,
)

F = Fraction


# -- the referee: support enumeration in Fractions (Shapley–Snow) ------------------------------------


def _solve_square(rows: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction] | None:
    """Cramer-free Gauss–Jordan for a square system; None when singular."""
    n = len(rows)
    aug = [r[:] + [b] for r, b in zip(rows, rhs)]
    for col in range(n):
        pivot = next((r for r in range(col, n) if aug[r][col] != 0), None)
        if pivot is None:
            return None
        aug[col], aug[pivot] = aug[pivot], aug[col]
        aug[col] = [e / aug[col][col] for e in aug[col]]
        for r in range(n):
            if r != col and aug[r][col]:
                aug[r] = [e - aug[r][col] * p for e, p in zip(aug[r], aug[col])]
    return [aug[r][n] for r in range(n)]


def referee_value(matrix: list[list[int]]) -> Fraction:
    """The value by enumerating square supports: some k×k kernel has equalising strategies that are optimal."""
    m = [[F(e) for e in row] for row in matrix]
    rows, cols = len(m), len(m[0])
    for k in range(1, min(rows, cols) + 1):
        for I in combinations(range(rows), k):
            for J in combinations(range(cols), k):
                # x on I equalises the columns J at v; y on J equalises the rows I at v.
                ex = _solve_square(
                    [[m[i][j] for i in I] + [F(-1)] for j in J] + [[F(1)] * k + [F(0)]], [F(0)] * k + [F(1)]
                )
                ey = _solve_square(
                    [[m[i][j] for j in J] + [F(-1)] for i in I] + [[F(1)] * k + [F(0)]], [F(0)] * k + [F(1)]
                )
                if ex is None or ey is None or min(ex[:-1]) < 0 or min(ey[:-1]) < 0:
                    continue
                v = ex[-1]
                x = dict(zip(I, ex[:-1]))
                y = dict(zip(J, ey[:-1]))
                if all(sum(x[i] * m[i][j] for i in I) >= v for j in range(cols)) and all(
                    sum(y[j] * m[i][j] for j in J) <= v for i in range(rows)
                ):
                    return v
    raise AssertionError("no kernel found: impossible by Shapley–Snow")


# -- known games ------------------------------------------------------------------------------------


def test_matching_pennies():
    solution = solve_matrix_game([[1, -1], [-1, 1]])
    assert solution.value == 0
    assert solution.player1 == (F(1, 2), F(1, 2)) and solution.player2 == (F(1, 2), F(1, 2))
    assert solution.is_certified


def test_rock_paper_scissors():
    rps = [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
    for solve in (solve_matrix_game, solve_by_simplex):
        solution = solve(rps)
        assert solution.value == 0
        assert solution.player1 == (F(1, 3),) * 3 and solution.player2 == (F(1, 3),) * 3


def test_foster_section_1_examples():
    # Foster §1: both finger games have value 3, B (rows) playing II and A (columns) playing I.
    for matrix in ([[2, 3], [3, 4]], [[2, 5], [3, 4]]):
        for solve in (solve_matrix_game, solve_by_simplex, solve_2x2):
            solution = solve(matrix)
            assert solution.value == 3
            assert solution.player1 == (0, 1) and solution.player2 == (1, 0)


def test_2x2_formula_matches_general_solver():
    matrix = [[3, -1], [-2, 4]]
    closed = solve_2x2(matrix)
    assert closed.value == F(1) and closed.player1 == (F(3, 5), F(2, 5)) and closed.player2 == (F(1, 2), F(1, 2))
    general = solve_matrix_game(matrix)
    assert (general.value, general.player1, general.player2) == (closed.value, closed.player1, closed.player2)


def test_dominated_strategies_get_no_weight():
    # Row 2 is dominated by row 0; column 2 by column 1 (for the minimiser).
    matrix = [[4, 0, 5], [0, 4, 6], [3, -1, 4]]
    solution = solve_matrix_game(matrix)
    assert solution.value == 2
    assert solution.player1 == (F(1, 2), F(1, 2), 0)
    assert solution.player2 == (F(1, 2), F(1, 2), 0)


def test_degenerate_game_with_many_optimal_strategies():
    # Every entry of the first two rows equals the value: optimal strategies are not unique,
    # and a 2×3 game has more binding columns than support.
    matrix = [[1, 1, 1], [1, 1, 1], [0, 2, -1]]
    for solve in (solve_matrix_game, solve_by_simplex):
        solution = solve(matrix)
        assert solution.value == 1
        assert solution.is_certified


def test_constant_and_single_entry_games():
    assert solve_matrix_game([[F(7, 3)]]).value == F(7, 3)
    solution = solve_matrix_game([[2, 2], [2, 2]])
    assert solution.value == 2 and solution.is_certified


def test_saddle_point():
    solution = solve_matrix_game([[1, 2, 3], [0, 5, -1], [4, 6, 8]])
    assert solution.value == 4
    assert solution.player1 == (0, 0, 1) and solution.player2 == (1, 0, 0)


def test_exact_entries_kept_exact():
    solution = solve_matrix_game([["1/3", "-1/7"], ["-2/9", "5/11"]])
    # No saddle point, so v = (ad − bc)/(a − b − c + d).
    a, b, c, d = F(1, 3), F(-1, 7), F(-2, 9), F(5, 11)
    assert solution.value == (a * d - b * c) / (a - b - c + d)
    assert all(isinstance(p, Fraction) for p in solution.player1 + solution.player2)


# -- certification ----------------------------------------------------------------------------------


def test_certification_catches_a_wrong_strategy():
    rps = as_matrix([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    wrong = MatrixGameSolution(rps, F(0), (F(1, 2), F(1, 4), F(1, 4)), (F(1, 3),) * 3)
    assert not wrong.is_certified
    with pytest.raises(CertificationError, match="player 1's strategy gets -1/4"):
        wrong.certify()
    with pytest.raises(CertificationError, match="player 2"):
        MatrixGameSolution.certified(rps, (F(1, 3),) * 3, (1, 0, 0))


def test_certification_catches_a_wrong_value_and_bad_distributions():
    pennies = as_matrix([[1, -1], [-1, 1]])
    half = (F(1, 2), F(1, 2))
    assert MatrixGameSolution(pennies, F(0), half, half).is_certified
    assert not MatrixGameSolution(pennies, F(1, 10), half, half).is_certified
    assert not MatrixGameSolution(pennies, F(0), (F(3, 2), F(-1, 2)), half).is_certified
    assert not MatrixGameSolution(pennies, F(0), (F(1, 2), F(1, 3)), half).is_certified
    assert not MatrixGameSolution(pennies, F(0), (F(1),), half).is_certified


@pytest.mark.parametrize(
    "bad, match",
    [([], "at least one row"), ([[]], "at least one row"), ([[1, 2], [3]], "ragged"), ([["x"]], "rational")],
)
def test_invalid_matrices(bad, match):
    with pytest.raises(InvalidMatrixError, match=match) as info:
        solve_matrix_game(bad)
    assert isinstance(info.value, GameArgumentError) and isinstance(info.value, WhistError)


def test_decimal_printing():
    assert truncate_decimal(F(4, 13), 10) == "0.3076923076"
    assert round_decimal(F(4, 13), 10) == "0.3076923077"
    assert round_decimal(F(12945, 10000), 3) == "1.295"
    assert truncate_decimal(F(3), 2) == "3.00"


# -- random games against the referee ---------------------------------------------------------------

small_games = st.integers(1, 4).flatmap(
    lambda rows: st.integers(1, 4).flatmap(
        lambda cols: st.lists(st.lists(st.integers(-4, 4), min_size=cols, max_size=cols), min_size=rows, max_size=rows)
    )
)


@settings(max_examples=150, deadline=None)
@given(small_games)
def test_random_games_against_support_enumeration(matrix):
    expected = referee_value(matrix)
    for solve in (solve_matrix_game, solve_by_simplex):
        solution = solve(matrix)
        assert solution.value == expected
        assert solution.is_certified


@settings(max_examples=60, deadline=None)
@given(small_games, st.integers(-3, 3), st.integers(1, 3))
def test_value_is_affine_in_the_payoffs(matrix, shift, scale):
    base = solve_matrix_game(matrix).value
    moved = solve_matrix_game([[scale * e + shift for e in row] for row in matrix]).value
    assert moved == scale * base + shift


def test_a_wrong_float_candidate_falls_back_to_the_exact_simplex(monkeypatch):
    import numpy as np

    from whist_catalogue.games import matrix_games

    def misleading(a):
        # A plausible-looking but wrong vertex: all weight on the first pure strategy.
        x = np.zeros(a.shape[0])
        x[0] = 1.0
        return x, float(a[0].min())

    monkeypatch.setattr(matrix_games, "_float_row_strategy", misleading)
    solution = solve_matrix_game([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    assert solution.method == "simplex"
    assert solution.value == 0 and solution.player1 == (F(1, 3),) * 3
