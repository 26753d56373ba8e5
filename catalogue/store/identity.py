"""Is this file a catalogue of ours? The check that needs neither SQLAlchemy nor alembic.

The command line answers every suit a pack can deal from the preloaded table
(:mod:`whist_catalogue.theory.small_suits`) without opening the catalogue, yet a
catalogue it is pointed at must still be one (docs/spec.md §4: a foreign or damaged file is
reported, never passed over).  Opening it through SQLAlchemy costs a tenth of a second
of imports; this module reads the SQLite header and alembic's version table with the
standard library's ``sqlite3`` in milliseconds.  :mod:`.database` builds on the same
pieces (the header check, the schema's revisions from the migrations' file names).
"""

from __future__ import annotations

import errno
import os
import re
import sqlite3
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

from whist_catalogue.errors import CatalogueDamagedError, CatalogueError

__all__ = ["SCHEMA_VERSION_TABLE", "SQLITE_MAGIC", "catalogue_path", "check_sqlite_file", "check_catalogue_file", "revisions",
           "script_location", "ending_top"]

SCHEMA_VERSION_TABLE = "whist_catalogue_schema"
"""alembic's version table, under a name of our own: a database holding it is a catalogue."""

SQLITE_MAGIC = b"SQLite format 3\x00"

_REVISION_FILE = re.compile(r"\d{4}_\d{2}_\d{2}_\d{4}-([0-9a-f]+)_\w+\.py")


def script_location() -> str:
    """The directory of the ``migrations`` package (the one holding our ``env.py``)."""
    from whist_catalogue import migrations

    for entry in getattr(migrations, "__path__", ()):
        if (Path(entry) / "env.py").is_file() and (Path(entry) / "versions").is_dir():
            return str(entry)
    raise CatalogueError("the catalogue's migrations are not installed (package 'migrations' has no env.py)")


@lru_cache(maxsize=1)
def revisions() -> tuple[str, ...]:
    """The revisions of ``migrations/versions``, oldest first, read from the file names.

    The date-first ``file_template`` puts the revision after the date, so sorting the
    names is the order of the chain (a test checks this against alembic's own view).
    """
    versions = Path(script_location()) / "versions"
    names = sorted(p.name for p in versions.glob("*.py"))
    return tuple(m.group(1) for name in names if (m := _REVISION_FILE.fullmatch(name)))


def catalogue_path(text: str) -> Path:
    """The absolute path a catalogue location names (``~`` and ``~user`` expanded), or one clear
    :class:`CatalogueError` for a location no file can be at: empty, an unknown user's home, a loop of
    symbolic links, a name too long."""
    if not text.strip():
        raise CatalogueError("empty catalogue location (name a SQLite file or a database URL)")
    try:
        path = Path(text).expanduser()
    except RuntimeError:  # pathlib's "Could not determine home directory"
        user = text[1:].split("/", 1)[0]
        raise CatalogueError(f"cannot find the home directory of {'~' + user if user else '~'} in {text!r}"
                             + (f" (no user {user!r})" if user else "")) from None
    try:
        os.stat(path)
    except OSError as exc:
        # pathlib's own exists() calls a loop "not there", and its resolve() raises RuntimeError on one.
        if exc.errno in (errno.ELOOP, errno.ENAMETOOLONG):
            raise CatalogueError(f"{path}: {exc.strerror}") from None
    except ValueError:  # a NUL byte
        raise CatalogueError(f"not a file name: {text!r}") from None
    return path.absolute()


def check_sqlite_file(path: Path, *, hint: str) -> None:
    """The file exists and starts like a SQLite database (its header only is read)."""
    if not path.exists():
        raise CatalogueError(f"no catalogue at {path} (build one with: {hint})")
    if not path.is_file():
        raise CatalogueError(f"not a file: {path}")
    try:
        with path.open("rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise CatalogueError(f"cannot read {path}: {exc.strerror}") from None
    if len(header) == 0:
        raise CatalogueError(f"not a catalogue: {path} is an empty file")
    if not header.startswith(SQLITE_MAGIC) or len(header) < 100:
        raise CatalogueError(f"not a catalogue: {path} is not a SQLite database")


def check_catalogue_file(path: Path) -> None:
    """Raise :class:`CatalogueError` unless ``path`` is a SQLite catalogue of the schema this software reads.

    Read-only (:func:`_reading`): nothing on disk changes.
    """
    check_sqlite_file(path, hint=f"whist-catalogue build --db {path}")
    with _reading(path) as connection:
        tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        found = (connection.execute(f'SELECT version_num FROM "{SCHEMA_VERSION_TABLE}"').fetchall()
                 if SCHEMA_VERSION_TABLE in tables else [])
    if not found:
        what = "an empty database" if not tables - {SCHEMA_VERSION_TABLE} else "a database of some other application"
        raise CatalogueError(f"not a catalogue: {path} is {what}")
    known = revisions()
    if len(found) != 1 or found[0][0] not in known:
        raise CatalogueError(f"catalogue {path} was written by a newer version of whist-catalogue"
                             f" (schema revision {found[0][0]!r}); upgrade the software to read it")
    if found[0][0] != known[-1]:
        raise CatalogueError(f"catalogue {path} has an older schema (revision {found[0][0]});"
                             f" upgrade it with: whist-catalogue build --db {path}")


def ending_top(path: Path) -> int:
    """The largest level of the table of two-hand endings that the catalogue file at ``path`` (checked by
    :func:`check_catalogue_file`) marks complete, 0 for none: one query, so that the command line learns whether
    to answer a batch of two-hand deals from the catalogue (docs/two-hand.md) at no cost when it should not.
    The level's row and chunks are checked when they are read."""
    with _reading(path) as connection:
        found = connection.execute("SELECT max(k) FROM ending_level WHERE complete").fetchone()[0]
    return found if type(found) is int else 0


@contextmanager
def _reading(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to the SQLite file, ``immutable`` when no ``-wal`` lies beside it, so nothing on disk
    changes (no side files either); SQLite's errors are the catalogue's, one it finds malformed damage (exit 1), as
    when it is found while reading."""
    mode = "ro" if path.with_name(path.name + "-wal").exists() else "ro&immutable=1"
    try:
        connection = sqlite3.connect(f"file:{quote(str(path))}?mode={mode}", uri=True)
        try:
            yield connection
        finally:
            connection.close()
    except sqlite3.Error as exc:
        damaged = getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_CORRUPT
        raise (CatalogueDamagedError if damaged else CatalogueError)(
            f"catalogue {path} cannot be read ({exc}); run whist-catalogue verify on it, or build it again"
        ) from None
