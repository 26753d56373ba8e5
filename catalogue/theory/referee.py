"""Brute-force referees: minimax of the card games themselves, independent of the value theory.

These are the obviously-correct references the rest of the package is checked
against.  They know only the rules:

* **Whist** (§1.1 of the multi-suit paper): the leader plays any card, the other
  player must follow suit when he can (in a symmetric deal he always can), the
  higher card of the suit led wins the trick and the lead; each player wants as
  many tricks as possible.
* **Greedy Whist** and **Five-card** (§1.2 of the single-suit paper): single-suit
  games with the *greedy rule* — the second player must beat the card led if he
  can.  Greedy Whist counts tricks; Five-card is won by whoever takes the last trick.

Positions are memoised by their canonical form: only the relative order of the
cards in each suit matters, and the suits of a multi-suit deal are unordered,
both of which are rules of the game rather than results of the theory.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Sequence

from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.values import Outcome

__all__ = [
    "whist_outcome",
    "plain_whist_outcome",
    "tricks_after_lead",
    "tricks_after_trick",
    "single_suit_outcome",
    "greedy_whist_outcome",
    "five_card_winner",
]

# A suit inside a position is its canonical deal key: West's mask plus the
# sentinel bit 2n (docs/spec.md §2).  A position is the sorted tuple of its non-empty
# suits, so equal positions reached by different lines of play meet in the table.
_Position = tuple[int, ...]


def _size(suit: int) -> int:
    return (suit.bit_length() - 1) // 2


def _remove(mask: int, pos: int) -> int:
    """mask with bit pos deleted and the higher bits shifted down."""
    return (mask >> (pos + 1)) << pos | (mask & ((1 << pos) - 1))


def _after_trick(position: _Position, s: int, west_pos: int, east_pos: int) -> _Position:
    """The position after West plays bit west_pos and East bit east_pos of suit s."""
    hi, lo = max(west_pos, east_pos), min(west_pos, east_pos)
    left = _remove(_remove(position[s], hi), lo)
    rest = position[:s] + position[s + 1 :]
    return tuple(sorted(rest + (left,))) if left > 1 else rest


def _cards(suit: int, west: bool) -> list[int]:
    """Bit positions of one player's cards in a suit, one per run of equivalent cards, highest first.

    Adjacent cards of one owner are interchangeable: either leaves the same
    canonical position and wins or loses the same tricks.
    """
    out = []
    prev_mine = False
    for p in range(2 * _size(suit) - 1, -1, -1):
        mine = (suit >> p & 1) == west
        if mine and not prev_mine:
            out.append(p)
        prev_mine = mine
    return out


def _all_cards(suit: int, west: bool) -> list[int]:
    return [p for p in range(2 * _size(suit)) if (suit >> p & 1) == west]


@lru_cache(maxsize=None)
def _plain_whist(position: _Position, west_on_lead: bool) -> int:
    """Plain minimax over every card: the slow, literal referee for small deals."""
    if not position:
        return 0
    results = []
    for s, suit in enumerate(position):
        for lead in _all_cards(suit, west_on_lead):
            replies = []
            for reply in _all_cards(suit, not west_on_lead):
                w, e = (lead, reply) if west_on_lead else (reply, lead)
                won = w > e
                replies.append(won + _plain_whist(_after_trick(position, s, w, e), won))
            results.append(min(replies) if west_on_lead else max(replies))
    return max(results) if west_on_lead else min(results)


# Transposition table: (position, West on lead) -> (lower, upper) bounds on West's tricks.
_bounds: dict[tuple[_Position, bool], tuple[int, int]] = {}


def _search(position: _Position, west_on_lead: bool, alpha: int, beta: int) -> int:
    """West's tricks from a position, fail-soft alpha-beta over the window (alpha, beta)."""
    if not position:
        return 0
    key = (position, west_on_lead)
    lo, hi = _bounds.get(key, (0, sum(_size(s) for s in position)))
    if lo >= beta or lo == hi:
        return lo
    if hi <= alpha:
        return hi
    a, b = max(alpha, lo), min(beta, hi)
    if west_on_lead:
        best = -1
        for s, suit in enumerate(position):
            for lead in _cards(suit, True):
                best = max(best, _reply(position, s, lead, True, max(a, best), b))
                if best >= b:
                    break
            if best >= b:
                break
    else:
        best = hi + 1
        for s, suit in enumerate(position):
            for lead in _cards(suit, False):
                best = min(best, _reply(position, s, lead, False, a, min(b, best)))
                if best <= a:
                    break
            if best <= a:
                break
    if best <= a:
        hi = min(hi, best)
    elif best >= b:
        lo = max(lo, best)
    else:
        lo = hi = best
    _bounds[key] = (lo, hi)
    return best


def _reply(position: _Position, s: int, lead: int, west_led: bool, alpha: int, beta: int) -> int:
    """West's tricks after a lead, the other player replying best (fail-soft)."""
    suit = position[s]
    replies = _cards(suit, not west_led)
    # Try winning as cheaply as possible and playing low first: they are usually best.
    cheapest = [p for p in reversed(replies) if p > lead][:1]
    replies = cheapest + [p for p in reversed(replies) if p not in cheapest]
    if west_led:
        best = 1 + sum(_size(x) for x in position)
        for reply in replies:
            won = lead > reply
            child = _after_trick(position, s, lead, reply)
            best = min(best, won + _search(child, won, alpha - won, min(beta, best) - won))
            if best <= alpha:
                break
    else:
        best = -1
        for reply in replies:
            won = reply > lead
            child = _after_trick(position, s, reply, lead)
            best = max(best, won + _search(child, won, max(alpha, best) - won, beta - won))
            if best >= beta:
                break
    return best


def _position(suits: Iterable[Deal]) -> _Position:
    return tuple(sorted(d.key for d in suits if d.n))


def whist_outcome(suits: Iterable[Deal]) -> Outcome:
    """χ(D) of a symmetric multi-suit deal: West's tricks with West, and with East, on lead."""
    position = _position(suits)
    inf = 1 + sum(_size(s) for s in position)
    return Outcome(_search(position, True, -1, inf), _search(position, False, -1, inf))


def plain_whist_outcome(suits: Iterable[Deal]) -> Outcome:
    """χ(D) by plain minimax over every card, no pruning: for checking :func:`whist_outcome`."""
    position = _position(suits)
    return Outcome(_plain_whist(position, True), _plain_whist(position, False))


def tricks_after_lead(suits: Sequence[Deal], west_leads: bool, suit: int, card: int) -> int:
    """West's tricks when the leader opens with canonical card ``card`` of ``suits[suit]``.

    The other player then replies optimally and both play optimally to the end.
    """
    deal = suits[suit]
    if deal.owner(card) != ("W" if west_leads else "E"):
        raise ValueError(f"{'West' if west_leads else 'East'} does not hold card {card} of {deal.label}")
    position = _position(suits)
    s = position.index(deal.key)
    inf = 1 + sum(_size(x) for x in position)
    return _reply(position, s, card - 1, west_leads, -1, inf)


def tricks_after_trick(suits: Sequence[Deal], suit: int, west_card: int, east_card: int) -> int:
    """West's tricks when the first trick is West's ``west_card`` against East's ``east_card``
    (canonical cards of ``suits[suit]``, whoever led) and both play optimally afterwards."""
    deal = suits[suit]
    if deal.owner(west_card) != "W" or deal.owner(east_card) != "E":
        raise ValueError(f"{deal.label}: West does not hold {west_card} or East does not hold {east_card}")
    position = _position(suits)
    s = position.index(deal.key)
    won = west_card > east_card
    child = _after_trick(position, s, west_card - 1, east_card - 1)
    return won + _search(child, won, -1, 1 + sum(_size(x) for x in child))


def single_suit_outcome(deal: Deal) -> Outcome:
    """χ(D) of a single-suit deal."""
    return whist_outcome((deal,))


@lru_cache(maxsize=None)
def _greedy(suit: int, west_on_lead: bool, last_trick_only: bool) -> int:
    """West's score in a greedy single-suit game (the suit by its key): tricks, or 1 if he takes the last trick."""
    n = _size(suit)
    if n == 0:
        return 0
    results = []
    for lead in _all_cards(suit, west_on_lead):
        seconds = _all_cards(suit, not west_on_lead)
        beating = [p for p in seconds if p > lead]
        replies = []
        for reply in beating or seconds:  # the greedy rule: beat the card led if you can
            west_pos, east_pos = (lead, reply) if west_on_lead else (reply, lead)
            west_wins = west_pos > east_pos
            left = _remove(_remove(suit, max(west_pos, east_pos)), min(west_pos, east_pos))
            if n == 1:
                score = int(west_wins)
            else:
                score = (0 if last_trick_only else west_wins) + _greedy(left, west_wins, last_trick_only)
            replies.append(score)
        results.append(min(replies) if west_on_lead else max(replies))
    return max(results) if west_on_lead else min(results)


def greedy_whist_outcome(deal: Deal) -> Outcome:
    """West's tricks in Greedy Whist with West, and with East, on lead."""
    return Outcome(_greedy(deal.key, True, False), _greedy(deal.key, False, False))


def five_card_winner(deal: Deal, west_on_lead: bool) -> str:
    """``"W"`` or ``"E"``: who wins Five-card (takes the last trick) under optimal play."""
    if deal.n == 0:
        raise ValueError("Five-card needs at least one card a hand")
    return "W" if _greedy(deal.key, west_on_lead, True) else "E"


def clear_caches() -> None:
    """Forget memoised positions (they are kept across calls to share work between deals)."""
    _bounds.clear()
    _plain_whist.cache_clear()
    _greedy.cache_clear()
