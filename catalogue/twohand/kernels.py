"""The Numba search of two-hand whist: every deal, any suits, trumps or none (see :mod:`.solver` for the API).

**A position** at the start of a trick is four numbers (:mod:`.bits` lays its cards out in one 64-bit word):

* ``W``: West's cards (East holds the other bits below the sentinel);
* ``B``: the lowest card of each suit in play, and the sentinel bit 2k above the top card;
* ``tf``: 1 when the bottom suit is trumps;
* ``lead``: 0 when West leads the trick, 1 when East does.

A trick removes two bits and shifts the bits above each down: the position after it is canonical again,
so it is its own key in the transposition table (``W``, and ``B`` with ``tf`` and ``lead`` in its top
bits) — positions that differ only in cards already played meet there, within a deal and across deals.

**The search** asks a null-window question, "does West take at least t of the tricks left?", trick by
trick: the leader's card, then the follower's reply (follow suit if you can, else ruff or discard; the
highest trump wins, else the highest card of the suit led).  Equivalent cards are tried once (the lowest
of each run); the leads are tried the table's first, then each suit's top winners, then the rest from the
highest, and the replies the cheapest winning card (or ruff) first.  The table keeps, for each position,
bounds on West's tricks and the card that decided.  Before searching a position: an ending of at most
as many cards a hand as the table of endings holds is looked up (:mod:`.endings`); a position whose suits are all
even is a theory leaf (:mod:`.leaves`, Theorem 9.1 of the multi-suit paper); the leader's sure tricks bound
West's tricks from one side.  Exact values come from a few null-window questions (MTD(f)-style stepping from a
guess: for the second leader, the first leader's result).

Counters (``stats``): positions searched, theory leaves, table cut-offs, endings looked up.
"""

from __future__ import annotations

import numpy as np

from whist_catalogue.twohand.bits import (
    ONE, ZERO, bottoms, follower_wins, high, index, low, play, pop, run_top, segment, top_run, trump_mask,
)
from whist_catalogue.twohand.endings import ending_value
from whist_catalogue.theory.jit import kernel
from whist_catalogue.twohand.leaves import LEAF_MAX_N, rho

__all__ = [
    "TABLE_COLUMNS",
    "STAT_NODES",
    "STAT_LEAVES",
    "STAT_CUTOFFS",
    "STAT_ENDINGS",
    "N_STATS",
    "solve_root",
    "solve_batch",
    "solve_after_lead",
    "play_line",
]

_TRUMP_FLAG = np.uint64(1) << np.uint64(62)
_EAST_FLAG = np.uint64(1) << np.uint64(63)
_MIX1 = np.uint64(0x9E3779B97F4A7C15)
_MIX2 = np.uint64(0xC2B2AE3D27D4EB4F)
_SHIFT29 = np.uint64(29)

TABLE_COLUMNS = 3
"""A table entry: West's cards, ``B`` with the trump and leader flags, and the data (lower bound, upper
bound, the deciding card's bit + 1, a byte each)."""
STAT_NODES, STAT_LEAVES, STAT_CUTOFFS, STAT_ENDINGS = 0, 1, 2, 3
N_STATS = 4


@kernel(inline="always")
def _slot(W, K2, size_mask):
    h = (W * _MIX1) ^ (K2 * _MIX2)
    h ^= h >> _SHIFT29
    return np.int64(h & size_mask)


@kernel(inline="always")
def _survey(W, B, lead, tmask, codes):
    """One pass over the suits of a trick start: (West's tricks if it is a theory leaf else −1, the leader's sure
    tricks, the leader's winning leads).

    **A theory leaf**: every suit even (and of at most 8 cards a hand): West's tricks are ρ(Σ val), Theorem 9.1
    of the multi-suit paper (:mod:`.leaves`); nobody can ruff or discard from there, so trumps cannot matter.

    **Sure tricks**: in a suit, the leader's top run (his cards above the follower's highest) wins a trick a
    card; once the follower has no card of the suit left, every card the leader has left in it wins too.  With
    trumps, a follower who still holds trumps may ruff: the leader first draws them with his top trumps when
    his top run of trumps covers them (then every suit counts as without trumps); else only his top trumps and,
    in each side suit, the top cards the follower must still follow to count.  The follower's discards only make
    the leader's cards better, so the count is a lower bound on the leader's tricks.

    **Winning leads**: the lowest card of the leader's top run in each suit, tried first.
    """
    sentinel = high(B)
    E = (sentinel - ONE) & ~W
    leader = W if lead == 0 else E
    follower = E if lead == 0 else W
    ruffs = pop(follower & tmask)
    drawn = ruffs == 0 or ruffs <= top_run(leader & tmask, follower & tmask)
    leaf = codes.shape[0] > 0  # an empty table: leaves turned off
    total = np.int64(0)
    sure = np.int64(0)
    winners = ZERO
    starts = B
    while starts != sentinel:
        lo = low(starts)
        starts ^= lo
        S = low(starts) - lo
        mine = leader & S
        theirs = follower & S
        held = pop(theirs)
        count = pop(mine)
        if leaf:
            if count != held or count > LEAF_MAX_N:
                leaf = False
            else:
                total += codes[np.int64(((W & S) >> np.uint64(index(lo))) | (ONE << np.uint64(2 * count)))]
        if mine == ZERO:
            continue
        top = mine if theirs == ZERO else mine & ~((high(theirs) << ONE) - ONE)
        run = pop(top)
        if top != ZERO:
            winners |= low(top)
        if drawn:
            sure += count if held <= run else run
        elif (S & tmask) != ZERO:
            sure += run
        else:
            sure += run if run < held else held
    if leaf:
        west_leads, east_leads = rho(total)
        return (west_leads if lead == 0 else east_leads), sure, winners
    return np.int64(-1), sure, winners


# The recursion is one function typed once, so that every call meets one compiled version (Numba would
# otherwise specialise it on literal arguments, and recursion between specialisations fails to link).
@kernel("boolean(uint64, uint64, int64, int64, int64, uint64, uint64[:, ::1], int64[::1], int64[::1], int64[::1])")
def _ge(W, B, tf, lead, t, only, tt, codes, ends, stats):
    """Does West take at least t of the tricks left, from the start of a trick?  ``only``: the bit of the one
    lead to consider (then the answer is that lead's, and the table is neither read nor written), or 0."""
    k = pop(W)
    if t <= 0:
        return True
    if t > k:
        return False
    if only == ZERO and k <= ends[0]:
        known = ending_value(W, B, tf, lead, k, ends)
        if known >= 0:
            stats[STAT_ENDINGS] += 1
            return known >= t
    stats[STAT_NODES] += 1
    tmask = trump_mask(B, tf)
    leaf, sure, winners = _survey(W, B, lead, tmask, codes)
    if leaf >= 0:
        stats[STAT_LEAVES] += 1
        return leaf >= t
    if only == ZERO:
        if lead == 0 and sure >= t:
            return True
        if lead != 0 and k - sure < t:
            return False
    K2 = B | (_TRUMP_FLAG if tf != 0 else ZERO) | (_EAST_FLAG if lead != 0 else ZERO)
    i = _slot(W, K2, np.uint64(tt.shape[0] - 1))
    lo = np.int64(0)
    hi = k
    best = ZERO
    if only == ZERO and tt[i, 0] == W and tt[i, 1] == K2:
        data = tt[i, 2]
        lo = np.int64(data & np.uint64(255))
        hi = np.int64((data >> np.uint64(8)) & np.uint64(255))
        if lo >= t or hi < t:
            stats[STAT_CUTOFFS] += 1
            return lo >= t
        b = np.int64((data >> np.uint64(16)) & np.uint64(255))
        if b > 0:
            best = ONE << np.uint64(b - 1)
    sentinel = high(B)
    E = (sentinel - ONE) & ~W
    leader = W if lead == 0 else E
    follower = E if lead == 0 else W
    follower_runs = bottoms(follower, B)
    cands = only if only != ZERO else bottoms(leader, B)
    if (best & cands) == ZERO:
        best = low(cands)
    # Leads in order: the table's, then the winning leads, then the others, highest first.
    winners &= cands & ~best
    later = cands & ~best & ~winners
    # West leading looks for one lead that holds against every reply; East leading, for one lead that no
    # West reply answers.  ``found`` is the answer to "West takes t" once the loop is through.
    found = lead != 0
    decisive = best
    p = best
    while True:
        S = segment(B, p)
        if (follower & S) != ZERO:
            replies = follower_runs & S
            first = low(replies & ~((p << ONE) - ONE))  # the cheapest card that wins
        else:
            replies = follower_runs
            first = low(replies & tmask)  # the cheapest ruff
        if first == ZERO:
            first = low(replies)
        others = replies ^ first
        q = first
        answered = lead == 0  # West led: every reply so far leaves West t tricks
        while True:
            taken = follower_wins(S, tmask, p, q)
            west_won = taken if lead != 0 else not taken
            W2, B2, tf2 = play(W, B, tf, tmask, p, q)
            if west_won:
                r = _ge(W2, B2, tf2, np.int64(0), t - 1, ZERO, tt, codes, ends, stats)
            else:
                r = _ge(W2, B2, tf2, np.int64(1), t, ZERO, tt, codes, ends, stats)
            if r != (lead == 0):
                answered = r  # East's refutation of West's lead, or West's answer to East's lead
                break
            if others == ZERO:
                break
            q = low(others)
            others ^= q
        if answered == (lead == 0):
            found = lead == 0
            decisive = p
            break
        if winners != ZERO:
            p = high(winners)
            winners ^= p
        elif later != ZERO:
            p = high(later)
            later ^= p
        else:
            break
    if only != ZERO:
        return found
    if found:
        lo = t
    else:
        hi = t - 1
    tt[i, 0] = W
    tt[i, 1] = K2
    tt[i, 2] = np.uint64(lo) | (np.uint64(hi) << np.uint64(8)) | (np.uint64(index(decisive) + 1) << np.uint64(16))
    return found


@kernel(inline="always")
def _value(W, B, tf, lead, guess, tt, codes, ends, stats):
    """West's tricks from the start of a trick: null-window questions stepping from ``guess`` (no card led yet,
    anywhere from none to every trick)."""
    return _lead_value(W, B, tf, lead, ZERO, guess, np.int64(0), pop(W), tt, codes, ends, stats)


@kernel
def _lead_value(W, B, tf, lead, p, guess, lo, hi, tt, codes, ends, stats):
    """West's tricks from the start of this trick on when the leader plays p (``ZERO``: none led yet), known to
    lie in [lo, hi]: a lead is worth at most the position's value to its leader, so with that value as a bound a
    best lead takes one question, not two."""
    g = guess
    while lo < hi:
        t = min(max(g, lo + 1), hi)
        if _ge(W, B, tf, lead, t, p, tt, codes, ends, stats):
            lo = t
            g = t + 1
        else:
            hi = t - 1
            g = t - 1
    return lo


@kernel
def solve_root(W, B, tf, lead, guess, tt, codes, ends, stats, results):
    """West's tricks from a trick start with ``lead`` on lead (the search starts from ``guess``); every legal
    card's result into ``results`` (by card position; the others untouched)."""
    v = _value(W, B, tf, lead, guess, tt, codes, ends, stats)
    sentinel = high(B)
    leader = W if lead == 0 else (sentinel - ONE) & ~W
    cands = bottoms(leader, B)
    while cands != ZERO:
        p = low(cands)
        cands ^= p
        if lead == 0:
            r = _lead_value(W, B, tf, lead, p, v, np.int64(0), v, tt, codes, ends, stats)
        else:
            r = _lead_value(W, B, tf, lead, p, v, v, pop(W), tt, codes, ends, stats)
        top = run_top(leader, B, p)
        b = p
        while b <= top:
            results[index(b)] = r
            b <<= ONE
    return v


@kernel
def solve_batch(Ws, Bs, tfs, leads, leds, tt, codes, ends, stats, values, results):
    """Many deals and positions in one call.  ``leads[d]`` −1: a whole deal, both leaders at its first trick —
    ``values[d]`` West's tricks with West, with East on lead, ``results[d, leader, card]`` each legal first card's
    result.  Else a position with ``leads[d]`` on lead (0 West, 1 East): ``values[d, 0]`` West's tricks from it and
    ``results[d, 0, card]`` each legal card's result for the player to move — the leader, or, after the lead of
    the card at bit ``leds[d]`` (0: none), the follower.  −1 stays where a card is not legal; ``stats[d]`` the
    deal's counters."""
    for d in range(Ws.shape[0]):
        W, B, tf = Ws[d], Bs[d], tfs[d]
        if leads[d] < 0:
            west = solve_root(W, B, tf, 0, (pop(W) + 1) // 2, tt, codes, ends, stats[d], results[d, 0])
            values[d, 0] = west
            # The lead is worth at most a trick or so: West's tricks with West on lead are East's first guess.
            values[d, 1] = solve_root(W, B, tf, 1, west, tt, codes, ends, stats[d], results[d, 1])
        elif leds[d] == ZERO:
            values[d, 0] = solve_root(W, B, tf, leads[d], (pop(W) + 1) // 2, tt, codes, ends, stats[d], results[d, 0])
        else:
            values[d, 0] = solve_after_lead(W, B, tf, leads[d], leds[d], tt, codes, ends, stats[d], results[d, 0])


@kernel
def solve_after_lead(W, B, tf, lead, p, tt, codes, ends, stats, results):
    """After the leader's card p: each legal reply's result (West's tricks from this trick on) into
    ``results`` by card position; returns the result of the lead (the follower's best)."""
    sentinel = high(B)
    E = (sentinel - ONE) & ~W
    follower = E if lead == 0 else W
    S = segment(B, p)
    tmask = trump_mask(B, tf)
    runs = bottoms(follower, B)
    replies = runs & S if (follower & S) != 0 else runs
    guess = (pop(W) + 1) // 2
    best = np.int64(-1)
    while replies != ZERO:
        q = low(replies)
        replies ^= q
        taken = follower_wins(S, tmask, p, q)
        west_won = taken if lead != 0 else not taken
        W2, B2, tf2 = play(W, B, tf, tmask, p, q)
        r = _value(W2, B2, tf2, 0 if west_won else 1, guess, tt, codes, ends, stats) + (1 if west_won else 0)
        guess = r - (1 if west_won else 0)
        top = run_top(follower, B, q)
        b = q
        while b <= top:
            results[index(b)] = r
            b <<= ONE
        if best < 0 or (lead == 0 and r < best) or (lead != 0 and r > best):
            best = r
    return best


@kernel
def play_line(W, B, tf, lead, led, ids, tt, codes, ends, stats, line):
    """An optimal line of play to the end: the cards played, in order, as ``ids`` of their positions (``ids``
    is consumed).  ``led`` is the bit of a card already led (0: none); the line starts with the reply then.
    Each side plays its lowest card among those that keep the position's value.  Returns the cards written."""
    count = 0
    size = pop(W)
    v = -1
    while W != ZERO:  # both hands hold as many cards at a trick start
        sentinel = high(B)
        E = (sentinel - ONE) & ~W
        if led == ZERO:
            if v < 0:
                v = _value(W, B, tf, lead, (size + 1) // 2, tt, codes, ends, stats)
            leader = W if lead == 0 else E
            cands = bottoms(leader, B)
            p = low(cands)
            while cands != ZERO:
                p = low(cands)
                cands ^= p
                lo, hi = (np.int64(0), v) if lead == 0 else (v, pop(W))
                if _lead_value(W, B, tf, lead, p, v, lo, hi, tt, codes, ends, stats) == v:
                    break
        else:
            p = led
            led = ZERO
            if v < 0:
                v = _lead_value(W, B, tf, lead, p, (size + 1) // 2, np.int64(0), pop(W), tt, codes, ends, stats)
        follower = E if lead == 0 else W
        S = segment(B, p)
        tmask = trump_mask(B, tf)
        runs = bottoms(follower, B)
        replies = runs & S if (follower & S) != 0 else runs
        q = low(replies)
        west_won = False
        W2, B2, tf2 = W, B, tf
        child = np.int64(0)
        while replies != ZERO:
            q = low(replies)
            replies ^= q
            taken = follower_wins(S, tmask, p, q)
            west_won = taken if lead != 0 else not taken
            W2, B2, tf2 = play(W, B, tf, tmask, p, q)
            child = v - (1 if west_won else 0)
            if _value(W2, B2, tf2, 0 if west_won else 1, child, tt, codes, ends, stats) == child:
                break
        line[count] = ids[index(p)]
        line[count + 1] = ids[index(q)]
        count += 2
        # The ids follow their cards down as the two bits are taken out.
        hi = max(index(p), index(q))
        lo = min(index(p), index(q))
        n = 2 * pop(W)
        for j in range(hi, n - 1):
            ids[j] = ids[j + 1]
        for j in range(lo, n - 2):
            ids[j] = ids[j + 1]
        W, B, tf = W2, B2, tf2
        lead = 0 if west_won else 1
        v = child
    return count
