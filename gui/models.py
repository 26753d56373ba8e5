"""Table models: one ``QAbstractTableModel`` per table of the app.

Every model guards ``index.isValid()`` (and the parent, for a flat table) and
returns ``None`` for roles it does not handle; each passes pytest-qt's
``qtmodeltester.check``.  Models only hold and present what the core
computed — the views fill them from :mod:`catalogue` results.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Any, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont

from whist_catalogue.gui.workers import LatestOnly, WorkerPool
from whist_catalogue.store.fields import HEADERS as FIELD_HEADERS
from whist_catalogue.store.fields import Field

from whist_catalogue.theory.deals import Suit
from whist_catalogue.theory.labeled import LabeledValue
from whist_catalogue.theory.solution import SuitSolution
from whist_catalogue.theory.values import Value, rho

__all__ = [
    "subscript",
    "ReadOnlyTableModel",
    "AlphaMatrixModel",
    "TrickRow",
    "TricksModel",
    "SuitRow",
    "SuitValuesModel",
    "GridModel",
    "LevelStatusModel",
    "human_size",
    "EndingLevelsModel",
    "SearchResultsModel",
    "fetch_page",
    "CHECKS",
    "StatisticsModel",
]

Index = QModelIndex | QPersistentModelIndex

_SUB = str.maketrans("0123456789-", "₀₁₂₃₄₅₆₇₈₉₋")

BLUE = QColor("#c7d7fb")
"""East's best reply; West wins (matrix A)."""
RED = QColor("#f9d0d0")
AMBER = QColor("#fbd9a5")
"""West's best reply; a highlighted T_k."""
GREEN = QColor("#a7e0b8")
"""A best reply for both players."""
STRONG_BLUE = QColor("#1d4ed8")
STRONG_RED = QColor("#b91c1c")
STRONG_GREEN = QColor("#15803d")
GREY = QColor("#6b7280")

CENTER = int(Qt.AlignmentFlag.AlignCenter)
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)


def subscript(k: int) -> str:
    return str(k).translate(_SUB)


def minus(k: int | str) -> str:
    """A number with a typographic minus sign."""
    return str(k).replace("-", "−")


def _bold() -> QFont:
    font = QFont()
    font.setBold(True)
    return font


class ReadOnlyTableModel(QAbstractTableModel):
    """A flat table: no children under any valid index; items selectable and enabled (QAbstractTableModel's flags)."""

    def _rows(self) -> int:
        raise NotImplementedError

    def _columns(self) -> int:
        raise NotImplementedError

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else self._rows()

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else self._columns()


class RowListModel(ReadOnlyTableModel):
    """A list of row objects under fixed column ``HEADERS``; subclasses say what each cell shows."""

    HEADERS: tuple[str, ...] = ()
    ROW_NUMBERS = True
    """Whether the rows are numbered (not where the first column says which row it is)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[Any] = []

    def set_rows(self, rows: Sequence[Any]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def _rows(self) -> int:
        return len(self.rows)

    def _columns(self) -> int:
        return len(self.HEADERS)

    def row_at(self, index: Index) -> Any:
        """The row object behind a cell, or None for an invalid or out-of-range index."""
        if not index.isValid() or not (0 <= index.row() < len(self.rows) and 0 <= index.column() < len(self.HEADERS)):
            return None
        return self.rows[index.row()]

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole or section < 0:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section] if section < len(self.HEADERS) else None
        return str(section + 1) if self.ROW_NUMBERS and section < len(self.rows) else None


# -- deal explorer ----------------------------------------------------------------------------
class AlphaMatrixModel(ReadOnlyTableModel):
    """α_ij of §7.2 of the multi-suit paper: row i is West's W_i, column j East's E_j.

    Cell (i, j) is (P, val) for West playing W_i and East E_j — P wins the trick
    and leads next, val counts the trick.  Highlights follow docs/spec.md §3: a ★ on
    the headers of the best leads; blue where E_j is a best reply to W_i,
    amber where W_i is a best reply to E_j, green where both hold.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.set_matrix(None, None, ())

    def set_matrix(self, suit: Suit | None, solution: SuitSolution | None, alpha: Sequence[Sequence[LabeledValue]]) -> None:
        self.beginResetModel()
        self.suit, self.solution, self.alpha = suit, solution, tuple(tuple(r) for r in alpha)
        self.endResetModel()

    def _rows(self) -> int:
        return len(self.alpha)

    def _columns(self) -> int:
        return len(self.alpha[0]) if self.alpha else 0

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        solution = self.solution
        if not index.isValid() or solution is None or self.suit is None:
            return None
        i, j = index.row(), index.column()
        if not (0 <= i < self._rows() and 0 <= j < self._columns()):
            return None
        a = self.alpha[i][j]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"({a.player}, {a.value.text()})"
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return CENTER
        west, east = solution.deal.west_cards[i], solution.deal.east_cards[j]
        east_best, west_best = east in solution.replies("W", west), west in solution.replies("E", east)
        if role == Qt.ItemDataRole.BackgroundRole:
            if east_best and west_best:
                return QBrush(GREEN)
            if east_best:
                return QBrush(BLUE)
            if west_best:
                return QBrush(AMBER)
            return None
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(STRONG_BLUE if a.player == "W" else STRONG_RED)
        if role == Qt.ItemDataRole.ToolTipRole:
            w, e = self.suit.name_of(west), self.suit.name_of(east)
            winner = "West" if a.player == "W" else "East"
            lines = [
                f"West plays {w}, East plays {e}: {winner} wins the trick and leads next;",
                f"West's value counting this trick: {a.value.text()}",
            ]
            if east_best:
                lines.append(f"{e} is a best reply by East when West leads {w}")
            if west_best:
                lines.append(f"{w} is a best reply by West when East leads {e}")
            return "\n".join(lines)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if self.solution is None or self.suit is None or section < 0:
            return None
        horizontal = orientation == Qt.Orientation.Horizontal
        cards = self.solution.deal.east_cards if horizontal else self.solution.deal.west_cards
        if section >= len(cards):
            return None
        card = cards[section]
        best = card in (self.solution.east_leads if horizontal else self.solution.west_leads)
        letter = "E" if horizontal else "W"
        if role == Qt.ItemDataRole.DisplayRole:
            star = " ★" if best else ""
            return f"{letter}{subscript(section + 1)} {self.suit.name_of(card)}{star}"
        if role == Qt.ItemDataRole.FontRole:
            return _bold() if best else None
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(STRONG_RED if horizontal else STRONG_BLUE)
        if role == Qt.ItemDataRole.ToolTipRole:
            who = "East" if horizontal else "West"
            text = f"{letter}{subscript(section + 1)}: {who}'s {section + 1}. lowest card, {self.suit.name_of(card)}"
            return text + (f"\n★ a best lead for {who}" if best else "")
        return None


# -- playing a deal ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TrickRow:
    """One trick as the play table shows it."""

    leader: str
    lead: str
    reply: str
    winner: str
    note: str = ""
    projected: bool = False
    """A trick of the optimal line from the current position, not yet played."""
    ahead: bool = False
    """A trick played, after the position shown (one has stepped back through the play)."""


class TricksModel(RowListModel):
    """The tricks played so far, then (greyed) an optimal line from the current position to the end.

    A played trick notes the moves that left the theory's line and what they cost.
    """

    HEADERS = ("Leader", "Led", "Reply", "Winner", "Note")
    rows: list[TrickRow]

    @property
    def played(self) -> list[TrickRow]:
        return [r for r in self.rows if not r.projected]

    @property
    def projected(self) -> list[TrickRow]:
        return [r for r in self.rows if r.projected]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.row_at(index)
        if row is None:
            return None
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (row.leader, row.lead, row.reply, row.winner, row.note)[col]
        if role == Qt.ItemDataRole.ForegroundRole:
            if row.projected or row.ahead:
                return QBrush(GREY)
            if col in (0, 3):
                who = row.leader if col == 0 else row.winner
                return QBrush(STRONG_BLUE if who == "West" else STRONG_RED)
            return None
        if role == Qt.ItemDataRole.FontRole and row.projected:
            font = QFont()
            font.setItalic(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole and row.projected:
            return "not played yet: an optimal line of play from the current position"
        if role == Qt.ItemDataRole.ToolTipRole and row.note and not row.projected:
            return row.note  # the whole note, should a narrow window cut its column short
        if role == Qt.ItemDataRole.ToolTipRole and row.ahead:
            return "played, after the position shown: click it, or press → or End, to go there"
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return LEFT if col == 4 else CENTER
        return None


# -- multi-suit calculator -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SuitRow:
    """One suit of a two-hand deal, with its value when the deal is the theory's."""

    name: str
    suit: Suit
    value: Value | None
    """None outside the theory (a deal with an uneven suit has no value in V)."""
    chosen_by: str = ""
    """``"West"``, ``"East"``, ``"West and East"`` or empty: whose first lead is in this suit (the rule of §10.4, or
    a best first card by search)."""


class SuitValuesModel(RowListModel):
    """The suits of a two-hand deal: the value, the suit's outcome alone, whose first lead it takes, the cards and
    the owner string — in that order, so that in a narrow window the values are what stays in sight.  A deal
    outside the theory has neither value nor outcome alone (the view hides those columns)."""

    HEADERS = ("Suit", "Value", "Alone", "First lead", "West / East", "Label")
    TIPS = ("", "", "West's tricks in this suit played alone, with West / East on lead: ρ(value)",
            "the suit of this side's first lead: the rule of §10.4's, or (by search) a best first card's",
            "West's cards / East's cards", "the owner of each card, lowest first (docs/spec.md §2; for an even suit, "
            "its canonical label)")
    rows: list[SuitRow]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.row_at(index)
        if row is None:
            return None
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if row.value is None:
                value = alone = "—"
            else:
                outcome = rho(row.value)
                value, alone = row.value.text(), f"({outcome.west_leads}, {outcome.east_leads})"
            return (row.name, value, alone, row.chosen_by, str(row.suit), row.suit.owners)[col]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return LEFT if col >= 4 else CENTER
        if role == Qt.ItemDataRole.FontRole and col == 1:
            font = QFont()
            font.setPointSize(font.pointSize() + 1)
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole and (col != 3 or row.chosen_by):
            return self.TIPS[col] or None
        return None


# -- catalogue status ------------------------------------------------------------------------------
def _built_at(info: Any) -> str:
    """When a level was built, to the minute."""
    return info.built_at.strftime("%Y-%m-%d %H:%M") if info.built_at else "—"


class LevelStatusModel(RowListModel):
    """The catalogue's ``level`` rows (:class:`whist_catalogue.store.reader.LevelInfo`): complete or not, counts, checksum, build."""

    HEADERS = ("n", "Status", "Deals stored", "C(2n, n)", "Built", "Seconds", "Version", "Checksum")
    ROW_NUMBERS = False

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        info = self.row_at(index)
        if info is None:
            return None
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (str(info.n), "complete" if info.complete else "not complete", f"{info.row_count:,}",
                    f"{comb(2 * info.n, info.n):,}", _built_at(info),
                    f"{info.build_seconds:.2f}" if info.build_seconds is not None else "—",
                    info.software_version or "—", (info.checksum or "—")[:16])[col]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return RIGHT if col in (0, 2, 3, 5) else LEFT
        if role == Qt.ItemDataRole.ForegroundRole and col == 1:
            return QBrush(STRONG_GREEN if info.complete else STRONG_RED)
        if role == Qt.ItemDataRole.ToolTipRole and col == 7:
            return info.checksum
        return None


def human_size(size: int | None) -> str:
    """Bytes in decimal units (1 MB = 10^6 bytes), as the command line prints them."""
    if size is None:
        return "— (a database server)"
    value = float(size)
    for unit in ("bytes", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:,.0f} {unit}" if unit == "bytes" else f"{value:,.1f} {unit}"
        value /= 1000
    return f"{size} bytes"


class EndingLevelsModel(RowListModel):
    """The catalogue's table of two-hand endings, a level a row (:class:`whist_catalogue.store.endings.EndingInfo`):
    complete or not, its positions, its chunks' bytes, when it was built and how long it took."""

    HEADERS = ("k", "Status", "Positions", "Stored", "Built", "Seconds")
    ROW_NUMBERS = False

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        info = self.row_at(index)
        if info is None:
            return None
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (str(info.k), ("damaged" if info.problem else "complete") if info.complete else "not complete",
                    f"{info.positions:,}", human_size(info.stored_bytes) if info.stored_bytes is not None else "—",
                    _built_at(info), f"{info.build_seconds:,.1f}" if info.build_seconds is not None else "—")[col]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return RIGHT if col in (0, 2, 3, 5) else LEFT
        if role == Qt.ItemDataRole.ForegroundRole and col == 1:
            return QBrush(STRONG_GREEN if info.complete and not info.problem else STRONG_RED)
        if role == Qt.ItemDataRole.ToolTipRole and col == 1:
            return info.problem
        return None


# -- search results, paged in a worker ---------------------------------------------------------
CHECKS: dict[str, tuple[str, str]] = {
    "conjecture_12_2": ("Conjecture 12.2",
                        "A non-numerical value q + x of a single-suit deal has x = ε_q, q a nonnegative integer "
                        "(or the mirror image)."),
    "conjecture_12_3": ("Conjecture 12.3",
                        "A numerical value that is not an integer has fractional part 1/2^k, 1 − 1/2^k, 3/8 or 5/8."),
    "conjecture_12_4": ("Conjecture 12.4", "Beating a lead with a card below the highest remaining card is always optimal."),
    "theorem_8_10": ("Theorem 8.10", "val(D) = k if and only if val(D₀) = k − 1/2."),
    "theorem_9_4": ("Theorem 9.4", "Single-suit paper: no hold-up below the ace is ever needed."),
    "conjecture_12_4_labeled": ("Hold-up (12.4, labeled)",
                                "Not the paper's claim: against some lead, ducking beats winning cheaply in the order "
                                "of labeled values (Conjecture 12.4 still holds; see docs/conjectures.md)."),
}
"""Check name (``whist_catalogue.engine.levels.CHECK_NAMES``) → (title, statement), as the app shows them."""


class SearchResultsModel(RowListModel):
    """The deals matching a search, fetched from the catalogue BATCH_SIZE at a time in a worker.

    ``canFetchMore``/``fetchMore`` page through :meth:`whist_catalogue.store.reader.Catalogue.search` by key — each
    page starts after the last deal shown, at that deal's chunk, never from the start of its level — in a worker
    of the app's pool through a :class:`~whist_catalogue.gui.workers.LatestOnly`, so that scrolling never waits
    for the catalogue and a page of an earlier search never lands in this one.  Only the pages a view has
    scrolled to are in memory.  Sorting by a column, and jumping to the last row, need every row:
    :meth:`fetch_all` loads the rest in one worker when there are at most ``FETCH_ALL_LIMIT``.

    The columns are the fields of :data:`whist_catalogue.store.fields.HEADERS`, with the deal in ranks
    ("Cards") beside its label.
    """

    BATCH_SIZE = 200
    FETCH_ALL_LIMIT = 50_000
    """Rows loaded at most to sort or to go to the end (a few seconds' work); beyond, narrow the search."""
    FIELDS = FIELD_HEADERS[:1] + (None,) + FIELD_HEADERS[1:]
    """The field of each column; None: the deal written in ranks."""
    HEADERS = tuple(str(f.header) if f is not None else "Cards" for f in FIELDS)  # a field of HEADERS has one
    TIPS = tuple(f"{f.meaning} ({f.source})" if f is not None
                 else "the same deal with the top ranks A K Q … (deals of up to 6 cards a hand)" for f in FIELDS)

    fetched = Signal()
    """A page (or the rest, :meth:`fetch_all`) arrived, or its fetch failed (:attr:`error`)."""

    def __init__(self, pool: WorkerPool, parent=None) -> None:
        super().__init__(parent)
        self._latest = LatestOnly(pool, self._arrived, self._failed)
        self.catalogue: Any = None
        self.expression = ""
        self._cells: list[list[str]] = []
        """The display text of each fetched row, made in the worker with its page."""
        self.complete = True
        """Whether every matching row is loaded."""
        self._inserting = False
        self.sorted_by: tuple[int, Qt.SortOrder] | None = None
        self.error: str | None = None
        """The last failure of a fetch (shown by the view), or None."""

    @property
    def fetching(self) -> bool:
        """Whether a page is on its way."""
        return self._latest.busy

    def set_query(self, catalogue: Any, expression: str) -> None:
        """Show the deals matching ``expression`` (nothing is fetched until a view asks); a page still on its way
        for the last search is dropped."""
        self._latest.cancel()
        self.beginResetModel()
        self.catalogue, self.expression = catalogue, expression
        self.rows, self._cells = [], []
        self.complete = catalogue is None or not expression
        self.sorted_by = None
        self.error = None
        self.endResetModel()

    def clear(self) -> None:
        self.set_query(None, "")

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:
        return not parent.isValid() and not self.complete

    def fetchMore(self, parent: Index = QModelIndex()) -> None:
        # Not while a page is inserted: a listener of rowsAboutToBeInserted asking for more would ask for the
        # page after the last deal shown before this one, twice.
        if parent.isValid() or self.complete or self.fetching or self._inserting:
            return
        self._fetch(self.BATCH_SIZE)

    def fetch_all(self, total: int | None) -> bool:
        """Start loading every remaining row if ``total`` (the search's count) is at most ``FETCH_ALL_LIMIT``;
        whether that is done or under way (:attr:`fetched` says when it is done)."""
        if self.complete:
            return True
        if total is None or total > self.FETCH_ALL_LIMIT:
            return False
        self._fetch(None)
        return True

    def _fetch(self, limit: int | None) -> None:
        after = self.rows[-1].key if self.rows else None
        self._latest.run(fetch_page, self.catalogue, self.expression, after, limit)

    def _arrived(self, page: tuple[list[Any], list[list[str]], int | None]) -> None:
        records, cells, limit = page
        if limit is None or len(records) < limit:
            self.complete = True
        if records:
            first = len(self.rows)
            self._inserting = True
            try:
                self.beginInsertRows(QModelIndex(), first, first + len(records) - 1)  # inclusive last row
                self.rows.extend(records)
                self._cells.extend(cells)
            finally:
                self._inserting = False
            self.endInsertRows()
        self.fetched.emit()

    def _failed(self, exc: Exception) -> None:
        self.complete = True
        self.error = str(exc)
        self.fetched.emit()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the loaded rows (the view loads them all first): values in the order of V, numbers as numbers."""
        if not (0 <= column < len(self.HEADERS)) or not self.rows:
            return
        field = self.FIELDS[column]
        self.layoutAboutToBeChanged.emit()
        pairs = sorted(zip(self.rows, self._cells), key=lambda p: (_sort_value(field, p[0], p[1][column]), p[0].key),
                       reverse=order == Qt.SortOrder.DescendingOrder)
        self.rows = [record for record, _ in pairs]
        self._cells = [cells for _, cells in pairs]
        self.sorted_by = (column, order)
        self.layoutChanged.emit()

    def record(self, row: int) -> Any:
        return self.rows[row]

    @classmethod
    def cells(cls, r: Any) -> list[str]:
        """The table's cells for one :class:`whist_catalogue.store.records.DealRecord` (for the screen; the export
        writes the machine-readable columns of :data:`whist_catalogue.store.fields.COLUMNS`)."""
        suit = r.deal.in_ranks()
        return [_cell(field, field.of_record(r), suit) if field is not None and field.of_record is not None
                else (str(suit) if suit is not None else "") for field in cls.FIELDS]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        r = self.row_at(index)
        if r is None:
            return None
        col = index.column()
        field = self.FIELDS[col]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cells[index.row()][col]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return LEFT if field is None or field.name in ("label", "flags") else CENTER
        if role == Qt.ItemDataRole.FontRole and col == 0:
            font = QFont("DejaVu Sans Mono")
            font.setStyleHint(QFont.StyleHint.Monospace)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == 0:
                return f"owner of each card, lowest first; key {r.key}. Double-click to open it in the explorer."
            if field is not None and field.name == "flags" and r.counterexamples:
                return "\n".join(f"{CHECKS.get(name, (name, ''))[0]}: {CHECKS.get(name, ('', ''))[1]}  [{name}]"
                                 for name in r.counterexamples)
            return self.TIPS[col]
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole and orientation == Qt.Orientation.Horizontal:
            return self.TIPS[section] + ". Click to sort." if 0 <= section < len(self.HEADERS) else None
        return super().headerData(section, orientation, role)


def fetch_page(catalogue: Any, expression: str, after: int | None,
               limit: int | None) -> tuple[list[Any], list[list[str]], int | None]:
    """One page of a search, after the deal whose key is ``after`` (run in a worker): the records, their cells,
    and the limit asked (so the model knows whether the search is exhausted)."""
    records = catalogue.search(expression, limit=limit, after=after)
    return records, [SearchResultsModel.cells(r) for r in records], limit


def _cell(field: Field, value: Any, suit: Suit | None) -> str:
    """A field's value for one deal as the table shows it: the paper's typography, signs as −, players by name,
    cards as ranks when the deal fits A … 2."""
    if isinstance(value, Value):
        return value.text()
    if field.kind == "pair":
        return f"({value[0]}, {value[1]})"
    if field.search == "player":
        return "West" if value == "W" else "East"
    if isinstance(value, int):
        return minus(value)
    if isinstance(value, tuple) and all(isinstance(v, str) for v in value):  # checks' names
        return ", ".join(CHECKS.get(name, (name, ""))[0] for name in value)
    if isinstance(value, tuple):  # cards
        return " ".join(suit.name_of(c) if suit is not None else str(c) for c in value)
    return str(value)


def _sort_value(field: Field | None, record: Any, cell: str) -> Any:
    """What a column sorts by: the field's own value (a value in V's order refined to a total one: number first,
    then the infinitesimal's rank), else its text."""
    if field is None or field.of_record is None:
        return cell
    if field.name == "label":
        return record.key  # a deal's label read as a number: its key
    value = field.of_record(record)
    if isinstance(value, Value):
        return (value.number, value.infinitesimal.rank)
    if isinstance(value, (int, tuple)) and not (isinstance(value, tuple) and value and isinstance(value[0], str)):
        return value
    return cell


class StatisticsModel(ReadOnlyTableModel):
    """Value class × n: how many deals of each level fall in each class (:class:`whist_catalogue.engine.statistics.LevelStatistics`).

    The last row counts every deal of the level.  :meth:`cell` names the
    (class, n) of an index, for the view to open the matching search.
    """

    ALL = "all deals"

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.set_statistics([], [])

    def set_statistics(self, statistics: Sequence[Any], classes: Sequence[str]) -> None:
        """``statistics``: one :class:`LevelStatistics` per complete level; ``classes``: the row names."""
        self.beginResetModel()
        self.levels: list[int] = [s.n for s in statistics]
        counts: dict[tuple[str, int], int] = {}
        present = set()
        for s in statistics:
            for name, count in s.to_json()["classes"].items():
                counts[(name, s.n)] = count
                present.add(name)
            counts[(self.ALL, s.n)] = s.deals
        self.classes = [c for c in classes if c in present] + ([self.ALL] if statistics else [])
        self.counts = counts
        self.endResetModel()

    def _rows(self) -> int:
        return len(self.classes)

    def _columns(self) -> int:
        return len(self.levels)

    def cell(self, index: Index) -> tuple[str, int] | None:
        if not index.isValid() or not (0 <= index.row() < len(self.classes) and 0 <= index.column() < len(self.levels)):
            return None
        return self.classes[index.row()], self.levels[index.column()]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        cell = self.cell(index)
        if cell is None:
            return None
        count = self.counts.get(cell, 0)
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{count:,}"
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return RIGHT
        if role == Qt.ItemDataRole.FontRole and cell[0] == self.ALL:
            return _bold()
        if role == Qt.ItemDataRole.ToolTipRole:
            what = "deals" if cell[0] == self.ALL else f"deals whose value is {cell[0]}"
            return f"{count:,} {what} with n = {cell[1]}: click to list them"
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole or section < 0:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return f"n = {self.levels[section]}" if section < len(self.levels) else None
        return self.classes[section] if section < len(self.classes) else None


# -- a generic grid of text, for the solved games -----------------------------------------
class GridModel(ReadOnlyTableModel):
    """A read-only grid of strings with row and column headers, optional cell colours and tooltips.

    Used for tables that are plain data from the core's JSON (decision tables,
    payoff matrices, strategies); one instance per table.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.set_grid([])

    def set_grid(
        self,
        cells: Sequence[Sequence[str]],
        row_headers: Sequence[str] = (),
        column_headers: Sequence[str] = (),
        backgrounds: dict[tuple[int, int], QColor] | None = None,
        tooltips: dict[tuple[int, int], str] | None = None,
        bold: set[tuple[int, int]] | None = None,
    ) -> None:
        self.beginResetModel()
        self.cells = [list(r) for r in cells]
        self.row_headers = list(row_headers)
        self.column_headers = list(column_headers)
        self.backgrounds = dict(backgrounds or {})
        self.tooltips = dict(tooltips or {})
        self.bold = set(bold or ())
        self.endResetModel()

    def _rows(self) -> int:
        return len(self.cells)

    def _columns(self) -> int:
        return max((len(r) for r in self.cells), default=0)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        if not (0 <= r < len(self.cells) and 0 <= c < self._columns()):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            row = self.cells[r]
            return row[c] if c < len(row) else ""
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return CENTER
        if role == Qt.ItemDataRole.BackgroundRole:
            color = self.backgrounds.get((r, c))
            return QBrush(color) if color is not None else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tooltips.get((r, c))
        if role == Qt.ItemDataRole.FontRole:
            return _bold() if (r, c) in self.bold else None
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole or section < 0:
            return None
        headers = self.column_headers if orientation == Qt.Orientation.Horizontal else self.row_headers
        if section < len(headers):
            return headers[section]
        if orientation == Qt.Orientation.Vertical and section < len(self.cells):
            return str(section + 1)
        return None
