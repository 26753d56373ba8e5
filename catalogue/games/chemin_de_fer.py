"""Chemin-de-fer as Foster modelled it, solved exactly.

Implements ``papers/chemin-de-fer.md`` §4–7 (F. G. Foster, *A computer technique
for game-theoretic problems I: Chemin-de-fer analyzed*):

* §6 the model: six packs (312 cards, 96 of point 0, 24 of each point 1–9);
  each initial score from two cards drawn *without* replacement (a_i, Table 1);
  the third cards drawn *with* replacement (b_l, Table 2); the two hands
  independent; A calls on 0–4, stands on 6–7, and calls on 5 with frequency h;
  B calls on 0–2, stands on 7, and chooses in each of the 44 situations (j, l),
  j ∈ {3, 4, 5, 6} his score, l ∈ {0, …, 9} A's third card or l = 10 when A stood;
  the pay-off f(i, j, l, m) to B on a unit stake;
* §3/§6 G(h) = max_s G(h, s) as the exact upper envelope (:mod:`whist_catalogue.games.foster`)
  of the 44 binary choices — exact where Foster sampled nine values of h (Table 3);
* §7 the Banker's decision table on each range of h (Tables 4–7), the minimax
  h* and value (Foster: "h = 0.8 approximately … approximately 1.29%"), and the
  cell the Banker randomises at h* (Foster: (6, 10), standing "with frequency 0.6").

G(h, s) is computed two independent ways: directly as the expectation over
(i, j, l, m), and by Foster's symmetry reduction (his z_jl and ḡ_jl), which
rests on the identity that the game in which B copies A's rule is fair.

Players in the matrix-game convention of :mod:`whist_catalogue.games.matrix_games`:
player 1 is the Banker B (maximiser; the value is his expected gain per unit
stake), player 2 is the player A (minimiser), whose only choice is on 5.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Iterable, Mapping

from whist_catalogue.games.foster import BinaryChoice, FosterSolution, Line, UpperEnvelope, upper_envelope
from whist_catalogue.games.matrix_games import CertificationError, Matrix

__all__ = [
    "STAND",
    "BANKER_SCORES",
    "A_MOVES",
    "CARDS_PER_POINT",
    "FOSTER_TABLE_1",
    "FOSTER_TABLE_2",
    "FOSTER_TABLE_3",
    "FOSTER_TABLES",
    "DecisionTable",
    "RangeTable",
    "CheminDeFerSolution",
    "initial_score_probabilities",
    "further_point_probabilities",
    "player_further_point",
    "payoff",
    "banker_gain",
    "foster_z",
    "foster_gain",
    "banker_choices",
    "banker_constant",
    "envelope",
    "solve",
]

STAND = 10
"""Foster's conventional "further point" 10: the player did not draw.  Adding 10 leaves a score unchanged mod 10."""

BANKER_SCORES = (3, 4, 5, 6)
"""The initial scores j on which the Banker has a choice (§4)."""

A_MOVES = tuple(range(11))
"""What the Banker sees A do: l = 0–9, the point of A's third card, or l = 10 (:data:`STAND`)."""

PACKS = 6
CARDS_PER_POINT = {0: 16 * PACKS, **{point: 4 * PACKS for point in range(1, 10)}}
"""Cards of each point in the six-pack shoe: 10, J, Q, K count 0 (§4, §6)."""

FOSTER_TABLE_1 = {0: "0.1471679445", 1: "0.0949789760", 2: "0.0944842938"}
"""Table 1 as printed: a_0; a_i for odd i; a_i for even i ≥ 2 (10 decimals, truncated)."""

FOSTER_TABLE_2 = {0: "0.3076923076", 1: "0.0769230769"}
"""Table 2 as printed: b_0; b_l for l = 1–9 (10 decimals, truncated)."""

FOSTER_TABLE_3 = {
    Fraction(0): "1.539",
    Fraction(1, 4): "1.453",
    Fraction(1, 2): "1.373",
    Fraction(3, 4): "1.302",
    Fraction(31, 40): "1.294",
    Fraction(4, 5): "1.287",
    Fraction(17, 20): "1.298",
    Fraction(9, 10): "1.322",
    Fraction(1): "1.371",
}
"""Table 3: the Banker's expected gain G(h) in per cent, to 3 decimals, at Foster's nine h."""


@dataclass(frozen=True, slots=True)
class DecisionTable:
    """A pure strategy of the Banker: draw (1) or stand (0) in each cell (j, l) (§5, Tables 4–7)."""

    rows: tuple[tuple[int, ...], ...]
    """One row per j in :data:`BANKER_SCORES`, one entry per l in :data:`A_MOVES`."""

    def __post_init__(self) -> None:
        if len(self.rows) != len(BANKER_SCORES) or any(
            len(row) != len(A_MOVES) or set(row) - {0, 1} for row in self.rows
        ):
            raise ValueError(f"a decision table is 4 rows of 11 zeros and ones, got {self.rows!r}")

    @classmethod
    def from_str(cls, text: str) -> DecisionTable:
        """From four rows of 11 digits, as Foster prints them (rows j = 3–6; spaces, commas, slashes ignored)."""
        rows = [r for r in text.replace(",", "/").replace(";", "/").replace("\n", "/").split("/") if r.strip()]
        try:
            parsed = tuple(tuple(int(ch) for ch in row if not ch.isspace()) for row in rows)
        except ValueError:
            raise ValueError(f"invalid decision table: {text!r}") from None
        return cls(parsed)

    @classmethod
    def from_choices(cls, choices: Iterable[int]) -> DecisionTable:
        """From the choices in the order of :func:`banker_choices` (j-major, then l)."""
        flat = tuple(choices)
        width = len(A_MOVES)
        return cls(tuple(flat[k * width : (k + 1) * width] for k in range(len(BANKER_SCORES))))

    def draws(self, j: int, l: int) -> bool:
        """Whether the Banker with initial score j draws when he sees A's move l."""
        return bool(self.rows[BANKER_SCORES.index(j)][l])

    def cells_differing(self, other: DecisionTable) -> tuple[tuple[int, int], ...]:
        """The cells (j, l) where the two tables disagree."""
        return tuple(
            (j, l) for j in BANKER_SCORES for l in A_MOVES if self.draws(j, l) != other.draws(j, l)
        )

    def __str__(self) -> str:
        return "/".join("".join(str(d) for d in row) for row in self.rows)

    def text(self) -> str:
        """Foster's layout: a header of l, one line per j."""
        header = "j\\l " + " ".join(f"{l:>2}" for l in A_MOVES)
        lines = [f"{j:>3} " + " ".join(f"{d:>2}" for d in row) for j, row in zip(BANKER_SCORES, self.rows)]
        return "\n".join([header, *lines])

    def to_json(self) -> dict[str, list[int]]:
        return {str(j): list(row) for j, row in zip(BANKER_SCORES, self.rows)}


# Tables 4–7 as printed.  The OCR lost the column header (l = 0 … 10) and ran
# the row labels 3–6 into the first row; the ringed changes, "(I)" in cell (3, 9)
# and "(1)" in cell (4, 1), are read as 1, as §7's text says they are.
FOSTER_TABLES: Mapping[int, DecisionTable] = {
    4: DecisionTable.from_str("11111111001/00111111001/00001111001/00000011000"),
    5: DecisionTable.from_str("11111111011/00111111001/00001111001/00000011000"),
    6: DecisionTable.from_str("11111111011/00111111001/00001111001/00000011001"),
    7: DecisionTable.from_str("11111111011/01111111001/00001111001/00000011001"),
}
"""Foster's Tables 4–7: the Banker's optimal pure strategy on each range of h he found."""


# --- §6 the model ----------------------------------------------------------------------------------


@cache
def initial_score_probabilities() -> tuple[Fraction, ...]:
    """a_i, i = 0–9: two cards from the 312-card shoe without replacement, points added mod 10 (Table 1)."""
    shoe = sum(CARDS_PER_POINT.values())
    a = [Fraction(0)] * 10
    for first, n1 in CARDS_PER_POINT.items():
        for second, n2 in CARDS_PER_POINT.items():
            a[(first + second) % 10] += Fraction(n1 * (n2 - (first == second)), shoe * (shoe - 1))
    return tuple(a)


@cache
def further_point_probabilities() -> tuple[Fraction, ...]:
    """b_l, l = 0–10: a third card drawn with replacement (Table 2); b_10 = 0 by Foster's convention."""
    shoe = sum(CARDS_PER_POINT.values())
    return tuple(Fraction(CARDS_PER_POINT[l], shoe) for l in range(10)) + (Fraction(0),)


def _delta(l: int) -> int:
    return int(l == STAND)


def player_further_point(i: int, l: int, h: Fraction | int) -> Fraction:
    """p_il: the probability that A, with initial score i and calling on 5 with frequency h, shows l (§6)."""
    b = further_point_probabilities()
    if i <= 4:
        return b[l]
    if i == 5:
        return h * b[l] + (1 - h) * _delta(l)
    return Fraction(_delta(l))


def _banker_further_point(draws: bool, m: int) -> Fraction:
    """π_jlm: B's further point m when he draws or stands."""
    return further_point_probabilities()[m] if draws else Fraction(_delta(m))


def payoff(i: int, j: int, l: int, m: int) -> int:
    """f(i, j, l, m): B's gain on a unit stake (§6); l or m = 10 is no third card."""
    if j in (8, 9):
        return (i < j) - (i > j)
    if i in (8, 9):
        return -1
    a_final, b_final = (i + l) % 10, (j + m) % 10
    return (a_final < b_final) - (a_final > b_final)


def _forced_draw(j: int) -> bool | None:
    """B's rule where he has no choice (§4): draw on 0–2, stand on 7, show 8–9 (no draw)."""
    if j <= 2:
        return True
    if j >= 7:
        return False
    return None


def _cell_gain(j: int, l: int, draws: bool, h: Fraction | int) -> Fraction:
    """a_j Σ_i a_i p_il Σ_m π_jlm f(i, j, l, m): what cell (j, l) adds to B's expected gain."""
    a = initial_score_probabilities()
    total = Fraction(0)
    for i in range(10):
        p = player_further_point(i, l, h)
        if p:
            total += a[i] * p * sum(_banker_further_point(draws, m) * payoff(i, j, l, m) for m in range(11))
    return a[j] * total


def banker_gain(h: Fraction | int, table: DecisionTable) -> Fraction:
    """G(h, s): B's expected gain playing ``table`` against A's frequency h, by the full sum over (i, j, l, m) of §6."""
    a = initial_score_probabilities()
    total = Fraction(0)
    for j in range(10):
        for l in A_MOVES:
            forced = _forced_draw(j)
            draws = table.draws(j, l) if forced is None else forced
            for i in range(10):
                weight = a[i] * player_further_point(i, l, h) * a[j]
                if weight:
                    total += weight * sum(
                        _banker_further_point(draws, m) * payoff(i, j, l, m) for m in range(11)
                    )
    return total


# --- Foster's symmetry reduction (§6, step 2) --------------------------------------------------------


def foster_z(j: int, l: int, h: Fraction | int) -> Fraction:
    """z_jl = Σ_{i≤7} a_i p_il Σ_m (δ_m − b_m) f(i, j, l, m): standing minus drawing in cell (j, l), per a_j."""
    a = initial_score_probabilities()
    b = further_point_probabilities()
    return sum(
        (
            a[i] * player_further_point(i, l, h) * sum((_delta(m) - b[m]) * payoff(i, j, l, m) for m in range(11))
            for i in range(8)
        ),
        Fraction(0),
    )


def foster_gain(h: Fraction | int) -> tuple[Fraction, DecisionTable]:
    """G(h) and the decision table Foster's program printed, by his rules for ḡ_jl (§6, j = 3–6)."""
    a = initial_score_probabilities()
    h = Fraction(h)
    total = Fraction(0)
    choices = []
    for j in BANKER_SCORES:
        for l in A_MOVES:
            z = foster_z(j, l, h)
            # Foster prints p = 0 (stand) exactly when z_jl > 0, for every j.
            choices.append(0 if z > 0 else 1)
            if j in (3, 4):
                g_bar = max(z, Fraction(0))
            elif j == 6:
                g_bar = max(-z, Fraction(0))
            else:
                g_bar = h * z if z > 0 else (h - 1) * z
            total += a[j] * g_bar
    return total, DecisionTable.from_choices(choices)


# --- the N×2 game and its solution ------------------------------------------------------------------


@cache
def banker_choices() -> tuple[BinaryChoice, ...]:
    """The 44 binary choices of the Banker, cell (j, l) by cell; choice 1 = draw, 0 = stand."""
    return tuple(
        BinaryChoice(
            (j, l),
            Line.through(_cell_gain(j, l, False, 0), _cell_gain(j, l, False, 1)),
            Line.through(_cell_gain(j, l, True, 0), _cell_gain(j, l, True, 1)),
        )
        for j in BANKER_SCORES
        for l in A_MOVES
    )


@cache
def banker_constant() -> Line:
    """The part of B's gain from the cells where the rules leave him no choice (j ∉ 3–6)."""
    line = Line.zero()
    for j in range(10):
        forced = _forced_draw(j)
        if forced is not None:
            for l in A_MOVES:
                line += Line.through(_cell_gain(j, l, forced, 0), _cell_gain(j, l, forced, 1))
    return line


@cache
def envelope() -> UpperEnvelope:
    """G(h) on [0, 1] exactly; ties (a cell where both choices are worth the same) recorded as draw, as Foster did."""
    return upper_envelope(banker_choices(), banker_constant(), tie=1)


@dataclass(frozen=True, slots=True)
class RangeTable:
    """The Banker's optimal pure strategy on one range of h (one piece of the envelope)."""

    start: Fraction
    end: Fraction
    table: DecisionTable
    line: Line
    """G(h) on the range, per unit stake."""
    foster_number: int | None
    """The number of Foster's table (4–7) that this table is, if any."""
    changed: tuple[tuple[int, int], ...]
    """The cells that differ from the previous range's table (Foster's ringed numbers)."""

    @property
    def name(self) -> str:
        return f"table-{self.foster_number}" if self.foster_number is not None else f"table-{self.table}"


@dataclass(frozen=True, slots=True)
class CheminDeFerSolution:
    """The exact minimax solution of Foster's chemin-de-fer game."""

    h: Fraction
    """A's minimax frequency of calling on 5."""
    value: Fraction
    """The Banker's expected gain per unit stake under optimal play: min_h G(h)."""
    ranges: tuple[RangeTable, ...]
    """The Banker's best pure reply on each range of h, left to right."""
    banker_mixture: tuple[tuple[Fraction, RangeTable], ...]
    """The Banker's optimal mixed strategy: probabilities of the pure strategies of the ranges meeting at h*."""
    mixed_cells: tuple[tuple[tuple[int, int], Fraction], ...]
    """The cells (j, l) the Banker randomises, each with its probability of drawing."""

    def G(self, h: Fraction | int) -> Fraction:
        """The Banker's best-reply gain against h, per unit stake (the curve of Fig. 3, ÷ 100)."""
        return envelope()(h)

    @property
    def breakpoints(self) -> tuple[Fraction, ...]:
        return tuple(r.start for r in self.ranges[1:])

    def certify(self) -> None:
        """Check exactly that h* and the Banker's mixture guarantee :attr:`value`.

        * A's side: B's best reply to h* is found cell by cell (the gain is
          additive over cells, so no pure strategy of the 2⁴⁴ can do better
          than the cell-wise maximum) and it earns exactly the value;
          Foster's independent z-reduction must agree.
        * B's side: the mixture, evaluated by the full sum over (i, j, l, m),
          earns at least the value against both pure strategies of A.
        """
        best = envelope()(self.h)
        if best != self.value:
            raise CertificationError(f"B's best reply to h* = {self.h} earns {best}, not the value {self.value}")
        reduced, _ = foster_gain(self.h)
        if reduced != best:
            raise CertificationError(f"Foster's reduction gives G(h*) = {reduced}, the envelope {best}")
        for h in (0, 1):
            got = sum((p * banker_gain(h, r.table) for p, r in self.banker_mixture), Fraction(0))
            if got < self.value:
                raise CertificationError(f"the Banker's mixture earns {got} < {self.value} against h = {h}")

    @property
    def is_certified(self) -> bool:
        try:
            self.certify()
        except CertificationError:
            return False
        return True

    def reduced_matrix(self) -> tuple[Matrix, tuple[DecisionTable, ...]]:
        """The N×2 game of §3 restricted to the Banker's strategies that vary only the cells that ever change.

        Rows: those 2^k strategies (the other cells as in every range); columns: h = 0 and h = 1.
        """
        env = envelope()
        matrix, strategies = env.explicit_matrix(env.varying_situations())
        return matrix, tuple(DecisionTable.from_choices(s) for s in strategies)


def _ranges(env: UpperEnvelope) -> tuple[RangeTable, ...]:
    ranges: list[RangeTable] = []
    for piece in env.pieces:
        table = DecisionTable.from_choices(piece.strategy)
        number = next((n for n, t in FOSTER_TABLES.items() if t == table), None)
        changed = table.cells_differing(ranges[-1].table) if ranges else ()
        ranges.append(RangeTable(piece.start, piece.end, table, piece.line, number, changed))
    return tuple(ranges)


@cache
def solve() -> CheminDeFerSolution:
    """The exact minimax solution (Foster §7, without reading a graph)."""
    env = envelope()
    foster: FosterSolution = env.minimax()
    ranges = _ranges(env)
    by_strategy = {r.table: r for r in ranges}
    mixture = tuple((p, by_strategy[DecisionTable.from_choices(s)]) for p, s in foster.mixture)
    mixed = tuple(foster.randomised_situations(env.situations).items())
    return CheminDeFerSolution(foster.h, foster.value, ranges, mixture, mixed)  # type: ignore[arg-type]
