"""Deal-level searches over a level held as chunks, one field at a time, each in a fresh process.

    .venv/bin/python scripts/benchmarks/search_fields.py --db CATALOGUE [--n 16] [--chunks K] [--json]

Without ``--chunks``: the wall and CPU time of ``whist-catalogue search --count --no-progress 'n = N and …'``
for every deal-level field of the search language (``docs/search.md``), each run in a fresh process (start-up
and Numba's cached kernels included).  With ``--chunks K``: each field's search over the first K chunks of
level N only (``Catalogue.scan_chunks`` and ``ChunkQuery.on_chunk``, what ``Catalogue.count`` runs per chunk),
in a fresh process after one warm-up chunk, and the time per chunk times the level's chunks — for a level
not (yet) complete in the catalogue.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from whist_catalogue.scripts.benchmarks import console_script, run_timed

FIELDS = {
    "h": "h = 1",
    "h_upper": "h_upper = 1",
    "h_lower": "h_lower = -1",
    "greedy": "greedy != outcome",
    "greedy_west_leads": "greedy_west_leads = 8",
    "greedy_east_leads": "greedy_east_leads = 8",
    "five_card": "five_card = (W, E)",
    "five_card_west_leads": "five_card_west_leads = W",
    "five_card_east_leads": "five_card_east_leads = E",
    "ace": "ace = W",
    "key": "key >= 0",
    "flags": "flags != 0",
    "holdup": "holdup",
}
"""A search per deal-level field (the value's fields are decided per distinct value, from the stored counts)."""

_SAMPLE = """
import itertools, sys, time
import numpy as np
from whist_catalogue.store.levels import chunk_count
from whist_catalogue.store.reader import open_catalogue
from whist_catalogue.store.search import ChunkQuery
db, n, k, expression = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
query = ChunkQuery(expression)
with open_catalogue(db) as cat:
    chunks = cat.scan_chunks(n)
    query.on_chunk(next(chunks))  # Numba's cached kernels load
    wall, cpu, found, done = time.perf_counter(), time.process_time(), 0, 0
    for chunk in itertools.islice(chunks, k):
        found += int(np.count_nonzero(query.on_chunk(chunk)))
        done += 1
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(wall / done, cpu / done, chunk_count(n), found)
"""


def run(db: str, n: int, chunks: int | None) -> list[dict]:
    rows: list[dict] = []
    for field, condition in FIELDS.items():
        expression = f"n = {n} and {condition}"
        if chunks is None:
            done = run_timed([*console_script(), "search", "--count", "--no-progress", expression, "--db", db])
            rows.append({"field": field, "expression": expression, "matches": int(done.stdout),
                         "wall_s": round(done.wall, 1), "cpu_s": round(done.cpu, 1)})
        else:
            words = subprocess.run([sys.executable, "-c", _SAMPLE, db, str(n), str(chunks), expression],
                                   capture_output=True, text=True, check=True).stdout.split()
            per_wall, per_cpu, total = float(words[0]), float(words[1]), int(words[2])
            rows.append({"field": field, "expression": expression, "chunks": chunks,
                         "chunk_wall_ms": round(1000 * per_wall, 1), "chunk_cpu_ms": round(1000 * per_cpu, 1),
                         "level_wall_s": round(per_wall * total, 1), "level_cpu_s": round(per_cpu * total, 1)})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--n", type=int, default=16)
    parser.add_argument("--chunks", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = run(args.db, args.n, args.chunks)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        for r in rows:
            print(" | ".join(str(v) for v in r.values()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
