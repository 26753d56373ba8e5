"""A position of two-person whist: a deal of any suits (uneven, voids, trumps), who leads, a card already led.

The rules (the issue's, and every card game of this family's): the leader plays any card; the other
player follows suit if he can, else plays any card (a discard, or a ruff when it is a trump); the highest
trump played wins the trick, else the highest card of the suit led; the trick's winner leads next.  The
deal's notation is docs/spec.md §2 (:func:`~whist_catalogue.theory.deals.parse_two_hand`).

A :class:`Position` without a leader stands for the whole deal, to be answered with each side on lead.
"""

from __future__ import annotations

from whist_catalogue.errors import IllegalMoveError, InvalidDealError
from whist_catalogue.theory.deals import Suit, TwoHandDeal, parse_two_hand, suit_name
from whist_catalogue.theory.immutable import Immutable
from whist_catalogue.theory.labeled import Player

__all__ = ["Position", "as_position"]


class Position(Immutable):
    """A two-hand deal at the start of a trick (``led`` None) or after the leader's card ``led``.

    ``Position("trumps ♠: AK/-, -/QJ", leader="W", led=(0, 14))`` is West having led the ace of the first
    suit; ``repr()`` gives that text back.  ``led`` is the suit's 0-based index and the card's real rank (as
    :class:`~whist_catalogue.theory.deals.Suit` holds it: ``T`` is 10, an owner string's card k is k).
    """

    __slots__ = ("deal", "leader", "led")
    deal: TwoHandDeal
    leader: Player | None
    """Who leads this trick; None: the whole deal, answered with each side on lead."""
    led: tuple[int, int] | None
    """The card the leader has led, (suit, rank); None at the start of a trick."""

    def __init__(
        self,
        deal: TwoHandDeal | str,
        leader: Player | None = None,
        led: tuple[int, int] | None = None,
        trumps: str | int | None = None,
    ) -> None:
        """``deal`` as a :class:`TwoHandDeal` or its text; ``trumps`` names the trump suit of a text that names
        none (:func:`~whist_catalogue.theory.deals.parse_two_hand`)."""
        if isinstance(deal, str):
            deal = parse_two_hand(deal, trumps)
        elif not isinstance(deal, TwoHandDeal):
            raise InvalidDealError(f"not a two-hand deal: {deal!r}")
        elif trumps is not None:
            deal = parse_two_hand(deal.text(), trumps)  # the same checks as for a text
        if leader not in ("W", "E", None):
            raise IllegalMoveError(f"the leader is W or E, not {leader!r}")
        if led is not None:
            if leader is None:
                raise IllegalMoveError("a card led needs its leader: W or E")
            suit, rank = led
            if not (isinstance(suit, int) and 0 <= suit < len(deal.suits)):
                raise IllegalMoveError(f"there is no suit {suit!r} (0-based) in {deal.text()!r}")
            held = deal.suits[suit].west if leader == "W" else deal.suits[suit].east
            if rank not in held:
                written = deal.suits[suit]
                name = written.card_name(rank) if isinstance(rank, int) else repr(rank)
                raise IllegalMoveError(
                    f"{'West' if leader == 'W' else 'East'} does not hold {name} in"
                    f" {suit_name(suit, len(deal.suits))} ({written}) of {deal.text()!r}"
                )
            led = (suit, rank)
        object.__setattr__(self, "deal", deal)
        object.__setattr__(self, "leader", leader)
        object.__setattr__(self, "led", led)

    @property
    def suits(self) -> tuple[Suit, ...]:
        return self.deal.suits

    @property
    def trump(self) -> int | None:
        """The trump suit's 0-based index, None for no trumps."""
        return self.deal.trump

    @property
    def to_play(self) -> Player | None:
        """Who plays the next card: the leader, or after the lead the other player."""
        if self.leader is None or self.led is None:
            return self.leader
        return "E" if self.leader == "W" else "W"

    def led_name(self) -> str | None:
        """The card led in its suit's notation."""
        if self.led is None:
            return None
        suit, rank = self.led
        return self.suits[suit].card_name(rank)

    def text(self) -> str:
        """The deal, and in words who leads and what was led: ``AK/-, -/QJ (West led A of suit 1 (♠))``."""
        if self.leader is None:
            return self.deal.text()
        who = "West" if self.leader == "W" else "East"
        if self.led is None:
            return f"{self.deal.text()} ({who} to lead)"
        where = suit_name(self.led[0], len(self.suits))
        return f"{self.deal.text()} ({who} led {self.led_name()} of {where})"

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        extra = "" if self.leader is None else f", leader={self.leader!r}"
        if self.led is not None:
            extra += f", led={self.led!r}"
        return f"Position({self.deal.text()!r}{extra})"

    def _repr_html_(self) -> str:
        """The two hands as a card diagram, the trump suit and who is to play (:mod:`whist_catalogue.theory.display`)."""
        from whist_catalogue.theory.display import html_of

        caption = "" if self.leader is None else self.text()[len(self.deal.text()) + 2 : -1]
        return html_of(self.deal, caption)


def as_position(deal: Position | TwoHandDeal | str, trumps: str | int | None = None) -> Position:
    """Whatever names a deal or a position, as a :class:`Position`."""
    if isinstance(deal, Position):
        if trumps is not None:
            return Position(deal.deal, deal.leader, deal.led, trumps)
        return deal
    return Position(deal, trumps=trumps)
