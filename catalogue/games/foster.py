"""Foster's upper-envelope method for N×2 games of independent binary choices.

Implements ``papers/chemin-de-fer.md`` §3 and §6 (F. G. Foster, *A computer
technique for game-theoretic problems I*), exactly.  Player A (the minimiser)
has two pure strategies and mixes them with frequency h ∈ [0, 1] on the
second one; player B (the maximiser) has N = 2ⁿ pure strategies, one binary
choice c_k in each of n situations, and his gain is additive over them:

    G(h, s) = constant(h) + a_1^(c_1)(h) + … + a_n^(c_n)(h),

every term linear in h.  Then

1. G(h) = max_s G(h, s) = constant(h) + Σ_k max(a_k^0(h), a_k^1(h)) — 2n
   evaluations instead of 2ⁿ (§3);
2. the best choice in situation k can change only where a_k^0(h) = a_k^1(h),
   so those h (the *breakpoints*) cut [0, 1] into pieces on each of which one
   pure strategy of B is a best reply and G is linear: G is the upper envelope
   of the lines of these strategies (Fig. 2, Fig. 3) — computed here exactly
   rather than sampled at nine h as Foster did;
3. G is convex and piecewise linear, so its minimum — the value of the game —
   is at a breakpoint or an end; A's minimax strategy is that h*, and B's is
   the mixture of the two pure strategies meeting at h* whose line is flat.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Hashable, Iterable, Sequence

from whist_catalogue.games.matrix_games import Matrix

__all__ = ["Line", "BinaryChoice", "Piece", "UpperEnvelope", "FosterSolution", "upper_envelope"]


@dataclass(frozen=True, slots=True)
class Line:
    """The linear function h ↦ intercept + slope·h."""

    intercept: Fraction
    """Its value at h = 0."""
    slope: Fraction
    """Its derivative in h."""

    @classmethod
    def through(cls, at0: Fraction | int, at1: Fraction | int) -> Line:
        """The line with these values at h = 0 and h = 1."""
        return cls(Fraction(at0), Fraction(at1) - Fraction(at0))

    @classmethod
    def zero(cls) -> Line:
        return cls(Fraction(0), Fraction(0))

    def __call__(self, h: Fraction | int) -> Fraction:
        return self.intercept + self.slope * h

    def __add__(self, other: Line) -> Line:
        return Line(self.intercept + other.intercept, self.slope + other.slope)

    def __sub__(self, other: Line) -> Line:
        return Line(self.intercept - other.intercept, self.slope - other.slope)

    def __mul__(self, factor: Fraction | int) -> Line:
        return Line(self.intercept * factor, self.slope * factor)

    __rmul__ = __mul__

    def root(self) -> Fraction | None:
        """The h where the line is 0, or None when it is constant."""
        return None if self.slope == 0 else -self.intercept / self.slope


@dataclass(frozen=True, slots=True)
class BinaryChoice:
    """One situation of player B and what each of his two choices adds to his gain."""

    situation: Hashable
    """A name for the situation (chemin-de-fer: the cell (j, l) of the decision table)."""
    payoff0: Line
    """B's gain component when he makes choice 0 here."""
    payoff1: Line
    """B's gain component when he makes choice 1 here."""

    def difference(self) -> Line:
        """payoff1 − payoff0: positive where choice 1 is the better one."""
        return self.payoff1 - self.payoff0

    def best(self, h: Fraction, tie: int = 1) -> int:
        """The better choice at h; ``tie`` where both are equally good."""
        d = self.difference()(h)
        return tie if d == 0 else int(d > 0)


Choices = tuple[int, ...]
"""A pure strategy of B: the choice (0 or 1) in each situation, in order."""


@dataclass(frozen=True, slots=True)
class Piece:
    """An interval of h on which one pure strategy of B is a best reply and G is linear."""

    start: Fraction
    end: Fraction
    strategy: Choices
    """B's best reply inside the interval (the same at every inner point)."""
    line: Line
    """G(h) on the interval: the gain of :attr:`strategy` against h."""


@dataclass(frozen=True, slots=True)
class FosterSolution:
    """The minimax solution of the N×2 game read off the upper envelope."""

    h: Fraction
    """A's minimax frequency h* (the leftmost minimiser of G when the minimum is flat)."""
    value: Fraction
    """The value of the game, min_h G(h) = G(h*)."""
    mixture: tuple[tuple[Fraction, Choices], ...]
    """B's optimal mixed strategy: (probability, pure strategy) pairs, one or two of them."""

    def randomised_situations(self, situations: Sequence[Hashable]) -> dict[Hashable, Fraction]:
        """The situations where B's mixture randomises, each with the probability of choice 1.

        Because the gain is additive over situations, randomising each of these
        independently with that probability is as good as the mixture.
        """
        out: dict[Hashable, Fraction] = {}
        for k, situation in enumerate(situations):
            p1 = sum((p for p, s in self.mixture if s[k] == 1), Fraction(0))
            if 0 < p1 < 1:
                out[situation] = p1
        return out


@dataclass(frozen=True, slots=True)
class UpperEnvelope:
    """G(h) = max_s G(h, s) on [0, 1], as exact linear pieces (Foster §3, Fig. 2)."""

    choices: tuple[BinaryChoice, ...]
    constant: Line
    """The part of B's gain that no choice of his affects."""
    pieces: tuple[Piece, ...]
    """Consecutive pieces covering [0, 1]; neighbours have different strategies."""
    tie: int = 1
    """The choice recorded where both choices are equally good throughout a piece."""

    @property
    def situations(self) -> tuple[Hashable, ...]:
        return tuple(c.situation for c in self.choices)

    @property
    def breakpoints(self) -> tuple[Fraction, ...]:
        """The inner h where B's best reply changes: the kinks of G."""
        return tuple(piece.start for piece in self.pieces[1:])

    def gain(self, h: Fraction | int, strategy: Choices) -> Fraction:
        """G(h, s): B's expected gain with the pure strategy s against A's frequency h."""
        h = Fraction(h)
        return self.constant(h) + sum(
            ((c.payoff1 if choice else c.payoff0)(h) for c, choice in zip(self.choices, strategy)), Fraction(0)
        )

    def best_response(self, h: Fraction | int) -> Choices:
        """B's best pure reply at h, choice by choice (:attr:`tie` where both are equal)."""
        return tuple(c.best(Fraction(h), self.tie) for c in self.choices)

    def __call__(self, h: Fraction | int) -> Fraction:
        """G(h), by the 2n comparisons of Foster §3."""
        h = Fraction(h)
        return self.constant(h) + sum((max(c.payoff0(h), c.payoff1(h)) for c in self.choices), Fraction(0))

    def minimax(self) -> FosterSolution:
        """A's minimax h*, the value, and B's optimal mixture (step 3 of the module docstring)."""
        for k, piece in enumerate(self.pieces):
            if piece.line.slope >= 0:
                # The first piece that does not descend starts at the minimum.
                h = piece.start
                value = piece.line(h)
                if k == 0 or piece.line.slope == 0:
                    return FosterSolution(h, value, ((Fraction(1), piece.strategy),))
                left = self.pieces[k - 1]
                s_left, s_right = left.line.slope, piece.line.slope
                # Weight λ on the right strategy flattens the mixture: λ·s_right + (1 − λ)·s_left = 0.
                weight = -s_left / (s_right - s_left)
                return FosterSolution(h, value, ((1 - weight, left.strategy), (weight, piece.strategy)))
        last = self.pieces[-1]
        return FosterSolution(last.end, last.line(last.end), ((Fraction(1), last.strategy),))

    def explicit_matrix(self, situations: Iterable[Hashable]) -> tuple[Matrix, tuple[Choices, ...]]:
        """The N×2 matrix of §3 over B's strategies that vary only the given situations.

        Every other situation keeps the choice that is best on all of [0, 1] (a
        situation outside :meth:`varying_situations` has one).  Rows: B's
        strategies; columns: A's pure strategies h = 0 and h = 1.  For checking
        the envelope against a general solver, so keep the list short (2^k rows).
        """
        wanted = set(situations)
        varying = [k for k, c in enumerate(self.choices) if c.situation in wanted]
        base = self.pieces[0].strategy
        rows: list[tuple[Fraction, ...]] = []
        strategies: list[Choices] = []
        for bits in product((0, 1), repeat=len(varying)):
            strategy = list(base)
            for k, bit in zip(varying, bits):
                strategy[k] = bit
            chosen = tuple(strategy)
            strategies.append(chosen)
            rows.append((self.gain(0, chosen), self.gain(1, chosen)))
        return tuple(rows), tuple(strategies)

    def varying_situations(self) -> tuple[Hashable, ...]:
        """The situations whose best choice differs between pieces."""
        return tuple(
            c.situation for k, c in enumerate(self.choices) if len({piece.strategy[k] for piece in self.pieces}) > 1
        )


def upper_envelope(choices: Iterable[BinaryChoice], constant: Line | None = None, tie: int = 1) -> UpperEnvelope:
    """G(h) on [0, 1] as exact linear pieces, with B's best reply on each (steps 1–2 of the module docstring)."""
    choices = tuple(choices)
    constant = constant if constant is not None else Line.zero()
    cuts = {Fraction(0), Fraction(1)}
    for c in choices:
        root = c.difference().root()
        if root is not None and 0 < root < 1:
            cuts.add(root)
    ends = sorted(cuts)
    pieces: list[Piece] = []
    for start, end in zip(ends, ends[1:]):
        # No choice changes inside the open interval, so its midpoint decides for all of it.
        middle = (start + end) / 2
        strategy = tuple(c.best(middle, tie) for c in choices)
        line = constant + sum(
            ((c.payoff1 if choice else c.payoff0) for c, choice in zip(choices, strategy)), Line.zero()
        )
        pieces.append(Piece(start, end, strategy, line))
    return UpperEnvelope(choices, constant, tuple(pieces), tie)
