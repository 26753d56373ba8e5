"""Exact values and optimal play of two-person trick-taking games (Wästlund's whist theory).

Installed as ``whist_catalogue``.  One subpackage per part of the architecture;
imports flow one way, top to bottom (``docs/architecture.md``; a test enforces it):

* :mod:`whist_catalogue.theory` — the multi-suit paper: the semigroup V, deal
  notation, labeled values and the recursive definition of val(D), the
  brute-force referee, Theorem 9.1 and the lead rule of §10.4;
* :mod:`whist_catalogue.games` — the solved matrix games (chemin-de-fer, Le Her);
* :mod:`whist_catalogue.single_suit` — the single-suit paper: A, T_k, H̄/H̲,
  Theorem 9.1's H, Greedy Whist, Five-card, Theorem 10.1, §11;
* :mod:`whist_catalogue.engine` — every deal of a level at once: ranking,
  encoding, Numba kernels, levels, scan, statistics;
* :mod:`whist_catalogue.store` — the catalogue database: models, migrations,
  build, reading, search, export, verify;
* :mod:`whist_catalogue.gui` and :mod:`whist_catalogue.scripts` — the
  interfaces: the PySide6 app and the command line.

Nothing below the interfaces imports Qt; nothing below the store imports SQLAlchemy.
"""

__version__ = "0.1.0"


def documentation(name: str) -> str:
    """Where the document ``name`` (``"search.md"``, ``"app.md"``, …) is on this machine.

    An installed wheel carries ``docs/*.md`` as ``whist_catalogue/docs/``; a checkout
    (an editable install) has them in the repository's ``docs/``.
    """
    from pathlib import Path

    here = Path(__file__).resolve().parent
    for folder in (here / "docs", here.parent / "docs"):
        if (folder / name).is_file():
            return str(folder / name)
    return f"docs/{name}"
