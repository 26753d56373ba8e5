"""Regenerate ``docs/fields.md``: every per-deal field, as the search names it and the dataset stores it.

    .venv/bin/python -m whist_catalogue.scripts.reports.fields

The table is the registry's (``catalogue/store/fields.py``): one row a field, its names in the search language,
its column in exports and its type there, what it means and where the papers define it.  Nothing here is written
by hand, so the page cannot disagree with the search or the exports; ``tests/test_dataset.py`` checks that the
page is what this script writes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from whist_catalogue.scripts.reports import DOCS, table
from whist_catalogue.store.fields import FIELDS, Field

PAGE = DOCS / "fields.md"
COMMAND = ".venv/bin/python -m whist_catalogue.scripts.reports.fields"

_ARROW = {"text": "string", "category": "dictionary⟨int16, string⟩"}
"""The Parquet/Arrow type of a kind that is no NumPy dtype (docs/dataset.md)."""

INTRODUCTION = f"""# Per-deal fields

Every quantity the catalogue has for each single-suit deal, as the search language names it
([search.md](search.md)) and as exports and `Catalogue.level` store it ([dataset.md](dataset.md)), with what
it means and where the papers define it. The **multi-suit paper** is Wästlund's *Two-person symmetric whist*,
the **single-suit paper** his *A solution of two-person single-suit whist*.

This page is generated from the registry of fields (`catalogue/store/fields.py`) by `{COMMAND}`; a field
added there appears here, in the search and in the exports at once.

"""


def _names(field: Field) -> str:
    if field.search is None:
        return "—"
    names = [f"`{field.searched_as}`", *(f"`{alias}`" for alias in field.aliases)]
    return f"{names[0]} ({', '.join(names[1:])})" if len(names) > 1 else names[0]


def _column(field: Field) -> str:
    return f"`{field.name}`" if field.export else "—"


def _type(field: Field) -> str:
    return _ARROW.get(field.kind, field.kind) if field.export else "—"


def page() -> str:
    """The whole page, as :data:`PAGE` holds it."""
    rows: list[list[object]] = [
        [_names(f), f.search or "—", _column(f), _type(f), f.meaning.replace("|", "\\|"), f.source]
        for f in FIELDS.values()
    ]
    header = ["search", "kind in the search", "export column", "type (Parquet/Arrow)", "meaning", "source"]
    return INTRODUCTION + "\n".join(table(header, rows, rule="---"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate docs/fields.md from the registry of fields.")
    parser.add_argument("--out", type=Path, default=PAGE, help="where to write the page (default: docs/fields.md)")
    args = parser.parse_args(argv)
    args.out.write_text(page())
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
