"""Generators of the reports in ``docs/`` (``python -m whist_catalogue.scripts.reports.<name>``)."""

from __future__ import annotations

import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Sequence

DOCS = Path(__file__).resolve().parents[2] / "docs"


def page_path(out: Path | None, name: str, quick: bool) -> Path:
    """Where a report writes its page: ``--out`` if given, else ``docs/<name>``, or for a ``--quick`` smoke run a
    scratch folder's — a smoke run must not overwrite the published page and its figures with its small tables."""
    if out is not None:
        return out
    return Path(tempfile.mkdtemp()) / name if quick else DOCS / name


def fraction(q: Fraction) -> str:
    """An exact rational as the reports print it: ``−3/8``, ``5``."""
    text = str(abs(q.numerator)) if q.denominator == 1 else f"{abs(q.numerator)}/{q.denominator}"
    return "−" + text if q < 0 else text


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    """A Markdown table of right-aligned columns, with the blank line that ends it."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" ---: " for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines + [""]
