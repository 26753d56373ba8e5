"""A deal's answer as every interface shows it: ``value``, ``outcome`` and ``moves`` of docs/spec.md §4.

Each answer is a small typed record built where the answer is made and rendered here once: its JSON
(``to_json``, the object of docs/spec.md §4; ``json_line``, the same line assembled from serialised parts
for a batch's hot loop) and its text for people (``text``).  Cards are named in the deal's own notation
and suits counted from 0 in JSON, from 1 in text (docs/spec.md §4).

* :class:`ValueAnswer` — one suit's value, outcome and best leads (Corollary 8.9 of the multi-suit paper);
  beyond every solver, what the linear-time theory gives instead (:class:`BeyondSolvers`: Theorem 10.1 of
  the single-suit paper for χ(D), Theorem 12.1 of the multi-suit paper for the value, Theorem 8.2 of the
  single-suit paper for the normal leads).
* :class:`OutcomeAnswer` — a multi-suit deal's suit values, their sum, its outcome ρ of the sum (Theorem
  9.1) and each side's first lead by the rule of §10.4; or, for a two-hand deal outside the theory (an
  uneven suit: docs/spec.md §2), the outcome and a best first lead a side found by the exact search
  (:mod:`whist_catalogue.twohand`), with no value, since such a deal has none in V; optionally every legal
  first card of both leaders (:class:`FirstCards`).  :class:`BeyondOutcome` for a single suit beyond every
  solver.
* :class:`MovesAnswer` — every legal card of the player to move with West's tricks from there on, from the
  theory (one trick of look-ahead on Theorem 9.1) or by search.

Each says where it comes from (``source``: :data:`THEORY`, :data:`SEARCH`, or :data:`CATALOGUE` — the catalogue's
table of two-hand endings, docs/two-hand.md) and names the trump suit, if any (a symmetric deal with trumps is the
theory's: nobody can ever ruff in it, so trumps change nothing).

The records are named tuples, not dataclasses: a batch of deals must not import ``dataclasses``
(docs/benchmarks.md).  A solver of other deals (uneven suits, trumps) extends them by building the same
records, or subclasses adding fields to ``to_json``.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping, NamedTuple, Protocol, Sequence

from whist_catalogue.errors import counted
from whist_catalogue.theory.deals import SUIT_SYMBOLS, Deal, Suit, read_suit
from whist_catalogue.theory.solution import SuitSolution
from whist_catalogue.theory.values import Outcome, Value

__all__ = [
    "Found",
    "outcome_json",
    "outcome_text",
    "ValueAnswer",
    "NormalLead",
    "BeyondSolvers",
    "OutcomeAnswer",
    "FirstCards",
    "ValueJson",
    "BeyondOutcome",
    "MovesAnswer",
    "LINEAR_METHOD",
    "THEORY",
    "SEARCH",
    "CATALOGUE",
    "source_text",
]

_to_json = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(…, ensure_ascii=False) builds one a call


def _json_text(text: str) -> str:
    """A string as JSON: a deal's text needs no escaping unless it holds a quote, a backslash or a control
    character (what ``_to_json`` escapes with ``ensure_ascii=False``), so it goes out as it is, a batch's hot path."""
    if text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return _to_json(text)

LINEAR_METHOD = "linear-time (single-suit paper, Theorem 10.1)"
"""``method`` of an answer the linear-time theory gave (beyond every solver)."""
THEORY = "theory"
"""``source`` of an answer from the suits' values: Theorem 9.1 of the multi-suit paper (every suit even)."""
SEARCH = "search"
"""``source`` of an answer found by the exact search: a deal with an uneven suit, outside the theory."""
CATALOGUE = "catalogue"
"""``source`` of an answer read from the catalogue's table of two-hand endings (``build --endings K``): a deal
with an uneven suit whose position, and every position one trick on, the table holds.  (The shipped table's
endings are the search's leaves: such an answer says :data:`SEARCH`.)"""


def outcome_json(o: Outcome) -> dict[str, int]:
    return {"west_leads": int(o.west_leads), "east_leads": int(o.east_leads)}


def outcome_text(o: Outcome) -> str:
    return (f"West takes {counted(o.west_leads, 'trick')} with West on lead, "
            f"{counted(o.east_leads, 'trick')} with East on lead")


def outcome_lines(o: Outcome, tricks: int) -> str:
    """The outcome a line a leader, with East's share: the app's views say it so."""
    return (f"West on lead: West takes {o.west_leads} of the {counted(tricks, 'trick')}, "
            f"East {tricks - o.west_leads}.\n"
            f"East on lead: West takes {o.east_leads}, East {tricks - o.east_leads}.")


class Found(Protocol):
    """A single suit's answer where it is made (:class:`whist_catalogue.store.solvers.SuitAnswer`): the records
    below are built from it, by the command line and the app alike."""

    @property
    def deal(self) -> Deal: ...
    @property
    def solution(self) -> SuitSolution | None: ...
    @property
    def linear(self) -> Any:
        """:class:`whist_catalogue.single_suit.linear_time.LinearAnswer` (a layer below this one cannot name it)."""
    @property
    def outcome(self) -> Outcome: ...
    @property
    def not_given(self) -> str: ...


class NormalLead(NamedTuple):
    """A side's normal lead (§4.2 of the single-suit paper) and what Theorem 8.2 says of it."""

    player: str
    """``West`` or ``East``."""
    card: str
    best: bool
    """Whether Theorem 8.2 makes it a best first lead: the tricks it guarantees are the optimum."""
    guarantee: int
    optimum: int

    @property
    def note(self) -> str:
        if self.best:
            return "the normal lead (§4.2), a best lead by Theorem 8.2"
        return (f"not determined: the normal lead {self.card} guarantees {self.player} only {self.guarantee} of the "
                f"{self.optimum} tricks best play takes (Theorem 8.2), so holding up matters here")


class BeyondSolvers(NamedTuple):
    """What the linear-time theory gives a single suit beyond every solver, and what it does not."""

    value: Value | None
    """val(D) when Theorem 12.1 names it (an integer or half an odd integer)."""
    kind: str
    """Theorem 12.1's finding: ``half-integral``, ``integral`` or ``bounds``."""
    lower: Value
    upper: Value
    """Without the value: lower < val(D) < upper, and val(D) is not the outcome's k."""
    west: NormalLead
    east: NormalLead
    not_given: str

    @classmethod
    def of(cls, found: Found, name_of: Callable[[int], str]) -> BeyondSolvers:
        """What the linear-time theory gave a suit beyond every solver, its cards named by ``name_of``."""
        detection, leads, outcome = found.linear.detection, found.linear.leads, found.outcome
        west = NormalLead("West", name_of(leads.west), leads.west_is_best, leads.west_guarantee, outcome.west_leads)
        east = NormalLead("East", name_of(leads.east), leads.east_is_best, leads.east_guarantee,
                          found.deal.n - outcome.east_leads)
        return cls(detection.value, detection.kind, Value(detection.lower), Value(detection.upper), west, east,
                   found.not_given)

    def value_text(self, outcome: Outcome) -> str:
        if self.value is not None:
            return f"{self.value.text()}  (Theorem 12.1: the value is {self.kind})"
        return (f"strictly between {self.lower.text()} and {self.upper.text()}, and not {outcome.west_leads} "
                "(Theorem 12.1)")

    def lead_notes(self) -> dict[str, str]:
        return {"west": self.west.note, "east": self.east.note}


class ValueAnswer(NamedTuple):
    """``value``'s answer to one suit as written: its value, outcome and every best first lead."""

    deal: str
    """The deal as the user wrote it."""
    suit: Suit
    value: Value | None
    outcome: Outcome
    west_leads: tuple[str, ...]
    east_leads: tuple[str, ...]
    beyond: BeyondSolvers | None = None
    """Set when only the linear-time theory reaches the deal; then the leads are the normal leads it names."""

    @classmethod
    def of(cls, text: str, suit: Suit, found: Found) -> ValueAnswer:
        """The answer to ``suit``, written as ``text``, from what the solvers (or the linear-time theory) found."""
        solution = found.solution
        if solution is None:
            beyond = BeyondSolvers.of(found, suit.name_of)
            return cls(text, suit, beyond.value, found.outcome, (beyond.west.card,) if beyond.west.best else (),
                       (beyond.east.card,) if beyond.east.best else (), beyond)
        return cls(text, suit, solution.value, solution.outcome, tuple(map(suit.name_of, solution.west_leads)),
                   tuple(map(suit.name_of, solution.east_leads)))

    def to_json(self) -> dict[str, object]:
        return json.loads(self.json_line({}))

    def json_line(self, printed: dict[Value, tuple[str, str]]) -> str:
        """:meth:`to_json` as one line of JSON; ``printed`` keeps each value's and outcome's JSON text (a batch
        meets few distinct values)."""
        deal = self.suit.deal
        head = f'{{"deal": {_to_json(self.deal)}, "label": {_to_json(deal.label)}, "n": {deal.n}, '
        leads = (f'"best_leads": {{"west": {_to_json(list(self.west_leads))}, '
                 f'"east": {_to_json(list(self.east_leads))}}}')
        if self.beyond is None:
            assert self.value is not None
            known = printed.get(self.value)
            if known is None:
                known = printed[self.value] = (_to_json(self.value.to_json()), _to_json(outcome_json(self.outcome)))
            return f'{head}"value": {known[0]}, "outcome": {known[1]}, {leads}}}\n'
        b = self.beyond
        bounds = None if b.value is not None else {"lower": b.lower.to_json(), "upper": b.upper.to_json()}
        rest = {"value": None if b.value is None else b.value.to_json(), "value_between": bounds,
                "outcome": outcome_json(self.outcome)}
        tail = {"lead_note": b.lead_notes(), "method": LINEAR_METHOD, "not_given": b.not_given}
        return f"{head}{_to_json(rest)[1:-1]}, {leads}, {_to_json(tail)[1:]}\n"

    def text(self) -> str:
        deal = self.suit.deal
        heading = f"{self.suit}  ({deal.label}, n = {deal.n})"
        if self.beyond is None:
            assert self.value is not None
            return (f"{heading}\n  value     {self.value.text()}\n  outcome   {outcome_text(self.outcome)}\n"
                    f"  best leads  West: {' '.join(self.west_leads)}   East: {' '.join(self.east_leads)}\n")
        b = self.beyond
        west, east = (lead.card if lead.best else "?" for lead in (b.west, b.east))
        lines = [
            heading if deal.n <= 64 else f"{deal.n} cards a hand",
            f"  value     {b.value_text(self.outcome)}",
            f"  outcome   {outcome_text(self.outcome)}",
            f"  best leads  West: {west}   East: {east}  (the normal leads of §4.2: a best lead by Theorem 8.2"
            + ("" if "?" not in (west, east) else "; ? where it is not") + ")",
            "  solved    in linear time (Theorem 10.1 of the single-suit paper)",
            f"  not given  {b.not_given}",
        ]
        return "\n".join(lines) + "\n"


Card = tuple[int, str, int]
"""A card's result: (its suit, from 0; the card in the deal's notation; West's tricks from this trick on)."""


class FirstCards(NamedTuple):
    """Every legal first card of each leader, suit by suit, lowest first, with West's tricks when it is led."""

    west: Sequence[Card]
    east: Sequence[Card]


class _CardJson(dict):
    """A card's result → its JSON object's text, each written once: a batch of thousands of deals meets a few
    hundred distinct ones (suit, name, tricks)."""

    def __missing__(self, card: Card) -> str:
        if len(self) > 1 << 16:
            self.clear()
        suit, name, tricks = card
        # A card's name (a rank letter or a whole number) needs no escaping.
        found = self[card] = f'{{"suit": {suit}, "card": "{name}", "west_tricks": {tricks}}}'
        return found


_card_json = _CardJson().__getitem__


class ValueJson(dict):
    """Packed value → its JSON object's text, each written once: a batch meets few distinct values (what
    :meth:`OutcomeAnswer.json_line` takes)."""

    def __missing__(self, code: int) -> str:
        from whist_catalogue.theory.packed import unpack

        found = self[code] = _to_json(unpack(code).to_json())
        return found


def _cards_json(cards: Sequence[Card]) -> str:
    return ", ".join(map(_card_json, cards))


def source_text(source: str, trumps: int | None, count: int) -> str:
    """Where an answer comes from, in words (the line after the deal; the app's deal view says the same)."""
    if source == SEARCH:
        return "by search: an uneven suit puts the deal outside the theory, so it has no value in V"
    if source == CATALOGUE:
        return ("from the catalogue's table of endings: an uneven suit puts the deal outside the theory, so it has no"
                " value in V")
    if trumps is None:
        return "from the suits' values (Theorem 9.1)"
    named = SUIT_SYMBOLS[trumps] if count <= len(SUIT_SYMBOLS) else f"suit {trumps + 1}"
    return (f"from the suits' values (Theorem 9.1): every suit is even, so nobody can ever ruff, and trumps "
            f"({named}) change nothing")


def _suit_lines(cards: Sequence[Card], parts: Sequence[str], to_play: str, shown: bool = True) -> list[str]:
    """Each suit's cards with West's tricks after each, ``*`` marking the best for the player ``to_play``; the
    suit itself written out when ``shown``."""
    best = (max if to_play == "W" else min)(k for *_, k in cards)
    lines = []
    for i, part in enumerate(parts):
        results = "  ".join(f"{c}:{k}{'*' if k == best else ''}" for s, c, k in cards if s == i)
        if results:
            lines.append(f"suit {i + 1} ({read_suit(part)})  {results}" if shown else f"suit {i + 1}  {results}")
    return lines


class OutcomeAnswer(NamedTuple):
    """``outcome``'s answer to a deal: its outcome and a first lead a side — from the suits' values, their sum
    and the rule of §10.4 when every suit is even (Theorem 9.1), else by search or from the catalogue's table of
    endings, with no value (the deal has none in V).

    Values are packed (:mod:`.packed`): ``json_line`` serialises each through ``values`` (code → JSON text),
    which a batch shares."""

    deal: str
    """The deal as answered: as written, with ``trumps ♥: `` before it when the trump suit came from an option."""
    parts: Sequence[str]
    """The suits as the user wrote them (:func:`~.deals.multisuit_parts`)."""
    codes: Sequence[int] | None
    """The suits' values, packed; None for a deal answered by search."""
    total: int | None
    """Their sum in V, packed; None for a deal answered by search."""
    outcome: Outcome
    west: tuple[int, str, str]
    east: tuple[int, str, str]
    """Each side's first lead: (the suit, from 0; the card; why it is best, in words)."""
    trumps: int | None = None
    """The trump suit, from 0; None for no trumps."""
    cards: FirstCards | None = None
    """Every legal first card of both leaders, when asked for (``outcome --cards``)."""
    source: str = THEORY
    """:data:`THEORY` (``codes`` and ``total`` set), :data:`SEARCH` or :data:`CATALOGUE` (both None)."""

    def to_json(self) -> dict[str, object]:
        return json.loads(self.json_line(ValueJson()))

    def json_line(self, values: Mapping[int, str]) -> str:
        west, east = self.outcome
        trumps = "null" if self.trumps is None else self.trumps
        if self.codes is None or self.total is None:
            head = (f'{{"deal": {_json_text(self.deal)}, "source": "{self.source}", "trumps": {trumps}, "suits": null, '
                    '"value": null, ')
        else:
            head = (f'{{"deal": {_json_text(self.deal)}, "source": "theory", "trumps": {trumps}, '
                    f'"suits": [{", ".join(values[c] for c in self.codes)}], "value": {values[self.total]}, ')
        cards = "" if self.cards is None else (f', "cards": {{"west": [{_cards_json(self.cards.west)}], '
                                               f'"east": [{_cards_json(self.cards.east)}]}}')
        return (
            f'{head}"outcome": {{"west_leads": {west}, "east_leads": {east}}}, '
            f'"lead": {{"west": {{"suit": {self.west[0]}, "card": "{self.west[1]}"}}, '
            f'"east": {{"suit": {self.east[0]}, "card": "{self.east[1]}"}}}}{cards}}}\n'
        )

    def text(self) -> str:
        from whist_catalogue.theory.packed import unpack

        lines = [self.deal.strip(), f"  answered     {source_text(self.source, self.trumps, len(self.parts))}"]
        if self.codes is not None and self.total is not None:
            lines += [f"  suit values  {'  +  '.join(unpack(c).text() for c in self.codes)}",
                      f"  sum          {unpack(self.total).text()}"]
        lines.append(f"  outcome      {outcome_text(self.outcome)}")
        for name, (suit, card, rule) in (("West", self.west), ("East", self.east)):
            lines.append(f"  {name} leads  {card} of suit {suit + 1} ({read_suit(self.parts[suit])}): {rule}")
        if self.cards is not None:
            for name, cards in (("West", self.cards.west), ("East", self.cards.east)):
                lines.append(f"  every first card with {name} on lead, West's tricks after each (* best):")
                lines += [f"    {line}" for line in _suit_lines(cards, self.parts, name[0])]
        return "\n".join(lines) + "\n"


class BeyondOutcome(NamedTuple):
    """``outcome``'s answer to a single suit beyond every solver, by the linear-time theory."""

    deal: str
    n: int
    outcome: Outcome
    beyond: BeyondSolvers
    trumps: int | None = None
    """The trump suit (0, the one suit), or None: a single symmetric suit is the theory's either way."""
    cards: FirstCards | None = None
    """Every legal first card of both leaders, when asked for: each deal one trick on by the linear-time theory."""

    @classmethod
    def of(cls, text: str, found: Found, name_of: Callable[[int], str] = str) -> BeyondOutcome:
        return cls(text, found.deal.n, found.outcome, BeyondSolvers.of(found, name_of))

    def to_json(self) -> dict[str, object]:
        b = self.beyond
        value = None if b.value is None else b.value.to_json()
        line: dict[str, object] = {
            "deal": self.deal,
            "source": THEORY,
            "trumps": self.trumps,
            "suits": [value],
            "value": value,
            "outcome": outcome_json(self.outcome),
            "lead": {side: {"suit": 0, "card": lead.card} if lead.best else None
                     for side, lead in (("west", b.west), ("east", b.east))},
        }
        if self.cards is not None:
            line["cards"] = {side: [{"suit": s, "card": c, "west_tricks": k} for s, c, k in cards]
                             for side, cards in (("west", self.cards.west), ("east", self.cards.east))}
        line.update({"lead_note": b.lead_notes(), "method": LINEAR_METHOD, "not_given": b.not_given})
        return line

    def json_line(self, values: Mapping[int, str] | None = None) -> str:
        return _to_json(self.to_json()) + "\n"

    def text(self) -> str:
        b = self.beyond
        lines = [f"{self.n} cards a hand: beyond the catalogue and the engine, solved in linear time (Theorem 10.1)",
                 f"  outcome  {outcome_text(self.outcome)}", f"  value    {b.value_text(self.outcome)}"]
        for lead in (b.west, b.east):
            said = f"{lead.card} (the normal lead of §4.2; best by Theorem 8.2)" if lead.best else lead.note
            lines.append(f"  {lead.player} leads  {said}")
        if self.cards is not None:
            for name, cards in (("West", self.cards.west), ("East", self.cards.east)):
                lines.append(f"  every first card with {name} on lead, West's tricks after each (* best):")
                lines += [f"    {line}" for line in _suit_lines(cards, (self.deal,), name[0], shown=False)]
        lines.append(f"  not given  {b.not_given}")
        return "\n".join(lines) + "\n"


class MovesAnswer(NamedTuple):
    """``moves``' answer: every legal card of the player to move, with West's tricks from this trick on."""

    deal: str
    suits: Sequence[str]
    to_play: str
    """``W`` or ``E``."""
    moves: Sequence[Card]
    """(the suit, from 0; the card; West's tricks from this trick on when it is played)."""
    linear: str = ""
    """Beyond every solver: why, each deal one trick on solved by the linear-time theory instead."""
    source: str = THEORY
    """:data:`THEORY` (one trick of look-ahead on Theorem 9.1), :data:`SEARCH` or :data:`CATALOGUE`."""
    trumps: int | None = None
    """The trump suit, from 0; None for no trumps."""

    def to_json(self) -> dict[str, object]:
        line: dict[str, object] = {"deal": self.deal, "source": self.source, "trumps": self.trumps,
                                   "to_play": self.to_play,
                                   "moves": [{"suit": s, "card": c, "west_tricks": k} for s, c, k in self.moves]}
        if self.linear:
            line["method"] = "linear-time (single-suit paper, Theorem 10.1, for each deal one trick on)"
        return line

    def json_line(self, values: Mapping[int, str] | None = None) -> str:
        return _to_json(self.to_json()) + "\n"

    def text(self) -> str:
        player = "West" if self.to_play == "W" else "East"
        lines = [self.deal.strip(), f"  answered  {source_text(self.source, self.trumps, len(self.suits))}",
                 f"  {player} to play; West's tricks from this trick on after each card (* best):"]
        lines += [f"  {line}" for line in _suit_lines(self.moves, self.suits, self.to_play)]
        if self.linear:
            lines.append(f"  solved in linear time, each deal one trick on by Theorem 10.1: {self.linear}")
        return "\n".join(lines) + "\n"
