"""Write ``catalogue/theory/small_suits.bin``: every single-suit deal with n ≤ 8, valued by the engine.

Usage: ``python -m whist_catalogue.scripts.reports.small_suits [--output PATH]``.
The engine computes levels 1…8 with their best moves (a second or two); the file
holds each deal's packed value and lowest best leads (:mod:`whist_catalogue.theory.small_suits`).
``tests/test_small_suits.py`` checks that the shipped file is exactly what this writes.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Iterator, Sequence

from whist_catalogue.theory.small_suits import TABLE_FILE, TABLE_MAX_N, encode_table
from whist_catalogue.theory.solution import SuitSolution

DEFAULT_OUTPUT = Path(__file__).resolve().parents[2] / "catalogue" / "theory" / TABLE_FILE


def engine_solutions(max_n: int = TABLE_MAX_N) -> Iterator[SuitSolution]:
    """Every deal with 1 ≤ n ≤ max_n, with its value and best moves, from the engine."""
    from whist_catalogue.engine.levels import levels
    from whist_catalogue.theory.deals import Deal
    from whist_catalogue.theory.ranking import level_masks

    for level in levels(max_n, moves=True):
        for west in level_masks(level.n):
            yield level.solution(Deal(level.n, int(west)))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    data = encode_table(engine_solutions())
    args.output.write_bytes(data)
    print(f"wrote {args.output} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
