"""The table of two-hand endings (docs/two-hand.md; docs/benchmarks.md, "The table of two-hand endings"): what it
costs level by level, what its format saves, what it saves the search, and its look-ups from the catalogue.

    .venv/bin/python -m whist_catalogue.scripts.benchmarks.endings --levels 10
    .venv/bin/python -m whist_catalogue.scripts.benchmarks.endings --formats 9
    .venv/bin/python -m whist_catalogue.scripts.benchmarks.endings --catalogue PATH
    .venv/bin/python -m whist_catalogue.scripts.benchmarks.endings --catalogue PATH --leaves 300
    .venv/bin/python -m whist_catalogue.scripts.benchmarks.endings --catalogue PATH --answers 200
    .venv/bin/python -m whist_catalogue.scripts.benchmarks.endings --catalogue PATH --batch 4000

* ``--levels K``: levels 1 … K built in memory, one after another: positions (Pólya's count, equal to the
  index's), bytes (four bits a position; zlib level 6 as the catalogue stores them; LZMA as the package ships
  them, up to level 10), wall and CPU seconds, and the process's peak memory after each level.
* ``--formats K``: what each choice of the format saves, levels 1 … K: the positions with the side suits in
  order (the table's first form) against the multiset; a byte a value against four bits; raw, zlib and LZMA.
  The ordered table is laid out as the first form laid it out (West's cards by colex rank, the cut points, the
  trump bit) with the values of the multiset table.
* ``--catalogue PATH``: the levels a catalogue stores (``build --endings K``): positions, bytes, build time; a
  model of time and bytes a position fitted to levels 9 and up, and its extrapolation to 13–15; OpenSpiel's
  German-whist endgame table's count for the same k (its code's formula: C(2k, k) times its suit-length splits).
* ``--leaves N``: the search on N seeded deals of each family (13 cards a hand without and with trumps, 9 with
  trumps, dealt from a pack as ``benchmarks/twohand.py`` deals them) with the shipped table, then with the
  catalogue's whole levels up to each K as its leaves: the load, positions searched and CPU a deal.
* ``--answers N``: N seeded deals of the catalogue's top level, each answered from the catalogue (a fresh reader:
  its chunks read and checked cold) and again (cached), against the search.
* ``--batch N``: the command line's batch, ``outcome --cards --json -`` on N seeded 13-card deals of each family
  (without and with trumps), start-up included, once with no catalogue (the search) and once with ``--db PATH``
  (its table of endings): CPU, wall and peak memory of each process, and its lines equal but for their source.

CPU time (``time.process_time``, every thread) is printed beside wall time: on a shared machine it is the
steadier figure.
"""

from __future__ import annotations

import argparse
import lzma
import random
import resource
import time
import zlib
from math import comb, log

import numpy as np

from whist_catalogue.scripts.benchmarks import timed
from whist_catalogue.theory.jit import kernel
from whist_catalogue.twohand.bits import ONE
from whist_catalogue.twohand.endings import (MAX_ENDING_N, EndingTable, build_level, ending_value,
                                             level_bytes, positions)


def run_levels(top: int) -> None:
    print("| k | positions | bytes (4 bits) | zlib 6 | LZMA | wall | CPU | CPU µs a position | peak RSS |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    below = EndingTable.of_chunks({})
    for k in range(1, top + 1):
        values, wall, cpu = timed(lambda: build_level(k, below))
        raw = values.tobytes()
        packed = len(zlib.compress(raw, 6))
        xz = f"{len(lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME)):,}" if k <= 10 else "—"
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
        print(f"| {k} | {positions(k):,} | {len(raw):,} | {packed:,} | {xz} | {wall:.2f} s | {cpu:.2f} s |"
              f" {1e6 * cpu / positions(k):.3f} | {peak:.2f} GB |", flush=True)
        below = EndingTable.of_levels([below.level(j) for j in range(1, k)] + [values]) if k < top else below


@kernel
def _ordered(k, ends, out):
    """The first form's layout of level k (West on lead): West's cards by colex rank, then the cut points, then the
    trump bit, a byte a value (255 where a suit of more than 13 cards puts a position outside the table)."""
    size = 2 * k
    sentinel = ONE << np.uint64(size)
    W = (ONE << np.uint64(k)) - ONE
    last = W << np.uint64(k)
    at = 0
    while True:
        for c0 in range(1, size + 1):
            for c1 in range(c0 + 1 if c0 < size else size, size + 1):
                for c2 in range(c1 + 1 if c1 < size else size, size + 1):
                    B = ONE | sentinel
                    if c0 < size:
                        B |= ONE << np.uint64(c0)
                    if c1 < size:
                        B |= ONE << np.uint64(c1)
                    if c2 < size:
                        B |= ONE << np.uint64(c2)
                    for tf in range(2):
                        v = ending_value(W, B, tf, 0, k, ends)
                        out[at] = 255 if v < 0 else v
                        at += 1
        if W == last:
            break
        c = W & (~W + ONE)
        r = W + c
        W = (((r ^ W) >> np.uint64(2)) // c) | r
    return at


def run_formats(top: int) -> None:
    from whist_catalogue.twohand.endings import built_endings

    table = built_endings(top)
    print("| k | positions, suits in order | multiset | ratio | ordered, a byte: raw / zlib / LZMA |"
          " multiset, a byte: raw / zlib / LZMA | multiset, 4 bits: raw / zlib / LZMA |")
    print("| --- | --- | --- | --- | --- | --- | --- |")

    def sizes(raw: bytes) -> str:
        return f"{len(raw):,} / {len(zlib.compress(raw, 6)):,} / {len(lzma.compress(raw, preset=9)):,}"

    for k in range(1, top + 1):
        ordered_count = comb(2 * k, k) * sum(comb(2 * k - 1, c) for c in range(4)) * 2
        ordered = np.zeros(ordered_count, dtype=np.uint8)
        assert _ordered(k, table.words, ordered) == ordered_count
        nibbles = table.level(k)
        by_byte = np.empty(2 * len(nibbles), dtype=np.uint8)
        by_byte[0::2], by_byte[1::2] = nibbles & 15, nibbles >> 4
        by_byte = by_byte[: positions(k)]
        print(f"| {k} | {ordered_count:,} | {positions(k):,} | {ordered_count / positions(k):.1f} |"
              f" {sizes(ordered.tobytes())} | {sizes(by_byte.tobytes())} | {sizes(nibbles[: level_bytes(k)].tobytes())} |",
              flush=True)


def openspiel_positions(k: int) -> int:
    """OpenSpiel's German-whist endgame table's entries for k cards a hand, by its code's own formula: the colex
    ranks of the 2k cards' owners, C(2k, k), times its suit splits — the trump suit's length and the other three
    lengths sorted, each at most 13, summing to 2k (``GenQuads``)."""
    splits = 0
    for t in range(min(2 * k, 13) + 1):
        rest = 2 * k - t
        for a in range(min(rest, 13) + 1):
            for b in range(max(a, rest - a - 13), min(rest - a, 13) + 1):
                c = rest - a - b
                if c < b:
                    break
                splits += 1
    return comb(2 * k, k) * splits


def trump_game_positions(k: int) -> int:
    """Level k's positions that a game with a trump suit reaches: with trumps, or without them and at most three
    suits (the four-suit positions without trumps are a no-trump game's only)."""
    from whist_catalogue.twohand.endings import shapes

    keys, offsets = shapes(k)
    sizes = np.diff(offsets)
    four_plain = ((keys >> 40) & 1) == 0
    four_plain &= (keys & 255) != 0
    return int(sizes[~four_plain].sum())


def run_catalogue(path: str) -> None:
    from whist_catalogue.store.endings import CatalogueEndings
    from whist_catalogue.store.reader import open_catalogue

    with open_catalogue(path) as catalogue:
        infos = [i for i in CatalogueEndings(catalogue).levels() if i.complete]
    print("| k | positions | of them a trump game's | stored bytes | bytes a position | build (wall) | µs a position |"
          " OpenSpiel's entries |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for i in infos:
        seconds = i.build_seconds or 0.0
        print(f"| {i.k} | {i.positions:,} | {trump_game_positions(i.k):,} | {i.stored_bytes or 0:,} |"
              f" {(i.stored_bytes or 0) / i.positions:.4f} | {seconds:,.1f} s | {1e6 * seconds / i.positions:.3f} |"
              f" {openspiel_positions(i.k):,} |")
    fitted = [i for i in infos if i.k >= 9 and i.build_seconds and i.stored_bytes]
    if len(fitted) >= 2:
        ks = np.array([i.k for i in fitted], dtype=float)
        time_fit = np.polyfit(ks, [log(i.build_seconds / i.positions) for i in fitted if i.build_seconds], 1)
        byte_fit = np.polyfit(ks, [log(i.stored_bytes / i.positions) for i in fitted if i.stored_bytes], 1)
        print(f"\nmodel (levels {int(ks[0])}–{int(ks[-1])}): a position's time × {np.exp(time_fit[0]):.3f} a level,"
              f" its bytes × {np.exp(byte_fit[0]):.3f} a level")
        for k in range(int(ks[-1]) + 1, 16):
            seconds = positions(k) * np.exp(np.polyval(time_fit, k))
            size = positions(k) * np.exp(np.polyval(byte_fit, k))
            print(f"  k = {k}: {positions(k):,} positions, about {seconds / 60:,.0f} min and {size / 1e6:,.0f} MB;"
                  f" {level_bytes(k) / 1e9:.2f} GB in memory (four bits a position)")


def _families(count: int) -> list[tuple[str, list]]:
    from whist_catalogue.scripts.benchmarks.twohand import random_two_hand

    out = []
    for label, cards, trumps in (("13 cards, no trumps", 13, False), ("13 cards, trumps", 13, True),
                                 ("9 cards, trumps", 9, True)):
        rng = random.Random(29)
        out.append((label, [random_two_hand(rng, cards, trumps, uneven=True) for _ in range(count)]))
    return out


def run_leaves(path: str, count: int) -> None:
    import gc

    from whist_catalogue.store.endings import CatalogueEndings
    from whist_catalogue.store.reader import open_catalogue
    from whist_catalogue.twohand.solver import clear_table, solve_many

    families = _families(count)
    with open_catalogue(path) as catalogue:
        stored = CatalogueEndings(catalogue)
        top = max(stored.complete_levels(), default=0)
        from whist_catalogue.twohand.endings import built_endings

        tables: list[tuple[str, bool | EndingTable]] = [(f"k ≤ {MAX_ENDING_N - 1}", built_endings(MAX_ENDING_N - 1)),
                                                        (f"shipped (k ≤ {MAX_ENDING_N})", True)]
        for k in range(MAX_ENDING_N + 1, top + 1):
            table, wall, cpu = timed(lambda: CatalogueEndings(catalogue).level_table(k))
            print(f"levels 1 … {k} from the catalogue: {table.nbytes / 1e6:,.1f} MB in memory, read and checked in"
                  f" {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True)
            tables.append((f"k ≤ {k}", table))
            del table
        print("\n| family | leaves | positions searched a deal | CPU a deal | wall a deal |")
        print("| --- | --- | --- | --- | --- |")
        reference: dict[str, list] = {}
        for label, deals in families:
            for name, endings in tables:
                solve_many(deals[:2], endings=endings)  # compiled, tables in place
                clear_table()
                gc.collect()
                found, wall, cpu = timed(lambda: solve_many(deals, endings=endings))
                answers = [s.answers for s in found]
                assert reference.setdefault(label, answers) == answers, (label, name)
                nodes = sum(s.nodes for s in found) / len(found)
                print(f"| {label} | {name} | {nodes:,.0f} | {1e3 * cpu / len(found):.3f} ms |"
                      f" {1e3 * wall / len(found):.3f} ms |", flush=True)


def run_answers(path: str, count: int) -> None:
    from whist_catalogue.scripts.benchmarks.twohand import random_two_hand
    from whist_catalogue.store.endings import CatalogueEndings
    from whist_catalogue.store.reader import open_catalogue
    from whist_catalogue.twohand.position import Position
    from whist_catalogue.twohand.solver import solve, words

    with open_catalogue(path) as catalogue:
        top = max(CatalogueEndings(catalogue).complete_levels(), default=0)
        rng = random.Random(13)
        deals = [random_two_hand(rng, top, trumps=i % 2 == 0, uneven=True) for i in range(count)]
        for label, fresh in (("cold (a fresh reader: its chunks read, checked, inflated)", True), ("cached", False)):
            stored = CatalogueEndings(catalogue)
            walls, cpus, chunks, sources = [], [], 0, set()
            for deal in deals:
                if fresh:
                    stored = CatalogueEndings(catalogue)
                wall, cpu = time.perf_counter(), time.process_time()
                table = stored.table_for([words(Position(deal))])
                answer = solve(deal, endings=table if table is not None else True, line=False)
                walls.append(time.perf_counter() - wall)
                cpus.append(time.process_time() - cpu)
                sources.add(answer.source)
                chunks += len(table.held(top)) if table is not None else 0
                if fresh:
                    assert answer.answers == solve(deal, endings=False, line=False).answers, deal.text()
            walls.sort()
            print(f"{count} deals of {top} cards a hand, {label}: wall median {1e3 * walls[len(walls) // 2]:.2f} ms,"
                  f" p95 {1e3 * walls[int(0.95 * len(walls))]:.2f} ms; CPU mean {1e3 * sum(cpus) / len(cpus):.2f} ms;"
                  f" {chunks / count:.1f} chunks of level {top} a deal; sources {sorted(sources)}", flush=True)


def run_batch(path: str, count: int) -> None:
    import json
    import os
    import sys
    import tempfile

    from whist_catalogue.scripts.benchmarks import run_timed

    print("| deals (seed 29) | answered | CPU, start-up included | wall | a deal (CPU) | peak memory |")
    print("| --- | --- | --- | --- | --- | --- |")
    for label, deals in _families(count)[:2]:
        stdin = "\n".join(d.text() for d in deals) + "\n"
        # No default catalogue: "without" is the search alone, "with" the catalogue --db names.
        env = {"WHIST_CATALOGUE_DB": os.path.join(tempfile.gettempdir(), "no-such-catalogue.sqlite")}
        found: dict[str, list[dict]] = {}
        for name, extra in (("by search (no catalogue)", []), ("with the catalogue's table", ["--db", path])):
            command = [sys.executable, "-m", "whist_catalogue", "outcome", "--cards", "--json", "-", *extra]
            out, _, wall, cpu, peak = run_timed(command, stdin, env)
            lines = found[name] = [json.loads(line) for line in out.splitlines()]
            sources = sorted({line["source"] for line in lines})
            print(f"| {count:,} of {label} | {name}: {', '.join(sources)} | {cpu:.2f} s | {wall:.2f} s |"
                  f" {1e3 * cpu / count:.3f} ms | {peak / 1e6:.2f} GB |", flush=True)
        searched, stored = found.values()
        assert [{**x, "source": "search"} for x in stored] == searched, label  # the same answers, but the source


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", type=int, metavar="K", help="build levels 1 … K in memory")
    parser.add_argument("--formats", type=int, metavar="K", help="the format's choices measured, levels 1 … K")
    parser.add_argument("--catalogue", metavar="PATH", help="a catalogue built with build --endings K")
    parser.add_argument("--leaves", type=int, metavar="N", help="N deals a family searched with each table")
    parser.add_argument("--answers", type=int, metavar="N", help="N deals answered from the catalogue")
    parser.add_argument("--batch", type=int, metavar="N", help="the command line's batch of N deals, with and without"
                        " the catalogue's table")
    args = parser.parse_args(argv)
    if args.levels:
        run_levels(args.levels)
    if args.formats:
        run_formats(args.formats)
    if args.catalogue:
        run_catalogue(args.catalogue)
        if args.leaves:
            run_leaves(args.catalogue, args.leaves)
        if args.answers:
            run_answers(args.catalogue, args.answers)
        if args.batch:
            run_batch(args.catalogue, args.batch)


if __name__ == "__main__":
    main()
