"""Generators of the reports in ``docs/`` (``python -m whist_catalogue.scripts.reports.<name>``)."""

from __future__ import annotations

import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def page_path(out: Path | None, name: str, quick: bool) -> Path:
    """Where a report writes its page: ``--out`` if given, else ``docs/<name>``, or for a ``--quick`` smoke run a
    scratch folder's — a smoke run must not overwrite the published page and its figures with its small tables."""
    if out is not None:
        return out
    return Path(tempfile.mkdtemp()) / name if quick else DOCS / name
