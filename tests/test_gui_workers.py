"""Workers: progress from a generator's yields, results, errors as signals, cancellation by an abort flag."""

import threading

import pytest

from whist_catalogue.gui.workers import Worker, WorkerPool


@pytest.fixture
def pool(qtbot):
    pool = WorkerPool()
    yield pool
    pool.abort_all()
    pool.wait(5000)


def counting(k):
    for i in range(k):
        yield i
    return "done"


def test_progress_then_returned_then_finished(qtbot, pool):
    seen, results = [], []
    worker = Worker(counting, 3)
    worker.signals.progress.connect(seen.append)
    worker.signals.returned.connect(results.append)
    with qtbot.waitSignals([worker.signals.returned, worker.signals.finished], order="strict"):
        pool.start(worker)
    assert seen == [0, 1, 2] and results == ["done"]
    qtbot.waitUntil(lambda: pool.active == 0)


def test_an_exception_becomes_errored(qtbot, pool):
    def broken():
        raise ValueError("no such deal")

    worker = Worker(broken)
    with qtbot.waitSignal(worker.signals.errored) as blocker:
        pool.start(worker)
    assert isinstance(blocker.args[0], ValueError)


def test_abort_stops_a_generator_between_yields(qtbot, pool):
    release = threading.Event()

    def endless():
        yield "started"
        while True:
            release.wait(0.01)
            yield "tick"

    worker = Worker(endless)
    with qtbot.waitSignal(worker.signals.progress):
        pool.start(worker)
    with qtbot.waitSignals([worker.signals.aborted, worker.signals.finished]):
        worker.abort()


def test_abort_requested_and_report_progress_are_passed_to_plain_functions(qtbot, pool):
    def polling(report_progress, abort_requested):
        report_progress("half way")
        while not abort_requested():
            pass
        return "stopped"

    worker = Worker(polling)
    with qtbot.waitSignal(worker.signals.progress) as blocker:
        pool.start(worker)
    assert blocker.args == ["half way"]
    with qtbot.waitSignal(worker.signals.aborted):
        worker.abort()


def test_a_first_use_compile_is_announced_by_the_worker_and_the_window(qtbot):
    """Numba compiles a kernel on its first use (no cache can hold one made at run time): the worker says
    'preparing the engine' before, the window's status bar shows it, and it goes once the work ends."""
    from gui_support import make_window

    from whist_catalogue.theory import jit

    window = make_window(qtbot)
    namespace: dict = {}
    exec("def triple(x):\n    return 3 * x\n", namespace)  # a new function each run: nothing cached
    triple = jit.kernel(namespace["triple"])
    heard = []
    worker = Worker(triple, 14)
    worker.signals.preparing.connect(heard.append)
    window.context.pool.start(worker)
    shown = []
    window.statusBar().messageChanged.connect(shown.append)
    with qtbot.waitSignal(worker.signals.returned) as result:
        pass
    assert result.args == [42] and heard == [jit.PREPARING]
    qtbot.waitUntil(lambda: window.context.pool.active == 0)
    assert shown[0].startswith("Preparing the engine (Numba compiles it") and shown[-1] == ""


def test_a_worker_waiting_for_the_engine_is_said_in_the_status_bar_until_it_goes_on(qtbot):
    from gui_support import make_window

    from whist_catalogue.gui.workers import Worker

    window = make_window(qtbot)
    shown: list[str] = []
    window.statusBar().messageChanged.connect(shown.append)
    release = threading.Event()

    def compiling():
        worker.signals.preparing.emit("preparing the engine (a first use)")  # what theory.jit.announcing says
        release.wait(5)
        yield "counting"  # the work goes on: the compile is over
        release.wait(5)
        return "done"

    worker = Worker(compiling)
    window.context.pool.start(worker)
    qtbot.waitUntil(lambda: shown == ["Preparing the engine (a first use) …"])
    with qtbot.waitSignal(worker.signals.progress):
        release.set()
    assert shown[-1] == ""  # the source of values is back
    qtbot.waitUntil(lambda: window.context.pool.active == 0)
