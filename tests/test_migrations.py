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
from catalogue_testing import build_catalogue, file_state, postgres_server, run_cli

from whist_catalogue import __version__
from whist_catalogue.engine.levels import levels
from whist_catalogue.errors import CatalogueError
from whist_catalogue.store.build import level_rows
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
        # hashlib (the standard library's) for a checksum a migration fills in; never this software's own modules,
        # which change after a migration is written.
        assert imports <= {"__future__", "alembic", "sqlalchemy", "hashlib"}, (rev.path, imports)


def test_upgrade_head_downgrade_base_on_empty_sqlite(tmp_path):
    engine = _engine(tmp_path / "empty.sqlite")
    upgrade(engine)
    tables = set(sa.inspect(engine).get_table_names())
    assert {"deal", "level", "solved_game", SCHEMA_VERSION_TABLE} <= tables
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


def _old_build(engine: sa.Engine, max_n: int) -> dict[int, str]:
    """What the first schema's software wrote: levels 1…max_n (Core tables, as the migration defines them)."""
    deal = sa.table("deal", *(sa.column(c) for c in (
        "key", "n", "numerator", "denominator", "number_scaled", "fraction_scaled", "inf_sign", "stoppers",
        "west_leads", "east_leads", "moves", "h_lower", "h_upper", "h", "greedy_west_leads", "greedy_east_leads",
        "five_card_west_leads", "five_card_east_leads", "ace", "flags")))
    level = sa.table("level", *(sa.column(c) for c in (
        "n", "complete", "row_count", "checksum", "software_version", "built_at")))
    checksums = {}
    for lv in levels(max_n, moves=True, checks=True):
        columns, batches, checksum = level_rows(lv)
        with engine.begin() as conn:
            conn.execute(sa.insert(deal), [dict(zip(columns, r)) for b in batches for r in b])
            conn.execute(sa.insert(level), [{"n": lv.n, "complete": True, "row_count": len(lv), "checksum": checksum,
                                             "software_version": "0.0.1", "built_at": datetime(2025, 1, 1,
                                                                                               tzinfo=timezone.utc)}])
        checksums[lv.n] = checksum
    return checksums


def test_catalogue_built_with_the_first_migration_upgrades(tmp_path):
    path = tmp_path / "old.sqlite"
    engine = _engine(path)
    first = list(_script().walk_revisions())[-1].revision
    upgrade(engine, first)
    checksums = _old_build(engine, 4)
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
        assert all(infos[n].complete for n in range(1, 7))
        assert {n: infos[n].checksum for n in range(1, 5)} == checksums
        assert all(infos[n].software_version == "0.0.1" for n in range(1, 5)), "old levels are kept, not rebuilt"
        assert infos[5].software_version == __version__ and infos[5].build_seconds is not None
        assert cat.solved_game("chemin-de-fer") is not None
    code, out, _ = run_cli("verify", "--db", str(path))
    assert code == 0, out


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
        assert {"deal", "level", "solved_game"} <= set(sa.inspect(engine).get_table_names())
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
