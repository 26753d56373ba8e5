"""Levels 17 and 18 in the catalogue: the look-up path of a deal of each, end to end, on a small catalogue.

No test can build level 17 (2.3 billion deals) nor even level 16, so each catalogue here holds, of levels
n − 1 and n, exactly the chunks that a look-up of one n-card deal reads — the deal's own chunk and the
level-(n − 1) chunks its reductions D_ij fall in — written with the level store's own codec into a catalogue
made by ``build``, and its ``level`` rows say n − 1 and n are complete, chunk-only levels.  At the ranks
the look-up must read the chunks hold the values of the literal recursive definition
(:mod:`whist_catalogue.theory.definition`); everywhere else an impossible filler (100 tricks), so a rank
misread, a chunk misplaced or a rank truncated to 32 bits would change the answer.

The deals are chosen for what each level adds, and because the definition values them in seconds (few
distinct reductions).  ``E⁸W⁹E⁹W⁸`` (n = 17): its colex rank, 2,330,505,979, is beyond 2^31, and West's best
leads are his top run, whose mask has bit 16 set (it does not fit 16 bits).  ``E⁸W¹⁰E¹⁰W⁸`` (n = 18): its
rank, 9,062,055,947, is beyond 2^33, so it needs the 64 bits no smaller type gives, and its top-run mask
has bit 17 set.  What this proves: the reader's derivation of value, best leads and replies (α of §7.2 from
level n − 1's chunks) and the export's ``moves`` are right at n = 17 and 18, against the definition.  What
it does not: that the engine's kernels value all of a level correctly (``scan --max-n 18`` did,
docs/conjectures.md), nor a full build's time.
"""

from __future__ import annotations

from math import comb
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa

from whist_catalogue.engine.chunks import CHUNK_DEALS, encode_chunk
from whist_catalogue.engine.encoding import SCALE, encode_value
from whist_catalogue.errors import DealTooLargeError
from whist_catalogue.engine.codes import union
from whist_catalogue.store.build import MAX_BUILD_N, build, build_steps
from whist_catalogue.store.levels import chunk_checksum, level_row_checksum, table_to_bytes
from whist_catalogue.store.models import LevelChunkRow, LevelRow
from whist_catalogue.store.reader import open_catalogue
from whist_catalogue.theory import definition
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.labeled import labeled_matrix
from whist_catalogue.theory.ranking import rank

DEALS = {17: Deal.from_label("E" * 8 + "W" * 9 + "E" * 9 + "W" * 8),
         18: Deal.from_label("E" * 8 + "W" * 10 + "E" * 10 + "W" * 8)}
RANKS = {17: 2_330_505_979, 18: 9_062_055_947}
FILLER = 100 * SCALE
"""No deal of 16 to 18 cards a hand is worth 100 tricks."""


def _write_chunks(location: Path, n: int, values: dict[int, tuple[int, int]]) -> None:
    """Level n's chunks that hold these ranks (rank → (numerator, infinitesimal)), the filler elsewhere, and
    its ``level`` row marked complete, with the table of those chunks, statistics that count every other deal as
    the filler, and the checksum a reader checks."""
    import json

    from whist_catalogue.engine.chunks import read_chunk

    size = comb(2 * n, n)
    engine = sa.create_engine(f"sqlite:///{location}")
    tables, stored = [], 0
    with engine.begin() as connection:
        for index in sorted({r // CHUNK_DEALS for r in values}):
            start, stop = index * CHUNK_DEALS, min(size, (index + 1) * CHUNK_DEALS)
            numerator = np.full(stop - start, FILLER, np.int32)
            infinitesimal = np.zeros(stop - start, np.int8)
            for r, (num, inf) in values.items():
                if start <= r < stop:
                    numerator[r - start], infinitesimal[r - start] = num, inf
            data = encode_chunk(n, start, stop, numerator, infinitesimal)
            tables.append(read_chunk(data).table)
            stored += len(data)
            connection.execute(sa.insert(LevelChunkRow.__table__).values(
                n=n, chunk=index, start=start, stop=stop, data=data, checksum=chunk_checksum(data)))
        table = union(tables)
        counts = [1] * len(table)
        counts[-1] = size - (len(table) - 1)  # the filler: the largest value
        statistics = json.dumps({"counts": counts, "counterexamples": {}})
        blob = table_to_bytes(table)
        connection.execute(sa.insert(LevelRow.__table__).values(
            n=n, complete=True, row_count=size, chunk_deals=CHUNK_DEALS, value_table=blob, statistics=statistics,
            stored_bytes=stored, checksum=level_row_checksum(n, size, CHUNK_DEALS, stored, blob, statistics)))
    engine.dispose()


TopLevel = tuple[int, Path, Deal, definition.SuitSolution]


@pytest.fixture(scope="module", params=sorted(DEALS), ids=lambda n: f"level{n}")
def top_level(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> TopLevel:
    """(n, the catalogue, the deal, its solution by the definition)."""
    n = request.param
    deal = DEALS[n]
    location = tmp_path_factory.mktemp(f"level{n}") / "c.sqlite"
    build(location, 1, games=False)  # a real catalogue: schema, migrations, level 1
    reductions: dict[int, tuple[int, int]] = {}

    def value(d: Deal):  # noqa: ANN202 — the definition's value of each D_ij, noting its rank
        v = definition.val(d)
        reductions[rank(d.west)] = encode_value(v)
        return v

    labeled_matrix(deal, value)
    expected = definition.solve(deal)
    _write_chunks(location, n - 1, reductions)
    _write_chunks(location, n, {rank(deal.west): encode_value(expected.value)})
    return n, location, deal, expected


def test_the_deal_needs_what_its_level_adds(top_level: TopLevel) -> None:
    n, _, deal, expected = top_level
    assert rank(deal.west) == RANKS[n] > 2 ** (2 * n - 3)  # 2^31 at n = 17, 2^33 at n = 18
    assert expected.move_masks()[:2] == (0b11111111 << (n - 8), (1 << n) - 1)  # West's top run; any of East's
    assert max(expected.move_masks()) >= 1 << (n - 1)


def test_lookup_of_a_deal_matches_the_definition(top_level: TopLevel) -> None:
    n, location, deal, expected = top_level
    with open_catalogue(location) as catalogue:
        assert n in catalogue.complete_levels()
        record = catalogue.record(deal)
        assert record.value == expected.value
        assert record.move_masks == expected.move_masks()
        assert record.solution == expected
        assert catalogue.solve_many([deal]) == [expected]
        assert catalogue.value(deal) == expected.value


def test_a_records_best_leads_need_more_than_16_bits(top_level: TopLevel) -> None:
    """``search --json`` of the deal names every best lead, the top card included (its mask has bit n − 1 set:
    beyond the 16-bit masks of the engine's moves kernel)."""
    n, location, deal, expected = top_level
    with open_catalogue(location) as catalogue:
        record = catalogue.record(deal)
    assert record.to_json()["best_leads"] == {"west": [str(c) for c in expected.west_leads],
                                              "east": [str(c) for c in expected.east_leads]}
    assert max(record.move_masks) >= 1 << 16


def test_build_reaches_18_and_no_further(tmp_path: Path) -> None:
    assert MAX_BUILD_N == 18
    with pytest.raises(DealTooLargeError, match="between 1 and 18, got 19"):
        next(build_steps(tmp_path / "c.sqlite", 19))
    assert not (tmp_path / "c.sqlite").exists()
