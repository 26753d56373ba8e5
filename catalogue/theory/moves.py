"""Every legal card with its exact result, from any position of a symmetric multi-suit deal.

What a double-dummy solver's "all solutions" or a tablebase's move list gives,
read off the values by one trick of look-ahead (multi-suit paper, Theorem 9.1):
after a complete trick the cards left form again a symmetric multi-suit deal —
the suit played has lost one card from each hand, the others are untouched — so
West's tricks from there on are ρ(Σ val)'s entry for the trick's winner on lead
(§6.5).  Hence, with West's card w against East's card e in suit s:

    result(w, e) = [w > e] + ρ(val(D_s − {w, e}) + Σ_{t ≠ s} val(D_t))[winner on lead]

and a lead's result is the best the other player can reply: the least over
East's cards of the suit when West leads, the greatest when East leads.  A
position is the start of a trick (``led`` None) or the moment after the lead.

Values are summed packed (:mod:`.packed`), looked up in a :class:`~.small_suits.SuitTable`.  A suit
played alone needs no values at all, only the outcome χ of each deal one trick on
(:func:`outcome_card_results`): what Theorem 10.1 of the single-suit paper gives, in
linear time, for a suit of any size.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

from whist_catalogue.errors import IllegalMoveError
from whist_catalogue.theory.deals import Card, Deal, Suit
from whist_catalogue.theory.labeled import Player
from whist_catalogue.theory.packed import MAX_SUMMANDS, rho_packed
from whist_catalogue.theory.small_suits import SuitTable
from whist_catalogue.theory.values import Outcome

__all__ = ["CardResult", "card_results", "suit_card_results", "outcome_card_results", "best_results"]

AfterTrick = Callable[[int, Card, Card], int]
"""West's tricks from the start of a trick on when West plays w and East e in suit s: (s, w, e) → tricks."""


class CardResult(NamedTuple):
    """A legal card (suit index and card) and West's tricks from this trick on when it is played."""

    suit: int
    card: int
    """A canonical card of the suit (:func:`card_results`) or a real rank (:func:`suit_card_results`)."""
    west_tricks: int


def card_results(
    deals: Sequence[Deal], leader: Player, table: SuitTable, led: tuple[int, Card] | None = None
) -> list[CardResult]:
    """Each legal card of the player to move, with West's tricks from the start of this trick on.

    ``deals`` are the suits still in the hands at the start of the trick (empty
    ones allowed), ``led`` the suit and canonical card already led by ``leader``.
    Cards come suit by suit, lowest first.
    """
    if leader not in ("W", "E"):
        raise ValueError(f"the leader is W or E, not {leader!r}")
    if len(deals) > MAX_SUMMANDS:
        raise ValueError(f"at most {MAX_SUMMANDS} suits")
    codes = [table.code(d) for d in deals]
    total = sum(codes)

    def after_trick(s: int, west: Card, east: Card) -> int:
        rest = total - codes[s] + table.code(deals[s].without(west, east))
        west_leads, east_leads = rho_packed(rest)
        return 1 + west_leads if west > east else east_leads

    return _results(deals, leader, led, after_trick)


def outcome_card_results(deal: Deal, leader: Player, outcome: Callable[[Deal], Outcome],
                         led: Card | None = None) -> list[CardResult]:
    """:func:`card_results` for one suit played alone, from ``outcome``, χ of a deal (West's tricks with West,
    and with East, on lead): after a trick only that suit is left, so no value is needed.  It asks ``outcome``
    of n² deals at the start of a trick, of n after the lead."""
    if leader not in ("W", "E"):
        raise ValueError(f"the leader is W or E, not {leader!r}")

    def after_trick(s: int, west: Card, east: Card) -> int:
        west_leads, east_leads = outcome(deal.without(west, east))
        return 1 + west_leads if west > east else east_leads

    return _results([deal], leader, None if led is None else (0, led), after_trick)


def _results(deals: Sequence[Deal], leader: Player, led: tuple[int, Card] | None,
             after_trick: AfterTrick) -> list[CardResult]:
    if led is not None:
        s, card = led
        deal = _checked_lead(deals, leader, s, card)
        if leader == "W":
            return [CardResult(s, e, after_trick(s, card, e)) for e in deal.east_cards]
        return [CardResult(s, w, after_trick(s, w, card)) for w in deal.west_cards]
    out = []
    for s, deal in enumerate(deals):
        if not deal.n:
            continue
        if leader == "W":
            for w in deal.west_cards:
                out.append(CardResult(s, w, min(after_trick(s, w, e) for e in deal.east_cards)))
        else:
            for e in deal.east_cards:
                out.append(CardResult(s, e, max(after_trick(s, w, e) for w in deal.west_cards)))
    return out


def _checked_lead(deals: Sequence[Deal], leader: Player, s: int, card: Card) -> Deal:
    name = "West" if leader == "W" else "East"
    if not 0 <= s < len(deals) or not deals[s].n:
        raise IllegalMoveError(f"there is no suit {s} to lead (suits are numbered from 0)")
    deal = deals[s]
    if not 1 <= card <= 2 * deal.n or deal.owner(card) != leader:
        raise IllegalMoveError(f"{name} does not hold that card of suit {s}")
    return deal


def suit_card_results(
    suits: Sequence[Suit], leader: Player, table: SuitTable, led: tuple[int, int] | None = None
) -> list[CardResult]:
    """:func:`card_results` for suits in real ranks: ``led`` and the results name cards by rank."""
    deals = [s.deal for s in suits]
    canonical = None
    if led is not None:
        s, rank = led
        if not 0 <= s < len(suits):
            raise IllegalMoveError(f"there is no suit {s} (suits are numbered from 0)")
        own = suits[s].west if leader == "W" else suits[s].east
        if rank not in own:
            raise IllegalMoveError(
                f"{'West' if leader == 'W' else 'East'} does not hold {suits[s].card_name(rank)} in suit {s}"
            )
        canonical = (s, suits[s].card_of(rank))
    results = card_results(deals, leader, table, canonical)
    return [CardResult(r.suit, suits[r.suit].rank_of(r.card), r.west_tricks) for r in results]


def best_results(results: Sequence[CardResult], player: Player) -> list[CardResult]:
    """The optimal cards among ``results`` for the player to move (West maximises West's tricks)."""
    if not results:
        return []
    pick = max if player == "W" else min
    best = pick(r.west_tricks for r in results)
    return [r for r in results if r.west_tricks == best]
