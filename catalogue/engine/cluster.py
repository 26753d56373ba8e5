"""The engine on a Dask cluster: each level split by rank ranges over worker processes
(docs/spec.md §4–5 ``--cluster``, §7).

Level n depends only on level n − 1, and its deals are independent of each other
(§7.2 of the multi-suit paper: a deal's value comes from its reductions D_ij
one level down).  So a level is cut into rank ranges, one task each, and:

1. level n − 1 reaches the workers as a file of 2-byte value codes (by rank)
   and the small table of the distinct values they stand for, in a work
   directory every worker sees.  Workers on one machine share its pages
   through the page cache, so there is no copy per task, nor per worker of the
   file (docs/cluster.md measures this against scattering it);
2. a task (:func:`value_range`) values its range, runs the papers' checks on
   it and compares it with Theorem 9.1 of the single-suit paper, and returns
   a :class:`RangeResult`: its deals as codes into its own small value table,
   the counts of each value and of each check;
3. the client hands each finished range to a callback (:func:`run_levels`'s
   ``on_range``) and writes its codes into level n's file.  A task whose worker
   dies is recomputed by the scheduler, and a range is written only once its
   whole result has arrived, so nothing is ever half-written.  When the last
   range is in, the level's table is put in the order of V, the codes are
   re-expressed in it, and the file is renamed into place: level n is then the
   input of level n + 1.

The client holds no level in memory: level n streams to disk range by range,
which is what takes the engine past one machine's memory (n = 18).
"""

from __future__ import annotations

import itertools
import math
import os
import shutil
import tempfile
import threading
import time
import uuid
from collections import Counter
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

import numpy as np

from whist_catalogue.engine.codes import Encoder, ValueTable, encode
from whist_catalogue.engine.levels import Checks, Level, compute_range
from whist_catalogue.engine.scan import LevelReport, level_report, two_theories_range, two_theories_result
from whist_catalogue.errors import ClusterError
from whist_catalogue.theory.ranking import level_size
from whist_catalogue.theory.values import Value

if TYPE_CHECKING:
    import distributed

__all__ = [
    "ClusterError",
    "LevelFile",
    "RangeResult",
    "LevelTotals",
    "parse_address",
    "connect",
    "connect_timeout",
    "value_range",
    "value_ranges",
    "save_level",
    "chunk_computer",
    "work_directory",
    "run_levels",
    "cluster_scan",
    "MAX_RANGE",
]

MAX_RANGE = 1 << 22
"""Deals per task at most: 4 M deals take a few seconds on one core, and their codes are 4–8 MB to ship back."""
MIN_RANGE = 1 << 14
"""Deals per task at least, so that small levels are not drowned in scheduling overhead."""
TASKS_PER_WORKER = 8
"""Ranges per worker and level, so that the slowest task of a level leaves the other workers little idle time."""
CONNECT_TIMEOUT = 10.0
"""Seconds :func:`connect` waits for a scheduler to answer, and then for its first worker."""
TIMEOUT_ENV = "WHIST_CATALOGUE_CLUSTER_TIMEOUT"
"""The environment variable that sets :func:`connect`'s wait instead (seconds; shorter to fail fast, longer
for a scheduler still starting)."""


def parse_address(text: str) -> str | int:
    """``tcp://HOST:PORT`` (returned as given) or ``local:K`` (returned as the int K ≥ 1)."""
    if text.startswith("local:"):
        count = text.removeprefix("local:")
        if not (count.isascii() and count.isdigit()) or int(count) < 1:
            raise ClusterError(f"--cluster {text!r}: local:K needs a number of workers K ≥ 1")
        cap = max_local_workers()
        if int(count) > cap:
            # Each worker is a process of its own (about 100 MB and a second or more to start), and each task's
            # kernel already uses every core: thousands of them would only exhaust the machine, never finish.
            raise ClusterError(f"--cluster {text}: at most {cap} local worker processes on this machine"
                               f" ({os.cpu_count() or 1} cores; each worker's kernels use every core already)")
        return int(count)
    host, _, port = text.removeprefix("tcp://").rpartition(":")
    if not text.startswith("tcp://") or not host or not port.isdigit():
        raise ClusterError(f"--cluster {text!r}: expected tcp://HOST:PORT (a Dask scheduler) or local:K")
    return text


def max_local_workers() -> int:
    """The most worker processes ``local:K`` starts: twice the machine's cores, and at least 4."""
    return max(4, 2 * (os.cpu_count() or 1))


def connect_timeout() -> float:
    """``$WHIST_CATALOGUE_CLUSTER_TIMEOUT`` if set, else :data:`CONNECT_TIMEOUT`."""
    text = os.environ.get(TIMEOUT_ENV, "").strip()
    if not text:
        return CONNECT_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0  # refused below, with the out-of-range numbers
    if not (seconds > 0 and math.isfinite(seconds)):
        raise ClusterError(f"{TIMEOUT_ENV}={text!r}: expected a number of seconds above 0")
    return seconds


@contextmanager
def connect(address: str, *, timeout: float | None = None) -> Iterator[distributed.Client]:
    """A Dask client of the scheduler at ``address``, or of a local cluster of K worker processes for ``local:K``.

    ``timeout`` (default :func:`connect_timeout`) bounds the wait for the scheduler to answer and then for
    its first worker."""
    target = parse_address(address)
    try:
        import distributed
    except ModuleNotFoundError:
        raise ClusterError("--cluster needs Dask: pip install 'whist-catalogue[cluster]'") from None
    import logging

    if isinstance(target, int):
        # One thread a worker: the kernels hold the GIL, and each task sets its own Numba threads.
        # No memory limit: the page cache behind the level files counts in a worker's RSS, and a
        # nanny that kills a worker for it would only recompute the same task.
        with distributed.LocalCluster(n_workers=target, threads_per_worker=1, processes=True,
                                      dashboard_address=":0", memory_limit=0,
                                      silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as client:
            yield client
        return
    if timeout is None:
        timeout = connect_timeout()
    try:
        client = distributed.Client(target, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"--cluster {address}: no Dask scheduler answers there ({exc})") from None
    with client:
        if not client.scheduler_info()["workers"]:
            client.wait_for_workers(1, timeout=timeout)
        yield client


@dataclass(frozen=True)
class LevelFile:
    """Where a level's values live: ``level-NN.codes.npy``, uint16 codes by rank, and ``level-NN.table.npy``,
    its :class:`~whist_catalogue.engine.codes.ValueTable` as int64 keys (``ValueTable.keys``), in a directory
    every worker sees at the same path."""

    directory: str
    n: int

    @property
    def codes_path(self) -> Path:
        return Path(self.directory) / f"level-{self.n:02d}.codes.npy"

    @property
    def table_path(self) -> Path:
        return Path(self.directory) / f"level-{self.n:02d}.values.npz"

    def exists(self) -> bool:
        if not self.table_path.is_file() and (Path(self.directory) / f"level-{self.n:02d}.table.npy").is_file():
            raise ClusterError(_EARLIER_VERSION.format(what=f"level {self.n}", directory=self.directory))
        return self.codes_path.is_file() and self.table_path.is_file()

    def open(self) -> Level:
        """The level, its codes memory-mapped read-only: processes on one machine share one copy."""
        return Level(self.n, np.load(self.codes_path, mmap_mode="r"), _load_table(self.table_path))

    def remove(self) -> None:
        for path in (self.codes_path, self.table_path):
            path.unlink(missing_ok=True)


_EARLIER_VERSION = ("{what} in {directory} was written by an earlier version of whist-catalogue, whose value tables "
                    "this one does not read; run again in an empty work directory")


def _save_table(path: Path, table: ValueTable, **more: Any) -> None:
    """A value table as its two arrays, numerator·2^24 (int32) and infinitesimal rank (int8), never as the
    engine's packed keys: their layout is the engine's business and has changed before, while these
    files outlive a run (a level stopped today is resumed by tomorrow's version)."""
    partial = path.with_name(path.name + ".partial")  # not a name the journal's glob matches
    with partial.open("wb") as f:
        np.savez(f, numerator=np.asarray(table.numerator, np.int32),
                 infinitesimal=np.asarray(table.infinitesimal, np.int8), **more)
    os.replace(partial, path)


def _load_table(path: Path, prefix: str = "") -> ValueTable:
    with np.load(path) as z:
        return ValueTable(z[prefix + "numerator"].copy(), z[prefix + "infinitesimal"].copy())


_kernel_lock = threading.Lock()  # Numba's default threading layer runs one parallel kernel at a time
_most_threads: list[int] = []
"""The worker's Numba threads before a task first set them (what it may use at most), read once under the lock."""


@lru_cache(maxsize=1)  # only one level is ever needed: the one before goes first
def _opened(source: LevelFile) -> Level:
    """Level n − 1 as a worker process reads it: opened once per level, not once per task."""
    return source.open()


@dataclass
class RangeResult:
    """What a task sends back for the deals of level n with ranks in [start, stop)."""

    n: int
    start: int
    stop: int
    table: ValueTable
    """The range's distinct values."""
    codes: np.ndarray
    """Each deal's value as an index into ``table`` (uint8 when the range has ≤ 256 values, else uint16)."""
    counts: np.ndarray
    """Deals with each value of ``table`` (int64)."""
    checks: Checks
    theorem_9_1: tuple[int, int | None]
    """Deals whose outcome disagrees with Theorem 9.1 of the single-suit paper, and the first such rank."""
    flagged: np.ndarray
    """Ranks of the range's counterexamples to any check (int64): few, so sent instead of a byte a deal."""
    flag_bits: np.ndarray
    """Their check bits (uint8): bit c for ``CHECK_NAMES[c]``, as ``Level.flags``."""

    def flags(self) -> np.ndarray:
        """The check bits of every deal of the range (uint8, indexed by rank − start)."""
        flags = np.zeros(self.stop - self.start, np.uint8)
        flags[self.flagged - self.start] = self.flag_bits
        return flags


def value_range(n: int, start: int, stop: int, previous: LevelFile | None, threads: int | dict = 1) -> RangeResult:
    """A cluster task: the values, checks and the Theorem 9.1 comparison of level n's ranks [start, stop).

    ``threads`` is how many Numba threads the kernel uses, or a map from host to the number of
    worker processes there (each then takes its share of the host's cores).
    """
    import numba

    if isinstance(threads, dict):
        from distributed import get_worker

        host = get_worker().address.rsplit(":", 1)[0]
        count = max(1, (os.cpu_count() or 1) // threads.get(host, 1))
    else:
        count = threads
    level = _opened(previous) if previous is not None else Level.empty()
    with _kernel_lock:
        if not _most_threads:
            _most_threads.append(numba.get_num_threads())
        numba.set_num_threads(min(count, _most_threads[0]))
        part = compute_range(n, level, start, stop, checks=True)
    codes, table = encode(part.numerator, part.infinitesimal)
    assert part.checks is not None and part.flags is not None
    flagged = np.flatnonzero(part.flags)
    return RangeResult(
        n, start, stop, table, codes.astype(np.uint8) if len(table) <= 256 else codes,
        np.bincount(codes, minlength=len(table)), part.checks,
        two_theories_range(n, start, stop, codes, table), start + flagged, part.flags[flagged],
    )


@dataclass
class LevelTotals:
    """A whole level reduced by the client from its ranges: value counts, the checks, Theorem 9.1."""

    n: int
    file: LevelFile
    checks: Checks
    counts: dict[int, int] = field(default_factory=dict)
    """Deals per value key (``ValueTable.keys``)."""
    theorem_9_1: tuple[int, int | None] = (0, None)
    seconds: float = 0.0

    def value_counts(self) -> dict[Value, int]:
        keys = sorted(self.counts)
        table = ValueTable.from_keys(np.array(keys, np.int64))
        return {table.value(c): self.counts[k] for c, k in enumerate(keys)}


class _LevelWriter:
    """Level n's codes file as ranges arrive in any order: one growing table, put in V's order at the end.

    Ranges go to ``level-NN.codes.partial.npy`` with ``os.pwrite``, not through a memory map, so the
    client holds no more of the level than the range in hand (level 18 is 18 GB).  Beside it, a
    journal (``level-NN.codes.ranges/``) keeps the plan of ranges and, once a range's codes are on
    disk, its summary and the table's state: a client stopped in the middle of a level resumes it
    from the journal with the same work directory, losing only the ranges in flight.
    """

    SLICE = 1 << 25
    """Codes renumbered at a time at the end (64 MB)."""

    def __init__(self, file: LevelFile, ranges: list[tuple[int, int]]) -> None:
        self.file = file
        self.size = level_size(file.n)
        self.partial = file.codes_path.with_suffix(".partial.npy")
        self.journal = file.codes_path.with_suffix(".ranges")
        plan = self.journal / "plan.npy"
        self.done: list[RangeResult] = []
        self.encoder = Encoder()
        if self.partial.is_file() and plan.is_file():
            self.ranges = [(int(start), int(stop)) for start, stop in np.load(plan)]
            with self.partial.open("rb") as f:
                np.lib.format.read_magic(f)
                np.lib.format.read_array_header_1_0(f)
                self.offset = f.tell()
            summaries = sorted(self.journal.glob("range-*.npz"))
            self.done = [_read_summary(file.n, path) for path in summaries]
            if summaries:
                # The table only grows, so its largest saved state is its last, and holds every earlier one.
                seen = max((_load_table(path, "seen_") for path in summaries), key=len)
                self.encoder.add(seen.numerator, seen.infinitesimal)
        else:
            self.ranges = ranges
            shutil.rmtree(self.journal, ignore_errors=True)
            self.journal.mkdir(parents=True)
            np.save(plan, np.array(ranges, np.int64).reshape(-1, 2))
            with self.partial.open("wb") as f:
                np.lib.format.write_array_header_1_0(f, {"descr": "<u2", "fortran_order": False,
                                                         "shape": (self.size,)})
                self.offset = f.tell()
                f.truncate(self.offset + 2 * self.size)
        self.fd = os.open(self.partial, os.O_RDWR)

    def todo(self) -> list[tuple[int, int]]:
        finished = {(r.start, r.stop) for r in self.done}
        return [r for r in self.ranges if r not in finished]

    def write(self, result: RangeResult) -> None:
        provisional = self.encoder.add(result.table.numerator, result.table.infinitesimal)
        codes = provisional[result.codes].astype("<u2", copy=False)
        os.pwrite(self.fd, codes.tobytes(), self.offset + 2 * result.start)
        os.fdatasync(self.fd)  # the journal never names a range whose codes could be lost
        seen = ValueTable(*self.encoder.seen())  # in first-seen order: the provisional codes
        _write_summary(self.journal / f"range-{result.start:012d}.npz", result, seen)

    def finish(self) -> None:
        table, final = self.encoder.finish()
        for start in range(0, self.size, self.SLICE):
            count = min(self.SLICE, self.size - start)
            codes = np.frombuffer(os.pread(self.fd, 2 * count, self.offset + 2 * start), "<u2")
            os.pwrite(self.fd, final[codes].astype("<u2", copy=False).tobytes(), self.offset + 2 * start)
        os.fsync(self.fd)
        os.close(self.fd)
        _save_table(self.file.table_path, table)
        os.replace(self.partial, self.file.codes_path)
        shutil.rmtree(self.journal, ignore_errors=True)


def _write_summary(path: Path, result: RangeResult, seen: ValueTable) -> None:
    checks = result.checks
    bad, at = result.theorem_9_1
    _save_table(path, result.table, stop=result.stop, counts=result.counts, checked=checks.checked,
                counterexamples=checks.counterexamples, first=[-1 if f is None else f for f in checks.first],
                theorem=[bad, -1 if at is None else at], flagged=result.flagged, flag_bits=result.flag_bits,
                seen_numerator=seen.numerator, seen_infinitesimal=seen.infinitesimal)


def _read_summary(n: int, path: Path) -> RangeResult:
    with np.load(path) as z:
        if "numerator" not in z:
            raise ClusterError(_EARLIER_VERSION.format(what=f"the journal of level {n}", directory=path.parent.parent))
        start = int(path.stem.removeprefix("range-"))
        checks = Checks(n, z["checked"].copy(), z["counterexamples"].copy(),
                        [None if f < 0 else int(f) for f in z["first"]])
        bad, at = (int(x) for x in z["theorem"])
        return RangeResult(n, start, int(z["stop"]), _load_table(path), np.zeros(0, np.uint8),
                           z["counts"].copy(), checks, (bad, None if at < 0 else at), z["flagged"].copy(),
                           z["flag_bits"].copy())


def _ranges(size: int, workers: int, max_range: int) -> list[tuple[int, int]]:
    step = min(max_range, max(MIN_RANGE, -(-size // (TASKS_PER_WORKER * workers))))
    return [(s, min(size, s + step)) for s in range(0, size, step)]


def value_ranges(client, n: int, previous: LevelFile | None, ranges: list[tuple[int, int]]) -> Iterator[RangeResult]:
    """The given rank ranges of level n valued on the cluster, each yielded as soon as it is finished (in any order).

    ``previous`` is level n − 1 on storage every worker sees (None for n = 1; :func:`save_level` puts an
    in-memory level there).  A range whose worker dies is recomputed by the scheduler; the caller sees
    each range once, whole.  This is the seam for the catalogue's build: it packs each result into a
    chunk of the level store and commits it in one transaction.
    """
    from distributed import as_completed

    # Worker processes per host: each task takes its host's cores divided among them.
    hosts = dict(Counter(address.rsplit(":", 1)[0] for address in client.scheduler_info()["workers"]))
    run = uuid.uuid4().hex[:8]
    futures = [client.submit(value_range, n, start, stop, previous, hosts, key=f"whist-{run}-{n}-{start}")
               for start, stop in ranges]
    for future, result in as_completed(futures, with_results=True):
        future.release()
        yield result


def save_level(directory: str | os.PathLike, level: Level) -> LevelFile:
    """Write an in-memory level where the workers can read it (level 0 they make themselves: pass None for it)."""
    Path(directory).mkdir(parents=True, exist_ok=True)
    file = LevelFile(str(Path(directory).resolve()), level.n)
    partial = file.codes_path.with_suffix(".partial.npy")
    np.save(partial, np.ascontiguousarray(level.codes, np.uint16))
    _save_table(file.table_path, level.table)
    os.replace(partial, file.codes_path)
    return file


def chunk_computer(client, directory: str | os.PathLike) -> Callable[[int, Level, list[int]], Iterator[tuple[int, bytes]]]:
    """``compute(n, previous, indexes)`` for the catalogue's build (``store.build.build_steps(compute_chunks=…)``):
    the level store's chunks of level n with those indexes, valued on the cluster and yielded as each finishes.

    Level n − 1 (in the build's memory) is saved to ``directory`` for the workers first and removed after.
    """
    from whist_catalogue.engine.chunks import CHUNK_DEALS, pack_chunk

    def compute(n: int, previous: Level, indexes: list[int]) -> Iterator[tuple[int, bytes]]:
        source = save_level(directory, previous) if previous.n > 0 else None
        size = level_size(n)
        ranges = [(i * CHUNK_DEALS, min(size, (i + 1) * CHUNK_DEALS)) for i in indexes]
        try:
            for result in value_ranges(client, n, source, ranges):
                yield result.start // CHUNK_DEALS, pack_chunk(n, result.start, result.codes, result.table,
                                                             result.flags())
        finally:
            if source is not None:
                source.remove()

    return compute


def run_levels(client, max_n: int, directory: str | os.PathLike, *, min_n: int = 1,
               max_range: int = MAX_RANGE, progress: Callable[[int, int, int], None] | None = None,
               on_range: Callable[[RangeResult], None] | None = None, keep: bool = False) -> Iterator[LevelTotals]:
    """Levels min_n…max_n on the cluster of ``client``, each written to ``directory`` as a :class:`LevelFile`.

    Level min_n − 1 must already be there (or min_n = 1).  ``on_range`` sees every finished range in
    the client process, in the order they finish, before its codes are written; ``progress(n, done,
    total)`` counts the deals of finished ranges.  Only the level last computed is kept on disk unless
    ``keep``.  A level that an earlier call left unfinished in ``directory`` is resumed from its journal.
    """
    directory = str(Path(directory).resolve())
    previous = LevelFile(directory, min_n - 1) if min_n > 1 else None
    if previous is not None and not previous.exists():
        raise ClusterError(f"level {min_n - 1} is not in {directory}: it is the input of level {min_n}")
    for n in range(min_n, max_n + 1):
        started = time.perf_counter()
        size = level_size(n)
        totals = LevelTotals(n, LevelFile(directory, n), checks=Checks(n))
        writer = _LevelWriter(totals.file, _ranges(size, max(1, len(client.scheduler_info()["workers"])), max_range))
        mismatches, first_mismatch = 0, None
        done = 0
        fresh = value_ranges(client, n, previous, writer.todo())
        for result, new in itertools.chain(((r, False) for r in writer.done), ((r, True) for r in fresh)):
            if new:
                if on_range is not None:
                    on_range(result)
                writer.write(result)
            for key, count in zip(result.table.keys().tolist(), result.counts.tolist()):
                totals.counts[key] = totals.counts.get(key, 0) + count
            totals.checks.merge(result.checks)
            bad, at = result.theorem_9_1
            mismatches += bad
            if at is not None and (first_mismatch is None or at < first_mismatch):
                first_mismatch = at
            done += result.stop - result.start
            if progress:
                progress(n, done, size)
        writer.finish()
        totals.theorem_9_1 = (mismatches, first_mismatch)
        totals.seconds = time.perf_counter() - started
        if previous is not None and not keep:
            previous.remove()
        previous = totals.file
        yield totals


def cluster_scan(address: str, max_n: int, *, directory: str | os.PathLike | None = None, min_n: int = 1,
                 progress: Callable[[int, int, int], None] | None = None, max_range: int = MAX_RANGE,
                 client=None) -> Iterator[LevelReport]:
    """:func:`whist_catalogue.engine.scan.scan` on a cluster: the same reports, level by level.

    ``directory`` holds the level files (default: a temporary directory, removed at the end; with
    workers on other machines, pass one they all see at the same path; the last level stays there).  ``min_n`` > 1
    begins at that level, whose input level min_n − 1 must be in ``directory``: how a run stopped in a long
    level is resumed without redoing the levels before it.  ``client`` reuses an open Dask client instead
    of connecting to ``address``.
    """
    with (nullcontext(client) if client is not None else connect(address)) as dask, \
            work_directory(directory) as workdir:
        for totals in run_levels(dask, max_n, workdir, min_n=min_n, progress=progress, max_range=max_range):
            started = time.perf_counter()
            theorem = two_theories_result(totals.n, level_size(totals.n), *totals.theorem_9_1)
            report = level_report(totals.n, totals.value_counts(), totals.checks, theorem, 0.0)
            report.seconds = totals.seconds + time.perf_counter() - started
            yield report


@contextmanager
def work_directory(directory: str | os.PathLike | None) -> Iterator[str]:
    """``directory`` (created if need be), or a temporary directory removed at the end."""
    if directory is not None:
        try:
            Path(directory).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ClusterError(f"--workdir {directory}: {exc.strerror or exc}") from None
        yield str(directory)
        return
    workdir = tempfile.mkdtemp(prefix="whist-levels-")
    try:
        yield workdir
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

