"""Search and statistics over a small catalogue, driven as a user would."""

import csv

import pytest
from gui_support import make_window, wait_idle
from PySide6.QtCore import Qt

from whist_catalogue.gui.search_view import CLASS_EXPRESSIONS
from whist_catalogue.store.reader import open_catalogue


@pytest.fixture
def window(qtbot, small_catalogue):
    return make_window(qtbot, small_catalogue)


@pytest.fixture
def search(qtbot, window):
    view = window.show_view("search")
    wait_idle(qtbot, window, view)
    return view


def run(qtbot, window, search, text):
    search.expression.setText(text)
    qtbot.keyClick(search.expression, Qt.Key.Key_Return)
    wait_idle(qtbot, window, search)


def test_free_text_search_pages_over_the_database(qtbot, window, search):
    run(qtbot, window, search, "n = 7")
    model = search.results
    assert search.count == 3432 and "3,432 deals match" in search.count_label.text()
    assert model.rowCount() == model.BATCH_SIZE and model.canFetchMore()
    search.results_view.scrollToBottom()
    qtbot.waitUntil(lambda: model.rowCount() > model.BATCH_SIZE)
    while model.canFetchMore():
        model.fetchMore()
    assert model.rowCount() == 3432 and not model.canFetchMore()


def test_results_model_passes_the_model_tester_while_paging(qtbot, window, search, qtmodeltester, monkeypatch):
    monkeypatch.setattr(search.results, "BATCH_SIZE", 16)
    run(qtbot, window, search, "n = 4")
    assert 16 <= search.results.rowCount() < 70 and search.count == 70  # the view fetches what it shows
    qtmodeltester.check(search.results)  # the tester stays attached and checks every insertion below
    while search.results.canFetchMore():
        search.results.fetchMore()
    assert search.results.rowCount() == 70


def test_value_search_shows_the_papers_typography(qtbot, window, search):
    run(qtbot, window, search, "value = 3+3/8")
    assert search.count > 0
    assert {search.results.index(r, 3).data() for r in range(search.results.rowCount())} == {"3 + 3/8"}


def test_bad_expression_is_an_inline_message(qtbot, window, search):
    run(qtbot, window, search, "value = = 3")
    assert search.message.is_error and "position" in search.message.text()
    run(qtbot, window, search, "colour = red")
    assert "unknown field" in search.message.text()


def test_statistics_cells_open_the_matching_search(qtbot, window, search, qtmodeltester):
    stats = search.stats
    qtmodeltester.check(stats)
    assert stats.columnCount() == 7 and stats.classes[-1] == stats.ALL
    row = stats.classes.index("integer")
    index = stats.index(row, 4)  # n = 5
    assert index.data() == "82"
    search.stats_view.clicked.emit(index)
    wait_idle(qtbot, window, search)
    assert search.expression.text() == "n = 5 and " + CLASS_EXPRESSIONS["integer"]
    assert search.count == 82
    # every cell counts what its search finds
    with open_catalogue(window.context.location) as catalogue:
        for r, name in enumerate(stats.classes):
            for c, n in enumerate(stats.levels):
                expression = f"n = {n}" + (f" and {CLASS_EXPRESSIONS[name]}" if name in CLASS_EXPRESSIONS else "")
                assert catalogue.count(expression) == int(stats.index(r, c).data().replace(",", ""))


def test_conjectures_are_one_click_each(qtbot, window, search):
    qtbot.mouseClick(search.conjecture_buttons["Conjecture 12.2"], Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window, search)
    assert search.count == 0 and "No counterexample" in search.count_label.text()
    qtbot.mouseClick(search.conjecture_buttons["Hold-ups (12.4, labeled)"], Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window, search)
    assert search.count > 0  # from n = 4 on (docs/conjectures.md)
    first = search.results.record(0)
    assert first.n == 4 and "conjecture_12_4_labeled" in first.counterexamples


def test_query_builder_writes_the_expression(qtbot, window, search):
    builder = search.builder
    builder.add_row("n", "=", "5")
    row = builder.add_row()
    row.set_condition("ace", "=", "W")
    assert search.expression.text() == "n = 5 and ace = W"
    flag = builder.add_row()
    flag.set_condition("holdup", "does not hold")
    assert search.expression.text() == "n = 5 and ace = W and not holdup"
    builder.remove_row(flag)
    qtbot.mouseClick(search.search_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window, search)
    assert search.count == 126  # West holds the ace in half the deals with n = 5


def test_export_csv_and_open_a_result_in_the_explorer(qtbot, window, search, tmp_path):
    run(qtbot, window, search, "frac in (3/8, 5/8)")
    path = tmp_path / "deals.csv"
    with qtbot.waitSignal(search.exported, timeout=30_000):
        search.export(path)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0][:2] == ["key", "Deal"] and len(rows) == search.count + 1
    assert {r[4] for r in rows[1:]} <= {"3 + 3/8", "3 + 5/8", "2 + 3/8", "2 + 5/8", "4 + 3/8", "4 + 5/8"}
    label = search.results.index(0, 0).data()
    search.results_view.doubleClicked.emit(search.results.index(0, 0))
    explorer = window.views["explorer"]
    wait_idle(qtbot, window, explorer)
    assert window.tabs.currentWidget() is explorer and explorer.analysis.suit.deal.label == label
