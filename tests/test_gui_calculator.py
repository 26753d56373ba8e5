"""The multi-suit calculator, driven as a user would: deal (28), its sum, its lead, play and watch."""

import pytest
from gui_support import make_window, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from whist_catalogue.gui.calculator import DEAL_28


@pytest.fixture
def window(qtbot):
    return make_window(qtbot)


@pytest.fixture
def calculator(window):
    return window.show_view("calculator")


def enter(qtbot, window, calculator, text):
    calculator.input.setText(text)
    qtbot.keyClick(calculator.input, Qt.Key.Key_Return)
    wait_idle(qtbot, window, calculator)


def test_deal_28_adds_up_to_ten_and_a_half_fuzzy(qtbot, window, calculator, qtmodeltester):
    enter(qtbot, window, calculator, DEAL_28)
    model = calculator.suits_model
    assert model.rowCount() == 4
    assert [model.index(r, 1).data() for r in range(4)] == ["3 − ε₂", "2 + ε₂", "3", "2 + 1/2"]
    qtmodeltester.check(model)
    assert calculator.sum_label.text() == "10 + 1/2 ± ε₀"
    assert "West takes 11 of the 19 tricks" in calculator.outcome_label.text()
    assert "West takes 10, East 9" in calculator.outcome_label.text()
    west = calculator.lead_labels["W"].text()
    assert "♠" in west and "attack East's exit" in west  # the paper: "the only way ... is to lead a spade"
    assert "attack West's exit" in calculator.lead_labels["E"].text()
    assert [len(e.hand("W")) for e in calculator.editors] == [5, 3, 6, 5]


def test_bad_deals_are_inline_messages(qtbot, window, calculator):
    for text, words in (("AQ/KJ, AK/Q", "suit 2"), ("AQ/KJ,,K/A", "empty suit 2"), ("AQ/KJ, AXQ/KJT", "rank")):
        enter(qtbot, window, calculator, text)
        assert calculator.message.is_error and words in calculator.message.text()


def test_play_against_the_app_then_watch_it_play_both_sides(qtbot, window, calculator):
    enter(qtbot, window, calculator, DEAL_28)
    panel = calculator.play_panel
    assert "attack East's exit" in panel.status.text()
    assert panel.line_west_tricks == 11
    # West leads a spade; the app answers for East
    qtbot.mouseClick(panel.card_button("W", 8, suit=0), Qt.MouseButton.LeftButton)
    assert len(panel.play.tricks) == 1 and panel.tricks.played[0].lead == "♠8"
    panel.restart()
    assert panel.play.tricks == []
    # watch: the app plays both sides, card by card, without blocking the window
    panel.timer.setInterval(5)
    qtbot.mouseClick(panel.watch_button, Qt.MouseButton.LeftButton)
    assert panel.watch_button.isChecked()
    assert all(not b.isEnabled() for b in panel._buttons.values())
    qtbot.waitUntil(lambda: panel.play.finished, timeout=20_000)
    assert panel.play.west_tricks == 11 and not panel.watch_button.isChecked()


def test_hand_editor_per_suit(qtbot, window, calculator):
    calculator.add_suit()
    assert len(calculator.editors) == 2
    first, second = calculator.editors
    for editor, side, rank in ((first, "W", 14), (first, "E", 13), (second, "W", 12)):
        qtbot.mouseClick(editor.button(side, rank), Qt.MouseButton.LeftButton)
    assert calculator.input.text() == "A/K, Q/-"
    assert "Suit 2" in calculator.message.text()
    qtbot.mouseClick(second.button("E", 2), Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window, calculator)
    assert calculator.input.text() == "A/K, Q/2"
    assert calculator.sum_label.text() == "2 − ε₀"


def test_copy_values(qtbot, window, calculator):
    enter(qtbot, window, calculator, "AQ/KJ, K/A")
    calculator.copy_summary()
    text = QApplication.clipboard().text()
    assert "AQ/KJ" in text and "sum" in text and "West leads" in text


def test_the_app_never_gives_away_a_trick_after_off_line_leads(qtbot, window, calculator):
    """The user (West, then East) plays random cards, mostly off the theory's line; every card the app
    answers with is a best card by `moves` (theory/moves.py, itself checked against DDS and minimax),
    and the table in the middle of the panel shows each trick."""
    import random

    from whist_catalogue.theory.moves import best_results, suit_card_results
    from whist_catalogue.theory.play import Move, Play
    from whist_catalogue.theory.small_suits import SuitTable

    table = SuitTable()
    rng = random.Random(4)
    deals = ["7/6, JT5/K83, 3/A", DEAL_28, "AKJ853/QT9764, K/J, Q9/T8", "KQT/AJ9, AQ/KJ, 8/9"]
    answered = off_line = 0
    for text in deals:
        enter(qtbot, window, calculator, text)
        panel = calculator.play_panel
        for side in ("W", "E"):
            panel.mode_box.setCurrentIndex(panel.mode_box.findData(side))
            panel.leader_box.setCurrentIndex(panel.leader_box.findData(side))
            panel.restart()
            shadow = Play.start(panel.suits, side, panel.solver)  # the same cards, replayed to check each one
            while not panel.play.finished:
                assert panel.play.to_play == side
                move = rng.choice(panel.play.legal_moves())
                off_line += move not in panel.play.optimal_moves()
                done = len(panel.records)
                qtbot.mouseClick(panel.card_button(side, move.rank, suit=move.suit), Qt.MouseButton.LeftButton)
                for record in panel.records[done:]:
                    if record.player != side:
                        led = (shadow.led.suit, shadow.led.rank) if shadow.led else None
                        results = suit_card_results(shadow.suits, shadow.leader, table, led)
                        best = {Move(r.suit, r.card) for r in best_results(results, record.player)}
                        assert record.move in best, (text, shadow.suits, shadow.leader, led, record)
                        assert record.cost == 0
                        answered += 1
                    shadow.play(record.move)
                if panel.play.led is None and panel.play.tricks:
                    last = panel.play.tricks[-1]
                    other = "E" if last.leader == "W" else "W"
                    assert panel.table.finished_trick
                    assert panel.table.card_on_table(last.leader) == panel._card_name(last.suit, last.lead)
                    assert panel.table.card_on_table(other) == panel._card_name(last.suit, last.reply)
                elif panel.play.led is not None:
                    assert panel.table.card_on_table(panel.play.leader) is not None
            assert shadow.tricks == panel.play.tricks
    assert answered > 60 and off_line > 10


def test_an_asymmetric_suit_clears_the_last_deals_values(qtbot, window, calculator):
    enter(qtbot, window, calculator, DEAL_28)
    assert calculator.suits_model.rowCount() == 4
    enter(qtbot, window, calculator, "AQ/KJ, AK/Q")
    assert calculator.message.is_error and "suit 2" in calculator.message.text()
    assert calculator.suits_model.rowCount() == 0 and calculator.sum_label.text() == "—"
    assert calculator.analysis is None and calculator.play_panel.play is None
    assert all(label.text() == "" for label in calculator.lead_labels.values())


def test_values_are_greyed_while_valuing_and_the_wait_can_be_cancelled(qtbot, window, calculator):
    enter(qtbot, window, calculator, "AQ/KJ")
    # n = 13 with no catalogue: the engine values every level up to 13 first, seconds of work even when warm
    calculator.set_deal_text("AQ/KJ, EWEWEWEWEWEWEWEWEWEWEWEWEW")
    assert calculator.busy and not calculator.results.isEnabled()
    qtbot.waitUntil(lambda: calculator.busy_bar.isVisible(), timeout=5_000)
    qtbot.mouseClick(calculator.busy_bar.cancel_button, Qt.MouseButton.LeftButton)
    assert not calculator.busy and calculator.results.isEnabled() and calculator.suits_model.rowCount() == 0
    assert "Cancelled" in calculator.message.text()
    wait_idle(qtbot, window, calculator, timeout=120_000)
    assert calculator.suits_model.rowCount() == 0


def test_clearing_the_text_clears_the_editors(qtbot, window, calculator):
    enter(qtbot, window, calculator, "AQ/KJ, K/A")
    assert len(calculator.editors) == 2
    calculator.input.clear()
    assert len(calculator.editors) == 1 and calculator.editors[0].hand("W") == ()
    assert calculator.suits_model.rowCount() == 0


def test_messages_never_move_the_card_rows(qtbot, window, calculator):
    editor = calculator.editors[0]
    button = editor.button("W", 14)
    before = button.mapTo(window, button.rect().topLeft())
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)  # "West holds 1 card, East 0 …"
    assert calculator.message.shown
    qtbot.wait(20)
    assert button.mapTo(window, button.rect().topLeft()) == before
    calculator.set_deal_text("AQ/KJ, EWEWEWEWEWEWEWEWEWEWEWEWEW")
    qtbot.waitUntil(lambda: calculator.busy_bar.isVisible(), timeout=5_000)
    assert calculator.editors_area.mapTo(window, calculator.editors_area.rect().topLeft()).y() <= before.y()
    calculator.cancel_analysis()


def test_esc_cancels_the_wait_as_the_message_says(qtbot, window, calculator):
    calculator.set_deal_text("AQ/KJ, EWEWEWEWEWEWEWEWEWEWEWEWEW")  # n = 13, no catalogue: seconds of the engine
    qtbot.waitUntil(lambda: "Cancel (Esc) stops it" in calculator.message.text(), timeout=10_000)
    calculator.input.setFocus()
    qtbot.keyClick(calculator.input, Qt.Key.Key_Escape)
    assert not calculator.busy and "Cancelled" in calculator.message.text()
    assert calculator.suits_model.rowCount() == 0 and calculator.analysis is None
    assert not calculator.suits_view.isVisible()  # no empty table left behind
    wait_idle(qtbot, window, calculator, timeout=120_000)


def test_the_engines_plan_is_never_cut_off_at_1000x700(qtbot, window, calculator):
    window.resize(1000, 700)
    qtbot.waitUntil(lambda: window.width() == 1000)
    calculator.set_deal_text("AQ/KJ, EWEWEWEWEWEWEWEWEWEWEWEWEW")
    qtbot.waitUntil(lambda: "Not in the catalogue" in calculator.message.text(), timeout=10_000)
    qtbot.waitUntil(lambda: calculator.busy_bar.isVisible(), timeout=5_000)  # beside it, the progress
    qtbot.wait(50)  # laid out
    message = calculator.message
    assert message.heightForWidth(message.width()) > message.fontMetrics().height()  # two lines at least ...
    assert message.height() >= message.heightForWidth(message.width())  # ... and every one of them shown
    calculator.cancel_analysis()
    wait_idle(qtbot, window, calculator, timeout=120_000)


def test_a_long_suit_wraps_in_the_play_panel_rather_than_widen_it(qtbot, window, calculator):
    window.resize(1000, 700)
    qtbot.waitUntil(lambda: window.width() == 1000)
    enter(qtbot, window, calculator, "AQ/KJ, EWWEEWWEWEEWWEEW")  # eight cards a hand in the second suit
    panel = calculator.play_panel

    def rows():
        west = [panel.card_button("W", rank, suit=1) for rank in panel.play.hand("W", 1)]
        return {button.mapTo(panel, button.rect().topLeft()).y() for button in west if button and button.isVisible()}

    qtbot.waitUntil(lambda: len(rows()) == 2, timeout=3_000)  # laid out again at the width the panel is given
    # nothing runs past the window, the table and the Note column included
    assert calculator.play_area.horizontalScrollBar().maximum() == 0
    assert panel.tricks_view.mapTo(window, panel.tricks_view.rect().topRight()).x() <= window.width()
