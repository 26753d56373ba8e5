"""``value``, ``outcome`` and ``moves``: single-suit values, multi-suit outcomes, every card's result (docs/spec.md §4).

Every suit with n ≤ 8 is answered from the preloaded table
(:mod:`whist_catalogue.theory.small_suits`); larger ones from the catalogue when it
holds them and computed otherwise (:func:`whist_catalogue.store.solvers.default_solver`,
opened only when a deal needs it; a catalogue the settings or ``--db`` name is checked
at once all the same, so that a bad one is reported).  Where a single suit's answer comes from — and, beyond
every solver's reach, what the linear-time theory gives instead (Theorem 10.1 of the
single-suit paper, Theorem 12.1 of the multi-suit paper) — is decided by
:func:`whist_catalogue.store.solvers.answer` and :func:`~whist_catalogue.store.solvers.answer_moves`,
which the app calls too; the commands only write the answers.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence

from whist_catalogue.constants import MAX_BUILD_N, MAX_ENGINE_N
from whist_catalogue.errors import DealTooLargeError, InvalidDealError, UsageError, WhistError
from whist_catalogue.scripts.cli import DealText, deal_arguments, emit_json
from whist_catalogue.theory.deals import (
    Deal,
    Suit,
    check_deal_size,
    parse_multisuit,
    parse_suit,
    parse_suit_name,
    suit_name,
)
from whist_catalogue.theory.answers import BeyondOutcome, MovesAnswer, OutcomeAnswer, ValueAnswer
from whist_catalogue.theory.values import Value

if TYPE_CHECKING:
    from whist_catalogue.store.solvers import SuitAnswer
    from whist_catalogue.engine.plan import EnginePlan
    from whist_catalogue.scripts.progress import ProgressBar
    from whist_catalogue.theory.multisuit import DealEvaluator
    from whist_catalogue.theory.small_suits import SuitTable

_to_json = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(…, ensure_ascii=False) builds one a call

_LINEAR_FROM_N = MAX_ENGINE_N + 1
"""Beyond the engine's encoding and any catalogue: only the linear-time algorithm answers."""
_OWNER_STRING = re.compile(r"\s*[WEwe]+\s*")

# Solvers (SQLAlchemy behind the catalogue, Numba behind the engine) are imported
# when a deal needs them, not when the parser is built for every command.


class _EngineNotice:
    """Beyond the catalogue: what the engine will compute and about how long, said before it starts, then one
    progress bar over the whole plan on stderr (an :class:`~whist_catalogue.engine.plan.EngineObserver`;
    Ctrl+C cancels)."""

    def __init__(self) -> None:
        self._bar: ProgressBar | None = None
        self._plan: EnginePlan | None = None

    def planned(self, plan: EnginePlan) -> None:
        if not plan.levels:
            return
        stored = f"; `whist-catalogue build --max-n {plan.n}` stores it for next time" if plan.n <= MAX_BUILD_N else ""
        sys.stderr.write(f"whist-catalogue: a deal with {plan.n} cards a hand is not in the catalogue: "
                         f"{plan.describe()}. Ctrl+C cancels{stored}.\n")
        sys.stderr.flush()
        self._plan = plan

    def progress(self, n: int, done: int, total: int) -> None:
        plan = self._plan
        assert plan is not None  # the engine announces its plan before it works
        if self._bar is None:
            from whist_catalogue.scripts.progress import ProgressBar  # tqdm: only once the engine works

            self._bar = ProgressBar(f"valuing {plan.span}", " deals", unit_scale=True)
        self._bar.show(plan.overall(n, done), plan.deals)

    def close(self, *, failed: bool) -> None:
        if self._bar is not None:
            self._bar.close(failed=failed)


@contextmanager
def _table(args: argparse.Namespace) -> Iterator["SuitTable"]:
    """The preloaded small suits, backed by the default solver on demand; closed on the way out."""
    from whist_catalogue.engine.plan import observing
    from whist_catalogue.store.solvers import check_location, default_solver
    from whist_catalogue.theory.small_suits import SuitTable

    table = SuitTable(opener=lambda: default_solver(args.db))
    notice = _EngineNotice()
    failed = True
    try:
        with observing(notice):
            # However the catalogue is named, it is checked at once and the preloaded table answers what it
            # holds; the catalogue opens (SQLAlchemy, NumPy) only for a deal beyond it.
            check_location(args.db)
            yield table
        failed = False
    finally:
        notice.close(failed=failed)
        table.close()


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "value",
        parents=[common],
        help="value, outcome and best leads of single-suit deals",
        description="Value, outcome and best leads of single-suit deals (docs/spec.md §2 notation: AQ/KJ, 13 12 / 14 11, EWEW).",
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

    p = sub.add_parser(
        "moves",
        parents=[common],
        help="every legal card of the player to move, with West's tricks from there on",
        description="Every legal card of the player to move in a symmetric multi-suit position — the start of a "
        "trick, or after the lead given by --led — with the tricks West takes from this trick on under optimal "
        "play (one trick of look-ahead on Theorem 9.1).",
    )
    p.add_argument("deals", nargs="*", metavar="DEAL", help="multi-suit deals, or - to read one per line from stdin")
    p.add_argument("--leader", type=str.upper, choices=("W", "E"), default="W",
                   help="who leads this trick: W or E, any case (default W)")
    p.add_argument(
        "--led",
        metavar="SUIT:CARD",
        help="the card the leader has led: the suit counted from 1 in the order written (or its symbol ♠ ♥ ♦ ♣ "
        "or letter S H D C) and the card in that suit's notation, e.g. 1:T or H:T; outcome's \"T of suit 2\" "
        "is --led 2:T",
    )
    p.set_defaults(func=run_moves)


def run_value(args: argparse.Namespace) -> int:
    printed: dict[Value, tuple[str, str]] = {}  # a batch meets few distinct values: each serialised once
    with _table(args) as table:
        for texts in _batches(args.deals):
            suits, problem = _parsed_until_error(texts)
            answers: list[str] = []
            try:
                for written, suit, found in zip(texts, suits, _answers(table, suits)):
                    answer = ValueAnswer.of(written.text, suit, found)
                    answers.append(answer.json_line(printed) if args.json else answer.text())
            finally:
                sys.stdout.write("".join(answers))  # one write a batch: stdout may be unbuffered
            if problem is not None:
                raise problem  # after the answers to the deals before it
    return 0


def _parsed_until_error(texts: list[DealText]) -> tuple[list[Suit], WhistError | None]:
    suits: list[Suit] = []
    for written in texts:
        try:
            suits.append(parse_suit(written.text))
        except WhistError as exc:
            return suits, written.located(exc)
    return suits, None


def _answers(table: "SuitTable", suits: list[Suit]) -> Iterable["SuitAnswer"]:
    """Each suit's answer (:func:`~whist_catalogue.store.solvers.answer`): the batch at once, or — when a deal in
    it cannot be answered — one at a time, so that the deals before it are answered before its error."""
    from whist_catalogue.store.solvers import answer, answer_many

    deals = [s.deal for s in suits]
    try:
        return answer_many(table, deals)
    except WhistError:
        return (answer(table, d) for d in deals)


_BATCH = 512
"""Deals read from a pipe or file are looked up this many at a time (one NumPy pass a level for the
catalogue's derived moves); typed at a terminal, each is answered at once."""


def _batches(items: Sequence[str]) -> Iterator[list[DealText]]:
    """:func:`deal_arguments` in lists to answer together; the lines read before an unreadable one still
    come out, ahead of its error."""
    size = 1 if list(items) == ["-"] and sys.stdin.isatty() else _BATCH
    batch: list[DealText] = []
    try:
        for written in deal_arguments(items):
            batch.append(written)
            if len(batch) == size:
                yield batch
                batch = []
    except WhistError:
        if batch:
            yield batch
        raise
    if batch:
        yield batch




def run_outcome(args: argparse.Namespace) -> int:
    with _table(args) as table:
        _run_outcome(args, table)
    return 0


def _run_outcome(args: argparse.Namespace, table: "SuitTable") -> None:
    from whist_catalogue.theory.multisuit import DealEvaluator

    evaluate = DealEvaluator(table)
    as_json = _ValueJson() if args.json else None
    for texts in _batches(args.deals):
        lines: list[str] = []
        try:
            for written in texts:
                try:
                    answer = _outcome_answer(written.text, evaluate)
                except WhistError as exc:
                    written.located(exc)
                    raise
                lines.append(answer.text() if as_json is None else answer.json_line(as_json))
        finally:
            # One write a batch (stdout may be unbuffered); the answers before a deal at fault come out first.
            sys.stdout.write("".join(lines))


class _ValueJson(dict):
    """Packed value → its JSON text, each serialised once: a batch meets few distinct values."""

    def __missing__(self, code: int) -> str:
        from whist_catalogue.theory.packed import unpack

        found = self[code] = _to_json(unpack(code).to_json())
        return found


def _outcome_answer(text: str, evaluate: "DealEvaluator") -> OutcomeAnswer | BeyondOutcome:
    """The answer to one multi-suit deal (Theorem 9.1 and §10.4), or to a single suit beyond every solver."""
    if len(text) > 2 * _LINEAR_FROM_N and "," not in text and ";" not in text:
        # A single suit that may be beyond every solver, read once: then straight to Theorem 10.1, and an
        # owner string without spelling out a million ranks.
        name_of: Callable[[int], str]
        if _OWNER_STRING.fullmatch(text):
            check_deal_size(text)
            deal, name_of = Deal.from_label(text), str
        else:
            suit = parse_suit(text)
            deal, name_of = suit.deal, suit.name_of
        if deal.n >= _LINEAR_FROM_N:
            return BeyondOutcome.of(text, _answer(evaluate, deal), name_of)
    try:
        written = evaluate(text)
    except DealTooLargeError:
        suits = parse_multisuit(text)
        if len(suits) != 1:
            raise
        return BeyondOutcome.of(text, _answer(evaluate, suits[0].deal), suits[0].name_of)
    analysis = written.evaluation
    west, east = analysis.west_lead, analysis.east_lead
    return OutcomeAnswer(text, written.parts, analysis.codes, analysis.total, analysis.outcome,
                         (west.suit, written.west_card, west.rule.describe("W")),
                         (east.suit, written.east_card, east.rule.describe("E")))


def _parse_led(text: str, suits: tuple[Suit, ...]) -> tuple[int, int]:
    """``SUIT:CARD`` → (0-based suit index, real rank): the suit as people count it (from 1, or its symbol
    or letter: docs/spec.md §2), the card in that suit's own notation."""
    head, sep, card = text.partition(":")
    if not sep or not head.strip() or not card.strip():
        raise UsageError(f"--led takes SUIT:CARD, the suit counted from 1 (or ♠ ♥ ♦ ♣, S H D C) and a card, "
                         f"e.g. 1:T; got {text!r}")
    try:
        index = parse_suit_name(head, len(suits))
    except InvalidDealError as exc:
        raise UsageError(f"--led {text}: {exc}") from None
    suit = suits[index]
    wanted = card.strip().upper()
    for rank in suit.west + suit.east:
        if suit.card_name(rank).upper() == wanted or (wanted == "10" and suit.card_name(rank) == "T"):
            return index, rank
    raise UsageError(f"--led {text}: there is no card {card.strip()!r} in {suit_name(index, len(suits))}: {suit}")


def run_moves(args: argparse.Namespace) -> int:
    with _table(args) as table:
        _run_moves(args, table)
    return 0


def _run_moves(args: argparse.Namespace, table: "SuitTable") -> None:
    from whist_catalogue.store.solvers import LINEAR_TIME, answer_moves

    for written in deal_arguments(args.deals):
        text = written.text
        try:
            suits = parse_multisuit(text)
        except WhistError as exc:
            written.located(exc)
            raise
        led = _parse_led(args.led, suits) if args.led else None
        found = answer_moves(table, suits, args.leader, led)
        answer = MovesAnswer(text, tuple(map(str, suits)), args.leader if led is None else _OTHER[args.leader],
                             [(r.suit, suits[r.suit].card_name(r.card), r.west_tricks) for r in found.results],
                             found.beyond if found.source == LINEAR_TIME else "")
        sys.stdout.write(_to_json(answer.to_json()) + "\n" if args.json else answer.text())


_OTHER = {"W": "E", "E": "W"}


def _answer(evaluate: "DealEvaluator", deal: Deal) -> "SuitAnswer":
    from whist_catalogue.store.solvers import answer

    if deal.n == 0:
        raise InvalidDealError("empty deal")
    return answer(evaluate.table, deal)
