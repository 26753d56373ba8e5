"""What a newcomer meets at the command line: progress when output is not a terminal, options that
are not silently ignored, hints that name the right command, output that explains itself."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from catalogue_testing import file_state, run_cli

from whist_catalogue.scripts.main import main


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli-output") / "catalogue.sqlite"
    code, _, err = run_cli("build", "--max-n", "4", "--db", str(path), "--no-progress")
    assert code == 0, err
    return path


def test_long_commands_report_progress_on_stderr_when_it_is_not_a_terminal(built):
    # a subprocess: stderr is a pipe here, as in a log file or CI
    for argv, words in ((["verify"], "verifying"), (["stats"], "statistics")):
        done = subprocess.run([sys.executable, "-m", "whist_catalogue", *argv, "--db", str(built)],
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        lines = done.stderr.splitlines()
        # Within the quiet second nothing is said (a 0.7 s stats once printed "0 of 14 levels (0 %)" after its
        # answer); past it, lines that end at 100 %.
        assert all(line.startswith(words) for line in lines), done.stderr
        assert "\r" not in done.stderr and (not lines or "100 %" in lines[-1])
    code, _, err = run_cli("stats", "--db", str(built))
    assert code == 0 and (err == "" or "statistics: 4 of 4 levels (100 %)" in err)


def test_build_progress_lines_and_no_progress_silences_them(tmp_path):
    code, _, err = run_cli("build", "--max-n", "3", "--db", str(tmp_path / "a.sqlite"), "--no-games")
    assert code == 0 and "\r" not in err and "0.00/1.00" not in err
    assert err.startswith("whist-catalogue: 28 deals to value and store (levels 1–3): about ")  # the estimate first
    assert all(line.split(" n=")[0] == "valuing" or line.startswith(("n=", "solving", "whist-catalogue: ",
                                                                                   "engine ready"))
               for line in err.splitlines()), err
    code, _, err = run_cli("build", "--max-n", "3", "--db", str(tmp_path / "b.sqlite"), "--no-games", "--no-progress")
    assert code == 0 and err == ""


def test_scan_refuses_a_catalogue_it_would_not_read(tmp_path):
    target = tmp_path / "c.sqlite"
    before = file_state(target)
    code, out, err = run_cli("scan", "--max-n", "3", "--db", str(target))
    assert code == 2 and out == "" and err.count("\n") == 1 and "unrecognized arguments: --db" in err
    assert file_state(target) == before


@pytest.mark.parametrize("command, absent, present", [("scan", "--db", "--json"), ("gui", None, "--screenshot")])
def test_sub_commands_list_only_the_options_that_mean_something(capsys, command, absent, present):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    shown = capsys.readouterr().out
    assert present in shown
    if absent is not None:
        assert absent not in shown
    if command == "gui":  # --json there only names the screenshots written
        assert "with --screenshot" in shown


def test_solve_with_db_reads_the_stored_solution(tmp_path):
    from whist_catalogue.store.build import build

    path = tmp_path / "games.sqlite"
    build(str(path), 1, games=True)
    code, out, err = run_cli("solve", "le-her", "--cards", "7", "--db", str(path), "--json")
    assert code == 0, err
    _, out2, _ = run_cli("solve", "le-her", "--cards", "7", "--json")
    assert json.loads(out) == json.loads(out2)  # the stored solution is the solved one
    code, _, err = run_cli("solve", "le-her", "--cards", "7", "--db", str(tmp_path / "missing.sqlite"))
    assert code == 2 and "no catalogue at" in err
    code, _, err = run_cli("solve", "le-her", "--cards", "2", "--db", str(path))
    assert code == 2 and err.count("\n") == 1


def test_gui_json_goes_with_screenshots_only():
    code, out, err = run_cli("gui", "--json")
    assert code == 2 and out == "" and "--screenshot" in err and err.count("\n") == 1


def test_the_missing_catalogue_hint_names_plain_build_for_the_default(tmp_path, monkeypatch):
    default = tmp_path / "default.sqlite"
    monkeypatch.setenv("WHIST_CATALOGUE_DB", str(default))
    code, _, err = run_cli("stats")
    assert code == 2 and "(build one with: whist-catalogue build)" in err
    other = tmp_path / "other.sqlite"
    code, _, err = run_cli("stats", "--db", str(other))
    assert code == 2 and f"whist-catalogue build --db {other}" in err


def test_search_text_has_a_header_and_names_cards(built):
    code, out, _ = run_cli("search", "n = 3 and value = 1+1/2", "--db", str(built))
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("# deal") and "best leads" in lines[0]
    kqt = next(line for line in lines if line.startswith("EWEWWE"))
    # KQT/AJ9 in the top six ranks: West's best leads are the Q and the K, East's the 9 and the J
    assert "KQT/AJ9" in kqt and "best leads W: Q K  E: 9 J" in kqt
    code, out, _ = run_cli("search", "n = 3", "--db", str(built), "--json", "--limit", "1")
    assert not out.startswith("#")  # JSON Lines stay pure


def test_search_help_points_to_a_file_that_exists():
    from pathlib import Path

    from whist_catalogue import documentation

    done = subprocess.run([sys.executable, "-m", "whist_catalogue", "search", "--help"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert documentation("search.md") in "".join(done.stdout.split())  # argparse wraps long lines
    assert Path(documentation("search.md")).is_file()
