"""``scan --max-n N``: the engine alone, in memory — statistics and the papers' checks per level (docs/spec.md §4)."""

from __future__ import annotations

import argparse
import sys

from whist_catalogue.errors import UsageError
from whist_catalogue.scripts.cli import add_command, add_json_option, emit_json, whole_number

MAX_SCAN_N = 18


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = add_command(
        sub, "scan", run,
        help="value every deal up to N in memory and check Conjectures 12.2-12.4, Theorems 8.10 and 9.4",
        description="Value every single-suit deal with 1 ≤ n ≤ N in memory (no database) and print, per n, the "
        "statistics of `stats` and the checks of Conjectures 12.2, 12.3, 12.4 and Theorem 8.10 (multi-suit paper) "
        "and Theorem 9.4 (single-suit paper).",
    )
    p.add_argument("--max-n", type=whole_number, required=True, metavar="N", help=f"largest hand size, 1…{MAX_SCAN_N}")
    p.add_argument("--min-n", type=whole_number, default=1, metavar="N",
                   help="with --cluster and --workdir: begin at level N, reading level N-1 from the work directory "
                   "(a stopped run leaves its last finished level there; default 1)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    add_json_option(p)  # no --db: scan reads no catalogue (stats gives a catalogue's statistics)
    add_cluster_arguments(p)


def add_cluster_arguments(p: argparse.ArgumentParser) -> None:
    """``--cluster`` and ``--workdir``, shared by ``scan`` and ``build``."""
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="run the engine on a Dask cluster: tcp://HOST:PORT of a `dask scheduler`, or local:K to "
                   "start K local worker processes (needs pip install 'whist-catalogue[cluster]')")
    p.add_argument("--workdir", metavar="DIR",
                   help="with --cluster: where level n-1's value codes are kept for the workers; a directory every "
                   "worker sees at the same path (default: a temporary directory, fine when the workers run here)")


def run(args: argparse.Namespace) -> int:
    from whist_catalogue.engine.scan import scan  # Numba loads only when the engine runs
    from whist_catalogue.scripts.progress import LevelProgress  # tqdm too

    if not 1 <= args.max_n <= MAX_SCAN_N:
        raise UsageError(f"--max-n must be between 1 and {MAX_SCAN_N}, got {args.max_n}")
    if args.workdir and not args.cluster:
        raise UsageError("--workdir goes with --cluster")
    if not 1 <= args.min_n <= args.max_n:
        raise UsageError(f"--min-n must be between 1 and --max-n ({args.max_n}), got {args.min_n}")
    if args.min_n > 1 and not args.workdir:
        raise UsageError("--min-n goes with --cluster and --workdir: level N-1 is read from the work directory")
    if args.cluster:
        from whist_catalogue.engine.cluster import cluster_scan, parse_address

        parse_address(args.cluster)  # a malformed address fails before anything starts
        reports = lambda progress: cluster_scan(args.cluster, args.max_n, directory=args.workdir,  # noqa: E731
                                                min_n=args.min_n, progress=progress)
    else:
        reports = lambda progress: scan(args.max_n, progress=progress)  # noqa: E731
    with LevelProgress("scanning", enabled=False if args.no_progress else None) as progress:
        for report in reports(progress):
            progress.close()
            if args.json:
                emit_json(report.to_json())
            else:
                _print_text(report)
            sys.stdout.flush()
    return 0


def _print_text(report) -> None:
    from whist_catalogue.engine.scan import CHECK_TITLES

    stats = report.statistics.to_json()
    fracs = ", ".join(k for k in stats["fractional_parts"] if k != "0")
    lines = [
        f"n = {report.n}: {stats['deals']:,} deals, {stats['distinct_values']} distinct values, {report.seconds:.2f} s",
        f"  fractional parts: {fracs or '—'}",
    ]
    for c in report.checks:
        verdict = "holds" if c.counterexamples == 0 else f"{c.counterexamples:,} counterexamples, first {c.first.label}"
        lines.append(f"  {CHECK_TITLES[c.name]}: {c.checked:,} checked, {verdict}")
    sys.stdout.write("\n".join(lines) + "\n")
