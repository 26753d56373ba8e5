"""The sequences' generator (scripts/reports/sequences.py) over the repository's own scan data."""

from __future__ import annotations

from math import comb
from pathlib import Path

import pytest

from whist_catalogue.scripts.reports import sequences as seq

ROOT = Path(__file__).resolve().parent.parent


def test_b_files_and_page_are_up_to_date(tmp_path):
    """The committed b-files and page are what the generator makes of docs/data/scan.jsonl."""
    values = seq.write(seq.SCAN_FILE, tmp_path / "sequences", tmp_path / "sequences.md")
    for s in seq.SEQUENCES:
        fresh = (tmp_path / "sequences" / f"{s.name}.txt").read_text(encoding="utf-8")
        assert fresh == (ROOT / "docs" / "data" / "sequences" / f"{s.name}.txt").read_text(encoding="utf-8"), s.name
    assert (tmp_path / "sequences.md").read_text(encoding="utf-8") == (ROOT / "docs" / "sequences.md").read_text(
        encoding="utf-8")
    assert len(values["deals"]) >= 17


def test_terms_and_formulas():
    values = seq.terms(seq.read_levels())
    assert [values["deals"][n] for n in range(1, 18)] == [comb(2 * n, n) for n in range(1, 18)]
    assert [values["distinct-values"][n] for n in (1, 2, 3, 16, 17)] == [2, 6, 15, 299, 335]
    assert values["lead-matters"][2] == 2 and values["lead-matters"][3] == 4
    # Every level's deals fall in exactly one class of value.
    for n in values["deals"]:
        assert sum(values[name][n] for name in ("integer-values", "half-integer-values", "dyadic-values",
                                                 "positive-infinitesimal-values",
                                                 "negative-infinitesimal-values")) == values["deals"][n]
    by_name = {s.name: s for s in seq.SEQUENCES}
    (distinct,) = by_name["distinct-values"].formulas
    assert seq.holds_from(distinct, values, "distinct-values") == 6  # n² + 3n − 5 fails at n = 5: 37 ≠ 35
    (fractional,) = by_name["distinct-fractional-parts"].formulas
    assert seq.holds_from(fractional, values, "distinct-fractional-parts") == 7


def test_b_file_format():
    assert seq.b_file({2: 6, 1: 2}) == "1 2\n2 6\n"


def test_a_gap_in_the_levels_is_refused(tmp_path):
    lines = seq.SCAN_FILE.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "scan.jsonl"
    path.write_text(lines[0] + lines[2], encoding="utf-8")
    with pytest.raises(ValueError, match="without a gap"):
        seq.read_levels(path)
