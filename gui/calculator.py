"""The multi-suit view: any two-person deal — uneven suits, voids, a trump suit — its outcome, every first card's
result, and play against the app.

Every answer is :func:`whist_catalogue.twohand.solver.solve`'s — through the catalogue's table of two-hand endings
when it reaches beyond the shipped one (:meth:`whist_catalogue.store.endings.CatalogueEndings.solve`, as the command
line's ``outcome`` answers) — and says where it comes from: a deal whose suits are all even is the theory's (nobody
can ever ruff or discard, so trumps change nothing) — each suit's value, the sum, the outcome ρ(Σ val) (Theorem 9.1
of the multi-suit paper) and each side's first lead with the clause of §10.4 that chose it (the solution's
:class:`~whist_catalogue.theory.multisuit.Evaluation`); any other deal has no value in V, and its outcome, results
and first leads come from the catalogue's table of endings when its levels hold the deal, else from the exact
search.  Its text is the command line's
(:meth:`~whist_catalogue.twohand.solver.TwoHandSolution.text`).  Play is :class:`whist_catalogue.twohand.play.Play`
through :class:`whist_catalogue.gui.play_panel.PlayPanel`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
)

from whist_catalogue.errors import WhistError, counted
from whist_catalogue.gui.analysis_view import AnalysisView
from whist_catalogue.gui.context import AppContext
from whist_catalogue.gui.models import SuitRow, SuitValuesModel
from whist_catalogue.gui.widgets import (
    HandEditor,
    ValueLabel,
    button,
    card_label,
    enlarge,
    fitted_table,
    heading,
    scrolled,
    split,
    suit_symbol,
    wrapped,
)
from whist_catalogue.theory.answers import OutcomeAnswer, outcome_lines, source_text
from whist_catalogue.theory.deals import SUIT_SYMBOLS, Notation, TwoHandDeal, parse_two_hand
from whist_catalogue.theory.labeled import Player
from whist_catalogue.theory.moves import CardResult
from whist_catalogue.theory.small_suits import SuitTable
from whist_catalogue.theory.solution import Solver
from whist_catalogue.twohand.position import Position

if TYPE_CHECKING:
    from whist_catalogue.store.endings import CatalogueEndings
    from whist_catalogue.twohand.solver import TwoHandSolution

__all__ = ["MultiSuitCalculator", "answer_deal", "DEAL_28", "EXAMPLES"]

DEAL_28 = "KQT98/AJ765, AK9/QJT, AJ9753/KQT864, KQT86/AJ975"
"""Deal (28) of the multi-suit paper, §11.4: "West to play and take eleven tricks"."""

TRUMP_EXAMPLE = "trumps ♠: Q74/62, -/QJ942, AQJ6432/KT9, 763/J94"
"""A 13-card deal with a void and trumps, where the lead is worth three tricks: the screenshot of the search's
answers."""

EXAMPLES = (
    (DEAL_28, "deal (28), multi-suit paper §11.4: a race to knock out stoppers"),
    ("AQ/KJ, AKJ/QT9, AJ9/KQT", "three numbers: lead from the most complex"),
    ("K/A, A/K", "an exit for each side: ε₀ + (1 − ε₀) = 1 ± ε₀"),
    ("AQ/KJ; 2/3", "West's exit in a small suit turns 1 + 1/2 into two tricks"),
    (TRUMP_EXAMPLE, "a void and trumps, by search: West ruffs hearts; the lead is worth three tricks"),
    ("trumps ♥: AK2/-, 5/QJ43", "East ruffs both top spades and keeps West to nothing"),
    ("AK2/QJ, 5/T4", "uneven suits without trumps: discards"),
)

MAX_EDITORS = 6
"""Hand editors shown; deals with more suits are edited as text."""

HELP = (
    "<span style='color:#4b5563'>A deal whose suits are all even is the theory's (trumps or not: nobody can "
    "ever ruff): Theorem 9.1, the outcome of the whole deal is the rounding ρ of the sum of the suits' values.  "
    "West's lead (§10.4; East's is the mirror image): (i) a suit whose value has a negative infinitesimal — "
    "attack East's exit; (ii) otherwise a suit with a positive infinitesimal — exit; (iii) if every suit is a "
    "number, a suit at least as complex as the sum (largest denominator) — then a best lead of that suit.  A deal "
    "with an uneven suit (a void: ruffs and discards) has no value in V: the exact search answers it.</span>"
)


_SIDES: tuple[tuple[Player, str], ...] = (("W", "West"), ("E", "East"))
_FOUND_BY = {"search": "by search", "catalogue": "from the catalogue's table of endings"}


def answer_deal(deal: TwoHandDeal, solver: Solver, endings: CatalogueEndings | None = None) -> TwoHandSolution:
    """The deal's answer (in a worker): the theory's with ``solver``'s values (the catalogue, or the engine with its
    plan and progress), else the catalogue's table of ``endings`` where it holds the deal, else the search's."""
    from whist_catalogue.twohand.solver import solve  # loads Numba's search: here, in the worker

    solution = (endings.solve if endings is not None else solve)(deal, table=SuitTable(solver), line=False)
    if solution.source != "theory":
        # The search after a lead is another kernel, which Numba loads on its first call (half a second): loaded
        # here, so that the first card played against the app does not stall the window.
        first = solution.answers[0].moves[0]
        solve(Position(deal, "W", (first.suit, first.card)), line=False)
    return solution


class MultiSuitCalculator(AnalysisView[TwoHandDeal]):
    """View 2: any two-person deal; its outcome, each first card's result, where they come from, and play; for a
    deal of the theory each suit's value, the sum and the right lead."""

    TITLE = "Multi-suit calculator"
    EXAMPLES = EXAMPLES
    EXAMPLE_MOVES = 4
    PLACEHOLDER = "AQ/KJ, AKJ/QT9, AJ9/KQT   or   trumps ♥: AK2/-, 5/QJ43"
    TOOLTIP = ("Any two-person deal (docs/spec.md §2): suits in any notation separated by , or ;, each split in any "
               "way (a void: -), both hands of the same size; a trump suit named first, trumps ♥: …")
    SHOW = "&Add up"
    COPY = "&Copy deal and values"
    MULTI = True

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.editors: list[HandEditor] = []
        # The suit buttons sit with the deal, not beside the card pickers: there they took the width
        # a second column of suits needs in a 1000-pixel window.
        self.add_suit_button = button("+ suit", "add an empty suit to edit by hand", self.add_suit)
        self.remove_suit_button = button("− suit", "remove the last suit", self.remove_suit)
        self.editors_box = QGroupBox()
        self._pickers_note = ""
        """Why the card pickers cannot draw the deal, or nothing (the box's title says it, with each hand's count)."""
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
        self.play_area = scrolled(play_box)
        # The play needs two hands, the table and the list of tricks side by side: it gets two thirds.
        body = split(scrolled(self._values_box()), self.play_area, stretch=(1, 2))
        # The trump suit is the deal's, beside it: a row of its own took the height the play needs at 1000 × 700.
        self.trump_box = QComboBox()
        self.trump_box.setToolTip("the trump suit: none, or one of the deal's suits (the text names it too: trumps ♥: …)")
        self.trump_box.activated.connect(self._trump_chosen)
        trumps = QLabel("&Trumps:")
        trumps.setBuddy(self.trump_box)
        self.lay_out(self.editors_area, body, self.add_suit_button, self.remove_suit_button, trumps, self.trump_box)
        self._set_editor_count(1)
        self._show_counts()


    def _values_box(self) -> QGroupBox:
        """Where the answer comes from, each suit's value, the sum, the outcome, each side's first lead and every
        first card's result."""
        self.source_label = wrapped()
        self.suits_model = SuitValuesModel(self)
        self.suits_view = fitted_table(self.suits_model, stretch_last=True)
        enlarge(self.suits_view, 1)
        self.suits_view.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.suits_view.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        self.sum_heading = heading("Sum of the values")
        self.sum_label = ValueLabel("—", 28)
        self.sum_label.setToolTip("the sum in V of the suits' values (multi-suit paper §7.1)")
        self.outcome_heading, self.outcome_label = heading("Outcome"), wrapped()
        self.lead_heading = heading("First lead")
        self.lead_labels = {p: wrapped() for p in ("W", "E")}
        self.cards_labels = {p: wrapped() for p in ("W", "E")}
        box = QGroupBox("Values")
        column = QVBoxLayout(box)
        # The sum under its heading, not beside it: so it fits the values' third of a 1000-pixel window.
        for widget in (self.source_label, self.suits_view, self.sum_heading, self.sum_label, self.outcome_heading,
                       self.outcome_label, self.lead_heading, *self.lead_labels.values(),
                       heading("Every first card → West's tricks after it (★ best)"), *self.cards_labels.values()):
            column.addWidget(widget)
        column.addStretch(1)
        column.addWidget(wrapped(HELP))
        return box

    # -- input -----------------------------------------------------------------------------------
    def parse(self, text: str) -> TwoHandDeal:
        return parse_two_hand(text)

    def _sync_editors(self, deal: TwoHandDeal | None) -> None:
        if deal is None:
            self._pickers_note = ""
            self._set_editor_count(1)
            self.editors[0].clear()
            self._set_trumps(1, None)
            self._show_counts()
            return
        if len(deal.suits) > MAX_EDITORS or any(s.notation is not Notation.RANKS for s in deal.suits):
            self._pickers_note = " (only for rank notation, up to six suits)"
            self._set_editor_count(0)
        else:
            self._pickers_note = ""
            self._set_editor_count(len(deal.suits))
            for editor, suit in zip(self.editors, deal.suits):
                editor.set_hands(suit.west, suit.east)
        self._set_trumps(len(deal.suits), deal.trump)
        self._show_counts(deal.hand_sizes)

    def _set_trumps(self, count: int, trump: int | None) -> None:
        """The selector offers no trumps and each of ``count`` suits, ``trump`` chosen (a user's choice only fires
        ``activated``: nothing here asks for an answer)."""
        box = self.trump_box
        box.clear()
        box.addItem("none", None)
        for i in range(count):
            box.addItem(suit_symbol(i, count), i)
        box.setCurrentIndex(0 if trump is None or trump >= count else trump + 1)

    def _show_counts(self, sizes: tuple[int, int] | None = None) -> None:
        """Each hand's cards in all (``sizes``, or the editors'), in the pickers' title: red while they differ."""
        if sizes is None:
            sizes = (sum(len(e.hand("W")) for e in self.editors), sum(len(e.hand("E")) for e in self.editors))
        west, east = sizes
        self.editors_box.setTitle(f"Or click the cards of each suit{self._pickers_note} — West holds"
                                  f" {counted(west, 'card')}, East {counted(east, 'card')}")
        self.editors_box.setStyleSheet("" if west == east else "QGroupBox::title { color: #b91c1c; }")

    def _set_editor_count(self, count: int) -> None:
        while len(self.editors) > count:
            editor = self.editors.pop()
            for widget in (editor.title, editor):
                widget.setParent(None)
                widget.deleteLater()
        while len(self.editors) < count:
            editor = HandEditor(even=False)
            editor.title.setStyleSheet("font-size: 18pt;")
            editor.changed.connect(self._editor_changed)
            self.editors.append(editor)
        if count:  # the trump suit stays chosen while the deal has it
            self._set_trumps(count, self.trump_box.currentData())
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
    def _trump_chosen(self) -> None:
        """The user chose a trump suit: the text names it, and the deal is answered again."""
        try:
            deal = self.parse(self.input.text())
        except WhistError:
            if any(e.hand("W") or e.hand("E") for e in self.editors):
                self._editor_changed()  # cards clicked into hands of different sizes: the trump suit joins them
            else:
                self.show_text()  # the text's own error, said again
            return
        try:
            deal = TwoHandDeal(deal.suits, self.trump_box.currentData())
        except WhistError as exc:  # a suit of the deal before the text was edited
            self.message.show_error(str(exc))
            return
        self.set_deal_text(deal.text())

    @Slot()
    def _editor_changed(self) -> None:
        trump, count = self.trump_box.currentData(), len(self.editors)
        body = ", ".join(e.text() for e in self.editors)
        if trump is not None:  # named as a deal's text names it: by symbol, by number past four suits
            body = f"trumps {SUIT_SYMBOLS[trump] if count <= len(SUIT_SYMBOLS) else trump + 1}: {body}"
        self.write_field(body)
        self._show_counts()
        for k, editor in enumerate(self.editors):
            if not editor.hand("W") and not editor.hand("E"):
                self._no_deal()
                self.message.show_info(f"Suit {k + 1} is empty: click its cards, or remove it.")
                return
        west, east = (sum(len(e.hand(p)) for e in self.editors) for p in ("W", "E"))
        if west != east:
            self._no_deal()
            self.message.show_info(f"West holds {counted(west, 'card')}, East {counted(east, 'card')}: both hands "
                                   "must hold the same number — click a card into the shorter hand or out of the longer.")
            return
        deal = self.parse_field()
        if deal is not None:
            self.show_deal(deal)

    # -- analysis ----------------------------------------------------------------------------------
    def show_deal(self, deal: TwoHandDeal) -> None:
        """Answer the deal in a worker; meanwhile the previous deal's results are greyed."""
        try:
            endings = self.context.endings()
        except WhistError as exc:  # the catalogue's table found damaged: named, never an answer
            self._failed(exc)
            return
        subject = "Valuing the suits" if deal.symmetric else "Searching the deal"
        self.start_analysis(subject, answer_deal, deal, self.context.solver, endings)

    # -- display -------------------------------------------------------------------------------------
    def _clear(self) -> None:
        self.suits_model.set_rows([])
        self.suits_view.hide()  # an empty table is a white box that looks broken
        self.source_label.setText("")
        self.sum_label.setText("—")
        for widget in (self.sum_heading, self.sum_label):
            widget.hide()
        self.outcome_heading.setText("Outcome")
        self.lead_heading.setText("First lead")
        self.outcome_label.setText("Enter a deal above.")
        for label in (*self.lead_labels.values(), *self.cards_labels.values()):
            label.setText("")

    def _fill(self, solution: TwoHandSolution) -> None:
        deal, record, found = solution.position.deal, solution.record(), solution.evaluation
        assert isinstance(record, OutcomeAnswer)  # a whole deal
        count = len(deal.suits)
        theory = found is not None
        counters = "" if theory else (f"<br><span style='color:#6b7280'>{solution.nodes:,} positions searched,"
                                      f" {solution.theory_leaves:,} of them answered by Theorem 9.1, and"
                                      f" {solution.endings:,} endings looked up</span>")
        self.source_label.setText(f"<b>Answered {source_text(solution.source, deal.trump, count)}.</b>{counters}")
        values = found.suit_values if found is not None else (None,) * count
        rows = []
        for i, (suit, value) in enumerate(zip(deal.suits, values)):
            name = suit_symbol(i, count) + (" trumps" if i == deal.trump else "")
            by = " and ".join(side for (_, side), lead in zip(_SIDES, (record.west, record.east)) if lead[0] == i)
            rows.append(SuitRow(name, suit, value, by))
        self.suits_model.set_rows(rows)
        for column in (1, 2):  # the value and the suit's outcome alone: only the theory has them
            self.suits_view.setColumnHidden(column, not theory)
        self.suits_view.show()
        self.suits_view.resizeColumnsToContents()
        for widget in (self.sum_heading, self.sum_label):
            widget.setVisible(theory)
        self.sum_label.setText(solution.value.text() if solution.value is not None else "—")
        tricks, o = deal.n, record.outcome
        found_by = _FOUND_BY.get(solution.source, "")
        self.outcome_heading.setText("Outcome (Theorem 9.1: χ = ρ(sum))" if theory else f"Outcome ({found_by})")
        self.outcome_label.setText(outcome_lines(o, tricks))
        self.lead_heading.setText("First lead (the rule of §10.4, then a best lead of that suit)" if theory
                                  else f"First lead (the first best card in the order written, {found_by})")
        for (p, name), (led, card, why) in zip(_SIDES, (record.west, record.east)):
            said = f"<b>{name} leads {card_label(led, count, card)}</b> — {why}"
            if found is not None:
                said += f" <span style='color:#6b7280'>(clause ({found.lead(p).rule.value}) of §10.4)</span>"
            self.lead_labels[p].setText(said)
            self.cards_labels[p].setText(f"{name} on lead: {self._cards_text(deal, solution.answer(p).moves, p)}")
        self.play_panel.set_deal(deal.suits, deal.trump)

    @staticmethod
    def _card(deal: TwoHandDeal, r: CardResult) -> str:
        return card_label(r.suit, len(deal.suits), deal.suits[r.suit].card_name(r.card))

    def _cards_text(self, deal: TwoHandDeal, moves: tuple[CardResult, ...], p: Player) -> str:
        """Each legal first card with West's tricks after it, the best in bold with a star."""
        best = (max if p == "W" else min)(r.west_tricks for r in moves)
        return "  ".join(f"<b>{self._card(deal, r)}→{r.west_tricks}★</b>" if r.west_tricks == best
                         else f"{self._card(deal, r)}→{r.west_tricks}" for r in moves)

    def screenshot_pages(self) -> list[tuple[str, Callable[[], None]]]:
        """Deal (28), the theory's (the first example, already loaded), then a deal with a void and trumps, the
        search's (``calculator-trumps.png``)."""
        return [("", lambda: None), ("trumps", lambda: self.load_example(TRUMP_EXAMPLE))]

    # -- clipboard --------------------------------------------------------------------------------------
    def summary_text(self) -> str:
        return self.analysis.text()  # the command line's words (``outcome --cards``), the search's counters
