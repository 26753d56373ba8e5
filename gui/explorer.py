"""The deal explorer: one single-suit deal, its value, its α matrix, the single-suit paper's A matrix, play.

Everything shown comes from the core: the value and best moves — or, for a suit
beyond every solver, what the linear-time theory gives — from
:func:`whist_catalogue.store.solvers.answer`, the one decision the command line
shares (catalogue, recursive definition, engine, linear time), the
labeled values α_ij from :func:`whist_catalogue.theory.labeled.labeled_matrix`, the matrix
A, the sums T_k and H̄, H̲, H from :mod:`whist_catalogue.single_suit.formulas` (or the
linear-time :mod:`whist_catalogue.single_suit.linear_time` for deals too large to show A), and
play from :class:`whist_catalogue.theory.play.Play`.  The analysis runs in a worker, since
a deal beyond the catalogue may make the engine compute whole levels.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from whist_catalogue.constants import MAX_BUILD_N
from whist_catalogue.errors import WhistError
from whist_catalogue.gui.context import AppContext
from whist_catalogue.gui.models import AMBER, BLUE, GREEN, AlphaMatrixModel, AMatrixModel, DiagonalSumsModel, minus
from whist_catalogue.gui.play_panel import PlayPanel
from whist_catalogue.gui.widgets import (
    BusyBar,
    CopyTableView,
    HandEditor,
    MessageBar,
    ValueLabel,
    beside,
    cards_text,
    copy_text,
    enlarge,
    examples_button,
    fit_height,
    fit_table,
    heading,
    scrolled,
    shorten,
    shrink_to_contents,
    tricks_text,
)
from whist_catalogue.gui.analysis_view import AnalysisView
from whist_catalogue.gui.workers import LatestOnly
from whist_catalogue.single_suit import formulas as single_suit
from whist_catalogue.single_suit.linear_time import NormalLeads, ValueDetection, solve_linear
from whist_catalogue.store.solvers import CATALOGUE, DEFINITION, ENGINE, answer
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


def outcome_sentence(outcome: Outcome, n: int) -> str:
    w, e = outcome
    return (
        f"West on lead: West takes {tricks_text(w)}, East {n - w}.\n"
        f"East on lead: West takes {tricks_text(e)}, East {n - e}."
    )


class DealExplorer(AnalysisView, QWidget):
    """View 1: enter a single-suit deal (any notation, or click cards), read its value and play it."""

    analysed = Signal()
    """Emitted when an analysis has been shown (or has failed with a message)."""

    TITLE = "Deal explorer"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.analysis: DealAnalysis | None = None
        self.task = LatestOnly(context.pool, self._shown, self._failed, self._engine_step)
        self._editing = False

        # -- input -------------------------------------------------------------------------------
        self.input = QLineEdit()
        # One deal three ways (KQT/AJ9 in numbers, then as its owner string): a test checks they agree.
        self.input.setPlaceholderText(PLACEHOLDER)
        self.input.setToolTip(
            "A single-suit deal WEST/EAST in ranks (AQ/KJ, K Q 9 / A J 10), numbers (13 12 / 14 11),\n"
            "or an owner string, lowest card first (EWEW). Press Enter to show it."
        )
        self.input.setClearButtonEnabled(True)
        self.input.returnPressed.connect(self.show_text)
        self.show_button = QPushButton("&Show")
        self.show_button.clicked.connect(self.show_text)
        self.examples_button = examples_button(EXAMPLES, self.set_deal_text)
        self.copy_button = QPushButton("&Copy deal and value")
        self.copy_button.setToolTip("copy the deal, its value, outcome and best leads (Ctrl+Shift+C)")
        self.copy_button.clicked.connect(self.copy_summary)
        copy_action = QAction(self)
        copy_action.setShortcut(QKeySequence("Ctrl+Shift+C"))
        copy_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        copy_action.triggered.connect(self.copy_summary)
        self.addAction(copy_action)
        deal_label = QLabel("&Deal:")
        deal_label.setBuddy(self.input)

        input_row = QHBoxLayout()
        input_row.addWidget(deal_label)
        input_row.addWidget(self.input, 1)
        input_row.addWidget(self.show_button)
        input_row.addWidget(self.examples_button)
        input_row.addWidget(self.copy_button)
        self.input.textChanged.connect(self._text_changed)
        self.message = MessageBar()
        self.busy_bar = BusyBar()
        self.busy_bar.cancelled.connect(self.cancel_analysis)
        cancel_action = QAction(self)
        cancel_action.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        cancel_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        cancel_action.triggered.connect(self.busy_bar.cancel)
        self.addAction(cancel_action)
        self.editor = HandEditor("or click cards:")
        self.editor.changed.connect(self._editor_changed)

        # -- summary -------------------------------------------------------------------------
        self.value_label = ValueLabel("—", 30)
        self.value_label.setToolTip("val(D): the value of the deal in the semigroup V (multi-suit paper §6)")
        self.source_label = QLabel()
        self.source_label.setWordWrap(True)
        self.source_label.setStyleSheet("color: #4b5563;")
        self.deal_info = QLabel()
        self.deal_info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.deal_info.setWordWrap(True)
        self.outcome_label = QLabel()
        self.outcome_label.setWordWrap(True)
        self.leads_label = QLabel()
        self.leads_label.setWordWrap(True)
        summary = QGroupBox("Value")
        s = QVBoxLayout(summary)
        s.addWidget(self.value_label)
        s.addWidget(self.source_label)
        s.addWidget(self.deal_info)
        s.addWidget(heading("Outcome (χ = ρ(value))"))
        s.addWidget(self.outcome_label)
        s.addWidget(heading("Best leads"))
        s.addWidget(self.leads_label)
        s.addStretch(1)
        help_label = QLabel(HELP)
        help_label.setWordWrap(True)
        s.addWidget(help_label)

        # -- α matrix -----------------------------------------------------------------------
        self.alpha_model = AlphaMatrixModel(self)
        self.alpha_view = CopyTableView()
        self.alpha_view.setModel(self.alpha_model)
        fit_table(self.alpha_view)
        enlarge(self.alpha_view, 2)
        self.alpha_note = QLabel()
        self.alpha_note.setWordWrap(True)
        legend = QLabel(
            "West plays W<sub>i</sub> (row), East plays E<sub>j</sub> (column); (P, x): P wins the trick, "
            "x is West's value counting it.  ★ a best lead.  Best reply: "
            f"<span style='background:{BLUE.name()}'>&nbsp;East's&nbsp;</span> "
            f"<span style='background:{AMBER.name()}'>&nbsp;West's&nbsp;</span> "
            f"<span style='background:{GREEN.name()}'>&nbsp;both&nbsp;</span>"
        )
        legend.setWordWrap(True)
        alpha_box = QGroupBox("Labeled values αᵢⱼ (multi-suit paper §7.2)")
        a = QVBoxLayout(alpha_box)
        a.addWidget(self.alpha_view)
        a.addWidget(self.alpha_note)
        a.addWidget(legend)
        a.addStretch(1)

        # -- the single-suit paper ---------------------------------------------------------
        self.a_model = AMatrixModel(self)
        self.a_view = CopyTableView()
        self.a_view.setModel(self.a_model)
        fit_table(self.a_view)
        enlarge(self.a_view, 1)
        self.t_model = DiagonalSumsModel(self)
        self.t_view = CopyTableView()
        self.t_view.setModel(self.t_model)
        fit_table(self.t_view)
        for view in (self.alpha_view, self.a_view, self.t_view):
            shrink_to_contents(view)
        self.h_label = QLabel()
        self.h_label.setWordWrap(True)
        self.h_label.setTextFormat(Qt.TextFormat.RichText)
        self.h_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        paper_box = QGroupBox("Single-suit paper: the matrix A, Tₖ, H̄, H̲, H")
        p = QVBoxLayout(paper_box)
        p.addWidget(self.a_view)
        p.addWidget(self.t_view)
        p.addWidget(self.h_label)
        p.addStretch(1)

        # -- play ----------------------------------------------------------------------------
        self.play_panel = PlayPanel(lambda: self.context.solver, multi=False)
        play_box = QGroupBox("Play it out: click a card, the app answers")
        QVBoxLayout(play_box).addWidget(self.play_panel)

        top = QSplitter(Qt.Orientation.Horizontal)
        summary_area = scrolled(summary)
        summary_area.setMinimumWidth(250)  # the value, its source and the outcome stay readable at 1000 pixels
        top.addWidget(summary_area)
        top.addWidget(scrolled(alpha_box))
        top.addWidget(scrolled(paper_box))
        top.setStretchFactor(0, 2)
        top.setStretchFactor(1, 3)
        top.setStretchFactor(2, 3)
        top.setChildrenCollapsible(False)
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(top)
        body.addWidget(scrolled(play_box))
        body.setStretchFactor(0, 4)
        body.setStretchFactor(1, 3)
        body.setChildrenCollapsible(False)
        top.setSizes([300, 500, 560])
        body.setSizes([400, 460])
        self.results = body
        """Everything shown about the deal: greyed while a new deal is valued, cleared after bad input."""

        layout = QVBoxLayout(self)
        layout.addLayout(input_row)
        layout.addLayout(beside(self.editor, self.message, self.busy_bar))
        layout.addWidget(body, 1)
        self._clear()

    # -- examples --------------------------------------------------------------------------------
    def load_example(self) -> None:
        """KQT/AJ9 with the theory's moves marked and the first trick played (for the screenshot)."""
        self.set_deal_text("KQT/AJ9")
        self._after_analysis(self._example_play)

    def _example_play(self) -> None:
        panel = self.play_panel
        panel.hints.setChecked(True)
        if panel.play is not None and not panel.play.finished:
            panel.app_move()

    def _after_analysis(self, action) -> None:
        if not self.busy:
            action()
            return

        def once() -> None:
            self.analysed.disconnect(once)
            action()

        self.analysed.connect(once)

    # -- input -----------------------------------------------------------------------------------
    def set_deal_text(self, text: str) -> None:
        """Put ``text`` in the input and show it (what a user does by typing and pressing Enter)."""
        self.input.setText(text)
        self.show_text()

    @Slot()
    def show_text(self) -> None:
        text = self.input.text()
        try:
            suit = parse_suit(text)
        except WhistError as exc:
            self._no_deal()
            self.editor.clear()  # the card picker shows no deal beside the input at fault, least of all the last one
            self.message.show_error(str(exc))
            return
        self._sync_editor(suit)
        self.show_suit(suit)

    @Slot(str)
    def _text_changed(self, text: str) -> None:
        # Emptying the field (its clear button, or deleting the text) empties everything the deal showed.
        if not text.strip() and not self._editing:
            self.editor.clear()
            self._no_deal()
            self.message.clear_message()

    @Slot()
    def _editor_changed(self) -> None:
        west, east = self.editor.hand("W"), self.editor.hand("E")
        self._editing = True
        try:
            self.input.setText(self.editor.text() if west or east else "")
        finally:
            self._editing = False
        if not west and not east:
            self._no_deal()
            self.message.show_info("Click cards into West's and East's hands, or type a deal above.")
            return
        if len(west) != len(east):
            self._no_deal()
            self.message.show_info(
                f"West holds {cards_text(len(west))}, East {len(east)}: both hands must hold the same number."
            )
            return
        try:
            suit = parse_suit(self.input.text())
        except WhistError as exc:
            self._no_deal()
            self.message.show_error(str(exc))
            return
        self.show_suit(suit)

    def _sync_editor(self, suit: Suit) -> None:
        fits = suit.notation is Notation.RANKS and self.editor.set_hands(suit.west, suit.east)
        if not fits:
            self.editor.clear()
        self.editor.setEnabled(True)

    # -- analysis ------------------------------------------------------------------------------
    def show_suit(self, suit: Suit) -> None:
        """Analyse ``suit`` in a worker and show the result; meanwhile the previous deal's results are greyed."""
        self.start_analysis(f"Valuing {shorten(str(suit))}", analyse_deal, suit, self.context.solver)

    # -- display ---------------------------------------------------------------------------------
    def _clear(self) -> None:
        self.value_label.setText("—")
        self.source_label.setText("")
        self.alpha_note.setText("")
        self.deal_info.setText("Enter a deal above.")
        self.deal_info.setToolTip("")
        self.outcome_label.setText("")
        self.leads_label.setText("")
        self.alpha_model.set_matrix(None, None, ())
        self.a_model.set_matrix(None, ())
        self.t_model.set_sums({})
        self.h_label.setText("")

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
        # A long deal is shortened here (the full text is in the field above and in the tooltip):
        # a label of n = 300 would otherwise be one unbreakable word as wide as 5,000 pixels.
        self.deal_info.setText(f"{shorten(str(suit), 40)}\nlabel {shorten(deal.label, 40)}  ·  n = {deal.n}{key}")
        self.deal_info.setToolTip(f"{suit}\nlabel {deal.label}" if deal.n > 12 else "")
        self.outcome_label.setText(outcome_sentence(a.outcome, deal.n))
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
        self.a_model.set_matrix(suit, a.a_matrix, marks)
        self.t_model.set_sums(a.t_sums, marks)
        fit_height(self.t_view)
        self.h_label.setText(self._h_text(a))
        self.play_panel.set_deal((suit,) if sol is not None else None)

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
                five = f"{self._name(q.five_card_west_leads)} wins whoever leads"
            else:
                five = "the player on lead wins"
            lines.append(f"Five-card: {five} (Theorem 7.2, tr A = T₀ = {minus(a.t_sums.get(0, 0))})")
        else:
            lines.append(f"A is shown up to n = {A_MATRIX_MAX_N}; H̄, H̲, H by the linear-time algorithm (Theorem 10.1)")
        return "<br>".join(lines)

    @staticmethod
    def _name(player: str) -> str:
        return "West" if player == "W" else "East"

    # -- clipboard -------------------------------------------------------------------------------
    def summary_text(self) -> str:
        a = self.analysis
        if a is None:
            return ""
        suit = a.suit
        o = a.outcome
        lines = [f"{suit}  ({suit.deal.label}, n = {suit.n})", f"value    {self.value_label.text()}",
                 f"outcome  West takes {o.west_leads} with West on lead, {o.east_leads} with East on lead"]
        if a.solution is not None:
            w = " ".join(suit.name_of(c) for c in a.solution.west_leads)
            e = " ".join(suit.name_of(c) for c in a.solution.east_leads)
            lines.append(f"best leads  West: {w}   East: {e}")
        return "\n".join(lines)

    @Slot()
    def copy_summary(self) -> None:
        text = self.summary_text()
        if text:
            copy_text(text)
