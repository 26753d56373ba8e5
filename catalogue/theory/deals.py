"""Single- and multi-suit deals: notation, canonical label, integer key, reductions.

A single-suit deal is a partition of a totally ordered set into two hands of the
same size (§5.1 of the multi-suit paper); only the relative order of the cards
matters, so every deal has a canonical form, :class:`Deal`, numbered 1…2n from
the bottom.  :class:`Suit` keeps the cards as the user wrote them (ranks,
numbers or an owner string, ``docs/spec.md`` §2) so that answers can be printed back
in the user's own notation.

Also here: the swapped deal D̄ (§5.1), D₀ (§8.5, both smallest cards removed)
and the reductions D_ij (§7.2).
"""

from __future__ import annotations

import enum
from collections import Counter
import re
from functools import lru_cache
from itertools import compress
from typing import TYPE_CHECKING, Callable, Iterator, TypeAlias

from whist_catalogue.constants import MAX_HAND_SIZE
from whist_catalogue.errors import (
    AsymmetricSuitError, DealTooLargeError, DuplicateCardError, InvalidDealError, TrumpSuitError, UnevenHandsError,
    counted,
)
from whist_catalogue.theory.immutable import Immutable, notebook_html

if TYPE_CHECKING:
    from whist_catalogue.theory.labeled import Player  # labeled imports this module

__all__ = [
    "Card",
    "HandMask",
    "DealKey",
    "Deal",
    "Notation",
    "Suit",
    "parse_suit",
    "parse_deal",
    "parse_multisuit",
    "multisuit_parts",
    "RANK_NAMES",
    "MAX_HAND_SIZE",
    "MAX_DEAL_CHARS",
    "check_deal_size",
    "SUIT_SYMBOLS",
    "SUIT_LETTERS",
    "parse_suit_name",
    "suit_name",
    "TwoHandDeal",
    "parse_two_hand",
    "read_suit",
    "split_trumps",
    "trump_suit",
    "two_hand_suit",
]

Card: TypeAlias = int
"""A card of a canonical deal: 1 is the lowest, 2n the highest."""
HandMask: TypeAlias = int
"""Bit k−1 set when the hand holds card k."""
DealKey: TypeAlias = int
"""Integer key of docs/spec.md §2: West's mask plus the sentinel bit 2n; unique across all n."""

MAX_DEAL_CHARS = 40 * MAX_HAND_SIZE
"""The longest deal text: every card of a deal of :data:`MAX_HAND_SIZE` cards a hand in number notation,
with numbers of up to 19 digits."""

RANK_NAMES = {14: "A", 13: "K", 12: "Q", 11: "J", 10: "T", 9: "9", 8: "8", 7: "7", 6: "6", 5: "5", 4: "4", 3: "3", 2: "2"}
_RANK_VALUES = {name: rank for rank, name in RANK_NAMES.items()}


_BINARY_TO_FLAGS = bytes.maketrans(b"01", b"\x00\x01")


def _bits(mask: int) -> Iterator[int]:
    """The set bits of mask, lowest first, as 1-based positions.

    Read off the binary digits in one pass: shifting a big mask bit by bit would
    be quadratic, and a suit of a million cards a hand is an input (issue 12).
    """
    digits = bin(mask)[:1:-1].encode().translate(_BINARY_TO_FLAGS)  # lowest bit first, one byte each
    return compress(range(1, len(digits) + 1), digits)


def _mask(owners: str, west: str) -> int:
    """The mask of the positions of ``west`` in an owner string (lowest card first), in linear time."""
    other = "E" if west == "W" else "W"
    return int(owners[::-1].translate({ord(west): "1", ord(other): "0"}) or "0", 2)


class Deal(Immutable):
    """A canonical single-suit deal [W, E] with n cards a hand (n ≥ 0)."""

    __slots__ = ("n", "west")
    n: int
    """Cards on each hand, |D|."""
    west: HandMask
    """West's cards: bit k−1 set when West holds card k."""

    def __init__(self, n: int, west: HandMask) -> None:
        if n < 0 or west >> (2 * n) or west.bit_count() != n:
            raise InvalidDealError(f"not a deal: n={n}, west mask {west:#b}")
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "west", west)

    # -- conversions in matched pairs -----------------------------------------------------
    @classmethod
    def from_key(cls, key: DealKey) -> Deal:
        if key < 1:
            raise InvalidDealError(f"not a deal key: {key!r}")
        n2 = key.bit_length() - 1
        if n2 % 2:
            raise InvalidDealError(f"not a deal key: {key!r} (odd number of cards)")
        return cls(n2 // 2, key & ~(1 << n2))

    @property
    def key(self) -> DealKey:
        return self.west | (1 << (2 * self.n))

    @classmethod
    def from_label(cls, label: str) -> Deal:
        """From an owner string, lowest card first: ``EWEW`` is West A Q against East K J."""
        text = label.strip().upper()
        if not text or set(text) - {"W", "E"}:
            raise InvalidDealError(f"not an owner string of W and E: {label!r}")
        west = _mask(text, "W")
        if 2 * west.bit_count() != len(text):
            raise AsymmetricSuitError(
                f"asymmetric suit {label!r}: West holds {counted(west.bit_count(), 'card')}, "
                f"East {len(text) - west.bit_count()}"
            )
        return cls(len(text) // 2, west)

    @property
    def label(self) -> str:
        """The canonical label: the owner string, lowest card first."""
        digits = bin(self.west)[:1:-1].ljust(2 * self.n, "0")  # lowest card first
        return digits.translate({ord("1"): "W", ord("0"): "E"})

    # -- the hands ------------------------------------------------------------------------
    @property
    def east(self) -> HandMask:
        return ~self.west & ((1 << (2 * self.n)) - 1)

    @property
    def west_cards(self) -> tuple[Card, ...]:
        """W_1 < … < W_n."""
        return tuple(_bits(self.west))

    @property
    def east_cards(self) -> tuple[Card, ...]:
        """E_1 < … < E_n."""
        return tuple(_bits(self.east))

    def owner(self, card: Card) -> Player:
        return "W" if self.west >> (card - 1) & 1 else "E"

    @property
    def ace_holder(self) -> Player | None:
        """``"W"`` or ``"E"``: who holds the highest card (None for the empty deal)."""
        return self.owner(2 * self.n) if self.n else None

    def run(self, card: Card) -> tuple[Card, ...]:
        """The sequence of equivalent cards containing card: adjacent cards of one owner."""
        who = self.owner(card)
        lo = card
        while lo > 1 and self.owner(lo - 1) == who:
            lo -= 1
        hi = card
        while hi < 2 * self.n and self.owner(hi + 1) == who:
            hi += 1
        return tuple(range(lo, hi + 1))

    def in_ranks(self) -> Suit | None:
        """The deal on the top 2n ranks, its highest card the ace, when they fit one suit of 13 cards (n ≤ 6);
        else None."""
        if 2 * self.n > 13:
            return None
        top = 14 - 2 * self.n  # card k is rank top + k
        return Suit(tuple(top + c for c in self.west_cards), tuple(top + c for c in self.east_cards), Notation.RANKS)

    # -- derived deals --------------------------------------------------------------------
    def swapped(self) -> Deal:
        """D̄: the East and West hands interchanged (§5.1)."""
        return Deal(self.n, self.east)

    def without(self, west_card: Card, east_card: Card) -> Deal:
        """The deal left when the two cards are removed, renumbered 1…2n−2."""
        if self.owner(west_card) != "W" or self.owner(east_card) != "E":
            raise InvalidDealError(f"{self.label}: West does not hold {west_card} or East does not hold {east_card}")
        west = self.west
        for card in sorted((west_card, east_card), reverse=True):
            # Delete bit card−1 and shift the cards above it down by one.
            low = west & ((1 << (card - 1)) - 1)
            west = (west >> card) << (card - 1) | low
        return Deal(self.n - 1, west)

    def reduction(self, i: int, j: int) -> tuple[int, Deal]:
        """D_ij of §7.2 as (trick for West, remaining deal): West plays W_i, East plays E_j (1-based)."""
        w, e = self.west_cards[i - 1], self.east_cards[j - 1]
        return (1 if w > e else 0), self.without(w, e)

    def without_lowest(self) -> Deal:
        """D₀ (§8.5): the smallest card removed from each hand."""
        if self.n == 0:
            raise InvalidDealError("the empty deal has no smallest cards")
        return self.without(self.west_cards[0], self.east_cards[0])

    def __len__(self) -> int:
        return self.n

    def __str__(self) -> str:
        return self.label

    def __repr__(self) -> str:
        return f"Deal.from_label({self.label!r})"

    _repr_html_ = notebook_html


class Notation(enum.Enum):
    """The ways of writing a suit (docs/spec.md §2)."""

    RANKS = "ranks"
    NUMBERS = "numbers"
    OWNER = "owner"


class Suit(Immutable):
    """A suit as the user wrote it: real card ranks (larger is higher) and their notation.

    The hands may hold different numbers of its cards, or none (a void): a suit of a two-hand deal
    (:class:`TwoHandDeal`).  The theory's single-suit deal, :attr:`deal`, needs a *symmetric* suit, both
    hands the same size, and refuses any other with :class:`AsymmetricSuitError`.
    """

    __slots__ = ("west", "east", "notation", "_deal")
    west: tuple[int, ...]
    """West's ranks, ascending."""
    east: tuple[int, ...]
    """East's ranks, ascending."""
    notation: Notation
    _deal: Deal | None
    """The canonical deal when the parser already has it: not rebuilt from the ranks."""

    def __init__(
        self, west: tuple[int, ...], east: tuple[int, ...], notation: Notation = Notation.NUMBERS,
        _deal: Deal | None = None,
    ) -> None:
        object.__setattr__(self, "west", west)
        object.__setattr__(self, "east", east)
        object.__setattr__(self, "notation", notation)
        object.__setattr__(self, "_deal", _deal)
        if _deal is not None:
            return  # the cards of a Deal are distinct by construction
        cards = west + east
        if len(set(cards)) != len(cards):
            dup = sorted(c for c, times in Counter(cards).items() if times > 1)  # linear: a huge suit is not quadratic
            raise DuplicateCardError(f"card {self.card_name(dup[0])} appears twice in {self}")

    @property
    def n(self) -> int:
        """Cards a hand of a symmetric suit (West's cards of any other)."""
        return len(self.west)

    @property
    def symmetric(self) -> bool:
        """Whether both hands hold the same number of the suit's cards."""
        return len(self.west) == len(self.east)

    @property
    def owners(self) -> str:
        """The owner string of any suit, even or not: one letter a card, lowest card first (``WWE``: West
        holds the two lowest cards, East the highest)."""
        west = set(self.west)
        return "".join("W" if r in west else "E" for r in sorted(self.west + self.east))

    @property
    def deal(self) -> Deal:
        """The canonical deal: only the relative order of the cards kept (a symmetric suit only)."""
        if self._deal is not None:
            return self._deal
        if not self.symmetric:
            raise AsymmetricSuitError(
                f"asymmetric suit {self}: West holds {counted(len(self.west), 'card')}, East {len(self.east)}"
            )
        return Deal(self.n, _mask(self.owners, "W"))

    def rank_of(self, card: Card) -> int:
        """The real rank of canonical card k of :attr:`deal`."""
        return sorted(self.west + self.east)[card - 1]

    def card_of(self, rank: int) -> Card:
        """The canonical number of the card with this real rank."""
        return sorted(self.west + self.east).index(rank) + 1

    def card_name(self, rank: int) -> str:
        """How the user's notation names a card: ``T``, ``13`` or, for an owner string, its number."""
        if self.notation is Notation.RANKS:
            return RANK_NAMES.get(rank, str(rank))
        return str(rank)

    def name_of(self, card: Card) -> str:
        """The user's name for canonical card k."""
        return self.card_name(self.rank_of(card))

    def without(self, west_rank: int, east_rank: int) -> Suit:
        return Suit(
            tuple(r for r in self.west if r != west_rank),
            tuple(r for r in self.east if r != east_rank),
            self.notation,
        )

    def swapped(self) -> Suit:
        return Suit(self.east, self.west, self.notation)

    def __str__(self) -> str:
        if self.notation is Notation.OWNER and sorted(self.west + self.east) == list(
            range(1, len(self.west) + len(self.east) + 1)
        ):
            return self.owners
        sep = "" if self.notation is Notation.RANKS else " "
        west = sep.join(self.card_name(r) for r in reversed(self.west))
        east = sep.join(self.card_name(r) for r in reversed(self.east))
        return f"{west or '-'}/{east or '-'}" if sep == "" else f"{west or '-'} / {east or '-'}"

    _repr_html_ = notebook_html


_OWNERS = re.compile(r"[WEwe]+")
_DIGITS = re.compile(r"[\d\s\-+]*")


_RANK_TOKEN = re.compile("10|.")
_RANK_OF_TOKEN = {**_RANK_VALUES, "10": 10}


def _parse_ranks(side: str, text: str) -> list[int]:
    compact = "".join(side.upper().split())
    if compact in ("", "-"):
        return []
    tokens = _RANK_TOKEN.findall(compact) if "10" in compact else compact  # a card a character: the common case
    try:
        return [_RANK_OF_TOKEN[token] for token in tokens]
    except KeyError as exc:
        rank = exc.args[0]
        raise InvalidDealError(f"not a card rank {rank!r} in {text!r} (ranks are A K Q J T 9 … 2, 10 = T)") from None


def _parse_numbers(side: str, text: str) -> list[int]:
    tokens = side.split()
    if tokens in ([], ["-"]):
        return []
    try:
        return [int(t) for t in tokens]
    except ValueError:
        raise InvalidDealError(f"not a list of whole numbers: {side.strip()!r} in {text!r}") from None


def _suit(west: list[int], east: list[int], notation: Notation, text: str) -> Suit:
    if not west and not east:
        raise InvalidDealError(f"empty suit: {text.strip()!r}")
    suit = Suit(tuple(sorted(west)), tuple(sorted(east)), notation)
    if suit.symmetric:
        object.__setattr__(suit, "_deal", _canonical(suit.west, suit.east))  # parsed suits are cached, asked often
    return suit


def _canonical(west: tuple[int, ...], east: tuple[int, ...]) -> Deal:
    """The canonical deal of ascending ranks, by merging the hands: West's i-th lowest card (0-based) is
    card i + (East's cards below it) + 1."""
    mask = 0
    below = 0
    for i, rank in enumerate(west):
        while below < len(east) and east[below] < rank:
            below += 1
        mask |= 1 << (i + below)
    return Deal(len(west), mask)


def check_deal_size(text: str) -> None:
    """Refuse, before any parsing, a deal text with more than :data:`MAX_HAND_SIZE` cards a hand.

    Linear and at C speed: below 2·MAX_HAND_SIZE characters nothing is counted (every card takes at least
    one); above, the cards are counted as the notation writes them — an owner string has a card a letter,
    a side in number notation a card a whitespace-separated number, a side in rank notation a card a
    character.
    """
    if not isinstance(text, str):
        raise InvalidDealError(f"not a deal: {text!r}")
    if len(text) <= 2 * MAX_HAND_SIZE:
        return
    if len(text) > MAX_DEAL_CHARS:
        raise DealTooLargeError(
            f"deal too large: {len(text):,} characters (at most {MAX_DEAL_CHARS:,}, and {MAX_HAND_SIZE:,} cards a hand)"
        )
    for part in text.replace(";", ",").split(","):
        if "/" not in part:
            cards = len(part.strip())
        else:
            cards = 0
            for side in part.split("/"):
                if side.translate(_NUMBER_CHARACTERS):  # more than digits, signs and spaces: rank notation
                    ranks = len(side) - sum(side.count(c) for c in _WHITESPACE)
                    if ranks > 2 * len(RANK_NAMES):  # A…2, and 10 for T: no legal hand is that long
                        raise DuplicateCardError(f"{ranks:,} cards in rank notation: a hand holds at most 13 ranks")
                    cards += ranks
                else:
                    cards += _numbers(side)
        if cards > 2 * MAX_HAND_SIZE:
            raise DealTooLargeError(f"deal too large: {cards:,} cards (at most {MAX_HAND_SIZE:,} cards a hand)")


_WHITESPACE = " \t\n\r\v\f"
_NUMBER_CHARACTERS = str.maketrans("", "", "0123456789+-" + _WHITESPACE)


def _numbers(side: str) -> int:
    """The whitespace-separated numbers of a side: one more than its spaces when that is small enough to
    accept (cheap, never too few), else counted exactly."""
    side = side.strip()
    gaps = sum(side.count(c) for c in _WHITESPACE)
    return gaps + 1 if gaps < 2 * MAX_HAND_SIZE else len(side.split())


def parse_suit(text: str) -> Suit:
    """Parse one symmetric suit in any notation of docs/spec.md §2: :func:`read_suit`, refusing a suit whose hands
    differ in size (the theory's deals are symmetric)."""
    suit = read_suit(text)
    if not suit.symmetric:
        raise AsymmetricSuitError(
            f"asymmetric suit {suit}: West holds {counted(len(suit.west), 'card')}, East {len(suit.east)}"
        )
    return suit


def _read_suit(text: str) -> Suit:
    """Parse one suit in any notation of docs/spec.md §2, the hands of any sizes (a void written ``-``).

    * ranks ``WEST/EAST``: ``AQ/KJ``, ``K Q 9 / A J 10``, ``AK2/-`` (case-insensitive, spaces ignored);
    * numbers ``13 12 9 8 / 14 11 10 6`` (whitespace-separated integers, larger is higher);
    * an owner string, lowest card first: ``EWEW``; ``WWE`` is West's two lowest cards against East's highest;

    any of them after its suit's symbol, as ``--led ♠:T`` names a suit: ``♠AQ/KJ``.
    A deal of more than :data:`MAX_HAND_SIZE` cards a hand is refused first (:func:`check_deal_size`).
    """
    check_deal_size(text)
    stripped = text.strip()
    if stripped[:1] in SUIT_SYMBOLS:
        stripped = stripped[1:].strip()
    if not stripped:
        raise InvalidDealError("empty deal")
    if "/" not in stripped:
        if _OWNERS.fullmatch(stripped):
            owners = stripped.upper()
            west_mask = _mask(owners, "W")
            if 2 * west_mask.bit_count() == len(owners):
                deal = Deal(len(owners) // 2, west_mask)
                return Suit(deal.west_cards, deal.east_cards, Notation.OWNER, deal)
            east_mask = _mask(owners, "E")
            return Suit(tuple(_bits(west_mask)), tuple(_bits(east_mask)), Notation.OWNER)
        raise InvalidDealError(
            f"not a deal: {text!r} (write WEST/EAST with ranks or numbers, or an owner string such as EWEW)"
        )
    if stripped.count("/") > 1:
        if "," in stripped or ";" in stripped:
            raise InvalidDealError(f"{text!r} is a multi-suit deal, not one suit: use the outcome command for it")
        raise InvalidDealError(f"more than one '/' in {text!r}")
    west_text, east_text = stripped.split("/")
    digits_only = _DIGITS.fullmatch(west_text) and _DIGITS.fullmatch(east_text)
    if digits_only:
        # Whitespace between numbers, or digits that cannot be ranks (1, 11, …), mean numbers.
        spaced = any(len(side.split()) > 1 for side in (west_text, east_text))
        if spaced:
            return _suit(_parse_numbers(west_text, text), _parse_numbers(east_text, text), Notation.NUMBERS, text)
        try:
            return _suit(_parse_ranks(west_text, text), _parse_ranks(east_text, text), Notation.RANKS, text)
        except InvalidDealError:
            return _suit(_parse_numbers(west_text, text), _parse_numbers(east_text, text), Notation.NUMBERS, text)
    return _suit(_parse_ranks(west_text, text), _parse_ranks(east_text, text), Notation.RANKS, text)


_read_suit_cached = lru_cache(maxsize=8192)(_read_suit)


def read_suit(text: str) -> Suit:
    """One suit of a two-hand deal, its hands of any sizes (a void written ``-``): :func:`_read_suit`, cached — a
    batch of deals repeats its suits (a 52-card pack deals 1,275 distinct ones), and a Suit is immutable."""
    return _read_suit(text) if len(text) > 64 else _read_suit_cached(text)


def parse_deal(text: str) -> Deal:
    """Parse one suit and return its canonical deal."""
    return parse_suit(text).deal


_SUIT_SEPARATOR = re.compile(r"[,;]")


def multisuit_parts(text: str) -> list[str]:
    """The texts of a multi-suit deal's suits, unparsed: separated by ``,`` or ``;``.  A suit written after a
    symbol must be the suit that symbol names (``♠`` the first, ``♥`` the second, …: docs/spec.md §2)."""
    check_deal_size(text)
    parts = text.split(",") if ";" not in text else _SUIT_SEPARATOR.split(text)
    if not text.isascii():  # a symbol at all: rare, and the batch's hot path stays one C-speed check
        for i, part in enumerate(parts):
            symbol = part.strip()[:1]
            if symbol in SUIT_SYMBOLS and SUIT_SYMBOLS[i:i + 1] != (symbol,):
                raise InvalidDealError(f"suit {i + 1} is written after {symbol}, which names suit "
                                       f"{SUIT_SYMBOLS.index(symbol) + 1}: the symbols ♠ ♥ ♦ ♣ name the suits in "
                                       "the order written")
    return parts


def parse_multisuit(text: str) -> tuple[Suit, ...]:
    """Parse a multi-suit deal: single-suit deals separated by ``,`` or ``;``."""
    parts = multisuit_parts(text)
    try:
        return tuple(map(parse_suit, parts))
    except InvalidDealError:
        pass  # said again below, naming the suit at fault
    if not text.strip():
        raise InvalidDealError("empty deal")
    return _read_suits(parts, parse_suit, text)


def _read_suits(parts: list[str], read: Callable[[str], Suit], text: str) -> tuple[Suit, ...]:
    """Each suit's text read by ``read``; an error names the suit at fault, counted from 1, when there are several."""
    suits = []
    for i, part in enumerate(parts):
        if not part.strip():
            raise InvalidDealError(f"empty suit {i + 1} in {text!r}")
        try:
            suits.append(read(part))
        except InvalidDealError as exc:
            if len(parts) == 1:
                raise
            raise type(exc)(f"suit {i + 1}: {exc}") from None
    return tuple(suits)


SUIT_SYMBOLS = ("♠", "♥", "♦", "♣")
"""The symbols of a deal's first four suits, in the order written (docs/spec.md §2)."""
SUIT_LETTERS = "SHDC"
"""The letters of the same suits, for keyboards without the symbols."""


def suit_name(index: int, count: int) -> str:
    """How a person reads the suit at 0-based ``index`` of ``count``: ``suit 2`` (people count from 1,
    docs/spec.md §2), with its symbol when the deal has at most four suits (``suit 2 (♥)``)."""
    if count <= len(SUIT_SYMBOLS):
        return f"suit {index + 1} ({SUIT_SYMBOLS[index]})"
    return f"suit {index + 1}"


def parse_suit_name(text: str, count: int) -> int:
    """A suit named by a person → its 0-based index among ``count`` suits.

    People count suits from 1 in the order written (docs/spec.md §2) and may name one of the first four
    by its symbol or letter: ``1``, ``♠`` and ``S`` (any case) are the first suit, ``♥``/``H`` the
    second, ``♦``/``D`` the third, ``♣``/``C`` the fourth.  Anything else — 0, a number past ``count``, a
    digit that is not ASCII — raises :class:`InvalidDealError` naming the suits there are.
    """
    name = text.strip()
    upper = name.upper()
    if upper in SUIT_LETTERS and len(upper) == 1:
        index = SUIT_LETTERS.index(upper)
    elif name in SUIT_SYMBOLS:
        index = SUIT_SYMBOLS.index(name)
    elif name.isascii() and name.isdigit():
        index = int(name) - 1
    else:
        index = -1
    if not 0 <= index < count:
        shown = min(count, len(SUIT_SYMBOLS))
        named = f" (or {' '.join(SUIT_SYMBOLS[:shown])} / {' '.join(SUIT_LETTERS[:shown])})"
        there = "suit 1" if count == 1 else f"suits 1…{count}"
        raise InvalidDealError(f"no suit {name!r}: the deal has {there}{named}, counted from 1 in the order written")
    return index


# -- two-hand deals: suits of any split, voids, a trump suit ----------------------------------------------

_TRUMPS = re.compile(r"\s*trumps?\b\s*([^:,;/]*?)\s*:(.*)\Z", re.IGNORECASE | re.DOTALL)


class TwoHandDeal(Immutable):
    """A deal of two-person whist as written: any suits, each split between the hands in any way (a hand
    may be void in a suit), the hands of equal size in all, and a trump suit or none (docs/spec.md §2).

    The theory's multi-suit deals are the symmetric ones (every suit even) without trumps; this is the
    input of the exact search (:mod:`whist_catalogue.twohand`).  ``str()`` writes it back in the notation it
    was written in, naming the trump suit first (``trumps ♥: AK2/-, 5/QJ43``); parsing that text gives an
    equal deal.
    """

    __slots__ = ("suits", "trump")
    suits: tuple[Suit, ...]
    trump: int | None
    """The trump suit's index among :attr:`suits` (0-based), None for no trumps."""

    def __init__(self, suits: tuple[Suit, ...], trump: int | None = None) -> None:
        suits = tuple(suits)
        object.__setattr__(self, "suits", suits)
        object.__setattr__(self, "trump", trump)
        if not suits:
            raise InvalidDealError("empty deal")
        for i, suit in enumerate(suits):
            if not suit.west and not suit.east:
                raise InvalidDealError(f"empty suit {i + 1} in {self.text(with_trumps=False)!r}")
        west, east = self.hand_sizes
        if west != east:
            raise UnevenHandsError(
                f"hands of different sizes in {self.text(with_trumps=False)!r}: West holds {west} cards,"
                f" East {east} (each hand must hold as many cards as the other)"
            )
        if trump is not None and not (isinstance(trump, int) and 0 <= trump < len(suits)):
            raise TrumpSuitError(f"no trump suit {trump!r} (0-based) in {self.text(with_trumps=False)!r}:"
                                 f" it has {len(suits)} suit{'s' if len(suits) > 1 else ''}")

    @property
    def hand_sizes(self) -> tuple[int, int]:
        """West's and East's cards in all."""
        return sum(len(s.west) for s in self.suits), sum(len(s.east) for s in self.suits)

    @property
    def n(self) -> int:
        """Cards a hand."""
        return self.hand_sizes[0]

    @property
    def symmetric(self) -> bool:
        """Whether every suit is even: then trumps can never matter and the theory answers it (Theorem 9.1)."""
        return all(s.symmetric for s in self.suits)

    def trump_name(self) -> str | None:
        """The trump suit as the text names it: its symbol for a deal of at most four suits, else its number."""
        if self.trump is None:
            return None
        return SUIT_SYMBOLS[self.trump] if len(self.suits) <= len(SUIT_SYMBOLS) else str(self.trump + 1)

    def text(self, with_trumps: bool = True) -> str:
        """The deal in its own notation: ``trumps ♥: AK2/-, 5/QJ43`` (docs/spec.md §2)."""
        body = ", ".join(map(str, self.suits))
        if with_trumps and self.trump is not None:
            return f"trumps {self.trump_name()}: {body}"
        return body

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"parse_two_hand({self.text()!r})"

    _repr_html_ = notebook_html


def parse_two_hand(text: str, trumps: str | int | None = None) -> TwoHandDeal:
    """A two-hand deal from its text (docs/spec.md §2): suits as :func:`parse_multisuit` reads them, but each
    split in any way (``AK2/QJ``, a void ``AK2/-``, an owner string ``WWE``), and the trump suit named before
    a colon, ``trumps ♥: AK2/-, 5/QJ43`` (or ``trumps 2:``, ``trumps H:``).

    ``trumps`` names the trump suit of a text that names none, as a person does (:func:`parse_suit_name`: a
    number from 1, a symbol or a letter) or as a 0-based index; a text naming another trump suit is refused.
    """
    if not isinstance(text, str):
        raise InvalidDealError(f"not a deal: {text!r}")
    check_deal_size(text)
    named, body = split_trumps(text)
    parts = multisuit_parts(body)
    if not body.strip():
        raise InvalidDealError(f"empty deal: {text!r}")
    suits = _read_suits(parts, read_suit, text)
    return TwoHandDeal(suits, trump_suit(named, trumps, len(suits), text))


def split_trumps(text: str) -> tuple[str | None, str]:
    """The trump suit a deal's text names (``trumps ♥: …`` → ``"♥"``), or None, and the text of its suits."""
    named = _TRUMPS.match(text)
    return (named.group(1), named.group(2)) if named else (None, text)


def trump_suit(named: str | None, given: str | int | None, count: int, text: str) -> int | None:
    """The 0-based trump suit of a deal of ``count`` suits whose text names ``named`` (:func:`split_trumps`) and
    to which ``given`` (a person's name of a suit, or a 0-based index) is given; None for no trumps.  Refused: a
    suit the deal does not have, and two different trump suits."""
    trump = _trump_index(named, count, text) if named is not None else None
    if given is None:
        return trump
    index = given if isinstance(given, int) and not isinstance(given, bool) else None
    if index is None:
        index = _trump_index(str(given), count, text)
    elif not 0 <= index < count:
        raise TrumpSuitError(f"no trump suit {index} (0-based) in {text!r}: it has {count} suits")
    if trump is not None and trump != index:
        raise TrumpSuitError(
            f"two trump suits for {text!r}: the deal names suit {trump + 1}, and suit {index + 1} was given"
        )
    return index


_RANK_BITS = {c: 1 << (r - 2) for n, r in _RANK_VALUES.items() for c in (n, n.lower())}
_RANK_BITS.update({c: 0 for c in _WHITESPACE})
_LETTER_OF_BIT = "23456789TJQKA"
_bit_names: dict[int, tuple[str, ...]] = {}
"""The ranks' names of each half of a 13-bit rank mask (:func:`two_hand_suit`)."""


@lru_cache(maxsize=1 << 16)
def _side_mask(side: str) -> int:
    """A hand's cards of a suit in plain rank notation (``AK2``, ``-`` for none) as bits, the 2 at bit 0; −1 for
    anything else (then :func:`_read_suit` reads it, or words what is wrong).  Remembered: a batch repeats them."""
    if side.strip() == "-":
        return 0
    mask = count = 0
    for ch in side:
        bit = _RANK_BITS.get(ch)
        if bit is None:
            return -1
        mask |= bit
        count += bit != 0
    return -1 if mask > 0 and mask.bit_count() != count else mask  # −1 too for a rank twice


def two_hand_suit(part: str, limit: int = 64) -> tuple[int, int, int, tuple[str, ...]]:
    """One suit of a two-hand deal (:func:`parse_two_hand` reads it so): West's cards as bits over the suit's
    cards, lowest first; how many cards West and East hold; the cards' names, lowest first — the bits and the
    names only for a suit of at most ``limit`` cards (0 and ``()`` for a larger one, whose deal no search takes).
    A suit in plain rank notation (``AK2/-``, ``QT 9/J``) is read with integer operations, a fraction of a
    microsecond; any other by :func:`_read_suit`, raising what it raises."""
    west_text, slash, east_text = part.partition("/")
    west, east = _side_mask(west_text), _side_mask(east_text)
    cards = west | east
    if slash and west >= 0 and east >= 0 and cards and not west & east:
        # West's ranks as bits over the suit's cards (the 13-bit rank masks compressed to the cards there are):
        # each of West's cards sits above as many cards of the suit as there are below its rank.
        mask = 0
        rest = west
        while rest:
            low = rest & -rest
            mask |= 1 << (cards & (low - 1)).bit_count()
            rest ^= low
        if not _bit_names:
            # The names of the ranks a 7-bit (2 … 8) or 6-bit (9 … A) mask holds, lowest first: 192 tuples, made once.
            _bit_names.update({low: tuple(c for i, c in enumerate(_LETTER_OF_BIT[:7]) if low >> i & 1)
                               for low in range(128)})
            _bit_names.update({128 + high: tuple(c for i, c in enumerate(_LETTER_OF_BIT[7:]) if high >> i & 1)
                               for high in range(64)})
        return mask, west.bit_count(), east.bit_count(), _bit_names[cards & 127] + _bit_names[128 + (cards >> 7)]
    suit = read_suit(part)
    if len(suit.west) + len(suit.east) > limit:
        return 0, len(suit.west), len(suit.east), ()
    ranks = sorted(suit.west + suit.east)
    held = set(suit.west)
    return sum(1 << i for i, r in enumerate(ranks) if r in held), len(suit.west), len(suit.east), \
        tuple(map(suit.card_name, ranks))


def _trump_index(name: str, count: int, text: str) -> int:
    try:
        return parse_suit_name(name, count)
    except InvalidDealError as exc:
        reason = str(exc).split(": ", 1)[-1]
        raise TrumpSuitError(f"no trump suit {name.strip()!r} in {text!r}: {reason}") from None
