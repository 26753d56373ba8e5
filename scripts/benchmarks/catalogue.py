"""Latency of the catalogue's queries (docs/spec.md §7): deal look-ups, multi-suit outcomes, counting searches.

    .venv/bin/python scripts/benchmarks/catalogue.py --db CATALOGUE [--lookups 2000] [--outcomes 300] [--json]

Times, in one process against an already built catalogue: ``Catalogue.solve``
on random deals of every complete level; the outcome of random multi-suit deals
through :func:`whist_catalogue.store.solvers.default_solver` (the catalogue as the Solver,
as ``whist-catalogue outcome`` uses it); and ``Catalogue.count`` for the
searches of ``docs/search.md``.  Prints median, 95th percentile and maximum.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from whist_catalogue.scripts.benchmarks import median_p95_ms, timed, timed_each
from whist_catalogue.store.reader import open_catalogue
from whist_catalogue.store.solvers import default_solver
from whist_catalogue.theory.deals import Deal, Suit, parse_suit
from whist_catalogue.theory.multisuit import analyse
from whist_catalogue.theory.ranking import level_size, unrank

SEARCHES = (
    "value = 3+3/8",
    "frac = 3/8 and n = 12",
    "inf = e2",
    "stoppers >= 1",
    "outcome = (5, 6)",
    "counterexample(12.2)",
    "holdup and n = 12",
    "number >= 6",
    "ace = W",
    "greedy != outcome",
    "(inf > 0 and not (frac = 0 and stoppers = number)) or (inf < 0 and not (frac = 0 and stoppers = n - number))",
    "inf = 0 and frac != 0 and not (frac * denominator = 1 or frac * denominator = denominator - 1"
    " or frac in (3/8, 5/8))",
    "n >= 1",
)


def _summary(seconds: list[float]) -> dict[str, float]:
    return {"count": len(seconds), **median_p95_ms(seconds), "max_ms": round(max(s * 1000 for s in seconds), 3)}


def _random_deal(rng: random.Random, max_n: int) -> Deal:
    n = rng.randint(1, max_n)
    return Deal(n, unrank(n, rng.randrange(level_size(n))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--lookups", type=int, default=2000)
    parser.add_argument("--outcomes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)

    started = time.perf_counter()
    catalogue = open_catalogue(args.db)
    max_n = catalogue.max_n
    opened = time.perf_counter() - started
    first_deal = _random_deal(rng, max_n)
    first = timed(lambda: catalogue.solve(first_deal))[1]

    lookups = timed_each(catalogue.solve, [_random_deal(rng, max_n) for _ in range(args.lookups)])[1]

    solver = default_solver(args.db)
    outcomes = []
    for _ in range(args.outcomes):
        suits: list[Suit] = []
        left = 13
        while left > 0 and len(suits) < 4:
            deal = _random_deal(rng, min(left, max_n))
            suits.append(parse_suit(deal.label))
            left -= deal.n
        outcomes.append(timed(lambda: analyse(tuple(suits), solver))[1])

    searches = {}
    for text in SEARCHES:
        runs = [timed(lambda: catalogue.count(text)) for _ in range(3)]
        count, times = runs[-1][0], [wall for _, wall, _ in runs]
        searches[text] = {"count": count, "first_ms": round(times[0] * 1000, 1), "best_ms": round(min(times) * 1000, 1)}
    catalogue.close()

    report = {
        "catalogue": args.db,
        "max_n": max_n,
        "open_ms": round(opened * 1000, 1),
        "first_lookup_ms": round(first * 1000, 2),
        "lookup": _summary(lookups),
        "multi_suit_outcome": _summary(outcomes),
        "counting_searches": searches,
    }
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
        return 0
    print(f"catalogue {args.db} (complete to n = {max_n}); open {report['open_ms']} ms,"
          f" first look-up {report['first_lookup_ms']} ms")
    for name in ("lookup", "multi_suit_outcome"):
        s = report[name]
        print(f"{name:20} {s['count']:5d} × : median {s['median_ms']} ms, p95 {s['p95_ms']} ms, max {s['max_ms']} ms")
    for text, s in searches.items():
        print(f"count {s['count']:>9,}  first {s['first_ms']:7.1f} ms  best {s['best_ms']:7.1f} ms  {text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
