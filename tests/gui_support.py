"""Helpers for the GUI tests (imported by ``tests/test_gui_*.py``)."""

from __future__ import annotations

from functools import cache

from PySide6.QtWidgets import QApplication

from whist_catalogue.gui.app import MainWindow, create_app
from whist_catalogue.gui.context import AppContext

__all__ = ["make_window", "wait_idle"]


@cache
def app() -> QApplication:
    """The QApplication with the app's name and style sheet, set up once a session.

    ``create_app`` sets the style sheet again on every call, and Qt then re-polishes every widget still
    alive; windows of earlier tests linger until Qt deletes them, so one call a window made each GUI
    test's setup slower than the last (most of the GUI tests' time)."""
    return create_app()


def make_window(qtbot, db=None) -> MainWindow:
    """The main window on catalogue ``db`` (None: no catalogue, values from the engine), closed after the test."""
    app()
    window = MainWindow(AppContext(db))
    qtbot.addWidget(window, before_close_func=lambda w: w.context.shutdown())
    window.show()
    return window


def wait_idle(qtbot, window: MainWindow, view=None, timeout: int = 30_000) -> None:
    """Wait until no worker runs and the view is not busy."""
    qtbot.waitUntil(
        lambda: window.context.pool.active == 0 and not getattr(view, "busy", False), timeout=timeout
    )
