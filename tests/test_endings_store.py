"""The table of two-hand endings in the catalogue (:mod:`whist_catalogue.store.endings`): built level by level into
a real SQLite file, read back equal to the table built in memory (itself checked against the search by
tests/test_twohand_endings.py), verified, resumed after a real ``kill -9`` mid-level, damage named and never
served, the migration up and down, bad options refused, and positions answered from it."""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa
from alembic import command
from catalogue_testing import file_state, run_cli

from whist_catalogue.errors import CatalogueDamagedError
from whist_catalogue.store.build import build
from whist_catalogue.store.database import alembic_config, parse_location, upgrade
from whist_catalogue.store.endings import CatalogueEndings, estimate_endings
from whist_catalogue.store.reader import open_catalogue
from whist_catalogue.store.solvers import catalogue_endings
from whist_catalogue.theory.deals import TwoHandDeal
from whist_catalogue.twohand.endings import (CHUNK_POSITIONS, MAX_ENDING_N, built_endings, chunk_count, endings,
                                             positions)
from whist_catalogue.twohand.position import Position
from whist_catalogue.twohand.solver import solve, solve_many, words

REPO = Path(__file__).resolve().parents[1]
TOP = MAX_ENDING_N + 1
"""The largest level these tests store: 9, the first beyond the shipped table (12 chunks, a few seconds)."""


@pytest.fixture
def built(endings_catalogue) -> Path:
    """The session's catalogue with the table up to k = TOP (conftest.py), which no test here changes."""
    return endings_catalogue


@pytest.fixture(scope="module")
def memory():
    return built_endings(TOP)


def stored_level(path: Path, k: int) -> np.ndarray:
    with open_catalogue(path) as catalogue:
        table = CatalogueEndings(catalogue).level_table(k)
        return table.level(k).copy()


def test_every_level_reads_back_as_the_table_built_in_memory(built, memory):
    with open_catalogue(built) as catalogue:
        stored = CatalogueEndings(catalogue)
        assert stored.complete_levels() == frozenset(range(1, TOP + 1))
        infos = stored.levels()
        assert [i.positions for i in infos] == [positions(k) for k in range(1, TOP + 1)]
        assert all(sum(i.west_tricks or []) == i.positions and i.problem is None for i in infos)
        table = stored.level_table(TOP)
        for k in range(1, TOP + 1):
            assert np.array_equal(table.level(k), memory.level(k)), k
    with sqlite3.connect(built) as conn:
        assert conn.execute("SELECT count(*) FROM ending_chunk WHERE k = ?", (TOP,)).fetchone()[0] == chunk_count(TOP)


def test_verify_and_stats_show_the_table(built):
    code, out, _ = run_cli("verify", "--db", str(built), "--sample", "30", "--recursive-max-n", "3", "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] and "endings" in report["checks"], report["problems"]
    assert report["ending_levels"] == list(range(1, TOP + 1)) and report["ending_sampled"] == 30 * TOP - 25
    assert "the table of endings: k = 1–9 checked" in report["summary"]
    code, out, _ = run_cli("stats", "--db", str(built))
    assert code == 0 and f"endings k = {TOP}: {positions(TOP):,} positions in" in out
    code, out, _ = run_cli("stats", "--db", str(built), "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    tables = [line for line in lines if "ending_level" in line]
    assert [t["ending_level"] for t in tables] == list(range(1, TOP + 1))
    assert tables[0]["west_tricks"] == [2, 3] and tables[-1]["positions"] == positions(TOP)


def test_a_catalogue_answers_the_positions_of_its_levels(built):
    """Deals of 9 cards a hand (the catalogue's top level) are answered from its table, each card's result
    included, and equal the search's without any table; a 10-card deal is searched (its positions after the first
    trick are the catalogue's)."""
    rng = random.Random(9)
    from whist_catalogue.scripts.benchmarks.twohand import random_two_hand

    deals = [random_two_hand(rng, TOP, trumps=i % 2 == 0, uneven=True) for i in range(40)]
    bigger = [random_two_hand(rng, TOP + 1, trumps=True, uneven=True) for _ in range(5)]
    with open_catalogue(built) as catalogue:
        stored = CatalogueEndings(catalogue)
        table = stored.table_for([words(Position(d)) for d in deals + bigger])
        assert table is not None and table.origin == "catalogue"
        assert 0 < len(table.held(TOP)) <= chunk_count(TOP)
        answered = solve_many(deals + bigger, endings=table)
    searched = solve_many(deals + bigger, endings=False)
    for deal, a, s in zip(deals + bigger, answered, searched):
        assert a.answers == s.answers, deal.text()
        assert a.source == ("catalogue" if deal.n == TOP and len(deal.suits) <= 4 else "search"), deal.text()
    one = solve(deals[0], endings=table)
    assert one.source == "catalogue"
    assert "\n  answered     from the catalogue's table of endings: an uneven suit puts the deal outside the theory" \
        in one.text()
    assert one.to_json()["source"] == "catalogue" and one.to_json()["outcome"] == searched[0].to_json()["outcome"]


def _every_level(seed: int, count: int) -> list[TwoHandDeal]:
    """``count`` seeded deals of each level the test catalogue holds, 1 … TOP cards a hand, trumps or not."""
    from whist_catalogue.scripts.benchmarks.twohand import random_two_hand

    rng = random.Random(seed)
    return [random_two_hand(rng, k, trumps=i % 2 == 0, uneven=True) for k in range(1, TOP + 1) for i in range(count)]


def test_outcome_and_moves_answer_from_the_catalogue_s_table(built, monkeypatch):
    """``outcome`` and ``moves`` answer a deal of the catalogue's top level (beyond the shipped table) from its
    table — ``source: "catalogue"``, "from the catalogue's table of endings" — with every number the search's
    without any table, on seeded deals of every level the catalogue holds (the smaller ones are the shipped
    table's, the search's leaves: answered alike with a catalogue or without); the default catalogue is asked as
    ``--db`` is."""
    deals = _every_level(3, 6)
    texts = [d.text() for d in deals]
    code, out, err = run_cli("outcome", "--json", "--cards", "--db", str(built), *texts)
    assert code == 0, err
    for deal, line, reference in zip(deals, map(json.loads, out.splitlines()), solve_many(deals, endings=False),
                                     strict=True):
        assert line["source"] == ("catalogue" if deal.n == TOP else "search"), deal.text()
        assert {**line, "source": "search"} == reference.record().to_json(), deal.text()
    code, out, err = run_cli("moves", "--leader", "E", "--json", "--db", str(built), *texts)
    assert code == 0, err
    for deal, line in zip(deals, map(json.loads, out.splitlines()), strict=True):
        reference = solve(Position(deal, "E"), endings=False, line=False).record().to_json()
        assert line == {**reference, "source": "catalogue" if deal.n == TOP else "search"}, deal.text()
    # After a lead: the follower's cards, each a position of level TOP − 1 one trick on.
    for deal in deals[-6:]:
        suit = next(i for i, s in enumerate(deal.suits) if s.west)
        card = deal.suits[suit].card_name(deal.suits[suit].west[0])
        code, out, err = run_cli("moves", "--led", f"{suit + 1}:{card}", "--json", "--db", str(built), deal.text())
        reference = solve(Position(deal, "W", (suit, deal.suits[suit].west[0])), endings=False, line=False)
        assert code == 0 and json.loads(out) == {**reference.record().to_json(), "source": "catalogue"}, err
    code, out, _ = run_cli("outcome", texts[-1])
    assert "\n  answered     by search: " in out
    monkeypatch.setenv("WHIST_CATALOGUE_DB", str(built))
    code, out, _ = run_cli("outcome", texts[-1])
    assert code == 0 and "\n  answered     from the catalogue's table of endings: an uneven suit" in out
    assert "West leads" in out and ": a best first card, from the catalogue's table of endings\n" in out


def test_the_app_s_answers_come_from_the_catalogue_s_table_too(built):
    """:meth:`CatalogueEndings.solve` (the Multi-suit view's) answers as ``outcome`` does: from the catalogue's
    table at its top level, else by search, the numbers equal to the search's without any table."""
    deals = _every_level(5, 2)
    with open_catalogue(built) as catalogue:
        stored = catalogue_endings(catalogue=catalogue)
        assert stored is not None
        for deal, reference in zip(deals, solve_many(deals, endings=False), strict=True):
            found = stored.solve(deal, line=False)
            assert found.answers == reference.answers, deal.text()
            assert found.source == ("catalogue" if deal.n == TOP else "search"), deal.text()


def test_a_catalogue_without_the_table_costs_a_batch_nothing(tmp_path):
    """A catalogue whose table of endings stops within the shipped one is asked once, with sqlite3 alone: a batch of
    13-card deals answers as without it, by search, and never loads SQLAlchemy."""
    path = tmp_path / "small.sqlite"
    build(path, 2, games=False, endings=3)
    from whist_catalogue.scripts.benchmarks.twohand import random_two_hand

    rng = random.Random(2)
    texts = [random_two_hand(rng, 13, trumps=True, uneven=True).text() for _ in range(3)]
    program = ("import sys, json\n"
               f"sys.argv = ['whist-catalogue', 'outcome', '--json', '--db', {str(path)!r}, *{texts!r}]\n"
               "from whist_catalogue.scripts.main import _run\n"
               "code = _run(None)\n"
               "print(code, 'sqlalchemy' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300)
    assert done.stderr.strip().endswith("0 False"), done.stderr
    assert [json.loads(line)["source"] for line in done.stdout.splitlines()] == ["search"] * 3


def test_kill_9_mid_level_then_resume(tmp_path, memory):
    """A real build killed with SIGKILL while level 9 of the table is half stored: levels 1–8 stay complete, the
    chunks of level 9 it committed stay as they were, and the next build stores only the rest."""
    path = tmp_path / "killed.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "whist_catalogue", "build", "--max-n", "2", "--db", str(path),
                             "--no-progress", "--no-games", "--endings", str(TOP)], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 180
    kept: dict[int, bytes] = {}
    try:
        while True:
            assert proc.poll() is None, f"build ended before it could be killed: {proc.communicate()[1]!r}"
            assert time.monotonic() < deadline, f"level {TOP} of the table never started"
            try:
                with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
                    rows = conn.execute("SELECT chunk, data FROM ending_chunk WHERE k = ?", (TOP,)).fetchall()
            except sqlite3.Error:
                rows = []  # not created yet
            if len(rows) >= 2:
                kept = dict(rows)
                break
            time.sleep(0.02)
    finally:
        proc.kill()  # SIGKILL
        proc.wait()
    assert proc.returncode == -9
    with open_catalogue(path) as catalogue:
        complete = CatalogueEndings(catalogue).complete_levels()
    assert complete == frozenset(range(1, TOP)), "killed too late: level 9 finished"
    code, out, _ = run_cli("verify", "--db", str(path), "--sample", "2", "--recursive-max-n", "2")
    assert code == 1 and f"level {TOP} of the table of endings: incomplete" in out
    code, out, err = run_cli("build", "--max-n", "2", "--db", str(path), "--no-progress", "--no-games", "--json",
                             "--endings", str(TOP))
    assert code == 0, err
    summary = json.loads(out)
    assert summary["ending_levels_already_complete"] == list(range(1, TOP))
    assert summary["ending_levels_stored"] == [TOP] and summary["ending_levels_complete"] == list(range(1, TOP + 1))
    with sqlite3.connect(path) as conn:
        after = dict(conn.execute("SELECT chunk, data FROM ending_chunk WHERE k = ?", (TOP,)).fetchall())
    assert all(after[c] == data for c, data in kept.items())
    assert np.array_equal(stored_level(path, TOP), memory.level(TOP))
    code, out, _ = run_cli("verify", "--db", str(path), "--sample", "4", "--recursive-max-n", "2")
    assert code == 0 and out.startswith("verify OK"), out


def copy_of(built: Path, tmp_path: Path) -> Path:
    path = tmp_path / "copy.sqlite"
    path.write_bytes(built.read_bytes())
    return path


def test_a_damaged_chunk_is_named_never_served(built, tmp_path):
    path = copy_of(built, tmp_path)
    with sqlite3.connect(path) as conn:
        data = bytearray(conn.execute("SELECT data FROM ending_chunk WHERE k = ? AND chunk = 3", (TOP,)).fetchone()[0])
        data[100] ^= 1
        conn.execute("UPDATE ending_chunk SET data = ? WHERE k = ? AND chunk = 3", (bytes(data), TOP))
    with open_catalogue(path) as catalogue:
        stored = CatalogueEndings(catalogue)
        with pytest.raises(CatalogueDamagedError, match=r"level 9 of the table of endings, chunk 3: checksum differs"):
            stored.chunk(TOP, 3)
        assert stored.chunk(TOP, 2) is not None
    code, out, _ = run_cli("verify", "--db", str(path), "--sample", "0")
    assert code == 1 and "level 9 of the table of endings, chunk 3: checksum differs" in out
    # The next build finds it, stores the chunk again, and the catalogue verifies.
    code, out, err = run_cli("build", "--max-n", "3", "--db", str(path), "--no-progress", "--no-games",
                             "--endings", str(TOP), "--json")
    assert code == 0 and "storing it again" in err and json.loads(out)["ending_levels_repaired"] == [TOP]
    assert run_cli("verify", "--db", str(path), "--sample", "2", "--recursive-max-n", "2")[0] == 0


def test_a_changed_row_or_a_lost_chunk_is_named(built, tmp_path):
    path = copy_of(built, tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE ending_level SET statistics = replace(statistics, '[2,3]', '[3,2]') WHERE k = 1")
    code, _, err = run_cli("stats", "--db", str(path))
    assert code == 1 and err.startswith("whist-catalogue: error: check failed:") and err.count("\n") == 1
    assert "level 1 of the table of endings: its row differs from the checksum" in err
    code, out, _ = run_cli("verify", "--db", str(path), "--sample", "0")
    assert code == 1 and "level 1 of the table of endings: its row differs from the checksum" in out
    path = copy_of(built, tmp_path / "..")
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM ending_chunk WHERE k = 8 AND chunk = 1")
        conn.execute("INSERT INTO ending_chunk SELECT 12, chunk, start, stop, data, checksum FROM ending_chunk"
                     " WHERE k = 2")
    code, out, _ = run_cli("verify", "--db", str(path), "--sample", "0", "--json")
    problems = json.loads(out)["problems"]
    assert code == 1 and "level 8 of the table of endings: chunk 1 of 3 missing" in problems
    assert any("ending_chunk holds chunks of level 12" in p for p in problems)
    with open_catalogue(path) as catalogue:
        with pytest.raises(CatalogueDamagedError, match="chunk 1 is missing"):
            CatalogueEndings(catalogue).chunk(8, 1)


def test_bad_options_are_refused_before_anything(tmp_path):
    target = tmp_path / "new.sqlite"
    for bad in ("0", "16", "-3", "x", "１２", "1_0"):
        code, out, err = run_cli("build", "--max-n", "2", "--db", str(target), "--endings", bad)
        assert code == 2 and "--endings" in err and err.count("\n") == 1 and not out, (bad, err)
    assert not target.exists() and list(tmp_path.iterdir()) == []
    existing = tmp_path / "old.sqlite"
    build(existing, 2, games=False)
    before = file_state(existing)
    code, _, err = run_cli("build", "--db", str(existing), "--endings", "99")
    assert code == 2 and file_state(existing) == before


def test_the_migration_adds_the_empty_table_and_takes_it_away(tmp_path):
    path = tmp_path / "old.sqlite"
    engine = sa.create_engine(parse_location(path).url)
    upgrade(engine, "c5e1f0a9d3b7")
    assert not {"ending_level", "ending_chunk"} & set(sa.inspect(engine).get_table_names())
    upgrade(engine)
    assert {"ending_level", "ending_chunk"} <= set(sa.inspect(engine).get_table_names())
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM ending_level")).scalar() == 0
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "c5e1f0a9d3b7")
    tables = set(sa.inspect(engine).get_table_names())
    assert "level" in tables and not {"ending_level", "ending_chunk"} & tables
    engine.dispose()


def test_the_estimate_is_said_before_the_work(tmp_path):
    code, _, err = run_cli("build", "--max-n", "2", "--db", str(tmp_path / "e.sqlite"), "--no-games",
                           "--endings", "6")
    assert code == 0
    lines = [line for line in err.splitlines() if "the table of endings, k = 1–6" in line]
    assert len(lines) == 1 and f"{sum(positions(k) for k in range(1, 7)):,} positions" in lines[0]
    estimate = estimate_endings([], 13)
    assert estimate.levels == tuple(range(1, 14)) and 10 * 60 < estimate.seconds < 3 * 3600
    # Levels 11 and 12 held while 12 is computed (the top level's chunks go straight to the catalogue).
    assert 0.5e9 < estimate.memory < 0.7e9 and estimate.bytes < 1e9


def test_a_chunk_is_a_word_multiple():
    assert CHUNK_POSITIONS % 16 == 0 and endings().max_k == MAX_ENDING_N


def test_verify_full_computes_every_level_again_and_finds_a_changed_value(built, tmp_path):
    """A value changed inside a chunk of level 5 with every checksum and count made to fit (what no sample need
    meet): ``verify --full`` computes the level again from level 4 and names the chunk."""
    from whist_catalogue.store.endings import decode_ending_chunk, encode_ending_chunk, ending_row_checksum
    from whist_catalogue.store.verify import verify

    assert verify(built, sample=0, full=True).ok
    path = copy_of(built, tmp_path)
    with sqlite3.connect(path) as conn:
        data, = conn.execute("SELECT data FROM ending_chunk WHERE k = 5 AND chunk = 0").fetchone()
        k, start, stop, values = decode_ending_chunk(data)
        changed = values.copy()
        low = int(changed[0]) & 15
        changed[0] = (changed[0] & 0xF0) | (low + 1 if low < 5 else low - 1)
        forged = encode_ending_chunk(k, start, stop, changed)
        conn.execute("UPDATE ending_chunk SET data = ?, checksum = ? WHERE k = 5 AND chunk = 0",
                     (forged, hashlib.sha256(forged).hexdigest()))
        statistics = json.loads(conn.execute("SELECT statistics FROM ending_level WHERE k = 5").fetchone()[0])
        tricks = statistics["west_tricks"]
        tricks[low] -= 1
        tricks[low + 1 if low < 5 else low - 1] += 1
        text = json.dumps({"west_tricks": tricks}, separators=(",", ":"))
        stored = conn.execute("SELECT sum(length(data)) FROM ending_chunk WHERE k = 5").fetchone()[0]
        conn.execute("UPDATE ending_level SET statistics = ?, stored_bytes = ?, checksum = ? WHERE k = 5",
                     (text, stored, ending_row_checksum(5, positions(5), CHUNK_POSITIONS, stored, text)))
    assert verify(path, sample=0).ok  # every check but the recomputation passes
    report = verify(path, sample=0, full=True)
    assert not report.ok
    assert "level 5 of the table of endings, chunk 0: differs from the level computed again from level 4" in \
        report.all_problems


def test_on_a_local_cluster_the_workers_answer_from_the_catalogue_too(built):
    """``--cluster local:2``: each worker reads the chunks its deals need from the catalogue itself; the output is
    byte for byte the in-process output, the catalogue's answers among it."""
    stdin = "\n".join(d.text() for d in _every_level(7, 25)) + "\n"
    argv = [sys.executable, "-m", "whist_catalogue", "outcome", "--json", "--cards", "--db", str(built), "-"]
    here = subprocess.run(argv, input=stdin, capture_output=True, text=True, cwd=REPO, timeout=600)
    there = subprocess.run([*argv, "--cluster", "local:2"], input=stdin, capture_output=True, text=True, cwd=REPO,
                           timeout=600)
    assert here.returncode == there.returncode == 0, there.stderr
    assert here.stdout == there.stdout and '"source": "catalogue"' in here.stdout
