"""Multi-suit deals played from the values of their suits (§9 and §10.4 of the multi-suit paper).

* Theorem 9.1: the outcome of a symmetric multi-suit deal is ρ of the sum of
  its suits' values.
* §10.4: an optimal lead is found in two steps.  First the suit, by the rule
  implicit in the proof of Theorem 9.1 (for West; East's rule is the mirror
  image):

  (i)   a suit whose value has negative infinitesimal part — attack East's exit
        (Lemma 9.2);
  (ii)  else a suit with positive infinitesimal part — exit (Lemma 9.3);
  (iii) else every suit is a number: a suit at least as complex (at least the
        same denominator) as the value of the whole deal (Lemmas 9.4–9.5).

  Then a card: a best lead of that suit by its own values alone (docs/spec.md §3).
* The reply to a lead is a best reply within the suit led (Lemmas 9.6–9.9 are
  all met by a reply that maximises, for West, the labeled value α_ij).

Playing these moves for both sides gives an optimal line of play for the whole
deal, derived from values alone; the brute-force referee confirms it in tests.

:func:`evaluate`, :class:`DealEvaluator` and :func:`analyse_batch` do the same
arithmetic on packed values (:mod:`.packed`) looked up in a
:class:`~.small_suits.SuitTable` — every suit a pack can deal is preloaded — for
speed: a deal in a few microseconds, a batch of deal texts with each distinct suit
read once, and a batch of rows of integer keys in, arrays out (``docs/api.md``).
"""

from __future__ import annotations

import enum
from array import array
from functools import lru_cache
from operator import itemgetter
from typing import Iterable, NamedTuple, Sequence

from whist_catalogue.errors import InvalidDealError
from whist_catalogue.theory.deals import (
    Card, Deal, DealKey, Suit, multisuit_parts, parse_multisuit, parse_suit, two_hand_suit,
)
from whist_catalogue.theory.immutable import Immutable, notebook_html
from whist_catalogue.theory.labeled import Player
from whist_catalogue.theory.packed import MAX_SUMMANDS, lead_suits_packed, rho_packed, unpack
from whist_catalogue.theory.small_suits import SuitTable
from whist_catalogue.theory.solution import Solver, SuitSolution
from whist_catalogue.theory.values import Outcome, Value, rho, total

__all__ = [
    "LeadRule",
    "Lead",
    "Trick",
    "MultiSuitAnalysis",
    "analyse",
    "qualifying_suits",
    "choose_lead",
    "optimal_line",
    "Evaluation",
    "evaluate",
    "DealEvaluator",
    "WrittenEvaluation",
    "BatchAnalysis",
    "analyse_batch",
]


class LeadRule(enum.Enum):
    """Which clause of the rule of §10.4 chose the suit."""

    ATTACK_EXIT = "i"
    EXIT = "ii"
    COMPLEX_NUMBER = "iii"

    def describe(self, leader: Player) -> str:
        """The rule in words, from the leader's side."""
        other = "East" if leader == "W" else "West"
        if self is LeadRule.ATTACK_EXIT:
            return f"attack {other}'s exit"
        if self is LeadRule.EXIT:
            sign = "positive" if leader == "W" else "negative"
            return f"exit in a suit with {sign} infinitesimal"
        return "lead from the most complex number"


class Lead(NamedTuple):
    """An optimal lead: a suit (index into the deal's suits) and a card of its canonical deal."""

    suit: int
    card: Card
    rule: LeadRule


class Trick(NamedTuple):
    """One trick of a line of play, in real ranks: the suit led and its card, and the reply — in the suit led,
    or (a two-hand deal with a void, :mod:`whist_catalogue.twohand.play`) in another suit, a ruff or a discard."""

    leader: Player
    suit: int
    lead: int
    """Rank of the card led."""
    reply: int
    """Rank of the card played in reply."""
    reply_suit: int | None = None
    """The reply's suit when it is not the suit led (the follower had none of it); None: it followed suit."""
    ruff: bool = False
    """The reply was a trump played to another suit: it wins the trick."""

    @property
    def follower(self) -> Player:
        return "E" if self.leader == "W" else "W"

    @property
    def winner(self) -> Player:
        if self.reply_suit is not None:
            return self.follower if self.ruff else self.leader
        return self.leader if self.lead > self.reply else self.follower


def qualifying_suits(values: Sequence[Value | None], leader: Player) -> tuple[LeadRule, tuple[int, ...]]:
    """The clause of §10.4 that applies and every suit it allows (indices of nonempty suits given)."""
    own = 1 if leader == "W" else -1
    live = [(i, v) for i, v in enumerate(values) if v is not None]
    attack = tuple(i for i, v in live if v.infinitesimal.sign == -own)
    if attack:
        return LeadRule.ATTACK_EXIT, attack
    exits = tuple(i for i, v in live if v.infinitesimal.sign == own)
    if exits:
        return LeadRule.EXIT, exits
    whole = total(v for _, v in live)
    return LeadRule.COMPLEX_NUMBER, tuple(i for i, v in live if v.denominator >= whole.denominator)


def choose_lead(solutions: Sequence[SuitSolution | None], leader: Player) -> Lead:
    """An optimal lead for ``leader`` from the suits' solutions (None for an empty suit).

    Among the suits the rule allows, the most complex one is taken (for numbers
    the greatest denominator), and its lowest best lead.
    """
    given = {i: s for i, s in enumerate(solutions) if s is not None and s.deal.n}
    if not given:
        raise ValueError("no cards left to lead")
    rule, suits = qualifying_suits([given[i].value if i in given else None for i in range(len(solutions))], leader)
    suit = max(suits, key=lambda i: (given[i].value.complexity, -i))
    return Lead(suit, given[suit].leads(leader)[0], rule)


class MultiSuitAnalysis(NamedTuple):
    """A multi-suit deal evaluated by Theorem 9.1, with each side's optimal first lead."""

    suits: tuple[Suit, ...]
    solutions: tuple[SuitSolution, ...]
    value: Value
    """The sum of the suits' values."""
    west_lead: Lead
    east_lead: Lead

    @property
    def outcome(self) -> Outcome:
        """χ = ρ(Σ val), Theorem 9.1."""
        return rho(self.value)

    def lead(self, player: Player) -> Lead:
        return self.west_lead if player == "W" else self.east_lead

    def lead_name(self, player: Player) -> str:
        """The lead's card in the user's notation."""
        lead = self.lead(player)
        return self.suits[lead.suit].name_of(lead.card)

    def _repr_html_(self) -> str:
        return notebook_html(self)  # not `_repr_html_ = notebook_html`: mypy reads that as a field


def analyse(suits: Sequence[Suit], solver: Solver) -> MultiSuitAnalysis:
    """Values, outcome and first leads of a multi-suit deal."""
    suits = tuple(suits)
    solutions = tuple(solver.solve(s.deal) for s in suits)
    return MultiSuitAnalysis(
        suits=suits,
        solutions=solutions,
        value=total(s.value for s in solutions),
        west_lead=choose_lead(solutions, "W"),
        east_lead=choose_lead(solutions, "E"),
    )


def optimal_line(suits: Sequence[Suit], solver: Solver, leader: Player) -> list[Trick]:
    """Play the deal out with both sides following the theory: lead by §10.4, reply best in the suit."""
    remaining = list(suits)
    line: list[Trick] = []
    while any(s.n for s in remaining):
        solutions = [solver.solve(s.deal) if s.n else None for s in remaining]
        lead = choose_lead(solutions, leader)
        suit = remaining[lead.suit]
        led = solutions[lead.suit]
        assert led is not None  # choose_lead leads from a suit with cards
        reply_card = led.replies(leader, lead.card)[0]
        trick = Trick(leader, lead.suit, suit.rank_of(lead.card), suit.rank_of(reply_card))
        west_rank, east_rank = (trick.lead, trick.reply) if leader == "W" else (trick.reply, trick.lead)
        remaining[lead.suit] = suit.without(west_rank, east_rank)
        line.append(trick)
        leader = trick.winner
    return line


# -- on packed values --------------------------------------------------------------------------------


class Evaluation(NamedTuple):
    """A multi-suit deal by Theorem 9.1 and §10.4 on packed values: what :class:`MultiSuitAnalysis`
    gives, without the suits' best moves.  A named tuple: a batch builds one a deal, and a frozen
    dataclass costs several times as much to build."""

    keys: tuple[DealKey, ...]
    """Each suit's canonical deal, by integer key (docs/spec.md §2)."""
    codes: tuple[int, ...]
    """Each suit's value, packed (:mod:`.packed`)."""
    total: int
    """The sum of the codes: the packed value of the deal."""
    outcome: Outcome
    west_lead: Lead
    east_lead: Lead

    @property
    def suit_values(self) -> tuple[Value, ...]:
        return tuple(unpack(c) for c in self.codes)

    @property
    def value(self) -> Value:
        return unpack(self.total)

    def lead(self, player: Player) -> Lead:
        return self.west_lead if player == "W" else self.east_lead


_RULES = {rule.value: rule for rule in LeadRule}


@lru_cache(maxsize=4096)
def _lead(suit: int, card: Card, rule: str) -> Lead:
    # Leads repeat across a batch of deals; each is built once.
    return Lead(suit, card, _RULES[rule])


def _packed_leads(keys: Sequence[DealKey], codes: Sequence[int | None], table: SuitTable) -> tuple[Lead, Lead]:
    """West's and East's first leads: the suit by §10.4 on packed values, its lowest best lead."""
    (west_rule, west_suit), (east_rule, east_suit) = lead_suits_packed(codes)
    return (
        _lead(west_suit, table.leads_of_key(keys[west_suit])[0], west_rule),
        _lead(east_suit, table.leads_of_key(keys[east_suit])[1], east_rule),
    )


def evaluate(deals: Sequence[Deal], table: SuitTable) -> Evaluation:
    """Outcome and first leads of a multi-suit deal (the same as :func:`analyse`'s), from packed values."""
    keys = tuple(d.key for d in deals)
    if max(keys, default=1) == 1:  # key 1: the empty deal
        raise InvalidDealError("a deal needs at least one card")
    if len(keys) > MAX_SUMMANDS:
        raise InvalidDealError(f"at most {MAX_SUMMANDS} suits in a deal")
    codes = tuple(map(table.code_of_key, keys))
    live = [None if k == 1 else c for c, k in zip(codes, keys)]
    whole = sum(codes)
    return Evaluation(keys, codes, whole, Outcome(*rho_packed(whole)), *_packed_leads(keys, live, table))


class _WrittenSuit(NamedTuple):
    """What a batch needs of one suit as written, worked out the first time its text is met."""

    key: DealKey
    code: int
    west_lead: Card
    east_lead: Card
    west_card: str
    """West's lowest best lead in the input's notation."""
    east_card: str


_KEY, _CODE = itemgetter(0), itemgetter(1)  # of a _WrittenSuit, at C speed


class WrittenEvaluation(NamedTuple):
    """:func:`evaluate` of a deal as the user wrote it, with each first lead's card named in the input's
    notation."""

    parts: tuple[str, ...]
    """The suits' texts, as :func:`~.deals.multisuit_parts` splits the deal."""
    evaluation: Evaluation
    west_card: str
    east_card: str

    @property
    def suits(self) -> tuple[Suit, ...]:
        return tuple(map(parse_suit, self.parts))


class DealEvaluator:
    """:func:`evaluate` on deal texts, for batches.

    A batch repeats its suits (a 52-card pack deals 1,275 distinct ones) and its sums, so each distinct
    suit text is read, valued and its first leads named once — in rank notation without building a
    :class:`~.deals.Suit` (:func:`~.deals.two_hand_suit`) — and each distinct sum's outcome found once.
    ``DealEvaluator(table)(text)`` reads a deal as :func:`~.deals.parse_multisuit` does and raises its
    errors; a suit the table cannot value raises what the table raises.
    """

    def __init__(self, table: SuitTable) -> None:
        self.table = table
        self._suits: dict[str, _WrittenSuit] = {}
        self._outcomes: dict[int, Outcome] = {}

    def __call__(self, text: str) -> WrittenEvaluation:
        parts = multisuit_parts(text)  # a deal beyond the size bound is refused here, before any work
        known = self._suits
        try:
            written = [known[part] for part in parts]
        except KeyError:
            try:
                written = list(map(self._written, parts))
            except InvalidDealError:
                parse_multisuit(text)  # a part at fault: said as the parser says it, naming the suit
                raise
        if len(written) > MAX_SUMMANDS:
            raise InvalidDealError(f"at most {MAX_SUMMANDS} suits in a deal")
        codes = tuple(map(_CODE, written))
        whole = sum(codes)
        outcome = self._outcomes.get(whole)
        if outcome is None:
            outcome = self._outcomes[whole] = Outcome(*rho_packed(whole))
        (west_rule, west_suit), (east_rule, east_suit) = lead_suits_packed(codes)
        west, east = written[west_suit], written[east_suit]
        evaluation = Evaluation(
            tuple(map(_KEY, written)), codes, whole, outcome,
            _lead(west_suit, west.west_lead, west_rule), _lead(east_suit, east.east_lead, east_rule),
        )
        return WrittenEvaluation(tuple(parts), evaluation, west.west_card, east.east_card)

    def _written(self, part: str) -> _WrittenSuit:
        found = self._suits.get(part)
        if found is not None:
            return found
        mask, west_count, east_count, names = two_hand_suit(part)
        if names and west_count == east_count:
            key = mask | 1 << len(names)
            name_of = lambda card: names[card - 1]
        else:  # a suit of more than 64 cards, or an uneven one: parse_suit reads it or words what is wrong
            suit = parse_suit(part)
            key, name_of = suit.deal.key, suit.name_of
        west, east = self.table.leads_of_key(key)
        code = self.table.code_of_key(key)
        found = self._suits[part] = _WrittenSuit(key, code, west, east, name_of(west), name_of(east))
        return found


class BatchAnalysis(Immutable):
    """Outcomes and first leads of many deals, one entry per deal (``array.array``; ``numpy.asarray`` takes them).

    Lead cards are canonical cards of the suit led (1 = its lowest card), suits 0-based.
    """

    __slots__ = ("west_leads", "east_leads", "west_lead_suit", "west_lead_card", "east_lead_suit", "east_lead_card")
    west_leads: array
    """West's tricks with West on lead."""
    east_leads: array
    """West's tricks with East on lead."""
    west_lead_suit: array
    west_lead_card: array
    east_lead_suit: array
    east_lead_card: array

    def __init__(self) -> None:
        """Empty, to be filled a deal at a time."""
        for name, typecode in zip(self.__slots__, "hhbbbb"):
            object.__setattr__(self, name, array(typecode))

    def __len__(self) -> int:
        return len(self.west_leads)


def analyse_batch(rows: Iterable[Sequence[DealKey]], table: SuitTable | None = None) -> BatchAnalysis:
    """Theorem 9.1 and §10.4 for many deals: each row the integer keys (docs/spec.md §2) of one deal's suits.

    A key of 1 (the empty deal) pads a row; a 2-D NumPy array of keys works as rows.
    Suits beyond the preloaded table need a ``table`` with a solver.
    """
    table = table if table is not None else SuitTable()
    out = BatchAnalysis()
    code_of = table.code_of_key
    for row in rows:
        tolist = getattr(row, "tolist", None)  # a NumPy row, read as Python ints at once
        keys = tolist() if tolist is not None else list(row)
        if len(keys) > MAX_SUMMANDS:
            raise InvalidDealError(f"at most {MAX_SUMMANDS} suits in a deal")
        codes = [None if k == 1 else code_of(k) for k in keys]
        live = [c for c in codes if c is not None]
        if not live:
            raise InvalidDealError("a deal needs at least one card")
        west, east = rho_packed(sum(live))
        out.west_leads.append(west)
        out.east_leads.append(east)
        west_lead, east_lead = _packed_leads(keys, codes, table)
        out.west_lead_suit.append(west_lead.suit)
        out.west_lead_card.append(west_lead.card)
        out.east_lead_suit.append(east_lead.suit)
        out.east_lead_card.append(east_lead.card)
    return out
