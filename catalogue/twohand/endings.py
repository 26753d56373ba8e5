"""Every ending of two-hand whist, solved once: West's tricks from each position of k cards a hand in a pack's
four suits of 13, trumps or not, for k = 1, 2, … — the table the search looks its endings up in, shipped for
k ≤ :data:`MAX_ENDING_N` and stored in the catalogue for larger k (:mod:`whist_catalogue.store.endings`).

**A position of the table** is what decides the play from the start of a trick (docs/two-hand.md, "The table
of endings"): its cards' relative order only (:mod:`.bits`: a card is its place among the cards in play), the
trump suit if any still has cards, and up to four suits of at most :data:`MAX_SUIT_CARDS` cards — with West on
lead: with East on lead, swapping the hands gives a position with "West" on lead, and West takes the tricks
the other does not.  The side suits (those that are not trumps) are a *set*: two positions whose side suits are
the same suits in another order are one position (a suit's name never matters to the play), and a lone trump
suit is a suit without trumps (nobody can ruff).  So a position is a trump suit or none, and a multiset of side
suits, each suit a pattern — West's cards among its m cards.

**Its place** (:func:`ending_index`): positions are grouped by *shape* — the trump suit's type and the sorted
types of the side suits, a suit's type being (m, West's cards w) — in the order of the shape's key; inside a
shape, a mixed-radix number of the trump suit's pattern (its colex rank among the C(m, w)) and, for each group
of g side suits of one type, the colex rank of the multiset of their patterns among the C(C(m, w) + g − 1, g).
So the index is dense: level k holds exactly :func:`positions` (k) entries, which Pólya's count of the suit
multisets gives independently.  A shape's first index is found through a small hash table per level.

**Its value**: West's tricks, 0 … k, in four bits (:data:`MAX_TABLE_N` = 15 fits), two to a byte, 16 to the
int64 words the kernels read.  The table is filled by retrograde analysis, level by level: a position's value is
its best lead's worst reply (the rules, one trick), the position after the trick being one of level k − 1.

What this saves against the table's first form (every position with its suits in order and a byte a value,
3.1 MB for k ≤ 7): the suit symmetry divides the positions by 5.5 at k = 7 and 14 at k = 13, the four bits
by 2 — measured in docs/benchmarks.md ("The table of two-hand endings").  Shipped here: every level k ≤
:data:`MAX_ENDING_N`, LZMA-compressed in :data:`ENDINGS_FILE` (:func:`write_endings` regenerates it).
"""

from __future__ import annotations

import lzma
import os
from functools import cache
from math import comb
from typing import Callable, Iterable, Mapping, NamedTuple, Sequence

import numpy as np
from numba import prange

from whist_catalogue.constants import MAX_ENDING_N
from whist_catalogue.theory.jit import kernel
from whist_catalogue.twohand.bits import ONE, ZERO, bottoms, follower_wins, high, index, low, play, pop, segment, trump_mask

__all__ = [
    "MAX_ENDING_N", "MAX_ENDING_SUITS", "MAX_SUIT_CARDS", "MAX_TABLE_N", "ENDINGS_FILE", "ENTRIES_A_WORD",
    "CHUNK_POSITIONS", "chunk_count", "chunk_range",
    "positions", "shapes", "Shapes", "level_size", "level_bytes", "EndingTable", "ending_index", "ending_value", "position_at",
    "build_level", "built_endings", "endings", "encode_endings", "write_endings",
]

MAX_ENDING_SUITS = 4
"""The most suits a position of the table has: a pack's.  A position of more suits is searched."""
MAX_SUIT_CARDS = 13
"""The most cards a suit of the table has: a pack's.  A position with a longer suit is searched."""
MAX_TABLE_N = 15
"""The largest level the format holds: West's tricks in four bits."""
ENTRIES_A_WORD = 16
"""Values a 64-bit word holds (four bits each): levels and chunks start at a word."""
CHUNK_BITS = 20
CHUNK_POSITIONS = 1 << CHUNK_BITS
"""Positions a chunk of a level (512 KiB of values): what a table holds or lacks of a level, and what the
catalogue stores, checksums and reads at a time."""
ENDINGS_FILE = "endings.bin"
_MAGIC = b"WHIST-TWO-HAND-ENDINGS-3\n"

# -- suit types and patterns -----------------------------------------------------------------------------
# A suit of m cards with West holding w of them has the type code m·14 + w (never 0: m ≥ 1), and its pattern
# — West's cards as a mask over the suit's cards, lowest first — has a colex rank among the C(m, w) masks,
# which is their numerical order.  The tables below serve both ways, by the suit's key (1 << m) | mask.
_SPAN = MAX_SUIT_CARDS + 1
_CODES = _SPAN * _SPAN
_BINOM = np.array([[comb(n, r) for r in range(_SPAN)] for n in range(_SPAN)], dtype=np.int64)


def _pattern_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rank = np.zeros(1 << _SPAN, dtype=np.int32)
    start = np.zeros(_CODES, dtype=np.int64)
    of = np.zeros(1 << _SPAN, dtype=np.int32)
    at = 0
    for m in range(1, MAX_SUIT_CARDS + 1):
        masks = np.arange(1 << m, dtype=np.int64)
        counts = np.array([int(x).bit_count() for x in range(1 << m)])
        for w in range(m + 1):
            chosen = masks[counts == w]  # ascending: colex order
            rank[(1 << m) | chosen] = np.arange(len(chosen))
            start[m * _SPAN + w] = at
            of[at : at + len(chosen)] = chosen
            at += len(chosen)
    return rank, start, of


_PATTERN_RANK, _PATTERN_START, _PATTERN_OF = _pattern_tables()
_EMPTY = np.int64(1) << np.int64(40)  # a side slot with no suit sorts after every suit
_LOW16 = np.int64(0xFFFF)
_MIX = np.uint64(0x9E3779B97F4A7C15)


# -- how many positions: Pólya's count, independent of the index -------------------------------------------


def _poly_mul(a: dict[tuple[int, int], int], b: dict[tuple[int, int], int], k: int) -> dict[tuple[int, int], int]:
    out: dict[tuple[int, int], int] = {}
    for (x1, y1), c1 in a.items():
        for (x2, y2), c2 in b.items():
            if x1 + x2 <= 2 * k and y1 + y2 <= k:
                out[(x1 + x2, y1 + y2)] = out.get((x1 + x2, y1 + y2), 0) + c1 * c2
    return out


def _poly_add(*terms: tuple[int, dict[tuple[int, int], int]]) -> dict[tuple[int, int], int]:
    out: dict[tuple[int, int], int] = {}
    for factor, poly in terms:
        for key, c in poly.items():
            out[key] = out.get(key, 0) + factor * c
    return out


@cache
def positions(k: int) -> int:
    """The positions of level k, counted by Pólya's theorem: a suit is x^m y^w with C(m, w) patterns, so the
    suits are s(x, y) = Σ_{m ≤ 13} (x(1 + y))^m; a multiset of r side suits is the cycle index of the symmetric
    group S_r evaluated at s(x^j, y^j); the positions are [x^{2k} y^k] of Σ_{r=1..4} Z(S_r) (no trumps) plus
    s · Σ_{r=1..3} Z(S_r) (a trump suit and at least one side suit)."""
    def suit(j: int) -> dict[tuple[int, int], int]:
        out: dict[tuple[int, int], int] = {}
        for m in range(1, MAX_SUIT_CARDS + 1):
            for w in range(m + 1):
                if j * m <= 2 * k and j * w <= k:
                    out[(j * m, j * w)] = comb(m, w)
        return out

    s1, s2, s3, s4 = suit(1), suit(2), suit(3), suit(4)

    def mul(*polys: dict[tuple[int, int], int]) -> dict[tuple[int, int], int]:
        out = {(0, 0): 1}
        for p in polys:
            out = _poly_mul(out, p, k)
        return out

    z1 = s1
    z2 = _poly_add((1, mul(s1, s1)), (1, s2))  # ·1/2
    z3 = _poly_add((1, mul(s1, s1, s1)), (3, mul(s1, s2)), (2, s3))  # ·1/6
    z4 = _poly_add((1, mul(s1, s1, s1, s1)), (6, mul(s1, s1, s2)), (3, mul(s2, s2)), (8, mul(s1, s3)),
                   (6, s4))  # ·1/24
    sides = _poly_add((24, z1), (12, z2), (4, z3))  # 24 · (Z1 + Z2 + Z3)
    no_trumps = _poly_add((1, sides), (1, z4))  # 24 · (Z1 + … + Z4)
    trumps = mul(s1, sides)  # 24 · s · (Z1 + Z2 + Z3)
    key = (2 * k, k)
    total = no_trumps.get(key, 0) + trumps.get(key, 0)
    assert total % 24 == 0
    return total // 24


# -- the shapes of a level ---------------------------------------------------------------------------------


class Shapes(NamedTuple):
    """Level k's shapes in the order of their keys (:func:`shapes`), each with its first index."""

    keys: np.ndarray
    """int64, ascending: trumps << 40 | the trump suit's type << 32 | the side suits' types, ascending, a byte
    each from bit 24 down (0: no suit)."""
    offsets: np.ndarray
    """int64: the first index of each shape; ``offsets[-1]`` is the level's size."""


def _types(k: int) -> list[tuple[int, int]]:
    return [(m, w) for m in range(1, MAX_SUIT_CARDS + 1) for w in range(m + 1) if w <= k and m - w <= k]


def _multisets(n: int, g: int) -> int:
    return comb(n + g - 1, g)


@cache
def shapes(k: int) -> Shapes:
    """Every shape of level k with its positions: a trump suit's type (or none) and the multiset of the side
    suits' types, their cards 2k in all and West's k, at most four suits, a trump suit never alone."""
    if not 1 <= k <= MAX_TABLE_N:
        raise ValueError(f"a level of the table has 1 … {MAX_TABLE_N} cards a hand, not {k}")
    types = _types(k)
    place = {t: i for i, t in enumerate(types)}
    found: dict[int, int] = {}

    def sides(start: int, room: int, cards: int, west: int) -> list[tuple[int, ...]]:
        """The multisets (ascending type indexes ≥ start) of at most ``room`` suits holding these cards."""
        if cards == 0:
            return [()]
        if room == 0 or cards > MAX_SUIT_CARDS * room:
            return []
        last = place.get((cards, west), -1)
        out: list[tuple[int, ...]] = [(last,)] if last >= start else []  # one suit holds the rest
        if room > 1:
            for i in range(start, len(types)):
                m, w = types[i]
                if 2 * m > cards:  # a second suit of at least as many cards would not fit
                    break
                if w <= west and m - w <= cards - west:
                    out.extend((i, *rest) for rest in sides(i, room - 1, cards - m, west - w) if len(rest) > 0)
        return out

    def count(chosen: tuple[int, ...]) -> int:
        total = 1
        for i in set(chosen):
            m, w = types[i]
            total *= _multisets(comb(m, w), chosen.count(i))
        return total

    def side_key(chosen: tuple[int, ...]) -> int:
        key = 0
        for slot, i in enumerate(chosen):
            m, w = types[i]
            key |= (m * _SPAN + w) << (24 - 8 * slot)
        return key

    for chosen in sides(0, MAX_ENDING_SUITS, 2 * k, k):
        found[side_key(chosen)] = count(chosen)
    for mt, wt in types:
        if mt >= 2 * k:
            continue  # a lone trump suit is a suit without trumps
        for chosen in sides(0, MAX_ENDING_SUITS - 1, 2 * k - mt, k - wt):
            found[1 << 40 | (mt * _SPAN + wt) << 32 | side_key(chosen)] = comb(mt, wt) * count(chosen)
    keys = np.array(sorted(found), dtype=np.int64)
    offsets = np.zeros(len(keys) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([found[int(key)] for key in keys])
    return Shapes(keys, offsets)


@cache
def _level_header(k: int) -> np.ndarray:
    """Level k's section of a table before its chunk directory: its size, the bits of its hash table, its
    chunks, and the hash table of its shapes' first indexes (keys, then first indexes; 2^bits slots, at most half
    full, linear probing)."""
    keys, offsets = shapes(k)
    bits = max(4, (2 * len(keys) - 1).bit_length())
    size = 1 << bits
    slots = np.zeros(size, dtype=np.int64)
    firsts = np.zeros(size, dtype=np.int64)
    for key, first in zip(keys.tolist(), offsets[:-1].tolist()):
        h = ((key * int(_MIX)) & (2**64 - 1)) >> (64 - bits)
        while slots[h] != 0:
            h = (h + 1) & (size - 1)
        slots[h], firsts[h] = key, first
    return np.concatenate([np.array([offsets[-1], bits, chunk_count(k)], dtype=np.int64), slots, firsts])


def level_size(k: int) -> int:
    """Level k's positions, as its index numbers them (:func:`positions` counts them independently)."""
    return int(shapes(k).offsets[-1])


def level_bytes(k: int) -> int:
    """Bytes of level k's values: four bits a position, whole words."""
    return -(-level_size(k) // ENTRIES_A_WORD) * 8


def chunk_count(k: int) -> int:
    """Chunks of level k (:data:`CHUNK_POSITIONS` positions each, the last one fewer)."""
    return -(-level_size(k) // CHUNK_POSITIONS)


def chunk_range(k: int, chunk: int) -> tuple[int, int]:
    """[start, stop): the positions of chunk ``chunk`` of level k."""
    return chunk * CHUNK_POSITIONS, min(level_size(k), (chunk + 1) * CHUNK_POSITIONS)


# -- the index ---------------------------------------------------------------------------------------------


@kernel(inline="always")
def _choose(x, i):
    """C(x, i) for i ≤ 4 (x below a few thousand: a group's patterns)."""
    if x < i:
        return np.int64(0)
    if i == 1:
        return x
    if i == 2:
        return x * (x - 1) // 2
    if i == 3:
        return x * (x - 1) * (x - 2) // 6
    return x * (x - 1) * (x - 2) * (x - 3) // 24


@kernel(inline="always")
def _flush(idx, code, g, q):
    """The group of g side suits of one type, its multiset rank q, folded into the mixed-radix index."""
    if g == 0:
        return idx
    patterns = _BINOM[code // _SPAN, code % _SPAN]
    return idx * _choose(patterns + g - 1, g) + q


@kernel(inline="always")
def _fold(idx, code, g, q, item):
    """One side suit (in ascending order of type, then pattern) into the running group."""
    c = item >> np.int64(16)
    if c != code:
        idx = _flush(idx, code, g, q)
        code = c
        g = np.int64(0)
        q = np.int64(0)
    g += 1
    q += _choose((item & _LOW16) + g - 1, g)
    return idx, code, g, q


@kernel
def ending_index(W, B, tf, k, ends):
    """The place of a position (West on lead, k cards a hand) among level k's of ``ends``, or −1 when the table
    has no such position (more than four suits, a suit of more than 13 cards)."""
    s0 = s1 = s2 = s3 = _EMPTY
    trump = np.int64(0)
    trump_rank = np.int64(0)
    sides = 0
    sentinel = high(B)
    starts = B
    first = tf != 0
    while starts != sentinel:
        lo = low(starts)
        starts ^= lo
        S = low(starts) - lo
        m = pop(S)
        if m > MAX_SUIT_CARDS:
            return np.int64(-1)
        mask = (W & S) >> np.uint64(index(lo))
        code = np.int64(m * _SPAN + pop(mask))
        rank = np.int64(_PATTERN_RANK[np.int64(mask | (ONE << np.uint64(m)))])
        if first:
            trump, trump_rank, first = code, rank, False
            continue
        if sides == 4:
            return np.int64(-1)
        sides += 1
        v = (code << np.int64(16)) | rank
        # Insertion into s0 ≤ s1 ≤ s2 ≤ s3 (empty slots last).
        if v < s0:
            v, s0 = s0, v
        if v < s1:
            v, s1 = s1, v
        if v < s2:
            v, s2 = s2, v
        if v < s3:
            v, s3 = s3, v
    if trump != 0 and sides == 0:
        s0, trump, trump_rank = (trump << np.int64(16)) | trump_rank, np.int64(0), np.int64(0)
        sides = 1
    if trump != 0 and sides == 4:
        return np.int64(-1)
    key = ((np.int64(1) << np.int64(40)) if trump != 0 else np.int64(0)) | (trump << np.int64(32))
    if s0 != _EMPTY:
        key |= (s0 >> np.int64(16)) << np.int64(24)
    if s1 != _EMPTY:
        key |= (s1 >> np.int64(16)) << np.int64(16)
    if s2 != _EMPTY:
        key |= (s2 >> np.int64(16)) << np.int64(8)
    if s3 != _EMPTY:
        key |= s3 >> np.int64(16)
    section = ends[k]
    bits = ends[section + 1]
    size = np.int64(1) << bits
    h = np.int64((np.uint64(key) * _MIX) >> np.uint64(64 - bits))
    while True:
        found = ends[section + 3 + h]
        if found == key:
            break
        if found == 0:
            return np.int64(-1)
        h = (h + 1) & (size - 1)
    first_index = ends[section + 3 + size + h]
    idx = trump_rank
    code = np.int64(0)
    g = np.int64(0)
    q = np.int64(0)
    if s0 != _EMPTY:
        idx, code, g, q = _fold(idx, code, g, q, s0)
    if s1 != _EMPTY:
        idx, code, g, q = _fold(idx, code, g, q, s1)
    if s2 != _EMPTY:
        idx, code, g, q = _fold(idx, code, g, q, s2)
    if s3 != _EMPTY:
        idx, code, g, q = _fold(idx, code, g, q, s3)
    return first_index + _flush(idx, code, g, q)


@kernel
def ending_value(W, B, tf, lead, k, ends):
    """West's tricks from a position of k cards a hand at the start of a trick (``lead`` 0: West on lead,
    1: East), or −1 when ``ends`` lacks it (its level, or the chunk of its level that holds it).  East on lead is
    the hands swapped: West takes the tricks the one on lead as "West" does not."""
    if k > ends[0] or ends[k] == 0:
        return np.int64(-1)
    full = (ONE << np.uint64(2 * k)) - ONE
    at = ending_index(W if lead == 0 else full & ~W, B, tf, k, ends)
    if at < 0:
        return np.int64(-1)
    section = ends[k]
    base = ends[section + 3 + (np.int64(2) << ends[section + 1]) + (at >> np.int64(CHUNK_BITS))]
    if base < 0:
        return np.int64(-1)
    within = at & np.int64(CHUNK_POSITIONS - 1)
    v = (ends[base + (within >> np.int64(4))] >> ((within & np.int64(15)) << np.int64(2))) & np.int64(15)
    return v if lead == 0 else k - v


@kernel
def _place(W, B, tf, k, ends):
    """:func:`ending_index`, or −1 when ``ends`` has no index of level k."""
    if k < 1 or k > ends[0] or ends[k] == 0:
        return np.int64(-1)
    return ending_index(W, B, tf, k, ends)


@kernel
def _places(W, B, tf, lead, led, ends, out):
    """The places a table needs to answer a position from itself (its value, and every legal card's result one
    trick on) into ``out`` as rows (level, index); returns how many.  ``lead`` −1: a whole deal, both leaders;
    else the leader (0 West, 1 East), and ``led`` the bit of a card already led (0: none).  The index is −1
    where ``ends`` does not place a position (no index of its level, five suits, a suit of 14 cards)."""
    k = pop(W)
    full = (ONE << np.uint64(2 * k)) - ONE
    E = full & ~W
    tmask = trump_mask(B, tf)
    count = 0
    for leader in range(2):
        if lead >= 0 and leader != lead:
            continue
        if led == ZERO:
            out[count, 0] = k
            out[count, 1] = _place(W if leader == 0 else E, B, tf, k, ends)
            count += 1
        hand = W if leader == 0 else E
        other = E if leader == 0 else W
        cards = led if led != ZERO else bottoms(hand, B)
        runs = bottoms(other, B)
        while cards != ZERO:
            p = low(cards)
            cards ^= p
            S = segment(B, p)
            replies = runs & S if (other & S) != ZERO else runs
            while replies != ZERO and k > 1:
                q = low(replies)
                replies ^= q
                taken = follower_wins(S, tmask, p, q)
                west_won = taken if leader != 0 else not taken
                W2, B2, tf2 = play(W, B, tf, tmask, p, q)
                seen = W2 if west_won else ((ONE << np.uint64(2 * k - 2)) - ONE) & ~W2
                out[count, 0] = k - 1
                out[count, 1] = _place(seen, B2, tf2, k - 1, ends)
                count += 1
    return count


# -- a position from its index, and the build ---------------------------------------------------------------


@kernel
def _multiset(n, g, q, out, at):
    """The multiset of colex rank q of g patterns among n, ascending, into out[at : at + g]."""
    for i in range(g, 0, -1):
        lo = np.int64(i - 1)
        hi = n + g - 1  # C(hi, i) > q for any rank in range
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if _choose(mid, i) <= q:
                lo = mid
            else:
                hi = mid
        out[at + i - 1] = lo - i + 1
        q -= _choose(lo, i)


@kernel
def position_at(k, at, keys, offsets, scratch):
    """The position of index ``at`` of level k (West on lead), laid out as :mod:`.bits` does — the trump suit at
    the bottom, then the side suits in ascending order of type and pattern: (W, B, tf).  ``keys`` and
    ``offsets`` are :func:`shapes` (k); ``scratch``: int64[8]."""
    lo = np.int64(0)
    hi = np.int64(keys.shape[0])
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if offsets[mid] <= at:
            lo = mid
        else:
            hi = mid
    key = keys[lo]
    rest = at - offsets[lo]
    tf = np.int64((key >> np.int64(40)) & np.int64(1))
    trump = (key >> np.int64(32)) & np.int64(255)
    # The side suits' types, ascending, and their groups from the last: each group's multiset rank is a digit.
    count = 0
    for slot in range(4):
        c = (key >> np.int64(24 - 8 * slot)) & np.int64(255)
        if c != 0:
            scratch[count] = c
            count += 1
    end = count
    while end > 0:
        code = scratch[end - 1]
        begin = end - 1
        while begin > 0 and scratch[begin - 1] == code:
            begin -= 1
        g = end - begin
        patterns = _BINOM[code // _SPAN, code % _SPAN]
        radix = _choose(patterns + g - 1, g)
        _multiset(patterns, g, rest % radix, scratch, 4 + begin)
        rest //= radix
        end = begin
    W = ZERO
    B = ZERO
    offset = np.uint64(0)
    if tf != 0:
        m = trump // _SPAN
        W |= np.uint64(_PATTERN_OF[_PATTERN_START[trump] + rest]) << offset
        B |= ONE << offset
        offset += np.uint64(m)
    for i in range(count):
        code = scratch[i]
        W |= np.uint64(_PATTERN_OF[_PATTERN_START[code] + scratch[4 + i]]) << offset
        B |= ONE << offset
        offset += np.uint64(code // _SPAN)
    return W, B | (ONE << offset), tf


@kernel
def _trick_value(W, B, tf, k, ends):
    """West's tricks with West on lead: the best lead against the best reply, the rest from level k − 1 of
    ``ends``.  The top cards are tried first and a lead is dropped at the first reply that holds it to what an
    earlier lead already makes (alpha-beta over one trick)."""
    E = ((ONE << np.uint64(2 * k)) - ONE) & ~W
    tmask = trump_mask(B, tf)
    runs = bottoms(E, B)
    leads = bottoms(W, B)
    best = np.int64(-1)
    while leads != ZERO:
        p = high(leads)
        leads ^= p
        S = segment(B, p)
        replies = runs & S if (E & S) != ZERO else runs
        worst = np.int64(k + 1)
        while replies != ZERO:
            q = low(replies)
            replies ^= q
            west_won = not follower_wins(S, tmask, p, q)
            v = np.int64(1 if west_won else 0)
            if k > 1:
                W2, B2, tf2 = play(W, B, tf, tmask, p, q)
                v += ending_value(W2, B2, tf2, np.int64(0 if west_won else 1), k - 1, ends)
            if v < worst:
                worst = v
                if worst <= best:
                    break
        if worst > best:
            best = worst
            if best == k:
                break
    return best


@kernel(parallel=True)
def _build_words(k, first, out, ends, keys, offsets):
    """Level k's values of the positions first, first + 1, … into ``out`` (uint64 words of 16), each from level
    k − 1 of ``ends``; the words in parallel."""
    size = offsets[offsets.shape[0] - 1]
    for w in prange(out.shape[0]):
        scratch = np.empty(8, dtype=np.int64)
        word = ZERO
        base = first + ENTRIES_A_WORD * w
        for j in range(ENTRIES_A_WORD):
            at = base + j
            if at >= size:
                break
            W, B, tf = position_at(k, at, keys, offsets, scratch)
            word |= np.uint64(_trick_value(W, B, tf, k, ends)) << np.uint64(4 * j)
        out[w] = word


# -- a table of levels 1 … K ------------------------------------------------------------------------------


class EndingTable:
    """Levels of the table as the kernels read them: one int64 array, ``words``.

    Its layout: ``words[0]`` = K, the largest level it may hold; ``words[k]`` = where level k's section starts
    (0: level k is not held); a section is level k's size, the bits of its hash table, its chunks, the hash
    table's keys and first indexes, the chunk directory (where each chunk's values start, −1: not held), then
    the values.  A table may hold whole levels (the shipped one, the builder's) or some chunks of a level (what a
    look-up in the catalogue needs): :func:`ending_value` is −1 for what it lacks, and the search goes on there.
    ``origin`` says where the values came from (the answers name it)."""

    __slots__ = ("words", "origin")

    def __init__(self, words: np.ndarray, origin: str = "the shipped table") -> None:
        self.words = words
        self.origin = origin

    @classmethod
    def allocate(cls, held: Mapping[int, Iterable[int]], origin: str = "the shipped table") -> EndingTable:
        """A table with room for chunks ``held[k]`` of each level k, their values zero until written through
        :meth:`chunk_view`: a level read or built chunk by chunk goes straight to its place (one copy in memory)."""
        top = max(held, default=0)
        plan: list[tuple[int, int, np.ndarray, np.ndarray]] = []
        total = top + 1
        for k in sorted(held):
            header = _level_header(k)
            directory = np.full(chunk_count(k), -1, dtype=np.int64)
            place = total + len(header) + len(directory)
            for c in sorted(set(held[k])):
                start, stop = chunk_range(k, c)
                directory[c] = place
                place += -(-(stop - start) // ENTRIES_A_WORD)
            plan.append((k, total, header, directory))
            total = place
        words = np.zeros(total, dtype=np.int64)
        words[0] = top
        for k, at, header, directory in plan:
            words[k] = at
            words[at : at + len(header)] = header
            words[at + len(header) : at + len(header) + len(directory)] = directory
        return cls(words, origin)

    def chunk_view(self, k: int, c: int) -> np.ndarray:
        """Chunk c of level k's values as bytes: a writable view into :attr:`words` (the chunk must be held)."""
        section = int(self.words[k]) if 1 <= k <= self.max_k else 0
        base = int(self.words[section + 3 + (2 << int(self.words[section + 1])) + c]) if section else -1
        if base < 0:
            raise ValueError(f"the table holds no chunk {c} of level {k}")
        start, stop = chunk_range(k, c)
        return self.words[base : base - (-(stop - start) // ENTRIES_A_WORD)].view(np.uint8)

    @classmethod
    def of_chunks(cls, chunks: Mapping[int, Mapping[int, np.ndarray | bytes]], origin: str = "the shipped table"
                  ) -> EndingTable:
        """The table of ``chunks[k][c]``: chunk c of level k's values as bytes (two positions a byte, low nibble
        first, whole words), as :func:`build_level` gives them and the catalogue stores them."""
        table = cls.allocate({k: list(held) for k, held in chunks.items()}, origin)
        for k, held in chunks.items():
            for c, given in held.items():
                raw = np.frombuffer(given, dtype=np.uint8) if isinstance(given, bytes) else given
                place = table.chunk_view(k, c)
                if raw.dtype != np.uint8 or raw.shape != place.shape:
                    raise ValueError(f"chunk {c} of level {k} has {place.nbytes:,} bytes of values, not {raw.nbytes:,}")
                place[:] = raw
        return table

    @classmethod
    def of_levels(cls, levels: Sequence[np.ndarray | bytes], origin: str = "the shipped table") -> EndingTable:
        """The table of whole levels 1 … K, ``levels[k − 1]`` level k's values as bytes."""
        chunks: dict[int, dict[int, np.ndarray]] = {}
        for k, values in enumerate(levels, 1):
            raw = np.frombuffer(values, dtype=np.uint8) if isinstance(values, bytes) else values
            if raw.dtype != np.uint8 or raw.shape != (level_bytes(k),):
                raise ValueError(f"level {k} of the table has {level_bytes(k):,} bytes of values, not {raw.nbytes:,}")
            chunks[k] = {c: raw[start // 2 : -(-stop // ENTRIES_A_WORD) * 8]
                         for c in range(chunk_count(k)) for start, stop in [chunk_range(k, c)]}
        return cls.of_chunks(chunks, origin)

    @property
    def max_k(self) -> int:
        """The largest level the table may hold (whole or in part)."""
        return int(self.words[0])

    def held(self, k: int) -> list[int]:
        """The chunks of level k the table holds."""
        if not 1 <= k <= self.max_k or self.words[k] == 0:
            return []
        section = int(self.words[k])
        directory = section + 3 + (2 << int(self.words[section + 1]))
        return np.flatnonzero(self.words[directory : directory + int(self.words[section + 2])] >= 0).tolist()

    def level(self, k: int) -> np.ndarray:
        """Level k's values as bytes (a view): the table must hold all of it."""
        if not 1 <= k <= self.max_k or len(self.held(k)) != chunk_count(k):
            raise ValueError(f"the table does not hold all of level {k}")
        section = int(self.words[k])
        directory = section + 3 + (2 << int(self.words[section + 1]))
        first = int(self.words[directory])
        return self.words[first : first + level_bytes(k) // 8].view(np.uint8)

    def places(self, W: int, B: int, tf: int, lead: int = -1, led: int = 0) -> list[tuple[int, int]]:
        """(level, index) of every position the table needs to answer this one from itself — its value with
        ``lead`` on lead (−1: either side) and every legal card's result (after the card at bit ``led``, if one
        was led).  The index is −1 where the table has no index of the level (it holds none of it) or the
        position is outside the table's format (five suits, a suit of 14 cards)."""
        k = int(W).bit_count()
        out = np.zeros((2 + 2 * (2 * k) * (2 * k), 2), dtype=np.int64)
        count = _places(np.uint64(W), np.uint64(B), tf, lead, np.uint64(led), self.words, out)
        return [(int(a), int(b)) for a, b in out[:count].tolist()]

    def answers(self, W: int, B: int, tf: int, lead: int = -1, led: int = 0) -> bool:
        """Whether the table answers this position by itself: its value with ``lead`` on lead (−1: either side)
        and every legal card's result (after the card at bit ``led``, if one was led) are positions it holds."""
        # After a lead only level k − 1 is asked: a table for such a position may hold nothing of level k.
        if int(W).bit_count() - (1 if led else 0) > self.max_k:
            return False
        words = self.words
        for k, at in self.places(W, B, tf, lead, led):
            section = int(words[k]) if at >= 0 else 0  # a place found: the table has an index of level k
            if not section or words[section + 3 + (2 << int(words[section + 1])) + (at >> CHUNK_BITS)] < 0:
                return False  # no index of the level, or the chunk of the place is not held
        return True

    @property
    def nbytes(self) -> int:
        return self.words.nbytes


def build_level(k: int, below: EndingTable, start: int = 0, stop: int | None = None) -> np.ndarray:
    """Level k's values of the positions [start, stop) (start a multiple of :data:`ENTRIES_A_WORD`; stop at most
    the level's size, default all of it) as bytes, from ``below`` holding levels 1 … k − 1."""
    if below.max_k < k - 1:
        raise ValueError(f"level {k} is computed from level {k - 1}; the table holds levels up to {below.max_k}")
    size = level_size(k)
    stop = size if stop is None else stop
    if start % ENTRIES_A_WORD or not 0 <= start <= stop <= size:
        raise ValueError(f"positions [{start}, {stop}) of level {k} (of {size:,}) do not start at a word")
    keys, offsets = shapes(k)
    out = np.zeros(-(-(stop - start) // ENTRIES_A_WORD), dtype=np.uint64)
    _build_words(k, start, out, below.words, keys, offsets)
    if stop < size:
        # The last word of a range that ends inside it holds positions of the next range: zero them.
        tail = stop - start - ENTRIES_A_WORD * (len(out) - 1)
        if tail < ENTRIES_A_WORD:
            out[-1] &= np.uint64((1 << (4 * tail)) - 1)
    return out.view(np.uint8)


def built_endings(max_k: int = MAX_ENDING_N, progress: Callable[[int], None] | None = None) -> EndingTable:
    """Levels 1 … ``max_k`` computed here and now (levels ≤ 8: about a second, and Numba's compilation on a first
    run); ``progress(k)`` after each."""
    levels: list[np.ndarray] = []
    table = EndingTable.of_levels(levels)
    for k in range(1, max_k + 1):
        levels.append(build_level(k, table))
        table = EndingTable.of_levels(levels)
        if progress is not None:
            progress(k)
    return table


def encode_endings(table: EndingTable) -> bytes:
    """The shipped file's bytes: magic, then the table's words (its levels' hash tables of shapes included, so
    that loading it is one decompression) LZMA-compressed — whose own CRC rejects a damaged file."""
    return _MAGIC + lzma.compress(table.words.astype("<i8").tobytes(), preset=9 | lzma.PRESET_EXTREME)


@cache
def endings() -> EndingTable:
    """Levels 1 … :data:`MAX_ENDING_N`: the shipped :data:`ENDINGS_FILE`, or built if that is missing or not this
    table (``tests/test_twohand_endings.py`` checks the shipped file against a build)."""
    try:
        with open(os.path.join(os.path.dirname(__file__), ENDINGS_FILE), "rb") as f:
            raw = f.read()
        if raw.startswith(_MAGIC):
            words = np.frombuffer(lzma.decompress(raw[len(_MAGIC):]), dtype="<i8").copy()
            if len(words) > MAX_ENDING_N and words[0] == MAX_ENDING_N:
                return EndingTable(words)
    except (OSError, ValueError, lzma.LZMAError):
        pass
    return built_endings()


def write_endings(path: str | None = None) -> None:
    """Regenerate the shipped file: ``.venv/bin/python -c "from whist_catalogue.twohand.endings import
    write_endings; write_endings()"`` (into the package's folder, or ``path``)."""
    target = path or os.path.join(os.path.dirname(__file__), ENDINGS_FILE)
    with open(target, "wb") as f:
        f.write(encode_endings(built_endings()))
