"""Theorem 10.1 of the single-suit paper: the value of single-suit Whist in linear time.

Wästlund, *A solution of two-person single-suit whist*, §10
(``papers/single-suit-whist.md``).  The deal is the vector (37),
C_i = 1 if East holds card i and −1 if West does, and:

1. S(i) = C_1 + … + C_i for i = 0 … 2n;
2. T_k for −n < k < n by the paper's procedure: initialise
   T[−n+1] = 1, …, T[−1] = n−1, T[0] = −n, …, T[n−1] = −1 (the values for the
   alternating deal), then for i = 1 … 2n subtract i−1 from T[S(i−1)] when
   C_i = 1 and add i to T[S(i)] when C_i = −1;
3. H̲, H̄ where T_k changes sign;
4. the conditions of Theorem 9.1 from the entries on the diagonals H̲ and H̄,
   using A_ij = 1 iff S(i+j−1) > j − i, with running sums over k.

Every step is O(n) and runs here in whole-array NumPy steps, so χ(D) for
n = 1 000 000 takes tens of milliseconds without loading Numba (see
``docs/benchmarks.md``); the Numba kernels of :mod:`whist_catalogue.single_suit.kernels`
take the same steps card by card for whole levels and for sampling, and the tests
compare the two.  The direct formulas of :mod:`whist_catalogue.single_suit.formulas`
are the reference both are tested against.

Also here, the normal lead of §4.2 in linear time, and Theorem 8.2's test of
whether it is a best first lead (:func:`normal_leads`); and Theorem 12.1 of the multi-suit paper (``papers/symmetric-multi-suit-whist.md``
§12.1): whether val(D) is an integer or half an odd integer, decided in the same
time from χ(D) and χ(D₀) — val(D) = k + 1/2 iff χ(D) = (k, k+1), and val(D) = k
iff χ(D₀) = (k−1, k) (Theorem 8.10); otherwise the outcome χ(D) = (k, k) = ρ(val(D))
still bounds the value.  And :func:`sample_deals`, many random deals of one size
in one call, for the asymptotics of §11.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

from whist_catalogue.errors import InvalidDealError
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.values import Outcome, Value

__all__ = [
    "owner_vector",
    "partial_sums",
    "t_diagonal_sums_linear",
    "LinearResult",
    "solve_vector",
    "solve_linear",
    "whist_outcome_linear",
    "ValueDetection",
    "detect_simple_value",
    "normal_leads_vector",
    "NormalLeads",
    "normal_leads",
    "LinearAnswer",
    "linear_answer",
    "DealSample",
    "sample_deals",
    "random_deal_vector",
]


def owner_vector(deal: Deal) -> np.ndarray:
    """C_1 … C_2n of (37) as int8: 1 where East holds the card, −1 where West does."""
    size = 2 * deal.n
    if size == 0:
        return np.zeros(0, np.int8)
    raw = np.frombuffer(deal.west.to_bytes((size + 7) // 8, "little"), np.uint8)
    west = np.unpackbits(raw, bitorder="little")[:size].astype(np.int8)
    return (1 - 2 * west).astype(np.int8)


def _checked(c: np.ndarray) -> tuple[np.ndarray, int]:
    c = np.ascontiguousarray(c, dtype=np.int8)
    if c.ndim != 1 or c.shape[0] % 2 or not np.all((c == 1) | (c == -1)):
        raise InvalidDealError("a deal vector is 2n entries of +1 (East) and −1 (West)")
    if int(c.sum(dtype=np.int64)) != 0:
        raise InvalidDealError("a deal vector needs as many +1 (East) as −1 (West) entries")
    return c, c.shape[0] // 2


def partial_sums(c: np.ndarray) -> np.ndarray:
    """S(0) … S(2n), S(i) = C_1 + … + C_i (int64)."""
    c, _ = _checked(c)
    return np.concatenate(([0], np.cumsum(c, dtype=np.int64)))


def _t_sums(c: np.ndarray, s: np.ndarray, n: int) -> np.ndarray:
    """T_k for −n ≤ k ≤ n at index k + n by the O(n) procedure of §10: T of the alternating deal, then one
    update a card — T[S(i−1)] −= i − 1 for East's card i, T[S(i)] += i for West's.  (The slots k = ±n only
    absorb updates and are never read.)"""
    k = np.arange(-n, n + 1, dtype=np.int64)
    t = np.where(k < 0, n + k, k - n)
    i = np.arange(1, 2 * n + 1, dtype=np.int64)
    east = (c.astype(np.int64) + 1) >> 1
    np.add.at(t, s[1:] - east + n, i - east * (2 * i - 1))
    return t


def t_diagonal_sums_linear(deal: Deal | np.ndarray) -> np.ndarray:
    """T_k for −n < k < n by the O(n) procedure of §10, as an int64 array indexed k + n − 1."""

    c, n = _checked(owner_vector(deal) if isinstance(deal, Deal) else deal)
    if n == 0:
        return np.zeros(0, np.int64)
    return _t_sums(c, partial_sums(c), n)[1 : 2 * n]


@dataclass(frozen=True, slots=True)
class LinearResult:
    """What the linear-time algorithm finds for one deal."""

    n: int
    h_lower: int
    """H̲."""
    h_upper: int
    """H̄."""
    h: int
    """H of Theorem 9.1."""
    trace: int
    """T_0 = tr(A), which decides Five-card (Theorem 7.2)."""

    @property
    def outcome(self) -> Outcome:
        """χ(D) = (⌊(n+H)/2⌋, ⌈(n+H)/2⌉)."""
        return Outcome((self.n + self.h) // 2, (self.n + self.h + 1) // 2)


def solve_vector(c: np.ndarray) -> LinearResult:
    """Theorem 10.1 on a deal given as the vector C of (37) (+1 East, −1 West, lowest card first)."""

    c, n = _checked(c)
    if n == 0:
        return LinearResult(0, 0, 0, 0, 0)
    s = partial_sums(c)
    t = _t_sums(c, s, n)
    lo, hi = _h_bounds(s, t, n)
    return LinearResult(n, lo, hi, _h_whist(c, s, n, lo, hi), int(t[n]))


# Theorem 10.1 on one deal in whole-array NumPy steps.  The level kernels (:mod:`.kernels`) take the same
# steps card by card in Numba for millions of small deals; one huge deal should not pay Numba's start-up.

def _h_bounds(s: np.ndarray, t: np.ndarray, n: int) -> tuple[int, int]:
    """H̲ and H̄ from the sign change of T_k (end of §5)."""
    if s[n] == n:  # the n lowest cards are East's: all West's cards are high
        return n, n
    if s[n] == -n:
        return -n, -n
    inner = t[1 : 2 * n]  # T_k, −n < k < n: positive, then at most one zero, then negative (Lemma 5.2)
    crossed = np.flatnonzero(inner <= 0)
    if crossed.size == 0:
        raise ArithmeticError("T_k never changes sign (Lemma 5.2)")
    k = int(crossed[0]) - n + 1
    return (k, k) if inner[crossed[0]] == 0 else (k - 1, k)


def _diagonal(s: np.ndarray, rows: np.ndarray, d: int, *, row: bool) -> np.ndarray:
    """A_{i,i+d} (``row``) or A_{i−d,i} for the given i, read off the partial sums: ±1."""
    at = 2 * rows + d - 1 if row else 2 * rows - d - 1
    return np.where(s[at] > d, 1, -1)


def _h_whist(c: np.ndarray, s: np.ndarray, n: int, lo: int, hi: int) -> int:
    """H of Theorem 9.1 from the partial sums and (H̲, H̄)."""
    if lo == hi:
        return hi
    east_ace = c[2 * n - 1] == 1
    # East has the ace: H = H̄ iff (1) H̄ ≥ 0, (2) Σ_{i=2}^{n−1−H̄} A_{i,i+H̄} ≥ 0 and (3) some k has
    # Σ_{i=2}^{2k} A_{i,i+H̲} > 0 and Σ_{i=2k+1}^{n−H̄−1} A_{i,i+H̄} > 0.  West has it: the mirror image,
    # on the columns A_{i−d,i}, deciding when H = H̲.
    if east_ace and hi < 0:
        return lo
    if not east_ace and lo > 0:
        return hi
    # H is ``candidate`` when the three conditions hold, else ``fallback``; West's signs are East's negated.
    sign = 1 if east_ace else -1
    candidate, fallback = (hi, lo) if east_ace else (lo, hi)
    last = n - 1 - hi if east_ace else n - 1 + lo
    rows = np.arange(2, last + 1, dtype=np.int64)
    on_candidate = _diagonal(s, rows, candidate, row=east_ace) * sign
    total = int(on_candidate.sum())
    if total < 0:
        return fallback
    on_fallback = _diagonal(s, rows, fallback, row=east_ace) * sign
    ends = 2 * np.arange(1, (last - 1) // 2 + 1, dtype=np.int64) - 2  # i = 2k for each k with 2k + 1 ≤ last
    first, prefix = np.cumsum(on_fallback)[ends], np.cumsum(on_candidate)[ends]
    return candidate if np.any((first > 0) & (total - prefix > 0)) else fallback


def solve_linear(deal: Deal) -> LinearResult:
    """Theorem 10.1 on a :class:`Deal`."""
    return solve_vector(owner_vector(deal))


def whist_outcome_linear(deal: Deal) -> Outcome:
    """χ(D) of single-suit Whist, in linear time."""
    return solve_linear(deal).outcome


def _without_lowest(c: np.ndarray) -> np.ndarray:
    """D₀ as a vector: the first +1 and the first −1 removed."""
    keep = np.ones(c.shape[0], bool)
    keep[int(np.argmax(c == 1))] = False
    keep[int(np.argmax(c == -1))] = False
    return c[keep]


@dataclass(frozen=True, slots=True)
class ValueDetection:
    """Theorem 12.1 of the multi-suit paper for one deal.

    ``kind`` is ``"half-integral"`` (val(D) = k + 1/2), ``"integral"``
    (val(D) = k) or ``"bounds"``: then χ(D) = (k, k) = ρ(val(D)) and val(D) is
    neither k nor k ± 1/2, so k − 1/2 < val(D) < k + 1/2 in the order of V with
    val(D) ≠ k.
    """

    kind: Literal["half-integral", "integral", "bounds"]
    outcome: Outcome
    """χ(D)."""
    reduced_outcome: Outcome | None
    """χ(D₀), when it was needed."""
    value: Value | None
    """val(D) when it is integral or half-integral."""
    lower: Fraction
    """val(D) = lower if exact, else lower < val(D)."""
    upper: Fraction
    """val(D) = upper if exact, else val(D) < upper."""


def detect_simple_value(deal: Deal | np.ndarray) -> ValueDetection:
    """Whether val(D) is integral or half-integral (Theorem 12.1 with Theorem 8.10), in linear time."""
    c, n = _checked(owner_vector(deal) if isinstance(deal, Deal) else deal)
    if n == 0:
        raise InvalidDealError("the empty deal has no value to detect")
    return _detect(c, solve_vector(c))


def _detect(c: np.ndarray, found: LinearResult) -> ValueDetection:
    outcome = found.outcome
    west_leads, east_leads = outcome
    if east_leads == west_leads + 1:
        q = Fraction(2 * west_leads + 1, 2)
        return ValueDetection("half-integral", outcome, None, Value(q), q, q)
    reduced = solve_vector(_without_lowest(c)).outcome
    if reduced.east_leads == reduced.west_leads + 1:
        k = reduced.east_leads
        return ValueDetection("integral", outcome, reduced, Value(k), Fraction(k), Fraction(k))
    k = west_leads
    return ValueDetection("bounds", outcome, reduced, None, Fraction(2 * k - 1, 2), Fraction(2 * k + 1, 2))


# -- the normal lead (§4.2) and when it is a best first lead (Theorem 8.2) --------------------
def normal_leads_vector(c: np.ndarray) -> tuple[int, int]:
    """The normal leads of §4.2 for West and for East, as cards (1 = the lowest), in linear time.

    West leads W_i for the pair A_ij = −1 (W_i < E_j) with j − i least.  For a
    given i the least such j is one more than the East cards below W_i, which
    are W_i − i; so j − i = W_i − 2i + 1, over the i with W_i − i < n (some East
    card above W_i).  East's is the mirror image: E_j − 2j + 1 over E_j − j < n.
    Ties go to the lowest card, and a leader whose cards are all high leads the
    highest — as :func:`whist_catalogue.single_suit.formulas.normal_lead`, the O(n²)
    reference the tests compare with.
    """
    c, n = _checked(c)
    if n == 0:
        raise InvalidDealError("the empty deal has no lead")
    leads = []
    for side in (-1, 1):
        cards = np.flatnonzero(c == side) + 1  # W_1 < … < W_n (or E_1 < … < E_n), cards counted from 1
        i = np.arange(1, n + 1)
        valid = cards - i < n
        if not valid.any():
            leads.append(int(cards[-1]))
            continue
        gap = np.where(valid, cards - 2 * i, np.iinfo(np.int64).max)
        leads.append(int(cards[int(np.argmin(gap))]))
    return leads[0], leads[1]


@dataclass(frozen=True, slots=True)
class NormalLeads:
    """Each side's normal lead, and whether Theorem 8.2 makes it a best first lead in Whist.

    Using the normal strategy West takes at least (n + H̲)/2 tricks and East at
    least (n − H̄)/2, rounded for the player not on lead (Theorem 8.2).  When that
    guarantee equals the optimum of Theorem 8.1 — (n + H)/2, rounded the same way —
    the normal lead, followed by best play, reaches the optimum: it is a best lead.
    Otherwise the normal strategy falls one trick short (holding up matters) and
    the paper does not say which lead is best.
    """

    west: int
    east: int
    west_is_best: bool
    east_is_best: bool
    west_guarantee: int
    """West's tricks with West on lead under the normal strategy (at least)."""
    east_guarantee: int
    """East's tricks with East on lead under the normal strategy (at least)."""


def normal_leads(deal: Deal | np.ndarray) -> NormalLeads:
    """:func:`normal_leads_vector` and Theorem 8.2's verdict on each, in linear time."""
    c, _ = _checked(owner_vector(deal) if isinstance(deal, Deal) else deal)
    return _normal_leads(c, solve_vector(c))


def _normal_leads(c: np.ndarray, found: LinearResult) -> NormalLeads:
    n = found.n
    west, east = normal_leads_vector(c)
    outcome = found.outcome
    west_guarantee = (n + found.h_lower) // 2  # West on lead: rounded for East, down
    east_guarantee = (n - found.h_upper) // 2  # East on lead: rounded for West, down for East
    return NormalLeads(
        west,
        east,
        west_guarantee == outcome.west_leads,
        east_guarantee == n - outcome.east_leads,
        west_guarantee,
        east_guarantee,
    )


@dataclass(frozen=True, slots=True)
class LinearAnswer:
    """Everything the linear-time theory gives for one deal of any size.

    χ(D) and H̲, H̄, H (Theorem 10.1 of the single-suit paper, with Theorems 8.1 and 9.1); val(D) when it is an
    integer or half an odd integer, else the two half-integers it lies strictly between (Theorem 12.1 of the
    multi-suit paper); each side's normal lead and whether Theorem 8.2 makes it a best first lead.  Not given:
    val(D) otherwise, every best lead and the best replies — those need the values of the deals one trick on
    (the α matrix of the multi-suit paper's §7.2), which no linear-time result provides.
    """

    result: LinearResult
    detection: ValueDetection
    leads: NormalLeads

    @property
    def outcome(self) -> Outcome:
        return self.result.outcome


def linear_answer(deal: Deal) -> LinearAnswer:
    """:class:`LinearAnswer` of a nonempty deal: Theorem 10.1 once (twice when Theorem 12.1 needs D₀)."""
    c, n = _checked(owner_vector(deal))
    if n == 0:
        raise InvalidDealError("the empty deal has nothing to solve")
    found = solve_vector(c)
    return LinearAnswer(found, _detect(c, found), _normal_leads(c, found))


# -- many random deals at once --------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class DealSample:
    """Uniformly random deals of one size, evaluated by the linear-time algorithm."""

    n: int
    seed: int
    h_lower: np.ndarray
    """H̲ per deal (int64)."""
    h_upper: np.ndarray
    """H̄ per deal."""
    h: np.ndarray
    """H of Theorem 9.1 per deal."""
    ace_west: np.ndarray
    """Whether West holds the ace (bool)."""
    king_west: np.ndarray
    """Whether West holds the king, card 2n − 1 (bool)."""
    h_psi: np.ndarray | None
    """H(ψ(D′)) with D′ the deal turned so West holds the ace and ψ the involution of §11.4, or None."""
    h_psi_king: np.ndarray | None
    """H(ψ_K(D″)) with D″ turned so West holds the king and ψ_K reversing cards 1 … 2n−2, or None."""

    def __len__(self) -> int:
        return int(self.h.shape[0])


def sample_deals(n: int, count: int, seed: int, *, with_psi: bool = False) -> DealSample:
    """``count`` uniformly random deals with n cards a hand, H by Theorem 10.1 (Numba, parallel).

    Deal number i depends only on (seed, i), so a sample is reproducible and
    any prefix of a larger sample with the same seed is the smaller sample.
    """

    if n < 1 or 2 * n >= 1 << 31:
        raise InvalidDealError(f"cannot sample deals with {n} cards a hand")
    if count < 0:
        raise ValueError(f"negative sample size {count}")
    if not 0 <= seed < 1 << 64:
        raise ValueError(f"seed {seed} is not a 64-bit unsigned integer")
    h_lower = np.empty(count, np.int64)
    h_upper = np.empty(count, np.int64)
    h = np.empty(count, np.int64)
    ace = np.empty(count, np.bool_)
    king = np.empty(count, np.bool_)
    h_psi = np.empty(count if with_psi else 0, np.int64)
    h_psi_king = np.empty(count if with_psi else 0, np.int64)
    if count:
        # The generator relies on uint64 multiplication wrapping around; under
        # NUMBA_DISABLE_JIT NumPy would warn about every wrap.
        from whist_catalogue.single_suit.kernels import sample_kernel  # Numba: only for sampling

        with np.errstate(over="ignore"):
            sample_kernel(n, np.uint64(seed), h_lower, h_upper, h, ace, king, h_psi, h_psi_king, with_psi)
    if not with_psi:
        return DealSample(n, seed, h_lower, h_upper, h, ace, king, None, None)
    return DealSample(n, seed, h_lower, h_upper, h, ace, king, h_psi, h_psi_king)


def random_deal_vector(n: int, seed: int, index: int = 0) -> np.ndarray:
    """Deal number ``index`` of the stream ``seed`` as the vector C of (37): the deals :func:`sample_deals` uses."""

    if n < 1 or not 0 <= seed < 1 << 64 or index < 0:
        raise ValueError(f"no deal number {index} of size {n} in stream {seed}")
    from whist_catalogue.single_suit.kernels import random_deal, stream_state

    c = np.empty(2 * n, np.int8)
    # The state must reach the kernel as uint64: a Python int would be typed int64
    # and mixing int64 with uint64 in Numba silently goes through float64.
    with np.errstate(over="ignore"):
        random_deal(np.uint64(stream_state(np.uint64(seed), np.uint64(index))), n, c)
    return c
