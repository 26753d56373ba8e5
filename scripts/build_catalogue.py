"""Build (or resume) the catalogue: ``python scripts/build_catalogue.py --max-n N [--db PATH_OR_URL]``.

The same as ``whist-catalogue build`` (see ``whist-catalogue build --help``); kept
as a script so that the precompute can be run from a checkout.
"""

from __future__ import annotations

import sys

from whist_catalogue.scripts.main import main


def run(argv: list[str] | None = None) -> int:
    return main(["build", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(run())
