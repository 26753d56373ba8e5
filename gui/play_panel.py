"""Play a deal out against the app, or watch the app play both sides (one suit or many, trumps or not).

All the play logic is :class:`whist_catalogue.twohand.play.Play`: the legal moves, each
card's exact result, the app's moves (while every suit is even, the theory's: a lead by the
rule of §10.4 of the multi-suit paper, or a reply; else the exact search's — optimal for the
whole deal from any position, the user's mistakes included), taking a card back, and where
each answer comes from; the play kept as a move list to step through is
:class:`whist_catalogue.twohand.play.PlayHistory`.  This panel shows the hands as
buttons (each with its result on request), the current trick on a table with the
trick before it, the tricks played with each ruff, discard and costly card, and it takes
the keys of docs/app.md (stepping, undo and redo, cards typed).
"""

from __future__ import annotations

from typing import Callable, Sequence

from PySide6.QtCore import QEvent, QItemSelectionModel, QObject, QRectF, QSignalBlocker, QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QColor, QFont, QKeyEvent, QKeySequence, QPainter, QPaintEvent, QPen, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from whist_catalogue.errors import WhistError, counted
from whist_catalogue.gui.models import TrickRow, TricksModel
from whist_catalogue.gui.widgets import (
    EAST_COLOR,
    WEST_COLOR,
    CardButton,
    CopyTableView,
    MessageBar,
    button,
    card_label,
    fitted_table,
    player_name,
    row,
    suit_symbol,
    wrapped,
)
from whist_catalogue.theory.deals import SUIT_LETTERS, Suit
from whist_catalogue.theory.labeled import Player
from whist_catalogue.theory.multisuit import Trick
from whist_catalogue.twohand.play import Move, Play, PlayHistory, PlayRecord
from whist_catalogue.theory.solution import Solver

__all__ = ["PlayPanel"]

WATCH_INTERVAL_MS = 700

SOURCE_WORDS = {"theory": "from the suits' values, Theorem 9.1", "search": "by search"}
"""Who answers the position shown (:attr:`whist_catalogue.twohand.play.Play.source`), in the status line."""


class TrickTable(QWidget):
    """The current trick drawn on a table: West's card on the left, East's on the right.

    Between tricks it shows the last trick, dimmed, with who won it; once the next
    trick has been led, a line at the foot of the table still shows the trick
    before (when the app wins a trick and leads at once, the finished trick is
    never on the table by itself).
    """

    CARD = QSize(42, 56)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cards: dict[str, str] = {}
        """The name of each player's card on the table."""
        self.caption = ""
        self.previous = ""
        """The trick before, in words ("trick 4: West ♥Q, East ♥3 — West won"), or empty."""
        self.finished_trick = False
        self.setMinimumSize(200, self.CARD.height() + 50)

    def sizeHint(self) -> QSize:
        return QSize(320, self.CARD.height() + 52)

    def show_trick(self, cards: dict[str, str], caption: str, finished: bool, previous: str = "") -> None:
        self.cards, self.caption, self.finished_trick = cards, caption, finished
        self.previous = previous
        self.setToolTip(caption + (f"\nbefore: {previous}" if previous else ""))
        self.update()

    def card_on_table(self, player: str) -> str | None:
        """The name of ``player``'s card on the table (for tests and accessibility)."""
        return self.cards.get(player)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        felt = QRectF(self.rect()).adjusted(2, 2, -2, -2)
        p.setPen(QPen(QColor("#0b4d2c"), 2))
        p.setBrush(QColor("#17683f"))
        p.drawRoundedRect(felt, 18, 18)
        w, h = self.CARD.width(), self.CARD.height()
        cy = felt.top() + 22 + h / 2
        slots = {"W": felt.center().x() - w - 18, "E": felt.center().x() + 18}
        label_font = QFont(self.font())
        label_font.setPointSizeF(max(label_font.pointSizeF() - 1, 7))
        for player, x in slots.items():
            rect = QRectF(x, cy - h / 2, w, h)
            card = self.cards.get(player)
            p.setFont(label_font)
            p.setPen(QColor("#d8eadf"))
            # the player's name beside the card, outside the trick, so the foot stays free for the trick before
            name_rect = QRectF(x - 46, cy - 9, 42, 18) if player == "W" else QRectF(x + w + 4, cy - 9, 42, 18)
            align = Qt.AlignmentFlag.AlignRight if player == "W" else Qt.AlignmentFlag.AlignLeft
            p.drawText(name_rect, align | Qt.AlignmentFlag.AlignVCenter, player_name(player))
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
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, card)
        p.setFont(label_font)
        p.setPen(QColor("white"))
        p.drawText(QRectF(felt.left() + 8, felt.top() + 3, felt.width() - 16, 18), Qt.AlignmentFlag.AlignCenter,
                   self.caption)
        if self.previous:
            p.setPen(QColor("#bfe0cc"))
            p.drawText(QRectF(felt.left() + 8, felt.bottom() - 21, felt.width() - 16, 18),
                       Qt.AlignmentFlag.AlignCenter, self.previous)
        p.end()


class PlayPanel(QWidget):
    """Hands as card buttons, the controls, the tricks so far and an optimal line to the end.

    The play is a move list (:class:`~whist_catalogue.twohand.play.PlayHistory`): ← and → step a card
    back and forward through it, Ctrl+← and Ctrl+→ a trick, Home and End go to its ends, a click on a
    trick of the list shows the position after it; Ctrl+Z takes back your last card (with the app's
    answer), Ctrl+Shift+Z plays it again.  A card is played from the keyboard by typing it (see
    :meth:`type_card`).  Stepping never plays for the app: it answers only to a card played.
    """

    changed = Signal()
    """Emitted after every card, step, undo or restart."""

    MODES = (("W", "West — the app plays East"), ("E", "East — the app plays West"), ("both", "both sides"))
    KEPT_DEALS = 8
    """Lines of play kept for deals left: editing a deal back to one of them brings its play back."""

    def __init__(self, solver_source: Callable[[], Solver], multi: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._solver_source = solver_source
        self.multi = multi
        self.suits: tuple[Suit, ...] = ()
        self.trump: int | None = None
        """The trump suit's index, None for no trumps."""
        self.history: PlayHistory | None = None
        self._kept: dict[tuple[tuple[Suit, ...], int | None], PlayHistory] = {}
        self._typed = ""
        """The keys typed so far towards a card (a suit's letter waiting for its rank, say)."""
        self._buttons: dict[tuple[str, int, int], CardButton] = {}
        self._per_row = 0
        """Cards a row of a hand held when last laid out (0: not yet laid out)."""
        self.timer = QTimer(self)
        self.timer.setInterval(WATCH_INTERVAL_MS)
        self.timer.timeout.connect(self._watch_step)
        # The panel takes the focus when clicked, and keeps it after a card (its button is rebuilt):
        # the keys below then act on the play, and a stray key never reaches the deal's editor.
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.status, self.why = wrapped(), wrapped()
        """The score and who is to play; below it, why a card as good as a marked one is not marked."""
        self.why.setStyleSheet("color: #4b5563;")
        self.why.hide()
        self.message = MessageBar()
        self.table = TrickTable()
        controls = self._controls()
        middle = QHBoxLayout()
        middle.addLayout(self._hands(), 3)
        # The table goes above the list of tricks, beside the hands (between them it pushed East's hand
        # below the fold of a 900-pixel window): both hands, the trick and the list stay in sight.
        right = QVBoxLayout()
        right.addWidget(self.table)
        right.addWidget(self._tricks_list(), 1)
        middle.addLayout(right, 3 if multi else 2)
        layout = QVBoxLayout(self)
        for controls_row in controls:
            layout.addLayout(controls_row)
        for widget in (self.message, self.status, self.why):
            layout.addWidget(widget)
        layout.addLayout(middle, 1)
        for keys, action in (("Left", self.step_back), ("Right", self.step_forward), ("Ctrl+Left", self.trick_back),
                             ("Ctrl+Right", self.trick_forward), ("Home", self.go_to_start), ("End", self.go_to_end),
                             ("Ctrl+Z", self.undo), ("Ctrl+Shift+Z", self.redo), ("Ctrl+Y", self.redo)):
            shortcut = QShortcut(QKeySequence(keys), self, action)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)  # PySide6 ignores it as an argument
        self.set_deal(None)

    def _controls(self) -> list[QHBoxLayout]:
        """Who leads and which side you play, the options, the buttons: two rows, or three in a narrow panel."""
        self.leader_box = QComboBox()
        self.leader_box.addItem("West", "W")
        self.leader_box.addItem("East", "E")
        self.leader_box.setToolTip("who leads to the first trick")
        self.leader_box.currentIndexChanged.connect(self.restart)
        self.mode_box = QComboBox()
        for key, text in self.MODES:
            self.mode_box.addItem(text, key)
        self.mode_box.setToolTip("which side you play; the app answers for the other")
        self.mode_box.currentIndexChanged.connect(self._mode_changed)
        self.results_box = QCheckBox("Show each card's result")
        self.results_box.setToolTip("under each playable card: West's tricks at the end of the deal if it is played"
                                    " and both sides play perfectly afterwards")
        self.hints = QCheckBox("Mark the best moves")
        self.hints.setToolTip("outline in green the cards the app would play here: while every suit is even, the "
                              "theory's (best leads of the suits the rule of §10.4 allows, or best replies); "
                              "else every best card, by search")
        for box in (self.hints, self.results_box):
            box.toggled.connect(self.refresh)
        self.app_button = button("App's &move", "the app plays the theory's card for the side to move", self.app_move)
        self.undo_button = button("&Undo", "take back the last card you played and the app's answer (Ctrl+Z; "
                                  "Ctrl+Shift+Z plays it again)", self.undo)
        self.restart_button = button("&Restart", "a new game of this deal from the first trick", self.restart)
        self.end_button = button("Play to the &end", "both sides follow the theory until the last trick", self.play_to_end)
        self.watch_button = button("&Watch", "the app plays both sides, one card every 0.7 s", None)
        self.watch_button.setCheckable(True)
        self.watch_button.toggled.connect(self._watch_toggled)
        choices = row(QLabel("On lead:"), self.leader_box, 12, QLabel("You play:"), self.mode_box)
        options = row(self.hints, 12, self.results_box)
        buttons = row(self.app_button, self.undo_button, self.restart_button, self.end_button, self.watch_button)
        if not self.multi:  # the explorer gives the panel the window's width: choices and options share a row
            choices.insertLayout(choices.count() - 1, options)
            return [choices, buttons]
        # A row of its own for the options: beside the choices they were clipped in a half-width panel.
        return [choices, options, buttons]

    def _hands(self) -> QVBoxLayout:
        self.hand_boxes: dict[str, QGroupBox] = {}
        self.hand_grids: dict[Player, QGridLayout] = {}
        hands = QVBoxLayout()
        for side in ("W", "E"):
            box = QGroupBox(player_name(side))
            box.setStyleSheet(f"QGroupBox {{ color: {(WEST_COLOR if side == 'W' else EAST_COLOR).name()}; }}")
            # A hand takes the width the panel gives it, and its long suits wrap to fit (see _fill_hands); it
            # keeps the height its rows need, the space left going below rather than into squeezed rows.
            box.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            box.installEventFilter(self)
            grid = QGridLayout(box)
            grid.setSpacing(3)
            grid.setContentsMargins(8, 6, 8, 6)
            self.hand_boxes[side], self.hand_grids[side] = box, grid
            hands.addWidget(box)
        hands.addStretch(1)
        return hands

    def _tricks_list(self) -> CopyTableView:
        self.tricks = TricksModel(self)
        view = self.tricks_view = fitted_table(self.tricks, stretch_last=True)
        # A long note wraps inside its column rather than widen the list past the panel (and be cut off).
        view.setWordWrap(True)
        view.horizontalHeader().setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        view.setMinimumWidth(180)
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        view.setToolTip("click a trick to see the position after it (← → step through the play)")
        view.clicked.connect(self._trick_clicked)
        for w in (view, self.leader_box, self.mode_box):
            w.installEventFilter(self)  # their own type-to-search must not swallow a typed card
        return view

    # -- the deal ------------------------------------------------------------------------------
    @property
    def play(self) -> Play | None:
        """The position shown (None without a deal)."""
        return self.history.play if self.history is not None else None

    @property
    def records(self) -> list[PlayRecord]:
        """The cards played up to the position shown."""
        return self.history.played if self.history is not None else []

    def set_deal(self, suits: Sequence[Suit] | None, trump: int | None = None) -> None:
        """Start playing ``suits`` with ``trump`` the trump suit's index (``suits`` None: nothing to play; the
        panel is disabled).

        The line played on the deal left is kept: a deal edited back to it (a card clicked out of a hand
        by mistake, then in again) comes back with its play where it was.
        """
        self.stop_watching()
        if self.history is not None and self.history.line and self.suits:
            left = (self.suits, self.trump)
            self._kept.pop(left, None)
            self._kept[left] = self.history
            while len(self._kept) > self.KEPT_DEALS:
                del self._kept[next(iter(self._kept))]
        self.suits, self.trump = tuple(suits or ()), trump
        kept = self._kept.pop((self.suits, trump), None) if self.suits else None
        if kept is not None:
            self.history = kept
            with QSignalBlocker(self.leader_box):
                self.leader_box.setCurrentIndex(self.leader_box.findData(kept.play.first_leader))
            self.message.show_info("This deal's play was kept: it is back where you left it.")
            self.refresh()
            return
        self.history = None
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
        self._typed = ""
        self.message.clear_message()
        if not self.suits:
            self.history = None
            self.refresh()
            return
        try:
            self.history = PlayHistory(Play.start(self.suits, self.leader_box.currentData(), self.solver, self.trump))
            self._app_answers()
        except WhistError as exc:
            self.history = None
            self.message.show_error(str(exc))
        self.refresh()

    @Slot()
    def _mode_changed(self) -> None:
        # Reviewing an earlier position, the app waits: it answers only at the end of the line.
        if self.history is not None and self.history.at_end and not self.history.play.finished:
            self._guard(self._app_answers)
        self.refresh()

    def play_card(self, move: Move) -> None:
        """The user plays ``move``; then the app answers for its side."""
        if self.history is None:
            return
        self._typed = ""
        if self._guard(lambda: self._play(move)):
            self._guard(self._app_answers)
        self.refresh()

    @Slot()
    def app_move(self) -> None:
        """The theory's card for the side to move (one card)."""
        play = self.play
        if play is None or play.finished:
            return
        if self._guard(lambda: self._play(play.recommended())):
            self._guard(self._app_answers)
        self.refresh()

    @Slot()
    def undo(self) -> None:
        """Take back the user's last card and whatever the app played after it (they stay in the line)."""
        history = self.history
        if history is None or history.cursor == 0:
            return
        self.stop_watching()

        def run() -> None:
            # Back to just before the last card of the user's side; in "both" mode, one card.
            while history.back():
                if not self._is_app(history.play.to_play):
                    break
            if history.at_end:
                self._app_answers()

        self._guard(run)
        self.refresh()

    @Slot()
    def redo(self) -> None:
        """Play again the user's next card of the line and the app's answers after it."""
        history = self.history
        if history is None or history.at_end:
            return
        self.stop_watching()
        history.forward()
        while not history.at_end and self._is_app(history.line[history.cursor].player):
            history.forward()
        self.refresh()

    def _step(self, target: Callable[[PlayHistory], int]) -> None:
        """Show the position after ``target(history)`` cards of the line (the app does not answer while you
        look back)."""
        history = self.history
        if history is None:
            return
        self.stop_watching()
        self._typed = ""
        history.go_to(target(history))
        self.refresh()

    @Slot()
    def step_back(self) -> None:
        self._step(lambda h: h.cursor - 1)

    @Slot()
    def step_forward(self) -> None:
        self._step(lambda h: h.cursor + 1)

    @Slot()
    def trick_back(self) -> None:
        """To the end of the trick before (from mid-trick: the start of this one)."""
        self._step(lambda h: h.cursor - 2 if h.cursor % 2 == 0 else h.cursor - 1)

    @Slot()
    def trick_forward(self) -> None:
        """To the end of the next trick of the line."""
        self._step(lambda h: h.cursor + 2 if h.cursor % 2 == 0 else h.cursor + 1)

    @Slot()
    def go_to_start(self) -> None:
        self._step(lambda h: 0)

    @Slot()
    def go_to_end(self) -> None:
        self._step(lambda h: len(h.line))

    def go_to_trick(self, t: int) -> None:
        """The position after trick ``t`` of the line (1 = the first)."""
        self._step(lambda h: 2 * t)

    @Slot()
    def play_to_end(self) -> None:
        play = self.play
        if play is None:
            return
        self.stop_watching()

        def run() -> None:
            while not play.finished:
                self._play(play.recommended())

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
        play = self.play
        if play is None or play.finished:
            self.stop_watching()
            return
        self._guard(lambda: self._play(play.recommended()))
        self.refresh()
        if play.finished:
            self.stop_watching()

    # -- cards from the keyboard ---------------------------------------------------------------
    def _card_keys(self, move: Move) -> list[str]:
        """What typing ``move`` may look like: its rank, or its suit (a letter, or a digit past four
        suits) with its rank in either order."""
        play = self.play
        assert play is not None
        rank = play.suits[move.suit].card_name(move.rank).upper()
        if not self.multi:
            return [rank]
        count = len(self.suits)
        suit = SUIT_LETTERS[move.suit] if count <= len(SUIT_LETTERS) else str(move.suit + 1)
        return [rank, suit + rank, rank + suit]

    def type_card(self, text: str) -> bool:
        """Keys typed towards a card: play it as soon as they name one legal card for the side you play.

        A rank (A K Q J T 9 … 2, or the number of the notation) is enough with one suit or when
        following suit; to lead in a deal of several suits, add the suit (S H D C) before or after
        the rank when the rank alone could be more than one card.  False if the keys name no card.
        """
        play = self.play
        if play is None or play.finished or self.watch_button.isChecked():
            return False
        if self._is_app(play.to_play):
            self.message.show_info(f"it is {player_name(play.to_play)}'s turn: the app's (App's move plays it)")
            return False
        typed = (self._typed + text).upper()
        keys = {m: self._card_keys(m) for m in play.legal_moves()}
        exact = [m for m, ks in keys.items() if typed in ks]
        longer = [m for m, ks in keys.items() if any(k.startswith(typed) and k != typed for k in ks)]
        if len(exact) == 1 and not (set(longer) - set(exact)):
            self.play_card(exact[0])
            return True
        if exact or longer:
            self._typed = typed
            self.message.show_info(f"typed {typed}: which card? add its suit ({' '.join(SUIT_LETTERS[: len(self.suits)])})"
                                   if self.multi else f"typed {typed}: go on")
            return True
        self._typed = ""
        self.message.show_info(f"{player_name(play.to_play)} has no playable card {typed} (Esc clears the keys typed)")
        return False

    @Slot()
    def clear_typed(self) -> None:
        """Forget the keys typed towards a card (Esc, which the view holding the panel passes on)."""
        self._typed = ""
        self.message.clear_message()

    def _is_card_key(self, event: QKeyEvent) -> bool:
        text = event.text()
        mods = event.modifiers() & ~(Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier)
        return len(text) == 1 and text.isalnum() and mods == Qt.KeyboardModifier.NoModifier

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt's name)
        if self._is_card_key(event):
            self.type_card(event.text())
            event.accept()
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self._typed:
            play = self.play
            if play is not None:
                exact = [m for m in play.legal_moves() if self._typed in self._card_keys(m)]
                if len(exact) == 1:
                    self.play_card(exact[0])
            event.accept()
            return
        super().keyPressEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show) and watched is self.hand_boxes["W"]:
            if self.play is not None and self._cards_per_row() != self._per_row:
                QTimer.singleShot(0, self._fill_hands)  # not inside the resize: laying out cards resizes again
            return False
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) and self._is_card_key(event):
            self.type_card(event.text())
            return True
        return False

    # -- bookkeeping ---------------------------------------------------------------------------
    def _guard(self, action: Callable[[], object]) -> bool:
        try:
            action()
        except WhistError as exc:
            self.message.show_error(str(exc))
            return False
        self.message.clear_message()
        return True

    def _play(self, move: Move) -> None:
        assert self.history is not None
        self.history.play_card(move)

    def _app_answers(self) -> None:
        play = self.play
        while play is not None and not play.finished and self._is_app(play.to_play):
            self._play(play.recommended())

    def _card_name(self, suit_index: int, rank: int) -> str:
        suit = self.play.initial[suit_index] if self.play else self.suits[suit_index]
        name = suit.card_name(rank)
        if self.multi:
            return card_label(suit_index, len(self.suits), name)
        return name

    def _row(self, t: int) -> TrickRow:
        history = self.history
        assert history is not None
        cards = history.line[2 * t : 2 * t + 2]
        trick = cards[1].trick
        assert trick is not None
        notes = [self._void_note(trick)] if trick.reply_suit is not None else []
        notes += [self._cost_note(c) for c in cards if c.cost]
        return self._trick_row(trick, notes, ahead=2 * t + 2 > history.cursor)

    def _trick_row(self, trick: Trick, notes: list[str], ahead: bool = False, projected: bool = False) -> TrickRow:
        return TrickRow(player_name(trick.leader), self._card_name(trick.suit, trick.lead), self._reply_name(trick),
                        player_name(trick.winner), "; ".join(notes), projected, ahead)

    def _reply_name(self, trick: Trick) -> str:
        return self._card_name(trick.suit if trick.reply_suit is None else trick.reply_suit, trick.reply)

    @staticmethod
    def _void_note(trick: Trick) -> str:
        """A reply to a suit the follower lacks: a ruff, which wins, or a discard."""
        return f"{player_name(trick.follower)} {'ruffs' if trick.ruff else 'discards'}"

    def _cost_note(self, card: PlayRecord) -> str:
        """What a card cost its player, against perfect play from that moment on."""
        who = player_name(card.player)
        return f"{who}'s {self._card_name(card.move.suit, card.move.rank)} cost {counted(card.cost, 'trick')}"

    def _rebuild_rows(self) -> None:
        history = self.history
        rows = [self._row(t) for t in range(len(history.tricks))] if history is not None else []
        if history is not None and history.at_end:
            try:
                rows += self.optimal_line()
            except WhistError as exc:
                self.message.show_error(f"no optimal line from here: {exc}")
        self.tricks.set_rows(rows)
        selection = self.tricks_view.selectionModel()
        selection.clearSelection()
        if history is None or not rows:
            return
        current = history.cursor // 2 - 1  # the last trick completed at the position shown
        if current >= 0:
            selection.select(self.tricks.index(current, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
                             | QItemSelectionModel.SelectionFlag.Rows)
        self.tricks_view.scrollTo(self.tricks.index(max(0, min(current + 1, len(rows) - 1)), 0))

    @Slot()
    def _trick_clicked(self) -> None:
        row = self.tricks_view.currentIndex().row()
        if self.history is not None and 0 <= row < len(self.history.tricks):
            self.go_to_trick(row + 1)
        else:
            self._rebuild_rows()  # a trick of the optimal line is not played: keep the position's row selected
        self.setFocus()

    # -- display ---------------------------------------------------------------------------------
    @Slot()
    def refresh(self) -> None:
        play = self.play
        active = play is not None
        for w in (self.watch_button, self.restart_button, self.leader_box, self.mode_box):
            w.setEnabled(active)
        self.undo_button.setEnabled(active and bool(self.records))
        for w in (self.app_button, self.end_button):
            w.setEnabled(play is not None and not play.finished)
        for widget in (*self.hand_boxes.values(), self.table, self.tricks_view):
            widget.setVisible(active)  # with no deal, empty boxes look broken: the status line says what to do
        self._fill_hands()
        self._rebuild_rows()
        self._explain_marks()
        if active:
            self.status.setText(self._status_text())
            self._show_table()
        else:
            self.status.setText("Enter a deal to play it out.")
            self.table.show_trick({}, "", False)
        self.changed.emit()

    def _fill_hands(self) -> None:
        focus = QApplication.focusWidget()
        if focus is not None and focus in self._buttons.values():
            self.setFocus()  # the card's button goes; the keys stay with the play
        for side, grid in self.hand_grids.items():
            while grid.count():
                item = grid.takeAt(0)
                widget = item.widget() if item is not None else None
                if widget is not None:
                    # Hidden now: deletion waits for the event loop, and until then a card laid out
                    # by no one would paint over the hand (seen in the screenshots, which never wait).
                    widget.hide()
                    widget.deleteLater()
        self._buttons = {}
        play = self.play
        if play is None:
            return
        count = len(self.suits)
        legal = set(play.legal_moves()) if not play.finished else set()
        best = set(play.optimal_moves()) if self.hints.isChecked() and not play.finished else set()
        results = play.card_results()
        clickable = not self.watch_button.isChecked() and self.user_side in ("both", play.to_play)
        hands = {(side, i): [self._card(side, Move(i, rank), clickable and Move(i, rank) in legal, Move(i, rank) in best,
                                        results.get(Move(i, rank))) for rank in sorted(play.hand(side, i), reverse=True)]
                 for side in self.hand_grids for i in range(count)}
        self._card_step = max((b.sizeHint().width() for b in self._buttons.values()), default=34) + 3
        per_row = self._per_row = self._cards_per_row()
        first = 1 if self.multi else 0
        for side, grid in self.hand_grids.items():
            for column in range(grid.columnCount()):
                grid.setColumnStretch(column, 0)
            grid.setColumnStretch(first + per_row, 1)  # the cards keep to the left
            row = 0
            for i in range(count):
                if self.multi:
                    symbol = QLabel(suit_symbol(i, count))
                    symbol.setMinimumWidth(self._symbol_width())
                    if i == self.trump:
                        symbol.setStyleSheet("font-weight: bold; text-decoration: underline;")
                        symbol.setToolTip("trumps")
                    grid.addWidget(symbol, row, 0)
                cards = hands[(side, i)]
                if not cards:
                    grid.addWidget(QLabel("—"), row, first)
                for j, card in enumerate(cards):
                    grid.addWidget(card, row + j // per_row, first + j % per_row)
                    card.show()  # now, not at the next event: a card clicked before then must be the one seen
                row += max(1, -(-len(cards) // per_row))

    def _card(self, side: str, move: Move, enabled: bool, best: bool, result: int | None) -> CardButton:
        """A card of ``side``'s hand, marked if ``best``, with its ``result`` under it if asked."""
        name = self.suits[move.suit].card_name(move.rank)
        card = CardButton(f"{name}\n{result}" if self.results_box.isChecked() and result is not None else name, side)
        card.setEnabled(enabled)
        card.set_flag("best", best)
        tip = f"play {self._card_name(move.suit, move.rank)} for {player_name(side)}"
        if result is not None:
            tip += f": West ends with {counted(result, 'trick')} with best play afterwards"
        card.setToolTip(tip)
        card.clicked.connect(lambda _=False, m=move: self.play_card(m))
        self._buttons[(side, move.suit, move.rank)] = card
        return card

    _card_step = 37
    """A card's width and the space after it, in pixels (measured on the cards last laid out)."""

    def _symbol_width(self) -> int:
        return 44 if len(self.suits) > len("♠♥♦♣") else 18

    def _cards_per_row(self) -> int:
        """As many cards as the width the panel gives a hand holds: a long suit wraps to a second row
        rather than widen the panel past the window (15 cards a hand in the multi-suit view)."""
        box = self.hand_boxes["W"]
        if not box.isVisible():
            return 1000  # laid out again when shown
        width = box.contentsRect().width() - 16 - (self._symbol_width() + 3 if self.multi else 0)
        return max(1, (width + 3) // self._card_step)  # k cards and the k − 1 spaces between them

    def card_button(self, side: str, rank: int, suit: int = 0) -> CardButton | None:
        return self._buttons.get((side, suit, rank))

    def _explain_marks(self) -> None:
        """With results and marks both shown, say why a card as good as a marked one is not marked."""
        play = self.play
        if play is None or play.finished or not (self.hints.isChecked() and self.results_box.isChecked()):
            self.why.hide()
            return
        marked = set(play.optimal_moves())
        unmarked = [m for m in play.best_moves() if m not in marked]
        if not unmarked:
            self.why.hide()
            return
        names = ", ".join(self._card_name(m.suit, m.rank) for m in sorted(unmarked, key=lambda m: (m.suit, -m.rank)))
        result = play.card_results()[unmarked[0]]
        self.why.setText(
            f"{names} also {'ends' if len(unmarked) == 1 else 'end'} with {counted(result, 'trick')} for West but"
            f" {'is' if len(unmarked) == 1 else 'are'} not marked: the theory ranks cards by labeled value,"
            " the exact value left — not only the tricks it rounds to (docs/spec.md §3)."
        )
        self.why.show()

    def _status_text(self) -> str:
        play = self.play
        assert play is not None and self.history is not None
        score = f"Tricks: West {play.west_tricks}, East {play.east_tricks}."
        if self.trump is not None:
            score = f"{suit_symbol(self.trump, len(self.suits))} trumps. {score}"
        if not self.history.at_end:
            score = (f"Looking back at card {self.history.cursor} of {len(self.history.line)} "
                     f"(→ or End to go on; a card played here starts a new line). {score}")
        if play.finished:
            return f"The deal is over: {score}"
        mover = player_name(play.to_play)
        you = "" if self._is_app(play.to_play) or self.user_side == "both" else " (you)"
        best = (f" With best play from here West ends with {counted(play.expected_west_tricks(), 'trick')}"
                f" ({SOURCE_WORDS[play.source]}).")
        if play.led is not None:
            led = self._card_name(play.led.suit, play.led.rank)
            return f"{score} {mover}{you} to play to {player_name(play.leader)}'s {led}.{best}"
        text = f"{score} {mover}{you} to lead.{best}"
        rule = play.lead_rule()
        if rule is not None and self.multi:
            clause, suits = rule
            names = ", ".join(suit_symbol(i, len(self.suits)) for i in suits)
            text += f" The theory's lead: {clause.describe(play.leader)} ({names})."
        return text

    @property
    def line_west_tricks(self) -> int | None:
        """West's tricks at the end of the greyed optimal line (None before a deal)."""
        if self.play is None:
            return None
        return self.play.west_tricks + sum(r.winner == "West" for r in self.tricks.projected)

    def _trick_words(self, number: int) -> str:
        play = self.play
        assert play is not None
        trick = play.tricks[number - 1]
        return (f"trick {number}: {player_name(trick.leader)} {self._card_name(trick.suit, trick.lead)}, "
                f"{player_name(trick.follower)} {self._reply_name(trick)} — {player_name(trick.winner)} won")

    def _show_table(self) -> None:
        play = self.play
        assert play is not None
        if play.led is not None:
            previous = self._trick_words(len(play.tricks)) if play.tricks else ""
            self.table.show_trick({play.leader: self._card_name(play.led.suit, play.led.rank)},
                                  f"{player_name(play.leader)} led", False, previous)
        elif play.tricks:
            last = play.tricks[-1]
            cards: dict[str, str] = {last.leader: self._card_name(last.suit, last.lead),
                                     last.follower: self._reply_name(last)}
            self.table.show_trick(cards, f"trick {len(play.tricks)}: {player_name(last.winner)} won", True)
        else:
            self.table.show_trick({}, f"{player_name(play.leader)} to lead", False)

    def optimal_line(self) -> list[TrickRow]:
        """Both sides following the theory from the current position to the end (the rest of this trick first)."""
        play = self.play
        if play is None or play.finished:
            return []
        pending = play.led
        rows = []
        for k, trick in enumerate(play.line_to_end()):
            notes = ["optimal line (led already)" if k == 0 and pending is not None else "optimal line"]
            if trick.reply_suit is not None:
                notes.append(self._void_note(trick))
            rows.append(self._trick_row(trick, notes, projected=True))
        return rows
