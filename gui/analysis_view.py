"""What the deal explorer and the multi-suit calculator share: a deal typed or clicked, valued off the event loop.

The deal field with Show, Examples and Copy; the message line; the busy bar with
Cancel, and Esc to cancel (or, with nothing to cancel, to forget the keys typed
towards a card of the play panel).  While a deal is valued in a worker the
previous deal's results are greyed, and a busy bar appears after half a
second.  Beyond the catalogue the engine's plan (what it will compute and about
how long, :mod:`whist_catalogue.engine.plan`) is said in the message line
before the work, and the bar fills as it goes; Cancel (or Esc) stops the
engine.  An answer to anything but the latest deal is dropped, and a cancelled,
failed or cleared deal leaves no value on screen: a value beside the wrong deal
is worse than none.

A view asks the core for its answer in one place, :meth:`AnalysisView.show_deal`
(:func:`whist_catalogue.gui.explorer.analyse_deal`,
:func:`whist_catalogue.gui.calculator.answer_deal`).
"""

from __future__ import annotations

from typing import Any, Callable, Generic, TypeVar

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from whist_catalogue.errors import WhistError
from whist_catalogue.gui.context import AppContext
from whist_catalogue.gui.play_panel import PlayPanel
from whist_catalogue.gui.widgets import BusyBar, WorkerView, button, copy_text, examples_button, row
from whist_catalogue.gui.workers import EngineStep, with_engine_progress

__all__ = ["AnalysisView"]

D = TypeVar("D")
"""What a view's text parses to: a suit, or a tuple of suits."""


class AnalysisView(WorkerView, Generic[D]):
    """A view that values the deal typed in its field (or clicked in its card pickers) in a worker.

    A view names its ``EXAMPLES`` (the first is its screenshot's), ``PLACEHOLDER``, ``TOOLTIP`` and
    button texts, and provides ``parse``, ``show_deal``, ``_fill``, ``_clear``, ``_sync_editors``
    (``None``: no deal, clear them) and ``summary_text``; it builds its card pickers and its results,
    which hold :attr:`play_panel`, and hands them to :meth:`lay_out`.
    """

    EXAMPLES: tuple[tuple[str, str], ...] = ()
    EXAMPLE_MOVES = 1
    """Cards the app plays in the screenshot's example, the best moves marked."""
    PLACEHOLDER = ""
    TOOLTIP = ""
    SHOW = "&Show"
    COPY = "&Copy deal and value"
    MULTI = False
    """Whether the play panel shows several suits."""

    results: QWidget
    """Everything shown about the deal: greyed while a new deal is valued, cleared after bad input."""

    def __init__(self, context: AppContext) -> None:
        super().__init__(context, self._engine_step, preparing=self._preparing)
        self.analysis: Any = None
        self._editing = False
        """True while the card pickers write the field (its change is theirs, not the user's)."""
        self._valuing = self._engine_plan = ""
        self.input = QLineEdit()
        self.input.setPlaceholderText(self.PLACEHOLDER)
        self.input.setToolTip(self.TOOLTIP)
        self.input.setClearButtonEnabled(True)
        self.input.returnPressed.connect(self.show_text)
        self.input.textChanged.connect(self._text_changed)
        self.show_button = button(self.SHOW, "", self.show_text)
        self.examples_button = examples_button(self.EXAMPLES, self.set_deal_text)
        self.copy_button = button(self.COPY, "copy the deal, its value, outcome and best leads (Ctrl+Shift+C)",
                                  self.copy_summary)
        self.copy_button.setEnabled(False)  # until a deal is shown
        self.busy_bar = BusyBar()
        self.busy_bar.cancelled.connect(self.cancel_analysis)
        self.play_panel = PlayPanel(lambda: self.context.solver, multi=self.MULTI)
        for keys, slot in (("Ctrl+Shift+C", self.copy_summary), ("Escape", self._escape)):
            shortcut = QShortcut(QKeySequence(keys), self, slot)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)  # PySide6 ignores it as an argument

    def lay_out(self, pickers: QWidget, results: QWidget, *extra: QWidget) -> None:
        """Deal: [field] Show Examples Copy and ``extra``; the card ``pickers``; the message and the progress;
        the ``results``.  The message goes below the cards: there it may take the lines it needs (the
        engine's plan takes two or three in a narrow window) and still never move a card being clicked."""
        label = QLabel("&Deal:")
        label.setBuddy(self.input)
        deal = row(label, self.input, self.show_button, self.examples_button, self.copy_button, *extra,
                   stretch=self.input)
        status = QHBoxLayout()
        status.addWidget(self.message, 1)
        status.addWidget(self.busy_bar, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(deal)
        layout.addWidget(pickers)
        layout.addLayout(status)
        layout.addWidget(results, 1)
        self.results = results
        self._clear()

    # -- what each view provides -------------------------------------------------------------------
    def parse(self, text: str, /) -> D:
        raise NotImplementedError

    def show_deal(self, deal: D, /) -> None:
        """Ask the core for the deal's answer (in a worker, through :meth:`start_analysis`)."""
        raise NotImplementedError

    def _sync_editors(self, deal: D | None, /) -> None:
        raise NotImplementedError

    def _fill(self, analysis: Any, /) -> None:
        raise NotImplementedError

    def _clear(self) -> None:
        raise NotImplementedError

    def summary_text(self) -> str:
        raise NotImplementedError

    # -- input ---------------------------------------------------------------------------------------
    def set_deal_text(self, text: str) -> None:
        """Put ``text`` in the field and show it (what a user does by typing and pressing Enter)."""
        self.input.setText(text)
        self.show_text()

    @Slot()
    def show_text(self) -> None:
        deal = self.parse_field()
        self._sync_editors(deal)  # None: no card picker keeps the last deal beside the input at fault
        if deal is not None:
            self.show_deal(deal)

    @Slot(str)
    def _text_changed(self, text: str) -> None:
        # Emptying the field (its clear button, or deleting the text) empties everything the deal showed.
        if not text.strip() and not self._editing:
            self._sync_editors(None)
            self._no_deal()
            self.message.clear_message()

    def write_field(self, text: str) -> None:
        """The card pickers' deal into the field (not an edit of the user's to react to)."""
        self._editing = True
        try:
            self.input.setText(text)
        finally:
            self._editing = False

    def parse_field(self) -> D | None:
        """The field's deal, or None with the error said."""
        try:
            return self.parse(self.input.text())
        except WhistError as exc:
            self._no_deal()
            self.message.show_error(str(exc))
            return None

    # -- analysis ------------------------------------------------------------------------------------
    def start_analysis(self, subject: str, func: Callable[..., Any], *args: Any) -> None:
        """Value in a worker — ``func(*args)`` — saying ``subject`` ("Valuing AQ/KJ") meanwhile."""
        self.message.show_info(f"{subject} …")
        self.play_panel.set_deal(None)
        self.results.setEnabled(False)
        self.copy_button.setEnabled(False)
        self._valuing, self._engine_plan = subject, ""
        self.busy_bar.start(f"{subject} (beyond the catalogue the engine may take a while)")
        self.task.run(with_engine_progress, func, *args)

    @Slot()
    def cancel_analysis(self) -> None:
        """Stop valuing; nothing of the previous deal stays on screen."""
        if not self.task.busy:
            return
        self._no_deal()
        self.message.show_info(
            "Cancelled. (The engine stops within a few million deals and keeps the levels it finished.)"
        )
        self.loaded.emit()

    @Slot()
    def _escape(self) -> None:
        # One Esc for the view: two shortcuts on one key are ambiguous, and Qt then runs neither.
        if self.task.busy:
            self.cancel_analysis()
        else:
            self.play_panel.clear_typed()

    def _engine_step(self, step: EngineStep) -> None:
        """The engine works beyond the catalogue: say what it computes and how far it is."""
        if step.text != self._engine_plan:  # the plan, in full, where it can wrap; the bar keeps the count
            self._engine_plan = step.text
            self.message.show_info(f"{step.text}. Cancel (Esc) stops it and keeps the levels it finished.")
        self.busy_bar.set_progress(step.done, step.total, self._valuing)

    def _preparing(self, text: str) -> None:
        """The engine is compiled before it can start (a first use): the bar says so until it counts deals."""
        self.busy_bar.set_progress(0, 0, f"{text[:1].upper()}{text[1:].split(' (')[0]} …")  # the rest in the status bar

    def _loaded(self, analysis: Any) -> None:
        self.analysis = analysis
        self.busy_bar.stop()
        self.message.clear_message()
        self._fill(analysis)
        self.results.setEnabled(True)
        self.copy_button.setEnabled(True)
        self.loaded.emit()

    def _failed(self, exc: Exception) -> None:
        self._no_deal()
        super()._failed(exc)

    def _no_deal(self) -> None:
        """No valid deal is entered: forget the last one's results rather than show them beside the new input."""
        self.task.cancel()
        self.busy_bar.stop()
        self.analysis = None
        self.play_panel.set_deal(None)
        self._clear()
        self.results.setEnabled(True)
        self.copy_button.setEnabled(False)

    def after_analysis(self, action: Callable[[], None]) -> None:
        """``action()`` once the deal being valued is shown (at once if none is)."""
        if not self.busy:
            action()
            return

        def once() -> None:
            self.loaded.disconnect(once)
            action()

        self.loaded.connect(once)

    # -- the screenshot, the clipboard ------------------------------------------------------------------
    def load_example(self, text: str | None = None) -> None:
        """The first example (or ``text``), the best moves marked and its first cards played (for the screenshot)."""
        self.set_deal_text(text if text is not None else self.EXAMPLES[0][0])
        self.after_analysis(self._example_play)

    def _example_play(self) -> None:
        panel = self.play_panel
        panel.hints.setChecked(True)
        for _ in range(self.EXAMPLE_MOVES):
            if panel.play is not None and not panel.play.finished:
                panel.app_move()

    @Slot()
    def copy_summary(self) -> None:
        if self.analysis is not None:
            copy_text(self.summary_text())
