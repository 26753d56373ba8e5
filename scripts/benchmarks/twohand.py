"""DDS, the bridge double-dummy solver, as referee and yardstick of the two-hand solver (issue 29; docs/benchmarks.md).

Usage: ``python -m whist_catalogue.scripts.benchmarks.twohand [--no-trumps 1000] [--trumps 4000] [--big 1000]
[--seed 29] [--cli [COMMAND ...]]`` (needs the ``test`` extra: ``endplay``, Bo Haglund's DDS).

A two-hand deal becomes a bridge deal: West → North, East → East, the whist trump suit the bridge trump suit.
Each whist suit sits on the top ranks of a bridge suit (only the cards' order matters); South and West of
the table hold only low cards of the *non-trump* suits, below every card in play, so they can never win a
trick nor ruff, and North–South's tricks are whist-West's.  Without trumps this fits every deal of 13 cards
a hand (52 − 26 free cards are exactly the 26 South and West need); with trumps, every deal of 9 (at least
21 free non-trump cards for 18).  At most 4 suits.

In one run, on the same seeded deals (two hands dealt from a 52-card pack: suits uneven, voids where they
fall), the script checks and times, per deal, every legal first card's result for both leaders:

1. 13 cards a hand, no trumps, every deal with an uneven suit (``--no-trumps``);
2. 9 cards a hand, a random trump suit (``--trumps``);
3. 13 cards a hand with trumps, ours only — no referee fits a pack there (``--big``).

DDS is ``solve_board`` in its every-legal-card mode, once per leader; ours is
:func:`~whist_catalogue.twohand.solver.solve_many` in process, the whole batch at once (one kernel call) and
deal by deal (for the per-deal figures).  It reports the mean, p99 and maximum per deal of each, the ratios,
and how often the search met a theory leaf.

``--cli`` times the command line instead, start-up included: each family's deals on the stdin of one
``whist-catalogue outcome --cards --json -`` process (or the COMMAND given), its every legal first card of both
leaders checked against DDS's in the same run (and, for the family no referee fits, against the solver in
process), its wall and CPU time against DDS's on the same deals; the slowest deal from each deal solved alone in
process.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
from typing import Sequence

from whist_catalogue.constants import MAX_SEARCH_N
from whist_catalogue.scripts.benchmarks import console_script, run_timed, timed, timed_each
from whist_catalogue.theory.deals import Notation, Suit, TwoHandDeal
from whist_catalogue.twohand.batch import collector_paused

RANKS = "AKQJT98765432"

Card = tuple[int, int]
"""A whist card: (suit index, real rank)."""


def random_two_hand(rng: random.Random, cards: int, trumps: bool, uneven: bool = False) -> TwoHandDeal:
    """Two hands of ``cards`` cards dealt from a 52-card pack (the other cards out of play), the pack's suits in
    their order (empty ones left out), and a random trump suit among them when ``trumps``; ``uneven``: deal again
    until some suit is uneven (a symmetric deal is the theory's, not the search's)."""
    while True:
        dealt = rng.sample([(s, r) for s in range(4) for r in range(2, 15)], 2 * cards)
        west = set(rng.sample(dealt, cards))
        suits = []
        for s in range(4):
            held = sorted(r for x, r in dealt if x == s)
            if held:
                suits.append(Suit(tuple(r for r in held if (s, r) in west),
                                  tuple(r for r in held if (s, r) not in west), Notation.RANKS))
        deal = TwoHandDeal(tuple(suits), rng.randrange(len(suits)) if trumps else None)
        if not uneven or not deal.symmetric:
            return deal


def bridge_deal(deal: TwoHandDeal):
    """The endplay ``Deal`` of the mapping above (nobody on lead yet) and the map from its cards to the whist
    deal's: ``{(bridge suit, bridge rank): (whist suit, rank)}``."""
    from endplay.types import Deal, Denom

    if len(deal.suits) > 4:
        raise ValueError("a bridge pack has 4 suits")
    north: list[str] = []
    east: list[str] = []
    cards: dict[Card, Card] = {}
    free: list[Card] = []
    for i in range(4):
        suit = deal.suits[i] if i < len(deal.suits) else Suit((), ())
        ranked = sorted(suit.west + suit.east, reverse=True)
        west = set(suit.west)
        north.append("".join(RANKS[k] for k, r in enumerate(ranked) if r in west))
        east.append("".join(RANKS[k] for k, r in enumerate(ranked) if r not in west))
        cards.update({(i, 14 - k): (i, r) for k, r in enumerate(ranked)})
        if i != deal.trump:
            free += [(i, 14 - k) for k in range(len(ranked), 13)]  # below every card in play
    need = 2 * deal.n
    if len(free) < need:
        raise ValueError(f"not enough free low non-trump cards for South and West in {deal.text()!r}")
    free.sort(key=lambda c: -c[1])
    south: list[list[str]] = [[] for _ in range(4)]
    west_hand: list[list[str]] = [[] for _ in range(4)]
    for k, (i, rank) in enumerate(free[:need]):
        (south if k % 2 == 0 else west_hand)[i].append(RANKS[14 - rank])
    hands = [".".join(north), ".".join(east), ".".join(map("".join, south)), ".".join(map("".join, west_hand))]
    bridge = Deal("N:" + " ".join(hands))
    bridge.trump = Denom.nt if deal.trump is None else Denom(deal.trump)
    return bridge, cards


def dds_cards(position, mode) -> list[tuple[Card, int]]:
    """DDS's cards (``solve_board`` in ``mode``) of the player to move of ``position`` — a board and the map from its
    cards to whist cards — as whist cards, each with the tricks the player's side takes from there."""
    from endplay.dds import solve_board

    board, cards = position
    # endplay's ranks are bits: the ace is 1 << 14
    return [(cards[(int(c.suit), int(c.rank).bit_length() - 1)], t) for c, t in solve_board(board, mode)]


def dds_first_cards(deal: TwoHandDeal, leader: str, bridge=None) -> dict[Card, int]:
    """Every legal first card of ``leader`` with West's tricks, by DDS (``solve_board``, every legal card)."""
    from endplay.dds.solve import SolveMode
    from endplay.types import Player

    board, cards = bridge if bridge is not None else bridge_deal(deal)
    board.first = Player.north if leader == "W" else Player.east
    return {card: tricks if leader == "W" else deal.n - tricks
            for card, tricks in dds_cards((board, cards), SolveMode.Default)}


def our_first_cards(solution, leader: str) -> dict[Card, int]:
    return {(r.suit, r.card): r.west_tricks for r in solution.answer(leader).moves}


def _spread(seconds: Sequence[float]) -> tuple[float, float, float]:
    """(mean, p99, max) in milliseconds."""
    ordered = sorted(seconds)
    return (1e3 * statistics.mean(ordered), 1e3 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
            1e3 * ordered[-1])


def _line(label: str, seconds: Sequence[float], cpu: Sequence[float]) -> str:
    """Wall and CPU time a deal (CPU moves less with the machine's load: it is what the ratios use)."""
    mean, p99, top = _spread(seconds)
    cpu_mean, cpu_p99, cpu_top = _spread(cpu)
    return (f"  {label}: wall mean {mean:.3f} ms, p99 {p99:.3f} ms, max {top:.3f} ms a deal, {sum(seconds):.2f} s in"
            f" all; CPU mean {cpu_mean:.3f} ms, p99 {cpu_p99:.3f} ms, max {cpu_top:.3f} ms, {sum(cpu):.2f} s in all")


def _dds(deals: list[TwoHandDeal]):
    """DDS's every legal first card of West and of East for each deal, and its wall and CPU seconds a deal."""
    boards = [(deal, bridge_deal(deal)) for deal in deals]
    return timed_each(lambda pair: (dds_first_cards(pair[0], "W", pair[1]), dds_first_cards(pair[0], "E", pair[1])),
                      boards)


def _one_by_one(deals: list[TwoHandDeal]):
    """Each deal solved alone in process, after the ones before it (the transposition table as the command line
    leaves it), timed: the solutions, wall and CPU seconds a deal."""
    from whist_catalogue.twohand.solver import solve_many

    return timed_each(lambda deal: solve_many([deal])[0], deals)


def _first_cards(solutions) -> list[tuple[dict[Card, int], dict[Card, int]]]:
    """Each solution's every legal first card of West and of East on lead."""
    return [(our_first_cards(s, "W"), our_first_cards(s, "E")) for s in solutions]


def _agree(deals: list[TwoHandDeal], found: list, expected: list, ours: str, theirs: str) -> int:
    """The legal first cards ``found`` for West and East on lead equal to ``expected``, deal by deal; their count."""
    cards = 0
    for deal, mine, right in zip(deals, found, expected, strict=True):
        for side, cards_mine, cards_right in zip(("west", "east"), mine, right):
            if cards_mine != cards_right:
                raise SystemExit(f"DISAGREE on {deal.text()!r}, {side} on lead: {ours} {cards_mine},"
                                 f" {theirs} {cards_right}")
            cards += len(cards_mine)
    return cards


def _ours(deals: list[TwoHandDeal]):
    """Our answers deal by deal (timed each), and the whole batch in one call (timed)."""
    from whist_catalogue.twohand.solver import clear_table, solve_many

    clear_table()
    solutions, per_deal, per_deal_cpu = _one_by_one(deals)
    clear_table()  # the batch starts from nothing too
    batch, whole, whole_cpu = timed(lambda: solve_many(deals))
    assert [s.answers for s in batch] == [s.answers for s in solutions]
    # What a command line does in process: the deals' texts in, one JSON line a deal out.
    texts = [d.text() for d in deals]
    clear_table()
    lines, text_wall, text_cpu = timed(lambda: [json.dumps(s.to_json(), ensure_ascii=False) for s in solve_many(texts)])
    assert len(lines) == len(deals)
    texts_line = (f"  ours, texts in and JSON lines out (solve_many, to_json, json.dumps), in process: {text_wall:.3f} s,"
                  f" {1e3 * text_wall / len(deals):.3f} ms a deal ({text_cpu:.2f} s CPU)")
    return solutions, per_deal, per_deal_cpu, whole, whole_cpu, texts_line


def _leaf_rate(solutions) -> str:
    searched = [s for s in solutions if s.source == "search"]
    nodes = sum(s.nodes for s in searched)
    leaves = sum(s.theory_leaves for s in searched)
    ends = sum(s.endings for s in searched)
    met = sum(1 for s in searched if s.theory_leaves)
    return (f"  theory leaves: {leaves:,} of {nodes:,} positions searched ({100 * leaves / max(nodes, 1):.2f} %);"
            f" {met} of {len(searched)} searched deals met one; {len(solutions) - len(searched)} deals answered by the"
            f" theory outright; {ends:,} endings looked up ({ends / max(len(searched), 1):,.0f} a deal)")


def compare(label: str, deals: list[TwoHandDeal], referee: bool = True) -> None:
    """DDS against ours on the same deals: every legal first card of both leaders equal, and the times (ours alone
    where no referee fits a pack)."""
    print(f"{label}: {len(deals)} deals{'' if referee else ' (no referee fits a pack here)'}", flush=True)
    # Python's cycle collector off while deals are timed, DDS's and ours alike, after a full collection: one
    # (about 0.1 s over this script's objects) would otherwise land in whichever deal is being timed.
    gc.collect()
    with collector_paused():
        expected, dds, dds_cpu = _dds(deals) if referee else ([], [], [])
        solutions, ours, ours_cpu, whole, whole_cpu, texts_line = _ours(deals)
    if referee:
        cards = _agree(deals, _first_cards(solutions), expected, "ours", "DDS")
        print(f"  every legal first card of both leaders agrees with DDS: {cards:,} cards")
        print(_line("DDS solve_board (every legal card), both leaders", dds, dds_cpu))
    print(_line("ours, solve_many([deal]) deal by deal", ours, ours_cpu))
    print(f"  ours, solve_many(all {len(deals)}) in one call: {whole:.3f} s, {1e3 * whole / len(deals):.3f} ms a deal"
          f" ({whole_cpu:.2f} s CPU)")
    print(texts_line)
    if referee:
        print(f"  -> deal by deal {sum(dds) / sum(ours):.1f}x DDS in wall time, {sum(dds_cpu) / sum(ours_cpu):.1f}x in"
              f" CPU; as a batch {sum(dds) / whole:.1f}x, CPU {sum(dds_cpu) / whole_cpu:.1f}x; slowest deal (CPU)"
              f" {1e3 * max(ours_cpu):.3f} ms against DDS's {1e3 * max(dds_cpu):.3f} ms (wall {1e3 * max(ours):.3f} ms"
              f" against {1e3 * max(dds):.3f} ms)")
    print(_leaf_rate(solutions), flush=True)


def ingredients(label: str, deals: list[TwoHandDeal]) -> None:
    """What the exact leaves save: positions searched and CPU time with the table of endings and Theorem 9.1's
    leaves, without each, and without both (the same deals, the same answers)."""
    from whist_catalogue.twohand.solver import clear_table, solve_many

    answers = None
    for name, theory, endings in (("both", True, True), ("no endings", True, False),
                                  ("no theory leaves", False, True), ("neither", False, False)):
        gc.collect()
        with collector_paused():
            clear_table()
            solutions, _, cpu = timed(lambda: solve_many(deals, theory=theory, endings=endings))
        found = [s.answers for s in solutions]
        assert answers is None or found == answers
        answers = found
        nodes = sum(s.nodes for s in solutions)
        print(f"  {label}, {name}: {nodes / len(deals):,.0f} positions searched a deal, {1e3 * cpu / len(deals):.3f} ms"
              f" CPU a deal", flush=True)


def _cli_cards(line: dict, deal: TwoHandDeal, side: str) -> dict[Card, int]:
    """A command-line answer's first cards of one leader as {(suit, rank): West's tricks}."""
    ranks = [{s.card_name(r): r for r in s.west + s.east} for s in deal.suits]
    return {(c["suit"], ranks[c["suit"]][c["card"]]): c["west_tricks"] for c in line["cards"][side]}


def _run_command(command: list[str], deals: list[TwoHandDeal]) -> tuple[list[dict], float, float]:
    """The deals on the stdin of one ``command`` process: its JSON lines, wall and CPU seconds (start-up included)."""
    done = run_timed(command, "".join(d.text() + "\n" for d in deals))
    return [json.loads(x) for x in done.stdout.splitlines()], done.wall, done.cpu


def _alone(deals: list[TwoHandDeal]):
    """Each deal solved alone in process (after the others: the transposition table as the command line leaves
    it), timed: our time a deal, for its mean, p99 and slowest."""
    from whist_catalogue.twohand.solver import clear_table, solve_many

    solve_many(["AK2/QJ, 54/763"])  # the kernels from Numba's cache, before anything is timed
    clear_table()
    gc.collect()
    with collector_paused():
        return _one_by_one(deals)


def time_command(command: list[str], deals: list[TwoHandDeal], label: str, referee: bool) -> None:
    """The command line against DDS on the same deals, start-up included: every legal first card of both leaders
    equal (DDS's, or the in-process solver's where no referee fits), wall and CPU time, the slowest deal."""
    print(f"{label}: {len(deals)} deals", flush=True)
    gc.collect()
    with collector_paused():
        expected, dds, dds_cpu = _dds(deals) if referee else ([], [], [])
    lines, wall, cpu = _run_command(command, deals)
    solutions, alone, alone_cpu = _alone(deals)
    found = [(_cli_cards(line, deal, "west"), _cli_cards(line, deal, "east")) for deal, line in zip(deals, lines)]
    cards = _agree(deals, found, expected if referee else _first_cards(solutions), "the command line",
                   "DDS" if referee else "in process")
    searched = sum(line["source"] == "search" for line in lines)
    print(f"  every legal first card of both leaders from the command line agrees with"
          f" {'DDS' if referee else 'the solver in process'}: {cards:,} cards ({searched} deals searched,"
          f" {len(lines) - searched} from the theory)")
    print(f"  ours: {' '.join(command)}, one process, start-up included: {wall:.3f} s wall, {cpu:.3f} s CPU"
          f" ({1e3 * cpu / len(deals):.3f} ms CPU a deal)")
    print(_line("ours, each deal alone in process", alone, alone_cpu))
    if referee:
        print(_line("DDS solve_board (every legal card), both leaders", dds, dds_cpu))
        print(f"  -> the command line {sum(dds_cpu) / cpu:.1f}x DDS in CPU time ({sum(dds_cpu):.2f} s against"
              f" {cpu:.3f} s), {sum(dds) / wall:.1f}x in wall time; slowest deal (CPU) ours {1e3 * max(alone_cpu):.3f}"
              f" ms against DDS's {1e3 * max(dds_cpu):.3f} ms (wall {1e3 * max(alone):.3f} against"
              f" {1e3 * max(dds):.3f} ms)")
    print(_leaf_rate(solutions), flush=True)


def start_up(command: list[str]) -> None:
    """What the command line pays before its first two-hand answer: one small deal, median of 5 processes."""
    runs = []
    for _ in range(5):
        _, wall, cpu = _run_command(command, [random_two_hand(random.Random(1), 3, True, True)])
        runs.append((cpu, wall))
    cpu, wall = sorted(runs)[2]
    print(f"start-up: {' '.join(command)} on one 3-card deal: {wall:.3f} s wall, {cpu:.3f} s CPU (median of 5)",
          flush=True)


_FRESH = """
import time
t0 = time.perf_counter()
from whist_catalogue.twohand.solver import solve_many
t1 = time.perf_counter()
solve_many(["AK2/QJ, 54/763"])
t2 = time.perf_counter()
solve_many(["AK3/QJ, 54/762"])
t3 = time.perf_counter()
print(f"{t1 - t0:.3f} {t2 - t1:.3f} {t3 - t2:.6f}")
"""


def fresh_process() -> None:
    """What a new process pays before its first answer: the import (NumPy, Numba) and the first call (the
    kernels from Numba's cache, the tables), then a second call — the median of three processes."""
    runs = []
    for _ in range(3):
        done = run_timed([sys.executable, "-c", _FRESH])
        runs.append((done.wall, *map(float, done.stdout.split())))
    whole, imported, first, second = sorted(runs)[1]
    print(f"a fresh process: {whole:.3f} s in all; import {imported:.3f} s, first call {first:.3f} s,"
          f" a second deal {1e3 * second:.2f} ms (median of 3)", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="DDS against the two-hand solver: agreement and speed.")
    parser.add_argument("--no-trumps", type=int, default=1000, metavar="DEALS", help="13-card deals without trumps")
    parser.add_argument("--trumps", type=int, default=4000, metavar="DEALS", help="9-card deals with trumps")
    parser.add_argument("--big", type=int, default=1000, metavar="DEALS", help="13-card deals with trumps (ours only)")
    parser.add_argument("--limit", type=int, default=0, metavar="DEALS",
                        help="deals of MAX_SEARCH_N cards a hand with trumps, the search's limit (ours only)")
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--ingredients", type=int, default=0, metavar="DEALS",
                        help="also time the first DEALS deals of each family without the endings and the theory leaves")
    parser.add_argument("--cli", nargs="*", metavar="COMMAND",
                        help="time COMMAND over each family's deals against DDS instead of the in-process solver"
                             " (default: whist-catalogue outcome --cards --json -)")
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    families = [
        ("13 cards a hand, no trumps, uneven suits", [random_two_hand(rng, 13, False, True) for _ in range(args.no_trumps)]),
        ("9 cards a hand, trumps", [random_two_hand(rng, 9, True) for _ in range(args.trumps)]),
        ("13 cards a hand, trumps", [random_two_hand(rng, 13, True) for _ in range(args.big)]),
        (f"{MAX_SEARCH_N} cards a hand, trumps", [random_two_hand(rng, MAX_SEARCH_N, True) for _ in range(args.limit)]),
    ]
    print(f"load average (1 min) at the start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    if args.cli is not None:
        command = args.cli or [*console_script(), "outcome", "--cards", "--json", "-"]
        start_up(command)
        for i, (label, deals) in enumerate(families):
            if deals:
                time_command(command, deals, label, referee=i < 2)
        print(f"load average (1 min) at the end: {os.getloadavg()[0]:.2f}")
        return 0
    fresh_process()
    from whist_catalogue.twohand.solver import solve_many

    solve_many(["AK2/QJ, 54/763"])  # the kernels from Numba's cache, before anything is timed
    for i, (label, deals) in enumerate(families):
        if deals:
            compare(label, deals, referee=i < 2)
    if args.ingredients:
        print(f"the exact leaves, on the first {args.ingredients} deals of each family:")
        for label, deals in families:
            if deals:
                ingredients(label, deals[: args.ingredients])
    print(f"load average (1 min) at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
