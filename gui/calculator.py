"""The multi-suit calculator: add the suits' values, read the outcome and the lead, play the deal out.

The suits' values come from the solver, the sum, the outcome ρ(Σ val)
(Theorem 9.1 of the multi-suit paper) and each side's first lead with the
clause of §10.4 that chose it from :func:`whist_catalogue.theory.multisuit.analyse`; play
is :class:`whist_catalogue.theory.play.Play` through :class:`whist_catalogue.gui.play_panel.PlayPanel`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from whist_catalogue.gui.analysis_view import AnalysisView
from whist_catalogue.gui.context import AppContext
from whist_catalogue.gui.models import SuitRow, SuitValuesModel
from whist_catalogue.gui.widgets import (
    CopyTableView,
    HandEditor,
    ValueLabel,
    cards_text,
    enlarge,
    fit_table,
    heading,
    scrolled,
    suit_symbol,
    wrapped,
)
from whist_catalogue.theory.deals import Notation, Suit, parse_multisuit
from whist_catalogue.theory.labeled import Player
from whist_catalogue.theory.multisuit import MultiSuitAnalysis, analyse

__all__ = ["MultiSuitCalculator", "DEAL_28", "EXAMPLES"]

DEAL_28 = "KQT98/AJ765, AK9/QJT, AJ9753/KQT864, KQT86/AJ975"
"""Deal (28) of the multi-suit paper, §11.4: "West to play and take eleven tricks"."""

EXAMPLES = (
    (DEAL_28, "deal (28), multi-suit paper §11.4: a race to knock out stoppers"),
    ("AQ/KJ, AKJ/QT9, AJ9/KQT", "three numbers: lead from the most complex"),
    ("K/A, A/K", "an exit for each side: ε₀ + (1 − ε₀) = 1 ± ε₀"),
    ("AQ/KJ; 2/3", "West's exit in a small suit turns 1 + 1/2 into two tricks"),
)

MAX_EDITORS = 6
"""Hand editors shown; deals with more suits are edited as text."""

CLAUSES = {"i": "(i)", "ii": "(ii)", "iii": "(iii)"}

HELP = (
    "<span style='color:#4b5563'>Theorem 9.1: the outcome of the whole deal is the rounding ρ of the sum of the "
    "suits' values.  West's lead (§10.4; East's is the mirror image): (i) a suit whose value has a negative "
    "infinitesimal — attack East's exit; (ii) otherwise a suit with a positive infinitesimal — exit; "
    "(iii) if every suit is a number, a suit at least as complex as the sum (largest denominator) — then a best "
    "lead of that suit.</span>"
)


_SIDES: tuple[tuple[Player, str], ...] = (("W", "West"), ("E", "East"))


class MultiSuitCalculator(AnalysisView[tuple[Suit, ...]]):
    """View 2: several suits; each suit's value, the sum, the outcome, the right lead, and play."""

    TITLE = "Multi-suit calculator"
    EXAMPLES = EXAMPLES
    EXAMPLE_MOVES = 4
    PLACEHOLDER = "AQ/KJ, AKJ/QT9, AJ9/KQT   (suits separated by , or ;)"
    TOOLTIP = "A multi-suit deal: single-suit deals in any notation of docs/spec.md §2, separated by , or ;"
    SHOW = "&Add up"
    COPY = "&Copy deal and values"
    MULTI = True

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self.editors: list[HandEditor] = []
        # The suit buttons sit with the deal, not beside the card pickers: there they took the width
        # a second column of suits needs in a 1000-pixel window.
        self.add_suit_button = QPushButton("+ suit")
        self.add_suit_button.setToolTip("add an empty suit to edit by hand")
        self.add_suit_button.clicked.connect(self.add_suit)
        self.remove_suit_button = QPushButton("− suit")
        self.remove_suit_button.setToolTip("remove the last suit")
        self.remove_suit_button.clicked.connect(self.remove_suit)
        self.editors_box = QGroupBox("Or click the cards of each suit")
        self.editors_grid = QGridLayout()
        self.editors_grid.setHorizontalSpacing(10)
        self.editors_grid.setVerticalSpacing(6)
        editors_layout = QHBoxLayout(self.editors_box)
        editors_layout.addLayout(self.editors_grid)
        editors_layout.addStretch(1)
        # On a narrow screen the editors scroll sideways rather than widen the window.
        self.editors_area = scrolled(self.editors_box)
        self.editors_area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        play_box = QGroupBox("Play it out against the app, or watch it play both sides")
        QVBoxLayout(play_box).addWidget(self.play_panel)
        body = QSplitter(Qt.Orientation.Horizontal)
        body.addWidget(scrolled(self._values_box()))
        self.play_area = scrolled(play_box)
        body.addWidget(self.play_area)
        # The play needs two hands, the table and the list of tricks side by side: it gets two thirds.
        body.setStretchFactor(0, 1)
        body.setStretchFactor(1, 2)
        body.setChildrenCollapsible(False)
        self.lay_out(self.editors_area, body, self.add_suit_button, self.remove_suit_button)
        self._set_editor_count(1)

    def _values_box(self) -> QGroupBox:
        """Each suit's value, the sum, the outcome and each side's first lead."""
        self.suits_model = SuitValuesModel(self)
        self.suits_view = CopyTableView()
        self.suits_view.setModel(self.suits_model)
        fit_table(self.suits_view, stretch_last=True)
        enlarge(self.suits_view, 1)
        self.suits_view.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.suits_view.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        self.sum_label = ValueLabel("—", 28)
        self.sum_label.setToolTip("the sum in V of the suits' values (multi-suit paper §7.1)")
        self.outcome_label = wrapped()
        self.lead_labels = {p: wrapped() for p in ("W", "E")}
        box = QGroupBox("Values")
        column = QVBoxLayout(box)
        # The sum under its heading, not beside it: so it fits the values' third of a 1000-pixel window.
        for widget in (self.suits_view, heading("Sum of the values"), self.sum_label,
                       heading("Outcome (Theorem 9.1: χ = ρ(sum))"), self.outcome_label,
                       heading("First lead (the rule of §10.4, then a best lead of that suit)"), *self.lead_labels.values()):
            column.addWidget(widget)
        column.addStretch(1)
        column.addWidget(wrapped(HELP))
        return box

    # -- input -----------------------------------------------------------------------------------
    def parse(self, text: str) -> tuple[Suit, ...]:
        return parse_multisuit(text)

    def _sync_editors(self, suits: tuple[Suit, ...] | None) -> None:
        if suits is None:
            self._set_editor_count(1)
            self.editors[0].clear()
            return
        if len(suits) > MAX_EDITORS or any(s.notation is not Notation.RANKS for s in suits):
            self.editors_box.setTitle("Or click the cards of each suit (only for rank notation, up to six suits)")
            self._set_editor_count(0)
            return
        self.editors_box.setTitle("Or click the cards of each suit")
        self._set_editor_count(len(suits))
        for editor, suit in zip(self.editors, suits):
            editor.set_hands(suit.west, suit.east)

    def _set_editor_count(self, count: int) -> None:
        while len(self.editors) > count:
            editor = self.editors.pop()
            editor.title.setParent(None)
            editor.title.deleteLater()
            editor.setParent(None)
            editor.deleteLater()
        while len(self.editors) < count:
            editor = HandEditor()
            editor.title.setStyleSheet("font-size: 18pt;")
            editor.changed.connect(self._editor_changed)
            self.editors.append(editor)
        # lay the editors out two to a row
        while self.editors_grid.count():
            self.editors_grid.takeAt(0)
        for k, editor in enumerate(self.editors):
            editor.title.setText(suit_symbol(k, max(len(self.editors), 1)))
            self.editors_grid.addWidget(editor.title, k // 2, 3 * (k % 2))
            self.editors_grid.addWidget(editor, k // 2, 3 * (k % 2) + 1)
        self.editors_grid.setColumnMinimumWidth(2, 24)
        if hasattr(self, "editors_area"):
            self._fit_editors_area()
            QTimer.singleShot(0, self._fit_editors_area)  # again once the new editors are laid out
        self.add_suit_button.setEnabled(len(self.editors) < MAX_EDITORS)
        self.remove_suit_button.setEnabled(len(self.editors) > 1)

    def _fit_editors_area(self) -> None:
        self.editors_grid.activate()
        layout = self.editors_box.layout()
        if layout is not None:
            layout.activate()
        height = self.editors_box.sizeHint().height()
        if self.editors_area.width() < self.editors_box.sizeHint().width():
            height += self.editors_area.horizontalScrollBar().sizeHint().height()
        self.editors_area.setFixedHeight(height)

    def resizeEvent(self, event) -> None:  # Qt override
        super().resizeEvent(event)
        self._fit_editors_area()

    @Slot()
    def add_suit(self) -> None:
        self._set_editor_count(len(self.editors) + 1)

    @Slot()
    def remove_suit(self) -> None:
        if len(self.editors) > 1:
            self._set_editor_count(len(self.editors) - 1)
            self._editor_changed()

    @Slot()
    def _editor_changed(self) -> None:
        self.write_field(", ".join(e.text() for e in self.editors))
        for k, editor in enumerate(self.editors):
            w, e = len(editor.hand("W")), len(editor.hand("E"))
            if w == 0 and e == 0:
                self._no_deal()
                self.message.show_info(f"Suit {k + 1} is empty: click its cards, or remove it.")
                return
            if w != e:
                self._no_deal()
                self.message.show_info(f"Suit {k + 1}: West holds {cards_text(w)}, East {e}; both must hold the same number.")
                return
        suits = self.parse_field()
        if suits is not None:
            self.show_deal(suits)

    # -- analysis ----------------------------------------------------------------------------------
    def show_deal(self, suits: tuple[Suit, ...]) -> None:
        """Value the suits in a worker; meanwhile the previous deal's results are greyed."""
        self.start_analysis("Valuing the suits", analyse, suits, self.context.solver)

    # -- display -------------------------------------------------------------------------------------
    def _clear(self) -> None:
        self.suits_model.set_rows([])
        self.suits_view.hide()  # an empty table is a white box that looks broken
        self.sum_label.setText("—")
        self.outcome_label.setText("Enter a deal above.")
        for label in self.lead_labels.values():
            label.setText("")

    def _fill(self, a: MultiSuitAnalysis) -> None:
        count = len(a.suits)
        west_suit, east_suit = a.west_lead.suit, a.east_lead.suit
        rows = []
        for i, (suit, sol) in enumerate(zip(a.suits, a.solutions)):
            chosen = [name for name, s in (("West", west_suit), ("East", east_suit)) if s == i]
            rows.append(SuitRow(suit_symbol(i, count), suit, sol.value, " and ".join(chosen)))
        self.suits_model.set_rows(rows)
        self.suits_view.show()
        self.suits_view.resizeColumnsToContents()
        self.sum_label.setText(a.value.text())
        tricks = sum(s.n for s in a.suits)
        o = a.outcome
        self.outcome_label.setText(
            f"West on lead: West takes {o.west_leads} of the {tricks} tricks, East {tricks - o.west_leads}.\n"
            f"East on lead: West takes {o.east_leads}, East {tricks - o.east_leads}."
        )
        for p, name in _SIDES:
            lead = a.lead(p)
            card = f"{suit_symbol(lead.suit, count)}{a.lead_name(p)}"
            self.lead_labels[p].setText(
                f"<b>{name} leads {card}</b> — {lead.rule.describe(p)} "
                f"<span style='color:#6b7280'>(clause {CLAUSES[lead.rule.value]} of §10.4)</span>"
            )
        self.play_panel.set_deal(a.suits)

    # -- clipboard --------------------------------------------------------------------------------------
    def summary_text(self) -> str:
        a = self.analysis
        count = len(a.suits)
        lines = [", ".join(str(s) for s in a.suits)]
        for i, (suit, sol) in enumerate(zip(a.suits, a.solutions)):
            lines.append(f"  {suit_symbol(i, count)} {suit}  {sol.value.text()}")
        o = a.outcome
        lines.append(f"sum      {a.value.text()}")
        lines.append(f"outcome  West takes {o.west_leads} with West on lead, {o.east_leads} with East on lead")
        for p, name in _SIDES:
            lead = a.lead(p)
            lines.append(f"{name} leads {suit_symbol(lead.suit, count)}{a.lead_name(p)}: {lead.rule.describe(p)}")
        return "\n".join(lines)
