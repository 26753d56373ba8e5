"""The app as a whole: ``whist-catalogue gui --screenshot DIR``, the --db check, keyboard navigation."""

from gui_support import make_window
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from whist_catalogue.gui import solutions
from whist_catalogue.gui.app import VIEW_NAMES
from whist_catalogue.scripts.main import main


def test_screenshot_renders_every_view(qtbot, tmp_path, small_catalogue, monkeypatch):
    monkeypatch.setattr(solutions, "QUICK_PLAN", ((100, 500), (1000, 500)))
    monkeypatch.setattr(solutions, "DEFAULT_EXACT_N", 8)
    out = tmp_path / "shots"
    assert main(["gui", "--db", str(small_catalogue), "--screenshot", str(out)]) == 0
    for name in VIEW_NAMES:
        image = QImage(str(out / f"{name}.png"))
        assert not image.isNull() and image.width() >= 1000, name
    assert (out / "solutions-le-her.png").exists() and (out / "solutions-asymptotics.png").exists()


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
