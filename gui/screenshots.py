"""``whist-catalogue gui --screenshot DIR``: every view with example content, rendered to ``DIR/<view>.png``.

Each view offers ``load_example()`` (the content the README shows: KQT/AJ9 in
the explorer, deal (28) of the multi-suit paper in the calculator, …) and a
``busy`` flag; rendering waits for the view's workers to finish first.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable

from PySide6.QtWidgets import QApplication, QMainWindow

__all__ = ["render_all", "wait_until", "demo_catalogue", "SCREENSHOT_SIZE", "DEMO_MAX_N"]

SCREENSHOT_SIZE = (1360, 900)
TIMEOUT_S = 120.0
DEMO_MAX_N = 9
"""Size of the catalogue built for the screenshots when there is none (a second or two)."""


def demo_catalogue(db: str | None) -> str | None:
    """The catalogue to photograph: ``db`` or the default one if it exists, else a small one built in a temporary directory."""
    import sys
    import tempfile

    from whist_catalogue.store.build import build
    from whist_catalogue.store.settings import database_location

    location = database_location(db)
    if db is not None or "://" in location or Path(location).exists():
        return db
    path = Path(tempfile.mkdtemp(prefix="whist-screenshots-")) / "catalogue.sqlite"
    sys.stderr.write(f"no catalogue at {location}: building one with n ≤ {DEMO_MAX_N} for the screenshots in {path}\n")
    build(str(path), DEMO_MAX_N, games=False)
    return str(path)


def wait_until(predicate: Callable[[], bool], timeout: float = TIMEOUT_S) -> bool:
    """Process events until ``predicate()`` holds or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        QApplication.processEvents()
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


def _settled(window, view) -> bool:
    return not getattr(view, "busy", False) and window.context.pool.active == 0


def render_all(window: QMainWindow, directory: str | os.PathLike[str],
               progress: Callable[[str, int, int], None] | None = None) -> list[Path]:
    """Load each view's example, wait for its workers, save ``<view>.png`` (plus any extra pages it names);
    ``progress(path, done, total)`` after each image (the command line reports on stderr)."""
    from whist_catalogue.gui.app import MainWindow  # the app imports this module

    if not isinstance(window, MainWindow):
        raise TypeError(f"render_all takes the app's MainWindow, not {type(window).__name__}")
    total = sum(len(_pages(v)) for v in window.views.values())
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    window.show()
    window.resize(*SCREENSHOT_SIZE)  # after show, which fits a window to its screen (offscreen: 800 × 800)
    written: list[Path] = []
    for name, view in window.views.items():
        window.show_view(name)
        loader = getattr(view, "load_example", None)
        if loader is not None:
            loader()
        for suffix, show in _pages(view):
            show()
            wait_until(lambda: _settled(window, view))
            filename = f"{name}.png" if not suffix else f"{name}-{suffix}.png"
            written.append(_save(window, out / filename))
            if progress is not None:
                progress(str(written[-1]), len(written), total)
    return written


def _pages(view) -> list[tuple[str, Callable[[], None]]]:
    """The screenshots of a view: (a suffix for the file's name, what shows it); a view that names none has one."""
    return view.screenshot_pages() if hasattr(view, "screenshot_pages") else [("", lambda: None)]


def _save(window: QMainWindow, path: Path) -> Path:
    for _ in range(3):
        QApplication.processEvents()
    if not window.grab().save(os.fspath(path)):
        raise OSError(f"could not write {path}")
    return path
