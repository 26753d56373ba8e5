"""Benchmarks of ``scan --cluster`` (docs/benchmarks.md, docs/cluster.md).

    python -m whist_catalogue.scripts.benchmarks.cluster --max-n 14 --workers 1 2 --share-n 15
    python -m whist_catalogue.scripts.benchmarks.cluster --cost-from DIR --cost-n 17
    python -m whist_catalogue.scripts.benchmarks.cluster --level-from DIR --level-n 17 --workers 2 --seconds 1800

Per K: a local cluster of K worker processes scans every deal up to ``--max-n``; per level the
wall time and the CPU seconds the workers spent (user + system, read from the workers at each
level's end — on a shared machine CPU seconds move much less with the load than wall time), and
the peak of the summed PSS of this process and its workers.  Then the two ways of giving level
n − 1 to the workers, for a level of ``--share-n`` deals' worth of 2-byte codes: a memory-mapped
file every worker reads, against ``Client.scatter(..., broadcast=True)``; each worker's private
memory (USS) before and after, and the time.

``--cost-from DIR --cost-n N`` measures what one cluster task costs at level N, given level N − 1's
file in DIR (as ``--workdir`` leaves it): the CPU seconds a deal of ``cluster.value_range`` on one
thread, over sample ranges spread through the level, and the task's peak memory — the figures the
projections of docs/benchmarks.md multiply out.

``--level-from DIR --level-n N`` computes level N alone on a local cluster of ``--workers`` K workers
from level N − 1's file in DIR: every minute the deals done, the rate and the peak PSS of the process
tree so far; at the end its ``scan --json`` line (or, after ``--seconds``, it stops and says how far
it got).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from typing import TYPE_CHECKING

import numpy as np

from whist_catalogue.engine.cluster import LevelFile, cluster_scan, connect
from whist_catalogue.scripts.reports.conjectures import TreeMemory
from whist_catalogue.theory.ranking import level_size

if TYPE_CHECKING:
    import distributed


def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


def _uss() -> int:
    import psutil

    return psutil.Process().memory_full_info().uss


def _uss_by_worker(client: distributed.Client) -> dict[str, int]:
    found = client.run(_uss)
    assert isinstance(found, dict)  # a synchronous client: the answers, not a coroutine
    return found


def _touch(path: str) -> int:
    """Map a level file and read every page, as the kernels will (the page cache fills once per machine)."""
    return _touch_array(np.load(path, mmap_mode="r"))


def _touch_array(codes: np.ndarray) -> int:
    return int(codes[:: 2048].sum())  # one read per 4 KiB page


def _workers_total(client, function) -> float:
    return sum(client.run(function).values())


def scan_per_level(workers: int, max_n: int) -> tuple[list[tuple[int, float, float]], float]:
    """[(n, wall seconds, worker CPU seconds)] and the peak PSS of the process tree, in bytes."""
    rows = []
    with TreeMemory(0.5) as memory, connect(f"local:{workers}") as client:
        cpu = _workers_total(client, _cpu_seconds)
        for report in cluster_scan("", max_n, client=client):
            now = _workers_total(client, _cpu_seconds)
            rows.append((report.n, report.seconds, now - cpu))
            cpu = now
    return rows, memory.peak


def sharing(n: int, workers: int = 2) -> dict[str, float]:
    """Per-worker private memory and time for level n's codes by a shared file and by scatter."""
    codes = np.random.default_rng(n).integers(0, 300, level_size(n), dtype=np.uint16)
    out: dict[str, float] = {"bytes": codes.nbytes}
    with tempfile.TemporaryDirectory(prefix="whist-share-") as directory, connect(f"local:{workers}") as client:
        file = LevelFile(directory, n)
        start = time.perf_counter()
        np.save(file.codes_path, codes)
        before = _uss_by_worker(client)
        client.run(_touch, str(file.codes_path))
        out["file seconds"] = time.perf_counter() - start
        out["file private bytes per worker"] = float(np.mean([_uss_by_worker(client)[w] - before[w] for w in before]))
        before = _uss_by_worker(client)
        start = time.perf_counter()
        future = client.scatter(codes, broadcast=True)
        client.gather(client.map(_touch_array, [future] * workers, pure=False))
        out["scatter seconds"] = time.perf_counter() - start
        out["scatter private bytes per worker"] = float(np.mean([_uss_by_worker(client)[w] - before[w] for w in before]))
    return out


def task_cost(directory: str, n: int, samples: int = 3, deals: int = 1 << 19) -> tuple[float, float]:
    """(CPU seconds a deal, peak RSS growth in bytes) of ``value_range`` for level n on one thread."""
    import resource

    from whist_catalogue.engine.cluster import value_range

    previous = LevelFile(directory, n - 1)
    size = level_size(n)
    value_range(n, 0, 1000, previous, 1)  # compile, open the level file
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    cpu = 0.0
    for k in range(samples):
        start = (size - deals) * k // max(1, samples - 1)
        before = time.process_time()
        value_range(n, start, start + deals, previous, 1)
        cpu += time.process_time() - before
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base
    return cpu / (samples * deals), peak


class _Enough(Exception):
    pass


def one_level(directory: str, n: int, workers: int, seconds: float | None) -> None:
    import json
    import sys

    from whist_catalogue.engine.cluster import run_levels
    from whist_catalogue.engine.scan import level_report, two_theories_result

    started = time.perf_counter()
    last = [started]
    size = level_size(n)

    def report(n: int, done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] >= 60 or done == total:
            last[0] = now
            print(f"{time.strftime('%H:%M:%S')} level {n}: {done:,} of {total:,} deals ({done / total:.1%}) in "
                  f"{now - started:.0f} s, peak PSS {memory.peak / 2**30:.2f} GiB, load {os.getloadavg()[0]:.1f}",
                  file=sys.stderr, flush=True)
        if seconds is not None and now - started > seconds:
            raise _Enough(f"stopped after {now - started:.0f} s at {done:,} of {total:,} deals ({done / total:.1%})")

    memory = TreeMemory(1.0)
    try:
        with memory, connect(f"local:{workers}") as client:
            for totals in run_levels(client, n, directory, min_n=n, progress=report, keep=True):
                theorem = two_theories_result(n, size, *totals.theorem_9_1)
                out = level_report(n, totals.value_counts(), totals.checks, theorem, totals.seconds).to_json()
                print(json.dumps(out, ensure_ascii=False), flush=True)
    except _Enough as stop:
        print(stop, file=sys.stderr)
    print(f"level {n} on {workers} workers: {time.perf_counter() - started:.0f} s wall, "
          f"peak PSS of the process tree {memory.peak / 2**30:.2f} GiB", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--max-n", type=int, default=14)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--share-n", type=int, default=15)
    parser.add_argument("--cost-from", metavar="DIR", help="a work directory holding level --cost-n − 1")
    parser.add_argument("--cost-n", type=int, default=17)
    parser.add_argument("--level-from", metavar="DIR", help="a work directory holding level --level-n − 1")
    parser.add_argument("--level-n", type=int, default=17)
    parser.add_argument("--seconds", type=float, default=None, help="with --level-from: stop after this long")
    args = parser.parse_args(argv)
    if args.level_from:
        one_level(args.level_from, args.level_n, args.workers[0], args.seconds)
        return 0
    if args.cost_from:
        per_deal, peak = task_cost(args.cost_from, args.cost_n)
        print(f"level {args.cost_n}: {per_deal * 1e6:.3f} µs of CPU a deal on one thread "
              f"(load average {os.getloadavg()[0]:.1f}); peak RSS growth of 3 tasks of 2^19 deals {peak / 2**20:.0f} MiB")
        for n in (args.cost_n, args.cost_n + 1):
            # The cost of a deal grows about as n (its cards are visited a few times each).
            cpu = per_deal * n / args.cost_n * level_size(n)
            print(f"  level {n}: {level_size(n):,} deals, {cpu / 3600:.2f} CPU hours: "
                  + ", ".join(f"{cpu / cores / 60:.1f} min on {cores} cores" for cores in (2, 8, 32, 128)))
        return 0
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    results = {k: scan_per_level(k, args.max_n) for k in args.workers}
    header = "| n | deals | " + " | ".join(f"{k} worker{'s' if k > 1 else ''}: wall s | CPU s" for k in args.workers)
    print(header + " |")
    print("|---:|---:|" + "---:|---:|" * len(args.workers))
    for i, n in enumerate(range(1, args.max_n + 1)):
        cells = " | ".join(f"{results[k][0][i][1]:.1f} | {results[k][0][i][2]:.1f}" for k in args.workers)
        print(f"| {n} | {level_size(n):,} | {cells} |")
    for k in args.workers:
        print(f"{k} worker(s): peak PSS of the process tree {results[k][1] / 2**30:.2f} GiB")
    print(f"load average after the scans: {os.getloadavg()[0]:.1f}")
    if args.share_n:
        shared = sharing(args.share_n)
        print(f"level {args.share_n}'s codes, {shared['bytes'] / 2**20:.0f} MiB, to 2 workers:")
        for how in ("file", "scatter"):
            print(f"  {how}: {shared[how + ' seconds']:.2f} s, "
                  f"{shared[how + ' private bytes per worker'] / 2**20:.0f} MiB private memory per worker")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
