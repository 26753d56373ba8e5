"""``value`` and ``outcome``: single-suit values and multi-suit outcomes (SPEC §4).

Values come from the catalogue when it holds the deal and are computed
otherwise (:func:`whist_catalogue.store.solvers.default_solver`).  ``outcome`` on a single
suit beyond every solver's reach falls back to the linear-time algorithm of the
single-suit paper (Theorem 10.1), with the value when Theorem 12.1 can name it.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from whist_catalogue.errors import DealTooLargeError, InvalidDealError
from whist_catalogue.scripts.main import deal_arguments, emit_json
from whist_catalogue.theory.deals import Suit, parse_multisuit, parse_suit
from whist_catalogue.theory.values import Outcome

if TYPE_CHECKING:
    from whist_catalogue.theory.solution import Solver

# Solvers (and Numba behind the engine) are imported when a command runs, not
# when the parser is built for every command.


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "value",
        parents=[common],
        help="value, outcome and best leads of single-suit deals",
        description="Value, outcome and best leads of single-suit deals (SPEC §2 notation: AQ/KJ, 13 12 / 14 11, EWEW).",
    )
    p.add_argument("deals", nargs="*", metavar="DEAL", help="single-suit deals, or - to read one per line from stdin")
    p.set_defaults(func=run_value)

    p = sub.add_parser(
        "outcome",
        parents=[common],
        help="outcome and first leads of multi-suit deals",
        description="Per-suit values, their sum, the outcome and an optimal first lead for each side of multi-suit "
        "deals (suits separated by , or ;).",
    )
    p.add_argument("deals", nargs="*", metavar="DEAL", help="multi-suit deals, or - to read one per line from stdin")
    p.set_defaults(func=run_outcome)


def _outcome_json(o: Outcome) -> dict[str, int]:
    return {"west_leads": int(o.west_leads), "east_leads": int(o.east_leads)}


def _tricks(k: int) -> str:
    return f"{k} trick" + ("" if k == 1 else "s")


def _outcome_text(o: Outcome) -> str:
    return f"West takes {_tricks(o.west_leads)} with West on lead, {_tricks(o.east_leads)} with East on lead"


def run_value(args: argparse.Namespace) -> int:
    from whist_catalogue.store.solvers import default_solver

    solver = default_solver(args.db)
    try:
        for text in deal_arguments(args.deals):
            suit = parse_suit(text)
            _print_value(suit, solver, args.json)
    finally:
        _close(solver)
    return 0


def _close(solver: "Solver") -> None:
    close = getattr(solver, "close", None)
    if close is not None:
        close()


def _print_value(suit: Suit, solver: "Solver", as_json: bool) -> None:
    deal = suit.deal
    solution = solver.solve(deal)
    west = [suit.name_of(c) for c in solution.west_leads]
    east = [suit.name_of(c) for c in solution.east_leads]
    if as_json:
        emit_json(
            {
                "deal": deal.label,
                "n": deal.n,
                "value": solution.value.to_json(),
                "outcome": _outcome_json(solution.outcome),
                "best_leads": {"west": west, "east": east},
            }
        )
        return
    sys.stdout.write(
        f"{suit}  ({deal.label}, n = {deal.n})\n"
        f"  value     {solution.value.text()}\n"
        f"  outcome   {_outcome_text(solution.outcome)}\n"
        f"  best leads  West: {' '.join(west)}   East: {' '.join(east)}\n"
    )


def run_outcome(args: argparse.Namespace) -> int:
    from whist_catalogue.store.solvers import default_solver

    solver = default_solver(args.db)
    try:
        _run_outcome(args, solver)
    finally:
        _close(solver)
    return 0


def _run_outcome(args: argparse.Namespace, solver: "Solver") -> None:
    from whist_catalogue.theory.multisuit import analyse

    for text in deal_arguments(args.deals):
        suits = parse_multisuit(text)
        try:
            analysis = analyse(suits, solver)
        except DealTooLargeError:
            if len(suits) != 1:
                raise
            _print_linear_outcome(text, suits[0], args.json)
            continue
        leads = {p: {"suit": analysis.lead(p).suit, "card": analysis.lead_name(p)} for p in ("W", "E")}
        if args.json:
            emit_json(
                {
                    "deal": text,
                    "suits": [s.value.to_json() for s in analysis.solutions],
                    "value": analysis.value.to_json(),
                    "outcome": _outcome_json(analysis.outcome),
                    "lead": {"west": leads["W"], "east": leads["E"]},
                }
            )
            continue
        parts = "  +  ".join(s.value.text() for s in analysis.solutions)
        lines = [f"{text.strip()}", f"  suit values  {parts}", f"  sum          {analysis.value.text()}",
                 f"  outcome      {_outcome_text(analysis.outcome)}"]
        for p, name in (("W", "West"), ("E", "East")):
            lead = analysis.lead(p)
            lines.append(
                f"  {name} leads  {leads[p]['card']} of suit {lead.suit + 1} ({analysis.suits[lead.suit]}):"
                f" {lead.rule.describe(p)}"
            )
        sys.stdout.write("\n".join(lines) + "\n")


def _print_linear_outcome(text: str, suit: Suit, as_json: bool) -> None:
    """A single suit too large to value: its outcome by Theorem 10.1, its value if Theorem 12.1 names it."""
    from whist_catalogue.single_suit.linear_time import detect_simple_value

    if suit.n == 0:
        raise InvalidDealError(f"empty deal: {text!r}")
    found = detect_simple_value(suit.deal)
    value = found.value.to_json() if found.value is not None else None
    if as_json:
        emit_json(
            {
                "deal": text,
                "suits": [value],
                "value": value,
                "outcome": _outcome_json(found.outcome),
                "lead": {"west": None, "east": None},
                "method": "linear-time (single-suit paper, Theorem 10.1)",
            }
        )
        return
    described = found.value.text() if found.value is not None else f"strictly between {found.lower} and {found.upper}"
    sys.stdout.write(
        f"{suit.n} cards a hand: beyond the catalogue and the engine, solved in linear time (Theorem 10.1)\n"
        f"  outcome  {_outcome_text(found.outcome)}\n"
        f"  value    {described}\n"
    )
