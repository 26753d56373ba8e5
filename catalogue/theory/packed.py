"""Values of V packed into one integer, so that a sum in V is an integer sum (multi-suit paper §6).

A value q + x is packed as

    code = q·2^24 · 2^22  +  k · 2^12  +  w · 2^6  +  e

with k the subscript of x (West's stoppers minus East's, §6.1.3), and w and e
the number of West's and East's *exits* among the summands (1 or 0 for one
value).  Adding codes adds the numbers, adds the stoppers and counts the exits;
by §6.1.4 the infinitesimal of a sum is ε_k when the stoppers do not cancel
(k ≠ 0), and otherwise is fixed by which exits exist — 0, ε₀, −ε₀ or ±ε₀ — so
the counts carry exactly what the union of exits of :class:`~.values.Infinitesimal`
carries.  The fields are signed two's-complement inside a Python integer, exact
for up to 63 summands with |k| < 512; the number is exact for denominators up
to 2^24 (every single-suit value with n ≤ 25, as in the engine's encoding).

On packed values: ρ (§6.5), the sign of the infinitesimal part, the complexity
of §6.4 and the suit chosen by the lead rule of §10.4 — each the same function
of the value as in :mod:`.values` and :mod:`.multisuit`, without building a
:class:`~fractions.Fraction`; the tests check them against those modules.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Sequence

from whist_catalogue.constants import SCALE, SCALE_BITS
from whist_catalogue.errors import InvalidValueError
from whist_catalogue.theory.values import Complexity, Exits, Infinitesimal, Value

__all__ = [
    "MAX_SUMMANDS",
    "scaled",
    "pack",
    "unpack",
    "fields_packed",
    "rho_packed",
    "rho_fields",
    "sign_packed",
    "complexity_packed",
    "lead_suits_packed",
]

_HALF = SCALE >> 1
_FRACTION_MASK = SCALE - 1
_NUMBER_SHIFT = 22
_INDEX_SHIFT = 12
_INDEX_SPAN = 1 << (_NUMBER_SHIFT - _INDEX_SHIFT)
_EXIT_SHIFT = 6
_COUNT_MASK = (1 << _EXIT_SHIFT) - 1
MAX_SUMMANDS = _COUNT_MASK
"""A sum of at most this many packed values stays exact (its exit counts fit their fields)."""

# Lead rule clauses as in :class:`~.multisuit.LeadRule`: "i", "ii", "iii".
ATTACK_EXIT, EXIT, COMPLEX_NUMBER = "i", "ii", "iii"


def scaled(value: Value) -> int:
    """The number part q of a value as the integer q·2^24 (:data:`~whist_catalogue.constants.SCALE_BITS`)."""
    number = value.number * SCALE
    if number.denominator != 1:
        raise InvalidValueError(f"{value} has a denominator beyond 2^{SCALE_BITS}")
    return number.numerator


def pack(value: Value) -> int:
    """The code of a value of V (any value, ±ε₀ included)."""
    number = scaled(value)
    x = value.infinitesimal
    if not -_INDEX_SPAN // 2 < x.index < _INDEX_SPAN // 2:
        raise InvalidValueError(f"{value} has too many stoppers to pack")
    west = 1 if x.exits & Exits.WEST else 0
    east = 1 if x.exits & Exits.EAST else 0
    return (number << _NUMBER_SHIFT) + (x.index << _INDEX_SHIFT) + (west << _EXIT_SHIFT) + east


def fields_packed(code: int) -> tuple[int, int, int, int]:
    """(number·2^24, stoppers k, West's exits, East's exits) of a code.  Integer arithmetic only, so that Numba
    compiles it as it is for the two-hand search's leaves (:mod:`whist_catalogue.twohand.leaves`)."""
    east = code & _COUNT_MASK
    west = (code >> _EXIT_SHIFT) & _COUNT_MASK
    index = (code >> _INDEX_SHIFT) & (_INDEX_SPAN - 1)
    if index >= _INDEX_SPAN // 2:
        index -= _INDEX_SPAN
    number = (code - (index << _INDEX_SHIFT) - (west << _EXIT_SHIFT) - east) >> _NUMBER_SHIFT
    return number, index, west, east


def unpack(code: int) -> Value:
    """The value of a code (of one value or of a sum of codes)."""
    number, index, west, east = fields_packed(code)
    if index:
        x = Infinitesimal.epsilon(index)
    else:
        x = Infinitesimal(0, Exits((Exits.WEST if west else 0) | (Exits.EAST if east else 0)))
    return Value(Fraction(number, SCALE), x)


def sign_packed(code: int) -> int:
    """The sign of the infinitesimal part: +1 (positive), −1 (negative), 0 (for 0 and ±ε₀)."""
    _, index, west, east = fields_packed(code)
    if index:
        return 1 if index > 0 else -1
    return (1 if west else 0) - (1 if east else 0)


def rho_packed(code: int) -> tuple[int, int]:
    """ρ (§6.5): West's tricks with West, and with East, on lead."""
    number, index, west, east = fields_packed(code)
    return rho_fields(number, index, west, east)


def rho_fields(number: int, index: int, west: int, east: int) -> tuple[int, int]:
    """:func:`rho_packed` of a code's fields (:func:`fields_packed`): integer arithmetic only, so that Numba compiles
    it as it is for the two-hand search's leaves — one ρ for the theory and the search."""
    below = number >> SCALE_BITS
    part = number & _FRACTION_MASK
    if part < _HALF:
        return below, below
    if part > _HALF:
        return below + 1, below + 1
    # A tie a < q < b: the infinitesimal decides (§6.5).
    if index:
        return (below + 1, below + 1) if index > 0 else (below, below)
    if west and east:
        return below + 1, below
    if west:
        return below + 1, below + 1
    if east:
        return below, below
    return below, below + 1


def _denominator_bits(number: int) -> int:
    """log2 of the reduced denominator of number / 2^24."""
    if number & _FRACTION_MASK == 0:
        return 0
    return SCALE_BITS - ((number & -number).bit_length() - 1)


def complexity_packed(code: int) -> Complexity:
    """The complexity class of §6.4 (as :attr:`~.values.Value.complexity`)."""
    number, index, west, east = fields_packed(code)
    if index:
        return Complexity(1, abs(index))
    if west and east:
        return Complexity(2, 0)
    if west or east:
        return Complexity(1, 0)
    bits = _denominator_bits(number)
    return Complexity(0, 0 if bits <= 1 else bits - 1)


@lru_cache(maxsize=65536)
def _suit_facts(code: int) -> tuple[int, Complexity, int]:
    """(sign, complexity, log2 denominator) of one suit's code: a batch meets the same few values again and again."""
    return sign_packed(code), complexity_packed(code), _denominator_bits(fields_packed(code)[0])


def lead_suits_packed(codes: Sequence[int | None]) -> tuple[tuple[str, int], tuple[str, int]]:
    """The clause of §10.4 and the suit it gives West, and East (as :func:`~.multisuit.choose_lead`), the deal's
    suits read in one pass (a batch's hot loop): ``codes`` holds each suit's code, None for an empty suit; among
    the suits the clause allows the most complex is taken, the first one on a tie."""
    positive = negative = None  # (complexity, suit) of the most complex so far; the first one on a tie
    numbers = []
    for suit, code in enumerate(codes):
        if code is None:
            continue
        sign, complexity, bits = _suit_facts(code)
        if sign > 0:
            if positive is None or complexity > positive[0]:
                positive = complexity, suit
        elif sign < 0:
            if negative is None or complexity > negative[0]:
                negative = complexity, suit
        else:
            numbers.append((complexity, suit, bits))
    if negative is not None and positive is not None:
        return (ATTACK_EXIT, negative[1]), (ATTACK_EXIT, positive[1])
    if negative is not None:
        return (ATTACK_EXIT, negative[1]), (EXIT, negative[1])
    if positive is not None:
        return (EXIT, positive[1]), (ATTACK_EXIT, positive[1])
    if not numbers:
        raise ValueError("no cards left to lead")
    # Every suit a number: the same suits qualify for either leader.
    whole = _denominator_bits(fields_packed(sum(code for code in codes if code is not None))[0])
    chosen = None
    for complexity, suit, bits in numbers:
        if bits >= whole and (chosen is None or complexity > chosen[0]):
            chosen = complexity, suit
    assert chosen is not None  # a sum's denominator is at most its summands' greatest
    return (COMPLEX_NUMBER, chosen[1]), (COMPLEX_NUMBER, chosen[1])
