"""Catalogue status: the levels a catalogue holds; a build started, followed, cancelled and finished."""

from math import comb

import pytest
from gui_support import make_window, wait_idle
from PySide6.QtCore import Qt

from whist_catalogue.store.reader import open_catalogue


@pytest.fixture
def db(tmp_path):
    return tmp_path / "catalogue.sqlite"


def test_missing_catalogue_is_a_message_and_building_fills_it(qtbot, db, qtmodeltester):
    window = make_window(qtbot, db)
    status = window.show_view("status")
    assert status.headline.text() == "No catalogue"
    assert "no catalogue here yet" in status.message.text()
    status.max_n.setValue(4)
    status.games.setChecked(False)
    assert not status.progress.isVisible() and not status.levels_view.isVisible()  # no empty boxes
    with qtbot.waitSignal(status.loaded, timeout=60_000):
        qtbot.mouseClick(status.build_button, Qt.MouseButton.LeftButton)
        assert status.progress.isVisible()  # the bar follows the build ...
    assert not status.progress.isVisible()  # ... and goes with it: a full bar with no words said nothing
    assert status.last_summary is not None, status.message.text()
    assert status.last_summary.stored == [1, 2, 3, 4]
    assert status.levels_model.rowCount() == 4 and status.levels_view.isVisible()
    assert "Levels 1–4: chunks" in status.details.text()
    assert status.levels_model.index(3, 1).data() == "complete"
    assert status.levels_model.index(3, 2).data() == "70"
    qtmodeltester.check(status.levels_model)
    assert "n ≤ 4" in status.headline.text()
    said = status.message.text()
    # the command line's line (BuildSummary.text): what the catalogue holds, what this run added
    assert said.startswith("Built: catalogue ") and ": levels 1–4 complete (98 deals, " in said, said
    assert "; this run stored levels 1–4 (" in said and " bytes of chunks)" in said
    # one level more: named once ("level 5", not "levels 5 … 5"), with rows since n ≤ 10
    status.max_n.setValue(5)
    assert f"{comb(10, 5):,} deals to value and store (level 5)" in status.plan_label.text()
    # the rest of the app now reads the catalogue
    assert "catalogue" in window.source_label.text() and "no catalogue" not in window.source_label.text()


def test_build_progress_and_cancel_keep_the_window_responsive(qtbot, db):
    window = make_window(qtbot, db)
    status = window.show_view("status")
    status.max_n.setValue(13)
    status.games.setChecked(False)
    events = []
    qtbot.mouseClick(status.build_button, Qt.MouseButton.LeftButton)
    assert status.busy and status.cancel_button.isEnabled()
    status.task.worker.signals.progress.connect(events.append)
    # the event loop keeps running: switch views and value a deal while the build works
    explorer = window.show_view("explorer")
    explorer.set_deal_text("AQ/KJ")
    qtbot.waitUntil(lambda: explorer.value_label.text() == "1 + 1/2", timeout=30_000)
    qtbot.waitUntil(lambda: any(e.stage == "compute" and e.n == 13 for e in events), timeout=60_000)
    window.show_view("status")
    qtbot.mouseClick(status.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not status.busy, timeout=60_000)
    assert "cancelled" in status.message.text()
    with open_catalogue(db) as catalogue:
        complete = catalogue.complete_levels()
    assert complete and max(complete) < 13
    assert complete == set(range(1, max(complete) + 1))  # finished levels stay valid
    wait_idle(qtbot, window, status)


def test_an_estimate_before_building_and_no_stale_progress_after_cancel(qtbot, db, tmp_path):
    window = make_window(qtbot, db)
    status = window.show_view("status")
    status.max_n.setValue(14)
    plan = status.plan_label.text()
    assert f"{sum(comb(2 * n, n) for n in range(1, 15)):,} deals" in plan
    # the engine's model (tests/test_estimates.py) and docs/benchmarks.md's 0.035 bytes a deal of disk: every level
    # is chunks since the per-deal rows went
    assert "(levels 1–14): about " in plan and ", 1.9 MB of disk and " in plan and "docs/benchmarks.md" in plan
    status.max_n.setValue(13)
    status.games.setChecked(False)
    events = []
    qtbot.mouseClick(status.build_button, Qt.MouseButton.LeftButton)
    status.task.worker.signals.progress.connect(events.append)
    qtbot.waitUntil(lambda: any(e.stage == "compute" and e.n == 13 for e in events), timeout=60_000)
    qtbot.waitUntil(lambda: "so far" in status.progress_label.text(), timeout=5_000)  # the line moves by itself
    qtbot.mouseClick(status.cancel_button, Qt.MouseButton.LeftButton)
    assert "Cancelling" in status.progress_label.text()
    qtbot.waitUntil(lambda: not status.busy, timeout=60_000)
    assert "cancelled" in status.message.text() and status.progress_label.text() == ""
    window.context.set_database(tmp_path / "other.sqlite")
    assert status.progress_label.text() == "" and "other.sqlite" in status.location_label.text()


def test_the_table_of_endings_is_listed_and_built_from_the_view(qtbot, db, endings_catalogue, qtmodeltester):
    """The table of two-hand endings' levels beside the single-suit levels (k, positions, bytes, when), and Build
    with "endings up to k" stores them, its estimate said first as build --endings says it."""
    from whist_catalogue.twohand.endings import positions

    window = make_window(qtbot, endings_catalogue)
    status = window.show_view("status")
    model = status.endings_model
    assert model.rowCount() == 9 and status.endings_view.isVisible()
    qtmodeltester.check(model)
    assert [model.index(r, 0).data() for r in range(9)] == [str(k) for k in range(1, 10)]
    assert model.index(8, 1).data() == "complete" and model.index(8, 2).data() == f"{positions(9):,}"
    assert model.index(8, 3).data().endswith(" kB") and model.index(8, 4).data()[:2] == "20"
    window.context.set_database(db)  # a new file: no table, no empty box
    assert status.endings_model.rowCount() == 0 and not status.endings_view.isVisible()
    status.max_n.setValue(2)
    status.games.setChecked(False)
    status.endings.setValue(4)
    assert "Then the table of endings, k = 1–4: " in status.plan_label.text()
    with qtbot.waitSignal(status.loaded, timeout=120_000):
        qtbot.mouseClick(status.build_button, Qt.MouseButton.LeftButton)
    said = status.message.text()
    assert said.startswith("Built: catalogue ") and "; the table of endings holds k = 1–4, this run stored k = 1–4 (" \
        in said, said
    assert [model.index(r, 1).data() for r in range(model.rowCount())] == ["complete"] * 4
