"""The semigroup V of values: dyadic numbers plus infinitesimals.

Implements §6 of Wästlund, *On two-person symmetric multi-suit whist*
(``papers/symmetric-multi-suit-whist.md``):

* §6.1 the semigroup ℰ of infinitesimals {0, ε₀, −ε₀, ±ε₀, ε_k (k ≠ 0)}, its
  addition (§6.1.4), negation (§6.1.5) and partial order (§6.1.6);
* §6.2–6.3 values q + x with q a dyadic number, their addition, negation and
  order (§6.3.1) — a *partial* order: 0 and ±ε₀ are incomparable;
* §6.4 simplicity (complexity classes, labelled by ordinals below ω·2+1);
* §6.5 and §8.4 the rounding functions ρ = ρ_Z and ρ′ = ρ_A with A the numbers
  of fractional part 1/4 or 3/4;

and the text and JSON forms of docs/spec.md §3.

The infinitesimals are modelled the way §4 motivates them: an *exit* for one or
both players, protected by a signed number of *stoppers*.  ε_k is West's exit
with k stoppers, ε₋ₖ = −ε_k East's; with no stoppers the exits of both sides
can coexist (±ε₀).  Adding stoppers and uniting exits gives exactly the table
of §6.1.4.
"""

from __future__ import annotations

import enum
import re
from fractions import Fraction
from typing import Iterable, NamedTuple

from whist_catalogue.errors import InvalidValueError
from whist_catalogue.theory.immutable import Immutable, notebook_html

__all__ = [
    "Exits",
    "Infinitesimal",
    "Value",
    "Complexity",
    "Outcome",
    "RefinedOutcome",
    "ZERO_INF",
    "EPSILON0",
    "rho",
    "rho_refined",
    "rho_set",
    "is_dyadic",
    "total",
]


def is_dyadic(q: Fraction) -> bool:
    """Whether q has a power of two as its (reduced) denominator (§6.2)."""
    d = q.denominator
    return d & (d - 1) == 0


class Exits(enum.IntFlag):
    """Which players hold an unprotected exit (§6.1.1)."""

    NONE = 0
    WEST = 1
    EAST = 2
    BOTH = 3


_SUBSCRIPTS = str.maketrans("0123456789-", "₀₁₂₃₄₅₆₇₈₉₋")
_FROM_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉₋", "0123456789-")


class Infinitesimal(Immutable):
    """An element of the semigroup ℰ of infinitesimals (§6.1.3).

    Use the constructors :meth:`epsilon`, :data:`ZERO_INF`, :data:`EPSILON0`,
    ``-EPSILON0`` and :meth:`fuzzy` rather than the raw fields.
    """

    __slots__ = ("index", "exits")
    index: int
    """The subscript k of ε_k: West's stoppers minus East's."""
    exits: Exits
    """Who holds an exit. Fixed by the sign of ``index`` when it is nonzero."""

    def __init__(self, index: int = 0, exits: Exits = Exits.NONE) -> None:
        if index > 0 and exits != Exits.WEST or index < 0 and exits != Exits.EAST:
            raise ValueError(f"ε_{index} is an exit for one side only, got {exits!r}")
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "exits", exits)

    # -- constructors ------------------------------------------------------------------
    @classmethod
    def epsilon(cls, k: int) -> Infinitesimal:
        """ε_k: ε₀ for k = 0, West's exit with k stoppers, or East's with −k for k < 0."""
        if k > 0 or k == 0:
            return cls(k, Exits.WEST)
        return cls(k, Exits.EAST)

    @classmethod
    def fuzzy(cls) -> Infinitesimal:
        """±ε₀: both players hold an unprotected exit."""
        return cls(0, Exits.BOTH)

    # -- classification -----------------------------------------------------------------
    @property
    def is_zero(self) -> bool:
        return self.exits == Exits.NONE

    @property
    def is_fuzzy(self) -> bool:
        """Whether this is ±ε₀, the one infinitesimal that is incomparable with 0."""
        return self.exits == Exits.BOTH

    @property
    def rank(self) -> int:
        """Position in the order of §6.1.6; 0 and ±ε₀ share rank 0 and are incomparable.

        ... < ε₋₂ < ε₋₁ < −ε₀ < {0, ±ε₀} < ε₀ < ε₁ < ε₂ < ...
        """
        if self.index > 0:
            return self.index + 1
        if self.index < 0:
            return self.index - 1
        return {Exits.NONE: 0, Exits.BOTH: 0, Exits.WEST: 1, Exits.EAST: -1}[self.exits]

    @property
    def sign(self) -> int:
        """+1 for a positive infinitesimal (West's exit), −1 for a negative one, 0 for 0 and ±ε₀."""
        r = self.rank
        return (r > 0) - (r < 0)

    # -- algebra ------------------------------------------------------------------------
    def __add__(self, other: Infinitesimal) -> Infinitesimal:
        """§6.1.4: stoppers add like integers, exits of the same sign absorb each other."""
        if not isinstance(other, Infinitesimal):
            return NotImplemented
        index = self.index + other.index
        if index != 0:
            return Infinitesimal.epsilon(index)
        return Infinitesimal(0, self.exits | other.exits)

    def __neg__(self) -> Infinitesimal:
        """§6.1.5: an automorphism, not an additive inverse."""
        swapped = Exits((self.exits & Exits.WEST) << 1 | (self.exits & Exits.EAST) >> 1)
        return Infinitesimal(-self.index, swapped)

    def __le__(self, other: Infinitesimal) -> bool:
        return self == other or self.rank < other.rank

    def __lt__(self, other: Infinitesimal) -> bool:
        return self.rank < other.rank

    def __ge__(self, other: Infinitesimal) -> bool:
        return other <= self

    def __gt__(self, other: Infinitesimal) -> bool:
        return other < self

    # -- simplicity ---------------------------------------------------------------------
    @property
    def complexity(self) -> int:
        """|k| for ε_k (both ±ε_k have the same complexity, §6.4 (iv))."""
        return abs(self.index)

    # -- text ---------------------------------------------------------------------------
    @property
    def code(self) -> str:
        """docs/spec.md §3 code: ``0``, ``e0``, ``-e0``, ``+-e0``, ``e<k>``, ``-e<k>``."""
        if self.exits == Exits.NONE:
            return "0"
        if self.exits == Exits.BOTH:
            return "+-e0"
        if self.exits == Exits.EAST:
            return f"-e{-self.index}"
        return f"e{self.index}"

    @classmethod
    def from_code(cls, code: str) -> Infinitesimal:
        """Inverse of :attr:`code`; also accepts ``ε₂``, ``−ε₀``, ``±ε0`` and ``e-2``."""
        text = code.strip().replace(" ", "").replace("−", "-").replace("ε", "e").translate(_FROM_SUBSCRIPTS)
        if text == "0":
            return ZERO_INF
        if text in ("+-e0", "±e0", "+-e", "±e"):
            return cls.fuzzy()
        m = re.fullmatch(r"([+-]?)e(-?\d+)?", text)
        if not m:
            raise InvalidValueError(f"not an infinitesimal: {code!r}")
        x = cls.epsilon(int(m.group(2) or 0))
        return -x if m.group(1) == "-" else x

    def text(self) -> str:
        """The paper's typography: ``ε₀``, ``−ε₂``, ``±ε₀`` (empty for 0)."""
        if self.exits == Exits.NONE:
            return ""
        if self.exits == Exits.BOTH:
            return "±ε₀"
        if self.exits == Exits.EAST:
            return "−ε" + str(-self.index).translate(_SUBSCRIPTS)
        return "ε" + str(self.index).translate(_SUBSCRIPTS)

    def __str__(self) -> str:
        return self.text() or "0"

    def __repr__(self) -> str:
        return f"Infinitesimal.from_code({self.code!r})"


ZERO_INF = Infinitesimal()
"""The infinitesimal 0."""
EPSILON0 = Infinitesimal.epsilon(0)
"""ε₀, the value of an unprotected exit for West, e.g. [K, A] (Lemma 10.1)."""


class Complexity(NamedTuple):
    """A complexity class of §6.4 as an ordinal ω·omegas + finite, compared as a tuple."""

    omegas: int
    finite: int

    def __str__(self) -> str:
        if self.omegas == 0:
            return str(self.finite)
        head = "ω" if self.omegas == 1 else f"ω·{self.omegas}"
        return head if self.finite == 0 else f"{head}+{self.finite}"


class Outcome(NamedTuple):
    """χ(D): tricks West takes under optimal play with West and with East on lead (§5.1)."""

    west_leads: int
    east_leads: int


class RefinedOutcome(NamedTuple):
    """χ′(D) of refined whist (§8.4): West's tricks, each a number of fractional part 1/4 or 3/4."""

    west_leads: Fraction
    east_leads: Fraction


_NUMBER_RE = re.compile(r"[+-]?\d+(?:/\d+)?")


class Value(Immutable):
    """An element q + x of V = 𝒬 ⊕ ℰ (§6.3): a dyadic number plus an infinitesimal.

    Ordered by §6.3.1, which is only a partial order: ``Value(0) <= Value(0, ±ε₀)``
    and its converse are both False.
    """

    __slots__ = ("number", "infinitesimal")
    number: Fraction
    """The numerical part q, a dyadic rational."""
    infinitesimal: Infinitesimal
    """The infinitesimal part x."""

    def __init__(self, number: Fraction | int | str = 0, infinitesimal: Infinitesimal | str = ZERO_INF) -> None:
        q = Fraction(number)
        if not is_dyadic(q):
            raise InvalidValueError(f"not a dyadic number: {number!r}")
        if isinstance(infinitesimal, str):
            infinitesimal = Infinitesimal.from_code(infinitesimal)
        object.__setattr__(self, "number", q)
        object.__setattr__(self, "infinitesimal", infinitesimal)

    # -- classification -----------------------------------------------------------------
    @property
    def is_number(self) -> bool:
        """Whether the infinitesimal part is 0 (the value is in 𝒬)."""
        return self.infinitesimal.is_zero

    @property
    def denominator(self) -> int:
        """The reduced denominator of the numerical part, a power of two."""
        return self.number.denominator

    @property
    def complexity(self) -> Complexity:
        """The complexity class of §6.4."""
        x = self.infinitesimal
        if x.is_fuzzy:
            return Complexity(2, 0)
        if not x.is_zero:
            return Complexity(1, x.complexity)
        d = self.number.denominator
        return Complexity(0, 0 if d <= 2 else d.bit_length() - 2)

    def is_simpler_than(self, other: Value) -> bool:
        return self.complexity < other.complexity

    # -- algebra ------------------------------------------------------------------------
    def __add__(self, other: Value | int | Fraction) -> Value:
        if isinstance(other, (int, Fraction)):
            other = Value(other)
        if not isinstance(other, Value):
            return NotImplemented
        return Value(self.number + other.number, self.infinitesimal + other.infinitesimal)

    __radd__ = __add__

    def __neg__(self) -> Value:
        return Value(-self.number, -self.infinitesimal)

    def __sub__(self, other: Value | int | Fraction) -> Value:
        """α − β, the paper's shorthand for α + (−β) (not an inverse)."""
        if isinstance(other, (int, Fraction)):
            other = Value(other)
        return self + (-other)

    def __rsub__(self, other: int | Fraction) -> Value:
        return Value(other) + (-self)

    # -- order (§6.3.1) -----------------------------------------------------------------
    def __le__(self, other: Value) -> bool:
        if not isinstance(other, Value):
            return NotImplemented
        return self.number < other.number or (
            self.number == other.number and self.infinitesimal <= other.infinitesimal
        )

    def __lt__(self, other: Value) -> bool:
        if not isinstance(other, Value):
            return NotImplemented
        return self.number < other.number or (
            self.number == other.number and self.infinitesimal < other.infinitesimal
        )

    def __ge__(self, other: Value) -> bool:
        if not isinstance(other, Value):
            return NotImplemented
        return other <= self

    def __gt__(self, other: Value) -> bool:
        if not isinstance(other, Value):
            return NotImplemented
        return other < self

    def comparable(self, other: Value) -> bool:
        return self <= other or other <= self

    # -- text and JSON (docs/spec.md §3) --------------------------------------------------------
    @property
    def number_text(self) -> str:
        """``p/q`` reduced, or ``p`` for an integer."""
        q = self.number
        return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"

    def text(self) -> str:
        """The paper's typography: ``3 + 3/8``, ``2 − ε₂``, ``ε₀``, ``1/2 ± ε₀``."""
        # On the reduced numerator and denominator: Fraction arithmetic costs microseconds a step.
        p, d = self.number.numerator, self.number.denominator
        whole, part = divmod(abs(p), d)
        sign = "−" if p < 0 else ""
        if p == 0:
            number = ""
        elif part == 0:
            number = f"{sign}{whole}"
        elif whole == 0:
            number = f"{sign}{part}/{d}"
        elif p > 0:
            number = f"{whole} + {part}/{d}"
        else:
            number = f"−{whole} − {part}/{d}"
        inf = self.infinitesimal.text()
        if not inf:
            return number or "0"
        if not number:
            return inf
        if inf.startswith("±"):
            return f"{number} ± {inf[1:]}"
        if inf.startswith("−"):
            return f"{number} − {inf[1:]}"
        return f"{number} + {inf}"

    def to_json(self) -> dict[str, str]:
        """``{"number": "27/8", "infinitesimal": "0", "text": "3 + 3/8"}`` (docs/spec.md §3)."""
        return {"number": self.number_text, "infinitesimal": self.infinitesimal.code, "text": self.text()}

    @classmethod
    def from_json(cls, obj: dict) -> Value:
        try:
            return cls(Fraction(obj["number"]), Infinitesimal.from_code(str(obj.get("infinitesimal", "0"))))
        except (KeyError, ValueError, ZeroDivisionError) as exc:
            raise InvalidValueError(f"not a value: {obj!r}") from exc

    @classmethod
    def from_str(cls, text: str) -> Value:
        """Parse the paper's typography or ASCII: ``3 + 3/8``, ``27/8``, ``2-e2``, ``1/2+-e0``, ``ε₀``."""
        s = (
            text.strip()
            .replace(" ", "")
            .replace("−", "-")
            .replace("±", "+-")
            .replace("ε", "e")
            .translate(_FROM_SUBSCRIPTS)
        )
        if not s:
            raise InvalidValueError(f"not a value: {text!r}")
        # Split off the infinitesimal: the first 'e' with its sign prefix.
        m = re.fullmatch(r"(?P<num>[^e]*?)(?P<inf>(?:\+-|[+-])?e-?\d*)?", s)
        if not m:
            raise InvalidValueError(f"not a value: {text!r}")
        num, inf = m.group("num"), m.group("inf")
        number = Fraction(0)
        if num:
            parts = re.findall(r"[+-]?[^+-]+", num)
            if not parts or "".join(parts) != num or not all(_NUMBER_RE.fullmatch(p) for p in parts):
                raise InvalidValueError(f"not a value: {text!r}")
            try:
                number = sum((Fraction(p) for p in parts), Fraction(0))
            except ZeroDivisionError as exc:
                raise InvalidValueError(f"not a value: {text!r}") from exc
        infinitesimal = ZERO_INF
        if inf:
            infinitesimal = Infinitesimal.from_code(inf.lstrip("+") if not inf.startswith("+-") else inf)
        return cls(number, infinitesimal)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Value.from_str({self.text()!r})"

    _repr_html_ = notebook_html


def rho_set(value: Value, lower: Fraction, step: Fraction) -> tuple[Fraction, Fraction]:
    """ρ_A of §6.5 for the lattice A = lower + step·Z: (West on lead, East on lead).

    Rounds the numerical part to the nearest element of A; on a tie a < q < b the
    infinitesimal decides: negative → (a, a), positive → (b, b), 0 → (a, b), ±ε₀ → (b, a).
    """
    q, x = value.number, value.infinitesimal
    t = (q - lower) / step
    below = lower + step * (t.numerator // t.denominator)
    above = below + step
    if q - below < above - q or q == below:
        return below, below
    if above - q < q - below:
        return above, above
    a, b = below, above
    if x.is_fuzzy:
        return b, a
    if x.sign < 0:
        return a, a
    if x.sign > 0:
        return b, b
    return a, b


def rho(value: Value) -> Outcome:
    """ρ (§6.5): the outcome χ = (tricks with West on lead, with East on lead) of a state."""
    west, east = rho_set(value, Fraction(0), Fraction(1))
    return Outcome(west.numerator, east.numerator)  # whole numbers: the lattice is Z


def rho_refined(value: Value) -> RefinedOutcome:
    """ρ′ (§8.4): the outcome χ′ of refined whist, to the nearest number with denominator exactly 4."""
    return RefinedOutcome(*rho_set(value, Fraction(1, 4), Fraction(1, 2)))


def total(values: Iterable[Value]) -> Value:
    """The sum in V of a collection of values (val is a homomorphism, §7.1)."""
    return sum(values, Value(0))
