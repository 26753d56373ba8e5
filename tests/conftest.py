"""Shared test set-up.

Qt runs offscreen (no display on CI): the platform is chosen here, before
pytest-qt creates the QApplication.  Below, the fixtures the GUI tests share
(``tests/test_gui_*.py``; their helpers are in ``tests/gui_support.py``).
"""

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(autouse=True)
def no_default_catalogue(tmp_path, monkeypatch):
    """Point the default catalogue at a file that does not exist, so no test reads a user's real catalogue;
    values come from the engine unless a test names a catalogue.  The app's memory goes to a temporary file."""
    monkeypatch.setenv("WHIST_CATALOGUE_DB", str(tmp_path / "absent.sqlite"))
    # ... nor a user's remembered window, deals and catalogue.
    monkeypatch.setenv("WHIST_CATALOGUE_SETTINGS", str(tmp_path / "settings.ini"))


@pytest.fixture(scope="session")
def small_catalogue(tmp_path_factory):
    """A catalogue of every deal with n ≤ 7 (3/8 first appears at n = 7; hold-ups from n = 4), no solved games."""
    from whist_catalogue.store.build import build

    path = tmp_path_factory.mktemp("catalogue") / "small.sqlite"
    build(str(path), 7, games=False)
    return path


@pytest.fixture(scope="session")
def endings_catalogue(tmp_path_factory):
    """A catalogue of every deal with n ≤ 3 and the table of two-hand endings up to k = 9, the first level beyond
    the shipped table (12 chunks, a few seconds): what the command line and the app answer from it."""
    from whist_catalogue.store.build import build
    from whist_catalogue.twohand.endings import MAX_ENDING_N

    path = tmp_path_factory.mktemp("endings") / "endings.sqlite"
    build(path, 3, games=False, endings=MAX_ENDING_N + 1)
    return path
