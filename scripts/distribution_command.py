"""``distribution SIZES``: the exact outcome distribution over every deal with suits of these sizes.

Theorem 9.1 of the multi-suit paper through the per-level value counts (``docs/distributions.md``).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from fractions import Fraction
from typing import Iterator

from whist_catalogue import documentation
from whist_catalogue.errors import UsageError
from whist_catalogue.scripts.cli import emit_json


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "distribution",
        parents=[common],
        help="exact probability of every outcome over all deals with suits of given sizes (e.g. 4,4,3,2)",
        description="The exact distribution of the outcome — West's tricks with West and with East on lead — over "
        "every deal whose suits have the given numbers of cards a hand, each suit dealt uniformly and independently: "
        "ρ of the sum of the suits' values (Theorem 9.1 of the multi-suit paper), convolved from the per-level value "
        "counts. The counts come from the statistics shipped with the package (n ≤ 18), else from the catalogue "
        f"(--db), or from a `scan --json` file (--counts). See {documentation('distributions.md')}.",
    )
    p.add_argument("sizes", metavar="SIZES", help="cards a hand of each suit, separated by commas: 4,4,3,2")
    p.add_argument("--source", choices=("auto", "shipped", "catalogue"), default="auto",
                   help="where the per-level value counts come from (default auto: shipped, then the catalogue)")
    p.add_argument("--counts", metavar="FILE", help="read the per-level value counts from a `scan --json` file")
    p.set_defaults(func=run)


@contextlib.contextmanager
def _catalogue(args: argparse.Namespace) -> Iterator[object | None]:
    """The catalogue when it is asked for (``--db`` or ``--source catalogue``), else None."""
    if args.db is None and args.source != "catalogue":
        yield None
        return
    from whist_catalogue.store.reader import open_catalogue
    from whist_catalogue.store.settings import database_location

    with open_catalogue(database_location(args.db)) as catalogue:
        yield catalogue


def _text(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def run(args: argparse.Namespace) -> int:
    from whist_catalogue.store.distributions import distribution, parse_sizes

    sizes = parse_sizes(args.sizes)
    if args.counts is not None and (args.db is not None or args.source != "auto"):
        raise UsageError("--counts names the source: drop --db and --source")
    with _catalogue(args) as catalogue:
        result = distribution(sizes, args.source, catalogue, args.counts)  # type: ignore[arg-type]
    if args.json:
        emit_json(result.to_json())
        return 0
    lines = [
        f"suits {','.join(map(str, sizes))}: {len(sizes)} suit{'s' if len(sizes) != 1 else ''}, "
        f"{result.tricks} tricks, {result.deals:,} deals",
        "  West's tricks        deals      probability",
        "  West leads  East leads",
    ]
    width = max(len(f"{c:,}") for c in result.counts.values())
    for o, c in result.counts.items():
        p = Fraction(c, result.deals)
        lines.append(f"  {int(o.west_leads):>10}  {int(o.east_leads):>10}  {c:>{width},}  {float(p):.6f}  {_text(p)}")
    for label, q in (
        ("E[West's tricks], West leads", result.expected_tricks("W")),
        ("E[West's tricks], East leads", result.expected_tricks("E")),
        ("dealer's advantage (E[non-leader's tricks] − N/2)", result.dealer_advantage),
        ("Pr[the lead changes the outcome]", result.lead_matters),
        ("  the leader gains a trick", result.leader_gains),
        ("  the non-leader gains a trick", result.dealer_gains),
    ):
        lines.append(f"{label}: {float(q):.6f} = {_text(q)}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
