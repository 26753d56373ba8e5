"""Play a deal out against the app, or watch the app play both sides (one suit or many).

All the play logic is :class:`whist_catalogue.theory.play.Play`: the legal moves, each
card's exact result, the theory's moves (a lead by the rule of §10.4 of the
multi-suit paper, or a reply — optimal for the whole deal from any position, the
user's mistakes included), taking a card back, and the projected outcome
ρ(Σ val) of Theorem 9.1.  This panel shows the hands as buttons (each with its
result on request), the current trick on a table between the hands, and notes
what each costly card cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from PySide6.QtCore import QRectF, QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from whist_catalogue.errors import WhistError
from whist_catalogue.gui.models import TrickRow, TricksModel
from whist_catalogue.gui.widgets import (
    EAST_COLOR,
    WEST_COLOR,
    CardButton,
    CopyTableView,
    MessageBar,
    fit_table,
    player_name,
    suit_symbol,
    tricks_text,
)
from whist_catalogue.theory.deals import Suit
from whist_catalogue.theory.labeled import Player
from whist_catalogue.theory.play import Move, Play
from whist_catalogue.theory.solution import Solver

__all__ = ["PlayPanel"]

WATCH_INTERVAL_MS = 700


@dataclass
class _Record:
    """A card played, who played it, and what it cost."""

    move: Move
    player: str
    cost: int
    """Tricks the player gave away with this card compared with a best card (0: a best card)."""


@dataclass(frozen=True)
class TableCard:
    """A card on the table: who played it and its name."""

    player: str
    name: str


class TrickTable(QWidget):
    """The current trick drawn on a table: West's card on the left, East's on the right.

    Between tricks it shows the last trick, dimmed, with who won it.
    """

    CARD = QSize(46, 64)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cards: list[TableCard] = []
        self.caption = ""
        self.finished_trick = False
        self.setMinimumSize(260, self.CARD.height() + 58)

    def sizeHint(self) -> QSize:
        return QSize(340, self.CARD.height() + 62)

    def show_trick(self, cards: Sequence[TableCard], caption: str, finished: bool) -> None:
        self.cards, self.caption, self.finished_trick = list(cards), caption, finished
        self.setToolTip(caption)
        self.update()

    def card_on_table(self, player: str) -> str | None:
        """The name of ``player``'s card on the table (for tests and accessibility)."""
        return next((c.name for c in self.cards if c.player == player), None)

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        felt = QRectF(self.rect()).adjusted(2, 2, -2, -2)
        p.setPen(QPen(QColor("#0b4d2c"), 2))
        p.setBrush(QColor("#17683f"))
        p.drawRoundedRect(felt, 18, 18)
        w, h = self.CARD.width(), self.CARD.height()
        cy = felt.center().y() - 8
        slots = {"W": felt.center().x() - w - 28, "E": felt.center().x() + 28}
        label_font = QFont(self.font())
        label_font.setPointSizeF(max(label_font.pointSizeF() - 1, 7))
        for player, x in slots.items():
            rect = QRectF(x, cy - h / 2, w, h)
            card = next((c for c in self.cards if c.player == player), None)
            p.setFont(label_font)
            p.setPen(QColor("#d8eadf"))
            p.drawText(QRectF(x - 20, rect.bottom() + 2, w + 40, 18), Qt.AlignmentFlag.AlignCenter,
                       player_name(player))
            if card is None:
                p.setPen(QPen(QColor("#4f9a72"), 1.5, Qt.PenStyle.DashLine))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRoundedRect(rect, 6, 6)
                continue
            p.setPen(QPen(QColor("#555555"), 1))
            p.setBrush(QColor("#f4f4f4") if self.finished_trick else QColor("white"))
            p.drawRoundedRect(rect, 6, 6)
            color = WEST_COLOR if player == "W" else EAST_COLOR
            if self.finished_trick:
                color = QColor(color)
                color.setAlpha(150)
            p.setPen(color)
            font = QFont(self.font())
            font.setPointSizeF(font.pointSizeF() + 5)
            font.setBold(True)
            p.setFont(font)
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, card.name)
        p.setFont(label_font)
        p.setPen(QColor("white"))
        p.drawText(QRectF(felt.left() + 8, felt.top() + 4, felt.width() - 16, 18), Qt.AlignmentFlag.AlignCenter,
                   self.caption)
        p.end()


class PlayPanel(QWidget):
    """Hands as card buttons, the controls, the tricks so far and an optimal line to the end."""

    changed = Signal()
    """Emitted after every card, undo or restart."""

    MODES = (("W", "West — the app plays East"), ("E", "East — the app plays West"), ("both", "both sides"))

    def __init__(self, solver_source, multi: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._solver_source = solver_source
        """A callable returning the solver to play with."""
        self.multi = multi
        self.suits: tuple[Suit, ...] = ()
        self.play: Play | None = None
        self.records: list[_Record] = []
        self.timer = QTimer(self)
        self.timer.setInterval(WATCH_INTERVAL_MS)
        self.timer.timeout.connect(self._watch_step)

        # controls
        self.leader_box = QComboBox()
        self.leader_box.addItem("West", "W")
        self.leader_box.addItem("East", "E")
        self.leader_box.setToolTip("who leads to the first trick")
        self.mode_box = QComboBox()
        for key, text in self.MODES:
            self.mode_box.addItem(text, key)
        self.mode_box.setToolTip("which side you play; the app answers for the other")
        self.results_box = QCheckBox("Show each card's result")
        self.results_box.setToolTip("under each playable card: West's tricks at the end of the deal if it is played"
                                    " and both sides play perfectly afterwards")
        self.hints = QCheckBox("Mark the theory's moves")
        self.hints.setToolTip("outline in green the cards the theory plays here (best leads of the suits the rule of §10.4 allows, or best replies)")
        self.app_button = QPushButton("App's &move")
        self.app_button.setToolTip("the app plays the theory's card for the side to move")
        self.undo_button = QPushButton("&Undo")
        self.undo_button.setToolTip("take back the last card you played (and the app's answer)")
        self.restart_button = QPushButton("&Restart")
        self.end_button = QPushButton("Play to the &end")
        self.end_button.setToolTip("both sides follow the theory until the last trick")
        self.watch_button = QPushButton("&Watch")
        self.watch_button.setCheckable(True)
        self.watch_button.setToolTip("the app plays both sides, one card every 0.7 s")

        self.leader_box.currentIndexChanged.connect(self.restart)
        self.mode_box.currentIndexChanged.connect(self._mode_changed)
        self.hints.toggled.connect(self.refresh)
        self.results_box.toggled.connect(self.refresh)
        self.app_button.clicked.connect(self.app_move)
        self.undo_button.clicked.connect(self.undo)
        self.restart_button.clicked.connect(self.restart)
        self.restart_button.setToolTip("back to the first trick")
        self.end_button.clicked.connect(self.play_to_end)
        self.watch_button.toggled.connect(self._watch_toggled)

        controls = QHBoxLayout()
        controls.addWidget(QLabel("On lead:"))
        controls.addWidget(self.leader_box)
        controls.addSpacing(12)
        controls.addWidget(QLabel("You play:"))
        controls.addWidget(self.mode_box)
        controls.addStretch(1)
        # The options get a row of their own: beside the choices they were clipped in a half-width panel.
        options = QHBoxLayout()
        options.addWidget(self.hints)
        options.addSpacing(12)
        options.addWidget(self.results_box)
        options.addStretch(1)
        buttons = QHBoxLayout()
        for b in (self.app_button, self.undo_button, self.restart_button, self.end_button, self.watch_button):
            buttons.addWidget(b)
        buttons.addStretch(1)

        # hands
        self.hand_boxes: dict[str, QGroupBox] = {}
        self.hand_grids: dict[Player, QGridLayout] = {}
        hands = QVBoxLayout()
        self.table = TrickTable()
        for side in ("W", "E"):
            box = QGroupBox(player_name(side))
            color = (WEST_COLOR if side == "W" else EAST_COLOR).name()
            box.setStyleSheet(f"QGroupBox {{ color: {color}; }}")
            # A hand keeps the height its cards need; the space left goes below, not into squeezed rows.
            box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
            grid = QGridLayout(box)
            grid.setHorizontalSpacing(3)
            grid.setContentsMargins(8, 6, 8, 6)
            self.hand_boxes[side], self.hand_grids[side] = box, grid
            hands.addWidget(box)
            if side == "W":
                hands.addWidget(self.table)  # the trick in the middle, between the two hands
        hands.addStretch(1)

        self.tricks = TricksModel(self)
        self.tricks_view = CopyTableView()
        self.tricks_view.setModel(self.tricks)
        fit_table(self.tricks_view, stretch_last=True)
        self.tricks_view.setMinimumWidth(260)

        middle = QHBoxLayout()
        middle.addLayout(hands, 3)
        middle.addWidget(self.tricks_view, 2)

        self.status = QLabel()
        self.status.setWordWrap(True)
        self.message = MessageBar()

        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addLayout(options)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        layout.addWidget(self.status)
        layout.addLayout(middle, 1)
        self._buttons: dict[tuple[str, int, int], CardButton] = {}
        self.set_deal(None)

    # -- the deal ------------------------------------------------------------------------------
    def set_deal(self, suits: Sequence[Suit] | None) -> None:
        """Start playing ``suits`` (None: nothing to play; the panel is disabled)."""
        self.stop_watching()
        self.suits = tuple(suits or ())
        self.play = None
        self.restart()

    @property
    def solver(self) -> Solver:
        return self._solver_source()

    @property
    def user_side(self) -> str:
        return self.mode_box.currentData()

    def _is_app(self, player: str) -> bool:
        return self.user_side != "both" and player != self.user_side

    # -- actions -------------------------------------------------------------------------------
    @Slot()
    def restart(self) -> None:
        self.records = []
        self.message.clear_message()
        if not self.suits:
            self.play = None
            self.refresh()
            return
        try:
            self.play = Play.start(self.suits, self.leader_box.currentData(), self.solver)
            self._app_answers()
        except WhistError as exc:
            self.play = None
            self.message.show_error(str(exc))
        self.refresh()

    @Slot()
    def _mode_changed(self) -> None:
        if self.play is not None and not self.play.finished:
            self._guard(self._app_answers)
        self.refresh()

    def play_card(self, move: Move) -> None:
        """The user plays ``move``; then the app answers for its side."""
        if self.play is None:
            return
        if self._guard(lambda: self._play(move)):
            self._guard(self._app_answers)
        self.refresh()

    @Slot()
    def app_move(self) -> None:
        """The theory's card for the side to move (one card)."""
        if self.play is None or self.play.finished:
            return
        if self._guard(lambda: self._play(self._playing().recommended())):
            self._guard(self._app_answers)
        self.refresh()

    @Slot()
    def undo(self) -> None:
        """Take back the user's last card and whatever the app played after it."""
        if self.play is None or not self.records:
            return
        self.stop_watching()

        def run() -> None:
            # Undo down to (and including) the last card of the user's side; in "both" mode, one card.
            while self.records:
                self._undo_once()
                if not self._is_app(self._playing().to_play):
                    break
            self._app_answers()

        self._guard(run)
        self.refresh()

    @Slot()
    def play_to_end(self) -> None:
        if self.play is None:
            return
        self.stop_watching()

        def run() -> None:
            while not self._playing().finished:
                self._play(self._playing().recommended())

        self._guard(run)
        self.refresh()

    def stop_watching(self) -> None:
        if self.watch_button.isChecked():
            self.watch_button.setChecked(False)
        self.timer.stop()

    @Slot(bool)
    def _watch_toggled(self, on: bool) -> None:
        if on and (self.play is None or self.play.finished):
            if self.play is not None:
                self.restart()
            if self.play is None:
                self.watch_button.setChecked(False)
                return
        self.watch_button.setText("&Pause" if on else "&Watch")
        if on:
            self.timer.start()
        else:
            self.timer.stop()
        self.refresh()

    @Slot()
    def _watch_step(self) -> None:
        if self.play is None or self.play.finished:
            self.stop_watching()
            return
        self._guard(lambda: self._play(self._playing().recommended()))
        self.refresh()
        if self._playing().finished:
            self.stop_watching()

    # -- bookkeeping ---------------------------------------------------------------------------
    def _guard(self, action) -> bool:
        try:
            action()
        except WhistError as exc:
            self.message.show_error(str(exc))
            return False
        self.message.clear_message()
        return True

    def _play(self, move: Move) -> None:
        play = self.play
        assert play is not None
        record = _Record(move, play.to_play, play.cost(move))
        play.play(move)
        self.records.append(record)

    def _app_answers(self) -> None:
        play = self.play
        while play is not None and not play.finished and self._is_app(play.to_play):
            self._play(play.recommended())

    def _undo_once(self) -> None:
        assert self.play is not None
        self.play.undo()
        self.records.pop()

    def _card_name(self, suit_index: int, rank: int) -> str:
        suit = self.play.initial[suit_index] if self.play else self.suits[suit_index]
        name = suit.card_name(rank)
        if self.multi:
            return f"{suit_symbol(suit_index, len(self.suits))}{name}"
        return name

    def _row(self, t: int) -> TrickRow:
        play = self._playing()
        trick = play.tricks[t]
        notes = [self._cost_note(r) for r in self.records[2 * t : 2 * t + 2] if r.cost]
        return TrickRow(
            leader=player_name(trick.leader),
            lead=self._card_name(trick.suit, trick.lead),
            reply=self._card_name(trick.suit, trick.reply),
            winner=player_name(trick.winner),
            note="; ".join(notes),
        )

    def _cost_note(self, record: _Record) -> str:
        """What a card cost its player, against perfect play from that moment on."""
        who = player_name(record.player)
        k = record.cost
        return f"{who}'s {self._card_name(record.move.suit, record.move.rank)} cost {who} {k} trick{'s' if k > 1 else ''}"

    def _rebuild_rows(self) -> None:
        rows = [self._row(t) for t in range(len(self.play.tricks))] if self.play else []
        try:
            rows += self.optimal_line()
        except WhistError as exc:
            self.message.show_error(f"no optimal line from here: {exc}")
        self.tricks.set_rows(rows)
        if rows:
            self.tricks_view.scrollTo(self.tricks.index(min(len(self._playing().tricks), len(rows) - 1), 0))

    # -- display ---------------------------------------------------------------------------------
    @Slot()
    def refresh(self) -> None:
        play = self.play
        active = play is not None
        for w in (self.app_button, self.end_button, self.watch_button, self.restart_button, self.leader_box, self.mode_box):
            w.setEnabled(active)
        self.undo_button.setEnabled(active and bool(self.records))
        self.app_button.setEnabled(active and not play.finished)
        self.end_button.setEnabled(active and not play.finished)
        self._fill_hands()
        self._rebuild_rows()
        if not active:
            self.status.setText("Enter a deal to play it out.")
            self.table.show_trick([], "", False)
            self.changed.emit()
            return
        self.status.setText(self._status_text())
        self._show_table()
        self.changed.emit()

    def _fill_hands(self) -> None:
        for side, grid in self.hand_grids.items():
            while grid.count():
                item = grid.takeAt(0)
                widget = item.widget() if item is not None else None
                if widget is not None:
                    widget.deleteLater()
        self._buttons = {}
        play = self.play
        if play is None:
            return
        legal = set(play.legal_moves()) if not play.finished else set()
        watching = self.watch_button.isChecked()
        best = set(play.optimal_moves()) if self.hints.isChecked() and not play.finished else set()
        results = play.card_results() if not play.finished else {}
        show_results = self.results_box.isChecked()
        clickable = not watching and (self.user_side == "both" or play.to_play == self.user_side)
        count = len(self.suits)
        for side, grid in self.hand_grids.items():
            for i in range(count):
                col = 0
                if self.multi:
                    symbol = QLabel(suit_symbol(i, count))
                    symbol.setMinimumWidth(44 if count > len("♠♥♦♣") else 18)
                    grid.addWidget(symbol, i, col)
                    col += 1
                hand = play.hand(side, i)
                if not hand:
                    grid.addWidget(QLabel("—"), i, col)
                for rank in sorted(hand, reverse=True):
                    move = Move(i, rank)
                    name = play.suits[i].card_name(rank)
                    result = results.get(move)
                    button = CardButton(f"{name}\n{result}" if show_results and result is not None else name, side)
                    button.setEnabled(clickable and move in legal)
                    button.set_flag("best", move in best)
                    tip = f"play {self._card_name(i, rank)} for {player_name(side)}"
                    if result is not None:
                        tip += f": West ends with {tricks_text(result)} with best play afterwards"
                    button.setToolTip(tip)
                    button.clicked.connect(lambda _=False, m=move: self.play_card(m))
                    self._buttons[(side, i, rank)] = button
                    grid.addWidget(button, i, col)
                    col += 1
                grid.setColumnStretch(max(col, 1) + 14, 1)

    def _playing(self) -> Play:
        """The play in progress: what calls this runs only while a deal is set."""
        if self.play is None:
            raise RuntimeError("no deal is being played")
        return self.play

    def card_button(self, side: str, rank: int, suit: int = 0) -> CardButton | None:
        return self._buttons.get((side, suit, rank))

    def _status_text(self) -> str:
        play = self._playing()
        score = f"Tricks: West {play.west_tricks}, East {play.east_tricks}."
        if play.finished:
            return f"The deal is over: {score}"
        mover = player_name(play.to_play)
        you = "" if self._is_app(play.to_play) or self.user_side == "both" else " (you)"
        if play.led is None:
            expected = play.expected_west_tricks()
            text = f"{score} {mover}{you} to lead. With best play from here West ends with {tricks_text(expected)}."
            rule = play.lead_rule()
            if rule is not None and self.multi:
                clause, suits = rule
                names = ", ".join(suit_symbol(i, len(self.suits)) for i in suits)
                text += f" The theory's lead: {clause.describe(play.leader)} ({names})."
            return text
        led = self._card_name(play.led.suit, play.led.rank)
        return f"{score} {mover}{you} to play to {player_name(play.leader)}'s {led}."

    @property
    def line_west_tricks(self) -> int | None:
        """West's tricks at the end of the greyed optimal line (None before a deal)."""
        if self.play is None:
            return None
        return self.play.west_tricks + sum(r.winner == "West" for r in self.tricks.projected)

    def _show_table(self) -> None:
        play = self._playing()
        if play.led is not None:
            card = TableCard(play.leader, self._card_name(play.led.suit, play.led.rank))
            self.table.show_trick([card], f"{player_name(play.leader)} led", False)
        elif play.tricks:
            last = play.tricks[-1]
            reply = "E" if last.leader == "W" else "W"
            cards = [TableCard(last.leader, self._card_name(last.suit, last.lead)),
                     TableCard(reply, self._card_name(last.suit, last.reply))]
            self.table.show_trick(cards, f"trick {len(play.tricks)}: {player_name(last.winner)} won", True)
        else:
            self.table.show_trick([], f"{player_name(play.leader)} to lead", False)

    def optimal_line(self) -> list[TrickRow]:
        """Both sides following the theory from the current position to the end (the rest of this trick first)."""
        play = self.play
        if play is None or play.finished:
            return []
        pending = play.led
        rows = []
        for k, trick in enumerate(play.line_to_end()):
            rows.append(
                TrickRow(
                    player_name(trick.leader),
                    self._card_name(trick.suit, trick.lead),
                    self._card_name(trick.suit, trick.reply),
                    player_name(trick.winner),
                    "optimal line (card already led)" if k == 0 and pending is not None else "optimal line",
                    projected=True,
                )
            )
        return rows

