"""Long work off the event loop: a ``QRunnable`` on a ``QThreadPool``, signals on a separate ``QObject``.

Modelled on superqt's ``_qthreading``: :meth:`Worker.run` wraps :meth:`Worker.work`
and turns any exception into :attr:`WorkerSignals.errored`; a function that is a
generator reports progress through its yields and is cancelled through an
abort flag checked between yields.  Workers never touch widgets: everything
they produce travels through the signals, which Qt queues to the GUI thread.

A worker that needs the catalogue opens its own (the function it runs does),
so no database connection crosses threads.  A worker listens for a first use's
Numba compile in its thread (:func:`whist_catalogue.theory.jit.announcing`) and
passes the words on as ``preparing``: the window says so, whichever view asked.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, NamedTuple

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from whist_catalogue.theory.jit import announcing  # light: Numba loads with the kernels, not here

__all__ = ["WorkerSignals", "Worker", "Aborted", "WorkerPool", "LatestOnly", "EngineStep", "with_engine_progress",
           "reporting"]


class Aborted(Exception):
    """Raised inside a worker whose abort flag was set (reported as ``aborted``, not ``errored``)."""


def reporting(abort_requested: Callable[[], bool] | None, report_progress: Callable[[Any], None] | None,
              shown: Callable[..., Any] = lambda *args: args) -> Callable[..., None]:
    """The progress callback a core function takes, for a worker running it: the work stops (:class:`Aborted`)
    once the user has cancelled, else the view hears what ``shown`` makes of the callback's arguments."""

    def progress(*args: Any) -> None:
        if abort_requested is not None and abort_requested():
            raise Aborted()
        if report_progress is not None:
            report_progress(shown(*args))

    return progress


class WorkerSignals(QObject):
    """What a worker reports, in this order: ``progress``…, then ``returned``/``errored``/``aborted``, ``finished``."""

    progress = Signal(object)
    """A value yielded by a generator function."""
    returned = Signal(object)
    """The function's result (a generator's return value)."""
    errored = Signal(object)
    """The exception the function raised."""
    aborted = Signal()
    """The work stopped early because :meth:`Worker.abort` was called."""
    preparing = Signal(str)
    """The work waits while the engine is prepared (Numba compiles a kernel on its first use): what to say."""
    finished = Signal()
    """Always emitted last."""


class Worker(QRunnable):
    """Run ``func(*args, **kwargs)`` on a thread pool.

    If ``func`` is a generator function, each yielded value is emitted as
    ``progress`` and the abort flag is checked between yields; the generator's
    ``return`` value is emitted as ``returned``.  ``func`` may also accept an
    ``abort_requested`` keyword (a callable returning the flag) to poll it
    where it has no yields, and a ``report_progress`` keyword (a callable that
    emits ``progress``) to report from inside a callback.
    """

    def __init__(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        super().__init__()
        self.setAutoDelete(False)  # Python keeps the reference; see WorkerPool
        self.signals = WorkerSignals()
        self._func = func
        self._args = args
        self._kwargs = kwargs
        self._abort = False
        try:
            parameters = set(inspect.signature(func).parameters)
        except (TypeError, ValueError):  # a callable Python cannot inspect takes neither keyword
            parameters = set()
        if "abort_requested" in parameters:
            self._kwargs["abort_requested"] = self.abort_requested
        if "report_progress" in parameters:
            self._kwargs["report_progress"] = self.signals.progress.emit

    # -- control ----------------------------------------------------------------------------
    def abort(self) -> None:
        """Ask the work to stop at its next yield (or next poll of ``abort_requested``)."""
        self._abort = True

    def abort_requested(self) -> bool:
        return self._abort

    # -- running ----------------------------------------------------------------------------
    def work(self) -> Any:
        result = self._func(*self._args, **self._kwargs)
        if not inspect.isgenerator(result):
            return result
        generator = result
        while True:
            if self._abort:
                generator.close()
                raise Aborted()
            try:
                step = next(generator)
            except StopIteration as stop:
                return stop.value
            self.signals.progress.emit(step)

    def run(self) -> None:  # QRunnable override
        try:
            with announcing(self.signals.preparing.emit):  # a first use's compile, said by the window
                result = self.work()
            if self._abort:
                raise Aborted()  # however the work ended, it was cancelled first
        except Exception as exc:  # noqa: BLE001 - every failure becomes a message in the window
            if isinstance(exc, Aborted) or self._abort:
                self.signals.aborted.emit()
            else:
                self.signals.errored.emit(exc)
        else:
            self.signals.returned.emit(result)
        finally:
            self.signals.finished.emit()


class WorkerPool(QObject):
    """A thread pool that keeps its running workers alive and can abort and wait for them all."""

    preparing = Signal(str)
    """A worker waits while the engine is prepared (the words to show), or "" once it goes on or ends: the
    window says so whichever view started the work."""

    def __init__(self, parent: QObject | None = None, max_threads: int = 2) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max_threads)
        self._running: set[Worker] = set()
        self._preparing: set[Worker] = set()

    def start(self, worker: Worker) -> Worker:
        self._running.add(worker)
        worker.signals.finished.connect(lambda w=worker: self._ended(w))
        worker.signals.preparing.connect(lambda text, w=worker: self._prepared(w, text))
        worker.signals.progress.connect(lambda _, w=worker: self._went_on(w))
        self._pool.start(worker)
        return worker

    def _prepared(self, worker: Worker, text: str) -> None:
        self._preparing.add(worker)
        self.preparing.emit(text)

    def _went_on(self, worker: Worker) -> None:
        # A compile runs in the worker's thread: anything it reports after one has begun came after it ended.
        if worker in self._preparing:
            self._preparing.discard(worker)
            if not self._preparing:
                self.preparing.emit("")

    def _ended(self, worker: Worker) -> None:
        self._running.discard(worker)
        self._went_on(worker)

    @property
    def active(self) -> int:
        return len(self._running)

    def abort_all(self) -> None:
        for worker in list(self._running):
            worker.abort()

    def wait(self, msecs: int = -1) -> bool:
        """Wait for every worker to finish (``msecs`` < 0: no limit)."""
        return self._pool.waitForDone(msecs)


class LatestOnly:
    """One kind of background work for a view, delivering only the answer to the latest request.

    When the user asks again before an answer arrives (another deal typed), the
    older answer is stale: it is dropped, whether a result, an error or an abort.
    :meth:`cancel` drops the latest too; :meth:`stop` asks it to stop and still
    delivers how it ends (``aborted``, or its answer if it finished first).
    """

    def __init__(self, pool: WorkerPool, returned: Callable[[Any], None], errored: Callable[[Exception], None],
                 progress: Callable[[Any], None] | None = None, aborted: Callable[[], None] | None = None,
                 preparing: Callable[[str], None] | None = None) -> None:
        self._pool = pool
        self._handlers: dict[str, Callable[..., None] | None] = {
            "returned": returned, "errored": errored, "progress": progress, "aborted": aborted, "preparing": preparing}
        self._generation = 0
        self.worker: Worker | None = None
        """The latest request's worker while its answer is awaited, else None."""

    @property
    def busy(self) -> bool:
        """Whether an answer is still awaited."""
        return self.worker is not None

    def run(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Worker:
        self._generation += 1
        generation = self._generation
        worker = Worker(func, *args, **kwargs)
        for name, handler in self._handlers.items():
            if handler is not None:
                signal = getattr(worker.signals, name)
                signal.connect(lambda *payload, name=name: self._deliver(generation, name, payload))
        self.worker = self._pool.start(worker)
        return self.worker

    def stop(self) -> None:
        """Ask the latest work to stop at its next abort point; how it ends is still delivered."""
        if self.worker is not None:
            self.worker.abort()

    def cancel(self) -> None:
        """Stop waiting: whatever the latest request answers is dropped, and its worker is asked to abort.

        Work run through :func:`with_engine_progress` stops within a few million deals of the engine;
        other work with no abort point runs to its end in the background, its answer discarded.
        """
        self._generation += 1
        self.stop()
        self.worker = None

    def _deliver(self, generation: int, name: str, payload: tuple[Any, ...]) -> None:
        if generation != self._generation:
            return
        if name not in ("progress", "preparing"):  # an answer: none is awaited any more
            self.worker = None
        handler = self._handlers[name]
        assert handler is not None
        handler(*payload)


class EngineStep(NamedTuple):
    """The engine's work as a view shows it: the plan in words, and the deals valued of all it plans."""

    text: str
    done: int
    total: int
    """0 while the work has nothing to count (a level read back, the answer assembled): a busy bar."""


class _EngineWatch:
    """An engine observer for a worker (:class:`whist_catalogue.engine.plan.EngineObserver`): the plan and the
    progress as :class:`EngineStep` progress signals, the worker's abort flag as a stop within a chunk."""

    def __init__(self, abort_requested: Callable[[], bool], report: Callable[[Any], None]) -> None:
        self._abort_requested = abort_requested
        self._report = report
        self._plan: Any = None
        self._text = ""

    def planned(self, plan: Any) -> None:
        if self._abort_requested():
            raise Aborted()
        self._plan, self._text = plan, f"Not in the catalogue: {plan.describe()}"
        # No count yet: reading the seed level back takes seconds, and a bar at 0 % meanwhile looks stuck.
        self._report(EngineStep(self._text, 0, 0))

    def progress(self, n: int, done: int, total: int) -> None:
        if self._abort_requested():
            raise Aborted()
        overall = self._plan.overall(n, done)
        # Every deal valued: what is left (the deal's own moves and quantities) has no count either.
        self._report(EngineStep(self._text, overall, 0 if overall >= self._plan.deals else self._plan.deals))


def with_engine_progress(func: Callable[..., Any], *args: Any, abort_requested: Callable[[], bool],
                         report_progress: Callable[[Any], None]) -> Any:
    """``func(*args)`` in a worker, telling the view what the engine will compute and how far it is
    (:class:`EngineStep`), and stopping the engine when the worker is aborted (its finished levels are kept)."""
    from whist_catalogue.engine.plan import observing  # light: no NumPy, no Numba

    with observing(_EngineWatch(abort_requested, report_progress)):
        return func(*args)
