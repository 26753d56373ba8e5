"""Play a deal out against the app, or watch the app play both sides (one suit or many).

All the play logic is :class:`whist_catalogue.theory.play.Play`: the legal moves, the
theory's moves (a lead by the rule of §10.4 of the multi-suit paper and a best
card of that suit, or a best reply), taking a card back, and the projected
outcome ρ(Σ val) of Theorem 9.1.  This panel only shows the hands as buttons,
forwards clicks, and keeps a note of which cards left the theory's line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from PySide6.QtCore import QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
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
from whist_catalogue.theory.play import Move, Play
from whist_catalogue.theory.solution import Solver

__all__ = ["PlayPanel"]

WATCH_INTERVAL_MS = 700


@dataclass
class _Record:
    """A card played, and what the theory thought of it."""

    move: Move
    by_theory: bool
    """Whether the card was one of the theory's moves at that point."""
    expected_before: int | None = None
    """West's final tricks with best play, at the start of the trick this card began."""


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
        controls.addSpacing(12)
        controls.addWidget(self.hints)
        controls.addStretch(1)
        buttons = QHBoxLayout()
        for b in (self.app_button, self.undo_button, self.restart_button, self.end_button, self.watch_button):
            buttons.addWidget(b)
        buttons.addStretch(1)

        # hands
        self.hand_boxes: dict[str, QGroupBox] = {}
        self.hand_grids: dict[str, QGridLayout] = {}
        hands = QVBoxLayout()
        for side in ("W", "E"):
            box = QGroupBox(player_name(side))
            color = (WEST_COLOR if side == "W" else EAST_COLOR).name()
            box.setStyleSheet(f"QGroupBox {{ color: {color}; }}")
            grid = QGridLayout(box)
            grid.setHorizontalSpacing(3)
            grid.setContentsMargins(8, 6, 8, 6)
            self.hand_boxes[side], self.hand_grids[side] = box, grid
            hands.addWidget(box)
        self.trick_label = QLabel()
        self.trick_label.setWordWrap(True)
        hands.addWidget(self.trick_label)
        hands.addStretch(1)

        self.tricks = TricksModel(self)
        self.tricks_view = CopyTableView()
        self.tricks_view.setModel(self.tricks)
        fit_table(self.tricks_view, stretch_last=True)
        self.tricks_view.setMinimumWidth(320)

        middle = QHBoxLayout()
        middle.addLayout(hands, 3)
        middle.addWidget(self.tricks_view, 2)

        self.status = QLabel()
        self.status.setWordWrap(True)
        self.message = MessageBar()

        layout = QVBoxLayout(self)
        layout.addLayout(controls)
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
        if self._guard(lambda: self._play(self.play.recommended())):
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
                if not self._is_app(self.play.to_play):
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
            while not self.play.finished:
                self._play(self.play.recommended())

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
        self._guard(lambda: self._play(self.play.recommended()))
        self.refresh()
        if self.play.finished:
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
        starts_trick = play.led is None
        expected = play.expected_west_tricks() if starts_trick else None
        by_theory = move in play.optimal_moves()
        play.play(move)
        self.records.append(_Record(move, by_theory, expected))

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
        play = self.play
        trick = play.tricks[t]
        lead_rec, reply_rec = self.records[2 * t], self.records[2 * t + 1]
        notes = []
        if not lead_rec.by_theory:
            notes.append("lead off the theory's line")
        if not reply_rec.by_theory:
            notes.append("reply off the theory's line")
        after = self._expected_after(t)
        if lead_rec.expected_before is not None and after is not None and after != lead_rec.expected_before:
            delta = after - lead_rec.expected_before
            gainer, k = ("West", delta) if delta > 0 else ("East", -delta)
            notes.append(f"gave {gainer} {k} trick{'s' if k > 1 else ''}")
        return TrickRow(
            leader=player_name(trick.leader),
            lead=self._card_name(trick.suit, trick.lead),
            reply=self._card_name(trick.suit, trick.reply),
            winner=player_name(trick.winner),
            note="; ".join(notes),
        )

    def _expected_after(self, t: int) -> int | None:
        """West's final tricks with best play after trick t (the next trick's record, or the final count)."""
        if 2 * t + 2 < len(self.records):
            return self.records[2 * t + 2].expected_before
        if len(self.play.tricks) == t + 1:
            if self.play.finished:
                return self.play.west_tricks
            return self.play.expected_west_tricks() if self.play.led is None else None
        return None

    def _rebuild_rows(self) -> None:
        rows = [self._row(t) for t in range(len(self.play.tricks))] if self.play else []
        try:
            rows += self.optimal_line()
        except WhistError as exc:
            self.message.show_error(f"no optimal line from here: {exc}")
        self.tricks.set_rows(rows)
        if rows:
            self.tricks_view.scrollTo(self.tricks.index(min(len(self.play.tricks), len(rows) - 1), 0))

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
            self.trick_label.setText("")
            self.changed.emit()
            return
        self.status.setText(self._status_text())
        self.trick_label.setText(self._trick_text())
        self.changed.emit()

    def _fill_hands(self) -> None:
        for side, grid in self.hand_grids.items():
            while grid.count():
                item = grid.takeAt(0)
                if item.widget() is not None:
                    item.widget().deleteLater()
        self._buttons = {}
        play = self.play
        if play is None:
            return
        legal = set(play.legal_moves()) if not play.finished else set()
        watching = self.watch_button.isChecked()
        best = set(play.optimal_moves()) if self.hints.isChecked() and not play.finished else set()
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
                    button = CardButton(play.suits[i].card_name(rank), side)
                    button.setEnabled(clickable and move in legal)
                    button.set_flag("best", move in best)
                    button.setToolTip(f"play {self._card_name(i, rank)} for {player_name(side)}")
                    button.clicked.connect(lambda _=False, m=move: self.play_card(m))
                    self._buttons[(side, i, rank)] = button
                    grid.addWidget(button, i, col)
                    col += 1
                grid.setColumnStretch(max(col, 1) + 14, 1)

    def card_button(self, side: str, rank: int, suit: int = 0) -> CardButton | None:
        return self._buttons.get((side, suit, rank))

    def _status_text(self) -> str:
        play = self.play
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

    def _trick_text(self) -> str:
        play = self.play
        if play.led is None:
            if play.tricks:
                last = play.tricks[-1]
                return (
                    f"Last trick: {player_name(last.leader)} led {self._card_name(last.suit, last.lead)}, "
                    f"{self._card_name(last.suit, last.reply)} in reply — {player_name(last.winner)} won."
                )
            return ""
        return f"On the table: {player_name(play.leader)} led {self._card_name(play.led.suit, play.led.rank)}."

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

