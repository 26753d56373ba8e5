"""Errors that tell the truth (issue 21, item 4): damage found while reading is exit status 1 and names what is
damaged; our own bugs are never reported as damage; ``verify`` catches every change a look-up depends on and
never crashes on damage.

Each corruption is made on a copy of a real catalogue with ``sqlite3`` or by changing bytes of the file. The
catalogue here has chunks of 64 deals, so that levels 5…9 have several chunks each (a real catalogue has
2^20 deals a chunk, and several chunks only from level 12 up). Look-ups are made at level 9: every suit with
n ≤ 8 is answered from the preloaded table without reading the catalogue.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from catalogue_testing import run_cli

import whist_catalogue.store.build as store_build
from whist_catalogue.engine.chunks import pack_chunk, read_chunk
from whist_catalogue.errors import CatalogueDamagedError, CatalogueError, MalformedContentError
from whist_catalogue.store.database import database_errors
from whist_catalogue.store.levels import chunk_checksum
from whist_catalogue.store.verify import verify
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.ranking import unrank

TOP = 9
CHUNK_DEALS = 64
LE_HER = 5
"""The one solved game these catalogues hold (solving all 51 would take seconds a build)."""


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """Levels 1…9 in chunks of 64 deals, and Le Her with 5 cards."""
    path = tmp_path_factory.mktemp("damage") / "catalogue.sqlite"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store_build, "CHUNK_DEALS", CHUNK_DEALS)
        patch.setattr(store_build, "SOLVED_GAMES", (("le-her", {"cards": LE_HER}),))
        store_build.build(path, TOP)
    return path


@pytest.fixture
def copy(built, tmp_path) -> Path:
    path = tmp_path / "copy.sqlite"
    shutil.copy(built, path)
    return path


def _sql(path: Path, *statements: tuple) -> None:
    conn = sqlite3.connect(path)
    with conn:
        for statement in statements:
            conn.execute(*statement)
    conn.close()


def _chunk(path: Path, n: int, index: int) -> tuple[bytes, str]:
    conn = sqlite3.connect(path)
    row = conn.execute("SELECT data, checksum FROM level_chunk WHERE n = ? AND chunk = ?", (n, index)).fetchone()
    conn.close()
    return row


def _put_chunk(path: Path, n: int, index: int, data: bytes, checksum: str) -> None:
    _sql(path, ("UPDATE level_chunk SET data = ?, checksum = ? WHERE n = ? AND chunk = ?", (data, checksum, n, index)))


def _label(n: int, r: int) -> str:
    return Deal(n, unrank(n, r)).label


def _verify(path: Path, *options: str) -> tuple[int, dict]:
    code, out, err = run_cli("verify", "--db", str(path), "--sample", "0", "--json", *options)
    assert code != 70 and "Traceback" not in out + err, (code, err)
    return code, json.loads(out)


def _damage_line(argv: list[str], path: Path) -> str:
    """The command fails with exit status 1 and one line that points to verify."""
    code, out, err = run_cli(*argv, "--db", str(path))
    assert code == 1 and out == "" and err.count("\n") == 1, (argv, code, out, err)
    assert err.startswith("whist-catalogue: error: ") and "verify" in err and "Traceback" not in err
    return err


# -- read-time checks ---------------------------------------------------------------------------------------


def test_a_fresh_catalogue_answers_and_verifies(built):
    code, report = _verify(built, "--full")
    assert code == 0 and report["ok"], report["problems"]
    code, out, _ = run_cli("value", _label(TOP, 100), "--db", str(built))
    assert code == 0


def test_a_chunk_swapped_within_its_level_is_named_at_read_time(copy):
    """Chunks 0 and 1 of level 9 exchanged, each with its own checksum: every SHA-256 still matches."""
    first, second = _chunk(copy, TOP, 0), _chunk(copy, TOP, 1)
    _put_chunk(copy, TOP, 0, *second)
    _put_chunk(copy, TOP, 1, *first)
    err = _damage_line(["value", _label(TOP, 0)], copy)
    assert f"level {TOP} chunk 0: its header says level {TOP}, ranks [64, 128)" in err
    code, report = _verify(copy)
    assert code == 1 and any(p.startswith(f"level {TOP} chunk 0 ") for p in report["problems"])


def test_a_chunk_from_another_level_is_named_at_read_time(copy):
    """Level 8's chunk 0 in place of level 9's (today's level-11-for-12 case: a wrong answer or an IndexError)."""
    _put_chunk(copy, TOP, 0, *_chunk(copy, TOP - 1, 0))
    for r in (0, 63):
        err = _damage_line(["value", _label(TOP, r)], copy)
        assert f"level {TOP} chunk 0: its header says level {TOP - 1}" in err
    # A deal of level 10 would read level 9's chunk 0 for its best moves: a search over level 9 names it too.
    err = _damage_line(["search", "--count", f"n = {TOP} and h = 1"], copy)
    assert f"level {TOP} chunk 0" in err
    code, report = _verify(copy)
    assert code == 1 and any(f"level {TOP} chunk 0" in p for p in report["problems"])


def test_a_damaged_chunk_is_named_by_its_checksum(copy):
    data, checksum = _chunk(copy, TOP, 2)
    damaged = bytearray(data)
    damaged[len(damaged) // 2] ^= 0x01
    _put_chunk(copy, TOP, 2, bytes(damaged), checksum)
    err = _damage_line(["value", _label(TOP, 2 * CHUNK_DEALS + 5)], copy)
    assert f"level {TOP} chunk 2: checksum differs from the one recorded at build time" in err


@pytest.mark.parametrize("chunk_deals", [CHUNK_DEALS // 2, CHUNK_DEALS * 2, CHUNK_DEALS + 1, 524288])
def test_an_edited_chunk_deals_is_named_at_read_time_and_by_every_verify(copy, chunk_deals):
    """Look-ups compute a chunk index from level.chunk_deals: a changed one reads the wrong chunk (today: a wrong
    value or an IndexError, exit 70). Each chunk's header says where it lies, so the read names the mismatch;
    verify fails on every run, with no sample at all."""
    _sql(copy, ("UPDATE level SET chunk_deals = ? WHERE n = ?", (chunk_deals, TOP)))
    err = _damage_line(["value", _label(TOP, 100)], copy)
    assert f"level {TOP}: its level row differs from the checksum recorded at build time" in err
    code, report = _verify(copy)
    assert code == 1
    assert f"level table: level {TOP} records {chunk_deals:,} deals a chunk, the other levels {CHUNK_DEALS}" \
        " (corrupt metadata; rebuild the catalogue)" in report["problems"]


def test_a_wrong_chunk_deals_on_a_level_of_one_chunk_fails_verify(copy):
    """A level of one chunk reads the same under any larger chunk size, but a byte flip is still a change."""
    _sql(copy, ("UPDATE level SET chunk_deals = chunk_deals | 4096 WHERE n = 3",))
    code, report = _verify(copy)
    assert code == 1
    assert any(p.startswith("level table: level 3 records 4,160 deals a chunk") for p in report["problems"])


def test_a_tampered_solved_game_is_refused_when_shown(copy):
    conn = sqlite3.connect(copy)
    (solution,) = conn.execute("SELECT solution FROM solved_game WHERE name = 'le-her'").fetchone()
    conn.close()
    game = json.loads(solution)
    game["value"] = "1/3"
    _sql(copy, ("UPDATE solved_game SET solution = ? WHERE name = 'le-her'", (json.dumps(game),)))
    err = _damage_line(["solve", "le-her", "--cards", str(LE_HER)], copy)
    assert 'solved game le-her {"cards":5}: its solution differs from the checksum recorded at build time' in err
    code, report = _verify(copy)
    assert code == 1 and any(p.startswith('solved game le-her {"cards":5}') for p in report["problems"])


def test_a_solved_game_whose_checksum_alone_changed_fails_verify(copy):
    _sql(copy, ("UPDATE solved_game SET checksum = 'x' WHERE name = 'le-her'",))
    code, report = _verify(copy)
    assert code == 1 and 'solved game le-her {"cards":5}: differs from the checksum recorded at build time' \
        in report["problems"]


# -- what verify used to miss -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [TOP, TOP - 1])
def test_a_deleted_level_row_with_its_chunks_left_fails_verify(copy, n):
    """Deleting a level's row changes look-ups (the level is computed again, or the level above loses the values
    its best moves are derived from): its chunks, now of no level, are damage."""
    _sql(copy, ("DELETE FROM level WHERE n = ?", (n,)))
    code, report = _verify(copy)
    assert code == 1
    assert f"level_chunk holds chunks of level {n}, which the level table does not list" \
        " (its level row deleted or damaged; rebuild the catalogue)" in report["problems"]
    if n < TOP:
        assert any(p.startswith(f"level {n + 1} is complete but level {n}") for p in report["problems"])
        err = _damage_line(["value", _label(n + 1, 3)], copy)
        assert f"level {n + 1} is complete but level {n}" in err


# -- verify does not crash on damage --------------------------------------------------------------------------


def test_a_dropped_chunk_table(copy):
    _sql(copy, ("DROP TABLE level_chunk",))
    code, report = _verify(copy)
    assert code == 1 and any("no such table: level_chunk" in p for p in report["problems"])
    err = _damage_line(["value", _label(TOP, 0)], copy)
    assert "is damaged: no such table: level_chunk" in err


def test_a_malformed_page_of_the_chunk_tables_index(copy):
    conn = sqlite3.connect(copy)
    (page,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'level_chunk'"
                           ).fetchone()
    (size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    data = bytearray(copy.read_bytes())
    data[(page - 1) * size] = 0xFF  # the page's type: no b-tree page has it
    copy.write_bytes(bytes(data))
    code, report = _verify(copy)
    assert code == 1 and any("database disk image is malformed" in p for p in report["problems"])
    err = _damage_line(["value", _label(TOP, 0)], copy)
    assert "is damaged: database disk image is malformed" in err


def test_a_one_byte_value_table(copy):
    _sql(copy, ("UPDATE level SET value_table = x'01' WHERE n = ?", (TOP,)))
    code, report = _verify(copy)
    assert code == 1 and f"level table: level {TOP}: its level row differs from the checksum recorded at build time" \
        " (its value table, statistics, chunk size or sizes were changed, or it was never checksummed) (corrupt" \
        " metadata; rebuild the catalogue)" in report["problems"]
    for argv in (["search", f"n = {TOP}"], ["search", "--count", f"n = {TOP} and number = 0"], ["stats", "--n", str(TOP)],
                 ["value", _label(TOP, 7)], ["export", "--level", str(TOP)]):
        err = _damage_line(argv, copy)
        assert f"level {TOP}: its level row differs from the checksum" in err, argv


def test_a_build_time_that_does_not_parse(copy):
    _sql(copy, ("UPDATE level SET built_at = 'yesterday' WHERE n = 3",))
    code, report = _verify(copy)
    assert code == 1 and "level table: level 3 records a build time that is not one: 'yesterday' (corrupt" \
        " metadata; rebuild the catalogue)" in report["problems"]


@pytest.mark.parametrize("damage", [
    f"INSERT INTO level_chunk SELECT n, 9999, start, stop, data, checksum FROM level_chunk WHERE n = {TOP} AND chunk = 0",
    f"UPDATE level_chunk SET start = start + 1 WHERE n = {TOP} AND chunk = 2",
    f"UPDATE level_chunk SET chunk = chunk + 10000 WHERE n = {TOP} AND chunk = 2",
])
def test_a_resumed_build_over_a_duplicated_or_shifted_chunk_row(copy, damage, monkeypatch):
    """verify names the row; a build then stores the level again (today: an AssertionError, exit 70, or the
    renumbered row left in place)."""
    _sql(copy, (damage,))
    code, report = _verify(copy)
    assert code == 1 and any(p.startswith(f"level {TOP} ") for p in report["problems"]), report["problems"]
    monkeypatch.setattr(store_build, "CHUNK_DEALS", CHUNK_DEALS)
    monkeypatch.setattr(store_build, "SOLVED_GAMES", (("le-her", {"cards": LE_HER}),))
    code, _, err = run_cli("build", "--max-n", str(TOP), "--db", str(copy), "--no-progress")
    assert code == 0 and f"level {TOP} was marked complete but " in err, err
    code, report = _verify(copy)
    assert code == 0, report["problems"]


# -- our own bugs are not damage ------------------------------------------------------------------------------


@pytest.mark.parametrize("bug", [TypeError("unsupported operand"), KeyError("counts"), IndexError("index 5"),
                                 AttributeError("no attribute"), ZeroDivisionError("division by zero")])
def test_a_bug_in_reading_code_is_not_reported_as_a_corrupt_catalogue(bug):
    with pytest.raises(type(bug)):
        with database_errors("somewhere.sqlite"):
            raise bug


def test_malformed_contents_are_damage():
    with pytest.raises(CatalogueDamagedError, match=r"catalogue somewhere.sqlite is corrupt: a cell .* verify"):
        with database_errors("somewhere.sqlite"):
            raise MalformedContentError("a cell no build wrote")


def test_a_bug_raised_while_reading_a_catalogue_exits_70(built, monkeypatch):
    """A TypeError in the reading code reaches the user as an internal error (70), not as "corrupt"."""
    from whist_catalogue.store import reader

    def broken(*args: object) -> None:
        raise TypeError("a bug of ours")

    monkeypatch.setattr(reader, "level_row_problem", broken)
    code, _, err = run_cli("value", _label(TOP, 1), "--db", str(built))
    assert code == 70 and "internal error: TypeError: a bug of ours" in err and "corrupt" not in err


def test_the_library_raises_damage_as_a_catalogue_error(copy):
    _put_chunk(copy, TOP, 0, *_chunk(copy, TOP - 1, 0))
    from whist_catalogue.store.reader import open_catalogue

    with open_catalogue(copy) as catalogue:
        with pytest.raises(CatalogueError, match=f"level {TOP} chunk 0"):
            catalogue.value(Deal(TOP, unrank(TOP, 0)))
    assert not verify(copy, sample=0).ok


# -- PostgreSQL -----------------------------------------------------------------------------------------------


def test_postgresql_amcheck_a_catalogue_owner_who_is_not_a_superuser():
    """amcheck installed, but the catalogue's owner may not run it: verify says what it could not check and
    passes (today: exit 1, "damaged index")."""
    import sqlalchemy as sa
    from catalogue_testing import postgres_server

    with postgres_server() as url:
        engine = sa.create_engine(url)
        with engine.begin() as conn:
            conn.execute(sa.text("CREATE EXTENSION amcheck"))
            conn.execute(sa.text("CREATE ROLE owner LOGIN"))
            conn.execute(sa.text("GRANT CREATE ON SCHEMA public TO owner"))
        engine.dispose()
        owner_url = sa.make_url(url).set(username="owner").render_as_string(hide_password=False)
        code, _, err = run_cli("build", "--max-n", "3", "--db", owner_url, "--no-progress", "--no-games")
        assert code == 0, err
        code, out, err = run_cli("verify", "--db", owner_url, "--sample", "1", "--json")
        report = json.loads(out)
        assert code == 0 and report["ok"], (report, err)
        assert any("amcheck is installed but this role may not run bt_index_check" in note for note in report["notes"])


def test_every_level_field_a_reader_shows_is_checked(copy):
    """stored_bytes (the size stats and the app report) is under the level row's checksum."""
    _sql(copy, ("UPDATE level SET stored_bytes = stored_bytes + 1 WHERE n = 6",))
    code, report = _verify(copy)
    assert code == 1 and any(p.startswith("level table: level 6: its level row differs from the checksum")
                             for p in report["problems"])


# -- the hostile tester's fourth pass: damage is never served as an answer, nor reported as a bug -------------


@pytest.mark.parametrize("byte", [0, 3, 4, 9])
def test_one_flipped_bit_of_a_levels_value_table_is_named_by_every_reader(copy, byte):
    """Issue 15's example (a bit of level 11's value table: ``stats`` gave 1/16777216 + ε₀ for ε₀, ``search
    --count`` another count, both with exit 0) and issue 16's (a look-up after it: exit 70), here on level 9:
    each says "check failed", exit 1, naming the level."""
    conn = sqlite3.connect(copy)
    (table,) = conn.execute("SELECT value_table FROM level WHERE n = ?", (TOP,)).fetchone()
    conn.close()
    flipped = bytearray(table)
    flipped[byte] ^= 1
    _sql(copy, ("UPDATE level SET value_table = ? WHERE n = ?", (bytes(flipped), TOP)))
    for argv in (["stats", "--n", str(TOP)], ["search", "--count", f"n = {TOP} and number = 0"],
                 ["search", "--count", "h = 1", "--no-progress"], ["value", _label(TOP, 5)]):
        err = _damage_line(argv, copy)
        assert err.startswith("whist-catalogue: error: check failed: catalogue") and f"level {TOP}: " in err, argv
    # Beyond the catalogue: the engine's plan is announced, then the level it would start from is refused.
    code, out, err = run_cli("value", _label(TOP + 1, 5), "--db", str(copy))
    assert code == 1 and out == "" and err.splitlines()[-1].startswith("whist-catalogue: error: check failed") \
        and f"level {TOP}: its level row differs" in err
    assert run_cli("stats", "--n", str(TOP - 1), "--db", str(copy))[0] == 0  # the other levels still answer


@pytest.mark.parametrize("n", ["'x'", "2.5", "40", "-1"])
def test_a_resumed_build_after_a_level_rows_n_was_changed(copy, n):
    """Issue 16: today an internal error (exit 70); it is damage (exit 1), the level table named."""
    _sql(copy, (f"UPDATE level SET n = {n} WHERE n = 3",))
    code, out, err = run_cli("build", "--max-n", str(TOP), "--db", str(copy), "--no-progress", "--no-games")
    assert code == 1 and err.count("\n") == 1 and "check failed" in err and "its level table names level" in err, err


def test_a_level_the_engine_cannot_compute_from_is_damage(tmp_path):
    """Issue 16: level 8's chunk with two values exchanged and its SHA-256 and CRC-32 made to match (its counts
    and table unchanged, so nothing a read checks differs): a deal of level 9 is computed from it, the engine
    finds Theorem 8.8 violated — exit 1 naming level 8 (today: "internal error … please report it", exit 70),
    as ``build --max-n 9`` on the same file says."""
    path = tmp_path / "forged.sqlite"
    store_build.build(path, 8, games=False)
    conn = sqlite3.connect(path)
    (data,) = conn.execute("SELECT data FROM level_chunk WHERE n = 8").fetchone()
    chunk = read_chunk(data)
    codes = chunk.codes.copy()
    codes[448], codes[1855] = codes[1855], codes[448]  # (found by trying pairs: I(D) of level 9's rank 1929 breaks)
    forged = pack_chunk(8, 0, codes, chunk.table, chunk.flags)
    conn.execute("UPDATE level_chunk SET data = ?, checksum = ? WHERE n = 8", (forged, chunk_checksum(forged)))
    conn.commit()
    conn.close()
    code, out, err = run_cli("value", _label(9, 1929), "--db", str(path))
    last = err.splitlines()[-1]  # after the engine's plan
    assert code == 1 and out == "" and last.startswith("whist-catalogue: error: check failed: catalogue")
    assert "level 8: the levels above it cannot be computed from its values as stored" in last and "Theorem 8.8" in last
    code, _, err = run_cli("build", "--max-n", "9", "--db", str(path), "--no-progress", "--no-games")
    assert code == 1 and "check failed" in err and "level 8: level 9 cannot be computed from its values" in err


def test_postgresql_an_edited_level_row_is_named_not_served():
    """Issue 15: "on PostgreSQL an edited row is served the same way" — a level row edited on the server answers
    "check failed", exit 1, naming the level, as on SQLite."""
    import sqlalchemy as sa
    from catalogue_testing import postgres_server

    with postgres_server() as url:
        code, _, err = run_cli("build", "--max-n", "5", "--db", url, "--no-progress", "--no-games")
        assert code == 0, err
        engine = sa.create_engine(url)
        with engine.begin() as conn:
            conn.execute(sa.text("UPDATE level SET statistics = replace(statistics, '[1,', '[2,') WHERE n = 5"))
        engine.dispose()
        for argv in (["stats", "--n", "5"], ["search", "--count", "n = 5 and frac = 1/2"]):
            code, out, err = run_cli(*argv, "--db", url)
            assert code == 1 and out == "" and "check failed" in err and "level 5: its level row differs" in err, err
        assert run_cli("stats", "--n", "4", "--db", url)[0] == 0
