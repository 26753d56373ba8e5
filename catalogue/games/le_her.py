"""N-card Le Her (Karlin's variant), solved exactly for any N ≥ 3.

Implements ``papers/le-her.md`` (A. T. Benjamin and A. J. Goldman, *Analysis of
N-card Le Her*):

* the game: cards 1…N shuffled; X to player 1, Y to player 2, Z left on top.
  Player 1 keeps X or swaps it with player 2; after a swap player 2 keeps X if
  X > Y and otherwise swaps it for Z; after a keep, player 2 keeps Y or swaps
  it for Z.  The higher card wins;
* the (N − 1) × (N − 1) matrix a(s, t) = P(S_s, T_t), the probability that
  player 1 wins when he keeps exactly the cards ≥ s and player 2, after a keep,
  keeps exactly the cards ≥ t (2 ≤ s, t ≤ N) — computed here by enumerating
  every (X, Y, Z), and checked against Lemmas 1–2 (the polynomials h, f, g of
  (2)–(4));
* the exact value and optimal mixed strategies (:mod:`whist_catalogue.games.matrix_games`,
  certified on the whole matrix);
* Theorem 2 (N ≥ 7): Θ = (N + 2)/2 of (6); t*(s) of (12); s* the real root of
  the cubic φ of (13); t** = max(t*(s*), ⌈s*⌉); the 2×2 subgame on rows
  ⌊s*⌋, ⌈s*⌉ and columns ⌊t**⌋, ⌈t**⌉, whose solution — padded with zeros — is
  certified on the full matrix.  For N = 3…6 the paper's own reductions (the
  paragraph after (13)) play the part of the subgame.

Convention: player 1 (rows, maximiser) is the paper's Player 1; pay-offs are his
probabilities of winning.  A pure strategy is named by its *critical card*: s
for S_s = {X ≥ s}, t for T_t = {Y ≥ t}.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Callable

import numpy as np

from whist_catalogue.errors import GameArgumentError
from whist_catalogue.games.matrix_games import (
    CertificationError,
    Matrix,
    MatrixGameSolution,
    solve_2x2,
    solve_matrix_game,
    truncate_decimal,
)

__all__ = [
    "MIN_CARDS",
    "MAX_CARDS",
    "check_cards",
    "player1_wins",
    "payoff_matrix",
    "h",
    "f",
    "g",
    "lemma_payoff",
    "theta",
    "t_star",
    "phi_coefficients",
    "phi",
    "RealRoot",
    "s_star",
    "TDoubleStar",
    "t_double_star",
    "Subgame",
    "theorem2_subgame",
    "small_n_subgame",
    "LeHerSolution",
    "solve",
]

MIN_CARDS = 3
MAX_CARDS = 200
"""Beyond this the O(N³) enumeration and the (N − 1)² exact matrix stop being interactive."""


def check_cards(n: int) -> int:
    """N itself, or :class:`GameArgumentError` if Le Her is not defined (or not offered) for it."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise GameArgumentError(f"le-her: the number of cards must be an integer, got {n!r}")
    if n < MIN_CARDS:
        raise GameArgumentError(f"le-her: needs at least {MIN_CARDS} cards (X, Y and Z), got {n}")
    if n > MAX_CARDS:
        raise GameArgumentError(f"le-her: at most {MAX_CARDS} cards are supported, got {n}")
    return n


# --- the rules, and the matrix by enumeration ---------------------------------------------------------


def player1_wins(x, y, z, player1_keeps: bool, player2_keeps: bool):  # type: ignore[no-untyped-def]
    """Whether player 1 ends with the higher card, given the three cards and the two decisions.

    ``player2_keeps`` is player 2's decision after a keep; after a swap her play
    is forced (she knows both cards): keep X if X > Y, else swap X for Z.
    Works on ints and, element by element, on NumPy arrays of cards.
    """
    if player1_keeps:
        return x > (y if player2_keeps else z)
    # Player 1 now holds Y against X: he wins only if player 2 must swap X (X < Y) and draws Z < Y.
    return (x < y) & (y > z)


def _win_counts(n: int) -> np.ndarray:
    """counts[k, x, y]: the Z with which player 1 wins holding X = x against Y = y, for the plays
    k = 0 (he swaps), 1 (he keeps, she keeps), 2 (he keeps, she swaps); x, y = 0…N, card 0 absent."""
    cards = np.arange(n + 1)
    x, y, z = cards[:, None, None], cards[None, :, None], cards[None, None, :]
    deal = (x != y) & (y != z) & (x != z) & (x > 0) & (y > 0) & (z > 0)
    plays = ((False, False), (True, True), (True, False))
    return np.stack([(player1_wins(x, y, z, k1, k2) & deal).sum(axis=2) for k1, k2 in plays])


def payoff_matrix(n: int) -> Matrix:
    """a(s, t) for s, t = 2…N (row s − 2, column t − 2), by enumerating every deal (X, Y, Z)."""
    return _payoff_matrix(check_cards(n))


@cache
def _payoff_matrix(n: int) -> Matrix:
    swap, keep_keep, keep_swap = _win_counts(n)
    # Wins from the X player 1 swaps (X < s), whatever t is: swapped[s] = Σ_{x<s} Σ_y.
    swapped = np.concatenate([[0], np.cumsum(swap.sum(axis=1))])
    # kept_by_x[x, t]: wins from a kept X = x when player 2 keeps exactly the Y ≥ t.
    kk_from_t = np.cumsum(keep_keep[:, ::-1], axis=1)[:, ::-1]  # Σ_{y ≥ t}
    ks_below_t = np.concatenate([np.zeros((n + 1, 1), dtype=np.int64), np.cumsum(keep_swap, axis=1)], axis=1)
    kept_by_x = kk_from_t + ks_below_t[:, : n + 1]
    kept = np.cumsum(kept_by_x[::-1], axis=0)[::-1]  # kept[s, t] = Σ_{x ≥ s}
    deals = n * (n - 1) * (n - 2)
    return tuple(
        tuple(Fraction(int(swapped[s] + kept[s, t]), deals) for t in range(2, n + 1)) for s in range(2, n + 1)
    )


# --- Lemmas 1–2 -------------------------------------------------------------------------------------


def h(n: int, s: int | Fraction, t: int | Fraction) -> Fraction:
    """(2): h(s, t) = (N − t)(N + 1 − t) + (N − 1)(s + t − 2)."""
    return Fraction((n - t) * (n + 1 - t) + (n - 1) * (s + t - 2))


def f(n: int, s: int | Fraction, t: int | Fraction) -> Fraction:
    """(3): f(s, t) = h(s, t) − (s − 1)(s − 2)(s + 3t − 12) / 3(N − 2)."""
    return h(n, s, t) - Fraction((s - 1) * (s - 2) * (s + 3 * t - 12)) / (3 * (n - 2))


def g(n: int, s: int | Fraction, t: int | Fraction) -> Fraction:
    """(4): g(s, t) = h(s, t) − (s − 2)(s − 3)(s + 3t − 4) / 3(N − 2) − (s − t)(s − t − 1)."""
    return h(n, s, t) - Fraction((s - 2) * (s - 3) * (s + 3 * t - 4)) / (3 * (n - 2)) - (s - t) * (s - t - 1)


def lemma_payoff(n: int, s: int, t: int) -> Fraction:
    """a(s, t) by Lemma 1 (s ≤ t: 2a/p = f) and Lemma 2 (s ≥ t: 2a/p = g), p = 1/N(N − 1)."""
    p = Fraction(1, n * (n - 1))
    return p / 2 * (f(n, s, t) if s <= t else g(n, s, t))


# --- Theorem 2 ----------------------------------------------------------------------------------------


def theta(n: int) -> Fraction:
    """(6): Θ = (N + 2)/2; player 2 swaps any card not above average after a keep."""
    return Fraction(n + 2, 2)


def t_star(n: int, s: Fraction) -> Fraction:
    """(12): t*(s) = Θ + (s − 1)(s − 2)/2(N − 2), player 2's best continuous reply to s."""
    return theta(n) + (s - 1) * (s - 2) / (2 * (n - 2))


def phi_coefficients(n: int) -> tuple[int, int, int, int]:
    """(13): φ(s) = 6s³ + (6N − 39)s² + (6N² − 60N + 135)s − (6N³ − 21N² − 28N + 110), highest degree first."""
    return (6, 6 * n - 39, 6 * n * n - 60 * n + 135, -(6 * n**3 - 21 * n * n - 28 * n + 110))


def phi(n: int, s: Fraction | int) -> Fraction:
    """φ(s) = −6(N − 2)² dμ/ds, exactly."""
    value = Fraction(0)
    for c in phi_coefficients(n):
        value = value * s + c
    return value


@dataclass(frozen=True, slots=True)
class RealRoot:
    """A real algebraic number: the root of ``coefficients`` in [lower, upper] (equal when it is rational)."""

    coefficients: tuple[int, ...]
    """The polynomial, highest degree first, increasing on [lower, upper]."""
    lower: Fraction
    upper: Fraction

    def _at(self, s: Fraction) -> Fraction:
        value = Fraction(0)
        for c in self.coefficients:
            value = value * s + c
        return value

    def refine(self, width: Fraction) -> RealRoot:
        """The same root in an interval no wider than ``width``, by exact bisection."""
        lower, upper = self.lower, self.upper
        while upper - lower > width:
            middle = (lower + upper) / 2
            sign = self._at(middle)
            if sign == 0:
                return RealRoot(self.coefficients, middle, middle)
            lower, upper = (middle, upper) if sign < 0 else (lower, middle)
        return RealRoot(self.coefficients, lower, upper)

    def floor(self) -> int:
        """⌊root⌋: the largest integer k with polynomial(k) ≤ 0 (the polynomial increases)."""
        k = math.floor(self.lower)
        while self._at(Fraction(k + 1)) <= 0:
            k += 1
        return k

    def ceil(self) -> int:
        """⌈root⌉: the smallest integer k with polynomial(k) ≥ 0."""
        k = math.ceil(self.upper)
        while self._at(Fraction(k - 1)) >= 0:
            k -= 1
        return k

    def decimal(self, places: int = 12) -> str:
        """The root to ``places`` decimals (truncated), exactly."""
        root = self.refine(Fraction(1, 10 ** (places + 2)))
        q = root.lower
        scaled = math.floor(q * 10**places)
        # Bisection left lower below the root; step up if the true digits are higher.
        if self._at(Fraction(scaled + 1, 10**places)) <= 0:
            scaled += 1
        return truncate_decimal(Fraction(scaled, 10**places), places)

    def __float__(self) -> float:
        root = self.refine(Fraction(1, 2**60))
        return float((root.lower + root.upper) / 2)


def s_star(n: int) -> RealRoot:
    """s*, the real root of φ (Theorem 2), isolated in [Θ, N − 1] (N ≥ 7: φ increases and φ(Θ) < 0 < φ(N − 1))."""
    check_cards(n)
    if n < 7:
        raise GameArgumentError(f"le-her: Theorem 2 needs N ≥ 7, got {n}")
    coefficients = phi_coefficients(n)
    lower, upper = theta(n), Fraction(n - 1)
    assert phi(n, lower) < 0 < phi(n, upper), "the sign change the paper verifies after (13)"
    # A rational root p/q of 6s³ + … has q | 6: look for one before bisecting, so that a
    # rational s* is represented exactly and the irrational case never hits an integer t**.
    for k in range(math.floor(6 * lower), math.ceil(6 * upper) + 1):
        if phi(n, Fraction(k, 6)) == 0:
            return RealRoot(coefficients, Fraction(k, 6), Fraction(k, 6))
    return RealRoot(coefficients, lower, upper)


@dataclass(frozen=True, slots=True)
class TDoubleStar:
    """t** = max(t*(s*), ⌈s*⌉) of Theorem 2, exactly: ⌈s*⌉, or t* of (12) at the algebraic s*."""

    n: int
    s_star: RealRoot
    at_ceiling: bool
    """Whether t** = ⌈s*⌉ (t*(s*) ≤ ⌈s*⌉)."""

    def bracket(self, width: Fraction | None = None) -> tuple[Fraction, Fraction]:
        """Rationals lower ≤ t** ≤ upper; from s* refined to ``width`` when given."""
        if self.at_ceiling:
            ceiling = Fraction(self.s_star.ceil())
            return ceiling, ceiling
        root = self.s_star if width is None else self.s_star.refine(width)
        # t* increases in s for s ≥ 3/2, so it maps the bracket of s* onto a bracket of t*(s*).
        return t_star(self.n, root.lower), t_star(self.n, root.upper)

    def _narrowest(self, done: Callable[[Fraction, Fraction], bool]) -> tuple[Fraction, Fraction]:
        # t*(s*) is irrational unless s* is rational (s* has degree 3 when irrational,
        # and a rational t*(s*) would make it a root of a quadratic), so this ends.
        width = Fraction(1, 2**10)
        while True:
            low, high = self.bracket(width)
            if done(low, high):
                return low, high
            width /= 2**10

    def floor(self) -> int:
        low, _ = self._narrowest(lambda lo, hi: math.floor(lo) == math.floor(hi))
        return math.floor(low)

    def ceil(self) -> int:
        _, high = self._narrowest(lambda lo, hi: math.ceil(lo) == math.ceil(hi))
        return math.ceil(high)

    def decimal(self, places: int = 12) -> str:
        """t** to ``places`` decimals (truncated)."""
        low, _ = self._narrowest(lambda lo, hi: math.floor(lo * 10**places) == math.floor(hi * 10**places))
        return truncate_decimal(low, places)

    def __float__(self) -> float:
        low, high = self.bracket(Fraction(1, 2**60))
        return float((low + high) / 2)


def t_double_star(n: int) -> TDoubleStar:
    """t** of Theorem 2 (N ≥ 7)."""
    root = s_star(n)
    ceiling = Fraction(root.ceil())
    while True:
        low, high = t_star(n, root.lower), t_star(n, root.upper)
        if high <= ceiling or low > ceiling:
            return TDoubleStar(n, root, high <= ceiling)
        root = root.refine((root.upper - root.lower) / 1024)


@dataclass(frozen=True, slots=True)
class Subgame:
    """A submatrix of a(s, t) and its solution (Theorem 2, or the paper's reductions for N ≤ 6)."""

    rows: tuple[int, ...]
    """Player 1's critical cards s kept."""
    columns: tuple[int, ...]
    """Player 2's critical cards t kept."""
    solution: MatrixGameSolution
    """The subgame's own solution."""
    reason: str
    """Where the paper makes this reduction."""

    def padded(self, n: int) -> MatrixGameSolution:
        """The subgame's strategies as strategies of the whole (N − 1)² game, certified there.

        Raises :class:`~whist_catalogue.games.matrix_games.CertificationError` when they are not optimal in it.
        """
        x = [Fraction(0)] * (n - 1)
        y = [Fraction(0)] * (n - 1)
        for s, p in zip(self.rows, self.solution.player1):
            x[s - 2] = p
        for t, q in zip(self.columns, self.solution.player2):
            y[t - 2] = q
        return MatrixGameSolution.certified(payoff_matrix(n), x, y, "subgame")


def _subgame(n: int, rows: tuple[int, ...], columns: tuple[int, ...], reason: str) -> Subgame:
    a = payoff_matrix(n)
    sub = tuple(tuple(a[s - 2][t - 2] for t in columns) for s in rows)
    solution = solve_2x2(sub) if len(rows) == len(columns) == 2 else solve_matrix_game(sub)
    return Subgame(rows, columns, solution, reason)


def theorem2_subgame(n: int) -> Subgame:
    """Theorem 2: rows ⌊s*⌋, ⌈s*⌉ and columns ⌊t**⌋, ⌈t**⌉ (N ≥ 7)."""
    root = s_star(n)
    t2 = t_double_star(n)
    rows = tuple(sorted({root.floor(), root.ceil()}))
    columns = tuple(sorted({t2.floor(), t2.ceil()}))
    return _subgame(n, rows, columns, "Theorem 2")


_SMALL_N_REDUCTIONS = {
    3: ((2, 3), (2, 3), "N = 3: the whole matrix is 2×2"),
    4: ((3,), (3, 4), "N = 4: s = 3 by (11), t ∈ {3, 4} by Lemma 5"),
    5: ((4,), (4, 5), "N = 5: s = 4 by (11), t ∈ {4, 5} by Lemma 5"),
    # The paper says column 6 of the 2×3 subgame "coincides with" column 5; in fact it is
    # (7/12, 17/30) against (67/120, 17/30): not equal, but dominated, which is all the reduction needs.
    6: ((4, 5), (4, 5), "N = 6: s ∈ {4, 5} by (11), t ∈ {4, 5, 6} by Lemma 5, column 6 dominated by column 5"),
}


def small_n_subgame(n: int) -> Subgame:
    """The paper's reductions for N = 3…6 (the paragraph after (13))."""
    rows, columns, reason = _SMALL_N_REDUCTIONS[n]
    return _subgame(n, rows, columns, reason)


@dataclass(frozen=True, slots=True)
class LeHerSolution:
    """The solved N-card game: matrix, value, strategies, and Theorem 2's subgame."""

    n: int
    matrix: Matrix
    """a(s, t), rows s = 2…N, columns t = 2…N."""
    solution: MatrixGameSolution
    """The value (player 1's probability of winning) and optimal strategies, certified on :attr:`matrix`."""
    subgame: Subgame
    """Theorem 2's 2×2 subgame (N ≥ 7), or the paper's reduction for N ≤ 6."""
    s_star: RealRoot | None
    """s*, for N ≥ 7."""
    t_star: TDoubleStar | None
    """t**, for N ≥ 7."""

    @property
    def value(self) -> Fraction:
        return self.solution.value

    def player1(self) -> dict[int, Fraction]:
        """Critical card s → probability of playing S_s (only the cards played)."""
        return {s: p for s, p in zip(range(2, self.n + 1), self.solution.player1) if p}

    def player2(self) -> dict[int, Fraction]:
        """Critical card t → probability of playing T_t (only the cards played)."""
        return {t: p for t, p in zip(range(2, self.n + 1), self.solution.player2) if p}


def solve(n: int) -> LeHerSolution:
    """The N-card game solved, the strategies being those of the paper's subgame, certified on the whole matrix.

    The general solver gives the value independently; the subgame's padded
    strategies must reach it exactly (Theorem 2 agreeing), or this raises.
    """
    return _solve(check_cards(n))


@cache
def _solve(n: int) -> LeHerSolution:
    matrix = payoff_matrix(n)
    general = solve_matrix_game(matrix)
    subgame = theorem2_subgame(n) if n >= 7 else small_n_subgame(n)
    padded = subgame.padded(n)
    if padded.value != general.value:
        raise CertificationError(f"le-her N={n}: subgame value {padded.value} ≠ the game's value {general.value}")
    root = s_star(n) if n >= 7 else None
    return LeHerSolution(n, matrix, padded, subgame, root, t_double_star(n) if n >= 7 else None)
