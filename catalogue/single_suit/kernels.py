"""Numba kernels for the single-suit paper's formulas (private; use the public wrappers).

One deal is the vector C_1 … C_2n of (37) — +1 where East holds the card, −1
where West does — held as a contiguous int8 array ``c`` (``c[p]`` is C_{p+1}).
The per-deal core follows Theorem 10.1 of ``papers/single-suit-whist.md``:

1. the partial sums S(i) = C_1 + … + C_i;
2. T_k for −n < k < n by the paper's O(n) procedure (initialise T for the
   alternating deal, then one update per card);
3. H̲ and H̄ from the sign change of T_k (end of §5);
4. the conditions of Theorem 9.1 from the two diagonals k = H̲, H̄ of A, whose
   entries are read off the partial sums: A_ij = 1 iff S(i+j−1) > j − i.

The kernels take only prepared contiguous arrays and write into output
arrays; validation and wrapping are done by :func:`whist_catalogue.single_suit.formulas.level_quantities`,
:mod:`whist_catalogue.single_suit.linear_time` and :mod:`whist_catalogue.single_suit.asymptotics`.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from whist_catalogue.theory.jit import kernel

_UNREACHABLE = -(1 << 30)


@kernel(inline="always")
def _partial_sums(c, n, s):
    s[0] = 0
    for p in range(2 * n):
        s[p + 1] = s[p] + c[p]


@kernel(inline="always")
def _t_sums(c, s, n, t):
    # t[k + n] holds T[k]; the slots k = ±n only absorb updates for partial sums
    # ±n, which lie outside −n < k < n and are never read.  t is int64 because the
    # running values reach about n² before the updates cancel.
    for k in range(-n, 0):
        t[k + n] = n + k
    for k in range(0, n + 1):
        t[k + n] = k - n
    for i in range(1, 2 * n + 1):
        # East's card (C_i = 1): T[S(i−1)] −= i−1, and S(i−1) = S(i) − 1; West's: T[S(i)] += i.
        # Written without a branch, since the owners of random deals defeat branch prediction.
        east = np.int64((c[i - 1] + 1) >> 1)
        t[s[i] - east + n] += i - east * (2 * i - 1)


@kernel(inline="always")
def _h_bounds(s, t, n):
    if s[n] == n:  # the n lowest cards are East's: all West's cards are high
        return n, n
    if s[n] == -n:
        return -n, -n
    # Lemma 5.2: T_k is positive, then (at most one zero) negative; T_{−n+1} = 1 here.
    for k in range(-n + 1, n):
        v = t[k + n]
        if v == 0:
            return k, k
        if v < 0:
            return k - 1, k
    return _UNREACHABLE, _UNREACHABLE


@kernel(inline="always")
def _a_diag(s, i, d, row):
    """A_{i,i+d} (``row``) or A_{i−d,i}."""
    return 1 if s[2 * i + d - 1 if row else 2 * i - d - 1] > d else -1


@kernel(inline="always")
def _h_whist(c, s, n, lo, hi):
    """H of Theorem 9.1 from the partial sums and (H̲, H̄)."""
    if lo == hi:
        return hi
    # East has the ace: H = H̄ iff (1) H̄ ≥ 0, (2) Σ_{i=2}^{n−1−H̄} A_{i,i+H̄} ≥ 0 and
    # (3) some k has Σ_{i=2}^{2k} A_{i,i+H̲} > 0 and Σ_{i=2k+1}^{n−H̄−1} A_{i,i+H̄} > 0.
    # West has it: the mirror image, on the columns A_{i−d,i}, deciding when H = H̲.
    east_ace = c[2 * n - 1] == 1
    if east_ace and hi < 0:
        return lo
    if not east_ace and lo > 0:
        return hi
    # H is ``candidate`` when the three conditions hold, else ``fallback``; West's signs are East's negated.
    sign = 1 if east_ace else -1
    candidate, fallback = (hi, lo) if east_ace else (lo, hi)
    last = n - 1 - hi if east_ace else n - 1 + lo
    total = 0
    for i in range(2, last + 1):
        total += sign * _a_diag(s, i, candidate, east_ace)
    if total < 0:
        return fallback
    first_sum = 0  # Σ_{i=2}^{2k} of the fallback's diagonal
    prefix = 0  # Σ_{i=2}^{2k} of the candidate's, so that the second sum is total − prefix
    k = 1
    while 2 * k + 1 <= last:
        for i in range(max(2, 2 * k - 1), 2 * k + 1):
            first_sum += sign * _a_diag(s, i, fallback, east_ace)
            prefix += sign * _a_diag(s, i, candidate, east_ace)
        if first_sum > 0 and total - prefix > 0:
            return candidate
        k += 1
    return fallback


@kernel
def evaluate_vector(c, n, s, t):
    """(H̲, H̄, H, T_0) of the deal C (int8, length 2n) using scratch s (2n+1) and t (2n+1), both int64."""
    _partial_sums(c, n, s)
    _t_sums(c, s, n, t)
    lo, hi = _h_bounds(s, t, n)
    h = _h_whist(c, s, n, lo, hi)
    return lo, hi, h, t[n]


@kernel(inline="always")
def _h_greedy(lo, hi):
    if hi > 0:
        return hi
    if lo < 0:
        return lo
    return 0


@kernel(parallel=True)
def level_kernel(masks, n, h_lower, h_upper, h, greedy_w, greedy_e, five_w, five_e, ace):
    """Every deal given by West's mask; returns the index of a mask that is not a deal of level n, or −1."""
    size = masks.shape[0]
    chunks = min(size, 64)
    bad = np.full(max(chunks, 1), -1, np.int64)
    limit = np.int64(1) << (2 * n)
    for chunk in prange(chunks):
        start = chunk * size // chunks
        stop = (chunk + 1) * size // chunks
        c = np.empty(2 * n, np.int8)
        s = np.empty(2 * n + 1, np.int64)
        t = np.empty(2 * n + 1, np.int64)
        for r in range(start, stop):
            mask = masks[r]
            count = 0
            for p in range(2 * n):
                bit = (mask >> p) & 1
                count += bit
                c[p] = 1 - 2 * bit  # West's card: −1 in (37)
            if count != n or mask < 0 or mask >= limit:
                if bad[chunk] < 0:
                    bad[chunk] = r
                continue
            lo, hi, hw, t0 = evaluate_vector(c, n, s, t)
            hg = _h_greedy(lo, hi)
            h_lower[r] = lo
            h_upper[r] = hi
            h[r] = hw
            greedy_w[r] = (n + hg) // 2
            greedy_e[r] = (n + hg + 1) // 2
            five_w[r] = t0 >= 0  # Theorem 7.2: tr(A) = 0 goes to the player on lead
            five_e[r] = t0 > 0
            ace[r] = c[2 * n - 1] == -1
    for chunk in range(bad.shape[0]):
        if bad[chunk] >= 0:
            return bad[chunk]
    return -1


# -- random deals ---------------------------------------------------------------------------
# SplitMix64 (Steele, Lea & Flood 2014): a counter-based generator, so deal number
# i of a run depends only on (seed, i) and the result does not depend on threads.

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)


@kernel(inline="always")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@kernel(inline="always")
def _next(state):
    state = state + _GOLDEN
    return state, _mix(state)


@kernel(inline="always")
def _below(state, bound):
    """A uniform integer in [0, bound) for 0 < bound < 2**32 (Lemire's method, exact by rejection)."""
    b = np.uint64(bound)
    state, x = _next(state)
    m = (x >> np.uint64(32)) * b
    low = m & _LOW32
    if low < b:
        threshold = (np.uint64(1 << 32) - b) % b
        while low < threshold:
            state, x = _next(state)
            m = (x >> np.uint64(32)) * b
            low = m & _LOW32
    return state, np.int64(m >> np.uint64(32))


@kernel
def random_deal(state, n, c):
    """Fill c with a uniformly random deal of level n; returns the new generator state.

    Each card goes to East or West by a fair coin; then cards of the side with
    too many, chosen uniformly one at a time, change hands until the hands are
    equal.  Both steps commute with every permutation of the 2n positions, so
    the result is exchangeable and balanced, hence uniform over the C(2n, n) deals.
    """
    size = 2 * n
    east = 0
    p = 0
    while p < size:
        state, x = _next(state)
        stop = min(64, size - p)
        for b in range(stop):
            bit = np.int64((x >> np.uint64(b)) & np.uint64(1))
            c[p] = 2 * bit - 1
            east += bit
            p += 1
    while east > n:
        state, q = _below(state, size)
        if c[q] == 1:
            c[q] = -1
            east -= 1
    while east < n:
        state, q = _below(state, size)
        if c[q] == -1:
            c[q] = 1
            east += 1
    return state


@kernel
def stream_state(seed, index):
    """The generator state that starts deal number ``index`` of the run ``seed`` (both uint64)."""
    return _mix(_mix(np.uint64(seed) ^ _GOLDEN) + np.uint64(index) * _GOLDEN)


@kernel(parallel=True)
def sample_kernel(n, seed, h_lower, h_upper, h, ace, king, h_psi, h_psi_king, with_psi):
    """Random deals number 0 … count−1 of the stream ``seed``: H̲, H̄, H, who holds the ace and the king, and, if asked, the ψ partners.

    h_psi: H(ψ(D′)), D′ the deal turned so that West holds the ace (D itself, or
    D̄ with H(D̄) = −H(D)), and ψ of §11.4 reversing the order of cards 1 … 2n−1.
    h_psi_king: the same for the king — D″ turned so that West holds card 2n−1,
    and the order of cards 1 … 2n−2 reversed.
    """
    count = h.shape[0]
    chunks = min(count, 256)
    for chunk in prange(chunks):
        start = chunk * count // chunks
        stop = (chunk + 1) * count // chunks
        c = np.empty(2 * n, np.int8)
        mirror = np.empty(2 * n, np.int8)
        s = np.empty(2 * n + 1, np.int64)
        t = np.empty(2 * n + 1, np.int64)
        for r in range(start, stop):
            state = stream_state(seed, r)
            random_deal(state, n, c)
            lo, hi, hw, t0 = evaluate_vector(c, n, s, t)
            h_lower[r] = lo
            h_upper[r] = hi
            h[r] = hw
            west_ace = c[2 * n - 1] == -1
            west_king = c[2 * n - 2] == -1
            ace[r] = west_ace
            king[r] = west_king
            if with_psi:
                turn = 1 if west_ace else -1
                for p in range(2 * n - 1):
                    mirror[p] = turn * c[2 * n - 2 - p]
                mirror[2 * n - 1] = -1
                h_psi[r] = evaluate_vector(mirror, n, s, t)[2]
                if n >= 2:
                    turn = 1 if west_king else -1
                    for p in range(2 * n - 2):
                        mirror[p] = turn * c[2 * n - 3 - p]
                    mirror[2 * n - 2] = -1
                    mirror[2 * n - 1] = turn * c[2 * n - 1]
                    h_psi_king[r] = evaluate_vector(mirror, n, s, t)[2]
                else:  # n = 1: the king is card 1 and ψ_K moves nothing
                    h_psi_king[r] = hw if west_king else -hw


@kernel(parallel=True)
def reversed_below_kernel(masks, n, top, h, h_upper):
    """H and H̄ of each deal with its lowest 2n − top cards in reverse order (ψ of §11.4 for top = 1)."""
    size = masks.shape[0]
    chunks = min(size, 64)
    for chunk in prange(chunks):
        start = chunk * size // chunks
        stop = (chunk + 1) * size // chunks
        c = np.empty(2 * n, np.int8)
        s = np.empty(2 * n + 1, np.int64)
        t = np.empty(2 * n + 1, np.int64)
        low = 2 * n - top
        for r in range(start, stop):
            mask = masks[r]
            for p in range(2 * n):
                q = low - 1 - p if p < low else p
                c[p] = 1 - 2 * ((mask >> q) & 1)
            lo, hi, hw, t0 = evaluate_vector(c, n, s, t)
            h[r] = hw
            h_upper[r] = hi


@kernel(parallel=True)
def level_statistics_kernel(masks, n, t0_counts, t_positive, t_one_or_two, t_nonnegative_from):
    """Counts over the deals of a level for §11's enumerative claims.

    t0_counts[(T_0 + n)]: the distribution of T_0 (Lemma 11.2);
    t_positive[k + n]: deals with T_k > 0 (Theorem 11.4, formula (38));
    t_one_or_two[k + n]: deals with T_k ∈ {1, 2} (Lemma 11.9);
    t_nonnegative_from[h]: deals with T_k ≥ 0 for some k ≥ h, h = 0 … n (Theorem 11.8).
    Each chunk counts privately; the caller sums the first axis.
    """
    size = masks.shape[0]
    chunks = t0_counts.shape[0]
    for chunk in prange(chunks):
        start = chunk * size // chunks
        stop = (chunk + 1) * size // chunks
        c = np.empty(2 * n, np.int8)
        s = np.empty(2 * n + 1, np.int64)
        t = np.empty(2 * n + 1, np.int64)
        for r in range(start, stop):
            mask = masks[r]
            for p in range(2 * n):
                c[p] = 1 - 2 * ((mask >> p) & 1)
            _partial_sums(c, n, s)
            _t_sums(c, s, n, t)
            t0_counts[chunk, t[n] + n] += 1
            top = -1  # the largest k in 0 … n−1 with T_k ≥ 0
            for k in range(-n + 1, n):
                v = t[k + n]
                if v > 0:
                    t_positive[chunk, k + n] += 1
                if v == 1 or v == 2:
                    t_one_or_two[chunk, k + n] += 1
                if k >= 0 and v >= 0:
                    top = k
            for k in range(0, top + 1):
                t_nonnegative_from[chunk, k] += 1


# -- the quantities a search asks for, and no more ------------------------------------------------------
# Theorem 10.1's procedure updates T_k card by card; summed up, an East card at step i (S rises from
# S(i−1) = k) subtracts i − 1 from T_k and a West card (S falls to S(i) = k) adds i, so over the crossings of
# the edge between heights k and k + 1 the updates add up to the steps spent on the far side of it.  With
# T_k's initial values this is
#
#     T_k = n + k − #{i ∈ 1…2n : max(S(i−1), S(i)) ≤ k},
#
# for every −n < k < n: a histogram of the steps' upper ends, then a running sum, each a tight loop over the
# mask's bits with no per-card branch.  ``chunk_quantities_kernel`` computes from it only what a search
# needs: T_0 alone (Five-card), or H̲ and H̄ too (Greedy Whist), or H as well (Theorem 9.1); the suite checks
# it against :func:`level_kernel` deal by deal.


@kernel(parallel=True)
def chunk_quantities_kernel(masks, n, depth, h_lower, h_upper, h, t0):
    """For each of West's masks: T_0 into t0; with depth ≥ 1, H̲ and H̄ too; with depth 2, H as well.

    The masks must be deals of level n (the caller takes them from ``level_masks``)."""
    size = masks.shape[0]
    parts = min(size, 64)
    for part in prange(parts):
        start = part * size // parts
        stop = (part + 1) * size // parts
        c = np.empty(2 * n, np.int8)
        s = np.empty(2 * n + 1, np.int64)
        count = np.empty(2 * n + 1, np.int64)
        odd = np.empty(2 * n + 1, np.int64)
        for r in range(start, stop):
            mask = masks[r]
            if depth == 0:
                level = 0
                low = 0  # steps whose upper end is ≤ 0
                for p in range(2 * n):
                    west = (mask >> p) & 1
                    low += (level + 1 - west) <= 0
                    level += 1 - 2 * west
                t0[r] = n - low
                continue
            for j in range(2 * n + 1):
                count[j] = 0
                odd[j] = 0
            level = 0
            s[0] = 0
            # Two histograms, for even and odd steps: two steps in a row often share their upper end, and
            # incrementing one slot twice in a row would wait on the first store.
            for p in range(0, 2 * n, 2):
                west = (mask >> p) & 1
                c[p] = 1 - 2 * west
                count[level + 1 - west + n] += 1  # the step's upper end
                level += 1 - 2 * west
                s[p + 1] = level
                west = (mask >> (p + 1)) & 1
                c[p + 1] = 1 - 2 * west
                odd[level + 1 - west + n] += 1
                level += 1 - 2 * west
                s[p + 2] = level
            below = 0
            for k in range(-n + 1, 1):
                below += count[k + n] + odd[k + n]
            t0[r] = n - below
            if s[n] == n:
                lo, hi = n, n
            elif s[n] == -n:
                lo, hi = -n, -n
            else:
                lo, hi = _UNREACHABLE, _UNREACHABLE
                below = 0
                for k in range(-n + 1, n):
                    below += count[k + n] + odd[k + n]
                    v = n + k - below
                    if v == 0:
                        lo, hi = k, k
                        break
                    if v < 0:
                        lo, hi = k - 1, k
                        break
            h_lower[r] = lo
            h_upper[r] = hi
            if depth >= 2:
                h[r] = _h_whist(c, s, n, lo, hi)


# The upper end of a step depends on the heights around it, and the height after card i is S(i) from below
# and −(C_{i+1} + … + C_2n) from above (S(2n) = 0).  So the steps among the lowest L cards have upper ends
# fixed by those L cards alone, and the others by the 2n − L highest cards alone: the running count
# F(k) = #{i : max(S(i−1), S(i)) ≤ k} is the sum of two rows of precomputed tables, one per half of the mask.
# Consecutive deals of a chunk share their high half, so its row stays in cache.


@kernel
def step_tables(n, low_bits):
    """(F of the low half, F of the high half): row m, column k + n counts the steps with upper end ≤ k among
    the lowest ``low_bits`` cards held as mask m by West (from S(0) = 0), resp. among the other cards held as
    mask m (counted back from S(2n) = 0)."""
    high_bits = 2 * n - low_bits
    low = np.zeros((1 << low_bits, 2 * n + 1), np.int8)
    high = np.zeros((1 << high_bits, 2 * n + 1), np.int8)
    for m in range(1 << low_bits):
        level = 0
        for p in range(low_bits):
            west = (m >> p) & 1
            top = level + 1 - west
            if -n <= top <= n:
                for k in range(top, n + 1):
                    low[m, k + n] += 1
            level += 1 - 2 * west
    for m in range(1 << high_bits):
        level = 0  # S(2n), walking down from the top card
        for p in range(high_bits - 1, -1, -1):
            west = (m >> p) & 1
            before = level - (1 - 2 * west)  # S(i−1) from S(i)
            top = max(before, level)
            if -n <= top <= n:
                for k in range(top, n + 1):
                    high[m, k + n] += 1
            level = before
    return low, high


@kernel(parallel=True)
def chunk_quantities_tables_kernel(masks, n, depth, low_table, high_table, low_bits, h_lower, h_upper, h, t0):
    """:func:`chunk_quantities_kernel` with F(k) read off :func:`step_tables` (masks of at most 32 cards)."""
    size = masks.shape[0]
    parts = min(size, 64)
    low_mask = (np.int64(1) << low_bits) - 1
    for part in prange(parts):
        start = part * size // parts
        stop = (part + 1) * size // parts
        c = np.empty(2 * n, np.int8)
        s = np.empty(2 * n + 1, np.int64)
        for r in range(start, stop):
            mask = masks[r]
            fl = low_table[mask & low_mask]
            fh = high_table[mask >> low_bits]
            t0[r] = n - (np.int64(fl[n]) + fh[n])
            if depth == 0:
                continue
            first = mask & ((np.int64(1) << n) - 1)  # S(n) = n − 2·(West's cards among the n lowest)
            held = 0
            while first:
                first &= first - 1
                held += 1
            if held == 0:
                lo, hi = n, n
            elif held == n:
                lo, hi = -n, -n
            else:
                lo, hi = _UNREACHABLE, _UNREACHABLE
                for k in range(-n + 1, n):
                    v = n + k - (np.int64(fl[k + n]) + fh[k + n])
                    if v <= 0:
                        if v == 0:
                            lo, hi = k, k
                        else:
                            lo, hi = k - 1, k
                        break
            h_lower[r] = lo
            h_upper[r] = hi
            if depth >= 2:
                if lo == hi:
                    h[r] = hi
                    continue
                level = 0
                s[0] = 0
                for p in range(2 * n):
                    west = (mask >> p) & 1
                    level += 1 - 2 * west
                    s[p + 1] = level
                c[2 * n - 1] = 1 - 2 * ((mask >> (2 * n - 1)) & 1)  # the ace's owner: all _h_whist reads of C
                h[r] = _h_whist(c, s, n, lo, hi)
