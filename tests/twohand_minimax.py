"""Plain minimax of two-person whist, the referee of :mod:`whist_catalogue.twohand`: the rules and recursion only.

The rules, as the issue states them: the leader plays any card; the other player follows suit if he can,
else plays any card (a discard, or a ruff); the highest trump played wins, else the highest card of the suit
led; the trick's winner leads next.  A hand is a frozenset of (suit, rank) cards, ranks as the deal writes
them.  Nothing clever: no bounds, no pruning, no equivalent cards, no canonical positions — every legal card is
played out to the end.  ``memo=True`` only remembers the exact hands already seen (the function is pure), which
the larger random deals need to stay within the suite's time; the exhaustive families run without it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

from whist_catalogue.theory.deals import TwoHandDeal

Card = tuple[int, int]
Hand = frozenset[Card]


def hands(deal: TwoHandDeal) -> tuple[Hand, Hand]:
    west = frozenset((s, r) for s, suit in enumerate(deal.suits) for r in suit.west)
    east = frozenset((s, r) for s, suit in enumerate(deal.suits) for r in suit.east)
    return west, east


def legal(hand: Hand, led: Card | None) -> list[Card]:
    """The cards a hand may play: any to lead; after a lead, a card of the suit led if it has one, else any."""
    if led is not None:
        following = [c for c in hand if c[0] == led[0]]
        if following:
            return following
    return list(hand)


def follower_wins(led: Card, reply: Card, trump: int | None) -> bool:
    if reply[0] == led[0]:
        return reply[1] > led[1]
    return reply[0] == trump  # a ruff wins; a discard never does (a trump led is followed when it can be)


class Minimax:
    """West's tricks from any point of a deal under optimal play by both sides."""

    def __init__(self, trump: int | None, memo: bool = False) -> None:
        self.trump = trump
        self.tricks: Callable[[Hand, Hand, str], int] = self._tricks
        if memo:
            self.tricks = lru_cache(maxsize=None)(self._tricks)

    def _tricks(self, west: Hand, east: Hand, leader: str) -> int:
        """From the start of a trick."""
        if not west:
            return 0
        leading = west if leader == "W" else east
        results = [self.after_lead(west, east, leader, card) for card in leading]
        return max(results) if leader == "W" else min(results)

    def after_lead(self, west: Hand, east: Hand, leader: str, led: Card) -> int:
        """From this trick on, after the leader's card ``led``: the other player's best reply."""
        following = east if leader == "W" else west
        results = [self.after_trick(west, east, leader, led, reply) for reply in legal(following, led)]
        return min(results) if leader == "W" else max(results)

    def after_trick(self, west: Hand, east: Hand, leader: str, led: Card, reply: Card) -> int:
        """From this trick on, once the trick is ``led`` and ``reply``."""
        other = "E" if leader == "W" else "W"
        winner = other if follower_wins(led, reply, self.trump) else leader
        west_card, east_card = (led, reply) if leader == "W" else (reply, led)
        return (winner == "W") + self.tricks(west - {west_card}, east - {east_card}, winner)


def every_card(deal: TwoHandDeal, leader: str, memo: bool = False) -> tuple[int, dict[Card, int]]:
    """West's tricks with ``leader`` on lead, and each legal first card's result."""
    west, east = hands(deal)
    game = Minimax(deal.trump, memo)
    results = {card: game.after_lead(west, east, leader, card) for card in (west if leader == "W" else east)}
    pick = max if leader == "W" else min
    return pick(results.values()), results


def every_reply(deal: TwoHandDeal, leader: str, led: Card, memo: bool = False) -> dict[Card, int]:
    """After ``leader`` led ``led``: each legal reply's result (West's tricks from this trick on)."""
    west, east = hands(deal)
    game = Minimax(deal.trump, memo)
    following = east if leader == "W" else west
    return {reply: game.after_trick(west, east, leader, led, reply) for reply in legal(following, led)}
