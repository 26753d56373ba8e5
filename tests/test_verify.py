"""``verify`` catches every corruption that can change an answer; ``build`` checks what it resumes from;
``export -o`` writes as ``cp`` does (issue 16).

Each corruption is made on a copy of a real catalogue with ``sqlite3`` or by changing bytes of the file, and
each must make ``verify`` exit 1 with a line naming what is damaged.
"""

from __future__ import annotations

import json
import os
from math import comb
import shutil
import sqlite3
import stat
from copy import deepcopy
from pathlib import Path

import pytest
from catalogue_testing import file_state, run_cli

from whist_catalogue.engine.chunks import pack_chunk, read_chunk
from whist_catalogue.errors import CatalogueError
from whist_catalogue.games import solved_games
from whist_catalogue.store.build import build
from whist_catalogue.store.levels import chunk_checksum
from whist_catalogue.store.reader import open_catalogue
from whist_catalogue.store.verify import verify
from whist_catalogue.theory.deals import Deal

MAX_N = 6


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """n ≤ 6 with the solved games."""
    path = tmp_path_factory.mktemp("verify") / "catalogue.sqlite"
    build(path, MAX_N)
    return path


@pytest.fixture(scope="module", autouse=True)
def games_solved_once(built):
    """Each verify here solves the 51 stored games again (0.7 s a run, 30-odd runs): within this module each
    game is solved once, by the first verify, and handed out afresh from then on.

    The catalogue is built before, with the games solved as usual, so the first verify still compares the
    build's solutions with solutions computed anew; every later verify compares with the same answers."""
    solved: dict[tuple, solved_games.SolvedGame] = {}
    solve = solved_games.solve

    def once(name: str, **params: object) -> solved_games.SolvedGame:
        key = (name, tuple(sorted(params.items())))
        if key not in solved:
            solved[key] = solve(name, **params)
        return deepcopy(solved[key])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solved_games, "solve", once)
        yield


@pytest.fixture
def copy(built, tmp_path) -> Path:
    path = tmp_path / "copy.sqlite"
    shutil.copy(built, path)
    return path


def _sql(path: Path, *statements: str) -> None:
    with sqlite3.connect(path) as conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()


def _verify(path: Path, *options: str) -> tuple[int, str]:
    code, out, err = run_cli("verify", "--db", str(path), "--sample", "0", *options)
    assert "Traceback" not in out + err
    return code, out


def test_a_fresh_catalogue_verifies_with_every_check_and_the_full_recomputation(built):
    report = verify(built, sample=2, seed=1, full=True)
    assert report.ok, report.all_problems
    assert report.checks == ["integrity", "level metadata", "levels", "stray chunks", "solved games", "endings"]
    assert all(c.checksum_ok and c.recomputed == c.expected_rows == c.row_count for c in report.levels)
    with open_catalogue(built) as catalogue:
        assert all(i.checksum is not None and i.problem is None for i in catalogue.levels())


def test_verify_progress_counts_deals_and_says_done_last(built):
    """The bar moves as the work does: each level weighs its deals (level 6 is most of n ≤ 6), and "done" comes
    after the last check, the solved games included."""
    steps: list[tuple[str, int, int]] = []
    verify(built, sample=0, progress=lambda step, done, total: steps.append((step, done, total)))
    total = sum(comb(2 * n, n) for n in range(1, MAX_N + 1))
    assert {t for _, _, t in steps} == {total}
    done = [d for _, d, _ in steps]
    assert done == sorted(done) and steps[-1] == ("done", total, total)
    before_six = next(d for s, d, _ in steps if s == "level 6")
    assert before_six == total - comb(12, 6)  # level 6 not yet counted when it starts: 73 % of the deals
    games = [i for i, (s, _, _) in enumerate(steps) if s.startswith("solved game ")]
    assert len(games) == 51 and steps.index(("done", total, total)) > max(games)


def _forge_chunk(path: Path, n: int, change) -> None:  # noqa: ANN001
    """Level n's chunk 0 rewritten by ``change(codes, flags)``, with a CRC-32 and SHA-256 that match, and the
    level row's size and checksum made to match too: a forgery only the counts the row records, the sample or
    the engine can tell."""
    from whist_catalogue.store.levels import level_row_checksum

    with sqlite3.connect(path) as conn:
        (data,) = conn.execute("SELECT data FROM level_chunk WHERE n = ? AND chunk = 0", (n,)).fetchone()
        chunk = read_chunk(data)
        codes, flags = chunk.codes.copy(), chunk.flags.copy()
        change(codes, flags)
        forged = pack_chunk(n, chunk.start, codes, chunk.table, flags)
        conn.execute("UPDATE level_chunk SET data = ?, checksum = ? WHERE n = ? AND chunk = 0",
                     (forged, chunk_checksum(forged), n))
        row = conn.execute("SELECT row_count, chunk_deals, value_table, statistics FROM level WHERE n = ?",
                           (n,)).fetchone()
        checksum = level_row_checksum(n, row[0], row[1], len(forged), row[2], row[3])
        conn.execute("UPDATE level SET stored_bytes = ?, checksum = ? WHERE n = ?", (len(forged), checksum, n))
    conn.close()


def test_a_forged_counterexample_fails_verify_and_full_names_the_flags(copy):
    """The issue's edit, on the level store: a false counterexample to Conjecture 12.4 appears in a search; verify
    must say so — the chunks' bits no longer add up to the level row's statistics."""
    before = run_cli("search", "--count", "--db", str(copy), "counterexample(12.4)")[1]

    def flag(codes, flags):  # noqa: ANN001
        flags[20] |= 4  # WEWEWEWE, rank 20 of level 4

    _forge_chunk(copy, 4, flag)
    assert run_cli("search", "--count", "--db", str(copy), "counterexample(12.4)")[1] != before
    code, out = _verify(copy)
    assert code == 1 and "level 4: stored statistics differ from the chunks' counterexample bits" in out
    code, out = _verify(copy, "--full")
    assert code == 1 and "level 4: stored check flags differ from the engine's" in out


def test_two_values_exchanged_in_a_chunk_fail_full_and_the_sample_names_a_deal(copy):
    """Two deals' codes exchanged: the level's table and counts are unchanged, its SHA-256 recomputed; a sample of
    every deal of level 3 recomputed by the definition finds them, and --full compares every deal."""
    import numpy as np

    def swap(codes, flags):  # noqa: ANN001
        other = int(np.flatnonzero(codes != codes[0])[0])
        codes[0], codes[other] = codes[other], codes[0]

    _forge_chunk(copy, 3, swap)
    code, out = _verify(copy, "--sample", "20")
    assert code == 1 and "level 3: deal " in out and "in its chunk, recomputed" in out
    code, out = _verify(copy, "--full")
    assert code == 1 and "level 3: the value stored for rank 0 differs from the engine's" in out


@pytest.mark.parametrize("column, value", [("value_table", "zeroblob(10)"),
                                           ("statistics", "replace(statistics, '[1,', '[2,')"),
                                           ("chunk_deals", "chunk_deals + 1"), ("stored_bytes", "stored_bytes + 1"),
                                           ("row_count", "row_count + 1"), ("n", "n + 20")])
def test_every_cell_a_reader_uses_is_under_the_level_rows_checksum(copy, column, value):
    """What look-ups, searches and stats read from a level row is checked before they use it: an edited cell is
    named by verify, and a look-up answers "check failed" (exit 1), never a number."""
    _sql(copy, f"UPDATE level SET {column} = {value} WHERE n = 3")
    code, out = _verify(copy)
    n = 23 if column == "n" else 3
    assert code == 1 and f"level {n}: its level row differs from the checksum recorded at build time" in out
    if column != "n":
        code, out, err = run_cli("stats", "--n", "3", "--db", str(copy))
        assert code == 1 and out == "" and err.startswith("whist-catalogue: error: check failed: catalogue") \
            and "level 3: its level row differs" in err, err


def _index_leaf_pages(path: Path, index: str) -> tuple[list[int], int]:
    with sqlite3.connect(path) as conn:
        pages = [r[0] for r in conn.execute("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf'",
                                            (index,))]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    return pages, size


def test_a_changed_byte_in_an_index_page_is_damage_naming_the_index(copy):
    """One bit of one key in a leaf of the chunks' primary-key index: SQLite's quick_check passes it, look-ups
    through the index could find another chunk (its header names it) or none; verify (integrity_check) names the
    index."""
    with sqlite3.connect(copy) as conn:
        (index,) = conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'level_chunk'"
                                ).fetchone()
    conn.close()
    pages, size = _index_leaf_pages(copy, index)
    with open(copy, "r+b") as f:
        offset = (pages[len(pages) // 2] - 1) * size + size - 3  # inside the last cell's key
        f.seek(offset)
        byte = f.read(1)[0]
        f.seek(offset)
        f.write(bytes([byte ^ 1]))
    code, out = _verify(copy)
    assert code == 1 and f"damaged index {index}" in out and "verify FAILED" in out


def test_a_tampered_solved_game_fails_and_invalid_json_is_a_corrupt_catalogue(copy):
    with sqlite3.connect(copy) as conn:
        text = conn.execute("SELECT solution FROM solved_game WHERE name = 'chemin-de-fer'").fetchone()[0]
        solution = json.loads(text)
        solution["value"], solution["h"] = "1/3", "1/2"  # the game value and h*, as the app shows them
        conn.execute("UPDATE solved_game SET solution = ? WHERE name = 'chemin-de-fer'", (json.dumps(solution),))
    conn.close()
    code, out = _verify(copy)
    assert code == 1 and "solved game chemin-de-fer {}: differs from the game solved again (h, value)" in out
    _sql(copy, "UPDATE solved_game SET solution = '{not json' WHERE name = 'le-her' AND parameters = '{\"cards\":13}'")
    code, out = _verify(copy)
    assert code == 1 and "solved game le-her {\"cards\":13}: not valid JSON" in out
    with open_catalogue(copy) as catalogue, pytest.raises(CatalogueError, match="is corrupt: solved game le-her"):
        catalogue.solved_game("le-her", cards=13)  # what the app reads: a one-line error, not a JSONDecodeError


def test_a_dropped_chunk_table_fails_verify_and_build_refuses_with_status_1(copy):
    _sql(copy, "DROP TABLE level_chunk")
    code, out = _verify(copy)
    assert code == 1 and "no such table: level_chunk" in out
    before = file_state(copy)
    code, out, err = run_cli("build", "--max-n", str(MAX_N), "--db", str(copy), "--no-progress", "--no-games")
    assert code == 1 and err.count("\n") == 1 and out == ""
    assert err.startswith("whist-catalogue: error: check failed: catalogue") and "table level_chunk is missing" in err
    assert file_state(copy)[0] == before[0]


def test_a_deleted_chunk_fails_verify_and_build_stores_the_level_again(copy):
    _sql(copy, "DELETE FROM level_chunk WHERE n = 3")
    code, out = _verify(copy)
    assert code == 1 and "level 3: chunk 0 of 1 missing" in out
    code, out, err = run_cli("build", "--max-n", str(MAX_N), "--db", str(copy), "--no-progress", "--no-games")
    assert code == 0, err
    assert err == "whist-catalogue: level 3 was marked complete but holds 0 of 20 deals: storing it again\n"
    assert "this run stored level 3 (" in out and "level 3 was damaged and stored again" in out
    assert _verify(copy)[0] == 0


@pytest.mark.parametrize("statement, named", [
    ("UPDATE level SET n = 0 WHERE n = 2", "a row names level n = 0"),
    ("UPDATE level SET n = -3 WHERE n = 2", "a row names level n = -3"),
    ("UPDATE level SET n = 4000000000 WHERE n = 2", "a row names level n = 4000000000"),
    ("UPDATE level SET software_version = x'00ff' WHERE n = 2", "software version"),
    ("UPDATE level SET checksum = 'abc' WHERE n = 2", "level 2: its level row differs from the checksum"),
    ("UPDATE level SET built_at = 'yesterday' WHERE n = 2", "level 2 records a build time that is not one"),
])
def test_malformed_level_metadata_is_named(copy, statement, named):
    _sql(copy, statement)
    code, out = _verify(copy)
    assert code == 1 and named in out and "corrupt metadata" in out


@pytest.mark.parametrize("statement, named", [
    ("UPDATE level_chunk SET data = 'text' WHERE n = 3", "level 3 chunk 0 (ranks 0…19): its data holds str, not bytes"),
    ("UPDATE level_chunk SET stop = 'x' WHERE n = 3", "level 3 chunk 0: its row records ranks [0, x)"),
    ("UPDATE level SET statistics = CAST(x'80ff' AS TEXT) WHERE n = 3", "Could not decode to UTF-8"),
    ("UPDATE level SET value_table = 'x' WHERE n = 3", "level 3: its level row differs from the checksum"),
])
def test_cells_of_the_wrong_type_are_named(copy, statement, named):
    _sql(copy, statement)
    code, out = _verify(copy)
    assert code == 1 and named in out, out
    code, _, err = run_cli("value", "--db", str(copy), "--json", "WWWWWWWWWEEEEEEEEE")  # n = 9: beyond the table,
    assert code in (0, 1) and "Traceback" not in err  # computed above the catalogue's top, level 6


# -- export -o, as cp does -----------------------------------------------------------------------------


def test_export_writes_through_a_symlink_and_into_a_device_or_a_pipe(built, tmp_path):
    target = tmp_path / "target.csv"
    target.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    code, _, err = run_cli("export", "--level", "2", "--db", str(built), "-o", str(link))
    assert code == 0, err
    assert link.is_symlink() and target.read_text().startswith("key,label") and target.read_text().count("\n") == 7
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "target.csv"]  # no .partial

    code, _, err = run_cli("export", "--level", "2", "--db", str(built), "-o", os.devnull)
    assert code == 0 and stat.S_ISCHR(os.stat(os.devnull).st_mode), "the device node is kept"
    code, _, err = run_cli("export", "--level", "2", "--db", str(built), "-o", "/dev/full")
    assert code == 2 and err == "whist-catalogue: error: cannot write /dev/full: No space left on device\n"
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    code, _, err = run_cli("export", "--level", "2", "--db", str(built), "-o", str(tmp_path))
    assert code == 2 and "it is a directory" in err and err.count("\n") == 1

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    import threading

    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    code, _, err = run_cli("export", "--level", "2", "--db", str(built), "-o", str(fifo))
    reader.join(30)
    assert code == 0 and stat.S_ISFIFO(fifo.stat().st_mode) and received[0].count("\n") == 7


def test_postgresql_amcheck_and_the_build_lock():
    """On a real server: without amcheck a note says the indexes were not checked, with it they are; a
    build is refused while another session holds the build lock."""
    import sqlalchemy as sa
    from catalogue_testing import postgres_server

    from whist_catalogue.store.lock import ADVISORY_KEY

    with postgres_server() as url:
        code, _, err = run_cli("build", "--max-n", "4", "--db", url, "--no-progress", "--no-games")
        assert code == 0, err
        code, out, _ = run_cli("verify", "--db", url, "--sample", "1")
        assert code == 0 and "note: PostgreSQL: the amcheck extension is not installed" in out
        engine = sa.create_engine(url)
        with engine.begin() as conn:
            conn.execute(sa.text("CREATE EXTENSION amcheck"))
        code, out, _ = run_cli("verify", "--db", url, "--sample", "1", "--json")
        report = json.loads(out)
        assert code == 0 and report["ok"] and report["notes"] == [], report
        with engine.connect() as holder:
            pid = holder.execute(sa.text("SELECT pg_backend_pid()")).scalar()
            holder.execute(sa.text("SELECT pg_advisory_lock(:key)"), {"key": ADVISORY_KEY})
            code, _, err = run_cli("build", "--max-n", "5", "--db", url, "--no-progress", "--no-games")
            assert code == 2 and err.count("\n") == 1 and "another build is running on" in err
            assert f"(server pid {pid})" in err
            holder.execute(sa.text("SELECT pg_advisory_unlock(:key)"), {"key": ADVISORY_KEY})
        code, _, err = run_cli("build", "--max-n", "5", "--db", url, "--no-progress", "--no-games")
        assert code == 0, err
        engine.dispose()
