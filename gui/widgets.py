"""Widgets the views share: inline messages, value labels, copyable tables, the hand editor, card buttons."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Iterable

from PySide6.QtCore import QAbstractItemModel, QEvent, QObject, QSignalBlocker, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QColor, QFont, QGuiApplication, QKeySequence, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from whist_catalogue.errors import WhistError
from whist_catalogue.gui.workers import LatestOnly
from whist_catalogue.theory.deals import RANK_NAMES, SUIT_SYMBOLS

if TYPE_CHECKING:
    from whist_catalogue.gui.context import AppContext

__all__ = [
    "WEST_COLOR",
    "EAST_COLOR",
    "STYLE_SHEET",
    "MessageBar",
    "BusyBar",
    "WorkerView",
    "shorten",
    "error_text",
    "examples_button",
    "ValueLabel",
    "CopyTableView",
    "HandEditor",
    "CardButton",
    "heading",
    "button",
    "row",
    "wrapped",
    "summary_label",
    "breakable",
    "matrix_view",
    "copy_text",
    "enlarge",
    "fitted_table",
    "fit_height",
    "scrolled",
    "player_name",
    "suit_symbol",
    "card_label",
]

WEST_COLOR = QColor("#1d4ed8")
EAST_COLOR = QColor("#b91c1c")

STYLE_SHEET = """
QToolButton[card="true"] {
    border: 1px solid #9ca3af; border-radius: 5px; background: #ffffff;
    font-weight: bold; min-width: 26px; min-height: 30px; padding: 1px 3px;
}
QToolButton[card="true"][editor="true"] { min-width: 18px; padding: 1px 1px; }
QToolButton[card="true"]:hover { border-color: #374151; }
QToolButton[card="true"]:focus { border: 2px solid #f59e0b; }
QToolButton[card="true"]:disabled { color: #6b7280; background: #f9fafb; border: 1px solid #e5e7eb; }
QToolButton[card="true"][side="W"]:disabled { color: #6b86d6; }
QToolButton[card="true"][side="E"]:disabled { color: #d07a7a; }
QToolButton[card="true"][side="W"]:checked { background: #1d4ed8; color: white; border-color: #1e3a8a; }
QToolButton[card="true"][side="E"]:checked { background: #b91c1c; color: white; border-color: #7f1d1d; }
QToolButton[card="true"][best="true"] { border: 2px solid #15803d; background: #dcfce7; }
QToolButton[card="true"][side="W"][played="true"] { background: #dbeafe; }
QToolButton[card="true"][side="E"][played="true"] { background: #fee2e2; }
QLabel[role="message-error"] {
    background: #fef2f2; color: #991b1b; border: 1px solid #fecaca; border-radius: 4px; padding: 4px 8px;
}
QLabel[role="message-info"] {
    background: #eff6ff; color: #1e3a8a; border: 1px solid #bfdbfe; border-radius: 4px; padding: 4px 8px;
}
QLabel[role="heading"] { font-weight: bold; color: #374151; }
QLabel[role="value"] { color: #111827; }
QGroupBox { font-weight: bold; }
"""


def player_name(player: str) -> str:
    return "West" if player == "W" else "East"


def suit_symbol(index: int, count: int) -> str:
    """♠ ♥ ♦ ♣ for a deal of at most four suits (the papers' habit), else "suit k"."""
    if count <= len(SUIT_SYMBOLS):
        return SUIT_SYMBOLS[index]
    return f"suit {index + 1}"


def card_label(index: int, count: int, name: str) -> str:
    """A card of suit ``index`` of ``count`` named by its suit and ``name``: ``♠Q``, or past four suits ``suit 5 Q``."""
    return f"{suit_symbol(index, count)}{name}" if count <= len(SUIT_SYMBOLS) else f"suit {index + 1} {name}"


def copy_text(text: str) -> None:
    QGuiApplication.clipboard().setText(text)


def error_text(exc: BaseException, failed: str | None = None) -> str:
    """What a view shows for an exception: the message of an error the user caused, else its type too.

    ``failed`` ("the build failed") introduces an unexpected error.
    """
    if isinstance(exc, WhistError):
        return str(exc)
    text = f"{type(exc).__name__}: {exc}"
    return f"{failed}: {text}" if failed else text


def examples_button(examples: Iterable[tuple[str, str]], pick: Callable[[str], None]) -> QToolButton:
    """An "Examples" drop-down: each entry shows an example and why it is there; choosing one calls pick(text)."""
    button = QToolButton()
    button.setText("E&xamples")
    button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    menu = QMenu(button)
    for text, why in examples:
        action = menu.addAction(f"{text}   — {why}")
        action.triggered.connect(lambda _=False, t=text: pick(t))
    button.setMenu(menu)
    return button


def heading(text: str) -> QLabel:
    label = wrapped(text)  # a heading that cannot wrap widens its column past a narrow window
    label.setProperty("role", "heading")
    return label


def button(text: str, tip: str, clicked: Callable[[], object] | None) -> QPushButton:
    widget = QPushButton(text)
    widget.setToolTip(tip)
    if clicked is not None:
        widget.clicked.connect(clicked)
    return widget


def row(*items: QWidget | int, stretch: QWidget | None = None) -> QHBoxLayout:
    """Widgets side by side from the left (an int: that much space); ``stretch`` takes the width left over, else
    the end of the row does."""
    layout = QHBoxLayout()
    for item in items:
        if isinstance(item, int):
            layout.addSpacing(item)
        else:
            layout.addWidget(item, 1 if item is stretch else 0)
    if stretch is None:
        layout.addStretch(1)
    return layout


def split(*panes: QWidget, sizes: tuple[int, ...] = (), stretch: tuple[int, ...] = (),
          vertical: bool = False) -> QSplitter:
    """Panes side by side (or one above the other), in the proportions of ``sizes``, taking the space a window
    gains or loses by ``stretch``, none collapsible."""
    splitter = QSplitter(Qt.Orientation.Vertical if vertical else Qt.Orientation.Horizontal)
    for k, pane in enumerate(panes):
        splitter.addWidget(pane)
        if stretch:
            splitter.setStretchFactor(k, stretch[k])
    if sizes:
        splitter.setSizes(list(sizes))
    splitter.setChildrenCollapsible(False)
    return splitter


def stacked(*items: QWidget | QHBoxLayout, stretch: QWidget | None = None, into: QWidget | None = None) -> QWidget:
    """``items`` one under another in a widget of their own (or in ``into``, a group box say); ``stretch`` takes the
    height left over."""
    holder = into if into is not None else QWidget()
    box = QVBoxLayout(holder)
    for item in items:
        if isinstance(item, QHBoxLayout):
            box.addLayout(item)
        else:
            box.addWidget(item, 1 if item is stretch else 0)
    if stretch is None:
        box.addStretch(1)
    return holder


# -- chemin-de-fer --------------------------------------------------------------------------------
def wrapped(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    return label


def summary_label() -> QLabel:
    """Where a page shows its answer in rich text (a solved game's
    :meth:`~whist_catalogue.games.solved_games.SolvedGame.html`), selectable."""
    label = wrapped()
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def breakable(text: str, run: int = 12) -> str:
    """``text`` with a zero-width space between the letters of every word longer than ``run``: a long deal or
    label (EWWEEW…, one word) may then break anywhere rather than widen its panel.  Such text is not for
    selecting: a copy would keep the invisible spaces, which no deal parser accepts."""
    return re.sub(rf"\S{{{run + 1},}}", lambda word: "\u200b".join(word.group()), text)


def matrix_view(model: QAbstractItemModel, points: int) -> QTableView:
    """A copyable table as large as its contents, its font ``points`` larger (matrices read at a glance)."""
    view = fitted_table(model)
    enlarge(view, points)
    view.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
    view.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Maximum)
    return view


class MessageBar(QLabel):
    """An inline message under an input: red for an error, blue for a note; hidden when empty.

    Its width never widens the window: a long, unbreakable deal in a message is
    clipped, not a reason to resize.
    """

    MAX_TEXT = 400
    """Characters shown of a message (a deal of n = 300 quoted in an error would fill the screen)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Maximum)
        self.hide()

    def show_error(self, text: str) -> None:
        self._show(text, "message-error")

    def show_info(self, text: str) -> None:
        self._show(text, "message-info")

    def _show(self, text: str, role: str) -> None:
        self.setProperty("role", role)
        self.style().unpolish(self)
        self.style().polish(self)
        self.setText(text if len(text) <= self.MAX_TEXT else text[: self.MAX_TEXT] + " …")
        self.setToolTip(text if len(text) > self.MAX_TEXT else "")
        self.show()

    def clear_message(self) -> None:
        self.setText("")
        self.setToolTip("")
        self.hide()

    @property
    def shown(self) -> bool:
        """Whether a message is on screen."""
        return self.isVisible() and bool(self.text())

    @property
    def is_error(self) -> bool:
        return self.shown and self.property("role") == "message-error"


class WorkerView(QWidget):
    """A view (or a page of one) whose answer comes from its worker ``task``: the deal views, the Solutions
    view's pages, the Distributions view, the Catalogue view's build.  It is ``busy`` while the answer is awaited,
    says a failure in its ``message`` bar, and emits ``loaded`` once the answer has settled either way (what the
    tests and the screenshots wait for).  A page adds ``_loaded``, which shows the answer, and (in the Solutions
    view) ``load()``, which starts the work unless it is done or under way."""

    loaded = Signal()

    def __init__(self, context: AppContext, progress: Callable[[Any], None] | None = None,
                 aborted: Callable[[], None] | None = None, preparing: Callable[[str], None] | None = None) -> None:
        super().__init__()
        self.context = context
        self.task = LatestOnly(context.pool, self._loaded, self._failed, progress, aborted, preparing)
        self.message = MessageBar()

    def _loaded(self, answer: Any, /) -> None:
        raise NotImplementedError

    @property
    def busy(self) -> bool:
        return self.task.busy

    def _failed(self, exc: Exception) -> None:
        self.message.show_error(error_text(exc))
        self.loaded.emit()


def shorten(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis (long deals in headings and messages)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class BusyBar(QWidget):
    """"Valuing … [progress] [Cancel]" for work that may take a while; it appears only after half a second.

    ``start(text)`` arms it, ``stop()`` hides it; a click on Cancel emits
    ``cancelled`` (and hides it).  Quick answers never flash a progress bar.
    """

    cancelled = Signal()
    DELAY_MS = 500

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel()
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)
        self.bar.setMaximumWidth(220)
        self.bar.setTextVisible(False)
        self.cancel_button = button("Cancel", "stop waiting for this answer (Esc)", self.cancel)
        layout = row(self.label, self.bar, self.cancel_button, stretch=self.label)
        layout.setContentsMargins(0, 0, 0, 0)
        self.setLayout(layout)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.show)
        self.running = False
        self.hide()

    def start(self, text: str) -> None:
        self.running = True
        self.set_progress(0, 0, text)  # busy until the work says how far it is
        self._timer.start(self.DELAY_MS)

    def set_progress(self, done: int, total: int, text: str | None = None) -> None:
        """A known amount of work: the bar fills (in thousandths, so counts beyond 2³¹ deals fit)."""
        if not self.running:
            return
        if text is not None and text != self.label.toolTip():
            self.label.setText(shorten(text, 120))
            self.label.setToolTip(text)
        if total > 0:
            self.bar.setRange(0, 1000)
            self.bar.setValue(min(1000, 1000 * done // total))
            self.bar.setTextVisible(True)
        else:  # nothing to count right now: busy, not a bar stuck at 0 or 100 %
            self.bar.setRange(0, 0)
            self.bar.setTextVisible(False)

    def stop(self) -> None:
        self.running = False
        self._timer.stop()
        self.hide()

    @Slot()
    def cancel(self) -> None:
        if self.running:
            self.stop()
            self.cancelled.emit()


class ValueLabel(QLabel):
    """A value in the paper's typography, large, selectable and copyable."""

    def __init__(self, text: str = "", point_size: int = 26, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        font = QFont(self.font())
        font.setPointSize(point_size)
        self.setFont(font)
        self.setProperty("role", "value")
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.addAction("Copy value", lambda: copy_text(self.text()))


class CopyTableView(QTableView):
    """A table view whose selection copies to the clipboard as tab-separated text (Ctrl+C, context menu)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setAlternatingRowColors(False)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.setTabKeyNavigation(False)  # Tab leaves the table: keyboard users move between widgets
        copy = self.addAction("Copy", QKeySequence.StandardKey.Copy, self.copy_selection)
        copy.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.addAction("Copy whole table", self.copy_all)
        self.verticalHeader().setDefaultSectionSize(26)

    @Slot()
    def copy_selection(self) -> None:
        indexes = self.selectionModel().selectedIndexes() if self.selectionModel() else []
        if not indexes:
            return
        rows = sorted({i.row() for i in indexes})
        cols = sorted({i.column() for i in indexes})
        chosen = {(i.row(), i.column()) for i in indexes}
        model = self.model()
        lines = ["\t".join(str(model.index(r, c).data() or "") if (r, c) in chosen else "" for c in cols)
                 for r in rows]
        copy_text("\n".join(lines))

    @Slot()
    def copy_all(self) -> None:
        """The headers and cells as tab-separated lines."""
        model = self.model()
        cols = model.columnCount()
        header = [""] + [str(model.headerData(c, Qt.Orientation.Horizontal) or "") for c in range(cols)]
        lines = ["\t".join(header)]
        for r in range(model.rowCount()):
            cells = [str(model.headerData(r, Qt.Orientation.Vertical) or "")]
            cells += [str(model.index(r, c).data() or "") for c in range(cols)]
            lines.append("\t".join(cells))
        copy_text("\n".join(lines))


def fitted_table(model: QAbstractItemModel, stretch_last: bool = False) -> CopyTableView:
    """A copyable table of ``model``, its columns and rows sized to their contents (headers included)."""
    view = CopyTableView()
    view.setModel(model)
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setStretchLastSection(stretch_last)
    view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    return view


class CardButton(QToolButton):
    """A card: its name in the user's notation; ``side`` colours it for West or East."""

    def __init__(self, text: str, side: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setText(text)
        self.setProperty("card", True)
        self.setProperty("side", side)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def set_flag(self, name: str, on: bool) -> None:
        if bool(self.property(name)) != on:
            self.setProperty(name, on)
            self.style().unpolish(self)
            self.style().polish(self)


class HandEditor(QWidget):
    """Click cards into the two hands: one row of the thirteen ranks for West, one for East.

    A rank clicked into one hand leaves the other.  ``even``: the suit must be even (a single-suit deal), and
    its count turns red while it is not; a suit of a two-hand deal may be split in any way.  ``changed`` is emitted for
    the user's edits only, not for :meth:`set_hands`.  Its buttons are for the
    mouse and never take the keyboard's focus: Tab passes them by and a stray
    Space cannot take a card out of a deal being played (the keyboard's way to a
    deal is the notation field beside it).
    """

    changed = Signal()
    RANKS: tuple[int, ...] = tuple(range(14, 1, -1))

    def __init__(self, title: str = "", parent: QWidget | None = None, even: bool = True) -> None:
        super().__init__(parent)
        self.even = even
        self._buttons: dict[str, dict[int, CardButton]] = {"W": {}, "E": {}}
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(3)
        self.title = QLabel(title)
        self.title.setProperty("role", "heading")
        if title:
            grid.addWidget(self.title, 0, 0, 2, 1)
        for row, side in enumerate(("W", "E")):
            label = QLabel(player_name(side))
            label.setStyleSheet(f"color: {(WEST_COLOR if side == 'W' else EAST_COLOR).name()}; font-weight: bold;")
            grid.addWidget(label, row, 1)
            for col, rank in enumerate(self.RANKS):
                button = CardButton(RANK_NAMES[rank], side)
                button.setCheckable(True)
                button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
                # In a narrow window the cards narrow (to the style's minimum) rather than be cut off.
                button.setProperty("editor", True)
                button.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
                button.setToolTip(f"put the {RANK_NAMES[rank]} in {player_name(side)}'s hand")
                button.toggled.connect(lambda on, s=side, r=rank: self._toggled(s, r, on))
                button.clicked.connect(self.changed)
                self._buttons[side][rank] = button
                grid.addWidget(button, row, col + 2)
        self.count_label = QLabel()
        grid.addWidget(self.count_label, 0, len(self.RANKS) + 2)
        self.note = wrapped()
        """Why the deal beside the picker is not drawn in it (hidden while it is)."""
        self.note.setStyleSheet("color: #4b5563;")
        grid.addWidget(self.note, 0, len(self.RANKS) + 3, 2, 1)
        self.clear_button = QToolButton()
        self.clear_button.setText("Clear")
        self.clear_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.clear_button.setToolTip("take every card out of both hands")
        self.clear_button.clicked.connect(self._clear_clicked)
        grid.addWidget(self.clear_button, 1, len(self.RANKS) + 2)
        grid.setColumnStretch(len(self.RANKS) + 3, 1)
        self._update_count()

    # -- state ------------------------------------------------------------------------------
    def hand(self, side: str) -> tuple[int, ...]:
        """The ranks in a hand, highest first."""
        return tuple(r for r in self.RANKS if self._buttons[side][r].isChecked())

    def text(self) -> str:
        """The hands in rank notation, ``KQT/AJ9`` (``-`` for an empty hand)."""
        west = "".join(RANK_NAMES[r] for r in self.hand("W")) or "-"
        east = "".join(RANK_NAMES[r] for r in self.hand("E")) or "-"
        return f"{west}/{east}"

    def set_hands(self, west: Iterable[int], east: Iterable[int]) -> bool:
        """Show the hands; False (and an empty editor) if a card is not one of A K … 2."""
        west, east = set(west), set(east)
        fits = (west | east) <= set(self.RANKS)
        for side, ranks in (("W", west), ("E", east)):
            for rank, button in self._buttons[side].items():
                with QSignalBlocker(button):
                    button.setChecked(fits and rank in ranks)
        self._update_count()
        return fits

    def clear(self, why: str = "") -> None:
        """Empty both hands; ``why``: the deal beside them cannot be drawn, and the count line says why."""
        self.set_hands((), ())
        self.note.setText(f"Not drawn here: {why}." if why else "")
        self.note.setVisible(bool(why))
        self.count_label.setVisible(not why)

    # -- edits ------------------------------------------------------------------------------
    def _toggled(self, side: str, rank: int, on: bool) -> None:
        if on:
            other = self._buttons["E" if side == "W" else "W"][rank]
            if other.isChecked():
                with QSignalBlocker(other):
                    other.setChecked(False)
        self._update_count()

    @Slot()
    def _clear_clicked(self) -> None:
        self.clear()
        self.changed.emit()

    def _update_count(self) -> None:
        self.note.hide()
        self.count_label.show()
        w, e = len(self.hand("W")), len(self.hand("E"))
        self.count_label.setStyleSheet("color: #b91c1c;" if self.even and w != e else "")
        self.count_label.setText(f"{w} : {e}")
        self.count_label.setToolTip("cards in West's and East's hands" +
                                    (" (both must hold the same number)" if self.even else " (a void: none)"))

    def button(self, side: str, rank: int) -> CardButton:
        return self._buttons[side][rank]


def fit_height(view: QTableView) -> None:
    """Fix a short table's height to its rows, plus a horizontal scroll bar when its columns are wider
    than the view — checked again whenever the view is resized, so in a small window the bar never
    covers the last row and in a large one no empty strip is left for it."""
    view.resizeRowsToContents()
    rows = view.horizontalHeader().height() + 2 * view.frameWidth()
    rows += sum(view.rowHeight(r) for r in range(view.model().rowCount()))
    needs_bar = view.horizontalHeader().length() > view.viewport().width() + 1 if view.isVisible() else \
        view.model().columnCount() > 14
    height = rows + (view.horizontalScrollBar().sizeHint().height() if needs_bar else 0)
    view.setFixedHeight(max(height, view.horizontalHeader().height() + 4))
    if view.property("fits_height") is None:
        view.setProperty("fits_height", True)
        view.installEventFilter(_HeightFitter(view))


class _HeightFitter(QObject):
    """Re-fits a :func:`fit_height` table when it is shown or resized."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show) and isinstance(watched, QTableView):
            width_changed = event.type() == QEvent.Type.Show or (
                isinstance(event, QResizeEvent) and event.size().width() != event.oldSize().width())
            if width_changed:
                QTimer.singleShot(0, watched, lambda v=watched: fit_height(v))
        return False


def scrolled(widget: QWidget) -> QScrollArea:
    """``widget`` in a frameless scroll area: on a small screen it scrolls instead of being squeezed and clipped."""
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    return area


def enlarge(widget: QWidget, points: int) -> None:
    """Make a widget's font ``points`` larger (tables that deserve to be read at a glance)."""
    font = QFont(widget.font())
    font.setPointSize(font.pointSize() + points)
    widget.setFont(font)
