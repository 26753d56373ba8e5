"""The search over levels held as chunks: its own tree (no SQLAlchemy internals), the per-deal quantities it
computes a chunk at a time (checked against the build's kernel), every field against SQL on the same levels,
and the command line's answers for searches that match nothing."""

from __future__ import annotations

from math import comb
from pathlib import Path

import numpy as np
import pytest
from catalogue_testing import JIT, build_catalogue, run_cli

from whist_catalogue.single_suit.formulas import level_quantities
from whist_catalogue.single_suit.kernels import (chunk_quantities_kernel, chunk_quantities_tables_kernel,
                                                  step_tables)
from whist_catalogue.store.levels import chunk_columns, deal_columns, value_columns
from whist_catalogue.store.reader import open_catalogue
from whist_catalogue.store.search import (FALSE, MAX_DEPTH, UNKNOWN, ChunkQuery, Column, compile_condition,
                                          evaluate, levels_asked, narrowing_hint)
from whist_catalogue.theory.ranking import level_masks

TOP = 7 if JIT else 6


@pytest.fixture(scope="module")
def both(tmp_path_factory) -> tuple[Path, Path]:
    """Levels 1…TOP as rows (SQL searches them), and as chunks alone above n = 2."""
    base = tmp_path_factory.mktemp("both")
    rows = build_catalogue(base / "rows.sqlite", TOP, games=False, rows_max_n=TOP)
    chunks = build_catalogue(base / "chunks.sqlite", TOP, games=False, rows_max_n=2)
    return rows, chunks


# -- the per-deal quantities -----------------------------------------------------------------------------


def _kernel(n: int, masks: np.ndarray, depth: int, tables: bool) -> tuple[np.ndarray, ...]:
    size = masks.shape[0]
    out = tuple(np.full(size, 99, np.int8) for _ in range(4))
    if tables:
        chunk_quantities_tables_kernel(masks, n, depth, *step_tables(n, n), n, *out)
    else:
        chunk_quantities_kernel(masks, n, depth, *out)
    return out


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8] + ([9, 16] if JIT else []))
def test_the_search_kernel_equals_the_builds_kernel(n):
    """T_k from the histogram of the steps' upper ends, card by card or from the two halves' tables, gives
    level_kernel's H̲, H̄, H and Five-card winners."""
    size = comb(2 * n, n)
    if size <= 50_000:
        masks = level_masks(n)
    else:  # a stretch of the level's start, middle and end
        masks = np.concatenate([level_masks(n, start, min(size, start + 20_000))
                                for start in (0, size // 2, size - 20_000)])
    q = level_quantities(n, masks)
    for depth, tables in ((0, False), (1, False), (2, False), (0, True), (1, True), (2, True)):
        h_lower, h_upper, h, t0 = _kernel(n, masks, depth, tables)
        assert np.array_equal(t0 >= 0, q.five_card_west_wins_west_leads), depth
        assert np.array_equal(t0 > 0, q.five_card_west_wins_east_leads), depth
        if depth >= 1:
            assert np.array_equal(h_lower, q.h_lower) and np.array_equal(h_upper, q.h_upper), depth
        if depth == 2:
            assert np.array_equal(h, q.h)


def test_chunk_columns_equal_the_rows_columns(both):
    """Every column chunk_columns gives, field by field and alone, equals the build's columns of the rows."""
    _, chunks = both
    with open_catalogue(chunks) as cat:
        chunk = next(iter(cat.scan_chunks(TOP)))
    masks = level_masks(TOP, chunk.start, chunk.stop)
    expected = {**{k: v[chunk.codes] for k, v in value_columns(chunk.table.numerator,
                                                              chunk.table.infinitesimal).items()},
                **deal_columns(TOP, masks), "flags": chunk.flags}
    for name, column in expected.items():
        got = chunk_columns(chunk, [name])
        assert set(got) == {name}
        if column.dtype.kind == "U":  # players: True for West
            column = column == "W"
        assert np.array_equal(got[name], column), name
    together = chunk_columns(chunk, list(expected))
    assert all(np.array_equal(together[k], chunk_columns(chunk, [k])[k]) for k in expected)
    with pytest.raises(ValueError, match="no deal column"):
        chunk_columns(chunk, ["label"])


# -- the tree the chunks are searched by ---------------------------------------------------------------------


def test_the_compiled_condition_is_the_languages_own_tree():
    """Conditions over NumPy columns are evaluated from the compiler's own node classes: no SQLAlchemy object
    is involved (so no SQLAlchemy upgrade can change what a search over chunks means)."""
    condition = compile_condition("n = 3 and (h = 1 or ace = W) and number * 2 >= 3")
    stack = [condition]
    while stack:
        node = stack.pop()
        assert type(node).__module__ == "whist_catalogue.store.search", node
        stack.extend(getattr(node, "args", ()) + tuple(getattr(node, a) for a in ("left", "right")
                                                       if hasattr(node, a)))
    h = np.array([1, 0, 1, 2])
    ace = np.array(["W", "E", "E", "W"])
    number = np.array([3, 1, 0, 2]) << 24
    columns = {"n": 3, "h": h, "ace": ace, "number_scaled": number}
    got = evaluate(condition, columns.__getitem__)
    assert got.tolist() == [True, False, False, True]
    assert evaluate(condition, {**columns, "n": 4}.__getitem__) is False


def test_levels_asked_are_decided_without_the_deals():
    assert levels_asked(compile_condition("n = 16 and h = 1")) == [16]
    assert levels_asked(compile_condition("-n = -1")) == [1]
    assert levels_asked(compile_condition("n > 28 or key < 0")) == list(range(1, 31))
    assert compile_condition("value = 1/3") == FALSE and levels_asked(FALSE) == []
    assert evaluate(Column("h"), lambda name: UNKNOWN) is UNKNOWN


@pytest.mark.parametrize("depth", [MAX_DEPTH - 2])
def test_deep_nesting_within_the_limit_searches_chunks(both, depth):
    """58 nested not (and as many parentheses) compile, and run over chunks and SQL alike."""
    rows, chunks = both
    with open_catalogue(rows) as a, open_catalogue(chunks) as b:
        for expression in ("not " * depth + "h = 1", "(" * depth + "h = 1" + ")" * depth):
            assert b.count(expression) == a.count(expression) > 0, expression[:12]


# -- every field over chunks equals SQL over rows -----------------------------------------------------------

EXPRESSIONS = [
    "h = 1", "h_upper = 2", "h_lower = -1", "greedy = (3, 4)", "greedy_west_leads = 2", "greedy_east_leads > 3",
    "greedy != outcome", "five_card = (W, E)", "five_card_west_leads = E", "five_card_east_leads = W",
    "five_card_west_leads = five_card_east_leads", "ace = E", "key >= 5000 and h = 0", "holdup", "flags != 0",
    "counterexample(12.2)", "value = 3+3/8 and h = 1", "number * 2 + 1 > h", "-n = -1", "value = 1/3",
    "not (h = 1 or ace = W)", "frac in (3/8, 5/8) and ace = W", "class(dyadic) and greedy_west_leads != west_leads",
    "h - h_lower >= 2", "stoppers >= 1 and five_card_west_leads = W",
]


def test_every_field_over_chunks_equals_sql_over_rows(both):
    rows, chunks = both
    with open_catalogue(rows) as a, open_catalogue(chunks) as b:
        for expression in EXPRESSIONS:
            assert b.count(expression) == a.count(expression), expression
            left = [r.key for r in a.search(expression, offset=3, limit=40)]
            assert [r.key for r in b.search(expression, offset=3, limit=40)] == left, expression


def test_a_count_reports_progress_per_chunk(both):
    _, chunks = both
    seen: list[tuple[int, int, int]] = []
    with open_catalogue(chunks) as cat:
        cat.count("h = 1", progress=lambda n, done, total: seen.append((n, done, total)))
        assert (TOP, comb(2 * TOP, TOP), comb(2 * TOP, TOP)) in seen
        assert {n for n, _, _ in seen} == set(range(3, TOP + 1))
        seen.clear()
        cat.count("frac = 3/8", progress=lambda n, done, total: seen.append((n, done, total)))
        assert seen == []  # the value alone: the level's stored counts, at once


def test_a_listing_streams_matches_in_key_order(both):
    _, chunks = both
    with open_catalogue(chunks) as cat:
        everything = [r.key for r in cat.search("h = 1 and ace = W")]
        assert everything == sorted(everything) and len(everything) > 40
        with cat.iter_search("h = 1 and ace = W", offset=5) as stream:
            first = [next(stream).key for _ in range(3)]
        assert first == everything[5:8]
        assert ChunkQuery("h = 1 and ace = W").deal_fields == ["ace", "h"]


# -- what the command line says ---------------------------------------------------------------------------------


def test_searches_no_deal_can_match_say_so(both):
    _, chunks = both
    code, out, err = run_cli("search", "value = 1/3", "--db", str(chunks))
    assert code == 0 and out == "" and err == "0 matched: no deal of any level can match this search\n"
    code, out, err = run_cli("search", "--count", "value = 1/3", "--db", str(chunks))
    assert code == 0 and out == "0\n" and "no deal of any level can match" in err
    code, out, err = run_cli("search", "--count", "--db", str(chunks), "--", "-n = -1")
    assert code == 0 and out == "2\n" and err == "searched levels 1\n"


def test_the_narrowing_hint_fits_the_search():
    assert narrowing_hint("n = 14") == "add a condition, such as h = 1 or frac = 3/8"
    assert narrowing_hint("frac = 3/8") == "add n = 10"
    assert narrowing_hint("n >= 12") == "add n = 12"
