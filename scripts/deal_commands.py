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
import os
import re
import sys
from collections import deque
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, NamedTuple, Sequence, TypeVar, cast

from whist_catalogue.constants import MAX_BUILD_N, MAX_ENDING_N, MAX_ENGINE_N
from whist_catalogue.errors import AsymmetricSuitError, DealTooLargeError, InvalidDealError, UsageError, WhistError
from whist_catalogue.scripts.cli import OWN_PROCESS, DealText, add_command, deal_arguments
from whist_catalogue.theory.deals import (
    Deal,
    Suit,
    check_deal_size,
    parse_multisuit,
    parse_suit,
    parse_suit_name,
    read_suit,
    split_trumps,
    suit_name,
)
from whist_catalogue.theory.answers import (
    THEORY, BeyondOutcome, FirstCards, MovesAnswer, OutcomeAnswer, ValueAnswer, ValueJson,
)
from whist_catalogue.theory.values import Value

if TYPE_CHECKING:
    from concurrent.futures import Future

    from distributed import Client, Future as DaskFuture

    from whist_catalogue.store.solvers import SuitAnswer
    from whist_catalogue.engine.plan import EnginePlan
    from whist_catalogue.theory.labeled import Player
    from whist_catalogue.store.endings import CatalogueEndings
    from whist_catalogue.twohand.batch import Found, Reading
    from whist_catalogue.scripts.progress import ProgressBar
    from whist_catalogue.theory.multisuit import DealEvaluator
    from whist_catalogue.theory.small_suits import SuitTable

T = TypeVar("T")
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
    p = add_command(
        sub, "value", run_value, common,
        help="value, outcome and best leads of single-suit deals",
        description="Value, outcome and best leads of single-suit deals (docs/spec.md §2 notation: AQ/KJ, 13 12 / 14 11, EWEW).",
    )
    p.add_argument("deals", nargs="*", metavar="DEAL", help="single-suit deals, or - to read one per line from stdin")

    p = add_command(
        sub, "outcome", run_outcome, common,
        help="outcome and first leads of deals of several suits, any split, trumps or not",
        description="The outcome (West's tricks with each side on lead) and an optimal first lead for each side of "
        "two-person deals (suits separated by , or ;). A deal whose suits are all even is answered from the suits' "
        "values (Theorem 9.1), each suit's value and their sum shown; any other deal (an uneven suit, a void, "
        "written -) by exact search, with no value: it is outside the theory (docs/spec.md §2, §4).",
    )
    p.add_argument("deals", nargs="*", metavar="DEAL", help="deals, or - to read one per line from stdin")
    _add_trumps(p)
    p.add_argument("--cards", action="store_true",
                   help="also every legal first card of both leaders, with West's tricks when it is led")
    _add_cluster(p)

    p = add_command(
        sub, "moves", run_moves, common,
        help="every legal card of the player to move, with West's tricks from there on",
        description="Every legal card of the player to move — at the start of a trick, or after the lead given by "
        "--led — with the tricks West takes from this trick on under optimal play: from the suits' values (one "
        "trick of look-ahead on Theorem 9.1) when every suit is even, else by exact search.",
    )
    p.add_argument("deals", nargs="*", metavar="DEAL", help="deals, or - to read one per line from stdin")
    p.add_argument("--leader", type=str.upper, choices=("W", "E"), default="W",
                   help="who leads this trick: W or E, any case (default W)")
    p.add_argument(
        "--led",
        metavar="SUIT:CARD",
        help="the card the leader has led: the suit counted from 1 in the order written (or its symbol ♠ ♥ ♦ ♣ "
        "or letter S H D C) and the card in that suit's notation, e.g. 1:T or H:T; outcome's \"T of suit 2\" "
        "is --led 2:T",
    )
    _add_trumps(p)
    _add_cluster(p)


def _add_trumps(p: argparse.ArgumentParser) -> None:
    p.add_argument("--trumps", metavar="SUIT", type=_suit_name,
                   help="the trump suit of every deal whose text names none: its number counted from 1 in the order "
                   "written, its symbol ♠ ♥ ♦ ♣ or letter S H D C (a deal's text may name its own: trumps ♥: AK2/-, "
                   "5/QJ43; a deal naming another is refused)")


def _suit_name(text: str) -> str:
    """``--trumps``: a suit's name as people write it (whether the deal has that suit is checked deal by deal)."""
    name = text.strip()
    if not (name.upper() in ("S", "H", "D", "C") or name in ("♠", "♥", "♦", "♣")
            or (name.isascii() and name.isdigit() and int(name) >= 1)):
        raise argparse.ArgumentTypeError(f"{text!r} names no suit: a number counted from 1, ♠ ♥ ♦ ♣ or S H D C")
    return name


def _add_cluster(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="search the deals outside the theory on a Dask cluster, in blocks, the answers printed in "
                   "input order: tcp://HOST:PORT of a `dask scheduler`, or local:K to start K local worker processes "
                   "(needs pip install 'whist-catalogue[cluster]')")


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
"""Deals read from a pipe or file are answered this many at a time (one NumPy pass a level for the catalogue's
derived moves, one call of the search's kernel); typed at a terminal, each is answered at once."""
_CLUSTER_BLOCK = 2048
"""Deals a Dask task searches (``--cluster``): about a second of a worker's time at 13 cards a hand."""


def _batches(items: Sequence[str], size: int = _BATCH) -> Iterator[list[DealText]]:
    """:func:`deal_arguments` in lists to answer together; the lines read before an unreadable one still
    come out, ahead of its error."""
    size = 1 if list(items) == ["-"] and sys.stdin.isatty() else size
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


Words = tuple[int, int, int, int, int]
"""A deal or position for the search (:func:`whist_catalogue.twohand.batch.search_task`)."""
_Answer = Callable[[DealText], "str | tuple[Reading, Words]"]
_Render = Callable[["Reading", list[int], list[list[int]], str], str]
"""A searched deal's line from its reading, West's tricks, each card's result by bit, and the answer's source."""


class _Search:
    """Where a batch's deals outside the theory are searched: in this process — answered from the catalogue's table
    of endings when it reaches beyond the shipped one (asked once, at the first deal it could answer)."""

    block = _BATCH

    def __init__(self, db: str | None) -> None:
        self.db = db
        self._asked = False
        self._endings: CatalogueEndings | None = None

    def endings(self, words: list[Words]) -> "CatalogueEndings | None":
        """The catalogue's table of endings, when some of these deals are larger than the shipped table's and the
        catalogue holds a level beyond it; asked of the catalogue once (:func:`~whist_catalogue.store.solvers.
        catalogue_endings`), so that a batch costs nothing more when it has no table."""
        if not self._asked:
            if all(w[0].bit_count() <= MAX_ENDING_N for w in words):
                return None
            from whist_catalogue.store.solvers import catalogue_endings

            self._endings, self._asked = catalogue_endings(self.db), True
        return self._endings

    def submit(self, words: list[Words]) -> "Future | DaskFuture":
        from concurrent.futures import Future

        from whist_catalogue.twohand.batch import search_task

        _load_search()
        endings = self.endings(words)
        done: Future = Future()  # searched already, answering a Dask future's done() and result()
        done.set_result(search_task(words) if endings is None else endings.search(words))
        return done

    def close(self) -> None:
        if self._endings is not None:
            self._endings.catalogue.close()


def _load_search() -> None:
    """Load the search (Numba) into this process without what it never uses: BLAS.

    Numba imports ``scipy.linalg`` when it first builds its typing registries, only to learn whether jitted code
    may call BLAS (``np.dot``, ``np.linalg``), which no kernel of this package does — a fifth of the command line's
    start-up for a two-hand deal (docs/benchmarks.md).  While the search loads, that module reads as missing, so
    Numba records that this process has no BLAS; afterwards ``scipy.linalg`` imports as usual.  And NumPy's
    OpenBLAS starts a thread a core at import, which spin for about 0.1 s of CPU time: one thread is enough for a
    process that multiplies no matrices.  Only the command line's own process does this (a library user's NumPy
    and Numba are left alone)."""
    if not OWN_PROCESS["console"] or "whist_catalogue.twohand.solver" in sys.modules \
            or "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.modules["scipy.linalg"] = None  # type: ignore[assignment]  # an import of it raises ImportError meanwhile
    try:
        import whist_catalogue.twohand.solver  # noqa: F401
    finally:
        if sys.modules.get("scipy.linalg", ...) is None:
            del sys.modules["scipy.linalg"]


class _ClusterSearch(_Search):
    """… or on a Dask cluster, a task a block of deals (``--cluster``); with the catalogue's table of endings, each
    worker reads the chunks its deals need from the catalogue itself (:func:`whist_catalogue.store.endings.
    search_task`)."""

    block = _CLUSTER_BLOCK

    def __init__(self, db: str | None, client: "Client") -> None:
        super().__init__(db)
        self.client = client

    def submit(self, words: list[Words]) -> "Future | DaskFuture":
        endings = self.endings(words)
        if endings is None:
            from whist_catalogue.twohand.batch import search_task

            return self.client.submit(search_task, words, pure=False)
        from whist_catalogue.store.endings import search_task as catalogue_task
        from whist_catalogue.store.settings import database_location

        return self.client.submit(catalogue_task, words, database_location(self.db), pure=False)


@contextmanager
def _searching(args: argparse.Namespace) -> Iterator[_Search]:
    with ExitStack() as stack:
        if args.cluster is None:
            search = _Search(args.db)
        else:
            from whist_catalogue.engine.cluster import connect, parse_address

            parse_address(args.cluster)  # a malformed address fails before anything starts
            search = _ClusterSearch(args.db, stack.enter_context(connect(args.cluster)))
        stack.callback(search.close)
        yield search


class _Pending(NamedTuple):
    lines: list[str]
    searched: list[tuple[int, "Reading"]]
    found: "Future | DaskFuture | None"
    problem: WhistError | None


def _answer_batches(items: Sequence[str], answer: _Answer, render: _Render, search: _Search) -> None:
    """Every deal's answer line, in input order, a batch at a time: ``answer`` gives a deal's line at once (the
    theory's), or what the search needs; a batch's searched deals go to the search together (one kernel call, or
    a task on the cluster while the next batch is read) and ``render`` writes each.  The lines before a deal at
    fault come out before its error."""
    from whist_catalogue.twohand.batch import collector_paused

    with collector_paused():
        queue: deque[_Pending] = deque()
        try:
            for texts in _batches(items, search.block):
                lines: list[str] = []
                searched: list[tuple[int, Reading]] = []
                words: list[Words] = []
                problem: WhistError | None = None
                for written in texts:
                    try:
                        found = answer(written)
                    except WhistError as exc:
                        problem = exc
                        break
                    if isinstance(found, str):
                        lines.append(found)
                    else:
                        searched.append((len(lines), found[0]))
                        words.append(found[1])
                        lines.append("")
                queue.append(_Pending(lines, searched, search.submit(words) if words else None, problem))
                if problem is not None:
                    break
                while queue and (queue[0].found is None or queue[0].found.done()):
                    _write(queue.popleft(), render)
        except WhistError:
            # An unreadable line: what was answered before it goes out first, in order.
            while queue:
                _write(queue.popleft(), render)
            raise
        while queue:
            _write(queue.popleft(), render)


def _write(pending: _Pending, render: _Render) -> None:
    lines = pending.lines
    if pending.found is not None:
        values, results, sources = cast("Found", pending.found.result())
        for (i, reading), v, r, source in zip(pending.searched, values, results, sources):
            lines[i] = render(reading, v, r, source)
    sys.stdout.write("".join(lines))  # one write a batch: stdout may be unbuffered
    if pending.problem is not None:
        raise pending.problem


class _TheoryFirst:
    """Deals read by the theory's parser (the fastest for symmetric deals, and the one that knows a suit beyond every
    solver) until one names a trump suit or has an uneven suit; from then on, by the two-hand reader (a symmetric deal
    still goes to the theory). A batch of symmetric deals never pays for the reader, and a batch of two-hand deals
    pays for one failed attempt of the theory's parser."""

    def __init__(self, trumps: str | None) -> None:
        self.two_hand = trumps is not None

    def __call__(self, parse: Callable[[str], T], text: str) -> T | None:
        """``parse(text)``, the theory's reading; None from the first two-hand deal on, this one included."""
        if not self.two_hand:
            if split_trumps(text)[0] is None:
                try:
                    return parse(text)
                except AsymmetricSuitError:
                    pass
            self.two_hand = True
        return None


def run_outcome(args: argparse.Namespace) -> int:
    with _table(args) as table, _searching(args) as search:
        _run_outcome(args, table, search)
    return 0


def _run_outcome(args: argparse.Namespace, table: "SuitTable", search: "_Search") -> None:
    from whist_catalogue.theory.multisuit import DealEvaluator
    from whist_catalogue.twohand.batch import DealReader, outcome_answer

    evaluate = DealEvaluator(table)
    read = DealReader(args.trumps)
    as_json = ValueJson() if args.json else None
    theory_first = _TheoryFirst(args.trumps)

    def answer(written: DealText) -> str | tuple[Reading, Words]:
        text = written.text
        try:
            symmetric = theory_first(lambda body: _outcome_answer(body, evaluate, args.cards), text)
            if symmetric is not None:
                return _line(symmetric, as_json)
            reading = read(text)
            if not reading.symmetric:
                return reading, (reading.west, reading.starts, reading.tf, -1, 0)
            found = _outcome_answer(reading.body, evaluate, args.cards)
            return _line(found._replace(deal=reading.text, trumps=reading.trump), as_json)
        except WhistError as exc:
            raise written.located(exc) from None

    def searched(reading: Reading, values: list[int], results: list[list[int]], source: str) -> str:
        return _line(outcome_answer(reading, values, results, args.cards, source), as_json)

    _answer_batches(args.deals, answer, searched, search)


def _line(answer: "OutcomeAnswer | BeyondOutcome | MovesAnswer", as_json: ValueJson | None) -> str:
    return answer.text() if as_json is None else answer.json_line(as_json)


def _outcome_answer(text: str, evaluate: "DealEvaluator", cards: bool = False) -> OutcomeAnswer | BeyondOutcome:
    """The answer to one symmetric deal (Theorem 9.1 and §10.4), or to a single suit beyond every solver; with
    ``cards``, every legal first card of both leaders too (one trick of look-ahead)."""
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
            beyond = BeyondOutcome.of(text, _answer(evaluate, deal), name_of)
            return beyond._replace(cards=_first_cards(evaluate.table, (parse_suit(text),))) if cards else beyond
    try:
        written = evaluate(text)
    except DealTooLargeError:
        suits = parse_multisuit(text)
        if len(suits) != 1:
            raise
        beyond = BeyondOutcome.of(text, _answer(evaluate, suits[0].deal), suits[0].name_of)
        return beyond._replace(cards=_first_cards(evaluate.table, suits)) if cards else beyond
    analysis = written.evaluation
    west, east = analysis.west_lead, analysis.east_lead
    return OutcomeAnswer(text, written.parts, analysis.codes, analysis.total, analysis.outcome,
                         (west.suit, written.west_card, west.rule.describe("W")),
                         (east.suit, written.east_card, east.rule.describe("E")),
                         None, _first_cards(evaluate.table, written.suits) if cards else None)


def _first_cards(table: "SuitTable", suits: Sequence[Suit]) -> FirstCards:
    """Every legal first card of each leader with West's tricks, from the suits' values (one trick of look-ahead;
    beyond every solver, a single suit's by the linear-time theory as ``moves`` gives them)."""
    from whist_catalogue.store.solvers import answer_moves

    west, east = ([(r.suit, suits[r.suit].card_name(r.card), r.west_tricks)
                   for r in answer_moves(table, suits, leader).results] for leader in ("W", "E"))
    return FirstCards(west, east)


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
    with _table(args) as table, _searching(args) as search:
        _run_moves(args, table, search)
    return 0


def _run_moves(args: argparse.Namespace, table: "SuitTable", search: "_Search") -> None:
    from whist_catalogue.store.solvers import LINEAR_TIME, answer_moves
    from whist_catalogue.twohand.batch import DealReader, led_bit, moves_answer

    read = DealReader(args.trumps)
    as_json = ValueJson() if args.json else None
    leader: Player = args.leader
    to_play: Player = leader if args.led is None else "E" if leader == "W" else "W"
    lead = 0 if leader == "W" else 1
    theory_first = _TheoryFirst(args.trumps)

    def answer(written: DealText) -> str | tuple[Reading, Words]:
        text, shown, trump = written.text, written.text, None
        try:
            suits = theory_first(parse_multisuit, text)
            reading = None
            if suits is None:
                reading = read(text)
                shown, trump = reading.text, reading.trump
                suits = tuple(map(read_suit, reading.parts))
            led = _parse_led(args.led, suits) if args.led else None
            if reading is not None and not reading.symmetric:
                return reading, (reading.west, reading.starts, reading.tf, lead,
                                 0 if led is None else led_bit(reading, leader, led))
            found = answer_moves(table, suits, leader, led)
        except WhistError as exc:
            raise written.located(exc) from None
        return _line(MovesAnswer(shown, tuple(map(str, suits)), to_play,
                                 [(r.suit, suits[r.suit].card_name(r.card), r.west_tricks) for r in found.results],
                                 found.beyond if found.source == LINEAR_TIME else "", THEORY, trump), as_json)

    def searched(reading: Reading, values: list[int], results: list[list[int]], source: str) -> str:
        return _line(moves_answer(reading, to_play, results[0], source), as_json)

    _answer_batches(args.deals, answer, searched, search)


def _answer(evaluate: "DealEvaluator", deal: Deal) -> "SuitAnswer":
    from whist_catalogue.store.solvers import answer

    if deal.n == 0:
        raise InvalidDealError("empty deal")
    return answer(evaluate.table, deal)
