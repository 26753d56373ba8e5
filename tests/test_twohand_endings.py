"""The table of two-hand endings (:mod:`whist_catalogue.twohand.endings`): its index against the positions it
stands for, its counts against Pólya's, its values against the search without it (the search itself is checked
against plain minimax and DDS by tests/test_twohand_solver.py and tests/test_twohand_dds.py), and the shipped
file against a build."""

from __future__ import annotations

import lzma
import os
import random
from itertools import permutations
from math import comb

import numpy as np
import pytest

from whist_catalogue.theory.deals import Notation, Suit, TwoHandDeal
from whist_catalogue.twohand import endings as module
from whist_catalogue.twohand.endings import (
    ENDINGS_FILE,
    MAX_ENDING_N,
    MAX_SUIT_CARDS,
    EndingTable,
    build_level,
    built_endings,
    encode_endings,
    ending_index,
    ending_value,
    endings,
    level_size,
    position_at,
    positions,
    shapes,
)
from whist_catalogue.twohand.solver import solve_many


def headers_only(k: int) -> np.ndarray:
    """A table's words holding level k's index and no values: for placing positions of a level not built."""
    return EndingTable.of_chunks({k: {}}).words


def suits_of(W: int, B: int) -> list[tuple[int, int]]:
    """(m, West's mask) of each suit of a position's layout, bottom suit first."""
    out = []
    starts = [i for i in range(64) if B >> i & 1]
    for lo, hi in zip(starts, starts[1:]):
        out.append((hi - lo, (W >> lo) & ((1 << (hi - lo)) - 1)))
    return out


def layout(suits: list[tuple[int, int]]) -> tuple[int, int]:
    """W and B of suits laid out bottom first."""
    W = B = at = 0
    for m, mask in suits:
        W |= mask << at
        B |= 1 << at
        at += m
    return W, B | 1 << at


def deal_of(W: int, B: int, tf: int) -> TwoHandDeal:
    """The two-hand deal of a position's layout: each suit's cards ranked 2, 3, … from its lowest."""
    suits = []
    for m, mask in suits_of(W, B):
        west = tuple(2 + i for i in range(m) if mask >> i & 1)
        east = tuple(2 + i for i in range(m) if not mask >> i & 1)
        suits.append(Suit(west, east, Notation.RANKS))
    return TwoHandDeal(tuple(suits), 0 if tf else None)


def test_positions_are_counted_alike_by_polya_and_by_the_index():
    """Pólya's count of the suit multisets is the index's size at every level the format holds.  Level 1 by
    hand: without trumps, one suit (West's card the higher or the lower) or two singletons (one position, in
    either order); with trumps, West's card or East's the trump: 5."""
    assert [positions(k) for k in (1, 2, 3)] == [5, 51, 380]
    for k in range(1, 16):
        assert level_size(k) == positions(k)
        assert len(shapes(k).keys) == len(set(shapes(k).keys.tolist()))
    assert positions(13) == 3_834_401_468


def test_every_ordered_position_has_a_place_and_every_place_one_class():
    """Every position of k ≤ 4 cards a hand, its suits in any order (West's cards, up to three cut points,
    the bottom suit trumps or not), has a place in level k, and the places are exactly 0 … positions(k) − 1 —
    so the index is a function of the position's class, and onto."""
    for k in range(1, 5):
        words = headers_only(k)
        seen = set()
        for west in range(1 << (2 * k)):
            if west.bit_count() != k:
                continue
            for cuts in range(1 << (2 * k - 1)):
                if cuts.bit_count() > 3:
                    continue
                B = 1 | (cuts << 1) | (1 << (2 * k))
                for tf in range(2):
                    seen.add(int(ending_index(np.uint64(west), np.uint64(B), tf, k, words)))
        assert seen == set(range(positions(k)))


def test_the_index_forgets_the_order_of_the_side_suits_and_a_lone_trump_suit():
    """A position and its side suits in every order have one place, at every level up to 13 (seeded
    positions); a lone trump suit has the place of that suit without trumps; a fifth suit or a suit of 14
    cards has none; and position_at inverts the index."""
    rng = random.Random(13)
    scratch = np.zeros(8, dtype=np.int64)
    for k in range(1, 14):
        words = headers_only(k)
        keys, offsets = shapes(k)
        picks = range(positions(k)) if k <= 5 else rng.sample(range(positions(k)), 300)
        for at in picks:
            W, B, tf = (int(x) for x in position_at(k, at, keys, offsets, scratch))
            assert ending_index(np.uint64(W), np.uint64(B), tf, k, words) == at
            suits = suits_of(W, B)
            trump, sides = (suits[:1], suits[1:]) if tf else ([], suits)
            for order in list(permutations(sides))[:6]:
                W2, B2 = layout(trump + list(order))
                assert ending_index(np.uint64(W2), np.uint64(B2), tf, k, words) == at
            if tf == 0 and len(sides) == 1:
                assert ending_index(np.uint64(W), np.uint64(B), 1, k, words) == at
    k = 7
    W, B = layout([(14, 0b10101010101010)])
    assert ending_index(np.uint64(W), np.uint64(B), 0, k, headers_only(k)) == -1
    W, B = layout([(2, 1), (2, 1), (2, 1), (2, 1), (6, 0b000111)])
    assert ending_index(np.uint64(W), np.uint64(B), 0, k, headers_only(k)) == -1


def every_position(k: int, sample: int | None = None, seed: int = 0) -> list[tuple[int, int, int]]:
    keys, offsets = shapes(k)
    scratch = np.zeros(8, dtype=np.int64)
    picks = range(positions(k)) if sample is None else random.Random(seed).sample(range(positions(k)), sample)
    return [tuple(int(x) for x in position_at(k, at, keys, offsets, scratch)) for at in picks]  # type: ignore[misc]


@pytest.mark.parametrize("k, sample", [(1, None), (2, None), (3, None), (4, None), (5, None), (6, None),
                                       (7, 1500), (MAX_ENDING_N, 1500)])
def test_the_table_is_what_the_search_finds_without_it(k, sample):
    """Every position of k ≤ 6 cards a hand (105,215 of them), and 1,500 seeded ones of 7 and of 8, with either
    side on lead: the table's West's tricks are the search's, searching without the table."""
    table = endings()
    found = every_position(k, sample, seed=k)
    deals = [deal_of(W, B, tf) for W, B, tf in found]
    for (W, B, tf), solution in zip(found, solve_many(deals, endings=False)):
        for lead in (0, 1):
            stored = ending_value(np.uint64(W), np.uint64(B), tf, lead, k, table.words)
            assert stored == solution.answers[lead].west_tricks, (solution.position.text(), lead)


def test_a_level_is_the_same_computed_in_ranges():
    """A level built in ranges that start at a word (a catalogue's chunks) is the level built whole."""
    below = endings()
    whole = build_level(6, below)
    size = level_size(6)
    parts = [build_level(6, below, start, min(size, start + 4096)) for start in range(0, size, 4096)]
    assert np.array_equal(np.concatenate(parts)[: len(whole)], whole)
    with pytest.raises(ValueError):
        build_level(6, below, 5, 100)
    with pytest.raises(ValueError):
        build_level(MAX_ENDING_N + 2, below)


def test_the_shipped_file_is_the_built_table():
    shipped = endings()
    built = built_endings()
    assert shipped.max_k == built.max_k == MAX_ENDING_N
    assert np.array_equal(shipped.words, built.words)
    with open(os.path.join(os.path.dirname(module.__file__), ENDINGS_FILE), "rb") as f:
        assert f.read() == encode_endings(built)
    for k in range(1, MAX_ENDING_N + 1):
        values = shipped.level(k)
        nibbles = np.stack([values & 15, values >> 4], axis=1).ravel()[: positions(k)]
        assert nibbles.min() == 0 and nibbles.max() == k
        assert not (np.stack([values & 15, values >> 4], axis=1).ravel()[positions(k):]).any()


def test_a_table_is_its_levels():
    table = EndingTable.of_levels([endings().level(k) for k in range(1, 5)])
    assert table.max_k == 4 and np.array_equal(table.level(4), endings().level(4))
    with pytest.raises(ValueError):
        EndingTable.of_levels([endings().level(2)])
    with pytest.raises(ValueError):
        table.level(5)
    assert ending_value(np.uint64(0b01), np.uint64(0b101), 0, 0, 1, EndingTable.of_levels([]).words) == -1


def test_a_file_that_is_not_the_table_is_built_again(tmp_path, monkeypatch):
    """A damaged or foreign file is not read as the table: the table is built instead."""
    fake = tmp_path / "twohand"
    fake.mkdir()
    (fake / ENDINGS_FILE).write_bytes(module._MAGIC + lzma.compress(b"\x00" * 16))
    monkeypatch.setattr(module, "__file__", str(fake / "endings.py"))
    endings.cache_clear()
    try:
        assert np.array_equal(endings().words, built_endings().words)
    finally:
        monkeypatch.undo()
        endings.cache_clear()

