"""What every view shares: where the catalogue is, the solver, the worker pool.

The solver is :func:`whist_catalogue.store.solvers.default_solver` — the catalogue first,
the engine as a fallback.  The views ask it from the GUI thread for quick
look-ups and from a worker for anything that may compute whole engine levels.
The catalogue is thread-safe; the engine (which appends levels as it computes
them) is not, so its part of the chain is serialised by a lock — and a
catalogue hit never waits for it.  The catalogue itself (the store, for search,
statistics and status) is opened lazily; anything that goes wrong there
becomes a message, not a crash.  Its table of two-hand endings, when it reaches
beyond the shipped one, answers the Multi-suit view's deals
(:func:`whist_catalogue.store.solvers.catalogue_endings`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from whist_catalogue.gui.workers import WorkerPool
from whist_catalogue.store.settings import database_location
from whist_catalogue.store.solvers import ChainSolver, ComputingSolver, catalogue_endings, default_solver
from whist_catalogue.theory.solution import Solver

if TYPE_CHECKING:
    from whist_catalogue.store.endings import CatalogueEndings

__all__ = ["AppContext"]


class AppContext(QObject):
    """The catalogue location, the shared solver and the worker pool of one window."""

    catalogue_changed = Signal()
    """The catalogue was (re)opened or rebuilt: views that show its contents refresh."""

    def __init__(self, db: str | os.PathLike[str] | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.db = os.fspath(db) if db else None
        self.pool = WorkerPool(self)
        self._solver: Solver | None = None
        self._catalogue: Any = None
        self._endings: CatalogueEndings | None = None
        self._endings_asked = False
        self.catalogue_problem: str | None = None
        """Why the catalogue could not be opened (for the views that read it), or None."""
        self.solver_problem: str | None = None
        """Why the catalogue could not be used for values (shown in the status bar), or None."""

    # -- where -------------------------------------------------------------------------------
    @property
    def location(self) -> str:
        """The catalogue's path or URL (the default file when none was given)."""
        return database_location(self.db)

    @property
    def default_location(self) -> str:
        """The catalogue used when none is chosen (``WHIST_CATALOGUE_DB``, else the data directory's file)."""
        return database_location(None)

    def set_database(self, db: str | os.PathLike[str] | None) -> None:
        self.db = os.fspath(db) if db else None
        self.reset()

    def reset(self) -> None:
        """Forget the solver and the catalogue: the next request opens them again (after a build, say)."""
        self._solver = None
        self.solver_problem = None
        if self._catalogue is not None:
            self._catalogue.close()
        self._catalogue = None
        self._endings, self._endings_asked = None, False
        self.catalogue_problem = None
        self.catalogue_changed.emit()

    # -- the catalogue ---------------------------------------------------------------------------
    def catalogue(self):
        """The open :class:`whist_catalogue.store.reader.Catalogue`, or None (with :attr:`catalogue_problem` saying why).

        The store's ``Catalogue`` is thread-safe (each call takes its own pooled
        connection), so workers may use it too.
        """
        if self._catalogue is None:
            try:
                from whist_catalogue.store.reader import open_catalogue

                self._catalogue = open_catalogue(self.location)
                self.catalogue_problem = None
            except Exception as exc:  # noqa: BLE001 - a missing or foreign catalogue is a message
                self.catalogue_problem = str(exc)
                return None
        return self._catalogue

    def endings(self) -> CatalogueEndings | None:
        """The catalogue's table of two-hand endings when it reaches beyond the shipped one, else None (no catalogue:
        the search answers, as without one).  Asked once per catalogue, from the GUI thread; the reader is shared by
        the workers (it is thread-safe).  A table found damaged raises, as every read of the catalogue does."""
        if not self._endings_asked:
            catalogue = self.catalogue()
            self._endings = catalogue_endings(catalogue=catalogue) if catalogue is not None else None
            self._endings_asked = True
        return self._endings

    # -- values ------------------------------------------------------------------------------
    @property
    def solver(self) -> Solver:
        """The solver every view uses (safe to call from the GUI thread and from workers)."""
        if self._solver is None:  # one for every thread: the catalogue and the engine are both thread-safe
            try:
                self._solver = default_solver(self.db)
            except Exception as exc:  # noqa: BLE001 - a bad catalogue must not stop the app
                self.solver_problem = f"catalogue not used for values: {exc}"
                self._solver = ComputingSolver()
        return self._solver

    def source_description(self) -> str:
        """One line for the status bar: where values come from."""
        solver = self.solver
        if self.solver_problem:
            return f"{self.solver_problem} — values are computed by the engine"
        if not isinstance(solver, ChainSolver):
            return "no catalogue built yet — values are computed by the engine (n ≤ 14)"
        home = os.path.expanduser("~")
        shown = "~" + self.location[len(home):] if self.location.startswith(home + os.sep) else self.location
        return f"catalogue {shown} — values beyond it computed by the engine"

    def shutdown(self, msecs: int = 10_000) -> None:
        """Abort running workers and wait for them, then close the catalogue (on closing the window)."""
        self.pool.abort_all()
        self.pool.wait(msecs)
        if self._catalogue is not None:
            self._catalogue.close()
            self._catalogue = None
        if self._solver is not None:
            self._solver.close()  # the solver's own catalogue: closing it lets SQLite remove the -wal and -shm files
