"""The multi-suit calculator, driven as a user would: deal (28), its sum, its lead, play and watch; any two-person
deal — uneven suits, voids, a trump suit — answered by search, and played against the app."""

import pytest
from gui_support import make_window, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from whist_catalogue.gui.calculator import DEAL_28, TRUMP_EXAMPLE
from whist_catalogue.gui.widgets import card_label
from whist_catalogue.theory.deals import parse_two_hand
from whist_catalogue.twohand.play import Move


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
    assert calculator.source_label.text() == "<b>Answered from the suits' values (Theorem 9.1).</b>"
    assert "from the suits' values" in calculator.play_panel.status.text()
    assert "West takes 11 of the 19 tricks" in calculator.outcome_label.text()
    assert "West takes 10, East 9" in calculator.outcome_label.text()
    west = calculator.lead_labels["W"].text()
    assert "♠" in west and "attack East's exit" in west  # the paper: "the only way ... is to lead a spade"
    assert "attack West's exit" in calculator.lead_labels["E"].text()
    assert [len(e.hand("W")) for e in calculator.editors] == [5, 3, 6, 5]


def test_bad_deals_are_inline_messages_that_clear_the_last_deals_answer(qtbot, window, calculator):
    for text, words in (
        ("AQ/KJ, AK/Q", "hands of different sizes in 'AQ/KJ, AK/Q': West holds 4 cards, East 3"),
        ("AQ/KJ,,K/A", "empty suit 2"),
        ("AQ/KJ, AXQ/KJT", "rank"),
        ("AQ/KA", "card A appears twice"),
        ("trumps ♦: AQ/KJ, K/A", "no trump suit '♦'"),
        ("AKQJT98765432/-, -/AKQJT98765432, AKQJ/-, -/AKQJ", "17 cards a hand in"),  # the search's limit, named
        ("AKQJT98765432/-, -/AKQJT98765432, AKQJ/-, -/AKQJ", "the exact search takes at most 16 cards a hand"),
    ):
        enter(qtbot, window, calculator, "AK2/QJ, 5/T4")
        assert calculator.suits_model.rowCount() == 2 and calculator.play_panel.play is not None
        enter(qtbot, window, calculator, text)
        assert calculator.message.is_error and words in calculator.message.text(), calculator.message.text()
        assert calculator.suits_model.rowCount() == 0 and calculator.play_panel.play is None
        assert calculator.analysis is None and calculator.source_label.text() == ""


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
    # a suit may be split in any way, but the hands must match: the message says so, the cards stay to be fixed
    assert calculator.input.text() == "A/K, Q/-"
    assert "West holds 2 cards, East 1 card: both hands must hold the same number" in calculator.message.text()
    assert calculator.editors_box.title().endswith("West holds 2 cards, East 1 card")
    assert first.count_label.text() == "1 : 1" and second.count_label.text() == "1 : 0"
    assert [e.hand("W") for e in calculator.editors] == [(14,), (12,)] and calculator.play_panel.play is None
    qtbot.mouseClick(second.button("E", 2), Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window, calculator)
    assert calculator.input.text() == "A/K, Q/2"
    assert calculator.sum_label.text() == "2 − ε₀"
    # uneven suits, even hands: the search answers, with no value
    for editor, side, rank in ((second, "W", 3), (first, "E", 4)):
        qtbot.mouseClick(editor.button(side, rank), Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window, calculator)
    assert calculator.input.text() == "A/K4, Q3/2" and not calculator.message.shown
    assert "by search" in calculator.source_label.text() and not calculator.sum_label.isVisible()
    assert calculator.editors_box.title().endswith("West holds 3 cards, East 3 cards")


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
    from whist_catalogue.twohand.play import Move, Play
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


def test_hands_of_different_sizes_clear_the_last_deals_values(qtbot, window, calculator):
    enter(qtbot, window, calculator, DEAL_28)
    assert calculator.suits_model.rowCount() == 4
    enter(qtbot, window, calculator, "AQ/KJ, AK/Q")
    assert calculator.message.is_error and "hands of different sizes" in calculator.message.text()
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


# -- any two-person deal: uneven suits, voids, trumps ---------------------------------------------------------


def assert_shows_the_solvers_answer(calculator, text):
    """The outcome and every first card's result on screen are the solver's, and no value is shown."""
    from whist_catalogue.twohand.solver import solve

    deal = parse_two_hand(text)
    solution = solve(deal)
    assert solution.source == "search"
    o = solution.outcome
    words = calculator.outcome_label.text()
    assert f"West on lead: West takes {o.west_leads} of the {deal.n} tricks" in words
    assert f"East on lead: West takes {o.east_leads}," in words
    for p, name in (("W", "West"), ("E", "East")):
        shown = calculator.cards_labels[p].text().replace("<b>", "").replace("</b>", "").replace("★", "")
        cards = [f"{card_label(r.suit, len(deal.suits), deal.suits[r.suit].card_name(r.card))}→{r.west_tricks}"
                 for r in solution.answer(p).moves]
        assert shown == f"{name} on lead: " + "  ".join(cards)
        best = (max if p == "W" else min)(r.west_tricks for r in solution.answer(p).moves)
        assert calculator.cards_labels[p].text().count("★") == sum(r.west_tricks == best for r in solution.answer(p).moves)
    assert "by search" in calculator.source_label.text() and "no value in V" in calculator.source_label.text()
    model = calculator.suits_model
    assert all(model.index(r, c).data() == "—" for r in range(model.rowCount()) for c in (1, 2))
    assert calculator.suits_view.isColumnHidden(1) and calculator.suits_view.isColumnHidden(2)
    assert not calculator.sum_label.isVisible() and "ε" not in calculator.outcome_label.text()
    return solution


def test_an_uneven_deal_without_trumps_is_answered_by_search_with_no_value(qtbot, window, calculator):
    enter(qtbot, window, calculator, "KJ87652/T9, A53/T972, 953/JT4, -/QJT6")
    assert_shows_the_solvers_answer(calculator, "KJ87652/T9, A53/T972, 953/JT4, -/QJT6")
    model = calculator.suits_model
    assert [model.index(3, c).data() for c in (0, 4, 5)] == ["♣", "-/QJT6", "EEEE"]
    assert calculator.trump_box.currentText() == "none" and calculator.trump_box.count() == 5
    assert calculator.editors_box.title().endswith("West holds 13 cards, East 13 cards")
    panel = calculator.play_panel
    assert panel.play.source == "search" and "(by search)" in panel.status.text()
    assert [len(e.hand("E")) for e in calculator.editors] == [2, 4, 3, 4]


def test_a_trump_deal_shows_the_solvers_outcome_and_card_results(qtbot, window, calculator):
    enter(qtbot, window, calculator, TRUMP_EXAMPLE)
    solution = assert_shows_the_solvers_answer(calculator, TRUMP_EXAMPLE)
    assert solution.outcome == (9, 6)
    assert calculator.trump_box.currentText() == "♠"
    assert calculator.suits_model.index(0, 0).data() == "♠ trumps"
    assert calculator.play_panel.status.text().startswith("♠ trumps. Tricks: West 0, East 0.")
    # each side's first lead, the command line's and the app's: the first best card in the order written
    deal = solution.position.deal
    for p, name in (("W", "West"), ("E", "East")):
        lead = solution.answer(p).best()[0]
        card = card_label(lead.suit, 4, deal.suits[lead.suit].card_name(lead.card))
        assert calculator.lead_labels[p].text() == f"<b>{name} leads {card}</b> — a best first card, found by search"
        panel = calculator.play_panel
        panel.leader_box.setCurrentIndex(panel.leader_box.findData(p))
        panel.mode_box.setCurrentIndex(panel.mode_box.findData("both"))
        panel.app_move()
        assert panel.history.line[0].move == Move(lead.suit, lead.card)
        panel.mode_box.setCurrentIndex(panel.mode_box.findData("W"))
    calculator.copy_summary()
    copied = QApplication.clipboard().text().splitlines()
    # the command line's words (its counters aside: the search's table remembers positions between deals)
    assert copied[0] == TRUMP_EXAMPLE and copied[1].startswith("  answered     by search")
    assert copied[:-1] == solution.record().text().splitlines() and copied[-1].startswith("  searched  ")


def test_the_trump_selector_and_the_text_stay_in_step(qtbot, window, calculator):
    box = calculator.trump_box
    enter(qtbot, window, calculator, "AK2/-, 5/QJ43")
    assert box.currentText() == "none" and [box.itemText(i) for i in range(box.count())] == ["none", "♠", "♥"]
    assert "West takes 3 of the 4 tricks" in calculator.outcome_label.text()  # no trumps: East discards
    box.setFocus()
    for _ in range(2):  # none → ♠ → ♥, as a user steps through the list
        qtbot.keyClick(box, Qt.Key.Key_Down)
    wait_idle(qtbot, window, calculator)
    assert calculator.input.text() == "trumps ♥: AK2/-, 5/QJ43"
    assert "West takes 0 of the 4 tricks" in calculator.outcome_label.text()  # East ruffs the spades
    # a card clicked keeps the trump suit in the text
    qtbot.mouseClick(calculator.editors[1].button("E", 3), Qt.MouseButton.LeftButton)  # the 3 out of East's hearts
    qtbot.mouseClick(calculator.editors[0].button("E", 3), Qt.MouseButton.LeftButton)  # ... into East's spades
    wait_idle(qtbot, window, calculator)
    assert calculator.input.text() == "trumps ♥: AK2/3, 5/QJ4" and box.currentText() == "♥"
    # the text names the trump suit: the selector follows; and back to none
    enter(qtbot, window, calculator, "trumps S: AK2/-, 5/QJ43")
    assert box.currentText() == "♠" and "East on lead: West takes 3, East 1" in calculator.outcome_label.text()
    qtbot.keyClick(box, Qt.Key.Key_Home)
    wait_idle(qtbot, window, calculator)
    assert calculator.input.text() == "AK2/-, 5/QJ43" and box.currentText() == "none"
    # a symmetric deal with trumps is the theory's: nobody can ruff, and the values are shown
    enter(qtbot, window, calculator, "trumps ♥: AQ/KJ, K/A")
    assert box.currentText() == "♥" and calculator.sum_label.text() == "1 + 1/2 + ε₀"
    assert "trumps (♥) change nothing" in calculator.source_label.text()
    # a deal in numbers, which the card pickers cannot draw: the selector still works on the text
    enter(qtbot, window, calculator, "13 12 2 / -, 5 / 11 10 4 3")
    assert calculator.editors == [] and box.count() == 3
    qtbot.keyClick(box, Qt.Key.Key_End)
    wait_idle(qtbot, window, calculator)
    assert calculator.input.text() == "trumps ♥: 13 12 2 / -, 5 / 11 10 4 3"
    assert "West takes 0 of the 4 tricks" in calculator.outcome_label.text()
    # five suits clicked: the trump suit is named by its number, as the text names it past four suits
    enter(qtbot, window, calculator, "A/K, Q/J, T/9, 8/7, 6/5")
    qtbot.keyClick(box, Qt.Key.Key_End)
    wait_idle(qtbot, window, calculator)
    assert calculator.input.text() == "trumps 5: A/K, Q/J, T/9, 8/7, 6/5" and "trumps (suit 5)" in calculator.source_label.text()
    qtbot.mouseClick(calculator.editors[0].button("E", 2), Qt.MouseButton.LeftButton)
    assert calculator.input.text() == "trumps 5: A/K2, Q/J, T/9, 8/7, 6/5" and calculator.message.shown
    # a text at fault: a trump suit chosen says its error again, and the text stays the user's to fix
    enter(qtbot, window, calculator, "AQ/KJ, AK/Q")
    qtbot.keyClick(box, Qt.Key.Key_End)
    assert calculator.input.text() == "AQ/KJ, AK/Q" and "hands of different sizes" in calculator.message.text()


def _referee_checks(text: str, records) -> int:
    """Every card of the app in ``records`` (the panel's play, the user's mistakes included) is a best card by plain
    minimax (tests/twohand_minimax.py) of the cards then held; returns how many it checked."""
    from twohand_minimax import Minimax, follower_wins, hands

    deal = parse_two_hand(text)
    west, east = hands(deal)
    game = Minimax(deal.trump, memo=True)
    leader, led, checked = records[0].player, None, 0
    for record in records:
        card = (record.move.suit, record.move.rank)
        if led is None:
            results = {c: game.after_lead(west, east, leader, c) for c in (west if leader == "W" else east)}
        else:
            following = east if leader == "W" else west
            results = {c: game.after_trick(west, east, leader, led, c) for c in following
                       if c[0] == led[0] or not any(x[0] == led[0] for x in following)}
        best = (max if record.player == "W" else min)(results.values())
        assert record.cost == abs(best - results[card]), (record, results)
        if record.player == "E":  # the app's side
            assert results[card] == best, (record, results)
            checked += 1
        if led is None:
            led = card
            continue
        winner = ("E" if leader == "W" else "W") if follower_wins(led, card, deal.trump) else leader
        west, east = (west - {led, card}, east - {led, card})
        leader, led = winner, None
    return checked


def test_playing_a_trump_deal_to_the_end_after_a_mistake_the_app_stays_optimal(qtbot, window, calculator):
    text = "trumps ♥: AK73/-, Q5/KJ8, -/A9, 62/T54"  # West ruffs nothing, East's hearts ruff West's spades
    enter(qtbot, window, calculator, text)
    panel = calculator.play_panel
    assert panel.user_side == "W" and panel.play.to_play == "W"
    while not panel.play.finished:
        play = panel.play
        spades = play.hand("W", 0)
        # West's mistake first: the trump queen, 2 tricks worse than a spade; then the top spade whenever on lead
        # with one (East ruffs it), else a best card
        if not play.moves:
            move = Move(1, 12)
        elif play.led is None and spades:
            move = Move(0, max(spades))
        else:
            move = play.recommended()
        qtbot.mouseClick(panel.card_button("W", move.rank, suit=move.suit), Qt.MouseButton.LeftButton)
    records = panel.history.line
    assert _referee_checks(text, records) == 8
    assert records[0].cost == 2  # the user's mistake, priced by minimax
    assert panel.tricks.played[0].note.startswith("West's ♥Q cost 2 tricks")
    ruffs = [r for r in panel.tricks.played if "East ruffs" in r.note]
    assert ruffs and all(r.lead.startswith("♠") and r.reply.startswith("♥") and r.winner == "East" for r in ruffs)
    final = panel.play.west_tricks
    # the navigation: back, forward, a trick, the ends — the app waits while one looks back
    qtbot.mouseClick(panel.tricks_view.viewport(), Qt.MouseButton.LeftButton,
                     pos=panel.tricks_view.visualRect(panel.tricks.index(1, 0)).center())
    assert panel.history.cursor == 4 and len(panel.play.tricks) == 2
    qtbot.keyClick(panel, Qt.Key.Key_Left)
    assert panel.history.cursor == 3 and panel.play.led is not None
    assert "Looking back at card 3 of 16" in panel.status.text()
    qtbot.keyClick(panel, Qt.Key.Key_Right)
    qtbot.keyClick(panel, Qt.Key.Key_Home)
    assert panel.history.cursor == 0 and [c.move for c in panel.history.line] == [c.move for c in records]
    qtbot.keyClick(panel, Qt.Key.Key_End)
    assert panel.play.finished and panel.play.west_tricks == final
    assert panel.table.finished_trick


def test_the_optimal_line_after_a_search_position_shows_ruffs(qtbot, window, calculator):
    enter(qtbot, window, calculator, "trumps ♥: AK2/-, 5/QJ43")
    panel = calculator.play_panel
    line = panel.tricks.projected
    assert [(r.lead, r.reply, r.winner, r.note) for r in line[:1]] == [("♠2", "♥3", "East", "optimal line; East ruffs")]
    assert len(line) == 4 and panel.line_west_tricks == 0


def test_a_search_gives_way_to_the_next_deal_and_to_esc(qtbot, window, calculator):
    enter(qtbot, window, calculator, "AK2/QJ, 5/T4")  # the search's kernels loaded once
    calculator.set_deal_text(TRUMP_EXAMPLE)
    calculator.set_deal_text("trumps ♥: AK2/-, 5/QJ43")  # before the first answer arrives
    wait_idle(qtbot, window, calculator)
    assert "West takes 0 of the 4 tricks" in calculator.outcome_label.text()
    assert calculator.play_panel.play is not None and calculator.play_panel.play.trump == 1
    window.activateWindow()
    calculator.input.setFocus()
    qtbot.waitUntil(calculator.input.hasFocus)
    calculator.set_deal_text(TRUMP_EXAMPLE)
    assert calculator.busy and not calculator.results.isEnabled()
    qtbot.keyClick(calculator.input, Qt.Key.Key_Escape)  # before the answer can arrive: no event ran since
    assert "Cancelled" in calculator.message.text() and calculator.analysis is None
    wait_idle(qtbot, window, calculator)
    assert calculator.suits_model.rowCount() == 0 and calculator.play_panel.play is None  # nothing stale arrived


def test_a_deal_the_catalogue_s_table_holds_is_answered_from_it(qtbot, endings_catalogue):
    """With a catalogue whose table of endings reaches 9 cards a hand, a 9-card deal outside the theory is answered
    from that table — and says so — with every card's result the search's without any table; a 10-card deal is
    searched."""
    import random

    from whist_catalogue.scripts.benchmarks.twohand import random_two_hand
    from whist_catalogue.twohand.solver import solve

    window = make_window(qtbot, endings_catalogue)
    calculator = window.show_view("calculator")
    rng = random.Random(4)
    deal = random_two_hand(rng, 9, trumps=True, uneven=True)
    enter(qtbot, window, calculator, deal.text())
    assert calculator.source_label.text().startswith(
        "<b>Answered from the catalogue's table of endings: an uneven suit puts the deal outside the theory")
    assert calculator.outcome_heading.text() == "Outcome (from the catalogue's table of endings)"
    reference = solve(deal, endings=False, line=False)
    assert calculator.analysis.answers == reference.answers and calculator.analysis.source == "catalogue"
    o = reference.outcome
    assert o is not None and f"West on lead: West takes {o.west_leads} of the 9 tricks" in calculator.outcome_label.text()
    assert "from the catalogue's table of endings" in calculator.summary_text()
    bigger = random_two_hand(rng, 10, trumps=True, uneven=True)
    enter(qtbot, window, calculator, bigger.text())
    assert calculator.source_label.text().startswith("<b>Answered by search")
    assert calculator.analysis.answers == solve(bigger, endings=False, line=False).answers
