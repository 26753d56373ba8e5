"""The app as a whole: ``whist-catalogue gui --screenshot DIR``, the --db check, keyboard navigation."""

import json
from pathlib import Path

from gui_support import make_window
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from whist_catalogue.gui import solutions
from whist_catalogue.gui.app import VIEW_NAMES
from whist_catalogue.scripts.main import main


def test_screenshot_renders_every_view(qtbot, tmp_path, small_catalogue, monkeypatch, capsys):
    monkeypatch.setattr(solutions, "QUICK_PLAN", ((100, 500), (1000, 500)))
    monkeypatch.setattr(solutions, "DEFAULT_EXACT_N", 8)
    out = tmp_path / "shots"
    assert main(["gui", "--db", str(small_catalogue), "--screenshot", str(out), "--json"]) == 0
    captured = capsys.readouterr()
    # progress on stderr although it is not a terminal; with --json, one line per image on stdout
    assert "screenshots:" in captured.err and "explorer.png" in captured.err
    written = [json.loads(line)["screenshot"] for line in captured.out.splitlines()]
    assert len(written) == 10 and all(Path(p).is_file() for p in written)
    for name in VIEW_NAMES:
        image = QImage(str(out / f"{name}.png"))
        assert not image.isNull() and image.width() >= 1000, name
    assert (out / "solutions-le-her.png").exists() and (out / "solutions-asymptotics.png").exists()
    assert (out / "solutions-matrix-game.png").exists()
    assert (out / "calculator-trumps.png").exists()  # a deal with a void and trumps, answered by search


def test_a_missing_or_foreign_catalogue_is_exit_status_2(tmp_path, capsys):
    assert main(["gui", "--db", str(tmp_path / "missing.sqlite")]) == 2
    assert "no catalogue at" in capsys.readouterr().err
    foreign = tmp_path / "notes.txt"
    foreign.write_text("hello")
    assert main(["gui", "--db", str(foreign)]) == 2
    assert "not a catalogue" in capsys.readouterr().err


def test_keyboard_switches_views_and_reaches_the_deal_field(qtbot):
    window = make_window(qtbot)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    for k, name in enumerate(VIEW_NAMES):
        qtbot.keyClick(window, Qt.Key(Qt.Key.Key_1 + k), Qt.KeyboardModifier.ControlModifier)
        assert window.tabs.currentWidget() is window.views[name]
    explorer = window.show_view("explorer")
    qtbot.keyClick(window, Qt.Key.Key_D, Qt.KeyboardModifier.AltModifier)  # &Deal: the buddy takes the focus
    qtbot.waitUntil(lambda: explorer.input.hasFocus())


def test_unexpected_errors_in_a_worker_are_messages(qtbot, monkeypatch):
    window = make_window(qtbot)
    explorer = window.show_view("explorer")

    def broken(*args):
        raise RuntimeError("the engine fell over")

    monkeypatch.setattr("whist_catalogue.gui.explorer.analyse_deal", broken)
    explorer.set_deal_text("AQ/KJ")
    qtbot.waitUntil(lambda: not explorer.busy)
    assert explorer.message.is_error and "fell over" in explorer.message.text()


def test_the_app_remembers_size_deals_tab_and_catalogue_between_launches(qtbot, small_catalogue):
    from gui_support import wait_idle

    from whist_catalogue.gui.app import MainWindow, app_settings, remembered_catalogue
    from whist_catalogue.gui.context import AppContext

    settings = app_settings()  # the tests' own file (conftest)
    first = MainWindow(AppContext(None), settings=settings)
    qtbot.addWidget(first, before_close_func=lambda w: w.context.shutdown())
    first.show()
    first.resize(700, 560)
    first.views["explorer"].set_deal_text("K Q 10 / A J 9")
    first.views["calculator"].set_deal_text("K/A, A/K")
    wait_idle(qtbot, first)
    first.context.set_database(small_catalogue)
    first.views["search"].search_for("n = 4")
    wait_idle(qtbot, first)
    first.show_view("solutions")
    first_size = first.size()  # the offscreen screen is 800 pixels wide: a size that fits it
    first.close()

    again = app_settings()
    assert remembered_catalogue(again) == str(small_catalogue)
    second = MainWindow(AppContext(remembered_catalogue(again)), settings=again)
    qtbot.addWidget(second, before_close_func=lambda w: w.context.shutdown())
    second.show()
    wait_idle(qtbot, second)
    assert (second.width(), second.height()) == (first_size.width(), first_size.height()) != (1360, 900)
    assert second.tabs.currentWidget() is second.views["solutions"]
    assert second.views["explorer"].input.text() == "K Q 10 / A J 9"
    assert second.views["explorer"].value_label.text() == "1 + 1/2"
    assert second.views["calculator"].sum_label.text() == "1 ± ε₀"
    assert second.context.db == str(small_catalogue)
    assert second.views["search"].expression.text() == "n = 4" and second.views["search"].count == 70
    # and the way back to the default catalogue
    assert second.default_action.isEnabled()
    second.default_action.trigger()
    assert second.context.db is None and not second.default_action.isEnabled()
    assert "absent.sqlite" in second.default_action.text()


def test_the_first_launch_opens_on_example_deals_and_a_cleared_deal_stays_cleared(qtbot):
    from gui_support import wait_idle

    from whist_catalogue.gui.app import MainWindow, app_settings
    from whist_catalogue.gui.calculator import DEAL_28
    from whist_catalogue.gui.context import AppContext

    first = MainWindow(AppContext(None), settings=app_settings())  # nothing remembered yet
    qtbot.addWidget(first, before_close_func=lambda w: w.context.shutdown())
    wait_idle(qtbot, first)
    explorer, calculator = first.views["explorer"], first.views["calculator"]
    assert explorer.input.text() == "KQT/AJ9" and explorer.value_label.text() == "1 + 1/2"
    assert explorer.editor.hand("W") == (13, 12, 10)  # the card picker shows it too
    assert calculator.input.text() == DEAL_28 and calculator.analysis is not None  # deal (28), as in the docs
    explorer.input.clear()
    first.save_state(first.settings)
    first.close()
    second = MainWindow(AppContext(None), settings=app_settings())
    qtbot.addWidget(second, before_close_func=lambda w: w.context.shutdown())
    wait_idle(qtbot, second)
    assert second.views["explorer"].input.text() == ""  # the user's empty field, not the example again


def test_the_window_title_names_the_app_once(qtbot):
    window = make_window(qtbot)
    from PySide6.QtWidgets import QApplication

    assert QApplication.applicationDisplayName() == "Whist catalogue"
    assert "Whist catalogue" not in window.windowTitle()  # Qt appends the display name itself


def test_help_opens_the_docs_at_the_notation(qtbot):
    """F1 opens the repository's own docs (docs/spec.md), at the notation; every page of the Help menu exists."""
    from whist_catalogue import documentation
    from whist_catalogue.gui.help import PAGES

    window = make_window(qtbot)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_F1)
    docs = window.documentation
    assert docs is not None
    qtbot.waitUntil(docs.isVisible)
    assert docs.pages.currentItem().text() == "Notation"
    assert docs.heading_at_top() == "2. Notation"
    assert "owner string" in docs.browser.toPlainText()
    for page in PAGES:
        assert Path(documentation(page.file)).is_file(), page.file
        docs.show_page(page.title)
        text = docs.browser.toPlainText()
        assert page.heading is None or page.heading in text, page
    docs.show_page("The search language")
    assert "search" in docs.browser.toPlainText().lower()


def test_the_first_window_fits_the_screen(qtbot):
    from whist_catalogue.gui.app import MainWindow, app_settings
    from whist_catalogue.gui.context import AppContext

    window = MainWindow(AppContext(None), settings=app_settings())  # nothing remembered: the first launch
    qtbot.addWidget(window, before_close_func=lambda w: w.context.shutdown())
    window.show()
    free = window.screen().availableGeometry()  # the offscreen screen: 800 × 800, smaller than 1360 × 900
    frame = window.frameGeometry()
    assert free.height() < 900 and frame.top() >= free.top() and frame.bottom() <= free.bottom()
    # as narrow as the screen, unless a view cannot be narrower (the search's builder needs some 880 pixels)
    assert frame.width() <= max(free.width(), window.minimumSizeHint().width() + frame.width() - window.width())
