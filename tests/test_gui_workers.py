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
