"""A two-person deal being played out card by card, with optimal moves at every point.

The interactive counterpart of :func:`~.solver.solve`: a user plays cards for either side of any deal
(docs/spec.md §2: uneven suits, voids, a trump suit), asks for the best card of the side to move, and takes
moves back; the desktop app and tests drive it.  Each position is answered where the package answers it
(:mod:`.solver`'s two sources):

* **the theory** — every suit even (nobody can ever ruff or discard, so trumps change nothing): every legal
  card's exact result by one trick of look-ahead on Theorem 9.1 of the multi-suit paper
  (:mod:`whist_catalogue.theory.moves`), and the theory's moves — a lead by the rule of §10.4, a best reply in
  the suit (docs/spec.md §3) — kept where they are optimal for the whole deal: a best reply *within the suit*
  is optimal after an optimal lead (Lemmas 9.6–9.9) but not always after another one — in
  ``7/6, JT5/K83, 3/A`` with West leading the T of the second suit, the 3 is East's best reply in that suit,
  yet only the K holds West to 2 tricks.  So the theory's moves are its suit-by-suit choices that are optimal
  for the whole deal, or, when there is none, the cards that are.
* **the search** — any other position (an uneven suit): every legal card's result by the exact search
  (:func:`~.solver.solve` of the position), and as the one best card the first in the order written.  A deal
  leaves the search for the theory as soon as its suits are even again.

Either way the moves stay optimal for the whole deal after either side's mistakes, since every position is
answered afresh (and remembered: stepping back and forth asks nothing twice).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Sequence

from whist_catalogue.errors import IllegalMoveError
from whist_catalogue.theory.deals import Suit, TwoHandDeal
from whist_catalogue.theory.labeled import Player
from whist_catalogue.theory.moves import CardResult, suit_card_results
from whist_catalogue.theory.multisuit import LeadRule, Trick, qualifying_suits
from whist_catalogue.theory.small_suits import SuitTable
from whist_catalogue.theory.solution import Solver

__all__ = ["Move", "Play", "PlayRecord", "PlayHistory"]

Source = Literal["theory", "search"]


@dataclass(frozen=True, slots=True)
class Move:
    """A card: the suit's index in the deal and the card's real rank in that suit."""

    suit: int
    rank: int


@dataclass
class Play:
    """The state of a deal in play.  Suits keep their indices; emptied suits stay, empty."""

    initial: tuple[Suit, ...]
    first_leader: Player
    solver: Solver
    """Values the suits of the theory's positions (the catalogue, the engine)."""
    trump: int | None = None
    """The trump suit's index, None for no trumps."""
    suits: list[Suit] = field(init=False)
    leader: Player = field(init=False)
    led: Move | None = field(init=False, default=None)
    tricks: list[Trick] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.initial = tuple(self.initial)
        TwoHandDeal(self.initial, self.trump)  # the hands' sizes and the trump suit checked once, here
        self.suits = list(self.initial)
        self.leader = self.first_leader
        self._moves: list[Move] = []
        self._table = SuitTable(self.solver)
        self._results: dict[tuple, dict[Move, int]] = {}

    @classmethod
    def start(cls, suits: Sequence[Suit], leader: Player, solver: Solver, trump: int | None = None) -> Play:
        return cls(tuple(suits), leader, solver, trump)

    # -- where we are ---------------------------------------------------------------------
    @property
    def to_play(self) -> Player:
        if self.led is None:
            return self.leader
        return "E" if self.leader == "W" else "W"

    @property
    def finished(self) -> bool:
        return not any(s.west or s.east for s in self.suits)

    @property
    def west_tricks(self) -> int:
        return sum(t.winner == "W" for t in self.tricks)

    @property
    def east_tricks(self) -> int:
        return len(self.tricks) - self.west_tricks

    @property
    def source(self) -> Source:
        """Who answers the position: ``"theory"`` when every suit is even (Theorem 9.1), else ``"search"``."""
        return "theory" if all(s.symmetric for s in self.suits) else "search"

    def hand(self, player: Player, suit: int) -> tuple[int, ...]:
        s = self.suits[suit]
        cards = s.west if player == "W" else s.east
        if self.led is not None and self.led.suit == suit and player == self.leader:
            cards = tuple(c for c in cards if c != self.led.rank)
        return cards

    def expected_west_tricks(self) -> int:
        """West's final tricks if both sides play optimally from here."""
        results = self.card_results()
        if not results:
            return self.west_tricks
        return (max if self.to_play == "W" else min)(results.values())

    # -- moves ----------------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        player = self.to_play
        if self.led is not None and self.hand(player, self.led.suit):
            return [Move(self.led.suit, r) for r in self.hand(player, self.led.suit)]
        return [Move(i, r) for i in range(len(self.suits)) for r in self.hand(player, i)]

    def lead_rule(self) -> tuple[LeadRule, tuple[int, ...]] | None:
        """The clause of §10.4 that applies now and the suits it allows (None mid-trick, or outside the theory)."""
        if self.led is not None or self.finished or self.source != "theory":
            return None
        values = [self.solver.value(s.deal) if s.n else None for s in self.suits]
        return qualifying_suits(values, self.leader)

    def card_results(self) -> dict[Move, int]:
        """Each legal card with West's tricks at the end of the deal when it is played and both sides
        then play optimally (tricks already taken included)."""
        if self.finished:
            return {}
        key = (tuple(self.suits), self.leader, self.led, self.west_tricks)  # real ranks: moves name them
        found = self._results.get(key)
        if found is None:
            led = (self.led.suit, self.led.rank) if self.led is not None else None
            if self.source == "theory":
                results = suit_card_results(self.suits, self.leader, self._table, led)
            else:
                results = self._searched(led)
            found = self._results[key] = {Move(r.suit, r.card): self.west_tricks + r.west_tricks for r in results}
        return found

    def _searched(self, led: tuple[int, int] | None) -> list[CardResult]:
        """The exact search's results for the position; the search knows only the suits still held, so the
        emptied ones are left out and the indices mapped back."""
        from whist_catalogue.twohand.position import Position
        from whist_catalogue.twohand.solver import solve  # loads Numba: only a deal outside the theory needs it

        live = [i for i, s in enumerate(self.suits) if s.west or s.east]
        trump = live.index(self.trump) if self.trump in live else None
        deal = TwoHandDeal(tuple(self.suits[i] for i in live), trump)
        at = (live.index(led[0]), led[1]) if led is not None else None
        (answer,) = solve(Position(deal, self.leader, at), line=False).answers
        return [CardResult(live[r.suit], r.card, r.west_tricks) for r in answer.moves]

    def best_moves(self) -> list[Move]:
        """Every legal card that is optimal for the whole deal (the most West tricks for West, the fewest for East)."""
        best = self.expected_west_tricks()
        return [m for m, k in self.card_results().items() if k == best]

    def cost(self, move: Move) -> int:
        """Tricks the player to move gives away by playing ``move`` rather than a best card (0 for a best card)."""
        results = self.card_results()
        if move not in results:
            raise IllegalMoveError(self._why_illegal(move))
        return abs(self.expected_west_tricks() - results[move])

    def optimal_moves(self) -> list[Move]:
        """The theory's moves, optimal for the whole deal (see the module docstring); outside the theory, every
        best card.

        At a lead, best leads of the suits the §10.4 rule allows; in reply, best
        replies in the suit led — each kept when it is optimal for the whole deal;
        if none is, every card that is.
        """
        best = set(self.best_moves())
        kept = [m for m in self._suit_moves() if m in best]
        return kept or sorted(best, key=lambda m: (m.suit, m.rank))

    def _suit_moves(self) -> list[Move]:
        """Best leads of the suits the §10.4 rule allows, or best replies in the suit led (each suit on its own);
        none outside the theory."""
        if self.finished or self.source != "theory":
            return []
        if self.led is None:
            rule = self.lead_rule()
            assert rule is not None
            out = []
            for i in rule[1]:
                suit = self.suits[i]
                out += [Move(i, suit.rank_of(c)) for c in self.solver.solve(suit.deal).leads(self.leader)]
            return out
        suit = self.suits[self.led.suit]
        solution = self.solver.solve(suit.deal)
        replies = solution.replies(self.leader, suit.card_of(self.led.rank))
        return [Move(self.led.suit, suit.rank_of(c)) for c in replies]

    def recommended(self) -> Move:
        """One optimal move: the most complex qualifying suit's lowest best lead, or the lowest best reply; outside
        the theory the first best card in the order written, suit by suit, lowest first (the command line's first
        lead of a searched deal, :func:`~.batch.first_best`)."""
        moves = self.optimal_moves()
        if not moves:
            raise IllegalMoveError("the deal is over")
        if self.led is None and self.source == "theory":
            values = {m.suit: self.solver.value(self.suits[m.suit].deal) for m in moves}
            best_suit = max(values, key=lambda i: (values[i].complexity, -i))
            return min((m for m in moves if m.suit == best_suit), key=lambda m: m.rank)
        return min(moves, key=lambda m: (m.suit, m.rank))

    def play(self, move: Move) -> Trick | None:
        """Play a card for the player to move; returns the trick when it completes it."""
        if move not in self.legal_moves():
            raise IllegalMoveError(self._why_illegal(move))
        self._moves.append(move)
        return self._apply(move)

    def play_recommended(self) -> tuple[Move, Trick | None]:
        move = self.recommended()
        return move, self.play(move)

    def copy(self) -> Play:
        """An independent copy of this position, with the same history (so it can be undone too)."""
        other = Play(self.initial, self.first_leader, self.solver, self.trump)
        other._table, other._results = self._table, self._results  # memoised answers stay true
        for m in self._moves:
            other.play(m)
        return other

    def line_to_end(self) -> list[Trick]:
        """The tricks still to come, the current one included, when both sides play :meth:`recommended`."""
        rest = self.copy()
        done = len(rest.tricks)
        while not rest.finished:
            rest.play_recommended()
        return rest.tricks[done:]

    @property
    def moves(self) -> tuple[Move, ...]:
        """The cards played so far, in order."""
        return tuple(self._moves)

    def undo(self) -> Move:
        """Take back the last card played."""
        if not self._moves:
            raise IllegalMoveError("nothing to undo")
        undone = self._moves[-1]
        self.rewind(len(self._moves) - 1)
        return undone

    def rewind(self, count: int) -> None:
        """Go back to the position after the first ``count`` cards played."""
        if not 0 <= count <= len(self._moves):
            raise IllegalMoveError(f"cannot go back to card {count}: {len(self._moves)} played")
        replay = self._moves[:count]
        # Replaying from the start keeps the state a function of the moves alone.
        self.suits, self.leader, self.led, self.tricks = list(self.initial), self.first_leader, None, []
        self._moves = []
        for m in replay:
            self._moves.append(m)
            self._apply(m)

    def _apply(self, move: Move) -> Trick | None:
        if self.led is None:
            self.led = move
            return None
        led = self.led
        if move.suit == led.suit:
            trick = Trick(self.leader, led.suit, led.rank, move.rank)
        else:  # a void in the suit led: a ruff wins the trick, a discard never does
            trick = Trick(self.leader, led.suit, led.rank, move.rank, move.suit, move.suit == self.trump)
        self._take(self.leader, led)
        self._take(self.to_play, move)
        self.tricks.append(trick)
        self.leader = trick.winner
        self.led = None
        return trick

    def _take(self, player: Player, move: Move) -> None:
        """``player``'s card ``move`` leaves the hand."""
        suit = self.suits[move.suit]
        west = tuple(r for r in suit.west if r != move.rank) if player == "W" else suit.west
        east = tuple(r for r in suit.east if r != move.rank) if player == "E" else suit.east
        self.suits[move.suit] = Suit(west, east, suit.notation)

    def _why_illegal(self, move: Move) -> str:
        player = "West" if self.to_play == "W" else "East"
        if self.finished:
            return "the deal is over"
        if not 0 <= move.suit < len(self.suits):
            return f"there is no suit {move.suit + 1}"
        suit = self.suits[move.suit]
        name = suit.card_name(move.rank)
        if move.rank not in self.hand(self.to_play, move.suit):
            return f"{player} does not hold {name} in suit {move.suit + 1}"
        return f"{player} must follow suit {self.led.suit + 1}" if self.led else f"{name} cannot be played now"


@dataclass(frozen=True, slots=True)
class PlayRecord:
    """A card of a line of play: who played it, what it cost them and the trick it completed."""

    move: Move
    player: Player
    cost: int
    """Tricks the player gave away with this card against a best card from that position (0: a best card)."""
    trick: Trick | None
    """The trick this card completed (None for a lead)."""


class PlayHistory:
    """A deal's play kept as a move list: every card of the line played, and the position shown.

    :attr:`play` stands after the first :attr:`cursor` cards of :attr:`line`.
    Stepping back keeps the cards after the cursor, so one can step forward
    through them again; playing another card there drops them (a chess
    program's move list does the same).  Each trick takes two cards, so the
    position after trick t (counted from 1) is the one after card 2t.
    """

    def __init__(self, play: Play) -> None:
        self.play = play
        self.line: list[PlayRecord] = []
        if play.moves:
            raise IllegalMoveError("a history starts from the first card of a deal")

    @property
    def cursor(self) -> int:
        """How many cards of the line the position shown has played."""
        return len(self.play.moves)

    @property
    def played(self) -> list[PlayRecord]:
        """The cards played up to the position shown."""
        return self.line[: self.cursor]

    @property
    def at_end(self) -> bool:
        return self.cursor == len(self.line)

    @property
    def tricks(self) -> list[Trick]:
        """Every trick the line completes, those after the position shown included."""
        return [c.trick for c in self.line if c.trick is not None]

    def play_card(self, move: Move) -> PlayRecord:
        """Play ``move`` at the position shown: the line's next card (the rest of the line stays) or a new
        one (the rest of the line goes)."""
        play = self.play
        player, cost = play.to_play, play.cost(move)  # cost() rejects an illegal card
        k = self.cursor
        card = PlayRecord(move, player, cost, play.play(move))
        if k < len(self.line) and self.line[k] == card:
            return card
        del self.line[k:]
        self.line.append(card)
        return card

    def go_to(self, count: int) -> None:
        """Show the position after the first ``count`` cards of the line (clamped to the line)."""
        count = max(0, min(count, len(self.line)))
        if count < self.cursor:
            self.play.rewind(count)
        for card in self.line[self.cursor : count]:
            self.play.play(card.move)

    def back(self) -> bool:
        """One card back; False at the start."""
        if self.cursor == 0:
            return False
        self.go_to(self.cursor - 1)
        return True

    def forward(self) -> bool:
        """One card forward along the line; False at its end."""
        if self.at_end:
            return False
        self.go_to(self.cursor + 1)
        return True

    def go_to_trick(self, t: int) -> None:
        """The position right after trick ``t`` (1 = the first trick) of the line."""
        self.go_to(2 * t)
