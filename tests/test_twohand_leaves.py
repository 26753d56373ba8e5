"""The theory's leaves of the two-hand search (Theorem 9.1), and the search equal to the theory deal by deal on
symmetric deals — without trumps and with them (no one can ever ruff there, so trumps cannot matter)."""

from __future__ import annotations

import random

import numpy as np

from whist_catalogue.theory.deals import Notation, Suit, TwoHandDeal
from whist_catalogue.theory.moves import card_results
from whist_catalogue.theory.multisuit import evaluate
from whist_catalogue.theory.packed import rho_packed
from whist_catalogue.theory.small_suits import SuitTable, preloaded
from whist_catalogue.twohand.leaves import LEAF_KEYS, leaf_codes, rho
from whist_catalogue.twohand.solver import solve, solve_many

TABLE = SuitTable()


def test_the_leaf_codes_are_the_preloaded_values():
    codes = leaf_codes()
    table, _ = preloaded(8)
    assert codes.shape == (LEAF_KEYS,) and LEAF_KEYS == 1 << 17
    assert len(table) == 17_576 and all(codes[key] == code for key, code in table.items())
    assert np.count_nonzero(codes) == sum(1 for code in table.values() if code)


def test_rho_is_rho_packed_on_every_sum_of_up_to_four_suits():
    rng = random.Random(6)
    values = list(preloaded(8)[0].values())
    for _ in range(20_000):
        total = sum(rng.sample(values, rng.randint(1, 4)))
        assert rho(total) == rho_packed(total)


def random_symmetric(rng: random.Random, suits: int) -> TwoHandDeal:
    """Even suits of up to 6 cards a hand, up to 10 cards a hand in all."""
    while True:
        sizes = [rng.randint(1, 6) for _ in range(suits)]
        if sum(sizes) <= 10:
            break
    dealt = []
    for n in sizes:
        ranks = rng.sample(range(2, 15), 2 * n)
        dealt.append(Suit(tuple(sorted(ranks[:n])), tuple(sorted(ranks[n:])), Notation.RANKS))
    return TwoHandDeal(tuple(dealt), rng.choice([None, rng.randrange(suits)]))


def test_the_search_equals_the_theory_on_symmetric_deals():
    """Searched without a single leaf, every first card of 1,000 symmetric deals (about half with trumps) has the
    result one trick of look-ahead on Theorem 9.1 gives it, and the outcome is ρ(Σ val)."""
    rng = random.Random(91)
    deals = [random_symmetric(rng, rng.randint(1, 4)) for _ in range(1000)]
    assert sum(d.trump is not None for d in deals) > 400
    searched = solve_many(deals, theory=False, endings=False)
    for deal, solution in zip(deals, searched):
        assert solution.source == "search" and solution.theory_leaves == 0
        evaluation = evaluate([s.deal for s in deal.suits], TABLE)
        assert solution.outcome == evaluation.outcome, deal.text()
        for answer in solution.answers:
            theory = card_results([s.deal for s in deal.suits], answer.leader, TABLE)
            by_rank = {(r.suit, deal.suits[r.suit].rank_of(r.card)): r.west_tricks for r in theory}
            assert {(r.suit, r.card): r.west_tricks for r in answer.moves} == by_rank, deal.text()


def test_a_symmetric_deal_is_answered_by_the_theory_and_the_leaves_by_theorem_9_1():
    rng = random.Random(92)
    for _ in range(100):
        deal = random_symmetric(rng, rng.randint(1, 4))
        answered = solve(deal, line=False)
        assert answered.source == "theory" and answered.value is not None
        assert answered.answers == solve(deal, line=False, theory=False, endings=False).answers
    # An uneven deal reaches symmetric positions: the leaves answer them, with the same results as without.
    uneven = solve("AKQ2/J3, 5/T9, -/8", line=False, endings=False)
    assert uneven.source == "search" and uneven.theory_leaves > 0
    assert uneven.answers == solve("AKQ2/J3, 5/T9, -/8", line=False, theory=False, endings=False).answers
