"""The fast engine against the literal recursive definition, and each shortcut against the full n² computation.

The suite compares the engine with the definition on every deal with n ≤ 8 (keeping CI well inside its
time); the full check of every deal with n ≤ 9 is

    WHIST_ENGINE_CHECK_N=9 python -m pytest tests/test_engine.py -k equals_the_definition

(about 2½ minutes).  The shortcuts are compared with the full computation up to n = 9 in every run.
"""

import os
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from whist_catalogue.engine import kernels as K
from whist_catalogue.constants import SCALE
from whist_catalogue.engine.encoding import decode_value, encode_value, labeled_key
from whist_catalogue.engine.levels import CHECK_NAMES, EngineSolver, Level, compute_level, levels
from whist_catalogue.engine.scan import context_tricks, contexts
from whist_catalogue.errors import DealTooLargeError
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.definition import Interval, simplest_in_interval, solve, val
from whist_catalogue.theory.labeled import LabeledValue
from whist_catalogue.theory.ranking import level_masks
from whist_catalogue.theory.values import Infinitesimal, Value, rho

CHECK_N = int(os.environ.get("WHIST_ENGINE_CHECK_N", "8"))


@pytest.fixture(scope="module")
def engine_levels():
    return list(levels(CHECK_N, moves=True))


def test_engine_equals_the_definition_on_every_deal(engine_levels):
    """Values and every best lead and reply (docs/spec.md §3) of every deal with n ≤ CHECK_N."""
    for level in engine_levels:
        for r, m in enumerate(level_masks(level.n)):
            deal = Deal(level.n, int(m))
            assert level.value(r) == val(deal), deal.label
            assert level.solution(deal) == solve(deal), deal.label


@pytest.mark.parametrize("n", range(1, 10))
def test_each_shortcut_equals_the_full_n2_computation(n):
    previous = Level.empty()
    for k in range(1, n):
        previous = compute_level(k, previous, runs=False, reply_rule=False)
    full = compute_level(n, previous, runs=False, reply_rule=False)
    for options in ({"runs": True, "reply_rule": False}, {"runs": False, "reply_rule": True},
                    {"runs": True, "reply_rule": True}, {"symmetry": True}):
        fast = compute_level(n, previous, **options)
        assert np.array_equal(fast.numerator, full.numerator), options
        assert np.array_equal(fast.infinitesimal, full.infinitesimal), options


def key_of(a: LabeledValue) -> int:
    return labeled_key(a.player, *encode_value(a.value))


single_suit_infinitesimals = st.one_of(
    st.sampled_from([Infinitesimal(), Infinitesimal.epsilon(0), -Infinitesimal.epsilon(0)]),
    st.integers(-5, 5).filter(bool).map(Infinitesimal.epsilon),
)
labeled = st.builds(
    LabeledValue,
    st.sampled_from(["W", "E"]),
    st.builds(Value, st.builds(lambda p, k: Fraction(p, 2**k), st.integers(0, 48), st.integers(0, 4)),
              single_suit_infinitesimals),
)


@settings(max_examples=600)
@given(labeled, labeled)
def test_value_from_bounds_is_the_simplest_element_of_I(a, b):
    """The kernel's case analysis equals the literal search of Definition 7.1 / Theorem 7.2."""
    lo, hi = (a, b) if a <= b else (b, a)
    interval = Interval(lo, hi)
    try:
        expected = simplest_in_interval(interval)
    except ArithmeticError:
        numer, rank, flags = K.value_from_bounds(key_of(lo), key_of(hi), SCALE)
        assert flags & K.FLAG_AMBIGUOUS
        return
    numer, rank, flags = K.value_from_bounds(key_of(lo), key_of(hi), SCALE)
    assert flags == 0
    assert decode_value(numer, rank) == expected


@settings(max_examples=600)
@given(labeled, labeled)
def test_outcome_preceq_against_every_context(a, b):
    """(P, x) ≼ (Q, y) iff West never takes more tricks after the first, whatever the other suits."""
    brute = all(context_tricks(a, f) <= context_tricks(b, f) for f in contexts(a, b))
    assert K.outcome_preceq(key_of(a), key_of(b)) == brute


def test_labeled_keys_order_like_labeled_values():
    rng = random.Random(1)
    items = [LabeledValue(rng.choice("WE"), Value(Fraction(rng.randint(0, 40), 8), Infinitesimal.epsilon(rng.randint(-3, 3))
                                                  if rng.random() < 0.5 else Infinitesimal()))
             for _ in range(300)]
    for a in items[:60]:
        for b in items:
            assert (key_of(a) < key_of(b)) == (a < b)


def test_the_kernels_labeled_keys_are_the_encodings():
    """The Numba kernels' key (``kernels.key_of``) and :func:`labeled_key` are one formula written twice (Numba
    cannot call the Python one): they must agree, and :func:`unkey` must invert it."""
    for numerator in (0, 1, SCALE // 2, 3 * SCALE + 5, 25 * SCALE - 1):
        for rank in range(-27, 28):
            for west in (0, 1):
                key = labeled_key("W" if west else "E", numerator, rank)
                assert K.key_of(numerator, rank, west) == key
                assert tuple(K.unkey(key)) == (numerator, rank, west)


def test_encoding_round_trip():
    for v in ["0", "e0", "3 + 3/8", "2 - e2", "15/2 + e4", "16 - e0"]:
        value = Value.from_str(v)
        assert decode_value(*encode_value(value)) == value


def test_checks_on_the_first_levels():
    results = {level.n: level.checks for level in levels(10, checks=True)}
    for n, checks in results.items():
        for c, name in enumerate(CHECK_NAMES):
            if name != "conjecture_12_4_labeled":
                assert checks.counterexamples[c] == 0, (n, name)
    labeled_form = CHECK_NAMES.index("conjecture_12_4_labeled")
    assert results[3].counterexamples[labeled_form] == 0
    assert results[4].counterexamples[labeled_form] == 2
    assert results[4].first_deal(labeled_form) == Deal.from_label("EEWWWWEE")
    assert results[10].checked[CHECK_NAMES.index("theorem_8_10")] == 184756


def test_engine_outcomes_equal_theorem_9_1_of_the_single_suit_paper():
    """Two independent theories of the same game: ρ(val(D)) from the multi-suit paper's values and
    Wästlund's closed formula H of Theorem 9.1 in the single-suit paper, on every deal with n ≤ 11."""
    from whist_catalogue.single_suit.formulas import level_quantities

    for level in levels(11):
        west, east = level.outcomes()
        q = level_quantities(level.n)
        assert np.array_equal(west, q.whist_west_leads), level.n
        assert np.array_equal(east, q.whist_east_leads), level.n


def test_outcomes_array_is_rho():
    level = list(levels(5))[-1]
    west, east = level.outcomes()
    for r in range(len(level)):
        o = rho(level.value(r))
        assert (west[r], east[r]) == (o.west_leads, o.east_leads)


def test_engine_solver():
    solver = EngineSolver(max_n=8)
    d = Deal.from_label("WWEEEEWWWEEWWE")  # the 3 + 3/8 deal of §12.2
    assert solver.value(d) == Value.from_str("3 + 3/8")
    assert solver.solve(d) == solve(d)
    with pytest.raises(DealTooLargeError):
        solver.value(Deal.from_label("WE" * 9))


def test_kernels_without_the_jit():
    """The kernels as plain Python (NUMBA_DISABLE_JIT=1) give the same values, best moves and checks."""
    import subprocess
    import sys

    program = (
        "from whist_catalogue.engine.levels import levels; import json; "
        "print(json.dumps([[L.numerator.tolist(), L.infinitesimal.tolist(), L.moves.tolist(), "
        "L.checks.counterexamples.tolist(), L.flags.tolist()] for L in levels(5, moves=True, checks=True)]))"
    )
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True,
                         env=dict(os.environ, NUMBA_DISABLE_JIT="1")).stdout
    plain = __import__("json").loads(out)
    for level, (num, inf, moves, cex, flags) in zip(levels(5, moves=True, checks=True), plain):
        assert level.numerator.tolist() == num and level.infinitesimal.tolist() == inf
        assert level.moves.tolist() == moves and level.flags.tolist() == flags
        assert level.checks.counterexamples.tolist() == cex


def test_compute_level_guards():
    with pytest.raises(ValueError):
        compute_level(3, Level.empty())
    with pytest.raises(DealTooLargeError):
        compute_level(40, Level.empty())


class _Recorder:
    """An engine observer that records what it hears and can stop the engine at a chosen level."""

    def __init__(self, stop_at: int | None = None) -> None:
        self.plans, self.steps, self.stop_at = [], [], stop_at

    def planned(self, plan):
        self.plans.append(plan)

    def progress(self, n, done, total):
        if n == self.stop_at:
            raise KeyboardInterrupt  # what Ctrl+C raises in the command line
        self.steps.append((n, done, total))


def test_the_engine_says_its_plan_first_reports_progress_and_stops_when_told():
    from whist_catalogue.engine.plan import observing

    solver = EngineSolver(max_n=9)
    assert solver.plan(7).levels == (1, 2, 3, 4, 5, 6, 7) and solver.plan(7).deals == 4_706
    assert solver.plan(7).span == "levels 1–7" and solver.plan(7).overall(3, 5) == 2 + 6 + 5
    stopped = _Recorder(stop_at=6)
    with observing(stopped), pytest.raises(KeyboardInterrupt):
        solver.value(Deal.from_label("WE" * 7))
    assert [p.levels for p in stopped.plans] == [(1, 2, 3, 4, 5, 6, 7)]
    assert {n for n, _, _ in stopped.steps} == {1, 2, 3, 4, 5}
    assert all(done <= total for _, done, total in stopped.steps)
    assert solver.plan(7).levels == (6, 7)  # the levels finished before the stop are kept
    heard = _Recorder()
    with observing(heard):
        assert solver.value(Deal.from_label("WE" * 7)) == val(Deal.from_label("WE" * 7))
    assert [p.levels for p in heard.plans] == [(6, 7)] and heard.steps[-1] == (7, 3_432, 3_432)
    assert solver.plan(7).levels == () and "nothing" in solver.plan(7).describe()


def test_an_engine_seeded_with_a_level_computes_only_the_levels_above_it():
    six = list(levels(6))[-1]
    read = []
    solver = EngineSolver(max_n=8, seed=lambda: read.append(6) or six, seed_n=6)
    plan = solver.plan(8)
    assert plan.levels == (7, 8) and plan.seeded_from == 6 and plan.overall(8, 12_870) == plan.deals == 16_302
    assert "reading level 6 from the catalogue, then computing levels 7–8 (16,302 deals)" in plan.describe()
    deal = Deal.from_label("WWEEWEWEEWWEWEEW")
    assert solver.value(deal) == val(deal) and solver.solve(deal) == solve(deal)
    assert read == [6] and solver.plan(8).levels == ()
