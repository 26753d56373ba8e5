"""Where the catalogue lives, and the tunables shared by the command line and the app.

The default catalogue is ``catalogue.sqlite`` in the user's data directory
(``platformdirs.user_data_dir("whist-catalogue")``, e.g.
``~/.local/share/whist-catalogue/catalogue.sqlite`` on Linux).  The environment
variable ``WHIST_CATALOGUE_DB`` (a path or a SQLAlchemy URL) overrides it; the
``--db`` option overrides both.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "whist-catalogue"
ENV_DB = "WHIST_CATALOGUE_DB"
DEFAULT_MAX_N = 14
"""The size bound of the default catalogue built by the README's first command."""


def default_database_path() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME)) / "catalogue.sqlite"


def database_location(db: str | os.PathLike[str] | None = None) -> str:
    """The catalogue to use: ``db`` if given, else ``$WHIST_CATALOGUE_DB``, else the default file."""
    if db:
        return os.fspath(db)
    return os.environ.get(ENV_DB) or os.fspath(default_database_path())
