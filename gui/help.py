"""The Help menu's documentation window: the repository's own docs (docs/*.md), read in the app.

The app carries no help text of its own beyond tooltips: it shows the same pages the command line's
``--help`` points to (:func:`whist_catalogue.documentation`), so there is one home for each fact.
The notation comes first, because it is what a newcomer needs before anything else.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from PySide6.QtCore import QUrl, Slot
from PySide6.QtGui import QTextCursor, QTextDocument
from PySide6.QtWidgets import QDialog, QHBoxLayout, QListWidget, QTextBrowser, QWidget

from whist_catalogue import documentation


class Page(NamedTuple):
    title: str
    file: str
    heading: str | None = None  # where to open the page, a heading's text; None: its top


PAGES: tuple[Page, ...] = (
    Page("Notation", "spec.md", "2. Notation"),
    Page("Values and outcomes", "spec.md", "3. Values"),
    Page("Using the app", "app.md"),
    Page("The search language", "search.md"),
    Page("The command line", "spec.md", "4. The command line"),
    Page("The whole specification", "spec.md"),
    Page("The catalogue's storage", "level-store.md"),
    Page("Matrix games", "matrix-games.md"),
    Page("Conjectures checked", "conjectures.md"),
)


class DocumentationWindow(QDialog):
    """A list of pages on the left, the page on the right; links between the docs are followed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Whist catalogue — documentation")
        self.resize(1000, 720)
        self.pages = QListWidget()
        self.pages.addItems([page.title for page in PAGES])
        self.pages.setFixedWidth(210)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)  # http links go to the system's browser; relative ones stay here
        layout = QHBoxLayout(self)
        layout.addWidget(self.pages)
        layout.addWidget(self.browser, 1)
        self.pages.currentRowChanged.connect(self._show_row)

    def show_page(self, title: str) -> None:
        """Open the page named ``title`` (one of :data:`PAGES`), and bring the window forward."""
        row = next(k for k, page in enumerate(PAGES) if page.title == title)
        self.show()  # first: where a heading lands depends on the width the page is laid out in
        self.raise_()
        self.activateWindow()
        if self.pages.currentRow() == row:
            self._show_row(row)
        else:
            self.pages.setCurrentRow(row)

    @Slot(int)
    def _show_row(self, row: int) -> None:
        if row < 0:
            return
        page = PAGES[row]
        path = Path(documentation(page.file))
        if not path.is_file():
            self.browser.setPlainText(f"{page.file} is not installed with this copy of the app.")
            return
        self.browser.setSource(QUrl.fromLocalFile(str(path)), QTextDocument.ResourceType.MarkdownResource)
        self.browser.verticalScrollBar().setValue(0)
        if page.heading is not None:
            self._scroll_to(page.heading)

    def _scroll_to(self, heading: str) -> None:
        found = self.browser.document().find(heading)
        if found.isNull():
            return
        found.movePosition(QTextCursor.MoveOperation.StartOfBlock)
        # From the end of the page, making the heading visible scrolls it to the top.
        self.browser.moveCursor(QTextCursor.MoveOperation.End)
        self.browser.setTextCursor(found)

    def heading_at_top(self) -> str:
        """The text of the first line shown (what a test checks the window opened at)."""
        cursor = self.browser.cursorForPosition(self.browser.viewport().rect().topLeft())
        return cursor.block().text()
