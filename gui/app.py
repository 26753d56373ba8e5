"""The main window: one tab per view, a status bar saying where values come from; ``run`` opens it (``whist-catalogue gui``)."""

from __future__ import annotations

import os
import sys
from functools import partial
from typing import Callable, Sequence

from PySide6.QtCore import QSettings, QtMsgType, Slot, qInstallMessageHandler
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QFileDialog, QLabel, QMainWindow, QMessageBox, QTabWidget, QWidget

from whist_catalogue import __version__
from whist_catalogue.gui.analysis_view import AnalysisView
from whist_catalogue.gui.calculator import MultiSuitCalculator
from whist_catalogue.gui.context import AppContext
from whist_catalogue.gui.explorer import DealExplorer
from whist_catalogue.gui.help import PAGES, DocumentationWindow
from whist_catalogue.gui.distribution_view import DistributionView
from whist_catalogue.gui.search_view import SearchView
from whist_catalogue.gui.solutions import SolutionsView
from whist_catalogue.gui.status import StatusView
from whist_catalogue.gui.widgets import STYLE_SHEET

__all__ = ["MainWindow", "create_app", "run", "VIEWS", "VIEW_NAMES", "app_settings", "SETTINGS_ENV"]

SETTINGS_ENV = "WHIST_CATALOGUE_SETTINGS"
"""An INI file for what the app remembers between launches (default: Qt's usual place, e.g.
``~/.config/whist-catalogue/whist-catalogue.conf`` on Linux); the tests point it at a temporary file."""


def app_settings() -> QSettings:
    """Where the window's size, the last deals, the tab and the catalogue in use are remembered."""
    path = os.environ.get(SETTINGS_ENV)
    if path:
        return QSettings(path, QSettings.Format.IniFormat)
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "whist-catalogue", "whist-catalogue")

VIEWS: tuple[tuple[str, str, Callable[[AppContext], QWidget]], ...] = (
    ("explorer", "Deal explorer", DealExplorer),
    ("calculator", "Multi-suit", MultiSuitCalculator),
    ("search", "Search && statistics", SearchView),
    ("solutions", "Solutions", SolutionsView),
    ("status", "Catalogue", StatusView),
    ("distributions", "Distributions", DistributionView),
)
"""The views in tab order (Ctrl+1 …): the name of each (its screenshot, its settings), its tab's title, its class."""
VIEW_NAMES = tuple(name for name, _, _ in VIEWS)

ABOUT = f"""<h3>Whist catalogue {__version__}</h3>
<p>Exact values and optimal play of two-person whist, after Johan Wästlund's papers
<i>A solution of two-person single-suit whist</i> and <i>On two-person symmetric multi-suit whist</i>,
and the solved card games chemin-de-fer (Foster) and Le Her (Benjamin–Goldman).</p>
<p><b>Deal explorer</b>: one suit — its value, the labeled values α<sub>ij</sub>, the matrix A, play.<br>
<b>Multi-suit</b>: add the suits' values, read the outcome and the right lead, play it out.<br>
<b>Search</b>: value patterns over the catalogue, statistics, the papers' conjectures.<br>
<b>Solutions</b>: chemin-de-fer, Le Her, single-suit asymptotics.<br>
<b>Catalogue</b>: what is built, and building more.<br>
<b>Distributions</b>: the exact probability of every outcome over all deals with suits of given sizes.</p>
<p>Deals: <tt>AQ/KJ</tt>, <tt>13 12 / 14 11</tt> or <tt>EWEW</tt> (owner of each card, lowest first);
suits of a multi-suit deal separated by <tt>,</tt> or <tt>;</tt>.</p>"""


class MainWindow(QMainWindow):
    """The app: the six views as tabs (Ctrl+1 … Ctrl+6)."""

    def __init__(self, context: AppContext, parent: QWidget | None = None, settings: QSettings | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.settings = settings
        """Where the window remembers itself between launches (None: it does not, as in the tests and screenshots)."""
        # Qt appends the application's display name ("— Whist catalogue"): the title names only the rest.
        self.setWindowTitle("Values and play of two-person whist")
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.setCentralWidget(self.tabs)
        self.views: dict[str, QWidget] = {}
        for name, title, view_class in VIEWS:
            view = view_class(context)
            self.views[name] = view
            self.tabs.addTab(view, title)
        search = self.views.get("search")
        if isinstance(search, SearchView):
            search.open_deal.connect(self.open_in_explorer)
        self.source_label = QLabel()
        self.statusBar().addWidget(self.source_label, 1)  # a passing message (preparing the engine) covers it
        self._build_menus()
        self.context.catalogue_changed.connect(self._update_source)
        # Whichever view started the work (a search, the asymptotics), a first use's compile is said here.
        self.context.pool.preparing.connect(self._preparing)
        self._update_source()
        self.resize(1360, 900)
        self._placed = False
        if settings is not None:
            self.restore_state(settings)

    def showEvent(self, event) -> None:  # Qt override
        super().showEvent(event)
        if not self._placed:  # the frame's size is known once shown
            self._placed = True
            self._fit_to_screen()

    def _fit_to_screen(self) -> None:
        """Keep the window, frame included, inside its screen's free area: the first launch asks for 1360 × 900,
        and a 1000 × 700 screen (or a window remembered from a larger one) has less room."""
        free = self.screen().availableGeometry()
        frame = self.frameGeometry().size() - self.size()
        width = min(self.width(), free.width() - frame.width())
        height = min(self.height(), free.height() - frame.height())
        if (width, height) != (self.width(), self.height()):
            self.resize(width, height)
            self.move(free.topLeft())

    # -- memory between launches ------------------------------------------------------------------
    def restore_state(self, settings: QSettings) -> None:
        """The window's size and place, the tab, the last deal of each deal view and the last search, as they were left."""
        geometry = settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        tab = settings.value("window/tab")
        if tab in self.views:
            self.tabs.setCurrentWidget(self.views[tab])
        for name, view in self.views.items():
            if not isinstance(view, AnalysisView):
                continue
            # The first launch shows the view's first example, not empty panes that look broken; a deal the user
            # cleared stays cleared.
            deal = settings.value(f"{name}/deal", view.EXAMPLES[0][0])
            if deal:
                view.set_deal_text(str(deal))
        expression = settings.value("search/expression")
        search = self.views.get("search")
        if expression and isinstance(search, SearchView):
            search.search_for(str(expression))

    def save_state(self, settings: QSettings) -> None:
        settings.setValue("window/geometry", self.saveGeometry())
        current = self.tabs.currentWidget()
        settings.setValue("window/tab", next((n for n, v in self.views.items() if v is current), "explorer"))
        for name, view in self.views.items():
            if isinstance(view, AnalysisView):  # the last deal that was valued, not half-typed input
                settings.setValue(f"{name}/deal", view.input.text() if view.analysis is not None else "")
        search = self.views.get("search")
        if isinstance(search, SearchView):
            settings.setValue("search/expression", search.results.expression)  # the last search that ran
        settings.setValue("catalogue/location", self.context.db or "")
        settings.sync()

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction("&Open catalogue…", QKeySequence.StandardKey.Open, self.open_catalogue)
        self.default_action = file_menu.addAction("Open the &default catalogue",
                                                  partial(self.context.set_database, None))
        self.default_action.setToolTip("back to the catalogue the app uses when none is chosen")
        file_menu.addSeparator()
        file_menu.addAction("&Quit", QKeySequence.StandardKey.Quit, self.close)

        view_menu = self.menuBar().addMenu("&View")
        for k in range(len(self.views)):
            view_menu.addAction(self.tabs.tabText(k), QKeySequence(f"Ctrl+{k + 1}"),
                                partial(self.tabs.setCurrentIndex, k))

        help_menu = self.menuBar().addMenu("&Help")
        self.documentation: DocumentationWindow | None = None
        for k, page in enumerate(PAGES):
            action = help_menu.addAction(page.title, partial(self.show_documentation, page.title))
            if k == 0:
                action.setShortcut(QKeySequence.StandardKey.HelpContents)  # F1 opens the notation
        help_menu.addSeparator()
        help_menu.addAction("&About", lambda: QMessageBox.about(self, "About the whist catalogue", ABOUT))

    def show_documentation(self, title: str = PAGES[0].title) -> DocumentationWindow:
        """The Help menu's window (one for the app), opened at the page ``title``."""
        if self.documentation is None:
            self.documentation = DocumentationWindow(self)
        self.documentation.show_page(title)
        return self.documentation

    def show_view(self, name: str) -> QWidget:
        view = self.views[name]
        self.tabs.setCurrentWidget(view)
        return view

    @Slot(str)
    def open_in_explorer(self, deal: str) -> None:
        explorer = self.show_view("explorer")
        if isinstance(explorer, DealExplorer):
            explorer.set_deal_text(deal)

    @Slot()
    def open_catalogue(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a catalogue", "", "SQLite catalogue (*.sqlite *.db);;All files (*)")
        if path:
            self.context.set_database(path)

    @Slot(str)
    def _preparing(self, text: str) -> None:
        if text:
            self.statusBar().showMessage(f"{text[:1].upper()}{text[1:]} …")
        else:
            self.statusBar().clearMessage()

    @Slot()
    def _update_source(self) -> None:
        self.source_label.setText(self.context.source_description())
        self.default_action.setEnabled(self.context.db is not None)
        self.default_action.setText(f"Open the &default catalogue ({self.context.default_location})")

    def closeEvent(self, event) -> None:  # Qt override
        if self.settings is not None:
            self.save_state(self.settings)
        for view in self.views.values():
            stop = getattr(view, "stop", None)
            if stop is not None:
                stop()
        self.context.shutdown()
        super().closeEvent(event)


def _message_handler(mode: QtMsgType, context, message: str) -> None:
    # The offscreen platform (screenshots, CI) warns about every window it cannot resize; nothing to act on.
    if "propagateSizeHints" in message:
        return
    sys.stderr.write(message + "\n")


def create_app(argv: Sequence[str] | None = None) -> QApplication:
    """The QApplication (the existing one if there is one), with the app's style sheet."""
    app = QApplication.instance()
    if app is None:
        qInstallMessageHandler(_message_handler)
        app = QApplication(list(argv or sys.argv[:1]))
    if not isinstance(app, QApplication):
        raise RuntimeError("a Qt application without widgets is already running")
    app.setApplicationName("whist-catalogue")
    app.setApplicationDisplayName("Whist catalogue")
    app.setStyleSheet(STYLE_SHEET)
    return app


def run(db: str | None = None, screenshot: str | os.PathLike[str] | None = None, progress=None) -> int:
    """Open the window; or, with ``screenshot``, render every view to ``DIR/<view>.png`` and return
    (``progress(path, done, total)`` after each image)."""
    if screenshot is not None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from whist_catalogue.gui.screenshots import demo_catalogue

        db = demo_catalogue(db)
    app = create_app()
    settings = None if screenshot is not None else app_settings()
    if db is None and settings is not None:
        db = remembered_catalogue(settings)
    context = AppContext(db)
    window = MainWindow(context, settings=settings)
    if screenshot is not None:
        from whist_catalogue.gui.screenshots import render_all

        render_all(window, screenshot, progress=progress)
        window.close()
        return 0
    _report_uncaught_errors(window)
    window.show()
    return app.exec()


def remembered_catalogue(settings: QSettings) -> str | None:
    """The catalogue opened last time, if it was not the default one and is still there."""
    location = str(settings.value("catalogue/location") or "")
    if location and ("://" in location or os.path.exists(location)):
        return location
    return None


def _report_uncaught_errors(window: MainWindow) -> None:
    """A bug in a slot becomes a message in the status bar (and a traceback on stderr), not a dead app."""
    import traceback

    previous = sys.excepthook

    def hook(kind, value, tb) -> None:  # noqa: ANN001 - sys.excepthook's signature
        traceback.print_exception(kind, value, tb)
        if issubclass(kind, KeyboardInterrupt):
            previous(kind, value, tb)
            return
        window.statusBar().showMessage(f"Something went wrong: {kind.__name__}: {value}", 15_000)

    sys.excepthook = hook
