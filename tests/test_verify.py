"""``verify`` catches every corruption that can change an answer; ``build`` checks what it resumes from;
``export -o`` writes as ``cp`` does (issue 16).

Each corruption is made on a copy of a real catalogue with ``sqlite3`` or by changing bytes of the file, and
each must make ``verify`` exit 1 with a line naming what is damaged.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
from copy import deepcopy
from pathlib import Path

import pytest
from catalogue_testing import file_state, run_cli

from whist_catalogue.errors import CatalogueError
from whist_catalogue.games import solved_games
from whist_catalogue.store.build import build
from whist_catalogue.store.reader import open_catalogue
from whist_catalogue.store.verify import checksum_version, verify
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
    assert report.checks == ["integrity", "level metadata", "levels", "stray rows", "stray chunks", "solved games"]
    assert all(c.checksum_version == 2 and c.recomputed == c.expected_rows for c in report.levels)
    with open_catalogue(built) as catalogue:
        assert all(checksum_version(i.checksum) == 2 for i in catalogue.levels())


def test_an_edited_derived_column_fails_the_checksum_and_full_names_the_columns(copy):
    """The issue's edit: a false Theorem 8.1 counterexample appears, and verify must say so."""
    key = Deal.from_label("WEWEWEWE").key  # level 4; East holds the ace
    before = run_cli("search", "--count", "--db", str(copy), "counterexample(12.4)")[1]
    _sql(copy, f"UPDATE deal SET west_leads = west_leads + 1, flags = flags | 4, ace = 'W' WHERE key = {key}")
    assert run_cli("search", "--count", "--db", str(copy), "counterexample(12.4)")[1] != before
    code, out = _verify(copy)
    # The checksum, and the flags no longer those of the level's chunk; then the summary.
    assert code == 1 and "level 4: checksum differs" in out and out.count("\n") == 3
    assert "level 4: its rows and its chunks disagree in 1 deal (first: rank 20, WEWEWEWE)" in out
    code, out = _verify(copy, "--full")
    assert code == 1
    for column in ("west_leads", "flags", "ace"):
        assert f"level 4: column {column} differs from the recomputed level in 1 deal (first: WEWEWEWE)" in out


FLIP_PLAYER = "CASE {0} WHEN 'W' THEN 'E' ELSE 'W' END"


@pytest.mark.parametrize("column, value", [("numerator", "numerator + 2"), ("denominator", "denominator * 2"),
                                           ("fraction_scaled", "fraction_scaled + 1"), ("h", "h + 2"),
                                           ("h_lower", "h_lower - 2"), ("h_upper", "h_upper + 2"),
                                           ("greedy_west_leads", "greedy_west_leads + 1"),
                                           ("five_card_east_leads", FLIP_PLAYER.format("five_card_east_leads")),
                                           ("east_leads", "east_leads - 1"), ("n", "n + 1")])
def test_every_column_is_under_the_checksum(copy, column, value):
    _sql(copy, f"UPDATE deal SET {column} = {value} WHERE key = {Deal.from_label('WWEEWE').key}")
    code, out = _verify(copy)
    assert code == 1 and "level 3: checksum differs" in out


def _index_leaf_pages(path: Path, index: str) -> tuple[list[int], int]:
    with sqlite3.connect(path) as conn:
        pages = [r[0] for r in conn.execute("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf'",
                                            (index,))]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    return pages, size


def test_a_changed_byte_in_an_index_page_is_damage_naming_the_index(copy):
    """One bit of one key in a leaf of ix_deal_denominator: SQLite's quick_check passes it, searches through
    the index go wrong, verify (integrity_check) names the index."""
    pages, size = _index_leaf_pages(copy, "ix_deal_denominator")
    with open(copy, "r+b") as f:
        offset = (pages[len(pages) // 2] - 1) * size + size - 3  # inside the last cell's key
        f.seek(offset)
        byte = f.read(1)[0]
        f.seek(offset)
        f.write(bytes([byte ^ 1]))
    code, out = _verify(copy)
    assert code == 1 and "damaged index ix_deal_denominator" in out and "verify FAILED" in out


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


def test_a_dropped_deal_table_fails_verify_and_build_refuses_with_status_1(copy):
    _sql(copy, "DROP TABLE deal")
    code, out = _verify(copy)
    assert code == 1 and "no such table: deal" in out
    before = file_state(copy)
    code, out, err = run_cli("build", "--max-n", str(MAX_N), "--db", str(copy), "--no-progress", "--no-games")
    assert code == 1 and err.count("\n") == 1 and out == ""
    assert err.startswith("whist-catalogue: error: check failed: catalogue") and "table deal is missing" in err
    assert file_state(copy)[0] == before[0]


def test_a_deleted_row_fails_verify_and_build_stores_the_level_again(copy):
    _sql(copy, f"DELETE FROM deal WHERE key = {Deal.from_label('WEWEEW').key}")
    code, out = _verify(copy)
    assert code == 1 and "level 3: 19 rows stored, 20 recorded" in out
    code, out, err = run_cli("build", "--max-n", str(MAX_N), "--db", str(copy), "--no-progress", "--no-games")
    assert code == 0, err
    assert err == "whist-catalogue: level 3 was marked complete but holds 19 of 20 deals: storing it again\n"
    assert "this run stored level 3 (" in out and "level 3 was damaged and stored again" in out
    assert _verify(copy)[0] == 0


@pytest.mark.parametrize("statement, named", [
    ("UPDATE level SET n = 0 WHERE n = 2", "a row names level n = 0"),
    ("UPDATE level SET n = -3 WHERE n = 2", "a row names level n = -3"),
    ("UPDATE level SET n = 4000000000 WHERE n = 2", "a row names level n = 4000000000"),
    ("UPDATE level SET software_version = x'00ff' WHERE n = 2", "software version"),
    ("UPDATE level SET checksum = 'abc' WHERE n = 2", "checksum of no known format"),
])
def test_malformed_level_metadata_is_named(copy, statement, named):
    _sql(copy, statement)
    code, out = _verify(copy)
    assert code == 1 and named in out and "corrupt metadata" in out


@pytest.mark.parametrize("statement, named", [
    ("UPDATE deal SET h = 'x' WHERE n = 3", "column h holds str, not an integer"),
    ("UPDATE deal SET moves = 'text' WHERE n = 3", "moves are not 16 bytes"),
    ("UPDATE deal SET numerator = 1.5 WHERE n = 3", "column numerator holds float"),
])
def test_rows_of_the_wrong_type_are_named(copy, statement, named):
    _sql(copy, statement)
    code, out = _verify(copy)
    assert code == 1 and "level 3: deal key" in out and named in out


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


def test_a_level_with_a_format_1_checksum_verifies_with_a_note_and_full_checks_the_other_columns(copy):
    """Catalogues built before the checksum covered every column: their value and moves stay covered."""
    import numpy as np

    from whist_catalogue.store.verify import level_checksum_v1

    with sqlite3.connect(copy) as conn:
        rows = conn.execute("SELECT key, number_scaled, inf_sign, stoppers, moves FROM deal WHERE n = 3 ORDER BY key"
                            ).fetchall()
        moves = np.frombuffer(b"".join(r[4] for r in rows), "<u2").reshape(len(rows), 8)
        old = level_checksum_v1(np.array([r[0] for r in rows]), np.array([r[1] for r in rows]),
                                np.array([r[2] * (r[3] + 1) for r in rows]), moves)
        conn.execute("UPDATE level SET checksum = ? WHERE n = 3", (old,))
    conn.close()
    assert checksum_version(old) == 1
    code, out = _verify(copy)
    assert code == 0 and "note: level 3 was built before checksums covered every column" in out
    _sql(copy, f"UPDATE deal SET h = h + 2 WHERE key = {Deal.from_label('WWEEWE').key}")
    assert _verify(copy)[0] == 0  # format 1 does not cover H …
    code, out = _verify(copy, "--full")
    assert code == 1 and "level 3: column h differs from the recomputed level in 1 deal (first: WWEEWE)" in out
    _sql(copy, f"UPDATE deal SET number_scaled = number_scaled + 1 WHERE key = {Deal.from_label('WWEEWE').key}")
    code, out = _verify(copy)
    assert code == 1 and "level 3: checksum differs" in out  # … but it does cover the value


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
