"""DDS, the bridge double-dummy solver, as a referee and a yardstick (issue 12; docs/spec.md §7).

Usage: ``python -m whist_catalogue.scripts.benchmarks.dds [--deals 2000] [--positions 1000] [--seed 12] [--cli-runs 7]
[--cli-db CATALOGUE] [--save-deals FILE]``
(needs the ``test`` extra: ``endplay``, Bo Haglund's DDS).

A whist deal becomes a bridge deal in notrump as the two-hand benchmark maps one
(:func:`whist_catalogue.scripts.benchmarks.twohand.bridge_deal`): West → North, East → East; each
whist suit on the top ranks of a bridge suit; the free low cards to South and West, who can never win
a trick — every card of theirs is below every card of North's and East's in its suit, and notrump has no
ruffs — so North's tricks are whist-West's.  At most 4 whist suits, each of at most 6 cards a hand.

The script, in one run on the same seeded deals, checks and times:

1. outcomes and first leads: DDS (every optimal lead, each leader) against
   :func:`~whist_catalogue.theory.multisuit.evaluate`; the theory's lead must be one of DDS's optimal leads;
2. ``moves``: every legal card of random positions — trick starts and after the
   lead — against DDS's score of every legal card;
3. speed: DDS per deal (both leaders, its fastest mode: one optimal card) against
   ``evaluate``, ``analyse_batch`` and ``DealEvaluator`` in process, and against a ``whist-catalogue
   outcome --json -`` process over all the deals, start-up included (the median of
   ``--cli-runs`` such processes) — in wall time
   and in CPU time (the process's own, the child's from ``getrusage``), which a
   busy machine distorts less.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
from pathlib import Path
from typing import Sequence

from whist_catalogue.scripts.benchmarks import console_script, run_timed, timed, timed_each
from whist_catalogue.scripts.benchmarks.twohand import RANKS, bridge_deal, dds_cards
from whist_catalogue.theory.deals import Notation, Suit, TwoHandDeal
from whist_catalogue.theory.labeled import Player as Side  # endplay's Player is another (the four seats)


def random_deal(rng: random.Random, cards: int = 13, suits: int = 4) -> tuple[Suit, ...]:
    """A random symmetric whist deal of ``cards`` a hand in ``suits`` suits (some may be empty), in ranks.

    The suit sizes are uniform among those that fit (each ≤ 6 a hand, summing to ``cards``),
    then each suit's top 2n ranks are split at random.
    """
    if not 1 <= cards <= 6 * suits or suits > 4:
        raise ValueError(f"{cards} cards a hand do not fit {suits} bridge suits")
    while True:
        sizes = [rng.randint(0, 6) for _ in range(suits)]
        if sum(sizes) == cards:
            break
    out = []
    for n in sizes:
        ranks = list(range(14, 14 - 2 * n, -1))
        west = set(rng.sample(ranks, n))
        out.append(Suit(tuple(sorted(west)), tuple(sorted(set(ranks) - west)), Notation.RANKS))
    return tuple(out)


def deal_text(suits: Sequence[Suit]) -> str:
    """The deal in the command line's notation, its empty suits left out (see :func:`live_suits`)."""
    return ", ".join(str(s) for s in suits if s.n)


def live_suits(suits: Sequence[Suit]) -> list[int]:
    """The indices of the nonempty suits: suit k of :func:`deal_text` is suit ``live_suits(suits)[k]``."""
    return [i for i, s in enumerate(suits) if s.n]


def dds_position(suits: Sequence[Suit], leader: str, led: tuple[int, int] | None = None):
    """A bridge position — the board, and its cards as whist cards (suit, rank) — with the trick's leader on lead,
    after ``led`` (suit, rank) and the low cards that follow."""
    from endplay.types import Card, Player

    live = live_suits(suits)  # a two-hand deal has no empty suit: the bridge suits are the nonempty ones
    board, cards = bridge_deal(TwoHandDeal(tuple(suits[i] for i in live)))
    whist = {bridge: (live[suit], rank) for bridge, (suit, rank) in cards.items()}
    board.first = Player.north if leader == "W" else Player.east
    if led is not None:
        suit, rank = next(bridge for bridge, card in whist.items() if card == led)
        board.play(Card("SHDC"[suit] + RANKS[14 - rank]))
        if leader == "E":
            # South and West follow (or discard) with low cards; then North, whist-West, is to play.
            for _ in range(2):
                board.play(board.legal_moves()[0])
    return board, whist


def west_tricks(suits: Sequence[Suit], to_play: str, side_tricks: int) -> int:
    """DDS counts tricks for the side to move; whist-West's are North's."""
    return side_tricks if to_play == "W" else sum(s.n for s in suits) - side_tricks


def dds_outcome(suits: Sequence[Suit], leader: str) -> tuple[int, set[tuple[int, int]]]:
    """West's tricks with ``leader`` on lead, and every optimal first lead (suit, rank), by DDS."""
    from endplay.dds.solve import SolveMode

    scores = dds_cards(dds_position(suits, leader), SolveMode.OptimalAll)
    return west_tricks(suits, leader, scores[0][1]), {c for c, _ in scores}


def dds_moves(suits: Sequence[Suit], leader: str, led: tuple[int, int] | None) -> dict[tuple[int, int], int]:
    """Every legal card (suit, rank) of the whist player to move with West's tricks from this trick on, by DDS."""
    from endplay.dds.solve import SolveMode

    to_play = leader if led is None else ("E" if leader == "W" else "W")
    scores = dds_cards(dds_position(suits, leader, led), SolveMode.Default)  # every legal card with its score (endplay's LegalAll asks DDS for target 0)
    return {c: west_tricks(suits, to_play, t) for c, t in scores}


def random_position(rng: random.Random, dealt: tuple[Suit, ...]) -> tuple[tuple[Suit, ...], Side, tuple[int, int] | None]:
    """A position reached by random play: the suits left, the trick's leader, and the card led if any."""
    leader: Side = rng.choice(("W", "E"))
    suits = list(dealt)
    for _ in range(rng.randint(0, sum(s.n for s in suits) - 1)):
        i = rng.choice(live_suits(suits))
        w, e = rng.choice(suits[i].west), rng.choice(suits[i].east)
        lead, reply = (w, e) if leader == "W" else (e, w)
        suits[i] = suits[i].without(w, e)
        leader = leader if lead > reply else ("E" if leader == "W" else "W")
    led = None
    if rng.random() < 0.5:
        i = rng.choice(live_suits(suits))
        led = (i, rng.choice(suits[i].west if leader == "W" else suits[i].east))
    return tuple(suits), leader, led


# -- the benchmark ---------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    from endplay.dds.solve import SolveMode

    from whist_catalogue.theory.moves import suit_card_results
    from whist_catalogue.theory.multisuit import DealEvaluator, analyse_batch, evaluate
    from whist_catalogue.theory.small_suits import SuitTable

    parser = argparse.ArgumentParser(description="DDS against the theory: agreement and speed on the same deals.")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--cli-runs", type=int, default=7, help="CLI processes timed; the median is reported")
    parser.add_argument("--cli-db", metavar="CATALOGUE",
                        help="run the CLI with --db CATALOGUE (default: no catalogue, named by WHIST_CATALOGUE_DB)")
    parser.add_argument("--save-deals", type=Path, metavar="FILE",
                        help="write the deals, one a line, for timing the CLI alone (benchmarks.processes), and stop")
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    deals = [random_deal(rng) for _ in range(args.deals)]
    text = "".join(deal_text(s) + "\n" for s in deals)
    if args.save_deals:
        args.save_deals.write_text(text)
        return 0
    table = SuitTable()

    # 1. agreement on outcomes and first leads (DDS: every optimal lead)
    dds_answers = []
    for suits in deals:
        e = evaluate([s.deal for s in suits], table)
        answers = []
        for leader, expected, lead in (("W", e.outcome.west_leads, e.west_lead), ("E", e.outcome.east_leads, e.east_lead)):
            tricks, best = dds_outcome(suits, leader)
            card = (lead.suit, suits[lead.suit].rank_of(lead.card))
            if tricks != expected or card not in best:
                raise SystemExit(f"DISAGREE on {deal_text(suits)} leader {leader}: {tricks} {best} vs {expected} {card}")
            answers.append((tricks, best))
        dds_answers.append(answers)
    print(f"outcomes and first leads: {args.deals} deals x 2 leaders agree with DDS", flush=True)

    # 2. moves on random positions
    cards = 0
    for k in range(args.positions):
        suits, leader, led = random_position(rng, deals[k % len(deals)])
        ours = {(r.suit, r.card): r.west_tricks for r in suit_card_results(suits, leader, table, led)}
        theirs = dds_moves(suits, leader, led)
        if ours != theirs:
            raise SystemExit(f"DISAGREE on moves of {deal_text(suits)} leader {leader} led {led}: {ours} vs {theirs}")
        cards += len(ours)
    print(f"moves: {args.positions} positions, {cards} legal cards agree with DDS", flush=True)

    # 3. speed, all on the same deals in this one run
    boards = [[dds_position(suits, leader)[0] for leader in "WE"] for suits in deals]
    from endplay.dds import solve_board

    _, dds, dds_cpus = timed_each(lambda pair: [solve_board(b, SolveMode.OptimalOne) for b in pair], boards)
    keyed = [[s.deal for s in suits] for suits in deals]
    fresh = SuitTable()
    _, ev, ev_cpus = timed_each(lambda ds: evaluate(ds, fresh), keyed)
    dds_cpu, ev_cpu = sum(dds_cpus), sum(ev_cpus)
    rows = [[d.key for d in ds] for ds in keyed]
    _, batch_total, batch_cpu = timed(lambda: analyse_batch(rows, fresh))
    texts = [deal_text(s) for s in deals]
    evaluator = DealEvaluator(SuitTable())
    _, texts_total, texts_cpu = timed(lambda: [evaluator(line) for line in texts])

    named = ["--db", args.cli_db] if args.cli_db else []
    # A median: one short process is at the mercy of the machine's moment.
    runs = [run_timed([*console_script(), "outcome", "--json", *named, "-"], text,
                      {"WHIST_CATALOGUE_DB": os.devnull + ".absent"}) for _ in range(args.cli_runs)]
    walls = [run.wall for run in runs]
    cli_total, cli_cpu = statistics.median(walls), statistics.median(run.cpu for run in runs)
    lines = [json.loads(x) for x in runs[-1].stdout.splitlines()]
    assert len(lines) == len(deals)
    for suits, line, (west, east) in zip(deals, lines, dds_answers):
        live = live_suits(suits)
        for key, (tricks, best) in (("west", west), ("east", east)):
            lead = line["lead"][key]
            suit = live[lead["suit"]]
            card = (suit, next(r for r in suits[suit].west + suits[suit].east if suits[suit].card_name(r) == lead["card"]))
            if line["outcome"][f"{key}_leads"] != tricks or card not in best:
                raise SystemExit(f"DISAGREE: the CLI on {line['deal']}, {key} on lead: {line} vs DDS {tricks} {best}")
    print(f"whist-catalogue outcome --json -: {len(deals)} deals, both outcomes and both first leads agree with DDS")
    dds_total = sum(dds)
    dds_us, ev_us = statistics.median(dds) * 1e6, statistics.median(ev) * 1e6

    load = os.getloadavg()[0]
    print(f"load average (1 min) at the end of the run: {load:.2f} on {os.cpu_count()} cores")
    print(f"DDS solve_board, one optimal card, both leaders: median {dds_us:.0f} us a deal; {len(deals)} deals"
          f" {dds_total:.2f} s wall, {dds_cpu:.2f} s CPU")
    print(f"evaluate(), both leaders: median {ev_us:.1f} us a deal -> {dds_us / ev_us:.0f}x DDS (medians);"
          f" CPU {ev_cpu:.3f} s -> {dds_cpu / ev_cpu:.0f}x")
    print(f"analyse_batch(): {batch_total * 1e6 / len(deals):.1f} us a deal -> {dds_total / batch_total:.0f}x DDS (wall);"
          f" CPU {batch_cpu:.3f} s -> {dds_cpu / batch_cpu:.0f}x")
    print(f"DealEvaluator() on the deal texts, parsing included: {texts_total * 1e6 / len(deals):.1f} us a deal ->"
          f" {dds_total / texts_total:.0f}x DDS (wall); CPU {texts_cpu:.3f} s -> {dds_cpu / texts_cpu:.0f}x")
    print(f"whist-catalogue outcome --json{' --db ' + args.cli_db if args.cli_db else ''} -"
          f" ({len(deals)} deals, one process, start-up included; median of"
          f" {len(walls)} processes, fastest {min(walls):.3f} s): {cli_total:.3f} s wall -> {dds_total / cli_total:.0f}x"
          f" DDS; {cli_cpu:.3f} s CPU -> {dds_cpu / cli_cpu:.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
