"""Search and statistics: the catalogue's search language, paged results, CSV export, value class × n.

* The query builder writes expressions of :mod:`whist_catalogue.store.search` (its fields
  come from :func:`whist_catalogue.store.search.describe_fields`); the free-text field takes
  any expression; :func:`whist_catalogue.store.search.compile_search` checks it and its
  error message appears inline.
* Results are :class:`whist_catalogue.gui.models.SearchResultsModel`, paging by key through
  :meth:`whist_catalogue.store.reader.Catalogue.search` in a worker; the count is
  :meth:`~whist_catalogue.store.reader.Catalogue.count` (:func:`count_matches`: the command line's path, with
  its progress in the busy bar and Cancel), run in a worker, and so is the export
  (:func:`whist_catalogue.store.dataset.export_to_file`: the command line's own, machine-readable columns).
  Every answer arrives through a :class:`~whist_catalogue.gui.workers.LatestOnly`.
  A header click sorts every match and Ctrl+End reaches the last, both after loading them all
  (:meth:`~whist_catalogue.gui.models.SearchResultsModel.fetch_all`).
* The statistics grid is :meth:`~whist_catalogue.store.reader.Catalogue.statistics` per
  complete level (:class:`whist_catalogue.engine.statistics.LevelStatistics`); a click on a
  cell searches for the deals it counts.
* The papers' conjectures and theorems checked by the engine are one click each:
  ``counterexample(12.2)`` and so on.
"""

from __future__ import annotations

import os
from functools import partial
from typing import Any, Callable

from PySide6.QtCore import QModelIndex, QSignalBlocker, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from whist_catalogue import documentation
from whist_catalogue.engine.statistics import VALUE_CLASS_QUERIES, VALUE_CLASSES
from whist_catalogue.errors import WhistError
from whist_catalogue.gui.context import AppContext
from whist_catalogue.gui.models import CHECKS, SearchResultsModel, StatisticsModel
from whist_catalogue.gui.workers import LatestOnly, reporting
from whist_catalogue.gui.widgets import (
    BusyBar,
    CopyTableView,
    MessageBar,
    button,
    enlarge,
    examples_button,
    fitted_table,
    row,
    scrolled,
    shorten,
    split,
    stacked,
    wrapped,
)
from whist_catalogue.store.search import ASCII as _ASCII  # the language's own spelling of ±, −, ε, ≤ …
from whist_catalogue.store.search import compile_search, describe_fields, narrowing_hint, tokenize

__all__ = ["SearchView", "QueryBuilder", "CONJECTURES", "CLASS_EXPRESSIONS", "EXAMPLES", "export_csv"]

CONJECTURES = tuple(
    (CHECKS[name][0] if name != "conjecture_12_4_labeled" else "Hold-ups (12.4, labeled)", expression, CHECKS[name][1])
    for name, expression in (
        ("conjecture_12_2", "counterexample(12.2)"),
        ("conjecture_12_3", "counterexample(12.3)"),
        ("conjecture_12_4", "counterexample(12.4)"),
        ("theorem_8_10", "counterexample(8.10)"),
        ("theorem_9_4", "counterexample(9.4)"),
        ("conjecture_12_4_labeled", "holdup"),
    )
)
"""(button, expression, statement) for each check the catalogue records."""

CLASS_EXPRESSIONS = {name: f"class({name.replace(' ', '_').replace('-', '_')})" for name in VALUE_CLASS_QUERIES}
"""The search expression for each value class of :func:`whist_catalogue.engine.statistics.value_class` (single-suit
values are never fuzzy).  A test checks that every statistics cell and its search count the same deals."""

EXAMPLES = (
    ("value = 3+3/8", "the paper's 3 + 3/8"),
    ("frac in (3/8, 5/8)", "the exceptional fractional parts of Conjecture 12.3"),
    ("inf >= e2", "exits for West protected by at least two stoppers"),
    ("value = 2-e2", "East's exit with two stoppers under 2"),
    ("outcome = (1, 2) and ace = E", "West takes one trick on lead, two otherwise; East holds the ace"),
    ("h != h_upper and ace = W", "H = H̲ < H̄ although West holds the ace (Theorem 9.1)"),
    ("n = 6 and denominator >= 8", "the most complex numbers with six cards a hand"),
)

COMPARISONS = ("=", "!=", "<", "<=", ">", ">=")
KINDS = {
    "number": (COMPARISONS, "a number: 5, 3/8, 2+1/4"),
    "value": (COMPARISONS, "a value: 3+3/8, 2-e2, e0"),
    "infinitesimal": (COMPARISONS, "0, e0, -e0, e2, -e3"),
    "player": (("=", "!="), "W or E"),
    "pair": (("=", "!="), "(1, 2)"),
    "flag": (("holds", "does not hold"), ""),
    "check": (("has a counterexample to",), "12.2, 12.3, 12.4, 8.10, 9.4 or any"),
    "raw": (("",), "any search expression"),
}
"""A field's kind: the builder's operators for it, and the hint in its constant's box."""


NO_SEARCH_YET = ("No search yet: type one above and press Enter, click one of the papers' conjectures, or click a "
                 "cell of the statistics to list its deals.")
"""What the results say before any search."""


def export_csv(catalogue: Any, expression: str, path: str, report_progress=None,
               abort_requested=None) -> tuple[int, str]:
    """Write every deal matching ``expression`` to a file for analysis (run in a worker); returns the row count
    and, when the search asks for levels the catalogue lacks, the line that says so.

    The command line's ``export --columns all,best_leads`` (docs/dataset.md), by the same function
    (:func:`whist_catalogue.store.dataset.export_to_file`: it refuses to write over the catalogue, writes
    atomically, and leaves no file when cancelled): Parquet for a path ending in ``.parquet``, JSON Lines for
    ``.jsonl``, else CSV — ASCII names, the number as numerator and denominator, the infinitesimal's code,
    integers — what pandas, Polars and DuckDB read as they are.  The table on screen keeps the paper's typography.
    """
    from whist_catalogue.store.dataset import export_plan, export_to_file, format_of
    from whist_catalogue.store.fields import resolve_columns

    fmt, columns = format_of(path), resolve_columns("all,best_leads")
    plan = export_plan(catalogue, fmt, columns, expression=expression)
    progress = reporting(abort_requested, report_progress, lambda rows, total: rows)
    rows = export_to_file(catalogue, path, fmt=fmt, columns=columns, expression=expression, progress=progress,
                          plan=plan)
    return rows, plan.coverage.describe() if plan.coverage.missing else ""


def count_matches(catalogue: Any, expression: str, report_progress=None, abort_requested=None) -> int:
    """How many deals match ``expression`` (run in a worker): :meth:`~whist_catalogue.store.reader.Catalogue.count`,
    the command line's ``search --count``, with its progress over levels searched chunk by chunk reported as
    (n, done, total) and Cancel checked after each chunk."""
    return catalogue.count(expression, progress=reporting(abort_requested, report_progress))


def level_statistics(catalogue: Any) -> list[Any]:
    """:class:`LevelStatistics` of every complete level (run in a worker)."""
    return [catalogue.statistics(n) for n in sorted(catalogue.complete_levels())]


RAW = "expression"
"""The builder's field for any part of a typed expression it cannot show as field, operator and constant."""


class ConditionRow(QWidget):
    """One condition of the query builder: field (with what it means), operator, constant."""

    changed = Signal()
    remove_requested = Signal(object)
    submitted = Signal()
    """Enter was pressed in the constant: search."""

    def __init__(self, fields: list[tuple[str, str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.field_box = QComboBox()
        for name, kind, help_text in fields:
            self.field_box.addItem(f"{name} — {shorten(help_text, 48)}", (name, kind))
            self.field_box.setItemData(self.field_box.count() - 1, f"{name}: {help_text}", Qt.ItemDataRole.ToolTipRole)
        # Closed, the box shows the field's name and the start of its meaning; open, the whole line.
        self.field_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.field_box.setMinimumContentsLength(22)
        self.field_box.view().setMinimumWidth(self.field_box.view().sizeHintForColumn(0) + 24)
        self.op_box = QComboBox()
        self.value_edit = QLineEdit()
        self.value_edit.returnPressed.connect(self.submitted)
        self.remove_button = QToolButton()
        self.remove_button.setText("✕")
        self.remove_button.setToolTip("remove this condition")
        layout = row(self.field_box, self.op_box, self.value_edit, self.remove_button, stretch=self.value_edit)
        layout.setContentsMargins(0, 0, 0, 0)
        self.setLayout(layout)
        self.field_box.currentIndexChanged.connect(self._field_changed)
        self.op_box.currentIndexChanged.connect(self.changed)
        self.value_edit.textChanged.connect(self.changed)
        self.remove_button.clicked.connect(lambda: self.remove_requested.emit(self))
        self._field_changed()

    @property
    def field(self) -> str:
        return self.field_box.currentData()[0]

    @property
    def kind(self) -> str:
        return self.field_box.currentData()[1]

    def set_condition(self, field: str, op: str, value: str = "") -> None:
        self.field_box.setCurrentIndex(next((i for i in range(self.field_box.count())
                                             if self.field_box.itemData(i)[0] == field), 0))
        self.op_box.setCurrentIndex(max(0, self.op_box.findText(op)))
        self.value_edit.setText(value)

    @Slot()
    def _field_changed(self) -> None:
        kind = self.kind
        operators, hint = KINDS.get(kind, (COMPARISONS, ""))
        with QSignalBlocker(self.op_box):
            self.op_box.clear()
            self.op_box.addItems(operators)
        self.op_box.setVisible(kind != "raw")
        self.value_edit.setVisible(kind != "flag")
        self.value_edit.setPlaceholderText(hint)
        self.field_box.setToolTip(self.field_box.currentData(Qt.ItemDataRole.ToolTipRole) or "")
        self.changed.emit()

    def expression(self) -> str:
        """The condition in the search language ('' while incomplete)."""
        field, kind, op, value = self.field, self.kind, self.op_box.currentText(), self.value_edit.text().strip()
        if kind == "flag":
            return field if op == "holds" else f"not {field}"
        if not value:
            return ""
        if kind == "check":
            return f"counterexample({value})"
        if kind == "raw":
            return f"({value})"
        return f"{field} {op} {value}"


class QueryBuilder(QGroupBox):
    """Conditions combined with and/or, written out as a search expression — and read back from one."""

    VISIBLE_ROWS = 2
    """Conditions shown at once (more scroll)."""

    changed = Signal(str)
    submitted = Signal()
    """Enter was pressed in a condition."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Query builder", parent)
        self.fields = describe_fields() + [
            ("counterexample", "check", "the deal is a counterexample to a check: 12.2, 12.3, 12.4, 8.10, 9.4, any"),
            (RAW, "raw", "any search expression, as typed"),
        ]
        self._kinds = {name: kind for name, kind, _ in self.fields}
        self.rows: list[ConditionRow] = []
        self.combine = QComboBox()
        self.combine.addItem("all of", "and")
        self.combine.addItem("any of", "or")
        self.combine.currentIndexChanged.connect(self._emit)
        self.add_button = button("+ condition", "add a condition to the expression in the search field", None)
        self.rows_layout = QVBoxLayout()
        self.rows_layout.setSpacing(4)
        top = row(QLabel("Deals matching"), self.combine, QLabel("these conditions:"))
        top.addWidget(self.add_button)
        # The conditions scroll in a box of fixed height: reading an expression back or adding a
        # condition never moves the search field and the results under the user's mouse.
        rows_widget = QWidget()
        rows_box = QVBoxLayout(rows_widget)
        rows_box.setContentsMargins(0, 0, 0, 0)
        rows_box.addLayout(self.rows_layout)
        # An empty builder says what it is for, instead of a blank box.
        self.empty_note = QLabel("No conditions yet: “+ condition” adds one, or type a search below and it "
                                 "appears here as conditions.")
        self.empty_note.setStyleSheet("color: palette(mid)")
        rows_box.addWidget(self.empty_note)
        rows_box.addStretch(1)
        self.rows_area = scrolled(rows_widget)
        self.rows_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        row_height = ConditionRow(self.fields).sizeHint().height()
        self.rows_area.setFixedHeight(self.VISIBLE_ROWS * row_height + (self.VISIBLE_ROWS - 1) * 4 + 2)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.rows_area)

    def add_row(self, field: str = "n", op: str = "=", value: str = "") -> ConditionRow:
        row = ConditionRow(self.fields)
        row.set_condition(field, op, value)
        row.changed.connect(self._emit)
        row.remove_requested.connect(self.remove_row)
        row.submitted.connect(self.submitted)
        self.rows.append(row)
        self.rows_layout.addWidget(row)
        self.empty_note.hide()
        self._emit()
        QTimer.singleShot(0, lambda: self.rows_area.ensureWidgetVisible(row) if row in self.rows else None)
        return row

    @Slot(object)
    def remove_row(self, row: ConditionRow) -> None:
        if row in self.rows:
            self.rows.remove(row)
            row.setParent(None)
            row.deleteLater()
            self.empty_note.setVisible(not self.rows)
            self._emit()

    def expression(self) -> str:
        parts = [p for p in (r.expression() for r in self.rows) if p]
        joiner = f" {self.combine.currentData()} "
        return joiner.join(parts)

    def read(self, text: str) -> None:
        """Show a typed expression as conditions: each part joined by one kind of and/or becomes a row
        (parts the builder has no field and operator for become "expression" rows, kept as typed)."""
        text = text.strip().translate(_ASCII)
        with QSignalBlocker(self):  # no changed: the search field keeps the text as typed
            for row in list(self.rows):
                self.remove_row(row)
            joiner, parts = split_conditions(text)
            if joiner:
                self.combine.setCurrentIndex(self.combine.findData(joiner))
            for part in parts:
                self.add_row(*self._condition(part))

    def _condition(self, part: str) -> tuple[str, str, str]:
        """(field, operator, constant) of one part of an expression."""
        try:
            tokens = [t for t in tokenize(part) if t.kind != "end"]
        except WhistError:
            return (RAW, "", part)
        words = [t.text for t in tokens]
        if len(tokens) == 1 and self._kinds.get(words[0]) == "flag":
            return (words[0], "holds", "")
        if len(tokens) == 2 and words[0] == "not" and self._kinds.get(words[1]) == "flag":
            return (words[1], "does not hold", "")
        if words[:2] == ["counterexample", "("] and words[-1] == ")" and "(" not in words[2:-1]:
            return ("counterexample", "has a counterexample to", part[tokens[2].pos - 1: tokens[-1].pos - 1].strip())
        kind = self._kinds.get(words[0]) if words else None
        if kind is not None and kind not in ("flag", "check", "raw") and len(tokens) >= 3:
            op = {"==": "=", "<>": "!="}.get(words[1], words[1])
            if op in KINDS.get(kind, ((), ""))[0]:
                return (words[0], op, part[tokens[2].pos - 1:].strip())
        return (RAW, "", part)

    @Slot()
    def _emit(self) -> None:
        self.changed.emit(self.expression())


def split_conditions(text: str) -> tuple[str | None, list[str]]:
    """A search expression as (and/or, its parts) at the outermost level; one part when it mixes the two."""
    try:
        tokens = tokenize(text)
    except WhistError:
        return None, [text] if text else []
    depth, cuts = 0, []
    for t in tokens:
        if t.kind == "op" and t.text == "(":
            depth += 1
        elif t.kind == "op" and t.text == ")":
            depth -= 1
        elif depth == 0 and t.kind in ("keyword", "op") and t.text in ("and", "or", "&&", "||"):
            cuts.append(t)
    joiners = {"and" if t.text in ("and", "&&") else "or" for t in cuts}
    if not text:
        return None, []
    if len(joiners) != 1:
        return None, [text]
    parts, start = [], 0
    for t in cuts:
        parts.append(text[start: t.pos - 1].strip())
        start = t.pos - 1 + len(t.text)
    parts.append(text[start:].strip())
    return joiners.pop(), [p for p in parts if p]


class SearchView(QWidget):
    """View 3: search the catalogue, page through the results, count, export, statistics, conjectures.

    Every answer from the catalogue comes from a worker through a :class:`~whist_catalogue.gui.workers.LatestOnly`
    — the count, the statistics, the export, and the pages of results (:class:`SearchResultsModel`) — so the
    window never waits for the catalogue, and an answer to an earlier request never shows beside a later one.
    """

    open_deal = Signal(str)
    """A result was double-clicked: its canonical label, for the explorer."""
    exported = Signal(int)
    TITLE = "Search and statistics"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.catalogue: Any = None
        self.count: int | None = None
        self._stats_for: Any = None
        self._after_load: Callable[[], None] | None = None
        """What to do once every matching deal is loaded (sort, or go to the last)."""
        self._export_path = ""
        self.counting = LatestOnly(context.pool, self._counted, self._count_failed, self._count_progress)
        self.loading_statistics = LatestOnly(context.pool, self._statistics_loaded, self._statistics_failed)
        self.exporting = LatestOnly(context.pool, self._export_done, self._export_failed,
                                    lambda rows: self.message.show_info(f"Exporting: {rows:,} deals written …"))
        self.message = MessageBar()
        self._build_query()
        self._build_results()
        self._build_statistics()
        self._lay_out()
        self.context.catalogue_changed.connect(self.reload)

    def _build_query(self) -> None:
        """The query builder, the search field and its buttons, and a button for each conjecture."""
        self.builder = QueryBuilder()
        self.builder.submitted.connect(self.run_search)
        # "+ condition" adds to what is typed in the search field, not to the builder's last state.
        self.builder.add_button.clicked.connect(self.add_condition)
        self.expression = QLineEdit()
        self.builder.changed.connect(self.expression.setText)
        self.expression.setPlaceholderText("value = 3+3/8   ·   n = 7 and frac in (3/8, 5/8)   ·   counterexample(12.2)")
        self.expression.setToolTip("A search expression: fields " + ", ".join(name for name, _, _ in describe_fields())
                                   + "; and, or, not, comparisons, in (…). See " + documentation("search.md") + ".")
        self.expression.setClearButtonEnabled(True)
        self.expression.returnPressed.connect(self.run_search)
        self.search_label = QLabel("Se&arch:")
        self.search_label.setBuddy(self.expression)
        self.search_button = button("&Search", "", self.run_search)
        self.examples_button = examples_button(EXAMPLES, self.search_for)
        self.export_button = button("Export &CSV…", "every matching deal, in columns for analysis (number as p/q, "
                                    "infinitesimal code, integers, card numbers): pandas.read_csv reads it as it is",
                                    self.choose_export)
        self.conjecture_buttons = {title: button(title, f"{statement}\nSearch: {expression}",
                                                 partial(self.search_for, expression))
                                   for title, expression, statement in CONJECTURES}

    def _build_results(self) -> None:
        """The matching deals, paged as the view scrolls, with their count, a busy bar and its Cancel."""
        self.results = SearchResultsModel(self.context.pool, self)
        self.results.fetched.connect(self._page_arrived)
        self.results_view = CopyTableView()
        self.results_view.setModel(self.results)
        # Thousands of rows: size columns once per search from the first page, never per inserted row.
        self.results_view.horizontalHeader().setStretchLastSection(True)
        self.results_view.horizontalHeader().setResizeContentsPrecision(SearchResultsModel.BATCH_SIZE)
        self.results_view.verticalHeader().setDefaultSectionSize(22)
        self.results_view.doubleClicked.connect(self._open_result)
        header = self.results_view.horizontalHeader()
        header.setSectionsClickable(True)
        header.setSortIndicatorShown(True)
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        header.sortIndicatorChanged.connect(self.sort_results)
        to_end = QShortcut(QKeySequence.StandardKey.MoveToEndOfDocument, self.results_view, self.go_to_last_result)
        to_end.setContext(Qt.ShortcutContext.WidgetShortcut)  # PySide6 ignores it as an argument
        # Until a search has run, the results say how to start one rather than show an empty table.
        self.results_view.hide()
        self.count_label = wrapped(NO_SEARCH_YET)
        self.count_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        enlarge(self.count_label, 1)
        # Counting a large level or exporting takes a while: a Cancel beside the count, on its line.
        self.busy_bar = BusyBar()
        self.busy_bar.cancelled.connect(self.cancel_work)

    def _build_statistics(self) -> None:
        """The statistics grid, value class × n; a click on a cell searches for its deals."""
        self.stats = StatisticsModel(self)
        self.stats_view = fitted_table(self.stats)
        self.stats_view.clicked.connect(self.open_cell)
        self.stats_view.activated.connect(self.open_cell)

    def _lay_out(self) -> None:
        search = row(self.search_label, self.expression, self.search_button, self.examples_button,
                     self.export_button, stretch=self.expression)
        conjectures = row(QLabel("The papers' conjectures:"), *self.conjecture_buttons.values())
        count_line = QHBoxLayout()
        count_line.addWidget(self.count_label, 1)
        count_line.addWidget(self.busy_bar, 1)
        results_box = stacked(count_line, self.results_view, stretch=self.results_view,
                              into=QGroupBox("Matching deals (double-click one to explore it)"))
        stats_note = wrapped("Every deal of each complete level, by the class of its value. Click a cell to list its deals.")
        stats_box = stacked(stats_note, self.stats_view, stretch=self.stats_view,
                            into=QGroupBox("Statistics: value class × n"))
        layout = QVBoxLayout(self)
        layout.addWidget(self.builder)
        layout.addLayout(search)
        layout.addLayout(conjectures)
        layout.addWidget(self.message)
        layout.addWidget(split(results_box, stats_box, sizes=(720, 620)), 1)
        self._controls = [self.expression, self.search_button, self.examples_button, self.export_button, self.builder,
                          *self.conjecture_buttons.values()]

    @property
    def busy(self) -> bool:
        return (self.counting.busy or self.loading_statistics.busy or self.exporting.busy
                or self.results.fetching)

    # -- the catalogue -------------------------------------------------------------------------------
    def showEvent(self, event) -> None:  # Qt override
        super().showEvent(event)
        if self.catalogue is None or self._stats_for is not self.catalogue:
            self.reload()

    @Slot()
    def reload(self) -> None:
        """(Re)open the catalogue; load the statistics; re-run the current search."""
        self.catalogue = self.context.catalogue()
        enabled = self.catalogue is not None
        for w in self._controls:
            w.setEnabled(enabled)
        if not enabled:
            self.results.clear()
            self.stats.set_statistics([], VALUE_CLASSES)
            self.count_label.setText("")
            problem = self.context.catalogue_problem or "no catalogue"
            self.message.show_info(
                f"Search needs a catalogue: {problem}. Build one in the Catalogue view (Ctrl+5)."
            )
            return
        self.message.clear_message()
        self._stats_for = self.catalogue
        self.loading_statistics.run(level_statistics, self.catalogue)
        if self.expression.text().strip():
            self.run_search()

    def _statistics_loaded(self, stats: list[Any]) -> None:
        self.stats.set_statistics(stats, VALUE_CLASSES)
        self.stats_view.resizeColumnsToContents()

    def _statistics_failed(self, exc: Exception) -> None:
        self.message.show_error(f"statistics: {exc}")

    # -- searching -------------------------------------------------------------------------------------
    @Slot()
    def add_condition(self) -> None:
        """Read the typed expression into the builder (so nothing typed is lost), then add an empty condition."""
        if self.expression.text().strip() != self.builder.expression():
            self.builder.read(self.expression.text())
        self.builder.add_row()

    def search_for(self, expression: str) -> None:
        """Put ``expression`` in the search field and run it (what a click on a conjecture or a cell does)."""
        self.expression.setText(expression)
        self.run_search()

    @Slot()
    def run_search(self) -> None:
        if self.catalogue is None:
            self.reload()
            if self.catalogue is None:
                return
        text = self.expression.text().strip()
        try:
            compile_search(text)
        except WhistError as exc:
            # The last search's deals and count would read as the answer to this one: clear them.
            self.counting.cancel()
            self.count = None
            self.results.clear()
            self.results_view.hide()
            self.count_label.setText("")
            self._stop_busy_bar()
            self.message.show_error(str(exc))
            return
        self.message.clear_message()
        if text != self.builder.expression():
            self.builder.read(text)
        self.results_view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self._after_load = None
        self.results.set_query(self.catalogue, text)
        self.results_view.show()
        self.results.fetchMore()
        self.count = None
        self.count_label.setText("Counting …")
        self.busy_bar.start("Counting the matching deals")
        self.counting.run(count_matches, self.catalogue, text)  # a count still running is dropped and stopped

    @Slot()
    def _page_arrived(self) -> None:
        if self.results.error:
            self.message.show_error(self.results.error)
        if self.results.rowCount() <= SearchResultsModel.BATCH_SIZE:  # the first page: fit the columns to it
            # the ranks column only for deals small enough to be written A K Q …
            self.results_view.setColumnHidden(1, not any(self.results.index(r, 1).data()
                                                         for r in range(self.results.rowCount())))
            self.results_view.resizeColumnsToContents()
        if self._after_load is not None and self.results.complete:
            then, self._after_load = self._after_load, None
            then()

    def _count_progress(self, step: tuple[int, int, int]) -> None:
        n, done, total = step
        self.busy_bar.set_progress(done, total, f"Counting the matching deals: level {n}, {done:,} of {total:,}")

    def _counted(self, count: int) -> None:
        self._stop_busy_bar()
        self.count = count
        text = self.results.expression
        levels = sorted(self.catalogue.complete_levels()) if self.catalogue else []
        scope = f"the catalogue's deals with n ≤ {max(levels)}" if levels else "the catalogue"
        if count == 0 and text.startswith("counterexample("):
            self.count_label.setText(f"No counterexample among {scope}: it holds for every one of them.")
        else:
            self.count_label.setText(f"{count:,} deal{'s' if count != 1 else ''} match, among {scope}.")

    def _count_failed(self, exc: Exception) -> None:
        self._stop_busy_bar()
        self.count_label.setText("")
        self.message.show_error(str(exc))

    def _stop_busy_bar(self) -> None:
        if not (self.counting.busy or self.exporting.busy):
            self.busy_bar.stop()

    @Slot()
    def cancel_work(self) -> None:
        """Cancel: stop the export (no file is left) and stop waiting for the count."""
        if self.exporting.busy:
            self.exporting.cancel()  # the worker stops after the chunk in hand and removes its partial file
            self.message.show_info("Export cancelled; no file written.")
        if self.counting.busy:
            self.counting.cancel()  # stops after the chunk in hand; its answer, if it comes, is dropped
            self.count_label.setText("Count cancelled.")
        self._stop_busy_bar()

    def _load_all_results(self, why: str, then: Callable[[], None]) -> None:
        """Load every matching row in a worker, then ``then()`` (sort, or go to the end); a message instead when
        there are more than the model loads."""
        if self.results.complete:
            then()
            return
        total = self.count
        if self.results.fetch_all(total):
            self._after_load = then
            return
        shown = f"all {total:,}" if total is not None else "all the"
        self.message.show_info(
            f"{why} needs {shown} matching deals loaded; at most {SearchResultsModel.FETCH_ALL_LIMIT:,} are"
            f"{'' if total is not None else ' (still counting them)'}. "
            f"Narrow the search ({narrowing_hint(self.results.expression)}) or export it to CSV."
        )
        if why == "Sorting":
            header = self.results_view.horizontalHeader()
            with QSignalBlocker(header):
                header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)

    @Slot(int, Qt.SortOrder)
    def sort_results(self, column: int, order: Qt.SortOrder) -> None:
        if column < 0 or not self.results.rowCount():
            return
        self._load_all_results("Sorting", lambda: self.results.sort(column, order))

    @Slot()
    def go_to_last_result(self) -> None:
        """Ctrl+End: the last matching deal, not the last one loaded so far."""
        if not self.results.rowCount():
            return

        def to_last() -> None:
            last = self.results.index(self.results.rowCount() - 1, max(0, self.results_view.currentIndex().column()))
            self.results_view.setCurrentIndex(last)
            self.results_view.scrollTo(last)

        self._load_all_results("Going to the last deal", to_last)

    @Slot(QModelIndex)
    def open_cell(self, index: QModelIndex) -> None:
        """Search for the deals a statistics cell counts."""
        cell = self.stats.cell(index)
        if cell is None:
            return
        name, n = cell
        condition = CLASS_EXPRESSIONS.get(name)
        self.search_for(f"n = {n}" if condition is None else f"n = {n} and {condition}")

    @Slot(QModelIndex)
    def _open_result(self, index: QModelIndex) -> None:
        if index.isValid():
            self.open_deal.emit(self.results.record(index.row()).label)

    # -- export ----------------------------------------------------------------------------------------------
    @Slot()
    def choose_export(self) -> None:
        if not self.results.expression:
            self.message.show_info("Run a search first; the export writes every deal it matches.")
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export the matching deals", "deals.csv",
                                              "CSV (*.csv);;Parquet (*.parquet);;JSON Lines (*.jsonl)")
        if path:
            self.export(path)

    def export(self, path: str | os.PathLike[str]) -> None:
        """Write every deal of the current search to ``path`` in a worker (the command line's export: refused
        over the catalogue itself, atomic, nothing left when cancelled)."""
        self._export_path = os.fspath(path)
        self.message.show_info(f"Exporting to {self._export_path} …")
        self.busy_bar.start(f"Exporting to {os.path.basename(self._export_path)}")
        self.exporting.run(export_csv, self.catalogue, self.results.expression, self._export_path)

    def _export_done(self, done: tuple[int, str]) -> None:
        rows, missing = done
        self._stop_busy_bar()
        said = f"Exported {rows:,} deals to {self._export_path}."
        self.message.show_info(said + (f" ({missing})" if missing else ""))
        self.exported.emit(rows)

    def _export_failed(self, exc: Exception) -> None:
        self._stop_busy_bar()
        self.message.show_error(f"export failed: {exc}")

    def stop(self) -> None:
        self.exporting.cancel()

    # -- screenshots -------------------------------------------------------------------------------------
    def load_example(self) -> None:
        """The exceptional fractional parts 3/8 and 5/8 of Conjecture 12.3, built with the query builder."""
        self.reload()
        if self.catalogue is not None:
            self.builder.combine.setCurrentIndex(self.builder.combine.findData("or"))
            self.builder.add_row("frac", "=", "3/8")
            self.builder.add_row("frac", "=", "5/8")
            self.run_search()
