"""Single-suit Whist, Greedy Whist and Five-card by the formulas of the single-suit paper.

Wästlund, *A solution of two-person single-suit whist* (``papers/single-suit-whist.md``):

* §3, (6) — the matrix A: A_ij = 1 if W_i > E_j, −1 if W_i < E_j;
  the diagonal sums T_k = Σ_{j−i=k} A_ij for −n < k < n;
* §5, end — H̄ and H̲, the point where T_k changes sign (Lemma 5.2);
* §6, (10) and Theorem 6.1 — H_Greedy and the outcome of Greedy Whist;
* §7.1, Theorem 7.2 — the winner of Five-card from tr(A) = T_0;
* §9, Theorem 9.1 — H for Whist (which of H̄, H̲ it is, from the ace and three
  conditions), with the outcome (⌊(n+H)/2⌋, ⌈(n+H)/2⌉) of Theorem 8.1;
* §4 — the normal strategy: the normal lead (§4.2) and the normal reply (§4.1).

Everything here works on one :class:`~whist_catalogue.theory.deals.Deal` and follows the
paper literally — the matrix is built, the sums are summed as written — so it
is the *direct formula* that the fast code is checked against:
:mod:`whist_catalogue.single_suit.linear_time` (Theorem 10.1, O(n)) and the per-level Numba
kernels behind :func:`level_quantities`, which compute the same quantities for
every deal of a level in rank order (:mod:`whist_catalogue.theory.ranking`).

Conventions: cards are 1 … 2n from the bottom; W_i, E_j and A_ij are 1-based as
in the paper; West's tricks are counted, so H > 0 favours West.  The empty deal
(n = 0) has H̄ = H̲ = H = 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from whist_catalogue.errors import InvalidDealError
from whist_catalogue.single_suit.kernels import (chunk_quantities_kernel, chunk_quantities_tables_kernel, level_kernel,
                                                  step_tables)
from whist_catalogue.theory.deals import Card, Deal
from whist_catalogue.constants import MAX_RANKED_N
from whist_catalogue.theory.ranking import level_masks
from whist_catalogue.theory.values import Outcome

__all__ = [
    "Player",
    "a_matrix",
    "t_diagonal_sums",
    "h_bounds",
    "h_upper",
    "h_lower",
    "h_greedy",
    "greedy_whist_outcome",
    "five_card_winner",
    "h_whist",
    "whist_outcome",
    "outcome_from_h",
    "normal_lead",
    "normal_reply",
    "SingleSuitQuantities",
    "quantities",
    "LevelQuantities",
    "level_quantities",
    "STEP_TABLES_MAX_N",
    "chunk_quantities",
]

Player = Literal["W", "E"]


# -- §3: the matrix A and its diagonal sums ------------------------------------------------
def a_matrix(deal: Deal) -> tuple[tuple[int, ...], ...]:
    """A(D) of (6): ``a_matrix(d)[i-1][j-1]`` is A_ij = 1 if W_i > E_j, else −1."""
    west, east = deal.west_cards, deal.east_cards
    return tuple(tuple(1 if w > e else -1 for e in east) for w in west)


def t_diagonal_sums(deal: Deal) -> dict[int, int]:
    """{k: T_k} for −n < k < n, T_k = Σ_{j−i=k} A_ij (§3); T_0 = tr(A)."""
    return _diagonal_sums(a_matrix(deal), deal.n)


def _diagonal_sums(a: tuple[tuple[int, ...], ...], n: int) -> dict[int, int]:
    return {k: sum(a[i][i + k] for i in range(n) if 0 <= i + k < n) for k in range(-n + 1, n)}


# -- end of §5: H̄ and H̲ ------------------------------------------------------------------
def h_bounds(deal: Deal) -> tuple[int, int]:
    """(H̲, H̄), defined at the end of §5 by where T_k changes sign.

    * H̄ = H̲ = n if all West's cards are high, −n if all East's are;
    * H̄ = H̲ = k if T_k = 0;
    * H̲ = k, H̄ = k + 1 if T_k > 0 and T_{k+1} < 0.

    Every clause is tried and exactly one answer must come out: Lemma 5.2 is
    what makes the definition unambiguous, so a deal violating it raises.
    """
    return _bounds(deal, t_diagonal_sums(deal))


def _bounds(deal: Deal, t: dict[int, int]) -> tuple[int, int]:
    n = deal.n
    if n == 0:
        return 0, 0
    west, east = deal.west_cards, deal.east_cards
    answers = set()
    if west[0] > east[-1]:
        answers.add((n, n))
    if east[0] > west[-1]:
        answers.add((-n, -n))
    for k in range(-n + 1, n):
        if t[k] == 0:
            answers.add((k, k))
        if k + 1 < n and t[k] > 0 and t[k + 1] < 0:
            answers.add((k, k + 1))
    if len(answers) != 1:
        raise AssertionError(f"{deal.label}: the definition of H̄, H̲ gives {sorted(answers)} (Lemma 5.2)")
    return answers.pop()


def h_upper(deal: Deal) -> int:
    """H̄ (end of §5)."""
    return h_bounds(deal)[1]


def h_lower(deal: Deal) -> int:
    """H̲ (end of §5)."""
    return h_bounds(deal)[0]


def outcome_from_h(n: int, h: int) -> Outcome:
    """West's tricks (n + H)/2, rounded down with West on lead and up with East on lead (Theorems 6.1, 8.1)."""
    return Outcome((n + h) // 2, -((-(n + h)) // 2))


# -- §6: Greedy Whist -----------------------------------------------------------------------
def h_greedy(deal: Deal) -> int:
    """H_Greedy of (10): H̄ if H̄ > 0, H̲ if H̲ < 0, and 0 if H̄ = H̲ = 0."""
    return _greedy(*h_bounds(deal))


def _greedy(lower: int, upper: int) -> int:
    if upper > 0:
        return upper
    if lower < 0:
        return lower
    return 0


def greedy_whist_outcome(deal: Deal) -> Outcome:
    """Theorem 6.1: West takes (n + H_Greedy)/2 tricks, rounded down on lead and up otherwise."""
    return outcome_from_h(deal.n, h_greedy(deal))


# -- §7.1: Five-card ------------------------------------------------------------------------
def five_card_winner(deal: Deal, west_on_lead: bool) -> Player:
    """Theorem 7.2: West wins if tr(A) > 0, East if tr(A) < 0, the player on lead if tr(A) = 0."""
    if deal.n == 0:
        raise InvalidDealError("Five-card needs at least one card a hand")
    return _five_card(t_diagonal_sums(deal)[0], west_on_lead)


def _five_card(trace: int, west_on_lead: bool) -> Player:
    if trace > 0:
        return "W"
    if trace < 0:
        return "E"
    return "W" if west_on_lead else "E"


# -- §9: Whist --------------------------------------------------------------------------------
def h_whist(deal: Deal) -> int:
    """H of Theorem 9.1, written out as the theorem states it.

    If East has the ace, H = H̄ when

    1. H̄ ≥ 0,
    2. A_{2,2+H̄} + A_{3,3+H̄} + … + A_{n−1−H̄,n−1} ≥ 0, and
    3. for some integer k, Σ_{i=2}^{2k} A_{i,i+H̲} > 0 and Σ_{i=2k+1}^{n−H̄−1} A_{i,i+H̄} > 0;

    otherwise H = H̲.  If West has the ace, H = H̄ unless

    1. H̲ ≤ 0,
    2. A_{2−H̲,2} + A_{3−H̲,3} + … + A_{n−1,n−1+H̲} ≤ 0, and
    3. for some integer k, Σ_{i=2}^{2k} A_{i−H̄,i} < 0 and Σ_{i=2k+1}^{n+H̲−1} A_{i−H̲,i} < 0,

    in which case H = H̲.  A sum whose range is empty is 0.
    """
    matrix = a_matrix(deal)
    lower, upper = _bounds(deal, _diagonal_sums(matrix, deal.n))
    return _theorem_9_1(deal, matrix, lower, upper)


def _theorem_9_1(deal: Deal, matrix: tuple[tuple[int, ...], ...], lower: int, upper: int) -> int:
    n = deal.n
    if lower == upper:
        return upper

    def a(i: int, j: int) -> int:
        if not (1 <= i <= n and 1 <= j <= n):
            raise AssertionError(f"{deal.label}: Theorem 9.1 reads A_{i},{j} outside the matrix")
        return matrix[i - 1][j - 1]

    # As §10 says, (3) ranges over the k for which both sums are nonempty: an
    # empty sum is 0 and fails the strict inequality, and past that range the
    # first sum would read entries outside A.
    def both_nonempty(last: int) -> range:
        return range(1, (last - 1) // 2 + 1)  # 2 ≤ 2k and 2k + 1 ≤ last

    if deal.ace_holder == "E":
        holds = (
            upper >= 0
            and sum(a(i, i + upper) for i in range(2, n - upper)) >= 0
            and any(
                sum(a(i, i + lower) for i in range(2, 2 * k + 1)) > 0
                and sum(a(i, i + upper) for i in range(2 * k + 1, n - upper)) > 0
                for k in both_nonempty(n - upper - 1)
            )
        )
        return upper if holds else lower
    exception = (
        lower <= 0
        and sum(a(i - lower, i) for i in range(2, n + lower)) <= 0
        and any(
            sum(a(i - upper, i) for i in range(2, 2 * k + 1)) < 0
            and sum(a(i - lower, i) for i in range(2 * k + 1, n + lower)) < 0
            for k in both_nonempty(n + lower - 1)
        )
    )
    return lower if exception else upper


def whist_outcome(deal: Deal) -> Outcome:
    """χ(D) = (⌊(n+H)/2⌋, ⌈(n+H)/2⌉) with H of Theorem 9.1 (West on lead, East on lead)."""
    return outcome_from_h(deal.n, h_whist(deal))


# -- §4: the normal strategy ----------------------------------------------------------------
def normal_lead(deal: Deal, west_on_lead: bool) -> Card:
    """The normal lead of §4.2.

    West: choose i, j with A_ij = −1 and j − i as small as possible, lead W_i.
    East: choose i, j with A_ij = 1 and i − j as small as possible, lead E_j.
    Ties (several entries on the same diagonal) go to the lowest card.  The
    card chosen is always the highest of its sequence, as Lemma 5.1 assumes:
    the leader's next card up in the same sequence has the same row (column)
    of A and so a −1 (a 1) one diagonal closer.  When all the leader's cards
    are high every lead takes the rest, and the highest is returned.
    """
    if deal.n == 0:
        raise InvalidDealError("the empty deal has no lead")
    a = a_matrix(deal)
    n = deal.n
    sign = -1 if west_on_lead else 1
    best: tuple[int, int] | None = None
    for i in range(n):
        for j in range(n):
            if a[i][j] == sign:
                gap = (j - i) if west_on_lead else (i - j)
                index = i if west_on_lead else j
                if best is None or (gap, index) < best:
                    best = (gap, index)
    hand = deal.west_cards if west_on_lead else deal.east_cards
    if best is None:
        return hand[-1]
    return hand[best[1]]


def normal_reply(deal: Deal, led: Card) -> Card:
    """The normal reply of §4.1: the smallest card that wins the trick, otherwise the smallest card."""
    if not 1 <= led <= 2 * deal.n:
        raise InvalidDealError(f"{deal.label} has no card {led}")
    hand = deal.east_cards if deal.owner(led) == "W" else deal.west_cards
    winners = [c for c in hand if c > led]
    return winners[0] if winners else hand[0]


# -- everything at once ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SingleSuitQuantities:
    """The single-suit paper's quantities of one deal (docs/spec.md §5 stores them per deal)."""

    deal: Deal
    h_lower: int
    """H̲ (end of §5)."""
    h_upper: int
    """H̄ (end of §5)."""
    h: int
    """H of Theorem 9.1: χ(D) = (⌊(n+H)/2⌋, ⌈(n+H)/2⌉)."""
    h_greedy: int
    """H_Greedy of (10)."""
    five_card_west_leads: Player
    """Winner of Five-card with West on lead (Theorem 7.2)."""
    five_card_east_leads: Player
    """Winner of Five-card with East on lead."""

    @property
    def whist_outcome(self) -> Outcome:
        return outcome_from_h(self.deal.n, self.h)

    @property
    def greedy_whist_outcome(self) -> Outcome:
        return outcome_from_h(self.deal.n, self.h_greedy)

    @property
    def ace_holder(self) -> Player | None:
        return self.deal.ace_holder  # type: ignore[return-value]


def quantities(deal: Deal) -> SingleSuitQuantities:
    """Every quantity of the single-suit paper for one deal, by the direct formulas."""
    if deal.n == 0:
        raise InvalidDealError("the empty deal has no single-suit quantities")
    matrix = a_matrix(deal)
    t = _diagonal_sums(matrix, deal.n)
    lower, upper = _bounds(deal, t)
    return SingleSuitQuantities(
        deal=deal,
        h_lower=lower,
        h_upper=upper,
        h=_theorem_9_1(deal, matrix, lower, upper),
        h_greedy=_greedy(lower, upper),
        five_card_west_leads=_five_card(t[0], True),
        five_card_east_leads=_five_card(t[0], False),
    )


# -- every deal of a level ------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class LevelQuantities:
    """The paper's quantities for every deal of level n, indexed by rank (:mod:`whist_catalogue.theory.ranking`)."""

    n: int
    masks: np.ndarray
    """West's masks in rank order (int64), as :func:`whist_catalogue.theory.ranking.level_masks`."""
    h_lower: np.ndarray
    """H̲ (int8)."""
    h_upper: np.ndarray
    """H̄ (int8)."""
    h: np.ndarray
    """H of Theorem 9.1 (int8)."""
    greedy_west_leads: np.ndarray
    """West's tricks at Greedy Whist with West on lead (int8, Theorem 6.1)."""
    greedy_east_leads: np.ndarray
    """West's tricks at Greedy Whist with East on lead (int8)."""
    five_card_west_wins_west_leads: np.ndarray
    """Whether West wins Five-card with West on lead (bool, Theorem 7.2)."""
    five_card_west_wins_east_leads: np.ndarray
    """Whether West wins Five-card with East on lead (bool)."""
    ace_west: np.ndarray
    """Whether West holds the ace (bool)."""

    @property
    def whist_west_leads(self) -> np.ndarray:
        """West's tricks at Whist with West on lead: ⌊(n+H)/2⌋."""
        return ((self.n + self.h.astype(np.int16)) // 2).astype(np.int8)

    @property
    def whist_east_leads(self) -> np.ndarray:
        """West's tricks at Whist with East on lead: ⌈(n+H)/2⌉."""
        return ((self.n + self.h.astype(np.int16) + 1) // 2).astype(np.int8)

    def __len__(self) -> int:
        return int(self.masks.shape[0])


def level_quantities(n: int, masks: np.ndarray | None = None) -> LevelQuantities:
    """H̄, H̲, H, the Greedy Whist outcome, the Five-card winners and the ace holder of every deal of level n.

    ``masks`` (West's masks, int64) defaults to the whole level in rank order;
    pass a slice of :func:`whist_catalogue.theory.ranking.level_masks` to do part of a level.
    Per deal the work is Theorem 10.1's linear-time procedure (see
    :mod:`whist_catalogue.single_suit.linear_time`), in a Numba kernel.
    """

    if not 1 <= n <= MAX_RANKED_N:
        raise InvalidDealError(f"level {n} out of range 1..{MAX_RANKED_N}")
    if masks is None:
        masks = level_masks(n)
    masks = np.ascontiguousarray(masks, dtype=np.int64)
    if masks.ndim != 1:
        raise ValueError("masks must be one-dimensional")
    size = masks.shape[0]
    h_lower = np.empty(size, np.int8)
    h_upper = np.empty(size, np.int8)
    h = np.empty(size, np.int8)
    greedy_w = np.empty(size, np.int8)
    greedy_e = np.empty(size, np.int8)
    five_w = np.empty(size, np.bool_)
    five_e = np.empty(size, np.bool_)
    ace = np.empty(size, np.bool_)
    bad = level_kernel(masks, n, h_lower, h_upper, h, greedy_w, greedy_e, five_w, five_e, ace)
    if bad >= 0:
        raise InvalidDealError(f"mask {int(masks[bad]):#b} is not a deal of level {n}")
    return LevelQuantities(n, masks, h_lower, h_upper, h, greedy_w, greedy_e, five_w, five_e, ace)


STEP_TABLES_MAX_N = 16
"""Up to this n :func:`chunk_quantities` reads T_k off two tables of 2^n rows (4 MB at n = 16), one per half of
the deal's cards (:func:`whist_catalogue.single_suit.kernels.step_tables`); above it, card by card."""


@lru_cache(maxsize=4)
def _step_tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    return step_tables(n, n)


def chunk_quantities(n: int, masks: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(H̲, H̄, H, T_0) of the deals of level n given by West's ``masks`` (deals of level n, unchecked: a chunk's),
    computing only what a search asks for: T_0 alone (``depth`` 0, the Five-card winners), with H̲ and H̄ (1) or
    with H too (2, Theorem 9.1's conditions); the arrays not computed are empty.  Each deal by Theorem 10.1's
    linear-time procedure, T_k read off :func:`~whist_catalogue.single_suit.kernels.step_tables` up to
    :data:`STEP_TABLES_MAX_N`, card by card beyond (docs/benchmarks.md, "Deal-level searches over level 16")."""
    size = masks.shape[0]
    h_lower, h_upper = (np.empty(size if depth else 0, np.int8) for _ in range(2))
    h = np.empty(size if depth == 2 else 0, np.int8)
    t0 = np.empty(size, np.int8)
    if n <= STEP_TABLES_MAX_N:
        low, high = _step_tables(n)
        chunk_quantities_tables_kernel(masks, n, depth, low, high, n, h_lower, h_upper, h, t0)
    else:
        chunk_quantities_kernel(masks, n, depth, h_lower, h_upper, h, t0)
    return h_lower, h_upper, h, t0
