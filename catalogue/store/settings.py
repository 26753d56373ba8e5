"""Where the catalogue lives, and the tunables shared by the command line and the app.

The default catalogue is ``catalogue.sqlite`` in the user's data directory
(``platformdirs.user_data_dir("whist-catalogue")``, e.g.
``~/.local/share/whist-catalogue/catalogue.sqlite`` on Linux).  The environment
variable ``WHIST_CATALOGUE_DB`` (a path or a SQLAlchemy URL) overrides it; the
``--db`` option overrides both.

``build`` creates the directories of the default location only: a location the
user names (``--db`` or ``WHIST_CATALOGUE_DB``) is taken as written, and a
missing directory there is reported rather than created — a typo should not
silently put a catalogue somewhere new.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "whist-catalogue"
ENV_DB = "WHIST_CATALOGUE_DB"
DEFAULT_MAX_N = 14
"""The size bound of the default catalogue built by the README's first command."""


def default_database_path() -> Path:
    import platformdirs  # only when no --db or $WHIST_CATALOGUE_DB names the catalogue: it costs a look-up 5 ms

    return Path(platformdirs.user_data_dir(APP_NAME)) / "catalogue.sqlite"


def database_location(db: str | os.PathLike[str] | None = None) -> str:
    """The catalogue to use: ``db`` if given, else ``$WHIST_CATALOGUE_DB``, else the default file.

    ``db`` given empty (``--db ''``) is returned as it is, for the caller to refuse: it must never mean the
    default catalogue, which a build would then fill.
    """
    if db is not None:
        return os.fspath(db)
    return os.environ.get(ENV_DB) or os.fspath(default_database_path())


def is_default_location(db: str | os.PathLike[str] | None = None) -> bool:
    """True when neither ``db`` nor ``$WHIST_CATALOGUE_DB`` names the catalogue (its directory may be created)."""
    return db is None and not os.environ.get(ENV_DB)
