"""The level store (docs/spec.md §7, docs/level-store.md): size and build time per level, look-up latency per level
with a cold and a cached chunk, and searches and statistics on the top level.

    .venv/bin/python scripts/benchmarks/level_store.py --db CATALOGUE [--lookups 200] [--levels N…] [--searches] [--json]
    .venv/bin/python scripts/benchmarks/level_store.py --db CATALOGUE --value-batch 3000 --batch-n 13 14
    .venv/bin/python scripts/benchmarks/level_store.py --db CATALOGUE --read-checks [--levels N…]

Against an already built catalogue, in one process:

* per level: the chunks' bytes (``level.stored_bytes``), bytes a deal, and ``level.build_seconds``;
* per level: ``Catalogue.solve`` (value and every best lead and reply, docs/spec.md §3) of random deals — *cold*,
  each in a fresh :class:`~whist_catalogue.store.reader.Catalogue` whose chunk cache is empty (the deal's
  chunk and level n−1's chunks are read and inflated), and *cached*, the same deals asked again; median
  and 95th percentile;
* with ``--searches``: ``Catalogue.count`` of searches on the top level (one decided per value from the stored
  statistics, one that runs the single-suit kernels over every chunk), and ``Catalogue.statistics``;
* with ``--value-batch K``: ``whist-catalogue value --json -`` on K random deals of the levels ``--batch-n``
  (alternating), in a fresh process, start-up included; every outcome is checked against Theorem 9.1's
  formula of the single-suit paper (:func:`whist_catalogue.single_suit.formulas.whist_outcome`);
* with ``--read-checks``: per level, decoding each chunk alone and with the checks a reader makes when a chunk
  enters its cache (SHA-256, CRC-32, header against its place), CPU time a chunk; and for each of ``--levels``,
  ``--lookups`` cold look-ups made in turn with the checks and with the chunks only decoded.

CPU time (``time.process_time``) is printed beside wall time: on a shared machine it is the steadier figure.
"""

from __future__ import annotations

import argparse
import json
import random
import sys

from whist_catalogue.scripts.benchmarks import median_p95_ms, run_timed, timed, timed_each
from whist_catalogue.store.reader import open_catalogue
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.ranking import level_size, unrank


def levels_table(db: str, lookups: int, seed: int, only: list[int] | None = None) -> list[dict]:
    rng = random.Random(seed)
    with open_catalogue(db) as catalogue:
        infos = [i for i in catalogue.levels() if i.complete and (not only or i.n in only)]
    rows = []
    for info in infos:
        n = info.n
        deals = [Deal(n, unrank(n, rng.randrange(level_size(n)))) for _ in range(lookups)]
        cold = []
        for deal in deals[: max(1, lookups // 10)]:
            with open_catalogue(db) as catalogue:  # an empty chunk cache
                catalogue.levels()
                _, wall, _ = timed(lambda: catalogue.solve(deal))
                cold.append(wall)
        with open_catalogue(db) as catalogue:
            for deal in deals:
                catalogue.solve(deal)
            cached = timed_each(catalogue.solve, deals)[1]
        rows.append({
            "n": n, "deals": level_size(n), "chunk_bytes": info.stored_bytes,
            "bytes_a_deal": round((info.stored_bytes or 0) / level_size(n), 4), "build_seconds": info.build_seconds,
            "cold": median_p95_ms(cold), "cached": median_p95_ms(cached),
        })
    return rows


def read_checks(db: str, only: list[int] | None, repeat: int = 5) -> list[dict]:
    """What the read-time checks add to loading a chunk: per level, the best of ``repeat`` timings of decoding
    every chunk alone (:func:`~whist_catalogue.engine.chunks.read_chunk`) and with the checks
    (:func:`~whist_catalogue.store.levels.checked_chunk`: SHA-256, CRC-32, header against its place)."""
    import sqlalchemy as sa

    from whist_catalogue.engine.chunks import read_chunk
    from whist_catalogue.store.levels import checked_chunk
    from whist_catalogue.store.models import LevelChunkRow

    chunks = LevelChunkRow.__table__
    rows = []
    with open_catalogue(db) as catalogue:
        infos = [i for i in catalogue.levels() if i.complete and (not only or i.n in only)]
        for info in infos:
            assert info.chunk_deals is not None, "levels with chunks record their chunk size"
            chunk_deals: int = info.chunk_deals
            with catalogue.connect() as connection:
                stored = connection.execute(sa.select(chunks.c.chunk, chunks.c.data, chunks.c.checksum, chunks.c.start,
                                                      chunks.c.stop).where(chunks.c.n == info.n)).all()
            plain = min(timed(lambda: [read_chunk(r.data) for r in stored])[2] for _ in range(repeat))
            checked = min(timed(lambda: [checked_chunk(info.n, *r[:1], chunk_deals, *r[1:]) for r in stored])[2]
                          for _ in range(repeat))
            rows.append({"n": info.n, "chunks": len(stored), "bytes": sum(len(r.data) for r in stored),
                         "decode_ms_a_chunk": round(1000 * plain / len(stored), 3),
                         "checked_ms_a_chunk": round(1000 * checked / len(stored), 3)})
    return rows


def cold_lookups_with_and_without_checks(db: str, n: int, count: int, seed: int) -> dict:
    """Cold look-ups (a fresh catalogue, an empty chunk cache, each) of ``count`` random deals of level n, each
    made twice in turn: with the read-time checks, and with the chunk only decoded, as readers did before them;
    CPU time (``time.process_time``), the steadier figure on a shared machine."""
    from whist_catalogue.engine.chunks import read_chunk
    from whist_catalogue.store import reader

    def decode_only(n: int, index: int, chunk_deals: int, data: bytes, *rest: object):  # noqa: ANN202
        return read_chunk(data)

    rng = random.Random(seed)
    deals = [Deal(n, unrank(n, rng.randrange(level_size(n)))) for _ in range(count)]
    checked = getattr(reader, "checked_chunk")  # swapped in the reader's namespace, where look-ups find it
    times: dict[str, list[float]] = {"checked": [], "decode_only": []}
    try:
        for deal in deals:
            for name, function in (("checked", checked), ("decode_only", decode_only)):
                setattr(reader, "checked_chunk", function)
                with open_catalogue(db) as catalogue:
                    catalogue.levels()
                    times[name].append(timed(lambda: catalogue.solve(deal))[2])
    finally:
        setattr(reader, "checked_chunk", checked)
    return {"n": n, "deals": count, **{name: median_p95_ms(ts) for name, ts in times.items()}}


def searches(db: str) -> list[dict]:
    with open_catalogue(db) as catalogue:
        top = max(catalogue.complete_levels())
        results = []
        for expression in (f"frac = 3/8 and n = {top}", f"n = {top}", f"h = 1 and n = {top}",
                           f"holdup and n = {top}"):
            count, wall, cpu = timed(lambda: catalogue.count(expression))
            results.append({"search": expression, "count": count, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3)})
        stats, wall, cpu = timed(lambda: catalogue.statistics(top).to_json())
        results.append({"statistics": top, "distinct_values": stats["distinct_values"], "wall_s": round(wall, 3),
                        "cpu_s": round(cpu, 3)})
    return results


def value_batch(db: str, count: int, sizes: list[int], seed: int) -> dict:
    from whist_catalogue.single_suit.formulas import whist_outcome

    rng = random.Random(seed)
    deals = [Deal(n, unrank(n, rng.randrange(level_size(n)))) for n in (sizes[i % len(sizes)] for i in range(count))]
    done = run_timed([sys.executable, "-m", "whist_catalogue", "value", "--json", "-", "--db", db],
                     "".join(d.label + "\n" for d in deals))
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    agree = sum(
        (o := whist_outcome(d)) is not None and (line["outcome"]["west_leads"], line["outcome"]["east_leads"])
        == (o.west_leads, o.east_leads)
        for d, line in zip(deals, lines)
    )
    return {"deals": count, "levels": sizes, "answers": len(lines), "outcomes_equal_theorem_9_1": agree,
            "wall_s": round(done.wall, 3), "cpu_s": round(done.cpu, 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--lookups", type=int, default=200)
    parser.add_argument("--searches", action="store_true")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--value-batch", type=int, metavar="K")
    parser.add_argument("--batch-n", type=int, nargs="+", default=[13, 14])
    parser.add_argument("--levels", type=int, nargs="+", help="only these levels' look-ups")
    parser.add_argument("--read-checks", action="store_true",
                        help="what the read-time checks add to loading each chunk (CPU time, best of 5)")
    args = parser.parse_args(argv)
    if args.read_checks:
        for row in read_checks(args.db, args.levels):
            print(json.dumps(row))
        for n in args.levels or []:
            print(json.dumps(cold_lookups_with_and_without_checks(args.db, n, args.lookups, args.seed)))
        return 0
    if args.value_batch:
        print(json.dumps(value_batch(args.db, args.value_batch, args.batch_n, args.seed)))
        return 0
    result = {"levels": levels_table(args.db, args.lookups, args.seed, args.levels)}
    if args.searches:
        result["searches"] = searches(args.db)
    if args.json:
        print(json.dumps(result))
        return 0
    print("| n | deals | chunks | bytes a deal | build | look-up, cold chunk (median / p95) | cached (median / p95) |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in result["levels"]:
        print(f"| {r['n']} | {r['deals']:,} | {r['chunk_bytes']:,} B | {r['bytes_a_deal']} |"
              f" {r['build_seconds']} s | {r['cold']['median_ms']} / {r['cold']['p95_ms']} ms |"
              f" {r['cached']['median_ms']} / {r['cached']['p95_ms']} ms |")
    for r in result.get("searches", []):
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
