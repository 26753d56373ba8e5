"""N-card Le Her: the matrix by enumeration against Lemmas 1–2, certified solutions, Theorem 2."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import permutations

import numpy as np
import pytest

from whist_catalogue.errors import GameArgumentError
from whist_catalogue.games import le_her
from whist_catalogue.games.matrix_games import solve_matrix_game

F = Fraction
ALL_N = range(3, 53)
THEOREM_2_N = range(7, 53)


def naive_payoff(n: int, s: int, t: int) -> Fraction:
    """a(s, t) straight from the rules of the game, one deal at a time."""
    wins = deals = 0
    for x, y, z in permutations(range(1, n + 1), 3):
        deals += 1
        if x >= s:  # player 1 keeps
            wins += x > (y if y >= t else z)
        elif x < y:  # he swaps; holding X she must swap it, and wins unless Z < Y
            wins += z < y
    return F(wins, deals)


# -- the matrix -------------------------------------------------------------------------------------


def test_rules():
    # After a swap player 2 holds X: she keeps it if X > Y, else swaps it for Z, succeeding iff Z > Y.
    assert not le_her.player1_wins(5, 3, 1, False, False)
    assert le_her.player1_wins(3, 5, 4, False, True) and not le_her.player1_wins(3, 5, 6, False, True)
    assert le_her.player1_wins(5, 3, 4, True, True) and not le_her.player1_wins(5, 3, 6, True, False)


@pytest.mark.parametrize("n", range(3, 8))
def test_matrix_by_enumeration_against_the_rules(n):
    matrix = le_her.payoff_matrix(n)
    assert len(matrix) == len(matrix[0]) == n - 1
    for s in range(2, n + 1):
        for t in range(2, n + 1):
            assert matrix[s - 2][t - 2] == naive_payoff(n, s, t), (s, t)


def test_lemmas_1_and_2_against_enumeration():
    for n in ALL_N:
        matrix = le_her.payoff_matrix(n)
        for s in range(2, n + 1):
            assert le_her.f(n, s, s) == le_her.g(n, s, s)
            for t in range(2, n + 1):
                assert matrix[s - 2][t - 2] == le_her.lemma_payoff(n, s, t), (n, s, t)


def test_lemmas_3_to_7_hold():
    for n in ALL_N:
        cards = range(2, n + 1)
        a = {(s, t): v for s, row in zip(cards, le_her.payoff_matrix(n)) for t, v in zip(cards, row)}
        top = math.ceil(le_her.theta(n))
        for t in cards:  # Lemma 3: columns discrete concave in s
            steps = [a[s + 1, t] - a[s, t] for s in range(2, n)]
            assert all(u >= v for u, v in zip(steps, steps[1:]))
        for s in cards:  # Lemma 4: rows discrete convex in t
            steps = [a[s, t + 1] - a[s, t] for t in range(2, n)]
            assert all(u <= v for u, v in zip(steps, steps[1:]))
            # Lemma 5: columns t < ⌈Θ⌉ are dominated by column ⌈Θ⌉.
            assert all(a[s, t] >= a[s, top] for t in range(2, top + 1))
        for t in cards:
            if n >= 4:  # Lemma 6 (the paper assumes N ≥ 4 from Lemma 5 on; at N = 3, a(3, 2) = 2/3 > a(2, 2))
                assert a[n, t] <= a[n - 1, t]
            if t >= top:  # Lemma 7
                assert all(a[s + 1, t] > a[s, t] for s in range(2, n) if (s - 1) * (s - 2) < n - 2)


# -- solutions --------------------------------------------------------------------------------------


def test_certified_solutions_for_every_n():
    for n in ALL_N:
        solution = le_her.solve(n)
        assert solution.solution.is_certified
        assert solution.solution.matrix == le_her.payoff_matrix(n)
        general = solve_matrix_game(le_her.payoff_matrix(n))
        assert general.is_certified and general.value == solution.value, n
        assert 1 / 2 < solution.value < 1


def test_known_values():
    values = {n: le_her.solve(n).value for n in (3, 4, 5, 6, 7, 8, 13, 52)}
    assert values == {
        3: F(2, 3),
        4: F(7, 12),
        5: F(7, 12),
        6: F(17, 30),
        7: F(59, 105),
        8: F(107, 192),
        13: F(548, 1001),
        52: F(71329, 132600),
    }
    eight = le_her.solve(8)
    assert eight.player1() == {5: F(1, 4), 6: F(3, 4)} and eight.player2() == {6: F(1, 4), 7: F(3, 4)}
    deck = le_her.solve(52)
    assert deck.player1() == {30: 1} and deck.player2() == {35: 1}


def test_values_decrease_towards_a_limit():
    values = [le_her.solve(n).value for n in ALL_N]
    # Not monotone step by step (N = 15 → 16 rises), but over every 3 steps, and above 1/2.
    assert all(later < earlier for earlier, later in zip(values, values[3:]))


def test_small_n_reductions_of_the_paper():
    for n in range(3, 7):
        sub = le_her.small_n_subgame(n)
        assert sub.padded(n).value == le_her.solve(n).value
    # N = 6: in the 2×3 subgame on s ∈ {4, 5}, t ∈ {4, 5, 6}, the paper says column 6 "coincides"
    # with column 5.  It does not, but it is dominated by it, so the reduction to 2×2 stands.
    a = le_her.payoff_matrix(6)
    column5, column6 = ([a[s - 2][t - 2] for s in (4, 5)] for t in (5, 6))
    assert column5 == [F(67, 120), F(17, 30)] and column6 == [F(7, 12), F(17, 30)]
    assert all(u >= v for u, v in zip(column6, column5))


# -- Theorem 2 --------------------------------------------------------------------------------------


def _poly(*coefficients):
    """A polynomial in s as a list of Fractions, lowest degree first."""
    return [F(c) for c in coefficients]


def _add(p, q):
    return [(p[i] if i < len(p) else 0) + (q[i] if i < len(q) else 0) for i in range(max(len(p), len(q)))]


def _mul(p, q):
    out = [F(0)] * (len(p) + len(q) - 1)
    for i, u in enumerate(p):
        for j, v in enumerate(q):
            out[i + j] += u * v
    return out


def test_phi_is_minus_6_n_minus_2_squared_times_the_derivative_of_mu():
    # (10), (12), (13): μ(s) = F(s, t*(s)) and φ(s) = −6(N − 2)² dμ/ds, by exact polynomial algebra.
    for n in THEOREM_2_N:
        s = _poly(0, 1)
        quadratic = _mul(_add(s, _poly(-1)), _add(s, _poly(-2)))  # (s − 1)(s − 2)
        t = _add(_poly(le_her.theta(n)), [c / (2 * (n - 2)) for c in quadratic])
        minus_t = [-c for c in t]
        h = _add(
            _mul(_add(_poly(n), minus_t), _add(_poly(n + 1), minus_t)),
            [(n - 1) * c for c in _add(_add(s, t), _poly(-2))],
        )
        cubic = _mul(quadratic, _add(_add(s, [3 * c for c in t]), _poly(-12)))
        mu = _add(h, [-c / (3 * (n - 2)) for c in cubic])
        derivative = [k * mu[k] for k in range(1, len(mu))]
        phi = [-6 * (n - 2) ** 2 * c for c in derivative]
        while phi and phi[-1] == 0:
            phi.pop()
        assert tuple(reversed(phi)) == le_her.phi_coefficients(n), n


def test_phi_is_increasing_with_its_root_inside_theta_and_n_minus_1():
    for n in THEOREM_2_N:
        c3, c2, c1, _ = le_her.phi_coefficients(n)
        discriminant = (2 * c2) ** 2 - 4 * (3 * c3) * c1  # of φ′
        # The paper prints −36(8N² − 68N + 110); the algebra gives 101 (negative for N ≥ 7 either way).
        assert discriminant == -36 * (8 * n * n - 68 * n + 101) < 0
        assert le_her.phi(n, le_her.theta(n)) < 0 < le_her.phi(n, n - 1)
    c3, c2, c1, _ = le_her.phi_coefficients(6)
    assert (2 * c2) ** 2 - 4 * (3 * c3) * c1 > 0


def test_s_star_matches_a_float_root():
    for n in (7, 20, 52):
        root = le_her.s_star(n)
        real = [r.real for r in np.roots(le_her.phi_coefficients(n)) if abs(r.imag) < 1e-9]
        assert len(real) == 1 and abs(float(root) - real[0]) < 1e-9
        assert root.decimal(9) == f"{math.floor(real[0] * 10**9) / 10**9:.9f}"
        assert le_her.phi(n, root.floor()) < 0 < le_her.phi(n, root.ceil())


def test_theorem_2_agrees_with_the_full_solution():
    for n in THEOREM_2_N:
        root = le_her.s_star(n)
        t2 = le_her.t_double_star(n)
        low, high = t2.bracket(F(1, 10**12))
        relaxed = le_her.t_star(n, root.refine(F(1, 10**12)).lower)
        ceiling = root.ceil()
        if t2.at_ceiling:
            assert (low, high) == (ceiling, ceiling) and relaxed <= ceiling + F(1, 10**9)
        else:
            assert low > ceiling and math.floor(low) == t2.floor() and math.ceil(high) == t2.ceil()
        sub = le_her.theorem2_subgame(n)
        assert sub.rows == tuple(sorted({root.floor(), root.ceil()}))
        assert sub.columns == tuple(sorted({t2.floor(), t2.ceil()}))
        padded = sub.padded(n)  # certified on the whole (N − 1)² matrix, or it raises
        assert padded.value == sub.solution.value == solve_matrix_game(le_her.payoff_matrix(n)).value, n
        assert le_her.solve(n).subgame == sub


def test_theorem_2_subgame_sizes():
    # N = 7 is the one case where t** = ⌈s*⌉, so the "2×2" subgame is 2×1.
    assert le_her.theorem2_subgame(7).columns == (6,) and le_her.t_double_star(7).at_ceiling
    assert all(len(le_her.theorem2_subgame(n).columns) == 2 for n in range(8, 53))


# -- bad input --------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [2, 0, -5, le_her.MAX_CARDS + 1, 7.0, "7", True])
def test_invalid_card_counts(bad):
    with pytest.raises(GameArgumentError, match="le-her"):
        le_her.payoff_matrix(bad)


def test_theorem_2_needs_seven_cards():
    with pytest.raises(GameArgumentError, match="N ≥ 7, got 6"):
        le_her.s_star(6)


def test_optimal_strategies_are_not_always_unique():
    # The report's note: at N = 17 and 37 the general solver certifies other optimal strategies.
    for n in (17, 37):
        ours = le_her.solve(n).solution
        other = solve_matrix_game(le_her.payoff_matrix(n))
        assert other.is_certified and other.value == ours.value
        assert (other.player1, other.player2) != (ours.player1, ours.player2)


def test_the_registry_states_le_her_s_own_limits():
    from whist_catalogue.games.solved_games import GAMES

    (cards,) = GAMES["le-her"].parameters
    assert (cards.minimum, cards.maximum) == (le_her.MIN_CARDS, le_her.MAX_CARDS)
