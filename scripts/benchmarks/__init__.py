"""Benchmarks behind ``docs/benchmarks.md`` (``python -m whist_catalogue.scripts.benchmarks.<name>``)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterable, NamedTuple, TypeVar

T = TypeVar("T")
U = TypeVar("U")


def timed(call: Callable[[], T]) -> tuple[T, float, float]:
    """``call()``'s result, and the wall and CPU seconds (``time.process_time``, every thread) it took."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def timed_each(call: Callable[[U], T], items: Iterable[U]) -> tuple[list[T], list[float], list[float]]:
    """``call`` of each item, :func:`timed` alone: the results, and the wall and the CPU seconds of each call."""
    timings = [timed(lambda: call(item)) for item in items]
    return [t[0] for t in timings], [t[1] for t in timings], [t[2] for t in timings]


def median_p95_ms(seconds: list[float]) -> dict[str, float]:
    """The median and the 95th percentile of some timings, in milliseconds."""
    ms = sorted(s * 1000 for s in seconds)
    return {"median_ms": round(statistics.median(ms), 3), "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 3)}


class Process(NamedTuple):
    """What a command run in a process of its own wrote, and what it cost: wall and CPU seconds (user + system),
    and its own peak resident memory in KiB (``wait4``'s ``ru_maxrss``: not the largest of every child so far)."""

    stdout: str
    stderr: str
    wall: float
    cpu: float
    peak_kib: int


def run_timed(command: list[str], stdin: str = "", env: dict[str, str] | None = None) -> Process:
    """``command`` with ``stdin`` on its standard input and ``env`` added to this process's environment, start-up
    included; a command that fails stops the benchmark with its exit status and the end of its stderr."""
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        given.write(stdin.encode())
        given.seek(0)
        started = time.perf_counter()
        process = subprocess.Popen(command, stdin=given, stdout=out, stderr=err, env={**os.environ, **(env or {})})
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if process.returncode:
        raise SystemExit(f"{' '.join(command)} exited {process.returncode}: {stderr.strip()[-500:]}")
    return Process(stdout, stderr, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


def console_script() -> list[str]:
    """The command a user types: the installed console script beside this interpreter (else ``python -m``)."""
    script = Path(sys.executable).with_name("whist-catalogue")
    return [str(script)] if script.exists() else [sys.executable, "-m", "whist_catalogue"]
