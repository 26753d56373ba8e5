"""The build's estimate (docs/app.md, the Catalogue view) from the per-level sizes the catalogue records."""

from math import comb

from whist_catalogue.store.build import estimate_build
from whist_catalogue.store.reader import LevelInfo

# docs/benchmarks.md, "Per level": level.stored_bytes and level.build_seconds of a build to n = 16.
RECORDED = {11: (24_915, 1.5), 12: (83_058, 6.4), 13: (285_826, 30.5), 14: (1_005_721, 136.1),
            15: (3_555_796, 375.4), 16: (12_705_511, 1_764.5)}


def _level(n: int) -> LevelInfo:
    stored, seconds = RECORDED.get(n, (1_000, 1.0))
    # Levels ≤ 10 hold a deal row each: 35 MB of the file for 250,952 deals, which says nothing of level 11 on.
    return LevelInfo(n, True, comb(2 * n, n), None, None, None, seconds, "chunks" if n > 10 else "rows", stored)


def test_the_next_levels_are_estimated_from_the_last_chunks_level_not_the_file():
    to_14 = [_level(n) for n in range(1, 15)]
    one = estimate_build(to_14, 15)
    assert one.levels == (15,) and one.deals == comb(30, 15) and one.measured
    assert 3_555_796 <= one.bytes <= 1.15 * 3_555_796  # recorded: +3.6 MB (the view said 105 MB)
    two = estimate_build(to_14, 16)
    real = 3_555_796 + 12_705_511
    assert two.levels == (15, 16) and real <= two.bytes <= 1.25 * real  # recorded 16.3 MB (the view said 511.7 MB)
    assert one.seconds == comb(30, 15) * 136.1 / comb(28, 14)  # level 14's own time a deal


def test_levels_up_to_10_cost_their_rows_and_a_small_catalogue_uses_the_benchmark():
    to_10 = [_level(n) for n in range(1, 11)]
    rest = estimate_build(to_10, 16)
    real = sum(stored for stored, _ in RECORDED.values())
    assert not rest.measured and rest.levels == tuple(range(11, 17))
    assert real <= rest.bytes <= 2 * real  # 17.7 MB recorded for levels 11–16
    assert 300 <= rest.seconds <= 600  # 6 min 18 s for the whole build on the idle machine
    empty = estimate_build([], 10)
    assert empty.levels == tuple(range(1, 11)) and 30e6 <= empty.bytes <= 45e6  # rows: 35 MB of the file
    assert estimate_build(to_10, 10).levels == () and estimate_build(to_10, 10).bytes == 0
