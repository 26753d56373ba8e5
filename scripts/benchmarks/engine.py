"""Benchmarks of the engine for ``docs/benchmarks.md`` (docs/spec.md §7).

    python -m whist_catalogue.scripts.benchmarks.engine --scan-n 14 --ratio-n 8

* ``scan``: ``whist-catalogue scan --max-n N`` in a fresh process (JIT compilation
  included, as a user sees it): wall time and the child's peak RSS;
* the engine against the literal recursive definition on the same levels, in
  one process: every deal with n ≤ ratio-n valued by both, times and ratio (the
  engine warmed up first so the ratio compares computation, not compilation).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

from whist_catalogue.scripts.benchmarks import run_timed


def bench_ratio(max_n: int) -> tuple[float, float, int]:
    from whist_catalogue.engine.levels import levels
    from whist_catalogue.theory import definition
    from whist_catalogue.theory.deals import Deal
    from whist_catalogue.theory.ranking import level_masks

    list(levels(3))  # compile the kernels
    started = time.perf_counter()
    engine = list(levels(max_n))
    t_engine = time.perf_counter() - started
    deals = [Deal(n, int(m)) for n in range(1, max_n + 1) for m in level_masks(n)]
    started = time.perf_counter()
    reference = [definition.val(d) for d in deals]
    t_reference = time.perf_counter() - started
    values = [level.value(r) for level in engine for r in range(len(level))]
    assert values == reference, "engine and definition disagree"
    return t_engine, t_reference, len(deals)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--scan-n", type=int, default=14)
    parser.add_argument("--ratio-n", type=int, default=8)
    args = parser.parse_args(argv)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    scan = run_timed([sys.executable, "-m", "whist_catalogue", "scan", "--max-n", str(args.scan_n), "--json",
                      "--no-progress"])
    print(f"scan --max-n {args.scan_n}: {scan.wall:.1f} s wall, {scan.peak_kib / 2**20:.2f} GiB peak RSS")
    t_engine, t_reference, count = bench_ratio(args.ratio_n)
    print(f"n ≤ {args.ratio_n} ({count:,} deals): engine {t_engine * 1000:.1f} ms, recursive definition "
          f"{t_reference:.1f} s, ratio {t_reference / t_engine:,.0f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
