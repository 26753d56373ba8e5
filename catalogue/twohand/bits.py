"""A two-hand position's cards in one 64-bit word, and what a trick does to them (for :mod:`.kernels`).

The cards in play are bits 0 … 2k − 1, suit by suit, each suit's cards lowest first, the trump suit (while it
has cards) at the bottom; only cards still in play are there, so the bits keep the cards' *relative* order,
which is all that matters (docs/spec.md §2).  ``W`` is West's cards; ``B`` has a bit at the lowest card of each
suit and the sentinel bit 2k above the top card; ``tf`` is 1 when the bottom suit is trumps.  Cards of a suit
adjacent among the cards in play and held by one hand are equivalent, and here they are adjacent bits.
Playing a card takes its bit out and shifts the bits above it down, so the position stays canonical.

Bits are passed as isolated bits (``b``: one bit set) wherever a card is meant.  LLVM's population count and
bit scans do the counting (:func:`_ctpop`, :func:`_ctlz`, :func:`_cttz`).
"""

from __future__ import annotations

from typing import Any, Callable, cast

import numpy as np
from numba import types
from numba.extending import intrinsic

from whist_catalogue.theory.jit import kernel

ONE = np.uint64(1)
ZERO = np.uint64(0)


def _population_count(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


def _leading_zeros(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], context.get_constant(types.boolean, True))  # x is never 0 here

    return x(x), codegen


def _trailing_zeros(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, True))  # nor here

    return x(x), codegen


# LLVM's own instructions, called from the kernels as functions of one integer (typed as such for the checker:
# Numba's ``intrinsic`` hides the typing context it passes).
_ctpop = cast(Callable[[Any], Any], intrinsic(_population_count))
_ctlz = cast(Callable[[Any], Any], intrinsic(_leading_zeros))
_cttz = cast(Callable[[Any], Any], intrinsic(_trailing_zeros))


@kernel(inline="always")
def pop(x):
    return np.int64(_ctpop(x))


@kernel(inline="always")
def low(x):
    """The lowest set bit of x, isolated."""
    return x & (~x + ONE)


@kernel(inline="always")
def high(x):
    """The highest set bit of a nonzero x, isolated."""
    return ONE << (np.uint64(63) - _ctlz(x))


@kernel(inline="always")
def index(b):
    """The position of an isolated bit."""
    return np.int64(_cttz(b))


@kernel(inline="always")
def delete(x, b):
    """x with the bit at isolated bit b taken out and the bits above it shifted down."""
    return ((x & ~((b << ONE) - ONE)) >> ONE) | (x & (b - ONE))


@kernel(inline="always")
def delete_card(B, b):
    """The suit starts and sentinel after the card at b is played: if b started its suit, the card above
    (or the next suit's start, or the sentinel) starts it now."""
    return delete(B, b) | (B & b)


@kernel(inline="always")
def segment(B, b):
    """The cards of the suit holding the card at b, as a mask."""
    above = B & ~((b << ONE) - ONE)
    below = B & ((b << ONE) - ONE)
    return low(above) - high(below)


@kernel(inline="always")
def bottoms(hand, B):
    """The lowest card of each run of equivalent cards of ``hand``: one card a run is enough to search."""
    return hand & ~((hand << ONE) & ~B)


@kernel(inline="always")
def trump_mask(B, tf):
    if tf == 0:
        return ZERO
    return low(B & (B - ONE)) - ONE


@kernel(inline="always")
def play(W, B, tf, tmask, p, q):
    """The position after the leader's p and the follower's q (isolated bits): (W, B, tf)."""
    hi = p if p > q else q
    lo = q if p > q else p
    W2 = delete(delete(W, hi), lo)
    B2 = delete_card(delete_card(B, hi), lo)
    tf2 = tf
    if tf != 0:
        left = pop(tmask) - (1 if (p & tmask) != 0 else 0) - (1 if (q & tmask) != 0 else 0)
        if left == 0:
            tf2 = np.int64(0)
    return W2, B2, tf2


@kernel(inline="always")
def follower_wins(S, tmask, p, q):
    if (q & S) != 0:
        return q > p
    return (q & tmask) != 0


@kernel(inline="always")
def run_top(hand, B, b):
    """The highest card of the run of equivalent cards that b starts."""
    while ((b << ONE) & hand) != ZERO and ((b << ONE) & B) == ZERO:
        b <<= ONE
    return b


@kernel(inline="always")
def top_run(mine, theirs):
    """How many of ``mine`` are above every card of ``theirs`` (one suit's cards)."""
    if theirs == ZERO:
        return pop(mine)
    return pop(mine & ~((high(theirs) << ONE) - ONE))


