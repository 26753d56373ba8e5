"""The deal explorer: one single-suit deal, its value, its α matrix, the single-suit paper's A matrix, play.

Everything shown comes from the core: the value and best moves — or, for a suit
beyond every solver, what the linear-time theory gives — from
:func:`whist_catalogue.store.solvers.answer`, the one decision the command line
shares (catalogue, recursive definition, engine, linear time), the
labeled values α_ij from :func:`whist_catalogue.theory.labeled.labeled_matrix`, the matrix
A, the sums T_k and H̄, H̲, H from :mod:`whist_catalogue.single_suit.formulas` (or the
linear-time :mod:`whist_catalogue.single_suit.linear_time` for deals too large to show A), and
play from :class:`whist_catalogue.twohand.play.Play`.  The analysis runs in a worker, since
a deal beyond the catalogue may make the engine compute whole levels.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QGroupBox, QVBoxLayout, QWidget

from whist_catalogue.constants import MAX_BUILD_N
from whist_catalogue.errors import counted
from whist_catalogue.gui.analysis_view import AnalysisView
from whist_catalogue.gui.context import AppContext
from whist_catalogue.gui.models import AMBER, BLUE, GREEN, RED, AlphaMatrixModel, GridModel, minus, subscript
from whist_catalogue.gui.widgets import (
    HandEditor,
    ValueLabel,
    breakable,
    fit_height,
    heading,
    matrix_view,
    player_name,
    scrolled,
    shorten,
    split,
    stacked,
    summary_label,
    wrapped,
)
from whist_catalogue.single_suit import formulas as single_suit
from whist_catalogue.single_suit.linear_time import NormalLeads, ValueDetection, solve_linear
from whist_catalogue.store.solvers import CATALOGUE, DEFINITION, ENGINE, answer
from whist_catalogue.theory.answers import outcome_lines, outcome_text
from whist_catalogue.theory.deals import Notation, Suit, parse_suit
from whist_catalogue.theory.labeled import LabeledValue, labeled_matrix
from whist_catalogue.theory.solution import Solver, SuitSolution
from whist_catalogue.theory.values import Outcome, Value

__all__ = ["DealAnalysis", "analyse_deal", "DealExplorer", "EXAMPLES", "A_MATRIX_MAX_N"]

H_UPPER = "<span style='text-decoration: overline'>H</span>"
H_LOWER = "<u>H</u>"
"""H̄ and H̲ in rich text (combining marks do not survive bold type)."""

HELP = (
    "<span style='color:#4b5563'>The value is West's share of the tricks in the paper's semigroup of values: "
    "rounding it (ρ) gives the tricks with each side on lead.  A fraction means the lead matters; "
    "ε<sub>k</sub> is an exit for West protected by k stoppers, −ε<sub>k</sub> one for East.  "
    "Values of suits add up: try the Multi-suit view.</span>"
)

ALPHA_LEGEND = (
    "West plays W<sub>i</sub> (row), East plays E<sub>j</sub> (column); (P, x): P wins the trick, "
    "x is West's value counting it.  ★ a best lead.  Best reply: "
    f"<span style='background:{BLUE.name()}'>&nbsp;East's&nbsp;</span> "
    f"<span style='background:{AMBER.name()}'>&nbsp;West's&nbsp;</span> "
    f"<span style='background:{GREEN.name()}'>&nbsp;both&nbsp;</span>"
)

A_MATRIX_MAX_N = 40
"""Show the matrix A and T_k up to this many cards a hand; beyond, H̄, H̲, H by the linear-time algorithm."""

PLACEHOLDER = "KQT/AJ9   ·   13 12 10 / 14 11 9   ·   EWEWWE"
"""The input's hint: one deal in the three notations of docs/spec.md §2."""

EXAMPLES = (
    ("KQT/AJ9", "the explorer's example: value 1 + 1/2"),
    ("AQ/KJ", "a finesse position (multi-suit paper §1)"),
    ("K/A", "an unprotected exit for West: ε₀"),
    ("AKJ/QT9", "multi-suit paper, §11"),
    ("KQT98/AJ765", "East's exit with two stoppers: 3 − ε₂ (deal (28))"),
    ("AK9/QJT", "West's exit with two stoppers: 2 + ε₂ (deal (28))"),
    ("KQT86/AJ975", "2 + 1/2 (deal (28))"),
    ("13 12 9 8 7 2 1 / 14 11 10 6 5 4 3", "numbers notation (docs/spec.md §2)"),
    ("EWEW", "owner string, lowest card first: West A Q against K J"),
)


@dataclass(frozen=True)
class DealAnalysis:
    """What the explorer shows about one deal."""

    suit: Suit
    solution: SuitSolution | None
    """Value and best moves; None beyond the solvers' reach."""
    alpha: tuple[tuple[LabeledValue, ...], ...]
    quantities: single_suit.SingleSuitQuantities | None
    """H̄, H̲, H, Greedy Whist and Five-card by the direct formulas (None for large n)."""
    a_matrix: tuple[tuple[int, ...], ...]
    t_sums: dict[int, int]
    h_lower: int
    h_upper: int
    h: int
    detection: ValueDetection | None = None
    """Beyond the solvers: the outcome (and a value, when Theorem 12.1 names it) in linear time."""
    too_large: str = ""
    source: str = ""
    """Where the answer came from (:data:`whist_catalogue.store.solvers.CATALOGUE` …)."""
    normal_leads: NormalLeads | None = None
    """Beyond the solvers: each side's normal lead, a best lead when Theorem 8.2 says so."""

    @property
    def outcome(self) -> Outcome:
        if self.solution is not None:
            return self.solution.outcome
        assert self.detection is not None
        return self.detection.outcome


def analyse_deal(suit: Suit, solver: Solver) -> DealAnalysis:
    """Everything the explorer shows, from the core (run in a worker)."""
    deal = suit.deal
    found = answer(solver, deal)
    solution, too_large, source = found.solution, found.beyond, found.source
    detection = found.linear.detection if found.linear is not None else None
    alpha = labeled_matrix(deal, solver.value) if solution is not None else ()
    leads = found.linear.leads if found.linear is not None else None
    if deal.n <= A_MATRIX_MAX_N:
        q = single_suit.quantities(deal)
        return DealAnalysis(
            suit, solution, alpha, q, single_suit.a_matrix(deal), single_suit.t_diagonal_sums(deal),
            q.h_lower, q.h_upper, q.h, detection, too_large, source, leads,
        )
    linear = found.linear.result if found.linear is not None else solve_linear(deal)
    return DealAnalysis(suit, solution, alpha, None, (), {}, linear.h_lower, linear.h_upper, linear.h, detection,
                        too_large, source, leads)


class DealExplorer(AnalysisView[Suit]):
    """View 1: enter a single-suit deal (any notation, or click cards), read its value and play it."""

    TITLE = "Deal explorer"
    EXAMPLES = EXAMPLES
    PLACEHOLDER = PLACEHOLDER  # one deal three ways (KQT/AJ9, in numbers, as its owner string): a test checks they agree
    TOOLTIP = ("A single-suit deal WEST/EAST in ranks (AQ/KJ, K Q 9 / A J 10), numbers (13 12 / 14 11),\n"
               "or an owner string, lowest card first (EWEW). Press Enter to show it.")

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.editor = HandEditor("or click cards:")
        self.editor.changed.connect(self._editor_changed)
        self.value_area = scrolled(self._value_box())
        self.value_area.setMinimumWidth(250)  # the value, its source and the outcome stay readable at 1000 pixels
        top = split(self.value_area, scrolled(self._alpha_box()), scrolled(self._paper_box()), sizes=(300, 500, 560),
                    stretch=(2, 3, 3))
        play_box = QGroupBox("Play it out: click a card, the app answers")
        QVBoxLayout(play_box).addWidget(self.play_panel)
        self.lay_out(self.editor, split(top, scrolled(play_box), sizes=(400, 460), stretch=(4, 3), vertical=True))

    def _value_box(self) -> QGroupBox:
        """The value, its source, the deal, the outcome and the best leads."""
        self.value_label = ValueLabel("—", 30)
        self.value_label.setToolTip("val(D): the value of the deal in the semigroup V (multi-suit paper §6)")
        self.source_label, self.deal_info, self.outcome_label, self.leads_label = (wrapped() for _ in range(4))
        self.source_label.setStyleSheet("color: #4b5563;")
        box = QGroupBox("Value")
        column = QVBoxLayout(box)
        for widget in (self.value_label, self.source_label, self.deal_info, heading("Outcome (χ = ρ(value))"),
                       self.outcome_label, heading("Best leads"), self.leads_label):
            column.addWidget(widget)
        column.addStretch(1)
        column.addWidget(wrapped(HELP))
        return box

    def _alpha_box(self) -> QWidget:
        self.alpha_model = AlphaMatrixModel(self)
        self.alpha_view = matrix_view(self.alpha_model, 2)
        self.alpha_note = wrapped()
        return stacked(self.alpha_view, self.alpha_note, wrapped(ALPHA_LEGEND),
                       into=QGroupBox("Labeled values αᵢⱼ (multi-suit paper §7.2)"))

    def _paper_box(self) -> QWidget:
        self.a_model = GridModel(self)
        self.a_view = matrix_view(self.a_model, 1)
        self.t_model = GridModel(self)
        self.t_view = matrix_view(self.t_model, 0)
        self.h_label = summary_label()
        return stacked(self.a_view, self.t_view, self.h_label,
                       into=QGroupBox("Single-suit paper: the matrix A, Tₖ, H̄, H̲, H"))

    # -- input -----------------------------------------------------------------------------------
    def parse(self, text: str) -> Suit:
        return parse_suit(text)

    @Slot()
    def _editor_changed(self) -> None:
        west, east = self.editor.hand("W"), self.editor.hand("E")
        self.write_field(self.editor.text() if west or east else "")
        if not west and not east:
            self._no_deal()
            self.message.show_info("Click cards into West's and East's hands, or type a deal above.")
            return
        if len(west) != len(east):
            self._no_deal()
            self.message.show_info(
                f"West holds {counted(len(west), 'card')}, East {len(east)}: both hands must hold the same number."
            )
            return
        suit = self.parse_field()
        if suit is not None:
            self.show_deal(suit)

    def _sync_editors(self, suit: Suit | None) -> None:
        if suit is None:
            self.editor.clear()
        elif suit.notation is not Notation.RANKS or not self.editor.set_hands(suit.west, suit.east):
            # Say why the picker is empty beside a deal it cannot draw, rather than show "0 : 0".
            self.editor.clear(f"{suit.n} cards a hand, more than the 13 ranks A … 2" if 2 * suit.n > 13 else
                              "the cards to click are ranks, and this deal is an owner string or numbers")

    # -- analysis ------------------------------------------------------------------------------
    def show_deal(self, suit: Suit) -> None:
        """Analyse ``suit`` in a worker and show the result; meanwhile the previous deal's results are greyed."""
        self.start_analysis(f"Valuing {shorten(str(suit), 32)}", analyse_deal, suit, self.context.solver)

    # -- display ---------------------------------------------------------------------------------
    def _clear(self) -> None:
        self.value_label.setText("—")
        for label in (self.source_label, self.alpha_note, self.outcome_label, self.leads_label, self.h_label):
            label.setText("")
        self.deal_info.setText("Enter a deal above.")
        self.deal_info.setToolTip("")
        self.alpha_model.set_matrix(None, None, ())
        self.a_model.set_grid([])
        self.t_model.set_grid([])
        self._show_filled()

    def _show_filled(self) -> None:
        """A table shows only with something in it: an empty one is a white box that looks broken."""
        for view in (self.alpha_view, self.a_view, self.t_view):
            view.setVisible(view.model().rowCount() > 0)

    def _fill(self, a: DealAnalysis) -> None:
        suit, deal = a.suit, a.suit.deal
        sol = a.solution
        if sol is not None:
            self.value_label.setText(sol.value.text())
        elif a.detection is not None and a.detection.value is not None:
            self.value_label.setText(a.detection.value.text())
        elif a.detection is not None:
            low, high = Value(a.detection.lower).text(), Value(a.detection.upper).text()
            self.value_label.setText(f"{low} < value < {high}")
        self.source_label.setText(self._source_text(a))
        key = f"  ·  key {deal.key}" if deal.n <= MAX_BUILD_N else ""
        # A long deal is shortened here (the full text is in the field above and in the tooltip), and may break
        # anywhere: a label of n = 17 is one 34-letter word, wider than the panel at 1000 pixels.
        self.deal_info.setText(breakable(f"{shorten(str(suit), 40)}\nlabel {shorten(deal.label, 40)}")
                               + f"  ·  n = {deal.n}{key}")
        self.deal_info.setToolTip(f"{suit}\nlabel {deal.label}" if deal.n > 12 else "")
        self.outcome_label.setText(outcome_lines(a.outcome, deal.n))
        if sol is not None:
            west = " ".join(suit.name_of(c) for c in sol.west_leads)
            east = " ".join(suit.name_of(c) for c in sol.east_leads)
            self.leads_label.setText(f"West: {west}\nEast: {east}")
        elif a.normal_leads is not None:
            n = a.normal_leads
            west = suit.name_of(n.west) if n.west_is_best else "not determined"
            east = suit.name_of(n.east) if n.east_is_best else "not determined"
            self.leads_label.setText(f"West: {west}\nEast: {east}\n(the normal lead of §4.2 where Theorem 8.2 makes it "
                                     "a best lead; the others need the engine)")
        self.alpha_model.set_matrix(suit, sol, a.alpha)
        if sol is None:
            self.alpha_note.setText(f"No α matrix: {a.too_large}. The outcome above is by the linear-time algorithm "
                                    "(Theorem 10.1).")
        else:
            self.alpha_note.setText("")
        self.alpha_view.resizeColumnsToContents()
        marks = sorted({a.h_lower, a.h_upper})
        self._fill_paper(suit, a.a_matrix, a.t_sums, marks)
        self._show_filled()
        fit_height(self.t_view)
        self.h_label.setText(self._h_text(a))
        self.play_panel.set_deal((suit,) if sol is not None else None)

    def _fill_paper(self, suit: Suit, matrix: tuple[tuple[int, ...], ...], sums: dict[int, int],
                    marks: list[int]) -> None:
        """The matrix A of (6), blue where West's card is higher, and one row of its diagonal sums T_k (§3); the
        diagonals k = H̲, H̄, where T_k changes sign, in bold."""
        cells = [(i, j, x) for i, entries in enumerate(matrix) for j, x in enumerate(entries)]
        self.a_model.set_grid(
            [[minus(x) for x in entries] for entries in matrix],
            [f"W{subscript(i + 1)} {suit.name_of(c)}" for i, c in enumerate(suit.deal.west_cards)],
            [f"E{subscript(j + 1)} {suit.name_of(c)}" for j, c in enumerate(suit.deal.east_cards)],
            {(i, j): BLUE if x > 0 else RED for i, j, x in cells},
            {(i, j): f"A{subscript(i + 1)},{subscript(j + 1)} = {minus(x)}: {'West' if x > 0 else 'East'}'s card is "
                     f"higher (W{subscript(i + 1)} vs E{subscript(j + 1)})"
                     + (f"\non the diagonal k = j − i = {minus(j - i)}" if j - i in marks else "") for i, j, x in cells},
            {(i, j) for i, j, _ in cells if j - i in marks})
        ks = sorted(sums)
        self.t_model.set_grid(
            [[minus(sums[k]) for k in ks]] if ks else [], ["Tₖ"] if ks else [], [f"k = {minus(k)}" for k in ks],
            {(0, c): AMBER for c, k in enumerate(ks) if k in marks},
            {(0, c): f"T{subscript(k)} = {minus(sums[k])}: the sum of A_ij over the diagonal j − i = {minus(k)}"
             for c, k in enumerate(ks)},
            {(0, c) for c, k in enumerate(ks) if k in marks})

    def _source_text(self, a: DealAnalysis) -> str:
        """Where the value comes from: the reader of a number deserves to know which theorem vouches for it."""
        if a.source == CATALOGUE:
            return "from the catalogue"
        if a.source == DEFINITION:
            return "computed by the recursive definition of §7"
        if a.source == ENGINE:
            return "computed by the engine (the recursive definition of §7, level by level)"
        if a.solution is not None:
            return f"from the {a.source}"
        if a.detection is not None and a.detection.value is not None:
            return (f"by Theorem 12.1 of the multi-suit paper: χ(D) is computed in linear time (Theorem 10.1 of the "
                    f"single-suit paper) and shows the value is {a.detection.kind}")
        return ("bounds by Theorem 12.1 of the multi-suit paper: the value is neither k nor k ± 1/2, "
                "and n is beyond the engine, so it is not known exactly")

    def _h_text(self, a: DealAnalysis) -> str:
        n = a.suit.n
        o = single_suit.outcome_from_h(n, a.h)
        if a.h_lower == a.h_upper:
            where = f"Tₖ = 0 at k = {minus(a.h_lower)}" if abs(a.h_lower) < n else "one hand holds every high card"
        else:
            where = f"Tₖ changes sign between k = {minus(a.h_lower)} and {minus(a.h_upper)}"
        lines = [
            f"<b>{H_LOWER} = {minus(a.h_lower)},  {H_UPPER} = {minus(a.h_upper)}</b>: {where} "
            "(end of §5; bold diagonals of A)",
            f"<b>H = {minus(a.h)}</b> (Theorem 9.1): West takes ⌊(n+H)/2⌋ = {o.west_leads} on lead, "
            f"⌈(n+H)/2⌉ = {o.east_leads} with East on lead (Theorem 8.1)",
        ]
        q = a.quantities
        if q is not None:
            g = q.greedy_whist_outcome
            lines.append(
                f"Greedy Whist: H<sub>Greedy</sub> = {minus(q.h_greedy)}, West takes {g.west_leads} on lead, {g.east_leads} with East on lead "
                "(Theorem 6.1)"
            )
            if q.five_card_west_leads == q.five_card_east_leads:
                five = f"{player_name(q.five_card_west_leads)} wins whoever leads"
            else:
                five = "the player on lead wins"
            lines.append(f"Five-card: {five} (Theorem 7.2, tr A = T₀ = {minus(a.t_sums.get(0, 0))})")
        else:
            lines.append(f"A is shown up to n = {A_MATRIX_MAX_N}; H̄, H̲, H by the linear-time algorithm (Theorem 10.1)")
        return "<br>".join(lines)

    # -- clipboard -------------------------------------------------------------------------------
    def summary_text(self) -> str:
        a = self.analysis
        suit, o = a.suit, a.outcome
        lines = [f"{suit}  ({suit.deal.label}, n = {suit.n})", f"value    {self.value_label.text()}",
                 f"outcome  {outcome_text(o)}"]
        if a.solution is not None:
            w = " ".join(suit.name_of(c) for c in a.solution.west_leads)
            e = " ".join(suit.name_of(c) for c in a.solution.east_leads)
            lines.append(f"best leads  West: {w}   East: {e}")
        return "\n".join(lines)
