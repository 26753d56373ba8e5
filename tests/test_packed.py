"""Packed values (theory/packed.py) against the semigroup V of theory/values.py and the rule of theory/multisuit.py."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from whist_catalogue.errors import InvalidValueError
from whist_catalogue.theory.multisuit import LeadRule, qualifying_suits
from whist_catalogue.theory.packed import (
    MAX_SUMMANDS,
    complexity_packed,
    lead_suits_packed,
    pack,
    rho_packed,
    sign_packed,
    unpack,
)
from whist_catalogue.theory.values import EPSILON0, ZERO_INF, Infinitesimal, Value, rho, total

infinitesimals = st.one_of(
    st.sampled_from([ZERO_INF, EPSILON0, -EPSILON0, Infinitesimal.fuzzy()]),
    st.integers(-6, 6).filter(bool).map(Infinitesimal.epsilon),
)
# Single-suit values are ≥ 0, but sums and the paper's examples need every sign.
dyadics = st.builds(lambda p, k: Fraction(p, 2**k), st.integers(-200, 200), st.integers(0, 24))
values = st.builds(Value, dyadics, infinitesimals)
suit_values = st.builds(Value, dyadics, infinitesimals.filter(lambda x: not x.is_fuzzy))


@given(values)
def test_unpack_inverts_pack(v):
    assert unpack(pack(v)) == v


@given(st.lists(values, min_size=1, max_size=MAX_SUMMANDS))
def test_a_sum_of_codes_is_the_code_of_the_sum(vs):
    assert unpack(sum(pack(v) for v in vs)) == total(vs)


@given(st.lists(values, min_size=1, max_size=8))
def test_rho_sign_and_complexity_of_a_sum(vs):
    whole, code = total(vs), sum(pack(v) for v in vs)
    assert rho_packed(code) == tuple(rho(whole))
    assert sign_packed(code) == whole.infinitesimal.sign
    assert complexity_packed(code) == whole.complexity


@given(st.lists(st.one_of(st.none(), suit_values), min_size=1, max_size=6).filter(lambda vs: any(vs)))
def test_the_lead_suit_is_the_rule_of_10_4(vs):
    for leader in ("W", "E"):
        rule, allowed = qualifying_suits(vs, leader)
        expected = max(allowed, key=lambda i: (vs[i].complexity, -i))
        codes = [None if v is None else pack(v) for v in vs]
        assert lead_suits_packed(codes)[0 if leader == "W" else 1] == (rule.value, expected)
        assert LeadRule(rule.value) is rule


def test_ties_of_rho_decided_by_the_infinitesimal():
    half = Fraction(5, 2)
    assert rho_packed(pack(Value(half))) == (2, 3)
    assert rho_packed(pack(Value(half, EPSILON0))) == (3, 3)
    assert rho_packed(pack(Value(half, -EPSILON0))) == (2, 2)
    assert rho_packed(pack(Value(half, Infinitesimal.fuzzy()))) == (3, 2)
    assert rho_packed(pack(Value(half, Infinitesimal.epsilon(-3)))) == (2, 2)
    assert rho_packed(pack(Value(3, Infinitesimal.epsilon(4)))) == (3, 3)


def test_out_of_range():
    with pytest.raises(InvalidValueError):
        pack(Value(Fraction(1, 2**25)))
    with pytest.raises(ValueError):
        lead_suits_packed([None, None])
