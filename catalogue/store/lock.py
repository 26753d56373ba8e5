"""One writer at a time: the build lock of a catalogue (docs/spec.md §5; README, "Concurrency").

A build holds its catalogue's lock from before it opens the database for
writing until it has finished, been interrupted or failed; a second build on the
same catalogue is refused at once with one line naming the first
(:class:`CatalogueBusyError`: "another build is running (pid …)"), so no level
is ever computed twice.  Readers take no lock: SQLite's WAL lets them read
while a build writes, and each of their queries sees only committed levels.

* SQLite: an advisory ``flock`` on a file beside the catalogue,
  ``<catalogue>.build-lock``, which holds the owner's pid and is removed when the
  build ends.  The kernel drops the lock when its process dies, even by
  ``kill -9``; the file then left behind is taken over by the next build.
  The lock belongs to the file, not to the name it was given: the name is resolved
  through symbolic links first, so a build through a symlink meets the lock of one
  through the target; and a catalogue file with several names (hard links) is not
  built at all (:class:`CatalogueLinkedError`) — SQLite finds a database's
  write-ahead log by name, so two names are two logs, and a build through one name
  next to a reader or a build through another damages the file (SQLite's "How To
  Corrupt An SQLite Database File", §2.5 "Multiple links to the same file").
* PostgreSQL: a session-level advisory lock (``pg_try_advisory_lock``) on a
  connection held for the build; the message names the server process holding it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import TYPE_CHECKING

from whist_catalogue.errors import CatalogueBusyError, CatalogueError, CatalogueLinkedError
from whist_catalogue.store.database import Location, database_errors

if TYPE_CHECKING:
    import sqlalchemy as sa

__all__ = ["BuildLock", "lock_path", "ADVISORY_KEY"]

ADVISORY_KEY = 0x5768697374  # "Whist"
"""The PostgreSQL advisory lock key of a catalogue's build (one catalogue a database)."""


def lock_path(path: Path) -> Path:
    """The lock of the catalogue file at ``path``: beside the file itself, whatever symlinks lead to it."""
    real = Path(os.path.realpath(path))
    return real.with_name(real.name + ".build-lock")


class BuildLock:
    """The build lock of the catalogue at ``location``; a context manager (see the module docstring)."""

    def __init__(self, location: Location) -> None:
        self.location = location
        self._fd: int | None = None
        self._path: Path | None = None
        self._engine: sa.Engine | None = None
        self._connection: sa.Connection | None = None

    def acquire(self) -> BuildLock:
        """Take the lock, or raise :class:`CatalogueBusyError` at once; :meth:`release` gives it back."""
        if self.location.path is not None:
            self._lock_file(lock_path(self.location.path))
            try:
                self._refuse_hard_links(self.location.path)
            except BaseException:
                self.release()
                raise
        else:
            self._lock_server()
        return self

    def __enter__(self) -> BuildLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    # -- SQLite ---------------------------------------------------------------------------------
    def _lock_file(self, path: Path) -> None:
        if not path.parent.is_dir():
            return  # the writer reports the missing directory; there is nothing to lock yet
        while True:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise CatalogueError(f"cannot lock {self.location} for the build: {path}: {exc.strerror}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                owner = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
                os.close(fd)
                raise CatalogueBusyError(
                    f"another build is running on {self.location} (pid {owner}); wait for it to finish"
                ) from None
            # The previous owner may have removed the file between our open and our lock: then we
            # locked a file nobody else will see, so start again on the one now at the path.
            try:
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        self._fd, self._path = fd, path
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        except OSError as exc:  # a full disk: no build, and no lock file left behind either
            self.release()
            raise CatalogueError(f"cannot lock {self.location} for the build: {path}: {exc.strerror}") from None

    def _refuse_hard_links(self, path: Path) -> None:
        try:
            links = os.stat(path).st_nlink
        except OSError:
            return  # not there yet (a new catalogue), or the writer reports what is wrong with it
        if links > 1:
            raise CatalogueLinkedError(
                f"cannot build {self.location}: the file has {links} names (hard links), and SQLite keeps a"
                " database's write-ahead log by name, so builds and readers through different names would damage"
                " it; copy the file (cp) instead of linking it, or remove the other names"
            )

    # -- PostgreSQL -----------------------------------------------------------------------------
    def _lock_server(self) -> None:
        import sqlalchemy as sa

        self._engine = engine = sa.create_engine(self.location.url, poolclass=sa.pool.NullPool)
        with database_errors(self.location):
            self._connection = connection = engine.connect()
            got = connection.execute(sa.text("SELECT pg_try_advisory_lock(:key)"), {"key": ADVISORY_KEY}).scalar()
            connection.commit()
            if not got:
                holder = connection.execute(
                    sa.text("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted"
                            " AND ((classid::bigint << 32) | objid::bigint) = :key LIMIT 1"),
                    {"key": ADVISORY_KEY},
                ).scalar()
                self.release()
                raise CatalogueBusyError(
                    f"another build is running on {self.location} (server pid {holder or 'unknown'});"
                    " wait for it to finish"
                )

    def release(self) -> None:
        if self._fd is not None:
            try:
                if self._path is not None:
                    self._path.unlink(missing_ok=True)  # while still locked: no one can take it in between
            finally:
                os.close(self._fd)
                self._fd = None
        if self._connection is not None:
            try:
                self._connection.close()  # ends the session, and with it the advisory lock
            except Exception:  # noqa: BLE001 - a lost server has dropped the lock already
                pass
            self._connection = None
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None
