"""The level store: chunks round-trip exactly, hold every value the engine computes, derive every record's
best moves and quantities, resume per chunk, and fail verify on one damaged byte, naming the chunk.

The full read-back to n ≤ 14 (about 2 minutes here):
``WHIST_LEVEL_STORE_CHECK_N=14 .venv/bin/python -m pytest tests/test_level_store.py -k every_value``.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from math import comb
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa
from catalogue_testing import JIT, build_catalogue, reference_records, run_cli

from whist_catalogue.engine.chunks import ChunkError, encode_chunk, pack_chunk, read_chunk
from whist_catalogue.engine.codes import ValueTable, encode
from whist_catalogue.engine.levels import EngineSolver, compute_moves, levels
from whist_catalogue.store.build import BuildProgress, build, build_steps
from whist_catalogue.store.derived import colex_ranks
from whist_catalogue.store.levels import read_level_values
from whist_catalogue.store.reader import open_catalogue
from whist_catalogue.theory import definition
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.ranking import level_masks, rank, unrank

REPO = Path(__file__).resolve().parents[1]
MAX_N = 10 if JIT else 7
"""Levels read back in the default run (n ≤ 10, 250,952 deals: a few seconds)."""
CHECK_N = int(os.environ.get("WHIST_LEVEL_STORE_CHECK_N", MAX_N))
TOP = 7 if JIT else 6
"""The records compared deal by deal with the reference (every deal of n ≤ 7)."""


@pytest.fixture(scope="module")
def chunked(tmp_path_factory) -> Path:
    """Levels 1…CHECK_N."""
    path = tmp_path_factory.mktemp("chunks") / "chunks.sqlite"
    return build_catalogue(path, CHECK_N, games=False)


# -- the codec ----------------------------------------------------------------------------------------------


def _values(rng: np.random.Generator, size: int, distinct: int) -> tuple[np.ndarray, np.ndarray]:
    numerators = np.sort(rng.choice(1 << 28, distinct, replace=False)).astype(np.int32)
    ranks = rng.integers(-5, 6, distinct).astype(np.int8)
    which = rng.integers(0, distinct, size)
    return numerators[which], ranks[which]


@pytest.mark.parametrize("distinct", [1, 200, 256, 257, 3000])
def test_a_chunk_decodes_to_exactly_what_was_encoded(distinct):
    rng = np.random.default_rng(distinct)
    numerator, infinitesimal = _values(rng, 5000, distinct)
    flags = (rng.random(5000) < 0.01).astype(np.uint8) * 32
    data = encode_chunk(12, 1000, 6000, numerator, infinitesimal, flags)
    chunk = read_chunk(data)
    assert (chunk.n, chunk.start, chunk.stop) == (12, 1000, 6000)
    assert chunk.codes.dtype == (np.uint8 if len(chunk.table) <= 256 else np.uint16)
    assert np.array_equal(chunk.numerator, numerator) and np.array_equal(chunk.infinitesimal, infinitesimal)
    assert np.array_equal(chunk.flags, flags)
    keys = chunk.table.keys()
    assert np.all(np.diff(keys) > 0), "the table is in V's order, without repeats"
    codes, table = encode(numerator, infinitesimal)  # the engine's encoder: the same chunk
    assert pack_chunk(12, 1000, codes, table, flags) == data


def test_a_damaged_or_truncated_chunk_is_refused():
    rng = np.random.default_rng(0)
    data = encode_chunk(9, 0, 3000, *_values(rng, 3000, 40))
    for i in (0, 5, 40, len(data) // 2, len(data) - 1):
        damaged = bytearray(data)
        damaged[i] ^= 0x01
        with pytest.raises(ChunkError):
            read_chunk(bytes(damaged))
    with pytest.raises(ChunkError):
        read_chunk(data[:-3])
    with pytest.raises(ChunkError):
        read_chunk(data[:10])
    with pytest.raises(ValueError):
        encode_chunk(9, 0, 3, np.zeros(4, np.int32), np.zeros(4, np.int8))


# -- read back -------------------------------------------------------------------------------------------


def test_every_value_of_every_deal_reads_back_equal_to_the_engine(chunked):
    """Every deal with n ≤ CHECK_N (10 by default), from the chunks, by level and by look-up, against the engine."""
    engine = sa.create_engine(f"sqlite:///{chunked}")
    with open_catalogue(chunked) as cat, engine.connect() as connection:
        for level in levels(CHECK_N, checks=True):
            n = level.n
            codes, table, flags = read_level_values(connection, n)
            assert np.array_equal(table.numerator[codes], level.numerator), n
            assert np.array_equal(table.infinitesimal[codes], level.infinitesimal), n
            assert np.array_equal(flags, level.flags & 0b111111), n
            expected_numerator, expected_infinitesimal = level.numerator, level.infinitesimal
            for start in range(0, len(level), 1 << 18):  # slices: colex_ranks takes 2n words a mask
                stop = min(len(level), start + (1 << 18))
                ranks = np.arange(start, stop, dtype=np.int64)
                numerator, infinitesimal = cat.values_at(n, ranks)
                assert np.array_equal(numerator, expected_numerator[start:stop]), (n, start)
                assert np.array_equal(infinitesimal, expected_infinitesimal[start:stop]), (n, start)
                assert np.array_equal(colex_ranks(level_masks(n, start, stop), 2 * n), ranks)
            assert cat.value_counts(n) == level.value_counts()
    engine.dispose()


def test_derived_records_equal_the_reference_and_the_definition(chunked):
    """Every record of n ≤ 7, derived from the chunks (values, α from level n − 1, the fields' kernels), equals
    the reference made without the catalogue, one look-up at a time and in batches."""
    reference = reference_records(TOP)
    with open_catalogue(chunked) as cat:
        assert [cat.record(r.deal) for r in reference[:: 7]] == reference[:: 7]
        assert cat.records([r.deal for r in reference]) == reference
        for n in range(1, min(TOP, 6) + 1):
            deal = Deal(n, unrank(n, comb(2 * n, n) // 3))
            assert cat.solve(deal) == definition.solve(deal)


def test_a_batch_of_look_ups_equals_one_look_up_at_a_time(chunked):
    """``solve_many`` derives each level's deals in whole-array steps: the same solutions as the engine gives deal
    by deal, in the order asked, and None for a level the catalogue lacks."""
    rng = np.random.default_rng(11)
    engine = EngineSolver(TOP + 1)
    with open_catalogue(chunked) as cat:
        top = min(cat.max_n, TOP)
        deals = [Deal(n, unrank(n, int(rng.integers(comb(2 * n, n))))) for n in rng.integers(1, top + 1, 300).tolist()]
        deals.insert(100, Deal(cat.max_n + 1, unrank(cat.max_n + 1, 5)))
        found = cat.solve_many(deals)
        assert found[100] is None
        del found[100], deals[100]
        assert found == [engine.solve(d) for d in deals]
        assert found == [cat.solve(d) for d in deals]
        assert {d.n for d in deals} == set(range(1, top + 1))  # every level, several deals each


def test_derived_best_moves_equal_the_engines_moves_kernel(chunked):
    """Best moves from α over level n−1's chunks against the engine's own moves kernel (400 deals a level, as
    one batch, and the first ten one look-up at a time)."""
    top = min(CHECK_N, 9 if JIT else 6)
    previous = None
    rng = np.random.default_rng(7)
    with open_catalogue(chunked) as cat:
        for level in levels(top):
            if previous is not None:
                moves = compute_moves(level.n, previous)
                ranks = rng.choice(len(level), min(400, len(level)), replace=False).tolist()
                records = cat.records([Deal(level.n, unrank(level.n, r)) for r in ranks])
                assert [cat.record(r.deal) for r in records[:10]] == records[:10]
                for r, record in zip(ranks, records):
                    assert record.move_masks == tuple(int(m) for m in moves[r]), (level.n, r)
            previous = level


def test_a_search_says_which_levels_it_covered(chunked):
    chunks = chunked
    top = max(open_catalogue(chunks).complete_levels())
    code, out, err = run_cli("search", "--count", f"n = {top + 2}", "--db", str(chunks))
    assert code == 0 and out == "0\n"
    assert f"level {top + 2} is not in the catalogue" in err and "searched no level" in err
    code, out, err = run_cli("search", "--count", "frac = 3/8", "--db", str(chunks), "--json")
    assert json.loads(out)["levels"] == list(range(1, top + 1)) and json.loads(out)["missing_levels"] == []
    code, out, err = run_cli("search", "--count", f"n >= {top}", "--db", str(chunks))
    assert err.startswith(f"searched levels {top}; levels {top + 1}–18 are not in the catalogue (whist-catalogue"
                          " build --max-n 18 adds them); levels 19–30 lie beyond every catalogue")


# -- build: resumable per chunk, atomic, progress ----------------------------------------------------------------


def test_a_cancelled_build_keeps_its_chunks_and_resumes_past_them(tmp_path, monkeypatch):
    monkeypatch.setattr("whist_catalogue.store.build.CHUNK_DEALS", 1000)
    path = tmp_path / "c.sqlite"
    top = 8 if JIT else 6  # level 8: 12,870 deals in 13 chunks of 1,000
    steps = build_steps(path, top, games=False)
    events: list[BuildProgress] = []
    for event in steps:
        events.append(event)
        if event.stage == "compute" and event.n == top and event.done >= 5000:
            break
    steps.close()
    assert [e.n for e in events if e.stage == "load"] == [0, 0]
    with open_catalogue(path) as cat:
        assert cat.complete_levels() == frozenset(range(1, top))
    with sqlite3.connect(path) as conn:
        kept = conn.execute("SELECT count(*) FROM level_chunk WHERE n = ?", (top,)).fetchone()[0]
    conn.close()
    assert kept == 5

    computed: list[int] = []

    def counting(n, previous, indexes):  # noqa: ANN001
        from whist_catalogue.store.build import local_chunks

        computed.extend(indexes)
        yield from local_chunks(n, previous, indexes)

    events = []
    summary = build(path, top, games=False, compute_chunks=counting, progress=events.append)
    assert summary.stored == [top] and computed == list(range(5, -(-comb(2 * top, top) // 1000)))
    assert [(e.n, e.message) for e in events if e.stage == "load"][0] == (top - 1, f"reading level {top - 1} back from the catalogue")
    compute = [e for e in events if e.stage == "compute"]
    assert compute[0].done == 5000 and compute[-1].done == compute[-1].total == comb(2 * top, top)
    code, out, _ = run_cli("verify", "--db", str(path), "--sample", "2", "--recursive-max-n", "6")
    assert code == 0 and out.startswith("verify OK"), out


# -- verify ---------------------------------------------------------------------------------------------------


def test_one_damaged_byte_of_one_chunk_fails_verify_and_names_the_chunk(chunked, tmp_path):
    path = tmp_path / "damaged.sqlite"
    path.write_bytes(chunked.read_bytes())
    n = min(CHECK_N, 7)
    code, out, _ = run_cli("verify", "--db", str(path), "--sample", "1", "--recursive-max-n", "6")
    assert code == 0 and out.startswith("verify OK"), out
    with sqlite3.connect(path) as conn:
        data = bytearray(conn.execute("SELECT data FROM level_chunk WHERE n = ? AND chunk = 0", (n,)).fetchone()[0])
        data[len(data) // 2] ^= 0x10
        conn.execute("UPDATE level_chunk SET data = ? WHERE n = ? AND chunk = 0", (bytes(data), n))
    conn.close()
    code, out, _ = run_cli("verify", "--db", str(path), "--sample", "0", "--json")
    report = json.loads(out)
    assert code == 1 and not report["ok"]
    assert any(p.startswith(f"level {n} chunk 0 (ranks 0…") and "checksum differs" in p for p in report["problems"])
    assert all(f"level {n} " in p for p in report["problems"]), "only the damaged level fails"
    with open_catalogue(path) as cat:  # a look-up of the damaged chunk is one clear error, not a wrong value
        with pytest.raises(Exception, match=f"level {n} chunk 0"):
            cat.record(Deal(n, unrank(n, 0)))


@pytest.mark.parametrize("recursive_max_n", [6, 4])
def test_verify_recomputes_a_sample_by_the_definition(chunked, tmp_path, recursive_max_n):
    """Level 6 rewritten with every value off by 1/4, its checksums, table and statistics forged to match: only the
    recomputed sample can tell — by the recursive definition, or by one step of it from level 5's chunks."""
    from whist_catalogue.store.levels import chunk_checksum, level_row_checksum, table_from_bytes, table_to_bytes

    path = tmp_path / "forged.sqlite"
    path.write_bytes(chunked.read_bytes())
    n, quarter = 6, 1 << 22
    with sqlite3.connect(path) as conn:
        data = conn.execute("SELECT data FROM level_chunk WHERE n = ?", (n,)).fetchone()[0]
        chunk = read_chunk(data)
        forged = encode_chunk(n, chunk.start, chunk.stop, chunk.numerator + quarter, chunk.infinitesimal, chunk.flags)
        conn.execute("UPDATE level_chunk SET data = ?, checksum = ? WHERE n = ?", (forged, chunk_checksum(forged), n))
        table = table_from_bytes(conn.execute("SELECT value_table FROM level WHERE n = ?", (n,)).fetchone()[0])
        shifted = table_to_bytes(ValueTable(table.numerator + quarter, table.infinitesimal))
        row = conn.execute("SELECT row_count, chunk_deals, statistics FROM level WHERE n = ?", (n,)).fetchone()
        checksum = level_row_checksum(n, row[0], row[1], len(forged), shifted, row[2])
        conn.execute("UPDATE level SET value_table = ?, stored_bytes = ?, checksum = ? WHERE n = ?",
                     (shifted, len(forged), checksum, n))
    conn.close()
    code, out, _ = run_cli("verify", "--db", str(path), "--sample", "2", "--recursive-max-n", str(recursive_max_n),
                           "--json")
    report = json.loads(out)
    assert code == 1, out
    assert any(p.startswith(f"level {n}: deal ") for p in report["problems"])
    # Level 7, recomputed in one step from level 6 as stored, disagrees too (or cannot be valued from it at all):
    # every problem is a recomputation.
    assert all(re.match(r"level [67]: deal \w+ (has .* in its chunk, recomputed |cannot be recomputed from level 6)", p)
               for p in report["problems"]), report["problems"]


# -- the documentation's decoder -------------------------------------------------------------------------------


def test_the_ten_line_decoder_of_the_docs_reads_a_chunk(chunked, tmp_path, monkeypatch):
    text = (REPO / "docs" / "level-store.md").read_text()
    code = re.search(r"### Decoding a chunk in ten lines of Python\n\n```python\n(.*?)```", text, re.S).group(1)
    assert len([line for line in code.splitlines() if line.strip()]) <= 14
    n = min(CHECK_N, 8)
    code = code.replace('"catalogue.sqlite"', repr(str(chunked))).replace("n = 16", f"n = {n}")
    printed: list[tuple] = []
    exec(compile(code, "level-store.md", "exec"), {"print": lambda *a: printed.append(a)})
    (number, rank_), = printed
    with open_catalogue(chunked) as cat:
        value = cat.value(Deal(n, unrank(n, 0)))
    assert number == value.number and int(rank_) == value.infinitesimal.rank
    assert rank(unrank(n, 0)) == 0


def test_the_app_and_the_command_line_size_a_catalogue_in_the_same_units():
    from whist_catalogue.gui.status import human_size

    for size in (546_800_000, 35_995_648, 1_600_000_000):
        cli = f"{size / 1e6:.1f} MB"  # the build summary's figure
        shown = human_size(size)
        value, unit = shown.split()
        factor = {"kB": 1e3, "MB": 1e6, "GB": 1e9}[unit]
        assert abs(float(value.replace(",", "")) * factor - float(cli.split()[0]) * 1e6) <= 0.05 * factor
    assert human_size(546_800_000) == "546.8 MB"


def test_postgresql_holds_the_level_store_as_sqlite_does(chunked):
    from catalogue_testing import postgres_server

    chunks = chunked
    with postgres_server() as url:
        top = min(max(open_catalogue(chunks).complete_levels()), TOP)
        build(url, top, games=False)
        with open_catalogue(url) as pg, open_catalogue(chunks) as lite:
            # The same chunks and the same rows: the checksums a reader checks are equal byte for byte.
            assert [(i.n, i.checksum) for i in pg.levels()] == [(i.n, i.checksum) for i in lite.levels()][:top]
            for expression in ("frac = 3/8", "h = 1 and ace = W", "holdup", f"n = {top}"):
                assert pg.count(expression) == lite.count(f"({expression}) and n <= {top}"), expression
            rng = np.random.default_rng(3)
            for r in rng.choice(comb(2 * top, top), 50, replace=False).tolist():
                deal = Deal(top, unrank(top, r))
                assert pg.record(deal) == lite.record(deal)
            assert pg.statistics(top).to_json() == lite.statistics(top).to_json()
        code, out, _ = run_cli("verify", "--db", url, "--sample", "2")
        # (a note may come first: the throw-away server has no amcheck extension to check indexes with)
        assert code == 0 and out.splitlines()[-1].startswith("verify OK"), out
