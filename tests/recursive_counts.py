"""Known answers for ``stats``: value counts of every level n ≤ 9 by the literal recursive definition.

``tests/data/recursive_stats.json`` holds, per n, :meth:`LevelStatistics.to_json`
of the counts obtained by applying :func:`whist_catalogue.theory.definition.val` to every deal
(about two minutes for n ≤ 9, hence recorded).  Regenerate with
``.venv/bin/python tests/recursive_counts.py``; the tests also recount the small
levels live, and all of them with ``WHIST_FULL_REFERENCE=1``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from whist_catalogue.engine.statistics import LevelStatistics
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.definition import val
from whist_catalogue.theory.ranking import level_masks

DATA = Path(__file__).with_name("data") / "recursive_stats.json"
MAX_N = 9


def recursive_statistics(n: int) -> dict:
    """``stats`` of level n from the recursive definition applied to each deal."""
    counts = Counter(val(Deal(n, int(mask))) for mask in level_masks(n))
    return LevelStatistics(n, counts).to_json()


def recorded() -> dict[int, dict]:
    return {int(k): v for k, v in json.loads(DATA.read_text())["levels"].items()}


if __name__ == "__main__":
    levels = {str(n): recursive_statistics(n) for n in range(1, MAX_N + 1)}
    DATA.write_text(json.dumps({"source": "whist_catalogue.theory.definition.val over every deal (tests/recursive_counts.py)",
                                "levels": levels}, indent=1) + "\n")
    print(f"wrote {DATA}")
