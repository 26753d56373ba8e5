"""The SQLAlchemy models: named constraints and indexes, key ranges, and the row layout the build writes."""

from __future__ import annotations

import sqlalchemy as sa

from whist_catalogue.engine.levels import levels
from whist_catalogue.store.build import level_rows
from whist_catalogue.store.models import Base, DealRow, LevelRow, SolvedGameRow
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.ranking import level_masks


def test_every_constraint_and_index_is_named():
    for table in Base.metadata.sorted_tables:
        for index in table.indexes:
            assert index.name and index.name.startswith(f"ix_{table.name}_")
        for constraint in table.constraints:
            assert constraint.name, (table.name, constraint)
    assert {t.name for t in Base.metadata.sorted_tables} == {"deal", "level", "level_chunk", "solved_game"}


def test_key_is_the_sqlite_rowid():
    ddl = str(sa.schema.CreateTable(DealRow.__table__).compile(dialect=sa.dialects.sqlite.dialect()))
    assert '"key" INTEGER NOT NULL' in ddl  # INTEGER PRIMARY KEY: an alias of the rowid, no separate index
    ddl = str(sa.schema.CreateTable(DealRow.__table__).compile(dialect=sa.dialects.postgresql.dialect()))
    assert "key BIGINT NOT NULL" in ddl


def test_level_key_ranges():
    previous_high = 0
    for n in range(1, 9):
        low, high = DealRow.key_range(n)
        assert low >= previous_high
        keys = [Deal(n, int(m)).key for m in level_masks(n)]
        assert low <= min(keys) and max(keys) < high
        previous_high = high


def test_level_rows_fill_every_column():
    *_, level = levels(4, moves=True, checks=True)
    columns, batches, checksum = level_rows(level)
    assert set(columns) == {c.name for c in DealRow.__table__.columns}
    rows = [row for batch in batches for row in batch]
    assert len(rows) == 70 and all(len(r) == len(columns) for r in rows)
    first = dict(zip(columns, rows[0]))
    assert first["key"] == Deal.from_label("WWWWEEEE").key
    assert len(first["moves"]) == 2 * (2 + 2 * 4) and len(checksum) == 64


def test_reprs():
    assert repr(DealRow(key=26, n=2)) == "DealRow(key=26, n=2)"
    assert "complete=True" in repr(LevelRow(n=3, complete=True, row_count=20))
    assert "le-her" in repr(SolvedGameRow(name="le-her", parameters='{"cards":3}'))
