"""Foster's upper-envelope method against the general solver on the explicit N×2 matrix."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from whist_catalogue.games.foster import BinaryChoice, Line, upper_envelope
from whist_catalogue.games.matrix_games import MatrixGameSolution, solve_matrix_game

F = Fraction


def test_line_arithmetic():
    line = Line.through(3, -1)
    assert line == Line(F(3), F(-4))
    assert line(F(3, 4)) == 0 and line.root() == F(3, 4)
    assert (line + Line(F(1), F(4)))(F(1, 2)) == 4 and Line(F(2), F(0)).root() is None
    assert 2 * line == Line(F(6), F(-8)) and line - line == Line.zero()


def test_foster_figure_2_three_lines():
    # A 3×2 game (Fig. 2): B's strategies are the rows, h the weight on A's second column.
    # One situation with choices 4 − 4h / h, and a constant 1: G(h) = 1 + max(4 − 4h, h).
    envelope = upper_envelope([BinaryChoice("s", Line.through(4, 0), Line.through(0, 1))], Line.through(1, 1))
    assert envelope.breakpoints == (F(4, 5),)
    assert envelope(0) == 5 and envelope(F(4, 5)) == F(9, 5) and envelope(1) == 2
    solution = envelope.minimax()
    assert (solution.h, solution.value) == (F(4, 5), F(9, 5))
    # B mixes so that his line is flat: λ·1 + (1 − λ)(−4) = 0.
    assert solution.mixture == ((F(1, 5), (0,)), (F(4, 5), (1,)))
    assert solution.randomised_situations(envelope.situations) == {"s": F(4, 5)}


def test_minimum_at_an_end_gives_a_pure_banker():
    rising = upper_envelope([BinaryChoice(0, Line.through(1, 2), Line.through(0, 3))])
    solution = rising.minimax()
    assert solution.h == 0 and solution.value == 1 and solution.mixture == ((1, (0,)),)
    falling = upper_envelope([BinaryChoice(0, Line.through(3, 1), Line.through(2, 0))])
    solution = falling.minimax()
    assert solution.h == 1 and solution.value == 1 and solution.mixture == ((1, (0,)),)


def test_ties_follow_the_tie_rule():
    same = BinaryChoice("tie", Line.through(1, 1), Line.through(1, 1))
    assert upper_envelope([same]).pieces[0].strategy == (1,)
    assert upper_envelope([same], tie=0).pieces[0].strategy == (0,)


lines = st.builds(Line.through, st.integers(-5, 5), st.integers(-5, 5))
choice_lists = st.lists(st.tuples(lines, lines), min_size=1, max_size=4)


@settings(max_examples=120, deadline=None)
@given(choice_lists, lines)
def test_envelope_against_the_explicit_matrix(pairs, constant):
    choices = [BinaryChoice(k, p0, p1) for k, (p0, p1) in enumerate(pairs)]
    envelope = upper_envelope(choices, constant)
    matrix, strategies = envelope.explicit_matrix(envelope.situations)
    assert len(matrix) == 2 ** len(choices)
    # G(h) is the maximum of the 2ⁿ lines, everywhere (checked on a grid and at the breakpoints).
    for h in [F(k, 12) for k in range(13)] + list(envelope.breakpoints):
        assert envelope(h) == max((1 - h) * row[0] + h * row[1] for row in matrix)
        assert envelope.gain(h, envelope.best_response(h)) == envelope(h)
    solution = envelope.minimax()
    general = solve_matrix_game(matrix)
    assert solution.value == general.value
    # Foster's solution is a certified solution of the explicit game.
    row_strategy = [sum((p for p, s in solution.mixture if s == strategy), F(0)) for strategy in strategies]
    MatrixGameSolution.certified(matrix, row_strategy, (1 - solution.h, solution.h))
