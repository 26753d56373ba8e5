"""The exact solver of two-person whist: any suits, any split (voids included), trumps or none (the API).

:func:`solve` answers one deal or position, :func:`solve_many` a batch; both take a deal's text
(docs/spec.md §2: ``trumps ♥: AK2/-, 5/QJ43``), a :class:`~whist_catalogue.theory.deals.TwoHandDeal` or a
:class:`~.position.Position`, and give a :class:`TwoHandSolution`: West's tricks with each side on lead (or
from the position), every legal card's result for the player to move, and an optimal line of play.

Where the answer comes from:

* **theory** — a symmetric position (every suit even: nobody can ever ruff or discard, so trumps cannot
  matter) whose suits the table values: Theorem 9.1 of the multi-suit paper, ρ(Σ val), and every card's
  result by one trick of look-ahead (:mod:`whist_catalogue.theory.moves`), the line by the lead rule of §10.4
  (:func:`whist_catalogue.theory.multisuit.optimal_line`); no search.  Only here does an answer carry a value
  of V.
* **catalogue** — a position the catalogue's table of endings answers by itself (``endings=`` a table from
  :mod:`whist_catalogue.store.endings`): its value, and every legal card's result one trick on, are positions of
  the table, which the kernels look up; the line of play goes on by search where the table has no position.
* **search** — every other position: the null-window search of :mod:`.kernels`, which itself stops at every
  symmetric position it reaches (a theory leaf, :mod:`.leaves`) and at every ending of the table of endings
  (:mod:`.endings`, shipped up to :data:`~.endings.MAX_ENDING_N` cards a hand: a position of the shipped table
  is looked up, its first cards one trick on); the answer says how many it met.

Validation (one narrow error each, :mod:`whist_catalogue.errors`): hands of different sizes
(``UnevenHandsError``), a card twice (``DuplicateCardError``), a trump suit the deal does not have
(``TrumpSuitError``), more than :data:`~whist_catalogue.constants.MAX_SEARCH_N` cards a hand for the search
(``BeyondSearchError``), a card led that is not the leader's (``IllegalMoveError``).
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Iterable, Literal, NamedTuple, Sequence

import numpy as np

from whist_catalogue.constants import MAX_ENDING_N, MAX_SEARCH_N
from whist_catalogue.errors import DealTooLargeError
from whist_catalogue.theory.deals import SUIT_SYMBOLS, TwoHandDeal
from whist_catalogue.theory.labeled import Player
from whist_catalogue.theory.moves import CardResult, best_results, suit_card_results
from whist_catalogue.theory.answers import FirstCards, MovesAnswer, OutcomeAnswer
from whist_catalogue.theory.multisuit import Evaluation, Lead, evaluate, optimal_line
from whist_catalogue.theory.packed import unpack
from whist_catalogue.theory.small_suits import SuitTable
from whist_catalogue.theory.values import Outcome, Value
from whist_catalogue.twohand import kernels
from whist_catalogue.twohand.batch import beyond_search, collector_paused, first_best, lay_out
from whist_catalogue.twohand.endings import EndingTable
from whist_catalogue.twohand.endings import endings as ending_table
from whist_catalogue.twohand.leaves import leaf_codes
from whist_catalogue.twohand.position import Position, as_position

__all__ = [
    "TABLE_BITS",
    "PlayedCard",
    "LeaderAnswer",
    "TwoHandSolution",
    "solve",
    "solve_many",
    "search",
    "words",
    "clear_table",
]

TABLE_BITS = 18
"""The transposition table holds 2^TABLE_BITS entries of 24 bytes (6 MB), kept for the process: its keys are
whole canonical positions, so what one deal learns stays true for every other.  A deal of 13 cards a hand searches
about 3,000 positions (16 cards: 55,000), so a table that stays in the processor's cache is faster than a larger
one that does not: 2^18 entries search 13-card deals about 10 % faster than 2^22 (100 MB) and 16-card ones 15 %
(docs/benchmarks.md), with 0.1–1 % more positions."""

Source = Literal["theory", "catalogue", "search"]
_new_tuple = tuple.__new__  # a named tuple built without its Python-level __new__: a batch builds thousands


class PlayedCard(NamedTuple):
    """A card of a line of play: who played it, the suit (0-based) and the card's real rank."""

    player: Player
    suit: int
    rank: int


class LeaderAnswer(NamedTuple):
    """The answer with one side on lead: West's tricks, every legal card's result, an optimal line."""

    leader: Player
    led: tuple[int, int] | None
    """The card already led (suit, rank), None at the start of the trick."""
    west_tricks: int
    """West's tricks from this trick on under optimal play."""
    moves: tuple[CardResult, ...]
    """Every legal card of the player to move (the leader, or after the lead the other player), suit by suit,
    lowest first, with West's tricks from this trick on when it is played; equivalent cards share a result."""
    line: tuple[PlayedCard, ...] | None
    """An optimal line of play to the end (None when not asked for), from the next card on."""

    @property
    def to_play(self) -> Player:
        if self.led is None:
            return self.leader
        return "E" if self.leader == "W" else "W"

    def best(self) -> tuple[CardResult, ...]:
        """The optimal cards of the player to move."""
        return tuple(best_results(self.moves, self.to_play))


class TwoHandSolution(NamedTuple):
    """The exact answer for a two-hand deal or position (:func:`solve`).  A named tuple, as the theory's
    ``Evaluation``: a batch builds one a deal, and a frozen class with checks costs several times as much."""

    position: Position
    answers: tuple[LeaderAnswer, ...]
    """West on lead, then East, for a whole deal; the one leader's answer for a position."""
    source: Source
    """``"theory"``: a symmetric position answered from its suits' values (Theorem 9.1), no search;
    ``"catalogue"``: the catalogue's table of endings (the position and every card's result are its positions);
    ``"search"``: the exact search (with the shipped table's endings as leaves)."""
    value: Value | None = None
    """Σ val(suit), for an answer from the theory only: a deal outside the theory has no value in V."""
    nodes: int = 0
    """Positions the search visited (0 for the theory)."""
    theory_leaves: int = 0
    """Positions of the search answered by Theorem 9.1 (symmetric ones)."""
    endings: int = 0
    """Positions of the search answered by the table of small endings (:mod:`.endings`)."""
    evaluation: Evaluation | None = None
    """For a whole deal the theory answers: Theorem 9.1 and the lead rule of §10.4 on its suits' values."""

    @property
    def outcome(self) -> Outcome | None:
        """West's tricks with West, and with East, on lead — for a whole deal."""
        if self.position.leader is not None:
            return None
        return Outcome(self.answers[0].west_tricks, self.answers[1].west_tricks)

    def answer(self, leader: Player) -> LeaderAnswer:
        for a in self.answers:
            if a.leader == leader:
                return a
        raise KeyError(f"no answer with {leader} on lead for {self.position!r}")

    # -- renderings: the command line's records (theory/answers.py), with the line of play and the counters ----
    def record(self) -> OutcomeAnswer | MovesAnswer:
        """The answer as the command line gives it: ``outcome --cards`` for a whole deal (from the theory, with the
        suits' values and the leads of §10.4; by search, the first best card of each leader), ``moves`` for a
        position."""
        deal = self.position.deal
        suits = deal.suits
        parts = tuple(map(str, suits))

        def cards(answer: LeaderAnswer) -> list[tuple[int, str, int]]:
            return [(r.suit, suits[r.suit].card_name(r.card), r.west_tricks) for r in answer.moves]

        if self.position.leader is not None:
            (answer,) = self.answers
            return MovesAnswer(deal.text(), parts, answer.to_play, cards(answer), "", self.source, deal.trump)
        west, east = self.answers
        first = FirstCards(cards(west), cards(east))
        outcome = Outcome(west.west_tricks, east.west_tricks)
        found = self.evaluation
        if found is None:
            return OutcomeAnswer(deal.text(), parts, None, None, outcome,
                                 first_best(first.west, west.west_tricks, self.source),
                                 first_best(first.east, east.west_tricks, self.source), deal.trump, first, self.source)
        sides: tuple[tuple[Lead, Player], ...] = ((found.west_lead, "W"), (found.east_lead, "E"))
        leads = [(lead.suit, suits[lead.suit].name_of(lead.card), lead.rule.describe(side)) for lead, side in sides]
        return OutcomeAnswer(deal.text(), parts, found.codes, found.total, outcome, leads[0], leads[1], deal.trump,
                             first)

    def _card(self, suit: int, rank: int) -> str:
        return self.position.suits[suit].card_name(rank)

    def _line_json(self, answer: LeaderAnswer) -> list[dict] | None:
        if answer.line is None:
            return None
        return [{"player": c.player, "suit": c.suit, "card": self._card(c.suit, c.rank)} for c in answer.line]

    def to_json(self) -> dict:
        """The command line's JSON (:meth:`record`: ``outcome --cards --json`` for a whole deal, ``moves --json``
        for a position), and: the search's counters, ``nodes``, ``theory_leaves``, ``endings``; for a position its
        ``leader``, the card ``led`` and ``west_tricks``; an optimal ``line`` of play when it was asked for
        (per leader for a whole deal)."""
        out = self.record().to_json()
        if self.source != "theory":
            out.update(source=self.source, nodes=self.nodes, theory_leaves=self.theory_leaves, endings=self.endings)
        position = self.position
        if position.leader is None:
            west, east = self.answers
            if west.line is not None:
                out["line"] = {"west_leads": self._line_json(west), "east_leads": self._line_json(east)}
            return out
        (answer,) = self.answers
        out["leader"] = position.leader
        if position.led is not None:
            out["led"] = {"suit": position.led[0], "card": self._card(*position.led)}
        out["west_tricks"] = answer.west_tricks
        if answer.line is not None:
            out["line"] = self._line_json(answer)
        return out

    def _repr_html_(self) -> str:
        """In a notebook: the deal's diagram, then :meth:`text`."""
        import html

        from whist_catalogue.theory.display import html_of

        return html_of(self.position.deal) + f"<pre>{html.escape(self.text())}</pre>"

    def text(self) -> str:
        """The command line's text (:meth:`record`), the search's counters, and each optimal line of play."""
        position = self.position
        lines = self.record().text().rstrip("\n").split("\n")
        if position.leader is not None:
            lines.insert(1, f"  {position.text()[len(position.deal.text()) + 2:-1]}")  # who led what
        if self.source != "theory":
            lines.append(f"  searched  {self.nodes:,} positions, {self.theory_leaves:,} of them answered by Theorem"
                         f" 9.1, and {self.endings:,} endings looked up")
        symbols = len(position.suits) <= len(SUIT_SYMBOLS)
        for answer in self.answers:
            if answer.line is not None:
                played = " ".join(
                    f"{c.player}:{self._card(c.suit, c.rank)}{SUIT_SYMBOLS[c.suit] if symbols else f'/{c.suit + 1}'}"
                    for c in answer.line
                )
                lines.append(f"  a line with {'West' if answer.leader == 'W' else 'East'} on lead  {played}")
        return "\n".join(lines) + "\n"


# -- the layout of a position's cards in one 64-bit word ---------------------------------------------------


class _Layout(NamedTuple):
    """A deal's cards as bits, lowest first, suit by suit with the trump suit at the bottom."""

    west: int
    starts: int
    """The lowest card of each suit, and the sentinel bit above the top card."""
    trumps: int
    suits: tuple[tuple[int, int, tuple[int, ...]], ...]
    """Each suit in the deal's order: (its suit index, its lowest card's bit, its ranks lowest first)."""

    @property
    def cards(self) -> list[tuple[int, int]]:
        """(suit, rank) of each bit."""
        placed = sorted(self.suits, key=lambda x: x[1])
        return [(s, r) for s, _, ranks in placed for r in ranks]


@lru_cache(maxsize=65536)
def _suit_bits(west: tuple[int, ...], east: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """West's cards of a suit as bits over its cards lowest first, and its ranks lowest first (a batch meets
    the same suits again)."""
    ranks = sorted(west + east)
    mask = 0
    for r in west:
        mask |= 1 << ranks.index(r)
    return mask, tuple(ranks)


def _layout(deal: TwoHandDeal) -> _Layout:
    bits = [_suit_bits(suit.west, suit.east) for suit in deal.suits]
    west, starts, offsets = lay_out([(mask, len(ranks)) for mask, ranks in bits], deal.trump)
    return _Layout(west, starts, int(deal.trump is not None),
                   tuple((s, offset, ranks) for s, (offset, (_, ranks)) in enumerate(zip(offsets, bits))))


# -- the process's search state ----------------------------------------------------------------------------


@cache
def _table() -> np.ndarray:
    return np.zeros((1 << TABLE_BITS, kernels.TABLE_COLUMNS), dtype=np.uint64)


def clear_table() -> None:
    """Forget what the search learnt (for timing a search from nothing; answers never depend on it)."""
    if _table.cache_info().currsize:
        _table()[:] = 0


_NO_LEAVES = np.zeros(0, dtype=np.int64)
_NO_ENDINGS = np.zeros(1, dtype=np.int64)  # a table of no level


def _ending_words(endings: bool | EndingTable) -> EndingTable | None:
    if isinstance(endings, EndingTable):
        return endings
    return ending_table() if endings else None


def _kernel_tables(theory: bool, endings: bool | EndingTable) -> tuple[np.ndarray, np.ndarray]:
    """The leaves' suit values and the endings' table the kernels read (empty: turned off)."""
    table = _ending_words(endings)
    return (leaf_codes() if theory else _NO_LEAVES), (_NO_ENDINGS if table is None else table.words)


def _table_source(W: int, B: int, tf: int, lead: int, led: int, table: EndingTable | None) -> Source:
    """Where a searched position's answer comes from: the catalogue's table when it holds the position and every
    position one trick on, beyond the shipped levels; else the search (the shipped table's endings, and a
    catalogue's levels as far as the shipped ones reach, are the search's leaves: a deal of at most
    :data:`~whist_catalogue.constants.MAX_ENDING_N` cards a hand is answered alike with a catalogue or without)."""
    if table is None or table.origin != "catalogue" or W.bit_count() <= MAX_ENDING_N \
            or not table.answers(W, B, tf, lead, led):
        return "search"
    return "catalogue"


def words(position: Position, layout: _Layout | None = None) -> tuple[int, int, int, int, int]:
    """The position as :func:`search` takes it: West's cards, the suits' starts, the trump flag (:mod:`.bits`), the
    leader (−1: a whole deal, both leaders; 0 West; 1 East) and the bit of the card led (0: none)."""
    layout = layout if layout is not None else _layout(position.deal)
    lead = -1 if position.leader is None else 0 if position.leader == "W" else 1
    led = 0 if position.led is None else 1 << layout.cards.index(position.led)
    return layout.west, layout.starts, layout.trumps, lead, led


def search(Ws: Sequence[int], Bs: Sequence[int], tfs: Sequence[int], leads: Sequence[int], leds: Sequence[int], *,
           theory: bool = True, endings: bool | EndingTable = True
           ) -> tuple[list[list[int]], list[list[list[int]]], list[list[int]], list[Source]]:
    """The search on many deals and positions at once, one call of the kernel (:func:`.kernels.solve_batch`), from
    their words (:mod:`.bits`: West's cards, the suits' starts and sentinel, the trump flag), each with its leader
    (−1: a whole deal, both leaders; 0 West; 1 East) and the bit of a card led (0: none).  Returns, for each,
    West's tricks (``[with West on lead, with East on lead]``, or ``[from the position, 0]``), each legal card's
    result by bit for each leader (−1 for the others: ``[[…], […]]``, the second empty-handed for a position),
    the search's counters (:data:`.kernels.N_STATS`), and where each answer comes from: ``"search"``, or
    ``"catalogue"`` when ``endings`` is a catalogue's table (:meth:`whist_catalogue.store.endings.CatalogueEndings.
    table_for` the same words) that answers the position by itself (:meth:`~.endings.EndingTable.answers`).
    Numbers in, numbers out: what a Dask worker runs."""
    count = len(Ws)
    width = 2 * max((int(w).bit_count() for w in Ws), default=0)  # every card in play is below bit 2n
    values = np.zeros((count, 2), dtype=np.int64)
    results = np.full((count, 2, 64), -1, dtype=np.int8)
    stats = np.zeros((count, kernels.N_STATS), dtype=np.int64)
    codes, ends = _kernel_tables(theory, endings)
    kernels.solve_batch(np.asarray(Ws, dtype=np.uint64), np.asarray(Bs, dtype=np.uint64), np.asarray(tfs, dtype=np.int64),
                        np.asarray(leads, dtype=np.int64), np.asarray(leds, dtype=np.uint64), _table(), codes, ends,
                        stats, values, results)
    table = _ending_words(endings)
    sources: list[Source] = [_table_source(int(W), int(B), int(tf), int(lead), int(led), table)
               for W, B, tf, lead, led in zip(Ws, Bs, tfs, leads, leds)] if table is not None and \
        table.origin == "catalogue" else ["search"] * count
    return values.tolist(), results[:, :, :width].tolist(), stats.tolist(), sources


def _theory_table(deal: TwoHandDeal, table: SuitTable | None) -> SuitTable | None:
    """The suit table that values every suit of a symmetric deal, or None (then the search answers)."""
    if not deal.symmetric:
        return None
    table = table if table is not None else _default_table()
    try:
        for suit in deal.suits:
            table.code(suit.deal)
    except DealTooLargeError:
        return None
    return table


@cache
def _default_table() -> SuitTable:
    """The preloaded suits (every suit with n ≤ 8), for the process."""
    return SuitTable()


# -- the theory's answer ---------------------------------------------------------------------------------


def _theory_answer(position: Position, table: SuitTable, leader: Player, line: bool) -> LeaderAnswer:
    suits = position.suits
    led = position.led if position.leader == leader else None
    moves = tuple(suit_card_results(suits, leader, table, led))
    to_play = leader if led is None else ("E" if leader == "W" else "W")
    best = best_results(moves, to_play)[0]  # the lowest best card, suit by suit
    played: tuple[PlayedCard, ...] | None = None
    if line:
        cards: list[PlayedCard] = []
        remaining = list(suits)
        next_leader = leader
        if led is not None:
            # The best reply first, then the theory's line from the next trick.
            west_rank, east_rank = (led[1], best.card) if leader == "W" else (best.card, led[1])
            cards.append(PlayedCard(to_play, best.suit, best.card))
            remaining[led[0]] = suits[led[0]].without(west_rank, east_rank)
            next_leader = leader if led[1] > best.card else to_play
        if any(s.n for s in remaining):
            for trick in optimal_line(remaining, table, next_leader):
                other: Player = "E" if trick.leader == "W" else "W"
                cards.append(PlayedCard(trick.leader, trick.suit, trick.lead))
                cards.append(PlayedCard(other, trick.suit, trick.reply))
        played = tuple(cards)
    return LeaderAnswer(leader, led, best.west_tricks, moves, played)


def _theory(position: Position, table: SuitTable, line: bool) -> TwoHandSolution:
    leaders: tuple[Player, ...] = ("W", "E") if position.leader is None else (position.leader,)
    found = evaluate([s.deal for s in position.suits], table)
    answers = tuple(_theory_answer(position, table, leader, line) for leader in leaders)
    return TwoHandSolution(position, answers, "theory", unpack(found.total),
                           evaluation=found if position.leader is None else None)


# -- the search's answer ---------------------------------------------------------------------------------


def _results_of(layout: _Layout, results: list[int]) -> tuple[CardResult, ...]:
    """The legal cards' results (``results`` by bit, −1 for the others), suit by suit, lowest first."""
    return tuple([
        _new_tuple(CardResult, (s, r, x))
        for s, start, ranks in layout.suits
        for r, x in zip(ranks, results[start : start + len(ranks)])
        if x >= 0
    ])


def _line_of(layout: _Layout, position_leader: Player, led_bit: int, codes: np.ndarray, ends: np.ndarray,
             stats: np.ndarray) -> tuple[PlayedCard, ...]:
    cards = layout.cards
    ids = np.arange(len(cards), dtype=np.int64)
    out = np.zeros(len(cards), dtype=np.int64)
    lead = 0 if position_leader == "W" else 1
    count = kernels.play_line(np.uint64(layout.west), np.uint64(layout.starts), layout.trumps, lead,
                              np.uint64(led_bit), ids, _table(), codes, ends, stats, out)
    played = out[:count].tolist()
    if led_bit:
        played = played[1:]  # the card led is the position's, not the line's
    return tuple(
        PlayedCard("W" if layout.west >> i & 1 else "E", *cards[i]) for i in played
    )


def _searched(positions: Sequence[Position], line: bool, theory: bool, endings: bool | EndingTable
              ) -> list[TwoHandSolution]:
    """The search's answers, every position in one call of the kernel (:func:`search`), and with ``line`` each
    leader's optimal line of play (its positions counted with the search's)."""
    if not positions:
        return []
    layouts = [_layout(p.deal) for p in positions]
    rows = [words(p, layout) for p, layout in zip(positions, layouts)]
    values, results, stats, sources = search(*zip(*rows), theory=theory, endings=endings)
    codes, ends = _kernel_tables(theory, endings)
    out = []
    for position, layout, (*_, led), value, result, counts, source in zip(positions, layouts, rows, values, results,
                                                                           stats, sources):
        leaders: tuple[Player, ...] = ("W", "E") if position.leader is None else (position.leader,)
        lines: list[tuple[PlayedCard, ...] | None] = [None, None]
        if line:
            played = np.zeros(kernels.N_STATS, dtype=np.int64)
            lines = [_line_of(layout, leader, led, codes, ends, played) for leader in leaders]
            counts = [c + int(x) for c, x in zip(counts, played)]
        answers = tuple(_new_tuple(LeaderAnswer, (leader, position.led, value[k], _results_of(layout, result[k]),
                                                  lines[k])) for k, leader in enumerate(leaders))
        out.append(_new_tuple(TwoHandSolution, (position, answers, source, None, counts[kernels.STAT_NODES],
                                                counts[kernels.STAT_LEAVES], counts[kernels.STAT_ENDINGS], None)))
    return out


# -- the API ---------------------------------------------------------------------------------------------


def solve(deal: Position | TwoHandDeal | str, trumps: str | int | None = None, *, line: bool = True,
          theory: bool = True, endings: bool | EndingTable = True, table: SuitTable | None = None
          ) -> TwoHandSolution:
    """The exact answer for a deal (both leaders) or a position (its leader; after a lead, the follower).

    ``trumps`` names the trump suit of a deal whose text names none (``"H"``, ``"♥"``, ``"2"``, or a 0-based
    int).  ``line``: an optimal line of play too.  ``theory=False`` searches a symmetric deal as any other,
    without the theory's leaves, and ``endings=False`` without the table of endings (:mod:`.endings`): for
    checking the one against the other; ``endings`` a :class:`~.endings.EndingTable` (the catalogue's,
    :mod:`whist_catalogue.store.endings`) answers from that table instead of the shipped one.  ``table`` values
    symmetric deals' suits beyond the preloaded ones (a :class:`~whist_catalogue.theory.small_suits.SuitTable`
    with a solver).
    """
    return solve_many([deal], trumps, line=line, theory=theory, endings=endings, table=table)[0]


def solve_many(deals: Iterable[Position | TwoHandDeal | str], trumps: str | int | None = None, *,
               line: bool = False, theory: bool = True, endings: bool | EndingTable = True,
               table: SuitTable | None = None) -> list[TwoHandSolution]:
    """:func:`solve` of each deal or position, the searched ones in one call of the kernel.  Every deal is read and
    checked before any is solved: one bad deal raises its error first."""
    with collector_paused():
        positions = [as_position(d, trumps) for d in deals]
        plans: list[SuitTable | None] = []
        for position in positions:
            known = _theory_table(position.deal, table) if theory else None
            if known is None and position.deal.n > MAX_SEARCH_N:
                raise beyond_search(position.deal.n, position.deal.text())
            plans.append(known)
        found = iter(_searched([p for p, known in zip(positions, plans) if known is None], line, theory, endings))
        return [_theory(p, known, line) if known is not None else next(found) for p, known in zip(positions, plans)]

