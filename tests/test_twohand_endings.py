"""The table of small endings (:mod:`whist_catalogue.twohand.endings`): the shipped file is what the retrograde
analysis builds, and every ending has its own place in it.  Its values are checked against plain minimax by
tests/test_twohand_solver.py, which solves every deal of up to 4 cards a hand and random deals of up to 6
through the table and without it."""

from __future__ import annotations

import lzma
import os
from math import comb

import numpy as np

from whist_catalogue.twohand import endings as module
from whist_catalogue.twohand.endings import (
    ENDINGS_FILE,
    MAX_ENDING_N,
    MAX_ENDING_SUITS,
    OFFSETS,
    built_endings,
    encode_endings,
    ending_index,
    endings,
)


def test_the_shipped_file_is_the_built_table():
    shipped = endings()
    built = built_endings()
    assert shipped.dtype == np.int8 and shipped.shape == built.shape == (int(OFFSETS[-1]),)
    assert np.array_equal(shipped, built)
    with open(os.path.join(os.path.dirname(module.__file__), ENDINGS_FILE), "rb") as f:
        assert f.read() == encode_endings(built)


def test_every_ending_has_its_own_place():
    """Every ending of k ≤ 4 cards a hand with West on lead (West's cards, cut points, trumps) gets a distinct
    index in its k's range, and the range holds exactly them."""
    for k in range(1, 5):
        seen = set()
        for west in range(1 << (2 * k)):
            if west.bit_count() != k:
                continue
            for cuts in range(1 << (2 * k - 1)):
                if cuts.bit_count() >= MAX_ENDING_SUITS:
                    continue
                starts = 1 | (cuts << 1) | (1 << (2 * k))
                for tf in range(2):
                    seen.add(int(ending_index(np.uint64(west), np.uint64(starts), tf, k)))
        size = comb(2 * k, k) * sum(comb(2 * k - 1, c) for c in range(MAX_ENDING_SUITS)) * 2
        assert seen == set(range(int(OFFSETS[k]), int(OFFSETS[k]) + size))


def test_the_values_are_tricks_of_their_ending():
    table = endings()
    for k in range(1, MAX_ENDING_N + 1):
        part = table[OFFSETS[k]:OFFSETS[k + 1]]
        assert part.min() == 0 and part.max() == k


def test_a_file_that_is_not_the_table_is_built_again(tmp_path, monkeypatch):
    """A damaged or foreign file is not read as the table: the table is built instead."""
    fake = tmp_path / "twohand"
    fake.mkdir()
    (fake / ENDINGS_FILE).write_bytes(b"WHIST-TWO-HAND-ENDINGS-2\n" + lzma.compress(b"\x00" * 10))
    monkeypatch.setattr(module, "__file__", str(fake / "endings.py"))
    endings.cache_clear()
    try:
        assert np.array_equal(endings(), built_endings())
    finally:
        monkeypatch.undo()
        endings.cache_clear()
