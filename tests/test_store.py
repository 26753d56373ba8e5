"""Reading the catalogue: open_catalogue on good and bad files, look-ups as a Solver, statistics."""

from __future__ import annotations

import os
import sqlite3
import threading
from math import comb
from pathlib import Path

import pytest
from catalogue_testing import JIT, build_catalogue, file_state, run_cli
from recursive_counts import recorded, recursive_statistics

from whist_catalogue.engine.levels import levels
from whist_catalogue.engine.statistics import LevelStatistics
from whist_catalogue.errors import CatalogueError, NotInCatalogue
from whist_catalogue.store.reader import Catalogue, open_catalogue
from whist_catalogue.store.solvers import ChainSolver, ComputingSolver, default_solver
from whist_catalogue.theory import definition
from whist_catalogue.theory.deals import Deal, parse_deal, parse_multisuit
from whist_catalogue.theory.multisuit import analyse
from whist_catalogue.theory.ranking import unrank
from whist_catalogue.theory.values import Infinitesimal, Value

MAX_N = 9 if JIT else 7


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return build_catalogue(tmp_path_factory.mktemp("store") / "catalogue.sqlite", MAX_N, games=False)


@pytest.fixture(scope="module")
def cat(built) -> Catalogue:
    with open_catalogue(built) as c:
        yield c


# -- opening ------------------------------------------------------------------------------------------


def test_open_missing_file_creates_nothing(tmp_path):
    missing = tmp_path / "missing.sqlite"
    with pytest.raises(CatalogueError, match="no catalogue at"):
        open_catalogue(missing)
    assert list(tmp_path.iterdir()) == []
    code, _, err = run_cli("search", "n = 1", "--db", str(missing))
    assert code == 2 and err.count("\n") == 1 and "no catalogue" in err
    assert list(tmp_path.iterdir()) == []


def _corrupt_copy(built: Path, path: Path) -> Path:
    data = bytearray(built.read_bytes())
    page = 4096
    for start in range(page, min(len(data), 40 * page), page):  # scramble the b-tree pages after the header page
        data[start : start + 200] = bytes((i * 37 + 11) % 256 for i in range(200))
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("kind", ["text", "empty", "random", "directory", "foreign", "foreign-wal", "corrupt",
                                  "truncated"])
def test_bad_files_are_refused_and_untouched(kind, tmp_path, built):
    path = tmp_path / "bad.sqlite"
    if kind == "text":
        path.write_text("this is not a database\n")
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "random":
        path.write_bytes(os.urandom(8192))
    elif kind == "directory":
        path.mkdir()
    elif kind in ("foreign", "foreign-wal"):
        conn = sqlite3.connect(path)
        if kind == "foreign-wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE TABLE deal (key INTEGER PRIMARY KEY, value TEXT)")
        conn.execute("INSERT INTO deal VALUES (5, 'x')")
        conn.commit()
        conn.close()
    elif kind == "corrupt":
        _corrupt_copy(built, path)
    elif kind == "truncated":
        path.write_bytes(built.read_bytes()[: 3 * 4096])
    before = file_state(path) if path.is_file() else None
    commands = [["search", "n = 2"], ["search", "--count", "n >= 1"], ["stats"], ["export", "--level", "2"],
                ["verify"], ["value", "AQ/KJ"]]
    for argv in commands:
        code, out, err = run_cli(*argv, "--db", str(path))
        # A file SQLite reads but finds damaged pages in is damage (1); anything else is not a catalogue (2).
        assert code == (1 if kind in ("corrupt", "truncated") else 2), (argv, out, err)
        assert err.count("\n") == 1 and err.startswith("whist-catalogue: error:") and "Traceback" not in err
        if before is not None:
            assert file_state(path) == before, argv


def test_open_is_read_only_and_leaves_no_side_files(built, tmp_path):
    path = tmp_path / "c.sqlite"
    path.write_bytes(built.read_bytes())
    before = file_state(path)
    with open_catalogue(path) as c:
        assert c.value(Deal.from_label("EWEW")) == Value.from_str("3/2")
        with pytest.raises(Exception):
            import sqlalchemy as sa

            from whist_catalogue.store.models import LevelChunkRow

            with c.connect() as connection, connection.begin():
                connection.execute(sa.delete(LevelChunkRow))
    assert file_state(path) == before


def test_open_accepts_a_sqlite_url(built):
    with open_catalogue(f"sqlite:///{built}") as c:
        assert c.max_n == MAX_N


# -- look-ups -----------------------------------------------------------------------------------------


def test_lookups_equal_the_recursive_definition(cat):
    for label in ("WE", "EW", "EWEW", "WEEWWE", "EEWWWWWEEE", "WWEEEWEWWEEWWE"):
        deal = Deal.from_label(label)
        assert cat.solve(deal) == definition.solve(deal)
        assert cat.value(deal) == definition.val(deal)
        record = cat.record(deal)
        assert record.solution.outcome == record.outcome
    assert cat.value(parse_deal("AQ/KJ")) == Value.from_str("1 + 1/2")


def test_not_in_catalogue_is_a_lookup_error(cat):
    big = Deal.from_label("WE" * 10)
    with pytest.raises(NotInCatalogue):
        cat.solve(big)
    with pytest.raises(LookupError):
        cat.value(big)
    with pytest.raises(NotInCatalogue):
        cat.record(big)
    with pytest.raises(NotInCatalogue):
        cat.record(Deal(0, 0))


def test_catalogue_is_the_first_solver_of_the_chain(built, cat):
    solver = default_solver(built)
    assert isinstance(solver, ChainSolver)
    computing = ComputingSolver(10)
    text = "AKJ/QT9, AJ9/KQT, K Q 9 / A J 10, 8765/AKQJ"
    ours, theirs = analyse(parse_multisuit(text), solver), analyse(parse_multisuit(text), computing)
    assert ours.value == theirs.value and ours.outcome == theirs.outcome
    assert solver.sources == {"Catalogue": 4}
    beyond = Deal.from_label("WE" * 10)
    assert solver.solve(beyond) == computing.solve(beyond)
    assert solver.sources["ComputingSolver"] == 1
    records = cat.records([Deal.from_label("EWEW"), Deal.from_label("WE"), Deal.from_label("EWEW")])
    assert [r.label for r in records] == ["EWEW", "WE", "EWEW"]


def test_beyond_the_catalogue_the_engine_starts_from_its_top_level(built):
    """A deal one level above the catalogue costs one level: the engine reads the catalogue's top level and
    computes the next, says so first (command line), and answers as the engine from nothing does."""
    top = MAX_N
    deal = Deal(top + 1, unrank(top + 1, comb(2 * top + 2, top + 1) // 3))
    solver = default_solver(built)
    plan = solver.solvers[1].plan(top + 1)
    assert plan.levels == (top + 1,) and plan.seeded_from == top
    assert solver.solve(deal) == ComputingSolver().solve(deal)
    assert solver.solvers[1].plan(top + 1).levels == ()
    solver.close()
    code, out, err = run_cli("value", "--json", deal.label, "--db", str(built))
    assert code == 0 and f'"deal": "{deal.label}"' in out
    assert (f"a deal with {top + 1} cards a hand is not in the catalogue: reading level {top} from the catalogue,"
            f" then computing level {top + 1}") in err and "Ctrl+C cancels" in err


def test_threads_share_one_catalogue(cat):
    deals = [Deal(7, int(m)) for m in range(0b1111111, 0b1111111 << 7, 97) if bin(m).count("1") == 7][:40]
    expected = {d: cat.value(d) for d in deals}
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(3):
                for d in deals:
                    assert cat.value(d) == expected[d]
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# -- statistics ------------------------------------------------------------------------------------------


def test_stats_equal_the_engine_counts(cat):
    for level in levels(MAX_N):
        n = level.n
        assert cat.statistics(n).to_json() == LevelStatistics(n, level.value_counts()).to_json()
    with pytest.raises(NotInCatalogue):
        cat.statistics(MAX_N + 1)


def test_stats_equal_the_recursive_reference(cat):
    """Known answers for n ≤ 9, recorded from whist_catalogue.theory.definition.val over every deal (tests/recursive_counts.py)."""
    reference = recorded()
    assert sorted(reference) == list(range(1, 10))
    for n in range(1, MAX_N + 1):  # 9 (7 without the JIT)
        assert cat.statistics(n).to_json() == reference[n], n
        assert reference[n]["deals"] == comb(2 * n, n)


@pytest.mark.parametrize("n", range(1, 7) if not os.environ.get("WHIST_FULL_REFERENCE") else range(1, MAX_N + 1))
def test_stats_equal_the_recursive_definition_live(cat, n):
    """The recording is what the recursive definition gives (live for n ≤ 6; all n ≤ 9 with WHIST_FULL_REFERENCE=1)."""
    live = recursive_statistics(n)
    assert live == recorded()[n]
    assert cat.statistics(n).to_json() == live


def test_stats_command_json(built, cat):
    import json

    code, out, _ = run_cli("stats", "--db", str(built), "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [o["n"] for o in lines] == list(range(1, MAX_N + 1))
    assert lines == [cat.statistics(n).to_json() for n in range(1, MAX_N + 1)]
    code, out, _ = run_cli("stats", "--db", str(built), "--n", "3")
    assert code == 0 and out.startswith("n = 3: 20 deals")
