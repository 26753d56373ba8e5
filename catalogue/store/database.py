"""Reaching a catalogue database safely: locations, engines, identity and migrations.

A catalogue is named by a path (a SQLite file) or a SQLAlchemy URL
(``postgresql+psycopg://…``, ``sqlite:///…``).  Two ways in:

* :func:`reader_engine` — for look-ups, search, statistics, export, verify.
  It never creates a file and never writes: the location must exist and be a
  catalogue whose schema this software reads (:func:`probe`), else
  :class:`~whist_catalogue.errors.CatalogueError` — and nothing on disk has changed.
* :func:`writer_engine` — for ``build``.  A missing SQLite file is created; an
  existing database must be empty or one of ours, which is then brought to the
  current schema with alembic (:func:`upgrade`).  A foreign or newer database is
  refused before anything is written.

Identity: every catalogue carries alembic's version table under its own name,
:data:`~whist_catalogue.store.models.SCHEMA_VERSION_TABLE`.  A database without it is not
ours (unless it is empty); one whose revision this software's migrations do not
know was written by a newer version.

SQLite specifics: WAL journal (readers proceed while a build writes), a busy
timeout, and ``synchronous=NORMAL`` — in WAL mode a committed transaction
survives a killed process.  Readers open the file ``mode=rw`` with
``PRAGMA query_only`` rather than ``mode=ro``, because a read-only connection
cannot remove the WAL side files when it closes.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from datetime import datetime
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, DBAPIError, InterfaceError, ProgrammingError, SQLAlchemyError
from sqlalchemy.pool import QueuePool

from whist_catalogue.errors import CatalogueDamagedError, CatalogueError, ChunkError, MalformedContentError
from whist_catalogue.store.identity import (
    SCHEMA_VERSION_TABLE,
    catalogue_path,
    check_sqlite_file,
    revisions,
    script_location,
)
from whist_catalogue.store.settings import database_location

__all__ = [
    "Location",
    "parse_location",
    "reader_engine",
    "writer_engine",
    "probe",
    "SchemaState",
    "alembic_config",
    "upgrade",
    "head_revision",
    "database_errors",
    "sqlite_maintenance",
    "recorded_time",
    "BUSY_TIMEOUT_MS",
]

# The drivers' and SQLAlchemy's own log records (a connection lost while a signal unwinds a build: "error
# ignored terminating Pipeline", "Exception during reset", each with a traceback) would reach stderr through
# logging's last-resort handler, many lines where the command line promises one. A handler that drops them
# stops only that fallback: an application that configures logging still receives them.
for _name in ("sqlalchemy", "psycopg", "alembic"):
    logging.getLogger(_name).addHandler(logging.NullHandler())

BUSY_TIMEOUT_MS = 30_000
"""How long a SQLite connection waits for a lock held by another process."""


@dataclass(frozen=True, slots=True)
class Location:
    """Where a catalogue is: a SQLite file path, or a server URL."""

    text: str
    """As the user gave it."""
    path: Path | None
    """The SQLite file, for a path or a ``sqlite:///`` URL (None for a server, or an in-memory SQLite)."""
    url: sa.URL
    """The SQLAlchemy URL."""

    @property
    def is_sqlite(self) -> bool:
        return self.url.get_backend_name() == "sqlite"

    def __str__(self) -> str:
        return str(self.path) if self.path is not None else self.url.render_as_string(hide_password=True)


def parse_location(location: str | os.PathLike[str]) -> Location:
    """A path or a SQLAlchemy URL, checked for form only (nothing is opened)."""
    text = os.fspath(location)
    if "://" not in text:
        file = catalogue_path(text)
        return Location(text, file, sa.URL.create("sqlite", database=str(file)))
    try:
        url = sa.make_url(text)
    except (ArgumentError, ValueError):
        raise CatalogueError(f"not a database URL: {text!r}") from None
    backend = url.get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise CatalogueError(f"unsupported database {backend!r} in {text!r} (use a SQLite path or a PostgreSQL URL)")
    _check_driver(url, text)
    path: Path | None = None
    if backend == "sqlite":
        if url.database in (None, "", ":memory:") or url.query.get("mode") == "memory":
            raise CatalogueError(f"an in-memory database cannot hold a catalogue: {text!r}")
        path = catalogue_path(url.database)
        url = url.set(database=str(path))
    return Location(text, path, url)


def _check_driver(url: sa.URL, text: str) -> None:
    """The URL's driver is known to SQLAlchemy, installed, and synchronous: else one clear line now, not an
    import error at the first query."""
    from sqlalchemy.exc import NoSuchModuleError

    try:
        dialect = url.get_dialect()
    except NoSuchModuleError:
        raise CatalogueError(f"unknown database driver {url.drivername!r} in {text!r}"
                             " (use postgresql+psycopg://…, or a SQLite path)") from None
    if getattr(dialect, "is_async", False):
        raise CatalogueError(f"database driver {url.get_driver_name()!r} is asynchronous; use postgresql+psycopg://…")
    try:
        dialect.import_dbapi()
    except ImportError as exc:
        raise CatalogueError(f"database driver {url.get_driver_name()!r} is not installed ({exc});"
                             " use postgresql+psycopg://… (pip install 'whist-catalogue[postgres]' installs psycopg 3)") from None


# -- engines -----------------------------------------------------------------------------------------


def _sqlite_engine(path: Path, *, writer: bool) -> Engine:
    """A pooled engine on one SQLite file; readers never create it (``mode=rw``)."""
    mode = "rwc" if writer else "rw"
    if not writer and (not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)) or _no_room(path)):
        # A catalogue on read-only or full storage: SQLite could not create the WAL side files, and no
        # build can be writing it (a build's WAL file would be there), so read it as an immutable file.
        mode = "ro&immutable=1"
    uri = f"file:{quote(str(path))}?mode={mode}"

    def connect() -> sqlite3.Connection:
        # isolation_level=None: SQLAlchemy's pysqlite dialect emits BEGIN itself (see _begin below).
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if writer:
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = NORMAL")
            connection.execute("PRAGMA cache_size = -262144")  # 256 MiB: index inserts of a big level
            connection.execute("PRAGMA temp_store = MEMORY")
        else:
            connection.execute("PRAGMA query_only = ON")
        return connection

    engine = sa.create_engine("sqlite+pysqlite://", creator=connect, poolclass=QueuePool, pool_size=4,
                              max_overflow=8)

    @event.listens_for(engine, "begin")
    def _begin(conn) -> None:  # noqa: ANN001
        # pysqlite's own transaction handling is off; open the transaction explicitly
        # (the documented recipe), so a level's rows and its metadata commit together.  A writer takes
        # the write lock at BEGIN: upgrading a read transaction later would fail at once with "database
        # is locked" when another connection writes, without waiting out the busy timeout.
        conn.exec_driver_sql("BEGIN IMMEDIATE" if writer else "BEGIN")

    return engine


READ_ROOM_BYTES = 1 << 20
"""Below this much free space, a reader does not try to make the WAL side files (they need about 32 KiB)."""


def _no_room(path: Path) -> bool:
    """The file system is (nearly) full and no build is writing the file (no ``-wal`` beside it)."""
    if path.with_name(path.name + "-wal").exists():
        return False
    try:
        stat = os.statvfs(path.parent)
    except OSError:
        return False
    return stat.f_bavail * stat.f_frsize < READ_ROOM_BYTES


def sqlite_maintenance(engine: Engine, *, analyze: bool = True) -> None:
    """After a build: refresh the query planner's statistics (ANALYZE), give back the free pages when they are a
    quarter of the file or more (VACUUM: the fifth migration frees the 35 MB of per-deal rows of n ≤ 10), and
    fold the WAL into the file."""
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        if analyze:
            cursor.execute("ANALYZE")
        free = cursor.execute("PRAGMA freelist_count").fetchone()[0]
        if 4 * free >= cursor.execute("PRAGMA page_count").fetchone()[0] and free > 0:
            cursor.execute("VACUUM")
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        cursor.close()
    finally:
        raw.close()


def _server_engine(url: sa.URL) -> Engine:
    return sa.create_engine(url, pool_pre_ping=True)


_SQLITE_CORRUPT = 11
"""SQLite's primary result code for a damaged page or index ("database disk image is malformed")."""
_DAMAGE_SQLSTATES = frozenset({"42P01", "42703", "XX001", "XX002"})
"""PostgreSQL: undefined table, undefined column, data corrupted, index corrupted."""
_PERMISSION_SQLSTATE = "42501"
"""PostgreSQL's insufficient privilege: the environment, not the catalogue and not a bug."""


def _first_line(detail: object) -> str:
    text = str(detail).strip()
    return text.splitlines()[0] if text else type(detail).__name__


def _is_damage(detail: object) -> bool:
    """A database error that says the catalogue itself is damaged: a malformed page or index, a table or column
    gone."""
    code = getattr(detail, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF == _SQLITE_CORRUPT:
        return True
    if getattr(detail, "sqlstate", None) in _DAMAGE_SQLSTATES:
        return True
    text = str(detail)
    # A text cell SQLite cannot decode holds bytes no build wrote there.
    return "database disk image is malformed" in text or text.startswith(("no such table", "no such column",
                                                                           "Could not decode to UTF-8"))


def _damage(location: Location | str, state: str, detail: object) -> CatalogueDamagedError:
    """The one line for damage: ``damaged`` as the database itself reports it (a malformed page, a table gone),
    ``corrupt`` for contents no build wrote."""
    return CatalogueDamagedError(f"catalogue {location} is {state}: {_first_line(detail)} (run whist-catalogue verify"
                                 " --db … to see the damage; rebuild the catalogue to repair it)")


@contextmanager
def database_errors(location: Location | str) -> Iterator[None]:
    """Turn a failure of the database or of the catalogue's contents into one clear error.

    * damage — a malformed page or index, a table gone, contents this software did not write
      (:class:`MalformedContentError`, a chunk that does not decode or check): a
      :class:`~whist_catalogue.errors.CatalogueDamagedError` naming it, with ``verify`` and a rebuild as the
      way out;
    * the environment — a lost server, a locked or unreadable file, a missing permission: a
      :class:`~whist_catalogue.errors.CatalogueError`.

    Anything else — a ``TypeError``, ``KeyError`` or ``IndexError`` in our reading code, a statement the
    database refuses as ill-formed — is a bug of this software and passes through unchanged (exit status 70),
    never reported as damage to the user's data.
    """
    try:
        yield
    except CatalogueError:
        raise
    except (MalformedContentError, ChunkError) as exc:
        raise _damage(location, "corrupt", exc) from None
    except SQLAlchemyError as exc:
        detail = getattr(exc, "orig", None) or exc
        if _is_damage(detail):
            raise _damage(location, "damaged", detail) from None
        if getattr(detail, "sqlstate", None) == _PERMISSION_SQLSTATE:
            raise CatalogueError(f"catalogue {location}: {_first_line(detail)}") from None
        if not isinstance(exc, DBAPIError) or isinstance(exc, (ProgrammingError, InterfaceError)):
            raise  # a statement of ours that the database cannot run: a bug
        raise CatalogueError(f"catalogue {location}: {_first_line(detail)}") from None
    except sqlite3.Error as exc:
        if _is_damage(exc):
            raise _damage(location, "damaged", exc) from None
        if isinstance(exc, (sqlite3.ProgrammingError, sqlite3.InterfaceError)):
            raise
        raise CatalogueError(f"catalogue {location}: {_first_line(exc)}") from None


# -- identity -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SchemaState:
    """What :func:`probe` found in a database."""

    empty: bool
    """No tables, apart perhaps from our (empty) version table: a fresh database."""
    revision: str | None
    """The alembic revision recorded in our version table (None if there is none)."""
    tables: frozenset[str]

    @property
    def ours(self) -> bool:
        return self.revision is not None


def _inspect(connection: sa.Connection) -> SchemaState:
    tables = frozenset(sa.inspect(connection).get_table_names())
    revision = None
    if SCHEMA_VERSION_TABLE in tables:
        # alembic's version table read directly: reading a catalogue never needs alembic itself.
        version = sa.table(SCHEMA_VERSION_TABLE, sa.column("version_num"))
        found = connection.execute(sa.select(version.c.version_num)).scalars().all()
        if len(found) > 1:
            raise CatalogueError(f"corrupt catalogue: several schema revisions {found}")
        revision = found[0] if found else None
    return SchemaState(empty=not (tables - {SCHEMA_VERSION_TABLE}), revision=revision, tables=tables)


def probe(location: Location) -> SchemaState:
    """Look inside a database without changing it.

    SQLite: a read-only connection.  When the file has no ``-wal`` beside it, the
    file alone holds the whole database and it is opened ``immutable`` — SQLite
    then creates no side files either (a plain read-only connection to a WAL
    database would leave ``-wal`` and ``-shm`` behind).
    """
    connection = None
    if location.path is not None:
        # Plain `build` fills the default catalogue; --db is needed only for another file.
        default = os.path.realpath(catalogue_path(database_location(None))) == os.path.realpath(location.path)
        check_sqlite_file(location.path, hint="whist-catalogue build" if default
                          else f"whist-catalogue build --db {location.path}")
        wal = location.path.with_name(location.path.name + "-wal")
        mode = "ro" if wal.exists() else "ro&immutable=1"
        try:
            connection = sqlite3.connect(f"file:{quote(str(location.path))}?mode={mode}", uri=True)
        except sqlite3.Error as exc:
            raise CatalogueError(f"cannot open {location.path}: {exc}") from None
        engine = sa.create_engine("sqlite+pysqlite://", creator=lambda: connection, poolclass=sa.pool.StaticPool)
    else:
        engine = _server_engine(location.url)
    try:
        with database_errors(location), engine.connect() as conn:
            return _inspect(conn)
    finally:
        engine.dispose()
        if connection is not None:
            connection.close()


def _check_readable(location: Location, state: SchemaState) -> None:
    if state.empty:
        raise CatalogueError(f"not a catalogue: {location} is an empty database (build one with whist-catalogue build)")
    if not state.ours:
        raise CatalogueError(f"not a catalogue: {location} is a database of some other application")
    _check_known(location, state)
    if state.revision != head_revision():
        raise CatalogueError(
            f"catalogue {location} has an older schema (revision {state.revision});"
            " upgrade it with: whist-catalogue build --db ... (it resumes where the catalogue stopped)"
        )


def _check_known(location: Location, state: SchemaState) -> None:
    if state.revision not in revisions():
        raise CatalogueError(
            f"catalogue {location} was written by a newer version of whist-catalogue"
            f" (schema revision {state.revision}); upgrade the software to read it"
        )


def reader_engine(location: str | os.PathLike[str] | Location) -> Engine:
    """An engine for reading a catalogue of the current schema; changes nothing on disk."""
    loc = location if isinstance(location, Location) else parse_location(location)
    _check_readable(loc, probe(loc))
    if loc.path is not None:
        return _sqlite_engine(loc.path, writer=False)
    return _server_engine(loc.url)


def writer_engine(location: str | os.PathLike[str] | Location, *, create_parent: bool = False) -> Engine:
    """An engine for ``build``: the database is created if missing, upgraded if older, refused if foreign or newer."""
    loc = location if isinstance(location, Location) else parse_location(location)
    path = loc.path
    if path is not None:
        _check_writable(path)
    if path is None or path.exists() and path.stat().st_size > 0:
        state = probe(loc)
        if not state.empty and not state.ours:
            raise CatalogueError(f"not a catalogue: {loc} is a database of some other application")
        if state.ours:
            _check_known(loc, state)
    elif path.exists() and not path.is_file():
        raise CatalogueError(f"not a file: {path}")
    elif not path.parent.is_dir():
        if not create_parent:
            raise CatalogueError(f"cannot create {path}: no directory {path.parent}")
        path.parent.mkdir(parents=True, exist_ok=True)
    engine = _server_engine(loc.url) if path is None else _sqlite_engine(path, writer=True)
    with database_errors(loc):
        upgrade(engine)
    return engine


def _check_writable(path: Path) -> None:
    """A catalogue file a build cannot write (read-only, immutable, on a read-only mount), or whose directory
    cannot take the write-ahead log beside it, is refused before SQLite opens it: SQLite would open it read-only
    without a word, leave ``-wal`` and ``-shm`` behind, and fail only at the first write."""
    if path.exists() and path.is_file() and not os.access(path, os.W_OK):
        raise CatalogueError(f"cannot build {path}: the file is not writable (read-only or immutable)")
    if path.parent.is_dir() and not os.access(path.parent, os.W_OK | os.X_OK):
        raise CatalogueError(f"cannot build {path}: its directory {path.parent} is not writable")


# -- migrations -----------------------------------------------------------------------------------


def alembic_config(connection: sa.Connection | None = None):  # noqa: ANN201 - alembic.config.Config
    """The alembic configuration, built in code so it works from an installed package.

    With ``connection``, ``env.py`` migrates that connection; without, it reads
    the URL from :func:`whist_catalogue.store.settings.database_location`.
    """
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", script_location())
    config.set_main_option("version_table", SCHEMA_VERSION_TABLE)
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The revision this software writes and reads."""
    chain = revisions()
    if not chain:
        raise CatalogueError("the catalogue's migrations are not installed (no migrations/versions/*.py)")
    return chain[-1]


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the database to ``revision`` with the migrations in ``migrations/versions``."""
    from alembic import command

    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), revision)


def recorded_time(cell: object) -> datetime | None:
    """A ``built_at`` cell as read without SQLAlchemy's types (SQLite's text, PostgreSQL's timestamp), or None when
    it holds no time."""
    if isinstance(cell, str):
        try:
            cell = datetime.fromisoformat(cell)
        except ValueError:
            return None
    return cell if isinstance(cell, datetime) else None
