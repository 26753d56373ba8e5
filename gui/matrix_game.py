"""A matrix game of the user's own: typed into a grid, pasted, or opened from CSV or Gambit ``.nfg``; solved exactly.

Reading and writing games is :mod:`whist_catalogue.games.strategic_form`, solving is
:func:`whist_catalogue.games.solved_games.solve_strategic_form` (certified against every pure reply, as the
papers' games are); this page only edits the grid and shows the answer (its
:meth:`~whist_catalogue.games.solved_games.SolvedGame.html`, as the papers' games' pages do). The solved games' pages save their
own games as ``.nfg`` through :func:`save_nfg`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt, Slot
from PySide6.QtGui import QColor, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from whist_catalogue.errors import WhistError
from whist_catalogue.games import solved_games
from whist_catalogue.games.solved_games import MatrixGame
from whist_catalogue.games.strategic_form import MAX_STRATEGIES, StrategicForm, parse_grid, read_game, write_nfg
from whist_catalogue.gui.context import AppContext
from whist_catalogue.gui.models import GREEN
from whist_catalogue.gui.widgets import WorkerView, button, error_text, row, summary_label, wrapped

__all__ = ["MatrixGamePage", "save_nfg", "EXAMPLE"]

EXAMPLE = "\tL\tR\nT\t3\t-1\nB\t-2\t1"
"""The page's first game: 2×2 with no saddle point, so both players mix (value 1/7)."""

NFG_FILTER = "Gambit strategic form (*.nfg)"
OPEN_FILTER = "Games (*.nfg *.csv *.tsv *.txt);;All files (*)"
PALE = QColor("#ecfdf5")


def save_nfg(parent: QWidget, game: StrategicForm, suggested: str) -> str | None:
    """Ask where, then write ``game`` as ``.nfg``; the path written, or None if the user cancelled."""
    path, _ = QFileDialog.getSaveFileName(parent, "Save the game for Gambit", suggested, NFG_FILTER)
    if not path:
        return None
    if not path.endswith(".nfg"):
        path += ".nfg"
    write_nfg(path, game)
    return path


class MatrixGamePage(WorkerView):
    """Player 1 picks a row and maximises, player 2 a column and minimises; entries are player 1's pay-offs."""

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.solution: MatrixGame | None = None
        self.title = "matrix game"
        self.rows = QSpinBox()
        self.columns = QSpinBox()
        for spin, what in ((self.rows, "player 1's pure strategies (rows)"), (self.columns, "player 2's (columns)")):
            spin.setRange(1, MAX_STRATEGIES)
            spin.setToolTip(what)
            spin.setKeyboardTracking(False)
            spin.valueChanged.connect(self._resize)
        rows_label = QLabel("&Rows:")
        rows_label.setBuddy(self.rows)
        columns_label = QLabel("&Columns:")
        columns_label.setBuddy(self.columns)
        self.open_button = button("&Open…", "a grid or CSV file of player 1's pay-offs, or a Gambit .nfg file",
                                  self.open_file)
        self.paste_button = button("&Paste", "replace the game by a grid copied from a spreadsheet or a text (Ctrl+V)",
                                   self.paste)
        self.save_button = button("Save as .&nfg…", "write the game in Gambit's strategic-form format", self.save)
        self.solve_button = button("&Solve", "solve the game in the grid (Enter)", self.solve)
        self.solve_button.setDefault(True)
        self.grid = QTableWidget()
        self.grid.setToolTip("player 1's pay-off for each row and column: integers, fractions p/q or decimals")
        self.grid.itemChanged.connect(self._stale)
        self.grid.horizontalHeader().setMinimumSectionSize(72)  # room for a fraction such as -11/24
        QShortcut(QKeySequence.StandardKey.Paste, self.grid, self.paste)
        self.summary = summary_label()
        explain = wrapped(
            "A two-person zero-sum game: each entry is what player 2 pays player 1 when player 1 plays the row "
            "and player 2 the column. Type into the grid, paste one, or open a CSV or Gambit file; the solution "
            "is exact and checked against every pure reply."
        )

        controls = row(rows_label, self.rows, columns_label, self.columns, 12, self.open_button, self.paste_button,
                       self.save_button, self.solve_button)
        layout = QVBoxLayout(self)
        layout.addWidget(explain)
        layout.addLayout(controls)
        layout.addWidget(self.message)
        layout.addWidget(self.summary)
        layout.addWidget(self.grid, 1)
        self.set_game(parse_grid(EXAMPLE, title="example"))

    # -- the grid ------------------------------------------------------------------------------------
    def set_game(self, game: StrategicForm) -> None:
        """Show ``game`` in the grid (its strategies' names as headers) and solve it."""
        self.title = game.title
        for spin, count in ((self.rows, len(game.rows)), (self.columns, len(game.columns))):
            with QSignalBlocker(spin):
                spin.setValue(count)
        with QSignalBlocker(self.grid):
            self.grid.setRowCount(len(game.rows))
            self.grid.setColumnCount(len(game.columns))
            self.grid.setVerticalHeaderLabels(list(game.rows))
            self.grid.setHorizontalHeaderLabels(list(game.columns))
            for i, row in enumerate(game.matrix):
                for j, entry in enumerate(row):
                    self.grid.setItem(i, j, QTableWidgetItem(str(entry)))
        self.grid.resizeColumnsToContents()
        self.solve()

    def game(self) -> StrategicForm:
        """The grid as a game; :class:`InvalidMatrixError` naming the first empty or non-numeric cell."""
        cells = [[self._cell(i, j) for j in range(self.grid.columnCount())] for i in range(self.grid.rowCount())]
        plain = StrategicForm.of(cells, title=self.title)
        return plain._replace(rows=tuple(self._strategies(rows=True)), columns=tuple(self._strategies(rows=False)))

    def _cell(self, i: int, j: int) -> str:
        item = self.grid.item(i, j)
        return (item.text() if item is not None else "") or "?"  # an empty cell is named as not a number

    def _strategies(self, rows: bool) -> list[str]:
        """The names of the grid's rows (or columns): each header's text, else its number."""
        count = self.grid.rowCount() if rows else self.grid.columnCount()
        items = [self.grid.verticalHeaderItem(k) if rows else self.grid.horizontalHeaderItem(k) for k in range(count)]
        return [item.text() if item is not None and item.text() else str(k + 1) for k, item in enumerate(items)]

    @Slot()
    def _resize(self) -> None:
        with QSignalBlocker(self.grid):
            old_rows, old_columns = self.grid.rowCount(), self.grid.columnCount()
            self.grid.setRowCount(self.rows.value())
            self.grid.setColumnCount(self.columns.value())
            for i in range(self.grid.rowCount()):
                for j in range(self.grid.columnCount()):
                    if i >= old_rows or j >= old_columns:
                        self.grid.setItem(i, j, QTableWidgetItem("0"))
            self.grid.setVerticalHeaderLabels(self._strategies(rows=True))
            self.grid.setHorizontalHeaderLabels(self._strategies(rows=False))
        self._stale()

    @Slot()
    def _stale(self) -> None:
        """The answer shown belongs to another game now: say so rather than show it beside this one."""
        self.task.cancel()
        self.solution = None
        self.summary.setText("<i>Changed — press Solve (Enter).</i>")
        self._colour_support()

    # -- files and the clipboard ---------------------------------------------------------------------
    @Slot()
    def paste(self) -> None:
        text = QGuiApplication.clipboard().text()
        self._load(lambda: parse_grid(text, title="pasted game"))

    @Slot()
    def open_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a game", "", OPEN_FILTER)
        if path:
            self._load(lambda: read_game(path))

    def _load(self, read: Any) -> None:
        try:
            game = read()
        except (WhistError, OSError) as exc:
            self.message.show_error(error_text(exc))
            return
        self.set_game(game)

    @Slot()
    def save(self) -> None:
        try:
            game = self.game()
        except WhistError as exc:
            self.message.show_error(error_text(exc))
            return
        written = save_nfg(self, game, f"{self.title}.nfg")
        if written:
            self.message.show_info(f"Saved {written}")

    # -- solving -------------------------------------------------------------------------------------
    def load(self) -> None:
        if self.solution is None and not self.busy:
            self.solve()

    @Slot()
    def solve(self) -> None:
        try:
            game = self.game()
        except WhistError as exc:
            self.task.cancel()
            self.solution = None
            self.summary.clear()
            self.message.show_error(error_text(exc))
            self._colour_support()
            self.loaded.emit()
            return
        self.message.show_info(f"Solving the {len(game.rows)} × {len(game.columns)} game exactly …")
        self.task.run(solved_games.solve_strategic_form, game)  # an edit meanwhile drops its answer

    def _loaded(self, solution: MatrixGame) -> None:
        self.solution = solution
        self.message.clear_message()
        self.summary.setText(solution.html())
        self._colour_support()
        self.loaded.emit()

    def _colour_support(self) -> None:
        """Green: a cell both optimal strategies use; pale: one of them does (as on the Le Her page)."""
        s = self.solution
        rows = {name for name, _ in s.player1} if s else set()
        columns = {name for name, _ in s.player2} if s else set()
        row_names, column_names = self._strategies(rows=True), self._strategies(rows=False)
        with QSignalBlocker(self.grid):
            for i in range(self.grid.rowCount()):
                in_row = row_names[i] in rows
                for j in range(self.grid.columnCount()):
                    item = self.grid.item(i, j)
                    if item is None:
                        continue
                    in_column = column_names[j] in columns
                    colour = GREEN if in_row and in_column else PALE if in_row or in_column else None
                    item.setBackground(colour if colour is not None else QColor(Qt.GlobalColor.transparent))
