"""Value codes (engine/codes.py) against the obvious: np.unique over the exact encoding, and V's own order."""

import numpy as np
import pytest

from whist_catalogue.engine.codes import MAX_CODES, Encoder, ValueTable, encode, remap, union
from whist_catalogue.engine.encoding import decode_value
from whist_catalogue.engine.levels import Level, levels


@pytest.fixture(scope="module")
def level9():
    return list(levels(9))[-1]


def test_codes_decode_to_the_exact_values(level9):
    numerator, inf = level9.numerator, level9.infinitesimal
    codes, table = encode(numerator, inf)
    # The naive reference: distinct (numerator, rank) pairs, sorted.
    pairs = np.unique(np.stack([numerator.astype(np.int64), inf.astype(np.int64)]), axis=1)
    assert len(table) == pairs.shape[1] == len(level9.table)
    assert np.array_equal(table.numerator[codes], numerator)
    assert np.array_equal(table.infinitesimal[codes], inf)
    assert table == level9.table and np.array_equal(codes, level9.codes)


def test_table_order_is_the_order_of_v(level9):
    values = level9.table.values()
    assert all(a < b for a, b in zip(values, values[1:]))
    assert len(set(values)) == len(values)


def test_encoder_across_chunks_equals_one_pass(level9):
    numerator, inf = level9.numerator, level9.infinitesimal
    encoder = Encoder()
    parts = [encoder.add(numerator[i:i + 1000], inf[i:i + 1000]) for i in range(0, numerator.shape[0], 1000)]
    table, final = encoder.finish()
    assert table == level9.table
    assert np.array_equal(final[np.concatenate(parts)], level9.codes)


def test_remap_and_union(level9):
    half = level9.codes.shape[0] // 2
    lo_codes, lo_table = encode(level9.numerator[:half], level9.infinitesimal[:half])
    hi_codes, hi_table = encode(level9.numerator[half:], level9.infinitesimal[half:])
    whole = union([lo_table, hi_table])
    assert whole == level9.table
    joined = np.concatenate([remap(lo_codes, lo_table, whole), remap(hi_codes, hi_table, whole)])
    assert np.array_equal(joined, level9.codes)
    with pytest.raises(ValueError):
        remap(level9.codes, level9.table, lo_table if len(lo_table) < len(whole) else hi_table)


def test_value_counts_and_outcomes_from_codes(level9):
    counts = level9.value_counts()
    assert sum(counts.values()) == len(level9)
    r = 12345
    v = decode_value(int(level9.numerator[r]), int(level9.infinitesimal[r]))
    assert level9.value(r) == v and counts[v] >= 1
    west, east = level9.outcomes(r, r + 1)
    from whist_catalogue.theory.values import rho

    assert (int(west[0]), int(east[0])) == (rho(v).west_leads, rho(v).east_leads)


def test_too_many_values_overflow():
    numerator = np.arange(MAX_CODES + 1, dtype=np.int32) << 8
    with pytest.raises(OverflowError):
        encode(numerator, np.zeros_like(numerator, dtype=np.int8))


def test_a_level_checks_its_codes():
    with pytest.raises(ValueError):
        Level(2, np.zeros(5, np.uint16), ValueTable(np.zeros(0, np.int32), np.zeros(0, np.int8)))  # level 2 has C(4, 2) = 6 deals
