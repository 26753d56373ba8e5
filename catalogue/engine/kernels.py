"""Numba kernels of the level-by-level engine; see :mod:`whist_catalogue.engine.levels` for the API.

Every function here is private to the engine and works on prepared contiguous
arrays only.  A level n is processed deal by deal (in parallel blocks); a deal
is West's mask m of 2n bits and its values come from level n−1 through the
reductions D_ij of §7.2 of the multi-suit paper.  Level n−1 arrives as value
codes (:mod:`whist_catalogue.engine.codes`): ``prev_codes`` by rank, and the
table ``tab_num``/``tab_inf`` they index.

Finding a reduction in level n−1 takes O(1): the colex rank (see
:mod:`whist_catalogue.theory.ranking`) of the deal left after West's card at bit a and
East's at bit b is a sum of binomials over West's cards, each shifted down by
the removed cards below it, so four prefix sums per deal answer every (a, b).

Labeled values travel as integer keys (:func:`whist_catalogue.engine.encoding.labeled_key`)
and :func:`value_from_bounds` turns (maxmin, minmax) into the simplest element
of I(D) by a case analysis of Definition 7.1 that tests compare with the
literal search of :mod:`whist_catalogue.theory.definition`.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from whist_catalogue.constants import INF_OFFSET  # a global Numba compiles in as a constant
from whist_catalogue.theory.jit import kernel

# Conjecture and theorem checks, in the order of the counters.
CHECK_CONJ_12_2 = 0
CHECK_CONJ_12_3 = 1
CHECK_CONJ_12_4 = 2
CHECK_THM_8_10 = 3
CHECK_THM_9_4 = 4
CHECK_CONJ_12_4_LABELED = 5
N_CHECKS = 6

FLAG_AMBIGUOUS = 128  # two half-integers in I(D): Theorem 8.8 violated (never expected)
# Bits 0…N_CHECKS−1 of a deal's flags: the deal is a counterexample to that check.


@kernel(inline="always")
def key_of(numer, rank, west_on_lead):
    tie = (1 - west_on_lead) if rank == 0 else west_on_lead
    return ((numer << 8) + (rank + INF_OFFSET)) * 2 + tie


@kernel(inline="always")
def unkey(key):
    tie = key & 1
    rest = key >> 1
    rank = (rest & 255) - INF_OFFSET
    numer = rest >> 8
    west = (1 - tie) if rank == 0 else tie
    return numer, rank, west


@kernel
def value_from_bounds(lo_key, hi_key, scale):
    """val(D) from maxmin (lo_key) and minmax (hi_key): returns (numerator, rank, flags).

    Numbers q in I(D): A < q < B always; q = A when maxmin < (E, A); q = B
    when minmax > (W, B) (Definition 7.1 (i)).  The simplest is a unique
    half-integer or else the one of least denominator.  If no number is in I(D),
    A = B = q and q lies in L(D) or R(D); then I(D) holds q + z for z beyond
    minmax's (resp. maxmin's) infinitesimal, or equal to it when the label
    makes the strict inequality of Definition 7.1 (ii) fail.
    """
    a, x, p_west = unkey(lo_key)
    b, y, q_west = unkey(hi_key)
    lo_incl = x < 0 or (x == 0 and p_west == 1)
    hi_incl = y > 0 or (y == 0 and q_west == 0)
    if a < b or (a == b and lo_incl and hi_incl):
        step = scale >> 1
        while step >= 1:
            m = (a + step - 1) // step * step
            if m == a and not lo_incl:
                m += step
            if m < b or (m == b and hi_incl):
                if step == scale >> 1:
                    m2 = m + step
                    if m2 < b or (m2 == b and hi_incl):
                        return m, 0, FLAG_AMBIGUOUS
                return m, 0, 0
            step >>= 1
        return a, 0, FLAG_AMBIGUOUS
    if x > 0 or (x == 0 and p_west == 0):
        # a ∈ L(D): z > y, or z = y when minmax = (E, a + y) with y ≠ 0.
        if q_west == 0 and y != 0:
            return a, y, 0
        return a, y + 1, 0
    # a ∈ R(D), the mirror image.
    if p_west == 1 and x != 0:
        return a, x, 0
    return a, x - 1, 0


@kernel(inline="always")
def _binom(table, p, t):
    if p < 0 or t < 0 or t > p:
        return 0
    return table[p, t]


@kernel
def _unrank(n, r, table):
    mask = np.int64(0)
    p = 2 * n - 1
    for t in range(n, 0, -1):
        while table[p, t] > r:
            p -= 1
        mask |= np.int64(1) << p
        r -= table[p, t]
        p -= 1
    return mask


@kernel(inline="always")
def _next_mask(x):
    c = x & -x
    r = x + c
    return (((r ^ x) >> 2) // c) | r


@kernel
def _prepare(m, n, table, wpos, epos, s0, s1, s2, s3):
    """Positions of West's and East's cards and the four prefix sums for reduction ranks."""
    nw = 0
    ne = 0
    s0[0] = 0
    s1[0] = 0
    s2[0] = 0
    s3[0] = 0
    for p in range(2 * n):
        if (m >> p) & 1:
            wpos[nw] = p
            t = nw + 1
            s0[t] = s0[t - 1] + _binom(table, p, t)
            s1[t] = s1[t - 1] + _binom(table, p - 1, t)
            s2[t] = s2[t - 1] + _binom(table, p - 1, t - 1)
            s3[t] = s3[t - 1] + _binom(table, p - 2, t - 1)
            nw += 1
        else:
            epos[ne] = p
            ne += 1


@kernel(inline="always")
def _reduced_rank(n, a, ta, b, cb, s0, s1, s2, s3):
    """Rank in level n−1 of the deal left after West's card at bit a (his ta-th, 1-based)
    and East's at bit b (with cb of West's cards below it) are played."""
    if a < b:
        return s0[ta - 1] + (s2[cb] - s2[ta]) + (s3[n] - s3[cb])
    return s0[cb] + (s1[ta - 1] - s1[cb]) + (s3[n] - s3[ta])


@kernel(inline="always")
def _alpha(n, a, ta, b, cb, s0, s1, s2, s3, prev_codes, tab_num, tab_inf, scale):
    """The labeled key of α for West's card at a against East's card at b."""
    c = prev_codes[_reduced_rank(n, a, ta, b, cb, s0, s1, s2, s3)]
    west_wins = 1 if a > b else 0
    # Widen before shifting: the packed key needs 64 bits (Numba widens by itself, plain Python does not).
    return key_of(np.int64(tab_num[c]) + west_wins * scale, np.int64(tab_inf[c]), west_wins)


@kernel(inline="always")
def _west_tricks(key, scale):
    """West's tricks after reaching labeled value key: ρ(value) read for the player on lead."""
    numer, rank, west = unkey(key)
    half = scale >> 1
    k = numer // scale
    frac = numer - k * scale
    if frac < half:
        return k
    if frac > half:
        return k + 1
    if rank > 0:
        return k + 1
    if rank < 0:
        return k
    return k if west == 1 else k + 1



@kernel(inline="always")
def _inf_parts(rank):
    """(index, exits) of an infinitesimal rank; exits 1 = West, 2 = East, 3 = both (±ε₀)."""
    if rank > 1:
        return rank - 1, 1
    if rank == 1:
        return 0, 1
    if rank == 0:
        return 0, 0
    if rank == -1:
        return 0, 2
    return rank + 1, 2


@kernel(inline="always")
def _round_up_at_tie(index, exits, west_on_lead):
    """Whether ρ rounds a tie n + 1/2 + x up, for x = (index, exits) (§6.5), for the player on lead."""
    if index > 0:
        return 1
    if index < 0:
        return 0
    if exits == 1:
        return 1
    if exits == 2:
        return 0
    if exits == 0:
        return 1 - west_on_lead  # x = 0: rounded in favour of the player not on lead
    return west_on_lead  # ±ε₀: in favour of the player on lead


@kernel
def outcome_preceq(k1, k2):
    """(P, x) ≼ (Q, y): in every context f ∈ V, West takes no more tricks after (P, x) than after (Q, y).

    That is ρ(x + f) read for P ≤ ρ(y + f) read for Q for all f (§6.5, Theorem 9.1).
    Different numerical parts decide at once; equal ones matter only when x + f
    sits on a half-integer, where the infinitesimal z of f decides — and z
    beyond the stoppers of x and y behaves like the extreme ones tried.
    """
    a1, r1, w1 = unkey(k1)
    a2, r2, w2 = unkey(k2)
    if a1 != a2:
        return a1 < a2
    i1, e1 = _inf_parts(r1)
    i2, e2 = _inf_parts(r2)
    reach = max(abs(r1), abs(r2)) + 3
    for zr in range(-reach, reach + 2):
        if zr == reach + 1:
            zi, ze = 0, 3  # ±ε₀
        else:
            zi, ze = _inf_parts(zr)
        s1 = i1 + zi
        x1 = (1 if s1 > 0 else 2) if s1 != 0 else (e1 | ze)
        s2 = i2 + zi
        x2 = (1 if s2 > 0 else 2) if s2 != 0 else (e2 | ze)
        if _round_up_at_tie(s1, x1, w1) > _round_up_at_tie(s2, x2, w2):
            return False
    return True


@kernel(inline="always")
def _reply_checks(checks, a, b, scale):
    """Conjecture 12.4 (in play and by labeled values) and Theorem 9.4 for one lead that can be beaten
    below the top card.  Each says that winning cheaply is no worse for the replying side than playing
    low, i.e. West fares no better after ``a`` than after ``b``, where (a, b) is (cheap, low) when East
    replies and (low, cheap) when West does."""
    checks[CHECK_CONJ_12_4, 0] += 1
    if not outcome_preceq(a, b):
        checks[CHECK_CONJ_12_4, 1] += 1
    checks[CHECK_CONJ_12_4_LABELED, 0] += 1
    if a > b:
        checks[CHECK_CONJ_12_4_LABELED, 1] += 1
    checks[CHECK_THM_9_4, 0] += 1
    if _west_tricks(a, scale) > _west_tricks(b, scale):
        checks[CHECK_THM_9_4, 1] += 1


@kernel
def _deal(m, n, table, prev_codes, tab_num, tab_inf, scale, reply_rule, runs, wpos, epos, s0, s1, s2, s3, checks, want_checks):
    """val(D) of one deal: (numerator, rank, flags); accumulates checks into ``checks`` (N_CHECKS×2)."""
    _prepare(m, n, table, wpos, epos, s0, s1, s2, s3)
    top = 2 * n - 1
    big = np.int64(1) << 62
    # West leads: maxmin = max over leads of min over East's replies.
    maxmin = -big
    for i in range(n):
        a = wpos[i]
        if runs and i + 1 < n and wpos[i + 1] == a + 1:
            continue  # W_i and W_{i+1} are equivalent: keep the top card of each run
        ta = i + 1
        lo = big
        if reply_rule:
            # Reply rule (§12.1): win as cheaply as possible, or play the lowest card.
            cheap = -1
            ccb = 0
            for j in range(n):
                if epos[j] > a:
                    cheap = epos[j]
                    ccb = epos[j] - j  # West's cards below it
                    break
            low = epos[0]
            k_low = _alpha(n, a, ta, low, low, s0, s1, s2, s3, prev_codes, tab_num, tab_inf, scale)
            lo = k_low
            if cheap >= 0:
                k_cheap = _alpha(n, a, ta, cheap, ccb, s0, s1, s2, s3, prev_codes, tab_num, tab_inf, scale)
                if k_cheap < lo:
                    lo = k_cheap
                if want_checks and cheap != top:
                    _reply_checks(checks, k_cheap, k_low, scale)
        else:
            for j in range(n):
                b = epos[j]
                if runs and j + 1 < n and epos[j + 1] == b + 1:
                    continue
                k = _alpha(n, a, ta, b, b - j, s0, s1, s2, s3, prev_codes, tab_num, tab_inf, scale)
                if k < lo:
                    lo = k
        if lo > maxmin:
            maxmin = lo
    # East leads: minmax = min over leads of max over West's replies.
    minmax = big
    for j in range(n):
        b = epos[j]
        if runs and j + 1 < n and epos[j + 1] == b + 1:
            continue
        cb = b - j
        hi = -big
        if reply_rule:
            cheap = -1
            cta = 0
            for i in range(n):
                if wpos[i] > b:
                    cheap = wpos[i]
                    cta = i + 1
                    break
            k_low = _alpha(n, wpos[0], 1, b, cb, s0, s1, s2, s3, prev_codes, tab_num, tab_inf, scale)
            hi = k_low
            if cheap >= 0:
                k_cheap = _alpha(n, cheap, cta, b, cb, s0, s1, s2, s3, prev_codes, tab_num, tab_inf, scale)
                if k_cheap > hi:
                    hi = k_cheap
                if want_checks and cheap != top:
                    # West replies: the same statements with West's result reversed.
                    _reply_checks(checks, k_low, k_cheap, scale)
        else:
            for i in range(n):
                a = wpos[i]
                if runs and i + 1 < n and wpos[i + 1] == a + 1:
                    continue
                k = _alpha(n, a, i + 1, b, cb, s0, s1, s2, s3, prev_codes, tab_num, tab_inf, scale)
                if k > hi:
                    hi = k
        if hi < minmax:
            minmax = hi
    return value_from_bounds(maxmin, minmax, scale)


@kernel
def _value_checks(numer, rank, n, scale, d0_numer, d0_rank, checks):
    """Conjectures 12.2, 12.3 and Theorem 8.10 for one deal."""
    whole = numer // scale
    frac = numer - whole * scale
    if rank != 0:
        checks[CHECK_CONJ_12_2, 0] += 1
        # q + ε_q with q a nonnegative integer, or the mirror image p − ε_{n−p} of such a value.
        ok = frac == 0 and ((rank > 0 and rank - 1 == whole) or (rank < 0 and -rank - 1 == n - whole))
        if not ok:
            checks[CHECK_CONJ_12_2, 1] += 1
    elif frac != 0:
        checks[CHECK_CONJ_12_3, 0] += 1
        ok = False
        # 1/2^k or 1 − 1/2^k: frac or scale − frac is a power of two; or 3/8, 5/8.
        f = frac
        g = scale - frac
        if f & (f - 1) == 0 or g & (g - 1) == 0 or f * 8 == 3 * scale or f * 8 == 5 * scale:
            ok = True
        if not ok:
            checks[CHECK_CONJ_12_3, 1] += 1
    # Theorem 8.10: val(D) = k  ⇔  val(D₀) = k − 1/2, for every integer k.
    checks[CHECK_THM_8_10, 0] += 1
    half = scale >> 1
    is_int = rank == 0 and frac == 0
    d0_half_odd = d0_rank == 0 and d0_numer % scale == half
    forward = (not is_int) or (d0_rank == 0 and d0_numer == numer - half)
    backward = (not d0_half_odd) or (is_int and numer == d0_numer + half)
    if not (forward and backward):
        checks[CHECK_THM_8_10, 1] += 1


@kernel(parallel=True)
def level_values(n, start, stop, table, prev_codes, tab_num, tab_inf, scale, reply_rule, runs, want_checks,
                 out_num, out_inf, flags, checks_out, first_bad, blocks):
    """Values of the deals of level n with ranks in [start, stop).

    ``out_num``/``out_inf``/``flags`` are indexed by rank − start; a deal's
    flags carry bit c when it is a counterexample to check c, and FLAG_AMBIGUOUS.
    ``checks_out`` is (blocks, N_CHECKS, 2) of (checked, counterexamples);
    ``first_bad`` is (blocks, N_CHECKS) of the least counterexample rank or −1.
    """
    total = stop - start
    per = (total + blocks - 1) // blocks
    for blk in prange(blocks):
        lo = start + blk * per
        hi = min(stop, lo + per)
        wpos = np.empty(max(n, 1), np.int64)
        epos = np.empty(max(n, 1), np.int64)
        s0 = np.empty(n + 1, np.int64)
        s1 = np.empty(n + 1, np.int64)
        s2 = np.empty(n + 1, np.int64)
        s3 = np.empty(n + 1, np.int64)
        before = np.zeros((N_CHECKS, 2), np.int64)
        checks = checks_out[blk]
        for c in range(N_CHECKS):
            first_bad[blk, c] = -1
        if lo >= hi:
            continue
        m = _unrank(n, lo, table)
        for r in range(lo, hi):
            for c in range(N_CHECKS):
                before[c, 1] = checks[c, 1]
            numer, rank, flag = _deal(m, n, table, prev_codes, tab_num, tab_inf, scale, reply_rule, runs,
                                      wpos, epos, s0, s1, s2, s3, checks, want_checks)
            out_num[r - start] = numer
            out_inf[r - start] = rank
            if want_checks:
                # D₀: West's and East's lowest cards removed.
                r0 = _reduced_rank(n, wpos[0], 1, epos[0], epos[0], s0, s1, s2, s3)
                _value_checks(numer, rank, n, scale, tab_num[prev_codes[r0]], tab_inf[prev_codes[r0]], checks)
                for c in range(N_CHECKS):
                    if checks[c, 1] > before[c, 1]:
                        flag |= 1 << c
                        if first_bad[blk, c] < 0:
                            first_bad[blk, c] = r
            flags[r - start] = flag
            if r + 1 < hi:
                m = _next_mask(m)


@kernel(parallel=True)
def mirror_codes(n, start, stop, table, codes, mirror, blocks):
    """Fill ranks [start, stop) (West holds the ace) from the swapped deals: val(D) = n − val(D̄).

    ``mirror[c]`` is the code of n − v for the value v of code c.
    """
    total = stop - start
    per = (total + blocks - 1) // blocks
    full = (np.int64(1) << (2 * n)) - 1
    for blk in prange(blocks):
        lo = start + blk * per
        hi = min(stop, lo + per)
        if lo >= hi:
            continue
        m = _unrank(n, lo, table)
        for r in range(lo, hi):
            comp = full & ~m
            rc = np.int64(0)
            t = 0
            for p in range(2 * n):
                if (comp >> p) & 1:
                    t += 1
                    rc += table[p, t]
            codes[r] = mirror[codes[rc]]
            if r + 1 < hi:
                m = _next_mask(m)


@kernel(parallel=True)
def level_moves(n, table, prev_codes, tab_num, tab_inf, scale, moves, blocks):
    """Best leads and replies of every deal of level n (docs/spec.md §3) as position masks.

    ``moves[r]`` = (West's best leads, East's best leads, East's best replies to
    W_1…W_n, West's best replies to E_1…E_n), bit i−1 standing for the i-th
    lowest card of the hand concerned.  Every α_ij is evaluated (one card per
    run of equivalent cards).
    """
    size = moves.shape[0]
    per = (size + blocks - 1) // blocks
    for blk in prange(blocks):
        lo = blk * per
        hi = min(size, lo + per)
        if lo >= hi:
            continue
        wpos = np.empty(n, np.int64)
        epos = np.empty(n, np.int64)
        s0 = np.empty(n + 1, np.int64)
        s1 = np.empty(n + 1, np.int64)
        s2 = np.empty(n + 1, np.int64)
        s3 = np.empty(n + 1, np.int64)
        alpha = np.empty((n, n), np.int64)
        wrun = np.empty(n, np.int64)  # index of the top card of W_i's run
        erun = np.empty(n, np.int64)
        m = _unrank(n, lo, table)
        for r in range(lo, hi):
            _prepare(m, n, table, wpos, epos, s0, s1, s2, s3)
            for i in range(n - 1, -1, -1):
                wrun[i] = wrun[i + 1] if i + 1 < n and wpos[i + 1] == wpos[i] + 1 else i
            for j in range(n - 1, -1, -1):
                erun[j] = erun[j + 1] if j + 1 < n and epos[j + 1] == epos[j] + 1 else j
            for i in range(n):
                if wrun[i] != i:
                    continue
                for j in range(n):
                    if erun[j] != j:
                        continue
                    alpha[i, j] = _alpha(n, wpos[i], i + 1, epos[j], epos[j] - j, s0, s1, s2, s3,
                                         prev_codes, tab_num, tab_inf, scale)
            # Row minima and column maxima over run representatives.
            maxmin = np.int64(-(1 << 62))
            minmax = np.int64(1 << 62)
            for i in range(n):
                if wrun[i] != i:
                    continue
                lo_k = np.int64(1 << 62)
                for j in range(n):
                    if erun[j] == j and alpha[i, j] < lo_k:
                        lo_k = alpha[i, j]
                if lo_k > maxmin:
                    maxmin = lo_k
                reply = 0
                for j in range(n):
                    if alpha[i, erun[j]] == lo_k:
                        reply |= 1 << j
                for i2 in range(n):
                    if wrun[i2] == i:
                        moves[r, 2 + i2] = reply
            for j in range(n):
                if erun[j] != j:
                    continue
                hi_k = np.int64(-(1 << 62))
                for i in range(n):
                    if wrun[i] == i and alpha[i, j] > hi_k:
                        hi_k = alpha[i, j]
                if hi_k < minmax:
                    minmax = hi_k
                reply = 0
                for i in range(n):
                    if alpha[wrun[i], j] == hi_k:
                        reply |= 1 << i
                for j2 in range(n):
                    if erun[j2] == j:
                        moves[r, 2 + n + j2] = reply
            west_leads = 0
            for i in range(n):
                row_min = np.int64(1 << 62)
                for j in range(n):
                    if erun[j] == j and alpha[wrun[i], j] < row_min:
                        row_min = alpha[wrun[i], j]
                if row_min == maxmin:
                    west_leads |= 1 << i
            east_leads = 0
            for j in range(n):
                col_max = np.int64(-(1 << 62))
                for i in range(n):
                    if wrun[i] == i and alpha[i, erun[j]] > col_max:
                        col_max = alpha[i, erun[j]]
                if col_max == minmax:
                    east_leads |= 1 << j
            moves[r, 0] = west_leads
            moves[r, 1] = east_leads
            if r + 1 < hi:
                m = _next_mask(m)
