"""The deal explorer, driven as a user would: type or click a deal, read the value, play cards."""

import pytest
from gui_support import make_window, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QTextDocumentFragment
from PySide6.QtWidgets import QApplication

from whist_catalogue.twohand.play import Move


@pytest.fixture
def window(qtbot):
    return make_window(qtbot)


@pytest.fixture
def explorer(qtbot, window):
    return window.show_view("explorer")


def enter(qtbot, window, explorer, text):
    explorer.input.clear()
    qtbot.keyClicks(explorer.input, text)
    qtbot.keyClick(explorer.input, Qt.Key.Key_Return)
    wait_idle(qtbot, window, explorer)


def test_typed_deal_shows_the_papers_typography(qtbot, window, explorer, qtmodeltester):
    enter(qtbot, window, explorer, "KQT/AJ9")
    assert explorer.value_label.text() == "1 + 1/2"
    assert "EWEWWE" in explorer.deal_info.text()
    assert "West on lead: West takes 1 of the 3 tricks, East 2." in explorer.outcome_label.text()
    assert explorer.leads_label.text() == "West: Q K\nEast: 9 J"
    # α_ij: 3 × 3, labeled values in the paper's notation, best leads starred
    model = explorer.alpha_model
    assert (model.rowCount(), model.columnCount()) == (3, 3)
    assert model.index(0, 0).data() == "(W, 2 − ε₁)"
    assert model.headerData(1, Qt.Orientation.Vertical).endswith("★")
    assert not model.headerData(0, Qt.Orientation.Vertical).endswith("★")
    for m in (model, explorer.a_model, explorer.t_model):
        qtmodeltester.check(m)
    assert explorer.a_model.index(0, 1).data() == "−1"
    assert (explorer.analysis.h_lower, explorer.analysis.h_upper, explorer.analysis.h) == (0, 1, 0)
    h_text = QTextDocumentFragment.fromHtml(explorer.h_label.text()).toPlainText()
    assert "Tₖ changes sign between k = 0 and 1" in h_text and "H = 0 (Theorem 9.1)" in h_text


@pytest.mark.parametrize(
    "text, value",
    [("K/A", "ε₀"), ("EWEW", "1 + 1/2"), ("13 12 9 8 7 2 1 / 14 11 10 6 5 4 3", None), ("KQT98/AJ765", "3 − ε₂")],
)
def test_every_notation_of_spec_2(qtbot, window, explorer, text, value):
    enter(qtbot, window, explorer, text)
    assert not explorer.message.is_error
    if value is not None:
        assert explorer.value_label.text() == value


@pytest.mark.parametrize(
    "text, words", [("AQ/K", "asymmetric"), ("AXQ/KJ", "rank"), ("AA/KQ", "twice"), ("", "empty")]
)
def test_bad_deal_is_an_inline_message(qtbot, window, explorer, text, words):
    enter(qtbot, window, explorer, "AQ/KJ")
    enter(qtbot, window, explorer, text)
    assert explorer.message.is_error
    assert words in explorer.message.text()
    # nothing of the last good deal stays beside the bad input: a value read for the wrong deal is worse than none
    assert explorer.analysis is None and explorer.value_label.text() == "—"
    assert explorer.alpha_model.rowCount() == 0 and explorer.a_model.rowCount() == 0
    assert explorer.play_panel.play is None and not explorer.copy_button.isEnabled()


def test_clicking_cards_into_the_hands(qtbot, window, explorer):
    editor = explorer.editor
    for side, rank in (("W", 14), ("W", 12), ("E", 13)):
        qtbot.mouseClick(editor.button(side, rank), Qt.MouseButton.LeftButton)
    assert explorer.input.text() == "AQ/K"
    assert "same number" in explorer.message.text() and not explorer.message.is_error
    qtbot.mouseClick(editor.button("E", 11), Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window, explorer)
    assert explorer.input.text() == "AQ/KJ"
    assert explorer.value_label.text() == "1 + 1/2"
    # a card clicked into West leaves East
    qtbot.mouseClick(editor.button("W", 11), Qt.MouseButton.LeftButton)
    assert editor.hand("E") == (13,) and explorer.input.text() == "AQJ/K"


def test_typed_deal_fills_the_hand_editor(qtbot, window, explorer):
    enter(qtbot, window, explorer, "K Q 9 / A J 10")
    assert explorer.editor.hand("W") == (13, 12, 9)
    assert explorer.editor.hand("E") == (14, 11, 10)


def test_the_placeholder_is_one_deal_three_ways_and_a_bad_deal_empties_the_card_picker(qtbot, window, explorer):
    from whist_catalogue.gui.explorer import PLACEHOLDER
    from whist_catalogue.theory.deals import parse_suit

    assert explorer.input.placeholderText() == PLACEHOLDER
    labels = {parse_suit(text).deal.label for text in PLACEHOLDER.split("·")}
    assert labels == {"EWEWWE"}
    enter(qtbot, window, explorer, "K Q 9 / A J 10")
    assert explorer.editor.hand("W") == (13, 12, 9)
    explorer.set_deal_text("KQ9/AJ")  # an error: the picker must not keep showing K Q 9 / A J 10 beside it
    assert explorer.message.is_error and explorer.editor.hand("W") == () and explorer.editor.hand("E") == ()


def test_play_a_card_the_app_answers_undo_and_line_to_the_end(qtbot, window, explorer, qtmodeltester):
    enter(qtbot, window, explorer, "KQT/AJ9")
    panel = explorer.play_panel
    assert panel.user_side == "W" and panel.play.to_play == "W"
    line = panel.optimal_line()
    assert len(line) == 3 and all(r.projected for r in line)
    assert panel.line_west_tricks == 1  # West on lead takes 1 trick (the outcome)
    qtbot.mouseClick(panel.card_button("W", 13), Qt.MouseButton.LeftButton)  # West leads the K
    assert len(panel.play.tricks) == 1  # ... and the app answered for East
    assert panel.tricks.played[0].lead == "K"
    assert panel.tricks.rowCount() == 3  # one played, two on the optimal line
    qtmodeltester.check(panel.tricks)
    qtbot.mouseClick(panel.undo_button, Qt.MouseButton.LeftButton)
    assert panel.play.tricks == [] and panel.play.to_play == "W"
    qtbot.mouseClick(panel.end_button, Qt.MouseButton.LeftButton)
    assert panel.play.finished and panel.play.west_tricks == 1
    assert "over" in panel.status.text()


def test_a_costly_card_is_noted_with_its_cost_and_a_free_one_is_not(qtbot, window, explorer):
    enter(qtbot, window, explorer, "KQT/AJ9")
    panel = explorer.play_panel
    panel.play_card(Move(0, 10))  # West leads the T: not the theory's lead (K or Q), yet it costs nothing
    assert panel.tricks.played[0].note == ""
    panel.restart()
    panel.mode_box.setCurrentIndex(panel.mode_box.findData("both"))
    panel.play_card(Move(0, 13))  # West leads the K ...
    panel.play_card(Move(0, 14))  # ... and East takes it with the A instead of holding up with the 9
    assert panel.tricks.played[0].note == "East's A cost 1 trick"


def test_both_sides_and_east_on_lead(qtbot, window, explorer):
    enter(qtbot, window, explorer, "KQT/AJ9")
    panel = explorer.play_panel
    panel.mode_box.setCurrentIndex(panel.mode_box.findData("both"))
    panel.leader_box.setCurrentIndex(panel.leader_box.findData("E"))
    assert panel.play.to_play == "E" and panel.play.tricks == []
    qtbot.mouseClick(panel.card_button("E", 9), Qt.MouseButton.LeftButton)
    assert panel.play.led is not None and panel.play.to_play == "W"  # nobody answered for West
    qtbot.mouseClick(panel.app_button, Qt.MouseButton.LeftButton)
    assert len(panel.play.tricks) == 1
    panel.play_to_end()
    assert panel.play.west_tricks == 2  # East on lead: West takes 2


def test_copy_deal_and_value(qtbot, window, explorer):
    enter(qtbot, window, explorer, "AQ/KJ")
    QGuiApplication.clipboard().clear()
    qtbot.mouseClick(explorer.copy_button, Qt.MouseButton.LeftButton)
    text = QApplication.clipboard().text()
    assert "AQ/KJ" in text and "1 + 1/2" in text and "EWEW" in text
    explorer.alpha_view.selectAll()
    explorer.alpha_view.copy_selection()
    assert QApplication.clipboard().text().count("\n") == 1  # two rows, tab-separated


def test_beyond_the_engine_the_outcome_comes_from_the_linear_time_algorithm(qtbot, window, explorer):
    big = " ".join(str(k) for k in range(40, 20, -1)) + " / " + " ".join(str(k) for k in range(20, 0, -1))
    enter(qtbot, window, explorer, big)
    assert not explorer.message.is_error
    assert explorer.value_label.text() == "19 + 1/2 < value < 20 + 1/2"  # 20 − ε₀, not named by Theorem 12.1
    assert "West on lead: West takes 20 of the 20 tricks, East 0." in explorer.outcome_label.text()
    assert explorer.play_panel.play is None


def test_results_are_greyed_while_valuing_with_progress_and_cancel(qtbot, window, explorer):
    enter(qtbot, window, explorer, "AQ/KJ")
    assert explorer.results.isEnabled() and explorer.value_label.text() == "1 + 1/2"
    # n = 13 and no catalogue: the engine values every level up to 13 first, seconds of work even when warm
    explorer.set_deal_text("EWEWEWEWEWEWEWEWEWEWEWEWEW")
    assert explorer.busy and not explorer.results.isEnabled()  # the old value is greyed at once
    assert not explorer.busy_bar.isVisible()  # ... the progress line only after half a second
    qtbot.waitUntil(lambda: explorer.busy_bar.isVisible(), timeout=5_000)
    assert "EWEWEW" in explorer.busy_bar.label.text()
    # Before the work, what the engine will compute and about how long; then a bar that fills.
    qtbot.waitUntil(lambda: "computing levels 1–13 (14 million deals): about" in explorer.message.text(), timeout=5_000)
    qtbot.waitUntil(lambda: explorer.busy_bar.bar.maximum() == 1000 and explorer.busy_bar.bar.value() > 0,
                    timeout=60_000)
    qtbot.mouseClick(explorer.busy_bar.cancel_button, Qt.MouseButton.LeftButton)
    assert not explorer.busy and not explorer.busy_bar.isVisible()
    assert explorer.results.isEnabled() and explorer.value_label.text() == "—" and explorer.analysis is None
    assert "Cancelled" in explorer.message.text()
    # The cancel stops the engine itself, within a few million deals: the pool is idle long before level 13
    # could have been finished, and the answer never arrives.
    qtbot.waitUntil(lambda: explorer.context.pool.active == 0, timeout=3_000)
    assert explorer.value_label.text() == "—"
    left = explorer.context.solver.plan(13).levels  # the engine stopped short of level 13, keeping what it finished
    assert left[-1] == 13 and left[0] > 1


def test_a_long_deal_never_widens_the_window(qtbot, window, explorer):
    window.resize(1000, 700)
    qtbot.waitUntil(lambda: window.width() == 1000)
    owners = "WE" * 300  # n = 300: beyond the engine, the outcome by the linear-time algorithm
    enter(qtbot, window, explorer, owners)
    assert explorer.analysis is not None and explorer.analysis.suit.n == 300
    qtbot.wait(50)
    assert window.width() == 1000 and window.minimumSizeHint().width() <= 1000
    assert len(explorer.deal_info.text()) < 200 and owners in explorer.deal_info.toolTip()
    enter(qtbot, window, explorer, "AQ/KJ")
    assert window.width() == 1000


def test_the_card_rows_stay_put_and_clearing_clears_the_grid(qtbot, window, explorer):
    editor = explorer.editor
    before = editor.button("E", 13).mapTo(window, editor.button("E", 13).rect().topLeft())
    qtbot.mouseClick(editor.button("W", 14), Qt.MouseButton.LeftButton)  # a hint line appears ...
    assert explorer.message.shown
    qtbot.wait(20)
    after = editor.button("E", 13).mapTo(window, editor.button("E", 13).rect().topLeft())
    assert after == before  # ... and the rows did not move: the next click lands where it was aimed
    qtbot.mouseClick(editor.button("E", 13), Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window, explorer)
    assert explorer.input.text() == "A/K" and explorer.value_label.text() == "1 − ε₀"
    # clearing the text clears the grid and the results
    explorer.input.clear()
    assert editor.hand("W") == () and editor.hand("E") == () and explorer.value_label.text() == "—"
    # the grid's own Clear button
    enter(qtbot, window, explorer, "AQ/KJ")
    assert editor.hand("W") == (14, 12)
    qtbot.mouseClick(editor.clear_button, Qt.MouseButton.LeftButton)
    assert editor.hand("W") == () and explorer.input.text() == "" and explorer.analysis is None


def test_a_value_beyond_the_engine_names_its_source(qtbot, window, explorer):
    big = " ".join(str(k) for k in range(40, 20, -1)) + " / " + " ".join(str(k) for k in range(20, 0, -1))
    enter(qtbot, window, explorer, big)
    assert "Theorem 12.1" in explorer.source_label.text()
    enter(qtbot, window, explorer, "EW" * 20)  # n = 20: named exactly by Theorem 12.1
    assert explorer.value_label.text() == "10 + 1/2" and "Theorem 12.1" in explorer.source_label.text()
    enter(qtbot, window, explorer, "AQ/KJ")
    assert "recursive definition" in explorer.source_label.text()  # no catalogue in the tests; n ≤ 6


def test_at_1000x700_the_value_panel_wraps_a_long_label_and_cuts_nothing(qtbot, window, explorer):
    window.resize(1000, 700)
    qtbot.waitUntil(lambda: window.width() == 1000)
    enter(qtbot, window, explorer, "EW" * 20)  # n = 20: a 40-letter deal and label, each one word
    area = explorer.value_area
    labels = (explorer.deal_info, explorer.outcome_label)

    def whole(label):
        return label.width() <= area.viewport().width() and label.height() >= label.heightForWidth(label.width())

    qtbot.waitUntil(lambda: all(whole(label) for label in labels), timeout=3_000)  # once laid out
    assert area.horizontalScrollBar().maximum() == 0  # no sideways scrolling to read the outcome
    assert "West on lead: West takes 10 of the 20 tricks, East 10." in explorer.outcome_label.text()


def test_the_card_picker_says_why_it_cannot_draw_a_deal(qtbot, window, explorer):
    editor = explorer.editor
    enter(qtbot, window, explorer, "EW" * 20)  # an owner string of 40 cards: no ranks A … 2 to click
    assert editor.hand("W") == () and not editor.count_label.isVisible()  # no "0 : 0" beside the deal ...
    assert editor.note.isVisible() and "20 cards a hand" in editor.note.text()  # ... but why it is not drawn
    enter(qtbot, window, explorer, "EWEW")  # drawable, but written as an owner string
    assert "owner string" in editor.note.text()
    enter(qtbot, window, explorer, "AQ/KJ")
    assert not editor.note.isVisible() and editor.count_label.text() == "2 : 2"


def test_an_empty_explorer_draws_no_empty_tables(qtbot, window, explorer):
    panel = explorer.play_panel
    views = (explorer.alpha_view, explorer.a_view, explorer.t_view, panel.tricks_view, *panel.hand_boxes.values())
    assert not any(view.isVisible() for view in views) and explorer.deal_info.text() == "Enter a deal above."
    enter(qtbot, window, explorer, "KQT/AJ9")
    assert all(view.isVisible() for view in views)
    explorer.input.clear()
    assert not any(view.isVisible() for view in views)
