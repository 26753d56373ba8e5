"""The notebooks in docs/ run from top to bottom without an error (they are executed here, as a reader would)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize("path", sorted(DOCS.glob("*.ipynb")), ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    notebook = nbformat.read(path, as_version=4)
    # Run where a reader might open it, not from docs/: what it reads comes from the package, wherever installed.
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    # The deals drew themselves: the first suit's diagram and the multi-suit deal's outcome are in the output.
    rich = "".join(o.get("data", {}).get("text/html", "") for o in outputs)
    assert "<svg" in rich and "West takes 11 tricks with West on lead, 10 tricks with East on lead" in rich
    # The typed results show themselves as the command line writes them.
    printed = "".join(o.get("text", "") for o in outputs)
    assert "suits 4,4,3,2: 4 suits, 13 tricks, 588,000 deals" in printed and "N-card Le Her" in rich


def test_the_tour_says_how_far_the_shipped_scan_reaches():
    from whist_catalogue.store.distributions import shipped_max_n

    prose = "".join(cell.source for cell in nbformat.read(DOCS / "tour.ipynb", as_version=4).cells
                    if cell.cell_type == "markdown")
    assert f"n ≤ {shipped_max_n()} is shipped with the package" in " ".join(prose.split())
