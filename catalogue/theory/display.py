"""How the theory's objects show themselves in a notebook: deals as card diagrams, values in the paper's notation.

Jupyter calls an object's ``_repr_html_``; :class:`~.deals.Deal`, :class:`~.deals.Suit`,
:class:`~.deals.TwoHandDeal`, :class:`~.values.Value`, :class:`~.solution.SuitSolution`,
:class:`~.multisuit.MultiSuitAnalysis` and the two-hand solver's position and solution answer through
:func:`html_of`, one entry point that dispatches on the object's class, as IPython's own formatters do
(python-chess draws its boards the same way).  A class hands itself over as an ``object``: no signature here
names the class that calls it, so this module and its callers never need each other's types. Values are written as in the
multi-suit paper (§6: ε₂, ±ε₀, 3 + 3/8); a deal is drawn as two hands of cards, West above East, the cards of
each hand from the highest down, in the notation the deal was written in. Nothing here computes: every number
shown is the object's own.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Sequence

from whist_catalogue.theory.answers import outcome_text
from whist_catalogue.theory.deals import Deal, Notation, Suit, TwoHandDeal
from whist_catalogue.theory.labeled import Player

if TYPE_CHECKING:
    from whist_catalogue.theory.multisuit import MultiSuitAnalysis
    from whist_catalogue.theory.solution import SuitSolution
    from whist_catalogue.theory.values import Value

__all__ = ["MAX_DRAWN_CARDS", "SUIT_SYMBOLS", "as_suit", "deal_svg", "html_of"]

MAX_DRAWN_CARDS = 40
"""Cards a hand drawn as cards; a larger deal is described in words (a notebook cell is no place for 10⁶ cards)."""

from whist_catalogue.theory.deals import SUIT_SYMBOLS  # noqa: E402 (one home for the suits' names)
RED_SUITS = {"♥", "♦"}
_SIDES: tuple[tuple[str, Player], ...] = (("West", "W"), ("East", "E"))

_CARD_W, _CARD_H, _GAP, _SUIT_GAP, _LABEL_W = 22, 30, 3, 12, 46
_STYLE = "font-family: DejaVu Sans, Arial, sans-serif"


def as_suit(deal: Deal | Suit) -> Suit:
    """A deal in a notation worth drawing: a canonical deal of up to 13 cards as ranks (its top card the ace),
    a larger one as its owner string's card numbers."""
    if isinstance(deal, Suit):
        return deal
    return deal.in_ranks() or Suit(deal.west_cards, deal.east_cards, Notation.OWNER)


def _symbol(k: int) -> str:
    return SUIT_SYMBOLS[k] if k < len(SUIT_SYMBOLS) else f"{k + 1}:"


def deal_svg(suits: Sequence[Deal | Suit], title: str = "") -> str:
    """Two rows of cards, West above East, each suit behind its symbol (one suit: no symbol)."""
    drawn = [as_suit(s) for s in suits]
    several = len(drawn) > 1
    width = _LABEL_W
    for suit in drawn:
        width += (_SUIT_GAP + 14 if several else 0) + max(len(suit.west), len(suit.east)) * (_CARD_W + _GAP) + _SUIT_GAP
    top = 18 if title else 0
    height = top + 2 * (_CARD_H + 8) + 4
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" style="{_STYLE}">'
    ]
    if title:
        parts.append(f'<text x="2" y="13" font-size="12" fill="#374151">{html.escape(title)}</text>')
    for row, (player, hand_of) in enumerate((("West", lambda s: s.west), ("East", lambda s: s.east))):
        y = top + row * (_CARD_H + 8) + 2
        parts.append(
            f'<text x="2" y="{y + _CARD_H * 0.68:.0f}" font-size="12" fill="#111827" font-weight="bold">{player}</text>'
        )
        x = _LABEL_W
        for k, suit in enumerate(drawn):
            if several:
                symbol = _symbol(k)
                colour = "#b91c1c" if symbol in RED_SUITS else "#111827"
                parts.append(
                    f'<text x="{x}" y="{y + _CARD_H * 0.68:.0f}" font-size="15" fill="{colour}">{symbol}</text>'
                )
                x += 14 + _SUIT_GAP // 2
            for rank in sorted(hand_of(suit), reverse=True):
                name = html.escape(suit.card_name(rank))
                size = 13 if len(name) == 1 else 10
                fill = "#eff6ff" if player == "West" else "#fef3c7"
                parts.append(
                    f'<rect x="{x}" y="{y}" width="{_CARD_W}" height="{_CARD_H}" rx="3" fill="{fill}" '
                    f'stroke="#6b7280"/><text x="{x + _CARD_W / 2:.1f}" y="{y + _CARD_H * 0.66:.0f}" '
                    f'font-size="{size}" text-anchor="middle" fill="#111827">{name}</text>'
                )
                x += _CARD_W + _GAP
            x += _SUIT_GAP
    parts.append("</svg>")
    return "".join(parts)


def _drawing(suits: Sequence[Deal | Suit], title: str = "") -> str:
    largest = max((max(len(s.west), len(s.east)) if isinstance(s, Suit) else s.n for s in suits), default=0)
    if largest > MAX_DRAWN_CARDS:
        return f"<p><i>{html.escape(title)} too large to draw: {largest} cards a hand.</i></p>"
    return deal_svg(suits, title)


def _deal_html(deal: Deal | Suit) -> str:
    """A single suit: its diagram, its canonical label and n."""
    canonical = deal if isinstance(deal, Deal) else deal.deal
    label = canonical.label if canonical.n <= MAX_DRAWN_CARDS else f"{canonical.label[:40]}…"
    caption = f"{html.escape(str(deal)) if canonical.n <= MAX_DRAWN_CARDS else ''}"
    return (
        f"<div>{_drawing([deal], caption)}"
        f'<div style="font-size:smaller;color:#4b5563">label <code>{label}</code>, n = {canonical.n}, '
        f"key {canonical.key if canonical.n <= 20 else '…'}</div></div>"
    )


def _value_html(value: Value) -> str:
    """The value in the paper's notation; its exact JSON form on hover."""
    exact = html.escape(json.dumps(value.to_json(), ensure_ascii=False))
    return f'<span title="{exact}" style="font-size:110%">{html.escape(value.text())}</span>'


def _solution_html(solution: SuitSolution) -> str:
    """A single suit's value, outcome and best leads, under its diagram (cards in the suit's own notation)."""
    shown = solution.deal
    written = as_suit(shown)
    outcome = solution.outcome
    leads = " &nbsp; ".join(
        f"{who}: " + " ".join(written.name_of(card) for card in solution.leads(player))
        for who, player in _SIDES
    )
    return (
        f"<div>{_drawing([shown], str(shown))}<table>"
        f"<tr><th style='text-align:left'>value</th><td>{_value_html(solution.value)}</td></tr>"
        f"<tr><th style='text-align:left'>outcome</th><td>{outcome_text(outcome)}</td></tr>"
        f"<tr><th style='text-align:left'>best leads</th><td>{leads}</td></tr></table></div>"
    )


def _analysis_html(analysis: MultiSuitAnalysis) -> str:
    """A multi-suit deal: its diagram, each suit's value, the sum, the outcome by Theorem 9.1 and the first leads."""
    rows = "".join(
        f"<tr><td>{_symbol(k) if k < 4 else k + 1}</td><td><code>{html.escape(str(suit))}</code></td>"
        f"<td>{_value_html(solution.value)}</td></tr>"
        for k, (suit, solution) in enumerate(zip(analysis.suits, analysis.solutions))
    )
    outcome = analysis.outcome
    leads = "; ".join(
        f"{who} leads the {analysis.lead_name(player)} of {_symbol(analysis.lead(player).suit)}"
        for who, player in _SIDES
    )
    return (
        f"<div>{_drawing(analysis.suits)}<table>"
        f"<tr><th></th><th style='text-align:left'>suit</th><th style='text-align:left'>value</th></tr>{rows}"
        f"<tr><th></th><th style='text-align:left'>sum</th><td>{_value_html(analysis.value)}</td></tr></table>"
        f"<p>{outcome_text(outcome)} (Theorem 9.1). {leads}.</p></div>"
    )


def _two_hand_html(deal: TwoHandDeal, caption: str = "") -> str:
    """A two-hand deal (any suits, voids drawn as nothing): its diagram, its text, the trump suit, a caption
    (who is to play)."""
    trumps = "no trumps" if deal.trump is None else f"trumps {deal.trump_name()}"
    words = f"{deal.n} cards a hand, {trumps}" + (f"; {html.escape(caption)}" if caption else "")
    return (
        f"<div>{_drawing(deal.suits, deal.text())}"
        f'<div style="font-size:smaller;color:#4b5563">{words}</div></div>'
    )


def html_of(shown: object, caption: str = "") -> str:
    """The HTML a notebook shows for an object of the theory (``caption``: a line under a two-hand deal)."""
    from whist_catalogue.theory.multisuit import MultiSuitAnalysis
    from whist_catalogue.theory.solution import SuitSolution
    from whist_catalogue.theory.values import Value

    match shown:
        case Deal() | Suit():
            return _deal_html(shown)
        case TwoHandDeal():
            return _two_hand_html(shown, caption)
        case Value():
            return _value_html(shown)
        case SuitSolution():
            return _solution_html(shown)
        case MultiSuitAnalysis():
            return _analysis_html(shown)
    raise TypeError(f"no drawing of a {type(shown).__name__}")
