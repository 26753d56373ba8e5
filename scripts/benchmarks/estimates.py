"""The engine's estimates against measurements, for ``docs/benchmarks.md`` ("The engine's estimates").

    python -m whist_catalogue.scripts.benchmarks.estimates levels --max-n 15
    python -m whist_catalogue.scripts.benchmarks.estimates peaks --catalogues DIR 13 14 15 16
    python -m whist_catalogue.scripts.benchmarks.estimates build --catalogues DIR 15 16
    python -m whist_catalogue.scripts.benchmarks.estimates first-use --catalogue DIR/c12.sqlite

* ``levels``: in one process, kernels loaded first, each level computed from the one below as
  ``value`` does (the mirror shortcut) and as ``build`` does (every deal, with the checks, chunk by
  chunk, encoded and packed): wall and CPU time a deal — what the time model's constants are fitted to.
* ``peaks``: ``whist-catalogue value`` of a deal of level n in a fresh process, from a catalogue of
  levels ≤ n − 1 (``DIR/c{n-1}.sqlite``): wall, CPU and peak resident memory of the process, beside
  what the command said it would take (:meth:`~whist_catalogue.engine.plan.EnginePlan.describe`).
* ``build``: ``whist-catalogue build --max-n n`` on a copy of ``DIR/c{n-1}.sqlite``: the same three,
  beside :func:`~whist_catalogue.store.build.estimate_build`.
* ``first-use``: the first call of each thing that compiles Numba kernels, in a fresh process,
  with an empty Numba cache (``NUMBA_CACHE_DIR`` a new folder) and again with it filled.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from math import comb
from pathlib import Path

from whist_catalogue.scripts.benchmarks import run_timed, timed


def _machine() -> str:
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load {load}"


def _cli() -> list[str]:
    return [sys.executable, "-m", "whist_catalogue"]


class _Parallel:
    """CPU time spent inside the engine's parallel kernels (both cores' work, whatever else runs on the machine),
    beside the process's CPU time in all: the rest is the one-thread part (coding, zlib, SQLite)."""

    def __init__(self) -> None:
        from whist_catalogue.engine import kernels as K

        self.cpu = 0.0
        for name in ("level_values", "mirror_codes"):
            kernel = getattr(K, name)
            setattr(K, name, self._timed(kernel))

    def _timed(self, kernel):  # noqa: ANN001, ANN202
        def timed(*args):  # noqa: ANN002, ANN202
            started = time.process_time()
            try:
                return kernel(*args)
            finally:
                self.cpu += time.process_time() - started

        return timed


def levels(max_n: int, min_n: int) -> None:
    from whist_catalogue.engine.chunks import CHUNK_DEALS
    from whist_catalogue.engine.levels import Level, compute_level
    from whist_catalogue.store.build import compute_chunk
    from whist_catalogue.store.levels import chunk_count

    previous = Level.empty()
    compute_chunk(1, previous, 0)  # the kernels loaded (or compiled) before any timing
    compute_level(1, previous, symmetry=True)
    parallel = _Parallel()
    print(f"machine: {_machine()}")
    print("CPU nanoseconds a deal of the level, in the parallel kernels and in one thread; wall seconds:")
    print("| n | deals | value: parallel | one thread | wall | build's chunks: parallel | one thread | wall |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in range(1, max_n + 1):
        parallel.cpu = 0.0
        level, wall, cpu = timed(lambda: compute_level(n, previous, symmetry=True))
        value_parallel = parallel.cpu
        if n >= min_n:
            size = comb(2 * n, n)
            parallel.cpu = 0.0
            b_wall, b_cpu = time.perf_counter(), time.process_time()
            for index in range(chunk_count(n, CHUNK_DEALS)):
                compute_chunk(n, previous, index)
            b_wall, b_cpu = time.perf_counter() - b_wall, time.process_time() - b_cpu
            ns = 1e9 / size
            print(f"| {n} | {size:,} | {value_parallel * ns:.0f} | {(cpu - value_parallel) * ns:.0f} | {wall:.2f} s "
                  f"| {parallel.cpu * ns:.0f} | {(b_cpu - parallel.cpu) * ns:.0f} | {b_wall:.2f} s |", flush=True)
        previous = level


def _deal(n: int) -> str:
    return "EW" * n


def peaks(catalogues: Path, ns: list[int]) -> None:
    from whist_catalogue.engine.plan import plan_levels

    print(f"machine: {_machine()}")
    print("| n | said | wall | CPU | peak RSS | model's peak |")
    print("| ---: | --- | ---: | ---: | ---: | ---: |")
    for n in ns:
        db = catalogues / f"c{n - 1}.sqlite"
        _, err, wall, cpu, peak = run_timed([*_cli(), "value", _deal(n), "--db", str(db)])
        said = next((line.split(": ", 2)[2].split(". Ctrl")[0] for line in err.splitlines()
                     if "not in the catalogue" in line), "?")
        model = plan_levels(n, frozenset({0}), n - 1).memory
        print(f"| {n} | {said} | {wall:.1f} s | {cpu:.1f} s | {peak * 1024 / 1e6:,.0f} MB | {model / 1e6:,.0f} MB |",
              flush=True)


def build(catalogues: Path, ns: list[int]) -> None:
    from whist_catalogue.store.build import estimate_build
    from whist_catalogue.store.reader import open_catalogue

    print(f"machine: {_machine()}")
    print("| n | said | wall | CPU | peak RSS | recorded level seconds |")
    print("| ---: | --- | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as scratch:
        for n in ns:
            db = Path(scratch) / f"b{n}.sqlite"
            shutil.copyfile(catalogues / f"c{n - 1}.sqlite", db)
            with open_catalogue(str(db)) as catalogue:
                said = estimate_build(catalogue.levels(), n).describe()
            _, _, wall, cpu, peak = run_timed([*_cli(), "build", "--max-n", str(n), "--no-games", "--db", str(db)])
            with open_catalogue(str(db)) as catalogue:
                recorded = next(i.build_seconds for i in catalogue.levels() if i.n == n)
            print(f"| {n} | {said} | {wall:.1f} s | {cpu:.1f} s | {peak * 1024 / 1e6:,.0f} MB | {recorded:.1f} s |",
                  flush=True)


FIRST_USES = {
    "the engine (value, n = 12, no catalogue)": lambda db: [*_cli(), "value", _deal(12)],
    "a chunk search (level 11, per deal)": lambda db: [*_cli(), "search", "n = 11 and h = 6", "--count",
                                                      "--db", db],
    "§11, the app's quick plan": lambda db: [sys.executable, "-c",
                                             "import sys; from whist_catalogue.single_suit.asymptotics import "
                                             "compute_data; compute_data(max_exact_n=12, plan=((100, 20_000), "
                                             "(1_000, 20_000), (10_000, 5_000)), progress=lambda m: "
                                             "print(m, file=sys.stderr))"],
    "build --max-n 11": lambda db: [*_cli(), "build", "--max-n", "11", "--no-games", "--db", db + ".new"],
}


def first_use(catalogue: Path) -> None:
    print(f"machine: {_machine()}")
    print("| first use | cold cache: wall | CPU | warm cache: wall | CPU | announced (cold) |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    with tempfile.TemporaryDirectory() as scratch:
        for name, command in FIRST_USES.items():
            cache = Path(scratch) / "numba-cache"
            shutil.rmtree(cache, ignore_errors=True)
            env = {"NUMBA_CACHE_DIR": str(cache), "WHIST_CATALOGUE_DB": str(Path(scratch) / "none.sqlite")}
            db = str(Path(scratch) / "c.sqlite")
            times = []
            announced = ""
            for _ in range(2):
                shutil.copyfile(catalogue, db)
                Path(db + ".new").unlink(missing_ok=True)
                _, err, wall, cpu, _ = run_timed(command(db), env=env)
                times.append((wall, cpu))
                if not announced:
                    announced = next((line.strip() for line in err.splitlines() if "preparing" in line), "—")
            (cw, cc), (ww, wc) = times
            print(f"| {name} | {cw:.1f} s | {cc:.1f} s | {ww:.1f} s | {wc:.1f} s | {announced[:90]} |", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("levels")
    p.add_argument("--max-n", type=int, default=15)
    p.add_argument("--min-n", type=int, default=10)
    for name in ("peaks", "build"):
        p = commands.add_parser(name)
        p.add_argument("--catalogues", type=Path, required=True, help="a folder of c{n}.sqlite, levels 1…n each")
        p.add_argument("n", type=int, nargs="+")
    p = commands.add_parser("first-use")
    p.add_argument("--catalogue", type=Path, required=True, help="a catalogue of levels 1…11 or more")
    args = parser.parse_args(argv)
    if args.command == "levels":
        levels(args.max_n, args.min_n)
    elif args.command == "peaks":
        peaks(args.catalogues, args.n)
    elif args.command == "build":
        build(args.catalogues, args.n)
    else:
        first_use(args.catalogue)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
