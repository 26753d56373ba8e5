"""Two-hand deals written down (docs/spec.md §2: uneven suits, voids, a trump suit) and positions of play."""

import random

import pytest

from whist_catalogue.errors import (
    AsymmetricSuitError,
    DuplicateCardError,
    IllegalMoveError,
    InvalidDealError,
    TrumpSuitError,
    UnevenHandsError,
)
from whist_catalogue.theory.deals import Notation, Suit, TwoHandDeal, parse_multisuit, parse_suit, parse_two_hand
from whist_catalogue.twohand.position import Position


class TestNotation:
    def test_uneven_suits_and_voids(self):
        deal = parse_two_hand("AK2/-, 5/QJ43")
        assert deal.suits[0].west == (2, 13, 14) and deal.suits[0].east == ()
        assert deal.suits[1].west == (5,) and deal.suits[1].east == (3, 4, 11, 12)
        assert deal.hand_sizes == (4, 4) and deal.trump is None and not deal.symmetric

    def test_every_notation_of_one_uneven_suit(self):
        ranks, numbers, owners = (parse_two_hand(t).suits[0] for t in ("AK2/Q, -/JT", "14 13 2 / 12, - / 11 10",
                                                                        "WEWW, EE"))
        assert ranks.owners == numbers.owners == owners.owners == "WEWW"
        assert (ranks.notation, numbers.notation, owners.notation) == (Notation.RANKS, Notation.NUMBERS, Notation.OWNER)
        # An owner string is any split: WWE is West's two lowest cards against East's highest, E a lone East card.
        deal = parse_two_hand("WWE, E")
        assert deal.suits[0].west == (1, 2) and deal.suits[0].east == (3,) and deal.suits[1].east == (1,)

    @pytest.mark.parametrize("text, trump", [
        ("trumps ♥: AK2/-, 5/QJ43", 1), ("trumps 2: AK2/-, 5/QJ43", 1), ("trumps H: AK2/-, 5/QJ43", 1),
        ("Trumps h : AK2/-, 5/QJ43", 1), ("trump S: AK2/-, 5/QJ43", 0), ("AK2/-, 5/QJ43", None),
    ])
    def test_the_trump_suit_named_in_the_text(self, text, trump):
        assert parse_two_hand(text).trump == trump

    def test_the_trump_suit_given_beside_the_text(self):
        assert parse_two_hand("AK2/-, 5/QJ43", trumps="♥").trump == 1
        assert parse_two_hand("AK2/-, 5/QJ43", trumps=0).trump == 0
        assert parse_two_hand("trumps 1: AK2/-, 5/QJ43", trumps="S").trump == 0  # the same suit twice is no conflict

    def test_text_round_trips(self):
        """text → parse → text → parse gives the same deal, in every notation, with trumps or not, over random
        deals."""
        rng = random.Random(8)
        for _ in range(500):
            suits = []
            for _ in range(rng.randint(1, 6)):
                cards = rng.sample(range(2, 15), rng.randint(1, 6))
                west = tuple(sorted(c for c in cards if rng.random() < 0.5))
                east = tuple(sorted(set(cards) - set(west)))
                notation = rng.choice(list(Notation))
                if notation is Notation.OWNER:
                    order = sorted(cards)
                    west, east = tuple(order.index(c) + 1 for c in west), tuple(order.index(c) + 1 for c in east)
                suits.append(Suit(west, east, notation))
            extra = sum(len(s.west) for s in suits) - sum(len(s.east) for s in suits)
            if extra:  # even the hands with one more suit for the shorter hand
                numbers = tuple(range(1, abs(extra) + 1))
                suits.append(Suit(numbers, (), Notation.NUMBERS) if extra < 0 else Suit((), numbers, Notation.NUMBERS))
            trump = rng.choice([None, rng.randrange(len(suits))])
            deal = TwoHandDeal(tuple(suits), trump)
            parsed = parse_two_hand(deal.text())
            assert [(s.west, s.east) for s in parsed.suits] == [(s.west, s.east) for s in deal.suits], deal.text()
            assert parsed.trump == deal.trump
            # A suit of single numbers reads as ranks (``9 / 8`` is ``9/8``): written once, the text stays put.
            assert parse_two_hand(parsed.text()) == parsed and parse_two_hand(parsed.text()).text() == parsed.text()

    def test_the_written_forms(self):
        assert str(parse_two_hand("trumps h: ak2 / - , 5/qj43")) == "trumps ♥: AK2/-, 5/QJ43"
        assert str(parse_two_hand("trumps 5: A/-, -/K, Q/-, -/J, T/9")) == "trumps 5: A/-, -/K, Q/-, -/J, T/9"
        assert str(parse_two_hand("13 12 / -, - / 5 4")) == "13 12 / -, - / 5 4"
        assert str(parse_two_hand("wwe, e")) == "WWE, E"

    def test_the_symmetric_parsers_still_refuse_uneven_suits(self):
        with pytest.raises(AsymmetricSuitError, match="asymmetric"):
            parse_suit("AK2/Q")
        with pytest.raises(AsymmetricSuitError, match="suit 2"):
            parse_multisuit("AQ/KJ, AK2/-")
        with pytest.raises(AsymmetricSuitError, match="asymmetric"):
            parse_two_hand("AK2/Q, -/43").suits[0].deal  # the theory's Deal needs a symmetric suit
        assert parse_two_hand("AQ/KJ, 7/6").suits[0].deal == parse_suit("AQ/KJ").deal


class TestBadDeals:
    def test_hands_of_different_sizes(self):
        with pytest.raises(UnevenHandsError, match=r"'AK2/-, 5/QJ3': West holds 4 cards, East 3"):
            parse_two_hand("AK2/-, 5/QJ3")

    def test_a_card_twice(self):
        with pytest.raises(DuplicateCardError, match="suit 2: card Q appears twice"):
            parse_two_hand("AK/-, Q/Q")

    def test_a_trump_suit_the_deal_does_not_have(self):
        with pytest.raises(TrumpSuitError, match=r"no trump suit '♦' in 'trumps ♦: AK/-, -/QJ'.*suits 1…2"):
            parse_two_hand("trumps ♦: AK/-, -/QJ")

    def test_a_trump_suit_given_that_the_deal_does_not_have(self):
        with pytest.raises(TrumpSuitError, match="no trump suit '3'"):
            parse_two_hand("AK/-, -/QJ", trumps="3")

    def test_two_trump_suits(self):
        with pytest.raises(TrumpSuitError, match="two trump suits"):
            parse_two_hand("trumps ♠: AK/-, -/QJ", trumps="H")

    def test_a_trump_suit_without_a_name(self):
        with pytest.raises(TrumpSuitError, match="no trump suit ''"):
            parse_two_hand("trumps: AK/-, -/QJ")

    def test_an_empty_suit(self):
        with pytest.raises(InvalidDealError, match="empty suit"):
            parse_two_hand("AK/QJ, -/-")

    def test_not_a_deal(self):
        with pytest.raises(InvalidDealError, match="not a card rank"):
            parse_two_hand("AX/QJ")


class TestPosition:
    def test_repr_round_trips(self):
        for position in (
            Position("trumps ♠: AK/-, -/QJ"),
            Position("trumps ♠: AK/-, -/QJ", leader="E"),
            Position("AK/-, -/QJ", leader="W", led=(0, 13)),
            Position("13 12 / -, - / 5 4", leader="E", led=(1, 4)),
        ):
            assert eval(repr(position), {"Position": Position}) == position  # noqa: S307 (our own repr)

    def test_who_plays(self):
        position = Position("AK/-, -/QJ", leader="W", led=(0, 14))
        assert position.to_play == "E" and position.led_name() == "A"
        assert position.text() == "AK/-, -/QJ (West led A of suit 1 (♠))"
        assert Position("AK/-, -/QJ", leader="E").to_play == "E"
        assert Position("AK/-, -/QJ").to_play is None

    def test_trumps_beside_a_deal(self):
        assert Position("AK/-, -/QJ", trumps="H").trump == 1
        assert Position(parse_two_hand("AK/-, -/QJ"), trumps=1).trump == 1  # an int counts from 0, as JSON does

    def test_a_card_led_that_is_not_the_leaders(self):
        with pytest.raises(IllegalMoveError, match="East does not hold A in suit 1"):
            Position("AK/-, -/QJ", leader="E", led=(0, 14))

    def test_a_card_led_without_a_leader(self):
        with pytest.raises(IllegalMoveError, match="needs its leader"):
            Position("AK/-, -/QJ", led=(0, 14))

    def test_notebook_drawing(self):
        html = Position("trumps ♥: AK2/-, 5/QJ43", leader="W")._repr_html_()
        assert "<svg" in html and "trumps ♥" in html and "West to lead" in html
        assert ">Q<" in html and ">5<" in html
        assert "4 cards a hand" in parse_two_hand("AK2/-, 5/QJ43")._repr_html_()
