"""``build``, ``search``, ``stats``, ``export`` and ``verify``: the catalogue's sub-commands (docs/spec.md §4).

Thin: each parses its options, calls :mod:`whist_catalogue.store.build`, :mod:`whist_catalogue.store.reader`,
:mod:`whist_catalogue.store.dataset` or :mod:`whist_catalogue.store.verify`, and prints.  Errors the user
caused (a bad expression, a missing, foreign, corrupt or newer catalogue) are
:class:`~whist_catalogue.errors.WhistError`: ``whist-catalogue`` prints one line and
exits with status 2, and nothing has been written.
"""

from __future__ import annotations

import argparse
import codecs
import io
import sys
from typing import Any

from whist_catalogue import documentation
from whist_catalogue.constants import MAX_BUILD_N
from whist_catalogue.errors import UsageError
from whist_catalogue.scripts.cli import EXIT_FAILED, EXIT_OK, add_command, emit, emit_json, whole_number
from whist_catalogue.store.settings import DEFAULT_MAX_N, database_location, is_default_location


MAX_RECURSIVE_N = 10
"""The recursive definition takes seconds a deal above this; ``verify`` uses the engine there."""


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = add_command(
        sub, "build", run_build, common,
        help="fill the catalogue with every single-suit deal up to N cards a hand (resumable)",
        description="Value every single-suit deal with 1…N cards a hand, with its best moves and the single-suit "
        "paper's quantities, and store them in the catalogue, one level per transaction: an interrupted build "
        "keeps every finished level, and running it again resumes.  Also stores the solved matrix games.  An "
        "older catalogue is upgraded first.",
    )
    p.add_argument("--max-n", type=whole_number, default=None, metavar="N",
                   help=f"largest hand size, 1…{MAX_BUILD_N} (default {DEFAULT_MAX_N})")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--no-games", action="store_true", help="do not store the solved matrix games")
    p.add_argument("--endings", type=whole_number, default=None, metavar="K",
                   help="also store the table of two-hand endings, every position of 1…K cards a hand in a pack's "
                   "four suits, trumps or not (docs/two-hand.md); K ≤ 15, an estimate of time, disk and memory "
                   "is said first (K = 13: about half an hour and 60 MB on two cores)")
    from whist_catalogue.scripts.scan_command import add_cluster_arguments

    add_cluster_arguments(p)

    p = add_command(
        sub, "search", run_search, common,
        help=f"deals matching an expression (the language: {documentation('search.md')})",
        description="Deals of the catalogue matching an expression, in key order.  Examples: "
        "'value = 3+3/8', 'n = 10 and frac = 3/8', 'inf = e2', 'outcome = (1, 2) and ace = W', "
        "'counterexample(12.2)', 'holdup and not (n > 6)'.  Fields: n, key, value, number, frac, numerator, "
        "denominator, inf, stoppers, west_leads, east_leads, outcome, h, h_upper, h_lower, greedy, "
        "greedy_west_leads, greedy_east_leads, five_card, five_card_west_leads, five_card_east_leads, ace, "
        "holdup, flags; counterexample(12.2 | 12.3 | 12.4 | 8.10 | 9.4 | any).  The whole language: "
        f"{documentation('search.md')}",
    )
    p.add_argument("expression", metavar="EXPR", help="the search expression (quote it for the shell)")
    p.add_argument("--count", action="store_true", help="print only how many deals match")
    p.add_argument("--limit", type=whole_number, default=None, metavar="K", help="at most K deals")
    p.add_argument("--offset", type=whole_number, default=0, metavar="K", help="skip the first K matching deals")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress on stderr while a level's deals are searched chunk by chunk")

    p = add_command(
        sub, "stats", run_stats, common,
        help="per n: counts of values, fractional parts, infinitesimals, outcomes",
        description="Statistics of every complete level of the catalogue (the same as scan computes in memory).",
    )
    p.add_argument("--n", type=whole_number, action="append", metavar="N", help="only level N (repeatable)")

    p = add_command(
        sub, "export", run_export, common,
        help="export deals (a search or a level) to Parquet, CSV or JSON Lines",
        description="Write the deals matching EXPR (default: every deal), or of one level, to Parquet, CSV or JSON "
        "Lines, a chunk of 2^20 deals at a time (docs/dataset.md).  Needs pyarrow "
        "(pip install 'whist-catalogue[dataset]').  Before starting it prints an estimate of size and time, and "
        "refuses a target whose disk cannot hold the estimate.",
    )
    p.add_argument("expression", nargs="?", metavar="EXPR", help="a search expression (default: every deal)")
    p.add_argument("--level", type=whole_number, metavar="N", help="only the deals with N cards a hand")
    p.add_argument("--format", choices=("parquet", "csv", "jsonl"), default=None,
                   help="parquet, csv (the default) or jsonl (JSON Lines; also --json); parquet needs --output")
    p.add_argument("--columns", metavar="NAMES", default=None,
                   help="comma-separated columns or groups (default, all, outcome, greedy, five_card, "
                   "counterexamples, best_leads — costly: see docs/dataset.md); default: key, label, value, "
                   "numerator, denominator, infinitesimal, outcome, h, greedy, five_card, ace")
    p.add_argument("--no-progress", action="store_true", help="no progress on stderr")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of stdout")
    p.add_argument("--limit", type=whole_number, default=None, metavar="K", help="at most K deals")

    p = add_command(
        sub, "verify", run_verify, common,
        help="check the catalogue: database integrity, completeness, checksums, a recomputed sample, solved games",
        description="Check the catalogue: the database's own integrity check (pages and indexes), the level "
        "metadata, every level complete with chunks covering its C(2n, n) deals, each under the checksum recorded, "
        "a random sample recomputed independently (recursive definition up to --recursive-max-n), no stray chunks, "
        "and every solved game equal to the game solved again.  --full also compares every deal's value and check "
        "bits with the level recomputed by the engine.  Exit status 0 only when every check holds, "
        "1 when one fails.",
    )
    p.add_argument("--full", action="store_true",
                   help="compare every deal's value and check bits with the level recomputed by the engine (slower)")
    p.add_argument("--sample", type=whole_number, default=None, metavar="K", help="deals recomputed per level (default 4)")
    p.add_argument("--seed", type=whole_number, default=None, help="seed of the random sample")
    p.add_argument("--recursive-max-n", type=whole_number, default=None, metavar="N",
                   help="recompute by the recursive definition up to N (default 9), by the engine above")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


# -- build --------------------------------------------------------------------------------------------


def run_build(args: argparse.Namespace) -> int:
    max_n = DEFAULT_MAX_N if args.max_n is None else args.max_n
    location = database_location(args.db)
    if args.workdir and not args.cluster:
        raise UsageError("--workdir goes with --cluster")
    endings = 0 if args.endings is None else args.endings
    if args.endings is not None:
        from whist_catalogue.store.endings import check_endings_target

        check_endings_target(endings)  # before the catalogue is touched
    if args.cluster:
        from whist_catalogue.engine.cluster import chunk_computer, connect, parse_address, work_directory

        parse_address(args.cluster)  # a malformed address fails before the catalogue is touched
        with connect(args.cluster) as client, work_directory(args.workdir) as workdir:
            return _build(args, location, max_n, compute_chunks=chunk_computer(client, workdir), endings=endings)
    return _build(args, location, max_n, endings=endings)


def _build(args: argparse.Namespace, location: str, max_n: int, **options: Any) -> int:
    """:func:`whist_catalogue.store.build.build`, its progress events shown on stderr."""
    from whist_catalogue.scripts.progress import LevelProgress, ProgressBar
    from whist_catalogue.store.build import build

    enabled = False if args.no_progress else None
    with LevelProgress("valuing", enabled=enabled) as bar, \
            ProgressBar("solving games", " games", enabled=enabled) as games, \
            ProgressBar("endings", " positions", enabled=enabled, unit_scale=True) as endings:
        def show(event) -> None:  # noqa: ANN001 - a BuildProgress (no SQLAlchemy at registration)
            if event.stage == "plan" and event.total and enabled is not False:  # the estimate, before any work
                sys.stderr.write(f"whist-catalogue: {event.message}; Ctrl+C stops it, keeping every finished level\n")
            elif event.stage == "compute" and event.n is not None:
                bar(event.n, event.done, event.total)
            elif event.stage == "compile" and not event.done and enabled is not False:
                # Said at once, not held back as a short stage's line is: Numba compiles for up to a minute.
                sys.stderr.write(f"whist-catalogue: {event.message} …\n")
            elif event.stage in ("compile", "load", "finish"):  # say what the pause is, never a bar stuck at 0 %
                bar.stage(event.message if event.n is None else f"n={event.n}: {event.message}")
            elif event.stage == "level":
                bar.close()
            elif event.stage == "games":
                games.show(event.done, event.total, postfix=event.message)
            elif event.stage in ("repair", "endings-repair"):
                sys.stderr.write(f"whist-catalogue: {event.message}\n")
            elif event.stage == "endings-plan":
                bar.close()
                games.close()
                sys.stderr.write(f"whist-catalogue: {event.message}\n")
                sys.stderr.flush()
            elif event.stage == "endings-load":
                endings.stage(event.message)
            elif event.stage == "endings":
                endings.show(event.done, event.total, desc=f"endings k={event.n}")
            elif event.stage == "endings-level":
                endings.close()

        summary = build(location, max_n, progress=show, games=not args.no_games,
                        create_parent=is_default_location(args.db), **options)
    emit(summary, args.json)
    return EXIT_OK


# -- search -------------------------------------------------------------------------------------------


def _open(args: argparse.Namespace):  # noqa: ANN202
    from whist_catalogue.store.reader import open_catalogue

    return open_catalogue(database_location(args.db))


def _check_limit(name: str, value: int | None, bound: int | None = None) -> None:
    """A count option checked before any work: not negative, and at most ``bound`` (default: more rows than any
    catalogue holds, :data:`whist_catalogue.store.search.MAX_ROWS`)."""
    from whist_catalogue.store.search import MAX_ROWS

    bound = MAX_ROWS if bound is None else bound
    if value is not None and value < 0:
        raise UsageError(f"--{name} must not be negative, got {value}")
    if value is not None and value > bound:
        raise UsageError(f"--{name} must be at most {bound:,}, got {value}")


def run_search(args: argparse.Namespace) -> int:
    from whist_catalogue.store.search import compile_search

    _check_limit("limit", args.limit)
    _check_limit("offset", args.offset)
    compile_search(args.expression)  # a bad expression is reported before the catalogue is opened
    from whist_catalogue.scripts.progress import LevelProgress

    enabled = False if args.no_progress else None
    with _open(args) as catalogue, LevelProgress("searching", enabled=enabled) as progress:
        coverage = catalogue.coverage(args.expression)
        if args.count:
            count = catalogue.count(args.expression, progress=progress)
            if args.json:
                emit_json({"count": count, **coverage.to_json()})
            else:
                sys.stdout.write(f"{count}\n")
        else:
            with catalogue.iter_search(args.expression, limit=args.limit, offset=args.offset,
                                       progress=progress) as records:
                for k, record in enumerate(records):
                    if args.json:
                        emit_json(record.to_json())
                    else:
                        if k == 0:
                            sys.stdout.write(SEARCH_HEADER + "\n")
                        sys.stdout.write(_record_line(record) + "\n")
    # Which levels were searched, on stderr so that stdout stays the bare answer: a count over levels the
    # catalogue lacks must never pass for a silent 0.
    if not args.json or coverage.missing:
        sys.stderr.write(f"{coverage.describe()}\n")
    return EXIT_OK


SEARCH_HEADER = (
    "# deal: owner of each card, lowest first; outcome: West's tricks with West, with East on lead; "
    "best leads: ranks when the deal fits in A … 2 (the top 2n ranks), else card numbers (1 = the lowest card)"
)


def _record_line(record) -> str:  # noqa: ANN001
    o = record.outcome
    sol = record.solution
    # The top 2n ranks name the cards of a deal of up to six cards a hand, as the app's Cards column does.
    suit = record.deal.in_ranks()
    if suit is not None:
        shown, name = f"  {suit}", suit.name_of
    else:
        shown, name = "", lambda card: str(card)
    flags = f"  counterexample to {', '.join(record.counterexamples)}" if record.counterexamples else ""
    return (
        f"{record.label:<{2 * record.n}}{shown}  n={record.n:<2}  value {record.value.text():<14}"
        f"  outcome ({o.west_leads}, {o.east_leads})  H={record.h:<3}"
        f"  best leads W: {' '.join(name(c) for c in sol.west_leads)}"
        f"  E: {' '.join(name(c) for c in sol.east_leads)}{flags}"
    )


# -- stats --------------------------------------------------------------------------------------------


def run_stats(args: argparse.Namespace) -> int:
    from whist_catalogue.scripts.progress import ProgressBar

    with _open(args) as catalogue, ProgressBar("statistics", " levels") as bar:
        complete = sorted(catalogue.complete_levels())
        wanted = complete if not args.n else sorted(set(args.n))
        for k, n in enumerate(wanted):
            bar.show(k, len(wanted), postfix=f"level {n}")
            stats = catalogue.statistics(n).to_json()
            if args.json:
                emit_json(stats)
            else:
                _print_stats(stats)
            sys.stdout.flush()
        bar.show(len(wanted), len(wanted))
        if not wanted and not args.json:
            sys.stdout.write("no complete level in the catalogue\n")
        if not args.n:
            _print_endings(catalogue, args.json)
    return EXIT_OK


def _print_endings(catalogue, as_json: bool) -> None:  # noqa: ANN001 - a Catalogue (no SQLAlchemy at registration)
    """The table of two-hand endings the catalogue holds, a level a line (JSON: an object a level)."""
    from whist_catalogue.store.endings import CatalogueEndings

    levels = CatalogueEndings(catalogue).levels()
    for info in levels:
        if info.complete and info.problem is not None:
            raise catalogue.damaged(info.problem)
        emit(info, as_json)


def _print_stats(stats: dict) -> None:
    fracs = ", ".join(f"{k} ×{v:,}" for k, v in stats["fractional_parts"].items())
    infs = ", ".join(f"{k} ×{v:,}" for k, v in stats["infinitesimals"].items())
    outcomes = ", ".join(f"({k.replace('|', ', ')}) ×{v:,}" for k, v in stats["outcomes"].items())
    sys.stdout.write(
        f"n = {stats['n']}: {stats['deals']:,} deals, {stats['distinct_values']} distinct values\n"
        f"  fractional parts: {fracs}\n  infinitesimals: {infs}\n  outcomes: {outcomes}\n"
    )


# -- export -------------------------------------------------------------------------------------------


def run_export(args: argparse.Namespace) -> int:
    from whist_catalogue.store.dataset import (check_export_target, export_levels, export_plan, export_to_file,
                                               require_pyarrow)
    from whist_catalogue.store.fields import resolve_columns
    from whist_catalogue.store.search import compile_search

    _check_limit("limit", args.limit)
    fmt = args.format or ("jsonl" if args.json else "csv")
    if args.level is not None and args.level < 1:
        raise UsageError(f"--level must be at least 1, got {args.level}")
    try:
        fields = resolve_columns(args.columns)
    except ValueError as exc:
        raise UsageError(f"--columns: {exc}") from None
    if fmt == "parquet" and args.output is None:
        raise UsageError("--format parquet needs --output FILE (a Parquet file ends with its index)")
    if args.expression is not None:
        compile_search(args.expression)  # reject a bad expression before opening anything
    if args.output is not None:
        check_export_target(args.output)  # a folder that is not there is said before any estimate, not after
    require_pyarrow()
    from whist_catalogue.scripts.progress import ProgressBar

    with _open(args) as catalogue:
        if args.level is not None and args.level not in catalogue.complete_levels():
            raise UsageError(f"level {args.level} is not complete in catalogue {catalogue.location}")
        plan = export_plan(catalogue, fmt, fields, expression=args.expression, level=args.level, limit=args.limit)
        if plan.seconds >= ESTIMATE_SECONDS or plan.size >= ESTIMATE_BYTES:  # a small export just runs
            sys.stderr.write(plan.describe() + "\n")
            sys.stderr.flush()
        with ProgressBar("exporting", " deals", enabled=False if args.no_progress else None, unit_scale=True) as bar:
            options = {"fmt": fmt, "columns": fields, "expression": args.expression, "level": args.level,
                       "limit": args.limit, "plan": plan,
                       "progress": lambda done, total: bar.show(done, total)}
            if args.output is None:
                count = export_levels(catalogue, _binary_stdout(), **options)
                sys.stdout.flush()
            else:
                count = export_to_file(catalogue, args.output, **options)
    if args.output is not None:
        sys.stderr.write(f"exported {count:,} deals to {args.output}\n")
    if plan.coverage.missing:  # what search says of the levels it lacks: never a silent empty export
        sys.stderr.write(f"{plan.coverage.describe()}\n")
    return EXIT_OK


class _TextSink(io.RawIOBase):
    """Bytes written to a text stream without a binary buffer (stdout captured by a caller)."""

    def __init__(self, stream: Any) -> None:
        super().__init__()
        self._stream = stream
        self._decoder = codecs.getincrementaldecoder("utf-8")()

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._stream.write(self._decoder.decode(bytes(data)))
        return len(data)


def _binary_stdout() -> Any:
    buffer = getattr(sys.stdout, "buffer", None)
    return buffer if buffer is not None else _TextSink(sys.stdout)


ESTIMATE_SECONDS = 2.0
ESTIMATE_BYTES = 100_000_000
"""``export`` announces its estimate of size and time when it expects to take this long or write this much."""


# -- verify -------------------------------------------------------------------------------------------


def run_verify(args: argparse.Namespace) -> int:
    from whist_catalogue.store.verify import DEFAULT_SAMPLE, MAX_SAMPLE, RECURSIVE_MAX_N, verify

    sample = DEFAULT_SAMPLE if args.sample is None else args.sample
    _check_limit("sample", sample, MAX_SAMPLE)
    recursive = RECURSIVE_MAX_N if args.recursive_max_n is None else args.recursive_max_n
    if not 0 <= recursive <= MAX_RECURSIVE_N:
        raise UsageError(f"--recursive-max-n must be between 0 and {MAX_RECURSIVE_N}, got {recursive}")
    from whist_catalogue.scripts.progress import ProgressBar

    enabled = False if args.no_progress else None
    with _open(args) as catalogue, ProgressBar("verifying", " deals", unit_scale=True, enabled=enabled) as bar:
        report = verify(catalogue, sample=sample, seed=args.seed, recursive_max_n=recursive, full=args.full,
                        progress=lambda step, done, total: bar.show(done, total, postfix=step))
    if args.json:
        emit_json(report.to_json())
    else:
        for problem in report.all_problems:
            sys.stdout.write(f"  {problem}\n")
        for note in report.notes:
            sys.stdout.write(f"  note: {note}\n")
        sys.stdout.write(report.summary() + "\n")
    return EXIT_OK if report.ok else EXIT_FAILED
