"""Labeled values and their order (§7.1 of the multi-suit paper).

A labeled value (P, x) is a deal of value x with player P on lead.  The
ordering encodes the hypothesis that having the lead is an advantage unless
the value is a number:

* (P, x) < (Q, y) if x < y;
* (E, x) < (W, x) if x is not a number;
* (E, x) > (W, x) if x is a number.

Values are only partially ordered, so labeled values are too; the labeled
values met in single-suit deals (which never carry ±ε₀) are always comparable.
"""

from __future__ import annotations

from typing import Callable, Iterable, Literal

from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.immutable import Immutable
from whist_catalogue.theory.values import Value

__all__ = ["Player", "LabeledValue", "WEST", "EAST", "maximum", "minimum", "labeled_matrix"]

Player = Literal["W", "E"]
WEST: Player = "W"
EAST: Player = "E"


class LabeledValue(Immutable):
    """(P, x): a state of value x with player P on lead."""

    __slots__ = ("player", "value")
    player: Player
    """Who has the lead, ``"W"`` or ``"E"``."""
    value: Value
    """The value of the state."""

    def __init__(self, player: Player, value: Value) -> None:
        if player not in ("W", "E"):
            raise ValueError(f"player must be 'W' or 'E', got {player!r}")
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "value", value)

    def __lt__(self, other: LabeledValue) -> bool:
        if not isinstance(other, LabeledValue):
            return NotImplemented
        if self.value < other.value:
            return True
        if self.value != other.value or self.player == other.player:
            return False
        # Same value, different leader: the lead helps unless the value is a number.
        if self.value.is_number:
            return self.player == "W"
        return self.player == "E"

    def __le__(self, other: LabeledValue) -> bool:
        return self == other or self < other

    def __gt__(self, other: LabeledValue) -> bool:
        return other < self

    def __ge__(self, other: LabeledValue) -> bool:
        return other <= self

    def __str__(self) -> str:
        return f"({self.player}, {self.value})"

    def __repr__(self) -> str:
        return f"LabeledValue({self.player!r}, {self.value!r})"


def maximum(items: Iterable[LabeledValue]) -> LabeledValue:
    """The greatest labeled value; raises if two candidates are incomparable."""
    return _extreme(items, lambda a, b: a < b)


def minimum(items: Iterable[LabeledValue]) -> LabeledValue:
    """The least labeled value; raises if two candidates are incomparable."""
    return _extreme(items, lambda a, b: b < a)


def _extreme(items: Iterable[LabeledValue], below: Callable[[LabeledValue, LabeledValue], bool]) -> LabeledValue:
    """The item every other is ``below`` or equal to."""
    items = list(items)
    best = items[0]
    for item in items[1:]:
        if below(best, item):
            best = item
        elif not (item == best or below(item, best)):
            raise ValueError(f"incomparable labeled values {best} and {item}")
    return best


def labeled_matrix(deal: Deal, value_of: Callable[[Deal], Value]) -> tuple[tuple[LabeledValue, ...], ...]:
    """α_ij = (P, val(D_ij)) of §7.2 with values from ``value_of``; row i is W_i, column j is E_j."""
    rows = []
    for w in deal.west_cards:
        row = []
        for e in deal.east_cards:
            # D_ij: West plays W_i = w, East E_j = e; the higher card wins the trick and the lead.
            west_trick = int(w > e)
            row.append(LabeledValue(WEST if west_trick else EAST, value_of(deal.without(w, e)) + west_trick))
        rows.append(tuple(row))
    return tuple(rows)
