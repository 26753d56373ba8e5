"""The resumable build: values read back equal the engine's, atomic levels, resume after kill -9, progress events."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from math import comb
from pathlib import Path

import numpy as np
import pytest
from catalogue_testing import JIT, build_catalogue, file_state, reference_records, run_cli

from whist_catalogue import __version__
from whist_catalogue.engine.levels import EngineSolver, levels
from whist_catalogue.errors import CatalogueError, DealTooLargeError
from whist_catalogue.games import solved_games
from whist_catalogue.single_suit import formulas as single_suit
from whist_catalogue.single_suit.formulas import outcome_from_h
from whist_catalogue.store.build import MAX_BUILD_N, BuildProgress, build, build_steps
from whist_catalogue.store.reader import open_catalogue
from whist_catalogue.theory import definition
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.ranking import level_masks
from whist_catalogue.theory.values import rho

REPO = Path(__file__).resolve().parents[1]
MAX_N = 8 if JIT else 7


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return build_catalogue(tmp_path_factory.mktemp("build") / "catalogue.sqlite", MAX_N)


def test_values_moves_and_flags_read_back_equal_the_engines(built):
    """Every deal's record — the value and check bits stored, the best moves derived from level n−1's chunks,
    the quantities of the single-suit paper — equals the reference made without the catalogue, and every level
    reads back as the engine's own codes."""
    reference = reference_records(MAX_N)
    with open_catalogue(built) as cat:
        assert cat.records([r.deal for r in reference]) == reference
        for level in levels(MAX_N):
            codes, table = cat.level_values(level.n)
            assert np.array_equal(table.numerator[codes], level.numerator)
            assert np.array_equal(table.infinitesimal[codes], level.infinitesimal)
    assert sum(r.flags for r in reference) > 0, "the labeled hold-up property is set on some deals"


def test_solutions_equal_the_recursive_definition_and_the_engine(built):
    engine = EngineSolver(MAX_N)
    with open_catalogue(built) as cat:
        for n in range(1, 5):
            for mask in level_masks(n):
                deal = Deal(n, int(mask))
                assert cat.solve(deal) == definition.solve(deal), deal.label
        rng = np.random.default_rng(5)
        for n in (MAX_N - 1, MAX_N):
            for mask in rng.choice(level_masks(n), 15):
                deal = Deal(n, int(mask))
                assert cat.solve(deal) == engine.solve(deal), deal.label


def test_derived_columns(built):
    """Outcome = ρ(value) = Theorem 8.1's, and the single-suit formulas, deal by deal."""
    with open_catalogue(built) as cat:
        for n in range(1, MAX_N + 1):
            for record in cat.search(level=n):
                v = record.value
                assert record.outcome == rho(v) == outcome_from_h(n, record.h)
                assert record.n == n and record.ace == record.deal.ace_holder
                if n <= 5:
                    q = single_suit.quantities(record.deal)
                    assert (record.h_lower, record.h_upper, record.h) == (q.h_lower, q.h_upper, q.h)
                    assert record.greedy == q.greedy_whist_outcome
                    assert record.five_card == (q.five_card_west_leads, q.five_card_east_leads)


def test_metadata_solved_games_and_wal(built):
    with open_catalogue(built) as cat:
        infos = cat.levels()
        assert [i.n for i in infos] == list(range(1, MAX_N + 1))
        for info in infos:
            assert info.complete and info.row_count == comb(2 * info.n, info.n)
            assert len(info.checksum) == 64 and info.software_version == __version__
            assert info.built_at is not None and info.build_seconds >= 0
        assert cat.solved_game("chemin-de-fer") == json.loads(json.dumps(solved_games.solve("chemin-de-fer").to_json()))
        assert cat.solved_game("le-her", cards=13) == json.loads(json.dumps(solved_games.solve("le-her", cards=13).to_json()))
        assert len(cat.solved_games()) == 51
        assert cat.solved_game("le-her", cards=99) is None
    with sqlite3.connect(built) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_reader_reads_while_a_writer_holds_a_transaction(built, tmp_path):
    path = tmp_path / "c.sqlite"
    path.write_bytes(built.read_bytes())
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("DELETE FROM level_chunk WHERE n <= 2")  # uncommitted: levels 1 and 2
    try:
        with open_catalogue(path) as cat:
            assert cat.value(Deal.from_label("EWEW")).number == 3 / 2 * 1
            assert cat.count("n <= 2") == 8
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_resume_builds_only_missing_levels(tmp_path):
    path = tmp_path / "c.sqlite"
    first = build(path, 4, games=False)
    assert first.stored == [1, 2, 3, 4] and first.solved_games == 0
    with open_catalogue(path) as cat:
        stamps = {i.n: i.built_at for i in cat.levels()}
    events: list[BuildProgress] = []
    second = build(path, 6, progress=events.append)
    assert second.already_complete == [1, 2, 3, 4] and second.stored == [5, 6]
    assert second.solved_games == 51 and second.deals == sum(comb(2 * n, n) for n in range(1, 7))
    with open_catalogue(path) as cat:
        assert {i.n: i.built_at for i in cat.levels() if i.n <= 4} == stamps
        assert cat.max_n == 6
    stages = [e.stage for e in events]
    assert stages[0] == "plan" and stages[-1] == "done" and "games" in stages
    assert [e.n for e in events if e.stage == "level"] == [1, 2, 3, 4, 5, 6]
    computed = [e for e in events if e.stage == "compute" and e.n == 6]
    assert computed[-1].done == computed[-1].total == comb(12, 6)
    third = build(path, 6)
    assert third.stored == [] and third.solved_games == 0


def test_closing_the_generator_mid_level_rolls_the_level_back(tmp_path, monkeypatch):
    monkeypatch.setattr("whist_catalogue.store.build.CHUNK_DEALS", 100)
    path = tmp_path / "c.sqlite"
    steps = build_steps(path, 6, games=False)
    for event in steps:
        if event.stage == "compute" and event.n == 6 and 0 < event.done < event.total:  # 924 deals: 10 chunks
            assert event.done == 100
            break
    steps.close()
    with open_catalogue(path) as cat:
        infos = {i.n: i for i in cat.levels()}
        assert all(infos[n].complete for n in range(1, 6))
        assert not infos[6].complete and infos[6].row_count == 0
        assert cat.count("n = 6") == 0
    code, out, _ = run_cli("verify", "--db", str(path), "--sample", "1")
    assert code == 1 and "level 6: incomplete" in out and "verify FAILED" in out


def test_kill_9_mid_level_then_verify_and_resume(tmp_path):
    """A real build process killed with SIGKILL while working on level 12: levels 1–11 stay valid, 12 is incomplete.

    (Level 8 after 1–7 without the JIT: it takes seconds in plain Python.)
    """
    top = 12 if JIT else 8
    path = tmp_path / "killed.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "whist_catalogue", "build", "--max-n", str(top), "--db",
                             str(path), "--no-progress", "--no-games"], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    try:
        while True:
            assert proc.poll() is None, f"build ended before it could be killed: {proc.stderr.read()!r}"
            assert time.monotonic() < deadline, f"level {top - 1} never completed"
            try:
                with open_catalogue(path) as cat:
                    if top - 1 in cat.complete_levels():
                        break
            except CatalogueError:
                pass  # not created yet
            time.sleep(0.02)
        time.sleep(0.3)  # level 12 (2.7 million deals, three chunks) takes over a second to compute and write
    finally:
        proc.kill()  # SIGKILL
        proc.wait()
    assert proc.returncode == -9
    with open_catalogue(path) as cat:
        infos = {i.n: i for i in cat.levels()}
        stamps = {n: infos[n].built_at for n in range(1, top)}
        assert all(infos[n].complete for n in range(1, top))
        assert not infos[top].complete, f"killed too late: level {top} finished"
        assert cat.count(f"n = {top}") == 0
    code, out, _ = run_cli("verify", "--db", str(path), "--sample", "1", "--recursive-max-n", "6")
    assert code == 1
    assert f"level {top}: incomplete" in out and "verify FAILED" in out and f"{top - 1} of {top} levels complete" in out

    code, out, err = run_cli("build", "--max-n", str(top), "--db", str(path), "--no-progress", "--no-games", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["levels_already_complete"] == list(range(1, top)) and summary["levels_stored"] == [top]
    with open_catalogue(path) as cat:
        assert {i.n: i.built_at for i in cat.levels() if i.n < top} == stamps
    code, out, _ = run_cli("verify", "--db", str(path), "--sample", "1", "--recursive-max-n", "6")
    assert code == 0 and out.startswith("verify OK") and f"{top} of {top} levels complete" in out


def test_verify_detects_tampering(built, tmp_path):
    path = tmp_path / "tampered.sqlite"
    path.write_bytes(built.read_bytes())
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE level SET statistics = replace(statistics, '[1,', '[2,') WHERE n = 2")
    code, out, _ = run_cli("verify", "--db", str(path), "--sample", "0")
    assert code == 1 and "level 2: its level row differs from the checksum recorded at build time" in out
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM level_chunk WHERE n = 3")
    code, out, _ = run_cli("verify", "--db", str(path), "--sample", "0", "--json")
    report = json.loads(out)
    assert code == 1 and not report["ok"]
    assert "level 3: chunk 0 of 1 missing" in report["problems"]


def test_build_refuses_bad_input_and_changes_nothing(tmp_path):
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE notes (x TEXT)")
    conn.close()
    before = file_state(foreign)
    code, _, err = run_cli("build", "--max-n", "3", "--db", str(foreign), "--no-progress")
    assert code == 2 and "some other application" in err and err.count("\n") == 1
    assert file_state(foreign) == before
    for bad in ("0", str(MAX_BUILD_N + 1)):  # one past the largest level, never a real build
        code, _, err = run_cli("build", "--max-n", bad, "--db", str(tmp_path / "new.sqlite"))
        assert code == 2 and "--max-n" in err
    assert not (tmp_path / "new.sqlite").exists()
    code, _, err = run_cli("build", "--max-n", "2", "--db", str(tmp_path / "no" / "dir.sqlite"))
    assert code == 2 and "no directory" in err
    with pytest.raises(DealTooLargeError):
        build(tmp_path / "x.sqlite", 99)
