"""The SQLAlchemy models: named constraints and indexes, the tables there are, and the level row's checksum."""

from __future__ import annotations

from whist_catalogue.store.levels import level_row_checksum
from whist_catalogue.store.models import Base, LevelChunkRow, LevelRow, SolvedGameRow


def test_every_constraint_and_index_is_named():
    for table in Base.metadata.sorted_tables:
        for index in table.indexes:
            assert index.name and index.name.startswith(f"ix_{table.name}_")
        for constraint in table.constraints:
            assert constraint.name, (table.name, constraint)
    # The level store alone: no table of per-deal rows (docs/architecture.md, "One storage"); the table of
    # two-hand endings stored the same way.
    assert {t.name for t in Base.metadata.sorted_tables} == {"level", "level_chunk", "solved_game", "ending_level",
                                                             "ending_chunk"}


def test_the_level_row_checksum_covers_every_cell_a_reader_uses():
    cells = dict(n=11, row_count=705432, chunk_deals=1 << 20, stored_bytes=12345, value_table=b"\0" * 10,
                 statistics='{"counts":[1,2]}')
    checksum = level_row_checksum(**cells)
    assert checksum is not None and len(checksum) == 64
    for name, other in (("n", 12), ("row_count", 705431), ("chunk_deals", 1 << 19), ("stored_bytes", 12346),
                        ("value_table", b"\0" * 9 + b"\1"), ("statistics", '{"counts":[2,1]}')):
        assert level_row_checksum(**{**cells, name: other}) != checksum, name
    # A cell of a type no build writes has no checksum at all (the row then fails its check).
    assert level_row_checksum(**{**cells, "n": "11"}) is None
    assert level_row_checksum(**{**cells, "value_table": "text"}) is None


def test_reprs():
    assert "complete=True" in repr(LevelRow(n=3, complete=True, row_count=20))
    assert "chunk=2" in repr(LevelChunkRow(n=9, chunk=2, start=128, stop=192))
    assert "le-her" in repr(SolvedGameRow(name="le-her", parameters='{"cards":3}'))
