"""Search and statistics over a small catalogue, driven as a user would."""

import csv
from fractions import Fraction

import pytest
from gui_support import make_window, wait_idle
from PySide6.QtCore import Qt

from whist_catalogue.gui.search_view import CLASS_EXPRESSIONS
from whist_catalogue.store.fields import resolve_columns
from whist_catalogue.theory.values import Infinitesimal
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


def fetch_every_page(qtbot, model):
    """What a view scrolling to the end does: ask for the next page, wait for it (it comes from a worker)."""
    while model.canFetchMore():
        model.fetchMore()
        qtbot.waitUntil(lambda: not model.fetching)


def test_free_text_search_pages_over_the_database(qtbot, window, search):
    run(qtbot, window, search, "n = 7")
    model = search.results
    assert search.count == 3432 and "3,432 deals match" in search.count_label.text()
    assert model.rowCount() == model.BATCH_SIZE and model.canFetchMore()
    search.results_view.scrollToBottom()
    qtbot.waitUntil(lambda: model.rowCount() > model.BATCH_SIZE)
    fetch_every_page(qtbot, model)
    assert model.rowCount() == 3432 and not model.canFetchMore()
    keys = [model.record(r).key for r in range(model.rowCount())]
    assert keys == sorted(keys) and len(set(keys)) == 3432  # pages by key: each deal once, in order


def test_a_page_of_an_earlier_search_never_lands_in_a_later_one(qtbot, window, search):
    """Pages come from workers through LatestOnly: a page still on its way when the search changes is dropped."""
    run(qtbot, window, search, "n = 7")
    model = search.results
    model.fetchMore()  # the second page of n = 7, on its way …
    assert model.fetching
    run(qtbot, window, search, "n = 3")  # … when the user searches again
    qtbot.wait(50)
    assert model.rowCount() == 20 and {model.record(r).n for r in range(20)} == {3} and not model.canFetchMore()


def test_results_model_passes_the_model_tester_while_paging(qtbot, window, search, qtmodeltester, monkeypatch):
    monkeypatch.setattr(search.results, "BATCH_SIZE", 16)
    run(qtbot, window, search, "n = 4")
    assert 16 <= search.results.rowCount() < 70 and search.count == 70  # the view fetches what it shows
    qtmodeltester.check(search.results)  # the tester stays attached and checks every insertion below
    fetch_every_page(qtbot, search.results)
    assert search.results.rowCount() == 70


def test_value_search_shows_the_papers_typography(qtbot, window, search):
    run(qtbot, window, search, "value = 3+3/8")
    assert search.count > 0
    assert {search.results.index(r, 3).data() for r in range(search.results.rowCount())} == {"3 + 3/8"}


def test_bad_expression_is_an_inline_message(qtbot, window, search):
    run(qtbot, window, search, "n = 3")
    assert search.results.rowCount() == 20
    run(qtbot, window, search, "value = = 3")
    # the deals of the last good search do not stay beside the bad one
    assert search.results.rowCount() == 0 and search.count is None and search.count_label.text() == ""
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
        rows = list(csv.DictReader(f))
    assert len(rows) == search.count
    # columns for analysis, not for display: ASCII names, p/q, codes, integers, card numbers
    assert list(rows[0]) == list(resolve_columns("all,best_leads")) and all(name.isascii() for name in rows[0])
    with open_catalogue(window.context.location) as catalogue:
        for row in rows:
            (record,) = catalogue.search(f"key = {row['key']}")
            number = Fraction(int(row["numerator"]), int(row["denominator"]))
            assert number == record.value.number and number % 1 in (Fraction(3, 8), Fraction(5, 8))
            assert Infinitesimal.from_code(row["infinitesimal"]) == record.value.infinitesimal
            assert (int(row["west_leads"]), int(row["east_leads"])) == tuple(record.outcome)
            assert int(row["h_lower"]) == record.h_lower and int(row["n"]) == record.n
            leads = [k for k in range(1, 2 * record.n + 1) if int(row["best_leads_west"]) >> (k - 1) & 1]
            assert leads == list(record.solution.west_leads) and all(1 <= c <= 2 * record.n for c in leads)
    assert not (tmp_path / "deals.csv.partial").exists()
    label = search.results.index(0, 0).data()
    search.results_view.doubleClicked.emit(search.results.index(0, 0))
    explorer = window.views["explorer"]
    wait_idle(qtbot, window, explorer)
    assert window.tabs.currentWidget() is explorer and explorer.analysis.suit.deal.label == label


def test_header_click_sorts_every_matching_deal(qtbot, window, search, qtmodeltester):
    run(qtbot, window, search, "n = 7")
    model = search.results
    assert model.rowCount() < search.count  # paged: not everything is loaded yet
    qtmodeltester.check(model)
    header = search.results_view.horizontalHeader()
    header.setSortIndicator(3, Qt.SortOrder.DescendingOrder)  # what a click on "Value" (twice) does
    qtbot.waitUntil(lambda: model.sorted_by is not None)  # every deal loaded in a worker, then sorted
    assert model.rowCount() == search.count == 3432
    values = [model.record(r).value for r in range(model.rowCount())]
    assert all(not (a < b) for a, b in zip(values, values[1:]))  # never increasing in the order of V
    assert values[0].number == max(v.number for v in values)
    header.setSortIndicator(2, Qt.SortOrder.AscendingOrder)
    header.setSortIndicator(0, Qt.SortOrder.AscendingOrder)
    assert model.sorted_by == (0, Qt.SortOrder.AscendingOrder)
    keys = [model.record(r).key for r in range(model.rowCount())]
    assert keys == sorted(keys)
    # a new search starts unsorted and paged again
    run(qtbot, window, search, "n = 6")
    assert header.sortIndicatorSection() in (-1, len(model.HEADERS)) or not header.isSortIndicatorShown()


def test_sorting_too_many_deals_says_so(qtbot, window, search, monkeypatch):
    monkeypatch.setattr(search.results, "FETCH_ALL_LIMIT", 1000)
    run(qtbot, window, search, "n = 7")
    search.results_view.horizontalHeader().setSortIndicator(3, Qt.SortOrder.AscendingOrder)
    assert "Narrow the search" in search.message.text() and search.results.rowCount() < 3432
    assert search.results.sorted_by is None


def test_ctrl_end_goes_to_the_last_matching_deal(qtbot, window, search):
    run(qtbot, window, search, "n = 7")
    view = search.results_view
    view.setFocus()
    view.setCurrentIndex(search.results.index(0, 0))
    qtbot.keyClick(view, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: view.currentIndex().row() == 3431)  # every deal loaded in a worker first
    assert search.results.rowCount() == 3432
    with open_catalogue(window.context.location) as catalogue:
        assert search.results.record(3431).key == max(r.key for r in catalogue.search("n = 7"))


def test_counterexample_names_are_readable_with_the_statement_in_a_tooltip(qtbot, window, search):
    run(qtbot, window, search, "holdup")
    index = search.results.index(0, 11)
    assert index.data() == "Hold-up (12.4, labeled)"
    tip = index.data(Qt.ItemDataRole.ToolTipRole)
    assert "ducking" in tip and "conjecture_12_4_labeled" in tip
    assert search.results.headerData(11, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert search.results.index(0, 4).data().startswith("(")  # an outcome, not a fraction: (2, 2)


def test_query_builder_describes_fields_reads_typed_expressions_and_searches_on_enter(qtbot, window, search):
    builder = search.builder
    row = builder.add_row("h_upper", "=", "1")
    assert "H̄" in row.field_box.currentText() and row.field == "h_upper"
    assert "H̄" in row.field_box.itemData(row.field_box.currentIndex(), Qt.ItemDataRole.ToolTipRole)
    builder.remove_row(row)
    # a typed expression survives "+ condition" and comes back as conditions
    search.expression.setText("n = 5 and ace = W")
    qtbot.mouseClick(builder.add_button, Qt.MouseButton.LeftButton)
    assert [r.expression() for r in builder.rows] == ["n = 5", "ace = W", ""]
    assert search.expression.text() == "n = 5 and ace = W"
    builder.rows[-1].set_condition("holdup", "does not hold")
    assert search.expression.text() == "n = 5 and ace = W and not holdup"
    # parts the builder has no operator for are kept as typed
    search.expression.setText("frac in (3/8, 5/8) or counterexample(12.4) or value = 2−ε₂")
    qtbot.mouseClick(builder.add_button, Qt.MouseButton.LeftButton)
    assert builder.combine.currentData() == "or"
    assert [r.expression() for r in builder.rows][:3] == ["(frac in (3/8, 5/8))", "counterexample(12.4)", "value = 2-e2"]
    # Enter in a condition searches
    search.expression.setText("n = 4")
    qtbot.mouseClick(builder.add_button, Qt.MouseButton.LeftButton)
    builder.remove_row(builder.rows[-1])
    qtbot.keyClick(builder.rows[0].value_edit, Qt.Key.Key_Return)
    wait_idle(qtbot, window, search)
    assert search.count == 70


def test_reading_an_expression_into_the_builder_never_moves_the_search_field(qtbot, window, search):
    field = search.expression
    before = field.mapTo(window, field.rect().topLeft())
    run(qtbot, window, search, "n = 5 and ace = W and not holdup")
    assert len(search.builder.rows) == 3
    qtbot.wait(20)
    assert field.mapTo(window, field.rect().topLeft()) == before


def test_a_count_can_be_cancelled_and_its_late_answer_is_dropped(qtbot, window, search):
    search.expression.setText("n = 7")
    search.run_search()
    assert search.busy_bar.running and search.count_label.text() == "Counting …"
    search.busy_bar.cancel()  # what Cancel does, before the count can have answered
    assert search.count_label.text() == "Count cancelled." and not search.busy_bar.running
    wait_idle(qtbot, window, search)
    assert search.count is None and search.count_label.text() == "Count cancelled."
    run(qtbot, window, search, "n = 7")
    assert search.count == 3432


def test_the_app_refuses_to_export_over_its_catalogue(qtbot, window, search, small_catalogue):
    """The app's export is the command line's: writing over the catalogue it reads is refused, and the file is
    untouched (it used to be overwritten)."""
    from catalogue_testing import file_state

    run(qtbot, window, search, "n = 2")
    before = file_state(small_catalogue)
    search.export(small_catalogue)
    wait_idle(qtbot, window, search)
    assert search.message.is_error and "it is the catalogue being exported" in search.message.text()
    assert file_state(small_catalogue)[0] == before[0]


def test_the_view_is_built_by_short_steps():
    """Item 6 of the one-way issue: no view constructor over 60 lines."""
    import inspect

    from whist_catalogue.gui.search_view import SearchView

    assert len(inspect.getsource(SearchView.__init__).splitlines()) <= 60


def test_before_any_search_the_results_and_the_builder_say_how_to_start(qtbot, window, search):
    """Issue 30's empty white boxes: the view opens with a hint, not a blank table or a blank builder; a search
    shows the table, and an unreadable one hides it again beside its message."""
    from whist_catalogue.gui.search_view import NO_SEARCH_YET

    assert not search.results_view.isVisible() and search.count_label.text() == NO_SEARCH_YET
    assert search.builder.empty_note.isVisible() and not search.builder.rows
    run(qtbot, window, search, "n = 2")
    assert search.results_view.isVisible() and search.results.rowCount() == 6
    assert not search.builder.empty_note.isVisible() and len(search.builder.rows) == 1
    run(qtbot, window, search, "n = = 2")
    assert not search.results_view.isVisible() and search.message.is_error
