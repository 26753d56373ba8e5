"""The search over the level store's chunks: its own tree (no library's internals), the per-deal quantities it
computes a chunk at a time (checked against the build's kernel and the paper's formulas), every field against a
Python reference over every deal, and the command line's answers for searches that match nothing."""

from __future__ import annotations

from fractions import Fraction
from math import comb
from pathlib import Path

import numpy as np
import pytest
from catalogue_testing import JIT, build_catalogue, reference_records, run_cli

import whist_catalogue.store.build as store_build
from whist_catalogue.constants import CHECK_NAMES
from whist_catalogue.single_suit.formulas import level_quantities
from whist_catalogue.single_suit.kernels import (chunk_quantities_kernel, chunk_quantities_tables_kernel,
                                                  step_tables)
from whist_catalogue.store.fields import FIELDS, DealColumns
from whist_catalogue.store.reader import open_catalogue
from whist_catalogue.store.search import (FALSE, MAX_DEPTH, UNKNOWN, VALUE_COLUMNS, Column, columns_of,
                                          compile_search, condition_of, evaluate, levels_asked, narrowing_hint)
from whist_catalogue.theory.ranking import level_masks

TOP = 7 if JIT else 6


@pytest.fixture(scope="module")
def chunks(tmp_path_factory) -> Path:
    """Levels 1…TOP in chunks of 100 deals (level 7: 35 chunks)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store_build, "CHUNK_DEALS", 100)
        return build_catalogue(tmp_path_factory.mktemp("chunks") / "chunks.sqlite", TOP, games=False)


@pytest.fixture(scope="module")
def records() -> list:
    return reference_records(TOP)


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


def test_every_fields_array_kernel_equals_the_reference(chunks, records):
    """Every field a search reads, computed by its kernel for a whole chunk, alone and together with the others,
    equals the reference's value deal by deal (values by the engine, quantities by the paper's formulas)."""
    by_key = {r.key: r for r in records}
    expected = {
        "key": lambda r: r.key, "n": lambda r: r.n, "number_scaled": lambda r: int(r.value.number * (1 << 24)),
        "fraction_scaled": lambda r: int((r.value.number % 1) * (1 << 24)),
        "numerator": lambda r: r.value.number.numerator, "denominator": lambda r: r.value.number.denominator,
        "inf_sign": lambda r: r.value.infinitesimal.sign, "stoppers": lambda r: abs(r.value.infinitesimal.index),
        "west_leads": lambda r: r.outcome.west_leads, "east_leads": lambda r: r.outcome.east_leads,
        "h_lower": lambda r: r.h_lower, "h_upper": lambda r: r.h_upper, "h": lambda r: r.h,
        "greedy_west_leads": lambda r: r.greedy.west_leads, "greedy_east_leads": lambda r: r.greedy.east_leads,
        "five_card_west_leads": lambda r: r.five_card[0] == "W", "five_card_east_leads": lambda r: r.five_card[1] == "W",
        "ace": lambda r: r.ace == "W", "flags": lambda r: r.flags,
        **{f"counterexample_{c}": (lambda r, c=c: c in r.counterexamples) for c in CHECK_NAMES},
    }
    searched = {f.name for f in FIELDS.values() if f.search not in (None, "pair", "value", "infinitesimal", "flag")}
    assert searched <= set(expected), searched - set(expected)
    with open_catalogue(chunks) as cat:
        for chunk in list(cat.scan_chunks(TOP))[16:18] + list(cat.scan_chunks(3)):
            keys = DealColumns(chunk)["key"].tolist()
            together = DealColumns(chunk)
            for name, want in expected.items():
                alone = DealColumns(chunk)[name]
                assert alone.tolist() == [want(by_key[k]) for k in keys], (chunk.n, name)
                assert np.array_equal(together[name], alone), name
    with pytest.raises(ValueError, match="no per-deal array named 'outcome'"):
        DealColumns(chunk)["outcome"]


# -- the tree the chunks are searched by ---------------------------------------------------------------------


def test_the_compiled_condition_is_the_languages_own_tree():
    """Conditions over NumPy columns are evaluated from the compiler's own node classes: no SQLAlchemy object
    is involved (so no SQLAlchemy upgrade can change what a search over chunks means)."""
    condition = compile_search("n = 3 and (h = 1 or ace = W) and number * 2 >= 3")
    stack = [condition]
    while stack:
        node = stack.pop()
        assert type(node).__module__ == "whist_catalogue.store.search.ir", node
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
    assert levels_asked(compile_search("n = 16 and h = 1")) == [16]
    assert levels_asked(compile_search("-n = -1")) == [1]
    assert levels_asked(compile_search("n > 28 or key < 0")) == list(range(1, 31))
    assert compile_search("value = 1/3") == FALSE and levels_asked(FALSE) == []
    assert evaluate(Column("h"), lambda name: UNKNOWN) is UNKNOWN


@pytest.mark.parametrize("depth", [MAX_DEPTH - 2])
def test_deep_nesting_within_the_limit_searches_chunks(chunks, records, depth):
    """58 nested not (and as many parentheses) compile, and run over chunks."""
    with open_catalogue(chunks) as cat:
        for expression in ("not " * depth + "h = 1", "(" * depth + "h = 1" + ")" * depth):
            assert cat.count(expression) == sum(r.h == 1 for r in records) > 0, expression[:12]


# -- every field over chunks equals a Python reference ------------------------------------------------------

EXPRESSIONS = [
    ("h = 1", lambda r: r.h == 1), ("h_upper = 2", lambda r: r.h_upper == 2), ("h_lower = -1", lambda r: r.h_lower == -1),
    ("greedy = (3, 4)", lambda r: tuple(r.greedy) == (3, 4)),
    ("greedy_west_leads = 2", lambda r: r.greedy.west_leads == 2),
    ("greedy_east_leads > 3", lambda r: r.greedy.east_leads > 3),
    ("greedy != outcome", lambda r: r.greedy != r.outcome), ("five_card = (W, E)", lambda r: r.five_card == ("W", "E")),
    ("five_card_west_leads = E", lambda r: r.five_card[0] == "E"),
    ("five_card_east_leads = W", lambda r: r.five_card[1] == "W"),
    ("five_card_west_leads = five_card_east_leads", lambda r: r.five_card[0] == r.five_card[1]),
    ("ace = E", lambda r: r.ace == "E"), ("key >= 5000 and h = 0", lambda r: r.key >= 5000 and r.h == 0),
    ("holdup", lambda r: "conjecture_12_4_labeled" in r.counterexamples), ("flags != 0", lambda r: r.flags != 0),
    ("counterexample(12.2)", lambda r: "conjecture_12_2" in r.counterexamples),
    ("value = 3+3/8 and h = 1", lambda r: r.value.text() == "3 + 3/8" and r.h == 1),
    ("number * 2 + 1 > h", lambda r: r.value.number * 2 + 1 > r.h), ("-n = -1", lambda r: r.n == 1),
    ("value = 1/3", lambda r: False), ("not (h = 1 or ace = W)", lambda r: not (r.h == 1 or r.ace == "W")),
    ("frac in (3/8, 5/8) and ace = W", lambda r: r.value.number % 1 in (Fraction(3, 8), Fraction(5, 8))
     and r.ace == "W"),
    ("class(dyadic) and greedy_west_leads != west_leads", lambda r: r.value.infinitesimal.is_zero
     and r.value.number.denominator > 2 and r.greedy.west_leads != r.outcome.west_leads),
    ("h - h_lower >= 2", lambda r: r.h - r.h_lower >= 2),
    ("stoppers >= 1 and five_card_west_leads = W", lambda r: abs(r.value.infinitesimal.index) >= 1
     and r.five_card[0] == "W"),
]


def test_every_field_over_chunks_equals_the_reference(chunks, records):
    with open_catalogue(chunks) as cat:
        for expression, predicate in EXPRESSIONS:
            expected = [r.key for r in records if predicate(r)]
            assert cat.count(expression) == len(expected), expression
            assert [r.key for r in cat.search(expression, offset=3, limit=40)] == expected[3:43], expression


def test_a_count_reports_progress_per_chunk(chunks):
    seen: list[tuple[int, int, int]] = []
    with open_catalogue(chunks) as cat:
        cat.count("h = 1", progress=lambda n, done, total: seen.append((n, done, total)))
        assert (TOP, comb(2 * TOP, TOP), comb(2 * TOP, TOP)) in seen
        assert {n for n, _, _ in seen} == set(range(1, TOP + 1))
        assert sum(1 for n, _, _ in seen if n == TOP) == 1 + -(-comb(2 * TOP, TOP) // 100)  # 0, then each chunk
        seen.clear()
        cat.count("frac = 3/8", progress=lambda n, done, total: seen.append((n, done, total)))
        assert seen == []  # the value alone: the level's stored counts, at once


def test_a_listing_streams_matches_in_key_order(chunks):
    with open_catalogue(chunks) as cat:
        everything = [r.key for r in cat.search("h = 1 and ace = W")]
        assert everything == sorted(everything) and len(everything) > 40
        with cat.iter_search("h = 1 and ace = W", offset=5) as stream:
            first = [next(stream).key for _ in range(3)]
        assert first == everything[5:8]
        # The per-deal fields it reads, the only ones DealColumns computes for it.
        assert columns_of(condition_of("h = 1 and ace = W")) - VALUE_COLUMNS == {"ace", "h"}


# -- what the command line says ---------------------------------------------------------------------------------


def test_searches_no_deal_can_match_say_so(chunks):
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
