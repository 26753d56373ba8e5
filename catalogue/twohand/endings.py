"""Every small ending of two-hand whist, solved once: West's tricks from each position of at most
:data:`MAX_ENDING_N` cards a hand in at most :data:`MAX_ENDING_SUITS` suits, trumps or not, either side on lead.

The search (:mod:`.kernels`) looks an ending up instead of searching it: the last tricks of every deal end
here, and they are most of a search's positions.  A position is its cards' relative order (:mod:`.bits`), so
the endings are finitely many: for k cards a hand, West's k cards among the 2k (C(2k, k) ways), the suits' cut
points among the 2k − 1 gaps (at most three), whether the bottom suit is trumps, and who leads.  Only West's
lead is stored: with East on lead, swapping the hands gives an ending with "West" on lead, and West takes the
tricks the other does not.  The table is filled by retrograde analysis, k = 1, 2, …: an ending's value is the
best lead's worst reply (the rules of the game, one trick), the position after the trick being an ending of
k − 1 cards already in the table.

Each ending's index: the colex rank of West's cards among the 2k, the rank of the cut points among the sets of
at most three, and the trump bit — one byte of West's tricks each, 3,098,952 bytes in all for k ≤ 7 (built in
about a second), shipped LZMA-compressed (300 kB; read in about 20 ms) in :data:`ENDINGS_FILE` beside this
module (:func:`write_endings` regenerates it).  Seven cards a hand rather than six save about 40 % of the
search's positions at 9 and 13 cards a hand (docs/benchmarks.md).
"""

from __future__ import annotations

import lzma
import os
from functools import cache
from math import comb

import numpy as np

from whist_catalogue.twohand.bits import ONE, ZERO, bottoms, follower_wins, index, low, play, pop, segment, trump_mask
from whist_catalogue.theory.jit import kernel

__all__ = [
    "MAX_ENDING_N", "MAX_ENDING_SUITS", "OFFSETS", "ENDINGS_FILE", "ending_index", "ending_value", "build_endings",
    "built_endings",
    "endings", "encode_endings", "write_endings",
]

MAX_ENDING_N = 7
"""The largest ending in the table, in cards a hand: 2,594,592 entries of 7 cards (West on lead); 8 would be six
times more."""
MAX_ENDING_SUITS = 4
"""The most suits an ending in the table has (a pack has four; an ending of more suits is searched)."""
ENDINGS_FILE = "endings.bin"
_MAGIC = b"WHIST-TWO-HAND-ENDINGS-2\n"

_BINOM = np.array([[comb(n, r) for r in range(2 * MAX_ENDING_N + 1)] for n in range(2 * MAX_ENDING_N + 1)],
                  dtype=np.int64)


def _cut_sets(k: int) -> int:
    """How many ways the 2k cards split into at most :data:`MAX_ENDING_SUITS` suits (cut points among 2k − 1 gaps)."""
    return sum(comb(2 * k - 1, c) for c in range(MAX_ENDING_SUITS))


def _sizes() -> np.ndarray:
    offsets = [0, 0]  # k = 0 has no entry: nothing left to play
    for k in range(1, MAX_ENDING_N + 1):
        offsets.append(offsets[-1] + comb(2 * k, k) * _cut_sets(k) * 2)
    return np.array(offsets, dtype=np.int64)


OFFSETS = _sizes()
"""``OFFSETS[k]``: where the endings of k cards a hand start; ``OFFSETS[MAX_ENDING_N + 1]`` entries in all."""
_CUTS = np.array([_cut_sets(k) if k else 0 for k in range(MAX_ENDING_N + 1)], dtype=np.int64)


@kernel(inline="always")
def ending_index(W, B, tf, k):
    """Where the ending (k cards a hand, at most four suits, West on lead) is in the table."""
    rank = np.int64(0)
    i = 1
    x = W
    while x != ZERO:
        b = low(x)
        x ^= b
        rank += _BINOM[index(b), i]
        i += 1
    gaps = 2 * k - 1
    cuts = (B & ~ONE) & ((ONE << np.uint64(2 * k)) - ONE)  # the interior suit starts, at 1 … 2k − 1
    count = pop(cuts)
    cut_rank = np.int64(0)
    for c in range(count):
        cut_rank += _BINOM[gaps, c]
    i = 1
    while cuts != ZERO:
        b = low(cuts)
        cuts ^= b
        cut_rank += _BINOM[index(b) - 1, i]
        i += 1
    return OFFSETS[k] + (rank * _CUTS[k] + cut_rank) * 2 + tf


@kernel(inline="always")
def ending_value(W, B, tf, lead, k, table):
    """West's tricks in an ending.  The table holds West on lead only: with East on lead, the hands swapped
    make East the one on lead as "West", and West takes the tricks East would not."""
    if lead == 0:
        return np.int64(table[ending_index(W, B, tf, k)])
    return k - np.int64(table[ending_index(((ONE << np.uint64(2 * k)) - ONE) & ~W, B, tf, k)])


@kernel
def _one_trick(W, B, tf, lead, k, table):
    """West's tricks: the leader's best card against the follower's best reply, the rest from the table."""
    sentinel = ONE << np.uint64(2 * k)
    E = (sentinel - ONE) & ~W
    leader = W if lead == 0 else E
    follower = E if lead == 0 else W
    tmask = trump_mask(B, tf)
    runs = bottoms(follower, B)
    leads = bottoms(leader, B)
    best = np.int64(-1) if lead == 0 else np.int64(k + 1)
    while leads != ZERO:
        p = low(leads)
        leads ^= p
        S = segment(B, p)
        replies = runs & S if (follower & S) != ZERO else runs
        worst = np.int64(k + 1) if lead == 0 else np.int64(-1)
        while replies != ZERO:
            q = low(replies)
            replies ^= q
            taken = follower_wins(S, tmask, p, q)
            west_won = taken if lead != 0 else not taken
            value = np.int64(1 if west_won else 0)
            if k > 1:
                W2, B2, tf2 = play(W, B, tf, tmask, p, q)
                value += ending_value(W2, B2, tf2, np.int64(0 if west_won else 1), k - 1, table)
            if (lead == 0 and value < worst) or (lead != 0 and value > worst):
                worst = value
        if (lead == 0 and worst > best) or (lead != 0 and worst < best):
            best = worst
    return best


@kernel
def build_endings(table):
    """Fill the table, k = 1 … :data:`MAX_ENDING_N`: each ending from the endings one trick shorter."""
    for k in range(1, MAX_ENDING_N + 1):
        size = 2 * k
        sentinel = ONE << np.uint64(size)
        W = (ONE << np.uint64(k)) - ONE
        last = W << np.uint64(k)
        while True:
            for c0 in range(1, size + 1):  # c0 = size: no cut at all; then the others likewise
                for c1 in range(c0 + 1 if c0 < size else size, size + 1):
                    for c2 in range(c1 + 1 if c1 < size else size, size + 1):
                        B = ONE | sentinel
                        if c0 < size:
                            B |= ONE << np.uint64(c0)
                        if c1 < size:
                            B |= ONE << np.uint64(c1)
                        if c2 < size:
                            B |= ONE << np.uint64(c2)
                        for tf in range(2):
                            table[ending_index(W, B, tf, k)] = _one_trick(W, B, tf, np.int64(0), k, table)
            if W == last:
                break
            # The next mask with k bits set (Gosper's hack).
            c = W & (~W + ONE)
            r = W + c
            W = (((r ^ W) >> np.uint64(2)) // c) | r


def encode_endings(table: np.ndarray) -> bytes:
    """The file's bytes: magic, then the table LZMA-compressed (half zlib's size for this table)."""
    return _MAGIC + lzma.compress(table.astype(np.int8).tobytes(), preset=9 | lzma.PRESET_EXTREME)


def built_endings() -> np.ndarray:
    """The table computed here and now (about a second, and Numba's compilation on a first run)."""
    table = np.zeros(int(OFFSETS[-1]), dtype=np.int8)
    build_endings(table)
    return table


@cache
def endings() -> np.ndarray:
    """The table of every ending, as int8 West's tricks: the shipped :data:`ENDINGS_FILE`, or built if that is
    missing or not this table (``tests/test_twohand_endings.py`` checks the shipped file against a build)."""
    try:
        with open(os.path.join(os.path.dirname(__file__), ENDINGS_FILE), "rb") as f:
            raw = f.read()
        if raw.startswith(_MAGIC):
            table = np.frombuffer(lzma.decompress(raw[len(_MAGIC):]), dtype=np.int8).copy()
            if table.shape == (int(OFFSETS[-1]),):
                return table
    except (OSError, lzma.LZMAError):
        pass
    return built_endings()


def write_endings(path: str | None = None) -> None:
    """Regenerate the shipped file: ``.venv/bin/python -c "from whist_catalogue.twohand.endings import
    write_endings; write_endings()"`` (into the package's folder, or ``path``)."""
    target = path or os.path.join(os.path.dirname(__file__), ENDINGS_FILE)
    with open(target, "wb") as f:
        f.write(encode_endings(built_endings()))
