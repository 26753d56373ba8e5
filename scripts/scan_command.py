"""``scan --max-n N``: the engine alone, in memory — statistics and the papers' checks per level (SPEC §4)."""

from __future__ import annotations

import argparse
import sys

from whist_catalogue.errors import WhistError
from whist_catalogue.scripts.main import emit_json
from whist_catalogue.scripts.progress import LevelProgress

MAX_SCAN_N = 18


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "scan",
        parents=[common],
        help="value every deal up to N in memory and check Conjectures 12.2-12.4, Theorems 8.10 and 9.4",
        description="Value every single-suit deal with 1 ≤ n ≤ N in memory (no database) and print, per n, the "
        "statistics of `stats` and the checks of Conjectures 12.2, 12.3, 12.4 and Theorem 8.10 (multi-suit paper) "
        "and Theorem 9.4 (single-suit paper).",
    )
    p.add_argument("--max-n", type=int, required=True, metavar="N", help=f"largest hand size, 1…{MAX_SCAN_N}")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=run)


class ScanRangeError(WhistError, ValueError):
    pass


def run(args: argparse.Namespace) -> int:
    from whist_catalogue.engine.scan import scan  # Numba loads only when the engine runs

    if args.db is not None:
        # Accepted by every sub-command (SPEC §4), but silently ignoring it would suggest scan read that catalogue.
        raise ScanRangeError("scan values every deal in memory and reads no catalogue: drop --db "
                             "(stats gives a catalogue's statistics)")
    if not 1 <= args.max_n <= MAX_SCAN_N:
        raise ScanRangeError(f"--max-n must be between 1 and {MAX_SCAN_N}, got {args.max_n}")
    with LevelProgress("scanning", enabled=False if args.no_progress else None) as progress:
        for report in scan(args.max_n, progress=progress):
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
