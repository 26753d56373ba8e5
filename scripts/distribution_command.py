"""``distribution SIZES``: the exact outcome distribution over every deal with suits of these sizes.

Theorem 9.1 of the multi-suit paper through the per-level value counts (``docs/distributions.md``).
"""

from __future__ import annotations

import argparse
import contextlib
from typing import Iterator

from whist_catalogue import documentation
from whist_catalogue.errors import UsageError
from whist_catalogue.scripts.cli import add_command, emit


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = add_command(
        sub, "distribution", run, common,
        help="exact probability of every outcome over all deals with suits of given sizes (e.g. 4,4,3,2)",
        description="The exact distribution of the outcome — West's tricks with West and with East on lead — over "
        "every deal whose suits have the given numbers of cards a hand, each suit dealt uniformly and independently: "
        "ρ of the sum of the suits' values (Theorem 9.1 of the multi-suit paper), convolved from the per-level value "
        "counts. The counts come from the statistics shipped with the package (n ≤ 18), else from the catalogue "
        f"(--db), or from a `scan --json` file (--counts). See {documentation('distributions.md')}.",
    )
    p.add_argument("sizes", metavar="SIZES", nargs="+",
                   help="cards a hand of each suit, separated by commas or spaces: 4,4,3,2 or 4 4 3 2")
    p.add_argument("--source", choices=("auto", "shipped", "catalogue"), default="auto",
                   help="where the per-level value counts come from (default auto: shipped, then the catalogue)")
    p.add_argument("--counts", metavar="FILE", help="read the per-level value counts from a `scan --json` file")


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


def run(args: argparse.Namespace) -> int:
    from whist_catalogue.store.distributions import distribution, parse_sizes

    sizes = parse_sizes(",".join(args.sizes))
    if args.counts is not None and (args.db is not None or args.source != "auto"):
        raise UsageError("--counts names the source: drop --db and --source")
    with _catalogue(args) as catalogue:
        result = distribution(sizes, args.source, catalogue, args.counts)  # type: ignore[arg-type]
    emit(result, args.json)
    return 0
