"""Exact solutions of two-person zero-sum matrix games.

The general-case solver behind the solved card games of docs/spec.md §6 (chemin-de-fer,
``papers/chemin-de-fer.md`` §1–3; N-card Le Her, ``papers/le-her.md``).
Convention throughout: entry ``matrix[i][j]`` is the pay-off to **player 1**,
who picks the row i and maximises; **player 2** picks the column j and
minimises.  Every number is a :class:`~fractions.Fraction`.

:func:`solve_matrix_game` works in four steps:

1. a float LP (SciPy's HiGHS dual simplex, on an affinely rescaled copy of the
   matrix) finds a candidate optimal vertex for each player;
2. the candidate's support and binding replies pin that vertex down as the
   unique solution of a linear system, which is solved again in Fractions;
3. the exact pair is *certified*: player 1's strategy guarantees at least the
   value against every pure reply of player 2, player 2's at most the value
   against every pure reply of player 1 (so both are optimal and the value is
   the value of the game);
4. if the float candidate does not survive steps 2–3, an exact simplex method
   (Bland's rule, Fractions only) solves the game, and its answer is certified
   in the same way.

:func:`solve_2x2` gives the closed-form solution of a 2×2 game (Foster §2,
"solving v = ha + (1 − h)b = hc + (1 − h)d").  Whatever the route, the result
is a :class:`MatrixGameSolution` whose :meth:`~MatrixGameSolution.certify`
re-checks it from scratch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Sequence, TypeAlias

import numpy as np

from whist_catalogue.errors import CertificationError, InvalidMatrixError, counted

__all__ = [
    "Matrix",
    "RationalLike",
    "Strategy",
    "CertificationError",
    "InvalidMatrixError",
    "MatrixGameSolution",
    "as_matrix",
    "solve_matrix_game",
    "solve_by_simplex",
    "solve_2x2",
    "truncate_decimal",
    "round_decimal",
]

Matrix: TypeAlias = tuple[tuple[Fraction, ...], ...]
"""Pay-offs to player 1, one tuple per row (player 1's pure strategies)."""
RationalLike: TypeAlias = "int | Fraction | str"
"""What may stand for an exact entry or probability: an integer, a Fraction, or its text ``"p/q"``."""

Strategy: TypeAlias = tuple[Fraction, ...]
"""A mixed strategy: one probability per pure strategy, summing to 1."""

_SUPPORT_TOL = 1e-9
"""A float probability above this (on the rescaled matrix) is in the candidate's support."""

_BINDING_TOL = 1e-8
"""A float reply whose pay-off is within this of the LP value is taken as binding."""


def as_matrix(rows: Iterable[Iterable[RationalLike]]) -> Matrix:
    """The matrix as exact Fractions (ints, Fractions, ``"p/q"`` strings); rejects empty or ragged input."""
    try:
        matrix = tuple(tuple(Fraction(entry) for entry in row) for row in rows)
    except (TypeError, ValueError) as exc:
        raise InvalidMatrixError(f"pay-off matrix entries must be rational numbers: {exc}") from None
    if not matrix or not matrix[0]:
        raise InvalidMatrixError("a pay-off matrix needs at least one row and one column")
    widths = {len(row) for row in matrix}
    if len(widths) != 1:
        raise InvalidMatrixError(f"ragged pay-off matrix: row lengths {sorted(widths)}")
    return matrix


def _column(matrix: Matrix, j: int) -> tuple[Fraction, ...]:
    return tuple(row[j] for row in matrix)


def _dot(weights: Sequence[Fraction], entries: Sequence[Fraction]) -> Fraction:
    # Supports are small: skipping zero weights makes certification of a
    # 51×51 Le Her matrix cost a few hundred multiplications, not thousands.
    return sum((w * e for w, e in zip(weights, entries) if w), Fraction(0))


def _check_distribution(strategy: Strategy, size: int, who: str) -> None:
    if len(strategy) != size:
        raise CertificationError(f"{who}'s strategy has {counted(len(strategy), 'entry', 'entries')}, "
                                 f"the matrix needs {size}")
    if any(p < 0 for p in strategy):
        raise CertificationError(f"{who}'s strategy has a negative probability: {[str(p) for p in strategy]}")
    if sum(strategy) != 1:
        raise CertificationError(f"{who}'s probabilities sum to {sum(strategy)}, not 1")


@dataclass(frozen=True, slots=True)
class MatrixGameSolution:
    """A value and a pair of optimal mixed strategies, checkable exactly.

    Build one with :meth:`certified` (or a solver) rather than directly: the
    constructor stores what it is given, and only :meth:`certify` says whether
    it is a solution.
    """

    matrix: Matrix
    """Pay-offs to player 1 (rows maximise, columns minimise)."""
    value: Fraction
    """The value of the game: player 1's guaranteed expected pay-off."""
    player1: Strategy
    """Player 1's optimal mixed strategy over the rows."""
    player2: Strategy
    """Player 2's optimal mixed strategy over the columns."""
    method: str = ""
    """How the solution was found (``"lp"``, ``"simplex"``, ``"2x2"``, ``"given"``); informative only."""

    @classmethod
    def certified(
        cls,
        matrix: Iterable[Iterable[RationalLike]],
        player1: Iterable[RationalLike],
        player2: Iterable[RationalLike],
        method: str = "given",
    ) -> MatrixGameSolution:
        """The solution made of these two strategies, its value computed and the whole certified.

        Raises :class:`CertificationError` if the strategies are not optimal.
        """
        m = as_matrix(matrix)
        x = tuple(Fraction(p) for p in player1)
        y = tuple(Fraction(p) for p in player2)
        value = _dot(x, [_dot(y, row) for row in m])  # strategies of the wrong size or sum: certify() refuses them
        solution = cls(m, value, x, y, method)
        solution.certify()
        return solution

    def row_guarantee(self) -> Fraction:
        """min over player 2's pure replies of player 1's expected pay-off."""
        return min(_dot(self.player1, _column(self.matrix, j)) for j in range(len(self.matrix[0])))

    def column_guarantee(self) -> Fraction:
        """max over player 1's pure replies of player 1's expected pay-off against player 2's strategy."""
        return max(_dot(self.player2, row) for row in self.matrix)

    def certify(self) -> None:
        """Check exactly that both strategies guarantee :attr:`value`; raise :class:`CertificationError` if not."""
        m = self.matrix
        _check_distribution(self.player1, len(m), "player 1")
        _check_distribution(self.player2, len(m[0]), "player 2")
        for j in range(len(m[0])):
            got = _dot(self.player1, _column(m, j))
            if got < self.value:
                raise CertificationError(
                    f"player 1's strategy gets {got} < value {self.value} against player 2's pure reply {j}"
                )
        for i, row in enumerate(m):
            got = _dot(self.player2, row)
            if got > self.value:
                raise CertificationError(
                    f"player 2's strategy concedes {got} > value {self.value} against player 1's pure reply {i}"
                )

    @property
    def is_certified(self) -> bool:
        """Whether :meth:`certify` passes."""
        try:
            self.certify()
        except CertificationError:
            return False
        return True


# --- closed form for 2×2 --------------------------------------------------------------------------


def solve_2x2(matrix: Iterable[Iterable[RationalLike]]) -> MatrixGameSolution:
    """The 2×2 game [[a, b], [c, d]] by its saddle point or by the equalising formulas (Foster §2)."""
    m = as_matrix(matrix)
    if len(m) != 2 or len(m[0]) != 2:
        raise InvalidMatrixError(f"solve_2x2 needs a 2×2 matrix, got {len(m)}×{len(m[0])}")
    (a, b), (c, d) = m
    for i in range(2):
        for j in range(2):
            entry = m[i][j]
            if entry == min(m[i]) and entry == max(m[0][j], m[1][j]):
                # A saddle point: row minimum and column maximum (Foster §1, "strictly determined").
                x = tuple(Fraction(int(k == i)) for k in range(2))
                y = tuple(Fraction(int(k == j)) for k in range(2))
                return MatrixGameSolution.certified(m, x, y, "2x2")
    # No saddle point, so a − b − c + d ≠ 0 and both players equalise.
    denominator = a - b - c + d
    x1 = (d - c) / denominator
    y1 = (d - b) / denominator
    return MatrixGameSolution.certified(m, (x1, 1 - x1), (y1, 1 - y1), "2x2")


# --- exact linear algebra --------------------------------------------------------------------------


def _solve_unique(rows: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction] | None:
    """The unique solution of rows·u = rhs in Fractions, or None if there is none or more than one."""
    n = len(rows[0])
    aug = [list(r) + [b] for r, b in zip(rows, rhs)]
    pivot_row = 0
    for col in range(n):
        found = next((r for r in range(pivot_row, len(aug)) if aug[r][col] != 0), None)
        if found is None:
            return None  # a free variable: the candidate is not a vertex
        aug[pivot_row], aug[found] = aug[found], aug[pivot_row]
        pivot = aug[pivot_row][col]
        aug[pivot_row] = [e / pivot for e in aug[pivot_row]]
        for r in range(len(aug)):
            if r != pivot_row and aug[r][col] != 0:
                factor = aug[r][col]
                aug[r] = [e - factor * p for e, p in zip(aug[r], aug[pivot_row])]
        pivot_row += 1
    if any(aug[r][n] != 0 for r in range(pivot_row, len(aug))):
        return None  # inconsistent: a "binding" reply was not binding after all
    return [aug[r][n] for r in range(n)]


def _exact_vertex(matrix: Matrix, support: list[int], binding: list[int]) -> tuple[Strategy, Fraction] | None:
    """Player 1's strategy on ``support`` that makes every column in ``binding`` pay the same v; (x, v)."""
    if not support or not binding:
        return None
    # Unknowns: x_i for i in support, then v.  Equations: Σ x_i A[i][j] − v = 0 (j binding), Σ x_i = 1.
    rows = [[matrix[i][j] for i in support] + [Fraction(-1)] for j in binding]
    rows.append([Fraction(1)] * len(support) + [Fraction(0)])
    rhs = [Fraction(0)] * len(binding) + [Fraction(1)]
    solution = _solve_unique(rows, rhs)
    if solution is None:
        return None
    x = [Fraction(0)] * len(matrix)
    for i, p in zip(support, solution):
        x[i] = p
    return tuple(x), solution[-1]


# --- float candidate -------------------------------------------------------------------------------


def _float_row_strategy(a: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Player 1's optimal vertex (x, v) of the float game ``a`` by HiGHS's dual simplex."""
    from scipy.optimize import linprog  # SciPy loads on first use, keeping the command line quick

    m, n = a.shape
    # Variables x_1..x_m, v.  Maximise v subject to v ≤ xᵀA_j for every column j, Σx = 1, x ≥ 0.
    c = np.zeros(m + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-a.T, np.ones((n, 1))])
    a_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * m + [(None, None)]
    result = linprog(c, A_ub=a_ub, b_ub=np.zeros(n), A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs-ds")
    if result.status != 0 or result.x is None:
        return None
    return result.x[:m], float(result.x[-1])


def _candidate(matrix: Matrix) -> MatrixGameSolution | None:
    """The float LP's solution made exact and certified, or None if it does not survive."""
    a = np.array([[float(e) for e in row] for row in matrix])
    low, high = a.min(), a.max()
    if high == low:
        return None  # a constant game; the simplex handles it trivially
    scaled = (a - low) / (high - low)  # same optimal strategies, better conditioned for HiGHS
    strategies: list[Strategy] = []
    values: list[Fraction] = []
    # Player 2 in A is player 1 in −Aᵀ, so one routine serves both.
    for exact, floats in ((matrix, scaled), (_negated_transpose(matrix), 1.0 - scaled.T)):
        found = _float_row_strategy(floats)
        if found is None:
            return None
        x, v = found
        support = [i for i, p in enumerate(x) if p > _SUPPORT_TOL]
        binding = [j for j in range(floats.shape[1]) if abs(float(x @ floats[:, j]) - v) <= _BINDING_TOL]
        vertex = _exact_vertex(exact, support, binding)
        if vertex is None or any(p < 0 for p in vertex[0]):
            return None
        strategies.append(vertex[0])
        values.append(vertex[1])
    if values[0] != -values[1]:
        return None
    solution = MatrixGameSolution(matrix, values[0], strategies[0], strategies[1], "lp")
    return solution if solution.is_certified else None


def _negated_transpose(matrix: Matrix) -> Matrix:
    return tuple(tuple(-matrix[i][j] for i in range(len(matrix))) for j in range(len(matrix[0])))


# --- exact simplex ---------------------------------------------------------------------------------


def solve_by_simplex(matrix: Iterable[Iterable[RationalLike]]) -> MatrixGameSolution:
    """The game solved by the simplex method in exact arithmetic, then certified.

    Shift the matrix by a constant c so that every entry is ≥ 1; then player 2's
    problem is  max Σw  subject to  A'w ≤ 1, w ≥ 0, whose optimum W is 1/(v − c),
    with y = w/W; player 1's x is the dual solution (the slacks' shadow prices)
    divided by W.  Bland's rule (lowest index enters, lowest basic index leaves
    on ties) guarantees termination.
    """
    m = as_matrix(matrix)
    rows, cols = len(m), len(m[0])
    shift = min(min(row) for row in m) - 1
    # Tableau: columns 0..cols−1 are w, cols..cols+rows−1 the slacks, the last the right-hand side.
    tableau = [
        [m[i][j] - shift for j in range(cols)] + [Fraction(int(k == i)) for k in range(rows)] + [Fraction(1)]
        for i in range(rows)
    ]
    reduced = [Fraction(1)] * cols + [Fraction(0)] * rows  # objective coefficients minus c_B·B⁻¹A
    objective = Fraction(0)
    basis = [cols + i for i in range(rows)]
    while True:
        entering = next((k for k, r in enumerate(reduced) if r > 0), None)
        if entering is None:
            break
        best: tuple[Fraction, int, int] | None = None
        for i, row in enumerate(tableau):
            if row[entering] > 0:
                key = (row[-1] / row[entering], basis[i], i)
                if best is None or key[:2] < best[:2]:
                    best = key
        assert best is not None, "bounded because every shifted entry is positive"
        leaving_row = best[2]
        pivot_row = tableau[leaving_row]
        pivot = pivot_row[entering]
        pivot_row[:] = [e / pivot for e in pivot_row]
        for i, row in enumerate(tableau):
            if i != leaving_row and row[entering] != 0:
                factor = row[entering]
                row[:] = [e - factor * p for e, p in zip(row, pivot_row)]
        factor = reduced[entering]
        reduced = [r - factor * p for r, p in zip(reduced, pivot_row[:-1])]
        objective += factor * pivot_row[-1]
        basis[leaving_row] = entering
    w = [Fraction(0)] * cols
    for i, var in enumerate(basis):
        if var < cols:
            w[var] = tableau[i][-1]
    total = objective  # = Σ w = 1/(v − shift) > 0
    y = tuple(p / total for p in w)
    x = tuple(-reduced[cols + i] / total for i in range(rows))
    solution = MatrixGameSolution(m, 1 / total + shift, x, y, "simplex")
    solution.certify()
    return solution


def solve_matrix_game(matrix: Iterable[Iterable[RationalLike]]) -> MatrixGameSolution:
    """The exact value and a pair of optimal strategies, certified (steps in the module docstring)."""
    m = as_matrix(matrix)
    candidate = _candidate(m)
    if candidate is not None:
        return candidate
    return solve_by_simplex(m)


# --- printing exact numbers as the papers do -----------------------------------------------------


def truncate_decimal(q: Fraction, places: int) -> str:
    """q ≥ 0 truncated to ``places`` decimals (as Foster's Tables 1 and 2 are printed)."""
    scaled = q.numerator * 10**places // q.denominator
    return f"{scaled // 10**places}.{scaled % 10**places:0{places}d}"


def round_decimal(q: Fraction, places: int) -> str:
    """q ≥ 0 rounded half up to ``places`` decimals (as Foster's Table 3 is printed)."""
    scaled = math.floor(q * 10**places + Fraction(1, 2))
    return f"{scaled // 10**places}.{scaled % 10**places:0{places}d}"
