"""What the deal explorer and the multi-suit calculator share: a deal valued off the event loop.

While a deal is valued in a worker the previous deal's results are greyed, and
a busy bar appears after half a second.  Beyond the catalogue the engine's plan
(what it will compute and about how long, :mod:`whist_catalogue.engine.plan`)
is said in the message line before the work, and the bar fills as it goes;
Cancel (or Esc) stops the engine.  An answer to anything but the latest deal is
dropped, and a cancelled, failed or cleared deal leaves no value on screen: a
value beside the wrong deal is worse than none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from PySide6.QtCore import Slot

from whist_catalogue.gui.widgets import error_text
from whist_catalogue.gui.workers import EngineStep, with_engine_progress

if TYPE_CHECKING:
    from PySide6.QtCore import Signal
    from PySide6.QtWidgets import QPushButton, QWidget

    from whist_catalogue.gui.play_panel import PlayPanel
    from whist_catalogue.gui.widgets import BusyBar, MessageBar
    from whist_catalogue.gui.workers import LatestOnly

    _Host = QWidget  # for the type checker, the widget the mixin is mixed into: its signals bind
else:
    _Host = object

__all__ = ["AnalysisView"]


class AnalysisView(_Host):
    """A mixin for a view that values deals in a worker.

    The view provides ``task`` (a :class:`~whist_catalogue.gui.workers.LatestOnly` built with
    ``self._shown``, ``self._failed`` and ``self._engine_step``), ``message``, ``busy_bar``,
    ``results``, ``copy_button``, ``play_panel``, the ``analysed`` signal, ``_fill(analysis)``
    and ``_clear()``.
    """

    # What the view provides (see above), declared for the type checker.
    task: LatestOnly
    message: MessageBar
    busy_bar: BusyBar
    results: QWidget
    copy_button: QPushButton
    play_panel: PlayPanel
    analysed: Signal

    if TYPE_CHECKING:
        def _fill(self, a: Any) -> None: ...

        def _clear(self) -> None: ...

    analysis: Any = None
    _valuing = ""
    """What is being valued, in words: the busy bar's text."""
    _engine_plan = ""
    """The engine's plan last shown (beyond the catalogue)."""

    def start_analysis(self, subject: str, func: Callable[..., Any], *args: Any) -> None:
        """Value in a worker — ``func(*args)`` — saying ``subject`` ("Valuing AQ/KJ") meanwhile."""
        self.message.show_info(f"{subject} …")
        self.play_panel.set_deal(None)
        self.results.setEnabled(False)
        self.copy_button.setEnabled(False)
        self._valuing, self._engine_plan = subject, ""
        self.busy_bar.start(f"{subject} (beyond the catalogue the engine may take a while)")
        self.task.run(with_engine_progress, func, *args)

    @property
    def busy(self) -> bool:
        return self.task.busy

    @Slot()
    def cancel_analysis(self) -> None:
        """Stop valuing; nothing of the previous deal stays on screen."""
        if not self.task.busy:
            return
        self.task.cancel()
        self._no_deal()
        self.message.show_info(
            "Cancelled. (The engine stops within a few million deals and keeps the levels it finished.)"
        )
        self.analysed.emit()

    def _engine_step(self, step: EngineStep) -> None:
        """The engine works beyond the catalogue: say what it computes and how far it is."""
        if step.text != self._engine_plan:  # the plan, in full, where it can wrap; the bar keeps the count
            self._engine_plan = step.text
            self.message.show_info(f"{step.text}. Cancel (Esc) stops it and keeps the levels it finished.")
        self.busy_bar.set_progress(step.done, step.total, self._valuing)

    def _shown(self, analysis: Any) -> None:
        self.analysis = analysis
        self.busy_bar.stop()
        self.message.clear_message()
        self._fill(analysis)
        self.results.setEnabled(True)
        self.copy_button.setEnabled(True)
        self.analysed.emit()

    def _failed(self, exc: Exception) -> None:
        self._no_deal()
        self.message.show_error(error_text(exc))
        self.analysed.emit()

    def _no_deal(self) -> None:
        """No valid deal is entered: forget the last one's results rather than show them beside the new input."""
        if self.task.busy:
            self.task.cancel()
        self.busy_bar.stop()
        self.analysis = None
        self.play_panel.set_deal(None)
        self._clear()
        self.results.setEnabled(True)
        self.copy_button.setEnabled(False)
