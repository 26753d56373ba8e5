"""The alembic migrations: a straight chain, upgrade/downgrade on empty databases, and the upgrade path of an old catalogue."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from catalogue_testing import build_catalogue, file_state, postgres_server, reference_records, run_cli

from whist_catalogue import __version__
from whist_catalogue.engine.levels import levels
from whist_catalogue.errors import CatalogueError
from whist_catalogue.store.database import (
    alembic_config,
    head_revision,
    parse_location,
    upgrade,
    writer_engine,
)
from whist_catalogue.store.identity import revisions as _revisions
from whist_catalogue.store.models import SCHEMA_VERSION_TABLE, Base
from whist_catalogue.store.reader import open_catalogue


def _script() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


def _engine(path: Path) -> sa.Engine:
    return sa.create_engine(parse_location(path).url)


def test_revision_chain_is_straight():
    script = _script()
    revisions = list(script.walk_revisions())  # head first
    assert len(script.get_heads()) == 1 and len(script.get_bases()) == 1
    assert len(revisions) >= 2, "the first migration is the initial schema; later changes come as new migrations"
    for newer, older in zip(revisions, revisions[1:]):
        assert newer.down_revision == older.revision
        assert not newer.branch_labels and not newer.dependencies
    assert revisions[-1].down_revision is None
    # The reader takes the chain from the file names (no alembic import): the same chain.
    assert list(_revisions()) == [rev.revision for rev in reversed(revisions)]
    assert head_revision() == script.get_current_head()
    for rev in revisions:
        name = Path(rev.path).name
        assert re.match(r"\d{4}_\d{2}_\d{2}_\d{4}-" + rev.revision + r"_\w+\.py$", name), name


def test_migrations_use_op_and_sa_only():
    for rev in _script().walk_revisions():
        text = Path(rev.path).read_text()
        imports = set(re.findall(r"^(?:from|import) ([\w.]+)", text, re.MULTILINE))
        # The standard library's checksums and codecs for what a migration fills in or converts; never this
        # software's own modules, which change after a migration is written (it keeps frozen copies).
        assert imports <= {"__future__", "alembic", "sqlalchemy", "hashlib", "json", "math", "struct", "zlib"}, \
            (rev.path, imports)


def test_upgrade_head_downgrade_base_on_empty_sqlite(tmp_path):
    engine = _engine(tmp_path / "empty.sqlite")
    upgrade(engine)
    tables = set(sa.inspect(engine).get_table_names())
    assert {"level", "level_chunk", "solved_game", SCHEMA_VERSION_TABLE} <= tables and "deal" not in tables
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "base")
    assert set(sa.inspect(engine).get_table_names()) <= {SCHEMA_VERSION_TABLE}
    upgrade(engine)
    with engine.connect() as conn:
        assert MigrationContext.configure(conn, opts={"version_table": SCHEMA_VERSION_TABLE}).get_current_revision() \
            == head_revision()
    engine.dispose()


def test_models_agree_with_migrations(tmp_path):
    engine = _engine(tmp_path / "head.sqlite")
    upgrade(engine)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
    diff = [d for d in diff if not (d[0] == "remove_table" and d[1].name == SCHEMA_VERSION_TABLE)]
    assert diff == []
    engine.dispose()


def _old_build(engine: sa.Engine, max_n: int) -> None:
    """What the first schema's software wrote: levels 1…max_n as a ``deal`` row per deal (Core tables, as the
    migration defines them), from the reference computed without the catalogue."""
    deal = sa.table("deal", *(sa.column(c) for c in (
        "key", "n", "numerator", "denominator", "number_scaled", "fraction_scaled", "inf_sign", "stoppers",
        "west_leads", "east_leads", "moves", "h_lower", "h_upper", "h", "greedy_west_leads", "greedy_east_leads",
        "five_card_west_leads", "five_card_east_leads", "ace", "flags")))
    level = sa.table("level", *(sa.column(c) for c in (
        "n", "complete", "row_count", "checksum", "software_version", "built_at")))
    rows = []
    for r in reference_records(max_n):
        q, x = r.value.number, r.value.infinitesimal
        rows.append(dict(
            key=r.key, n=r.n, numerator=q.numerator, denominator=q.denominator, number_scaled=int(q * (1 << 24)),
            fraction_scaled=int((q - q.numerator // q.denominator) * (1 << 24)), inf_sign=x.sign,
            stoppers=abs(x.index), west_leads=int(r.outcome.west_leads), east_leads=int(r.outcome.east_leads),
            moves=b"".join(m.to_bytes(2, "little") for m in r.move_masks), h_lower=r.h_lower, h_upper=r.h_upper,
            h=r.h, greedy_west_leads=int(r.greedy.west_leads), greedy_east_leads=int(r.greedy.east_leads),
            five_card_west_leads=r.five_card[0], five_card_east_leads=r.five_card[1], ace=r.ace, flags=r.flags))
    with engine.begin() as conn:
        conn.execute(sa.insert(deal), rows)
        conn.execute(sa.insert(level), [{"n": n, "complete": True, "row_count": comb(2 * n, n), "checksum": "0" * 64,
                                         "software_version": "0.0.1",
                                         "built_at": datetime(2025, 1, 1, tzinfo=timezone.utc)}
                                        for n in range(1, max_n + 1)])


def test_catalogue_built_with_the_first_migration_upgrades(tmp_path):
    path = tmp_path / "old.sqlite"
    engine = _engine(path)
    first = list(_script().walk_revisions())[-1].revision
    upgrade(engine, first)
    _old_build(engine, 4)
    engine.dispose()
    # The old file cannot be read as it is: the reader asks for an upgrade, and changes nothing.
    before = file_state(path)
    with pytest.raises(CatalogueError, match="older schema"):
        open_catalogue(path)
    assert file_state(path) == before

    code, out, err = run_cli("build", "--max-n", "6", "--db", str(path), "--no-progress", "--json")
    assert code == 0, err
    with open_catalogue(path) as cat:
        infos = {i.n: i for i in cat.levels()}
        assert all(infos[n].complete and infos[n].problem is None for n in range(1, 7))
        assert all(infos[n].software_version == "0.0.1" for n in range(1, 5)), "old levels are kept, not rebuilt"
        assert infos[5].software_version == __version__ and infos[5].build_seconds is not None
        assert cat.solved_game("chemin-de-fer") is not None
        # The rows became chunks (the migration's own frozen codec): every deal reads back as it was stored.
        reference = reference_records(6)
        assert [cat.record(r.deal) for r in reference] == reference
    code, out, _ = run_cli("verify", "--db", str(path), "--full")
    assert code == 0, out
    with sa.create_engine(parse_location(path).url).connect() as conn:
        assert "deal" not in sa.inspect(conn).get_table_names()
        # the rows' pages given back (VACUUM after the build): no free page left in the file
        assert conn.exec_driver_sql("PRAGMA freelist_count").scalar() == 0


def _level_store_catalogue(path: Path) -> Path:
    """A catalogue as the fourth revision's software left it: built now, then taken back to that revision (its
    levels chunks only, no checksum on their rows)."""
    build_catalogue(path, 6, games=False)
    engine = _engine(path)
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "b4d2e8f1a6c3")
    engine.dispose()
    return path


def test_the_fifth_migration_checksums_the_level_rows_that_agree_with_their_chunks(tmp_path):
    """Upgraded, every level row gets its checksum and look-ups read it; a row changed before the upgrade (a
    bit of level 5's value table) gets none: the level is reported as damaged, and the next build stores it
    again."""
    import sqlite3

    path = _level_store_catalogue(tmp_path / "old.sqlite")
    with sqlite3.connect(path) as conn:
        (table,) = conn.execute("SELECT value_table FROM level WHERE n = 5").fetchone()
        conn.execute("UPDATE level SET value_table = ? WHERE n = 5", (bytes([table[0] ^ 1]) + table[1:],))
    conn.close()
    code, _, err = run_cli("build", "--max-n", "6", "--db", str(path), "--no-progress", "--no-games")
    assert code == 0 and err == "whist-catalogue: level 5 was marked complete but its level row differs from its" \
        " checksum: storing it again\n", err
    with open_catalogue(path) as cat:
        assert all(i.complete and i.problem is None for i in cat.levels())
        assert cat.value_counts(5) == levels_counts(5)
    code, out, _ = run_cli("verify", "--db", str(path))
    assert code == 0, out

    path = _level_store_catalogue(tmp_path / "read.sqlite")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE level SET statistics = replace(statistics, '\"counts\":[1,', '\"counts\":[2,')"
                     " WHERE n = 4")
    conn.close()
    engine = _engine(path)
    upgrade(engine)
    engine.dispose()
    code, _, err = run_cli("stats", "--n", "4", "--db", str(path))
    assert code == 1 and "check failed: catalogue" in err and "level 4: its level row differs from the checksum" \
        in err, err
    assert run_cli("stats", "--n", "3", "--db", str(path))[0] == 0  # the other levels still answer


def levels_counts(n: int) -> dict:
    *_, level = levels(n)
    return level.value_counts()


def test_newer_schema_is_refused_and_untouched(tmp_path):
    path = tmp_path / "future.sqlite"
    engine = _engine(path)
    upgrade(engine)
    version = sa.table(SCHEMA_VERSION_TABLE, sa.column("version_num"))
    with engine.begin() as conn:
        conn.execute(sa.update(version).values(version_num="ffffffffffff"))
    engine.dispose()
    before = file_state(path)
    with pytest.raises(CatalogueError, match="newer version"):
        open_catalogue(path)
    with pytest.raises(CatalogueError, match="newer version"):
        writer_engine(path)
    for argv in (["search", "n = 1"], ["build", "--max-n", "2", "--no-progress"], ["verify"], ["stats"]):
        code, _, err = run_cli(*argv, "--db", str(path))
        assert code == 2 and err.count("\n") == 1 and "newer version" in err
    assert file_state(path) == before


def test_postgresql_upgrade_downgrade_and_build(tmp_path):
    with postgres_server() as url:
        engine = sa.create_engine(url)
        upgrade(engine)
        assert {"level", "level_chunk", "solved_game"} <= set(sa.inspect(engine).get_table_names())
        with engine.begin() as conn:
            command.downgrade(alembic_config(conn), "base")
        engine.dispose()
        code, _, err = run_cli("build", "--max-n", "6", "--db", url, "--no-progress")
        assert code == 0, err
        with open_catalogue(url) as cat:
            assert cat.max_n == 6
            stored = cat.value_counts(6)
            assert sum(stored.values()) == comb(12, 6)
            from whist_catalogue.engine.levels import EngineSolver
            from whist_catalogue.theory.deals import Deal

            engine_solver = EngineSolver(6)
            for key in (0b1011010010110, 1 << 12 | 0b000000111111, 1 << 12 | 0b101010101010):
                deal = Deal.from_key(key)
                assert cat.solve(deal) == engine_solver.solve(deal)
            assert cat.count("counterexample(any)") == 0
            quarters = sum(c for v, c in stored.items() if v.number - (v.number.numerator // v.number.denominator)
                                == Fraction(1, 4))
            assert cat.count("n = 6 and frac = 1/4") == quarters > 0
        code, out, _ = run_cli("verify", "--db", url)
        assert code == 0, out
        # Every search means the same on both backends (PostgreSQL computes in the columns' widths).
        from test_search import CASES

        sqlite_path = build_catalogue(tmp_path / "same.sqlite", 6, games=False)
        with open_catalogue(url) as pg, open_catalogue(sqlite_path) as lite:
            for text, _ in CASES:
                assert pg.count(text) == lite.count(text), text
            assert pg.statistics(6).to_json() == lite.statistics(6).to_json()
