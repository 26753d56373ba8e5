"""Playing a deal through the play panel as a user would: stepping through the play with the keys, cards
typed on the keyboard, no stray key that loses a deal, the marks explained."""

import pytest
from gui_support import make_window, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from whist_catalogue.twohand.play import Move

K, Q, J, T, A = 13, 12, 11, 10, 14


@pytest.fixture
def window(qtbot):
    return make_window(qtbot)


def enter(qtbot, window, view, text):
    view.input.clear()
    qtbot.keyClicks(view.input, text)
    qtbot.keyClick(view.input, Qt.Key.Key_Return)
    wait_idle(qtbot, window, view)


@pytest.fixture
def explorer(qtbot, window):
    view = window.show_view("explorer")
    enter(qtbot, window, view, "KQT/AJ9")
    return view


def key(qtbot, panel, k, mods=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(panel, k, mods)


def test_arrow_keys_step_through_the_play_and_the_app_waits(qtbot, explorer):
    panel = explorer.play_panel
    qtbot.mouseClick(panel.card_button("W", K), Qt.MouseButton.LeftButton)  # West leads the K, East answers
    qtbot.mouseClick(panel.card_button("W", T), Qt.MouseButton.LeftButton)
    line = [c.move for c in panel.history.line]
    assert line == [Move(0, K), Move(0, 9), Move(0, T), Move(0, J), Move(0, A)]  # East won the T and led the A
    assert panel.history.at_end and panel.play.to_play == "W"
    assert panel.hasFocus()  # the played card's button is gone; the keys stay with the play
    key(qtbot, panel, Qt.Key.Key_Left)
    assert panel.history.cursor == 4 and panel.play.led is None and len(panel.play.tricks) == 2
    assert panel.play.to_play == "E"  # the app's lead, yet it does not play while one looks back
    assert panel.table.finished_trick and panel.table.card_on_table("E") == "J"  # the last trick, reviewed
    assert "Looking back at card 4 of 5" in panel.status.text()
    key(qtbot, panel, Qt.Key.Key_Left)
    assert panel.history.cursor == 3 and panel.table.card_on_table("W") == "T"
    assert panel.table.card_on_table("E") is None and not panel.table.finished_trick
    key(qtbot, panel, Qt.Key.Key_Home)
    assert panel.history.cursor == 0 and panel.play.tricks == []
    assert [r.ahead for r in panel.tricks.rows] == [True, True]  # the line stays in the list, greyed
    key(qtbot, panel, Qt.Key.Key_Right)
    key(qtbot, panel, Qt.Key.Key_Right)
    assert panel.history.cursor == 2 and panel.table.finished_trick  # the first trick, complete, on the table
    assert panel.tricks_view.selectionModel().isRowSelected(0)
    key(qtbot, panel, Qt.Key.Key_Right, Qt.KeyboardModifier.ControlModifier)
    assert panel.history.cursor == 4
    key(qtbot, panel, Qt.Key.Key_Left, Qt.KeyboardModifier.ControlModifier)
    assert panel.history.cursor == 2
    key(qtbot, panel, Qt.Key.Key_End)
    assert panel.history.at_end and [c.move for c in panel.history.line] == line
    assert panel.tricks.rowCount() == 3 and panel.tricks.rows[2].projected  # the optimal line again, at the end


def test_clicking_a_trick_shows_the_position_after_it(qtbot, explorer):
    panel = explorer.play_panel
    panel.play_to_end()
    view = panel.tricks_view
    rect = view.visualRect(panel.tricks.index(0, 1))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert panel.history.cursor == 2 and len(panel.play.tricks) == 1
    assert panel.table.card_on_table("W") == "Q"  # the theory's line: West leads the Q ...
    assert panel.hasFocus()
    key(qtbot, panel, Qt.Key.Key_Right)  # ... and the arrow keys go on from there
    assert panel.history.cursor == 3


def test_undo_and_redo_take_back_and_replay_your_card_and_the_apps_answer(qtbot, explorer):
    panel = explorer.play_panel
    panel.setFocus()
    panel.play_card(Move(0, K))
    panel.play_card(Move(0, Q))
    assert panel.history.cursor == 5 and panel.play.to_play == "W"  # East won the Q and led at once
    key(qtbot, panel, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert panel.history.cursor == 2 and panel.play.to_play == "W"
    key(qtbot, panel, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert panel.history.cursor == 0
    key(qtbot, panel, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert panel.history.cursor == 2 and panel.play.tricks[0].lead == K
    key(qtbot, panel, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert panel.history.cursor == 5 and panel.history.at_end
    # a card other than the line's, played at an earlier position, starts a new line there
    panel.go_to_start()
    panel.play_card(Move(0, T))
    assert [c.move.rank for c in panel.history.line][0] == T and panel.history.at_end


def test_the_trick_the_app_won_stays_in_sight_when_it_leads_at_once(qtbot, explorer):
    panel = explorer.play_panel
    panel.mode_box.setCurrentIndex(panel.mode_box.findData("E"))  # you play East: the app leads for West
    assert panel.play.led is not None and panel.play.leader == "W"
    led = panel.play.led.rank
    panel.play_card(Move(0, 9))  # East plays low: West wins and leads again at once
    assert panel.play.tricks[0].winner == "W" and panel.play.led is not None
    name = {K: "K", Q: "Q"}[led]
    assert panel.table.previous == f"trick 1: West {name}, East 9 — West won"
    panel.setFocus()
    key(qtbot, panel, Qt.Key.Key_Left)  # and one step back shows it on the table by itself
    assert panel.table.finished_trick and panel.table.card_on_table("E") == "9"


def test_a_card_is_played_by_typing_it(qtbot, explorer):
    panel = explorer.play_panel
    panel.setFocus()
    key(qtbot, panel, Qt.Key.Key_K)
    assert panel.history.line[0].move == Move(0, K) and len(panel.play.tricks) == 1
    key(qtbot, panel, Qt.Key.Key_A)  # West holds no A: nothing is played, and the panel says so
    assert panel.history.cursor == 2 and "no playable card A" in panel.message.text()
    key(qtbot, panel, Qt.Key.Key_T)
    assert panel.history.line[2].move == Move(0, T)


def test_a_card_typed_in_several_suits_names_its_suit_when_the_rank_is_not_enough(qtbot, window):
    calculator = window.show_view("calculator")
    enter(qtbot, window, calculator, "KQT/AJ9, K2/A3")
    panel = calculator.play_panel
    panel.tricks_view.setFocus()  # the list's own type-to-search does not swallow the keys
    key(qtbot, panel.tricks_view, Qt.Key.Key_K)
    assert panel.history.cursor == 0 and "add its suit" in panel.message.text()
    key(qtbot, panel.tricks_view, Qt.Key.Key_H)
    assert panel.history.line[0].move == Move(1, K)
    panel.go_to_start()
    key(qtbot, panel, Qt.Key.Key_S)
    key(qtbot, panel, Qt.Key.Key_Q)
    assert panel.history.line[0].move == Move(0, Q)


def test_no_stray_key_takes_a_card_out_of_a_deal_in_play(qtbot, window, explorer):
    panel = explorer.play_panel
    panel.play_card(Move(0, K))
    deal = explorer.input.text()
    panel.setFocus()
    editor_buttons = [explorer.editor.button(s, r) for s in "WE" for r in explorer.editor.RANKS]
    for _ in range(40):  # Tab round the whole view: never onto a card of the deal's editor
        key(qtbot, QApplication.focusWidget(), Qt.Key.Key_Tab)
        assert QApplication.focusWidget() not in editor_buttons
    panel.setFocus()
    for k in (Qt.Key.Key_Space, Qt.Key.Key_Delete, Qt.Key.Key_Backspace, Qt.Key.Key_X):
        key(qtbot, panel, k)
    assert explorer.input.text() == deal and len(panel.play.tricks) == 1


def test_a_deal_edited_back_brings_its_play_back(qtbot, window, explorer):
    panel = explorer.play_panel
    panel.play_card(Move(0, K))
    qtbot.mouseClick(explorer.editor.button("W", T), Qt.MouseButton.LeftButton)  # a card out, by mistake
    wait_idle(qtbot, window, explorer)
    assert explorer.input.text() == "KQ/AJ9"
    assert panel.play is None or not panel.play.tricks
    qtbot.mouseClick(explorer.editor.button("W", T), Qt.MouseButton.LeftButton)  # ... and in again
    wait_idle(qtbot, window, explorer)
    assert explorer.input.text() == "KQT/AJ9"
    assert len(panel.play.tricks) == 1 and panel.play.tricks[0].lead == K


def test_a_card_as_good_as_the_marked_ones_is_explained(qtbot, explorer):
    panel = explorer.play_panel
    panel.hints.setChecked(True)
    assert panel.why.isHidden()  # one line, only when both the marks and the results are shown
    panel.results_box.setChecked(True)
    results = {r: panel.card_button("W", r).text().split("\n")[1] for r in (K, Q, T)}
    assert results == {K: "1", Q: "1", T: "1"}
    assert [r for r in (K, Q, T) if panel.card_button("W", r).property("best")] == [K, Q]
    assert not panel.why.isHidden()
    assert panel.why.text().startswith("T also ends with 1 trick for West but is not marked")
    assert "labeled value" in panel.why.text()
    panel.play_card(Move(0, K))  # after the first trick nothing ties unmarked
    assert panel.why.isHidden()


def _scroll_area(widget):
    from PySide6.QtWidgets import QScrollArea

    while widget is not None and not isinstance(widget, QScrollArea):
        widget = widget.parentWidget()
    return widget


def _in_sight(widget) -> bool:
    """Whether the whole widget lies in the visible part of the scroll area around it."""
    from PySide6.QtCore import QPoint, QRect

    viewport = _scroll_area(widget).viewport()
    return viewport.rect().contains(QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size()))


def _settle(qtbot):
    for _ in range(3):
        qtbot.wait(20)


def test_nothing_is_cut_off_at_1360x900_and_at_1000x700(qtbot, window):
    from whist_catalogue.gui.calculator import DEAL_28

    window.resize(1360, 900)
    calculator = window.show_view("calculator")
    enter(qtbot, window, calculator, DEAL_28)
    panel = calculator.play_panel
    panel.results_box.setChecked(True)
    for _ in range(7):
        panel.app_move()
    panel.play_card(next(m for m in panel.play.legal_moves() if m not in panel.play.best_moves()))
    _settle(qtbot)
    assert any(r.note for r in panel.tricks.played)  # a cost noted ...
    view = panel.tricks_view
    assert view.horizontalHeader().length() <= view.viewport().width()  # ... and its column not cut off
    for box in panel.hand_boxes.values():  # both hands and the trick in sight without scrolling
        assert _in_sight(box)
    assert _in_sight(panel.table)
    window.show_view("explorer")
    explorer = window.views["explorer"]
    enter(qtbot, window, explorer, "KQT/AJ9")
    _settle(qtbot)
    assert all(_in_sight(w) for w in (*explorer.play_panel.hand_boxes.values(), explorer.play_panel.table))

    window.resize(1000, 700)
    window.show_view("calculator")
    _settle(qtbot)
    # the four suits' card pickers, the values' text and the play panel: no part beyond the window's width
    for area in (calculator.editors_area, _scroll_area(calculator.outcome_label), _scroll_area(panel)):
        assert area.horizontalScrollBar().maximum() == 0
