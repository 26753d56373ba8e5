"""Helpers for the GUI tests (imported by ``tests/test_gui_*.py``)."""

from __future__ import annotations

from whist_catalogue.gui.app import MainWindow, create_app
from whist_catalogue.gui.context import AppContext

__all__ = ["make_window", "wait_idle"]


def make_window(qtbot, db=None) -> MainWindow:
    """The main window on catalogue ``db`` (None: no catalogue, values from the engine), closed after the test."""
    create_app()
    window = MainWindow(AppContext(db))
    qtbot.addWidget(window, before_close_func=lambda w: w.context.shutdown())
    window.show()
    return window


def wait_idle(qtbot, window: MainWindow, view=None, timeout: int = 30_000) -> None:
    """Wait until no worker runs and the view is not busy."""
    qtbot.waitUntil(
        lambda: window.context.pool.active == 0 and not getattr(view, "busy", False), timeout=timeout
    )

