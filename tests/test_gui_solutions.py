"""The solved games: chemin-de-fer's G(h) and tables, Le Her for a chosen N, the §11 asymptotics."""

from fractions import Fraction

import pytest
from gui_support import make_window, wait_idle
from PySide6.QtCore import Qt


@pytest.fixture
def window(qtbot):
    return make_window(qtbot)


@pytest.fixture
def solutions(qtbot, window):
    view = window.show_view("solutions")
    wait_idle(qtbot, window, view)
    return view


def test_chemin_de_fer_plot_and_decision_tables(qtbot, window, solutions, qtmodeltester):
    page = solutions.chemin_de_fer
    assert page.solution is not None and not page.message.is_error
    assert "h* = 575/704" in page.summary.text()
    assert page.decisions.rowCount() == 4 and page.decisions.columnCount() == 11
    assert page.decisions.headerData(10, Qt.Orientation.Horizontal) == "stood"
    assert {page.decisions.index(r, c).data() for r in range(4) for c in range(11)} == {"draw", "stand"}
    for model in (page.decisions, page.table3):
        qtmodeltester.check(model)
    ax = page.canvas.figure.axes[0]
    assert "minimax point" in [t.get_text() for t in ax.get_legend().get_texts()]
    page.table_box.setCurrentIndex(0)
    assert page.table_box.currentText().startswith("Table 4")


def test_le_her_choose_n(qtbot, window, solutions, qtmodeltester):
    solutions.tabs.setCurrentWidget(solutions.le_her)
    page = solutions.le_her
    wait_idle(qtbot, window, solutions)
    assert "N = 13" in page.summary.text() and "548/1001" in page.summary.text()
    page.cards.setValue(5)
    wait_idle(qtbot, window, solutions)
    assert "N = 5" in page.summary.text()
    assert page.matrix.rowCount() == 4 and page.matrix.columnCount() == 4
    cells = [(r, c) for r in range(4) for c in range(4)]
    assert all(float(page.matrix.index(r, c).data()) < 1 for r, c in cells)  # decimals by default
    page.exact.setChecked(True)
    assert any("/" in page.matrix.index(r, c).data() for r, c in cells)
    for model in (page.matrix, page.subgame):
        qtmodeltester.check(model)


def test_asymptotics_compute_then_cancel(qtbot, window, solutions):
    solutions.tabs.setCurrentWidget(solutions.asymptotics)
    page = solutions.asymptotics
    page.cancel()
    wait_idle(qtbot, window, solutions)
    page.exact_n.setValue(6)
    page.plan.setItemData(0, ((100, 400), (400, 400)))
    page.plan.setCurrentIndex(0)
    with qtbot.waitSignal(page.loaded, timeout=30_000):
        page.compute()
    assert page.data is not None and page.data.exact[-1].n == 6
    assert "Kolmogorov" in page.notes.text()
    for name in range(page.figure_box.count()):
        page.figure_box.setCurrentIndex(name)
        assert not page.message.is_error and page.canvas.figure.axes
    # a long computation is cancelled from the window
    page.plan.setCurrentIndex(1)
    page.exact_n.setValue(14)
    page.compute()
    qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not page.busy, timeout=30_000)
    assert "Cancelled" in page.message.text() and page.data.exact[-1].n == 6


def _texts_inside_figure(canvas) -> list[str]:
    """The titles and axis labels of a drawn figure that stick out of it (empty when everything fits)."""
    figure = canvas.figure
    canvas.draw()
    renderer = canvas.get_renderer()
    box = figure.bbox
    outside = []
    for ax in figure.axes:
        for text in (ax.title, ax.xaxis.label, ax.yaxis.label, *([figure._suptitle] if figure._suptitle else [])):
            if not text.get_text():
                continue
            extent = text.get_window_extent(renderer)
            if extent.x0 < box.x0 - 1 or extent.x1 > box.x1 + 1 or extent.y0 < box.y0 - 1 or extent.y1 > box.y1 + 1:
                outside.append(text.get_text())
    return outside


def test_plots_have_the_navigation_toolbar_and_fit_a_small_window(qtbot, window, solutions):
    window.resize(1000, 700)
    qtbot.waitUntil(lambda: window.width() <= 1000)
    page = solutions.chemin_de_fer
    actions = {a.text() for a in page.plot.toolbar.actions()}
    assert {"Home", "Pan", "Zoom", "Save"} <= actions
    qtbot.wait(50)
    assert page.canvas.width() < 600  # the figure really is small here
    assert _texts_inside_figure(page.canvas) == []
    assert page.canvas.figure.axes[0].get_title() == "The Banker's gain G(h)"


def test_the_randomised_cell_and_the_subgame_probabilities_are_in_view_at_1000_by_700(qtbot, window, solutions):
    window.resize(1000, 700)
    qtbot.waitUntil(lambda: window.width() <= 1000)
    page = solutions.chemin_de_fer
    qtbot.wait(50)
    j, l, _ = page.solution.mixed_cell
    row = [r for r in range(page.decisions.rowCount()) if page.decisions.headerData(r, Qt.Orientation.Vertical)
           == f"Banker {j}"][0]
    cell = page.decisions_view.visualRect(page.decisions.index(row, l))
    assert page.decisions_view.viewport().rect().contains(cell), "the cell the Banker randomises is in view"
    solutions.tabs.setCurrentWidget(solutions.le_her)
    wait_idle(qtbot, window, solutions)
    page = solutions.le_her
    qtbot.wait(50)
    view = page.subgame_view
    assert view.horizontalHeader().length() <= view.viewport().width(), "every column of the subgame in view"
    headers = [page.subgame.headerData(k, Qt.Orientation.Horizontal) for k in range(page.subgame.columnCount())]
    assert headers == ["t = 9: 4/7", "t = 10: 3/7"]  # each strategy with its probability
    assert page.subgame.headerData(0, Qt.Orientation.Vertical) == "s = 8: 6/7"


def test_le_her_plot_and_the_optimal_cells_in_view_at_52(qtbot, window, solutions):
    window.resize(1000, 700)
    solutions.tabs.setCurrentWidget(solutions.le_her)
    page = solutions.le_her
    wait_idle(qtbot, window, solutions)
    page.cards.setValue(52)
    qtbot.waitUntil(lambda: page.solution is not None and page.solution.cards == 52 and not page.busy, timeout=60_000)
    view = page.matrix_view
    assert page.optimal_cells, "N = 52 has optimal cells"
    for r, c in page.optimal_cells:
        assert page.matrix.index(r, c).data(Qt.ItemDataRole.BackgroundRole) is not None
    # the jump is automatic on loading, and the button does it again after scrolling away
    view.scrollToTop()
    view.horizontalScrollBar().setValue(0)
    qtbot.mouseClick(page.optimal_button, Qt.MouseButton.LeftButton)
    first = page.matrix.index(*page.optimal_cells[0])
    assert view.viewport().rect().contains(view.visualRect(first).center())
    assert {(i.row(), i.column()) for i in view.selectionModel().selectedIndexes()} == set(page.optimal_cells)
    # the plot: a(s, t) as an image with the supports marked and the subgame outlined
    page.right_tabs.setCurrentWidget(page.plot)
    ax = page.plot.figure.axes[0]
    assert ax.images and ax.images[0].get_array().shape == (51, 51)
    assert "N = 52" in ax.get_title()
    assert any("2×2 subgame" in t.get_text() for t in ax.get_legend().get_texts())


def test_a_matrix_game_of_your_own(qtbot, window, solutions):
    """Typed, resized, pasted: each answer belongs to the grid shown, and a bad cell is named, never solved."""
    from PySide6.QtGui import QGuiApplication

    solutions.tabs.setCurrentWidget(solutions.matrix_game)
    page = solutions.matrix_game
    wait_idle(qtbot, window, solutions)
    assert page.solution is not None and page.solution.value == Fraction(1, 7)  # the example: T/B against L/R
    assert "3/7" in page.summary.text()
    page.grid.item(0, 0).setText("x")
    assert page.solution is None and "Changed" in page.summary.text()  # no stale answer beside the new grid
    page.solve()
    assert page.message.is_error and "row 1, column 1: 'x' is not a number" in page.message.text()
    assert page.solution is None and page.summary.text() == ""
    page.grid.item(0, 0).setText("1/2")
    page.columns.setValue(3)  # a new column of zeros, which player 2 never needs: [[1/2, -1], [-2, 1]] is worth -1/3
    qtbot.keyClick(page.solve_button, Qt.Key.Key_Space)
    wait_idle(qtbot, window, solutions)
    assert not page.message.is_error and page.solution.value == Fraction(-1, 3)
    assert page.grid.item(1, 2).text() == "0" and "3" not in dict(page.solution.player2)
    QGuiApplication.clipboard().setText("\tstand\tcall\nlow\t1\t-1\nhigh\t-1\t1")
    page.grid.setFocus()
    page.paste()
    wait_idle(qtbot, window, solutions)
    assert (page.grid.rowCount(), page.grid.columnCount()) == (2, 2)
    assert page.grid.horizontalHeaderItem(1).text() == "call"
    assert dict(page.solution.player1) == {"low": Fraction(1, 2), "high": Fraction(1, 2)} and page.solution.value == 0


def test_an_answer_to_a_grid_since_edited_is_dropped(qtbot, window, solutions):
    """The solve runs in a worker; its answer reaches the window only through the event loop, so an edit made
    before then always wins: the answer belongs to the old grid and is never shown beside the new one."""
    solutions.tabs.setCurrentWidget(solutions.matrix_game)
    page = solutions.matrix_game
    wait_idle(qtbot, window, solutions)
    page.solve()
    assert page.busy
    page.grid.item(0, 0).setText("5")
    assert not page.busy
    window.context.pool.wait(10_000)
    qtbot.wait(50)  # the old answer's signal is delivered now, and dropped
    assert page.solution is None and "Changed" in page.summary.text()
    page.solve()
    wait_idle(qtbot, window, solutions)
    assert page.solution is not None and page.grid.item(0, 0).text() == "5"


def test_a_tampered_stored_game_is_an_error_not_solved_quietly(qtbot, tmp_path):
    """The page reads the catalogue's solution as ``solve --db`` does (store.reader.stored_or_solved): a stored
    Le Her whose solution no longer matches its checksum is named, as the command line names it."""
    import json
    import sqlite3

    import whist_catalogue.store.build as store_build

    path = tmp_path / "catalogue.sqlite"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store_build, "SOLVED_GAMES", (("le-her", {"cards": 5}),))
        store_build.build(path, 2)
    with sqlite3.connect(path) as conn:
        (solution,) = conn.execute("SELECT solution FROM solved_game WHERE name = 'le-her'").fetchone()
        conn.execute("UPDATE solved_game SET solution = ? WHERE name = 'le-her'",
                     (json.dumps(dict(json.loads(solution), value="1/3")),))
    window = make_window(qtbot, str(path))
    view = window.show_view("solutions")
    view.tabs.setCurrentWidget(view.le_her)
    page = view.le_her
    page.cards.setValue(5)
    wait_idle(qtbot, window, view)
    assert page.message.is_error and "its solution differs from the checksum recorded at build time" \
        in page.message.text(), page.message.text()
    page.cards.setValue(4)  # not stored: solved now, as before
    wait_idle(qtbot, window, view)
    assert not page.message.is_error and "N = 4" in page.summary.text()
