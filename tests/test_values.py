"""The semigroup V of §6: addition, negation, the partial order, simplicity, ρ and ρ′, text forms."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from whist_catalogue.errors import InvalidValueError
from whist_catalogue.theory.values import (
    EPSILON0,
    ZERO_INF,
    Complexity,
    Infinitesimal,
    Outcome,
    Value,
    rho,
    rho_refined,
    total,
)

E = Infinitesimal.epsilon
FUZZY = Infinitesimal.fuzzy()
NEG0 = -EPSILON0


def V(text: str) -> Value:
    return Value.from_str(text)


infinitesimals = st.one_of(
    st.sampled_from([ZERO_INF, EPSILON0, NEG0, FUZZY]),
    st.integers(-6, 6).filter(bool).map(E),
)
dyadics = st.builds(lambda p, k: Fraction(p, 2**k), st.integers(-40, 40), st.integers(0, 5))
values = st.builds(Value, dyadics, infinitesimals)


class TestInfinitesimals:
    def test_addition_table_of_6_1_4(self):
        assert EPSILON0 + EPSILON0 == EPSILON0
        assert NEG0 + NEG0 == NEG0
        assert EPSILON0 + NEG0 == FUZZY
        assert FUZZY + EPSILON0 == FUZZY
        assert E(1) + E(-1) == FUZZY
        assert E(3) + E(-1) == E(2)
        assert E(2) + E(-5) == E(-3)
        assert ZERO_INF + E(4) == E(4)
        assert ZERO_INF + FUZZY == FUZZY

    def test_stoppers_absorb_the_other_sides_exit(self):
        # (22): [A J, K Q] + [A, K] ≡ 1 + [A J, K Q], i.e. ε₁ − ε₀ = ε₁.
        assert E(1) + NEG0 == E(1)
        assert E(-2) + EPSILON0 == E(-2)

    def test_negation(self):
        assert -EPSILON0 == NEG0
        assert -FUZZY == FUZZY
        assert -E(3) == E(-3)
        assert -ZERO_INF == ZERO_INF

    def test_order_of_6_1_6(self):
        assert NEG0 < ZERO_INF < EPSILON0
        assert NEG0 < FUZZY < EPSILON0
        assert not ZERO_INF <= FUZZY and not FUZZY <= ZERO_INF
        for k in range(1, 4):
            for x in (ZERO_INF, FUZZY, EPSILON0, NEG0):
                assert -E(k) < x < E(k)
        assert E(-2) < E(-1) < E(1) < E(2)

    @given(infinitesimals, infinitesimals, infinitesimals)
    def test_addition_is_associative_and_commutative(self, x, y, z):
        assert x + y == y + x
        assert (x + y) + z == x + (y + z)

    @given(infinitesimals, infinitesimals)
    def test_negation_is_an_automorphism(self, x, y):
        assert -(x + y) == (-x) + (-y)
        assert -(-x) == x

    @pytest.mark.parametrize("code", ["0", "e0", "-e0", "+-e0", "e3", "-e3"])
    def test_codes_round_trip(self, code):
        assert Infinitesimal.from_code(code).code == code

    def test_bad_code(self):
        with pytest.raises(InvalidValueError, match="not an infinitesimal"):
            Infinitesimal.from_code("f2")


class TestValues:
    def test_order_is_lexicographic_and_partial(self):
        assert V("1") < V("1 + e0") < V("1 + e1") < V("5/4 - e3")
        assert not V("1/2") <= V("1/2 +- e0") and not V("1/2 +- e0") <= V("1/2")
        assert not V("1/2").comparable(V("1/2 +- e0"))

    @given(values, values)
    def test_order_reverses_under_negation(self, a, b):
        assert (a <= b) == (-b <= -a)

    @given(values, values, values)
    def test_addition_is_associative_and_commutative(self, a, b, c):
        assert a + b == b + a
        assert (a + b) + c == a + (b + c)

    @given(values, values)
    def test_order_is_characterised_by_rounding(self, a, b):
        # §6.5: α ≤ β iff ρ(α + γ) ≤ ρ(β + γ) for every γ.  γ ranges over numbers that put
        # either value on a half-integer and every relevant infinitesimal.
        gammas = [
            Value(Fraction(1, 2) - q + d, x)
            for q in (a.number, b.number)
            for d in (Fraction(0), Fraction(1, 256), Fraction(-1, 256))
            for x in [ZERO_INF, EPSILON0, NEG0, FUZZY] + [E(k) for k in range(-8, 9) if k]
        ]
        below = all(
            rho(a + g).west_leads <= rho(b + g).west_leads and rho(a + g).east_leads <= rho(b + g).east_leads
            for g in gammas
        )
        assert (a <= b) == below

    def test_complexity_classes_of_6_4(self):
        assert V("3/2").complexity == V("2").complexity == Complexity(0, 0)
        assert V("5/4").complexity == Complexity(0, 1)
        assert V("27/8").complexity == Complexity(0, 2)
        assert V("1 + e0").complexity == V("1 - e0").complexity == Complexity(1, 0)
        assert V("2 - e2").complexity == Complexity(1, 2)
        assert V("1/2 +- e0").complexity == Complexity(2, 0)
        assert str(V("2 - e2").complexity) == "ω+2"
        assert V("7/8").is_simpler_than(V("e0"))

    def test_rho_of_6_5(self):
        assert rho(V("3/2")) == Outcome(1, 2)
        assert rho(V("3/2 +- e0")) == Outcome(2, 1)
        assert rho(V("3/2 + e0")) == Outcome(2, 2)
        assert rho(V("3/2 - e1")) == Outcome(1, 1)
        assert rho(V("27/8")) == Outcome(3, 3)
        assert rho(V("e0")) == Outcome(0, 0)

    def test_rho_refined_of_8_4(self):
        assert rho_refined(V("0")) == Outcome(Fraction(-1, 4), Fraction(1, 4))
        # §8.2: with A Q against K J West on lead scores 1 + 1/4, and 2 − 1/4 when East leads.
        assert rho_refined(V("1 + 1/2")) == Outcome(Fraction(5, 4), Fraction(7, 4))
        assert rho_refined(V("2 + 1/8")) == Outcome(Fraction(9, 4), Fraction(9, 4))
        assert rho_refined(V("e0")) == Outcome(Fraction(1, 4), Fraction(1, 4))

    @given(values, values)
    def test_rho_is_monotone(self, a, b):
        if a <= b:
            ra, rb = rho(a), rho(b)
            assert ra.west_leads <= rb.west_leads and ra.east_leads <= rb.east_leads

    def test_sum(self):
        # Deal (28): 3 − ε₂, 2 + ε₂, 3 and 2 + 1/2 add up to 10 + 1/2 ± ε₀.
        assert total(map(V, ["3 - e2", "2 + e2", "3", "5/2"])) == V("21/2 +- e0")


class TestText:
    @pytest.mark.parametrize(
        "text, number, code, shown",
        [
            ("3 + 3/8", "27/8", "0", "3 + 3/8"),
            ("27/8", "27/8", "0", "3 + 3/8"),
            ("2-e2", "2", "-e2", "2 − ε₂"),
            ("2 − ε₂", "2", "-e2", "2 − ε₂"),
            ("e0", "0", "e0", "ε₀"),
            ("-e0", "0", "-e0", "−ε₀"),
            ("1/2 ± ε₀", "1/2", "+-e0", "1/2 ± ε₀"),
            ("1 + e1", "1", "e1", "1 + ε₁"),
            ("-5/4", "-5/4", "0", "−1 − 1/4"),
            ("0", "0", "0", "0"),
        ],
    )
    def test_parse_and_print(self, text, number, code, shown):
        v = V(text)
        assert v.to_json() == {"number": number, "infinitesimal": code, "text": shown}
        assert V(v.text()) == v
        assert Value.from_json(v.to_json()) == v

    def test_repr_round_trips(self):
        v = V("2 + 1/8")
        assert eval(repr(v), {"Value": Value}) == v

    def test_bare_epsilon_is_epsilon0(self):
        # The paper writes ε for the unprotected exit ε₀.
        assert V("1 + ε") == V("1 + e0")

    @pytest.mark.parametrize("bad", ["", "abc", "1/3", "2 + + 1", "e2e", "1/0", "3 + 1/2 x", "ε₂ + 1"])
    def test_bad_values(self, bad):
        with pytest.raises(InvalidValueError):
            V(bad)
