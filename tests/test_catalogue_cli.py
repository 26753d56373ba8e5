"""The catalogue's sub-commands end to end: build, search, stats, export, verify (docs/spec.md §4)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from math import comb
from pathlib import Path

import pytest
from catalogue_testing import file_state, run_cli

from whist_catalogue.store.fields import DEFAULT_COLUMNS
from whist_catalogue.store.reader import open_catalogue

REPO = Path(__file__).resolve().parents[1]
MAX_N = 6


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "catalogue.sqlite"
    code, out, err = run_cli("build", "--max-n", str(MAX_N), "--db", str(path), "--json", "--no-games")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["levels_stored"] == list(range(1, MAX_N + 1))
    assert summary["deals"] == sum(comb(2 * n, n) for n in range(1, MAX_N + 1))
    assert summary["bytes_per_deal"] == pytest.approx(summary["file_bytes"] / summary["deals"], rel=1e-3)
    return path


def test_build_text_summary_and_default_location(tmp_path, monkeypatch):
    from whist_catalogue.store import settings

    target = tmp_path / "data" / "default.sqlite"
    monkeypatch.delenv("WHIST_CATALOGUE_DB")
    monkeypatch.setattr(settings, "default_database_path", lambda: target)
    code, out, err = run_cli("build", "--max-n", "2", "--no-progress", "--no-games")
    assert code == 0, err  # the default location's directory is created (the user data directory)
    assert out.startswith(f"catalogue {target}: levels 1–2 complete (8 deals")
    assert "; this run stored levels 1–2 (" in out and "bytes of chunks)" in out
    code, again, _ = run_cli("build", "--max-n", "1", "--no-progress", "--no-games")
    assert code == 0 and again.startswith(f"catalogue {target}: levels 1–2 complete (8 deals")  # not 1…1
    assert "; nothing to store;" in again and "stored level" not in again
    code, out, _ = run_cli("search", "--count", "n = 2")
    assert code == 0 and out == "6\n"


def test_export_level_csv_streams_every_row(built):
    code, out, err = run_cli("export", "--level", "5", "--db", str(built))
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == list(DEFAULT_COLUMNS)
    assert len(rows) == 1 + comb(10, 5)
    keys = [int(r[0]) for r in rows[1:]]
    assert keys == sorted(keys) and all(len(r[1]) == 10 for r in rows[1:])
    first = dict(zip(rows[0], rows[1]))
    assert first["label"] == "WWWWWEEEEE" and first["numerator"] == "0" and first["infinitesimal"] == "e0"


def test_export_search_jsonl_to_file(built, tmp_path):
    target = tmp_path / "out.jsonl"
    code, _, err = run_cli("export", "value = 3/2", "--db", str(built), "--json", "--output", str(target),
                           "--columns", "default,best_leads")
    assert code == 0 and "exported" in err
    records = [json.loads(line) for line in target.read_text().splitlines()]  # the deals, nothing else
    with open_catalogue(built) as cat:
        assert len(records) == cat.count("value = 3/2") > 0
    assert all(list(r) == [*DEFAULT_COLUMNS, "best_leads_west", "best_leads_east"] for r in records)
    assert all((r["value"], r["numerator"], r["denominator"]) == ("1 + 1/2", 3, 2) for r in records)
    ewew = next(r for r in records if r["label"] == "EWEW")
    assert ewew["best_leads_west"] == 1 << 3 and ewew["key"] == 26  # card 4


def test_export_combines_expression_and_level_safely(built, tmp_path):
    code, out, _ = run_cli("export", "ace = W", "--level", "3", "--db", str(built), "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))[1:]
    assert code == 0 and len(rows) == 10 and all(len(r[1]) == 6 and r[-1] == "W" for r in rows)
    target = tmp_path / "never.csv"
    code, _, err = run_cli("export", "1 = 1) or (1 = 1", "--level", "3", "--db", str(built), "-o", str(target))
    assert code == 2 and "search:" in err
    assert not target.exists() and not target.with_name("never.csv.partial").exists()
    code, _, err = run_cli("export", "--level", "9", "--db", str(built))
    assert code == 2 and "level 9 is not complete" in err


def test_export_is_streamed_through_a_pipe(built):
    """A consumer that stops early (head) ends the export quietly."""
    proc = subprocess.run(f"{sys.executable} -m whist_catalogue export --db {built} | head -n 3",
                          shell=True, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.stdout.count("\n") == 3 and "Traceback" not in proc.stderr


def test_verify_ok_and_json(built):
    code, out, _ = run_cli("verify", "--db", str(built), "--seed", "3", "--no-progress")  # as build, scan, search
    assert code == 0 and out.startswith("verify OK") and f"{MAX_N} of {MAX_N} levels complete" in out
    code, out, _ = run_cli("verify", "--db", str(built), "--json", "--sample", "2")
    report = json.loads(out)
    assert code == 0 and report["ok"] and [lv["n"] for lv in report["levels"]] == list(range(1, MAX_N + 1))
    assert all(lv["checksum_ok"] and lv["rows"] == lv["expected_rows"] for lv in report["levels"])


def test_verify_on_an_empty_catalogue_fails(tmp_path):
    path = tmp_path / "empty.sqlite"
    from whist_catalogue.store.database import upgrade, writer_engine

    upgrade(writer_engine(path))
    code, out, _ = run_cli("verify", "--db", str(path))
    assert code == 1 and "holds no levels" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["search"], "required"),
        (["search", "n = 1", "--limit", "x"], "invalid int"),
        (["stats", "--bogus"], "unrecognized arguments"),
        (["export", "--format", "xml"], "invalid choice"),
        (["verify", "--sample", "-1"], "must not be negative"),
        (["export", "--level", "0"], "--level must be at least 1"),
    ],
)
def test_usage_errors_exit_2(built, argv, message):
    before = file_state(built)
    code, out, err = run_cli(*argv, "--db", str(built))
    assert code == 2 and message in err and err.count("\n") == 1
    assert file_state(built) == before


def test_value_and_outcome_use_the_catalogue(built):
    code, out, _ = run_cli("value", "AQ/KJ", "EWEW", "--db", str(built), "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and lines[0]["value"]["number"] == "3/2" and lines[0]["best_leads"]["west"] == ["A"]
    code, out, _ = run_cli("outcome", "AQ/KJ, AKJ/QT9, AJ9/KQT", "--db", str(built), "--json")
    assert code == 0 and json.loads(out)["outcome"] == {"west_leads": 5, "east_leads": 6}


def test_an_export_that_asks_for_a_missing_level_says_so(built, tmp_path):
    """Issue 19: a level's row deleted, ``export 'n = 6 and …'`` wrote a header and no deal with exit 0 where
    ``search`` says the level is missing; now it says so too (stderr), and ``--level`` refuses it."""
    import shutil
    import sqlite3

    path = tmp_path / "c.sqlite"
    shutil.copy(built, path)
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM level WHERE n = 6")
    conn.close()
    code, out, err = run_cli("export", "n = 6 and h = 1", "--db", str(path))
    assert code == 0 and out.splitlines() == [",".join(DEFAULT_COLUMNS)]
    assert err == "searched no level; level 6 is not in the catalogue (whist-catalogue build --max-n 6 adds it)\n"
    search = run_cli("search", "--count", "n = 6 and h = 1", "--db", str(path))
    assert search[2] == err and search[1] == "0\n"
    code, _, err = run_cli("export", "--level", "6", "--db", str(path))
    assert code == 2 and "level 6 is not complete" in err


def test_search_names_what_build_adds_and_what_lies_beyond(built):
    """Issue 18: ``search 'n != 1'`` ended "levels 15…30 are not in the catalogue (… build --max-n 30 adds them)",
    but build stops at 18."""
    code, out, err = run_cli("search", "--count", "n != 1", "--db", str(built))
    assert code == 0 and err == (f"searched levels 2–{MAX_N}; levels {MAX_N + 1}–18 are not in the catalogue"
                                 " (whist-catalogue build --max-n 18 adds them); levels 19–30 lie beyond every"
                                 " catalogue (build stores n ≤ 18; value and outcome compute such deals one at a"
                                 " time)\n")
