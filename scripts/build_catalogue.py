"""Build (or resume) the catalogue: ``python scripts/build_catalogue.py --max-n N [--db PATH_OR_URL]``.

The same as ``whist-catalogue build`` (see ``whist-catalogue build --help``); kept
as a script so that the precompute can be run from a checkout.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts.whist_catalogue import main  # noqa: E402


def run(argv: list[str] | None = None) -> int:
    return main(["build", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(run())
