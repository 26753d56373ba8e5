"""Two-hand deals in batches, as the command line's ``outcome`` and ``moves`` read and answer them (docs/spec.md
§2, §4).

:class:`DealReader` reads a deal's text once into what the search needs — its cards as the kernels' words
(:mod:`.bits`: West's cards, the suits' starts, the trump flag, the trump suit at the bottom) and the names to
answer in — and says whether the deal is symmetric (every suit even: then Theorem 9.1 of the multi-suit paper
answers it, trumps or not, since nobody can ever ruff or discard).  :func:`search_task` runs the search on
many of them at once (:func:`~.solver.search`, one call of the kernel; the task a Dask worker runs for
``--cluster``), and :func:`outcome_answer` / :func:`moves_answer` turn its results into the typed answers of
:mod:`whist_catalogue.theory.answers`, which render them as text or JSON.

A batch repeats its suits (a 52-card pack deals a few hundred thousand distinct ones, and a batch meets each
many times), so each suit's text is read once (:func:`~whist_catalogue.theory.deals.two_hand_suit`, at C speed
for plain rank notation).  The checks are :func:`~whist_catalogue.theory.deals.parse_two_hand`'s, which words
every error.  Nothing here imports NumPy or Numba: a batch of symmetric deals never loads the search.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator, NamedTuple, Sequence

from whist_catalogue.constants import MAX_SEARCH_N
from whist_catalogue.errors import BeyondSearchError, IllegalMoveError, InvalidDealError
from whist_catalogue.theory.answers import CATALOGUE, SEARCH, FirstCards, MovesAnswer, OutcomeAnswer
from whist_catalogue.theory.deals import (
    SUIT_SYMBOLS, multisuit_parts, parse_two_hand, read_suit, split_trumps, suit_name, trump_suit, two_hand_suit,
)
from whist_catalogue.theory.values import Outcome

if TYPE_CHECKING:
    from whist_catalogue.theory.labeled import Player
    from whist_catalogue.twohand.endings import EndingTable

__all__ = ["Reading", "DealReader", "lay_out", "beyond_search", "led_bit", "Found", "search_task", "outcome_answer",
           "moves_answer", "first_best", "collector_paused"]

_WHY = {SEARCH: "a best first card, found by search",
        CATALOGUE: "a best first card, from the catalogue's table of endings"}
"""Why a searched deal's first lead is best, in words (the theory's leads give the rule of §10.4)."""

_SuitBits = tuple[int, int, int, tuple[str, ...]]
"""A suit read (:func:`~whist_catalogue.theory.deals.two_hand_suit`): West's cards as bits, West's and East's
counts, the cards' names lowest first."""
_MAX_KNOWN = 1 << 16
"""Distinct suits a reader remembers before it starts again (a pack deals about 1.6 million)."""


class Reading(NamedTuple):
    """A deal's text as read for an answer."""

    text: str
    """The deal as answered: as written, with ``trumps ♥: `` before it when the trump suit came from an option
    (so that it reads back as the same deal)."""
    body: str
    """Its suits' text, after any ``trumps …:``."""
    parts: tuple[str, ...]
    """Each suit as written."""
    trump: int | None
    """The trump suit, from 0; None for no trumps."""
    symmetric: bool
    """Every suit even: the theory's (Theorem 9.1), and the search's words below are not filled in."""
    n: int
    """Cards a hand."""
    west: int
    starts: int
    tf: int
    """The kernels' words (:mod:`.kernels`): West's cards, the suits' starts and the sentinel, the trump flag."""
    places: tuple[tuple[int, tuple[str, ...]], ...]
    """Each suit in the order written: its lowest card's bit and its cards' names, lowest first."""


class DealReader:
    """Deal texts → :class:`Reading` (docs/spec.md §2), remembering each suit's text; ``trumps`` names the
    trump suit of every deal whose text names none (``--trumps``: a number from 1, a symbol or a letter).

    Raises what :func:`~whist_catalogue.theory.deals.parse_two_hand` raises, and :class:`BeyondSearchError` for a
    deal outside the theory with more than :data:`~whist_catalogue.constants.MAX_SEARCH_N` cards a hand."""

    def __init__(self, trumps: str | None = None) -> None:
        self.trumps = trumps
        self._suits: dict[str, _SuitBits] = {}
        self._trumps: dict[tuple[str | None, int], int | None] = {}
        """(the trump suit the text names, the deal's suits) → the trump suit, once found."""

    def __call__(self, text: str) -> Reading:
        named, body = split_trumps(text)
        parts = multisuit_parts(body)  # a deal beyond the size bound is refused here, before any work
        known = self._suits
        try:
            suits = [known[part] for part in parts]
        except KeyError:
            try:
                suits = [self._suit(part) for part in parts]
            except InvalidDealError:
                parse_two_hand(text, self.trumps)  # a part at fault: said as the parser says it, naming the suit
                raise
        count = len(parts)
        trump = None
        if named is not None or self.trumps is not None:
            trump = self._trumps.get((named, count))
            if trump is None:
                trump = self._trumps[named, count] = trump_suit(named, self.trumps, count, text)
        n = east = 0
        even = True
        for _, w, e, _ in suits:
            n += w
            east += e
            even = even and w == e
        if n != east:
            parse_two_hand(text, self.trumps)  # hands of different sizes: said as the parser says it
            raise AssertionError(f"the parser took hands of different sizes: {text!r}")
        shown = text
        if named is None and trump is not None:
            shown = f"trumps {SUIT_SYMBOLS[trump] if count <= len(SUIT_SYMBOLS) else trump + 1}: {text}"
        if even:
            return Reading(shown, body, tuple(parts), trump, True, n, 0, 0, 0, ())
        if n > MAX_SEARCH_N:
            raise beyond_search(n, shown)
        west, starts, offsets = lay_out([(mask, len(names)) for mask, _, _, names in suits], trump)
        places = tuple((offset, names) for offset, (*_, names) in zip(offsets, suits))
        return Reading(shown, body, tuple(parts), trump, False, n, west, starts, int(trump is not None), places)

    def _suit(self, part: str) -> _SuitBits:
        found = self._suits.get(part)
        if found is None:
            if len(self._suits) >= _MAX_KNOWN:
                self._suits.clear()
            # A suit of more cards than two hands the search takes is never searched: its counts are enough.
            found = self._suits[part] = two_hand_suit(part, 2 * MAX_SEARCH_N)
        return found


def lay_out(suits: Sequence[tuple[int, int]], trump: int | None) -> tuple[int, int, list[int]]:
    """A deal's cards in the kernels' words (:mod:`.bits`), from each suit's West cards as bits over its cards and
    its number of cards: West's cards, the suits' starts with the sentinel above the top card, and each suit's
    lowest bit — the trump suit at the bottom, the others above it in the order written."""
    west = starts = offset = 0
    offsets = [0] * len(suits)
    for i in ([] if trump is None else [trump]) + [i for i in range(len(suits)) if i != trump]:
        mask, size = suits[i]
        west |= mask << offset
        starts |= 1 << offset
        offsets[i] = offset
        offset += size
    return west, starts | 1 << offset, offsets


def beyond_search(n: int, text: str) -> BeyondSearchError:
    """The refusal of a deal past the search's limit, naming it."""
    return BeyondSearchError(f"{n} cards a hand in {text!r}: the exact search takes at most {MAX_SEARCH_N} cards a hand"
                             " (a deal whose suits are all even has no such limit: the theory answers it)")


def led_bit(reading: Reading, leader: Player, led: tuple[int, int]) -> int:
    """The bit of the card ``led`` (suit from 0, real rank) in the kernels' words, refusing a card the leader
    does not hold (as :class:`~.position.Position` does)."""
    suit_index, rank = led
    suit = read_suit(reading.parts[suit_index])
    if rank not in (suit.west if leader == "W" else suit.east):
        raise IllegalMoveError(f"{'West' if leader == 'W' else 'East'} does not hold {suit.card_name(rank)} in"
                               f" {suit_name(suit_index, len(reading.parts))} ({suit}) of {reading.text!r}")
    return 1 << (reading.places[suit_index][0] + sorted(suit.west + suit.east).index(rank))


Found = tuple[list[list[int]], list[list[list[int]]], Sequence[str]]
"""What a search of many positions gives (:func:`search_task`): West's tricks, each legal card's result by bit,
and where each answer comes from."""


def search_task(words: Sequence[tuple[int, int, int, int, int]], endings: bool | EndingTable = True) -> Found:
    """:func:`~.solver.search` of many deals or positions, each by its words (:func:`~.solver.words`), without the
    counters (``endings``: a table of endings, the catalogue's for :meth:`whist_catalogue.store.endings.
    CatalogueEndings.search`).  What a Dask worker runs for ``outcome``/``moves --cluster``; it loads the search
    (Numba) where it runs."""
    from whist_catalogue.twohand.solver import search

    columns = tuple(zip(*words)) if words else ((), (), (), (), ())
    values, results, _, sources = search(*columns, endings=endings)
    return values, results, sources


def _cards(reading: Reading, results: Sequence[int]) -> list[tuple[int, str, int]]:
    """The legal cards (a result ≥ 0) in the order written, suit by suit, lowest first."""
    return [(i, name, x)
            for i, (offset, names) in enumerate(reading.places)
            for name, x in zip(names, results[offset:offset + len(names)])
            if x >= 0]


def first_best(cards: Sequence[tuple[int, str, int]], value: int, source: str = SEARCH) -> tuple[int, str, str]:
    """The first of the best cards in the order written, suit by suit, lowest first: what a searched deal's answer
    (or one from the catalogue's table, ``source``) names as each side's first lead (the theory's follow the rule of
    §10.4)."""
    for suit, name, x in cards:
        if x == value:
            return suit, name, _WHY[source]
    raise AssertionError("the search's value is some card's result")


def outcome_answer(reading: Reading, values: Sequence[int], results: Sequence[Sequence[int]],
                   cards: bool = False, source: str = SEARCH) -> OutcomeAnswer:
    """A whole deal's answer from the search (or the catalogue's table of endings, ``source``): the outcome, the
    first best card of each leader in the order written, and with ``cards`` every legal first card of both."""
    # At the first trick every card of the leader's is legal, so each card has a result with its holder on lead
    # and −1 with the other: one pass sorts the cards to their leaders.
    west_results, east_results = results
    west: list[tuple[int, str, int]] = []
    east: list[tuple[int, str, int]] = []
    to_west, to_east = west.append, east.append
    for i, (offset, names) in enumerate(reading.places):
        stop = offset + len(names)
        for name, x, y in zip(names, west_results[offset:stop], east_results[offset:stop]):
            if x >= 0:
                to_west((i, name, x))
            else:
                to_east((i, name, y))
    return OutcomeAnswer(reading.text, reading.parts, None, None, Outcome(values[0], values[1]),
                         first_best(west, values[0], source), first_best(east, values[1], source), reading.trump,
                         FirstCards(west, east) if cards else None, source)


def moves_answer(reading: Reading, to_play: Player, results: Sequence[int], source: str = SEARCH) -> MovesAnswer:
    """A position's answer from the search (or the catalogue's table of endings, ``source``): every legal card of
    the player to move with West's tricks."""
    return MovesAnswer(reading.text, tuple(str(read_suit(p)) for p in reading.parts), to_play,
                       _cards(reading, results), "", source, reading.trump)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a batch builds its objects (none of them in a cycle): it would
    otherwise walk every object alive again and again — half a batch's time in Python, measured."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
