"""Deal notation (SPEC §2), canonical labels and keys, D̄, D₀ and the reductions D_ij (§7.2)."""

import pytest

from whist_catalogue.errors import AsymmetricSuitError, DuplicateCardError, InvalidDealError
from whist_catalogue.theory.deals import Deal, Notation, parse_deal, parse_multisuit, parse_suit
from whist_catalogue.theory.ranking import level_masks, level_size, rank, unrank


class TestNotation:
    @pytest.mark.parametrize(
        "text",
        ["AQ/KJ", "aq/kj", "A Q / K J", "EWEW", "ewew", "14 12 / 13 11", "4 2 / 3 1", "100 -5 / 50 -10"],
    )
    def test_every_notation_of_west_AQ_against_KJ(self, text):
        assert parse_deal(text) == Deal.from_label("EWEW")

    def test_ten_is_T(self):
        assert parse_deal("K Q 9 / A J 10") == parse_deal("KQ9/AJT") == Deal.from_label("WEEWWE")

    def test_a_parsed_suit_has_the_deal_its_owner_string_spells(self):
        """The parser's merged deal against the owner string written out card by card, lowest first."""
        import random

        rng = random.Random(5)
        for _ in range(300):
            n = rng.randint(2, 12)  # two numbers a side: number notation (SPEC §2)
            ranks = rng.sample(range(1, 60), 2 * n)
            west, east = ranks[:n], ranks[n:]
            owners = "".join("W" if r in west else "E" for r in sorted(ranks))
            text = " ".join(map(str, west)) + " / " + " ".join(map(str, east))
            assert parse_suit(text).deal == Deal.from_label(owners), text

    def test_notation_kinds(self):
        assert parse_suit("AQ/KJ").notation is Notation.RANKS
        assert parse_suit("13 12 / 14 11").notation is Notation.NUMBERS
        assert parse_suit("EWEW").notation is Notation.OWNER

    def test_cards_are_named_in_the_users_notation(self):
        suit = parse_suit("K Q 10 / A J 9")
        assert [suit.name_of(c) for c in suit.deal.west_cards] == ["T", "Q", "K"]
        numbers = parse_suit("13 12 9 8 7 2 1 / 14 11 10 6 5 4 3")
        assert [numbers.name_of(c) for c in numbers.deal.east_cards] == ["3", "4", "5", "6", "10", "11", "14"]
        owner = parse_suit("EWEW")
        assert [owner.name_of(c) for c in owner.deal.west_cards] == ["2", "4"]

    def test_printing_back(self):
        assert str(parse_suit("k q 10 / a j 9")) == "KQT/AJ9"
        assert str(parse_suit("13 12 / 14 11")) == "13 12 / 14 11"
        assert str(parse_suit("ewew")) == "EWEW"

    def test_multisuit(self):
        suits = parse_multisuit("AQ/KJ, AKJ/QT9; AJ9/KQT")
        assert [s.deal.label for s in suits] == ["EWEW", "EEWEWW", "WEWEEW"]

    @pytest.mark.parametrize(
        "text, error, words",
        [
            ("AQ/K", AsymmetricSuitError, "asymmetric"),
            ("WWE", AsymmetricSuitError, "asymmetric"),
            ("AA/KQ", DuplicateCardError, "twice"),
            ("3 3 / 2 1", DuplicateCardError, "twice"),
            ("AX/KQ", InvalidDealError, "rank 'X'"),
            ("", InvalidDealError, "empty"),
            ("AQ/KJ/T", InvalidDealError, "more than one"),
            ("KQT/AJ9, AK/QJ", InvalidDealError, "multi-suit deal, not one suit: use the outcome command"),
            ("hello", InvalidDealError, "not a deal"),
            ("1.5 2 / 3 4", InvalidDealError, "not a card rank"),
            ("/", InvalidDealError, "empty suit"),
        ],
    )
    def test_bad_suits(self, text, error, words):
        with pytest.raises(error, match=words):
            parse_suit(text)

    def test_bad_multisuit_names_the_suit(self):
        with pytest.raises(AsymmetricSuitError, match="suit 2"):
            parse_multisuit("AQ/KJ, AK/Q")
        with pytest.raises(InvalidDealError, match="empty suit 2"):
            parse_multisuit("AQ/KJ,,K/A")


class TestCanonicalDeal:
    def test_key_of_SPEC_2(self):
        assert Deal.from_label("EWEW").key == 0b11010 == 26
        assert Deal.from_key(26).label == "EWEW"

    def test_keys_are_unique_across_sizes(self):
        keys = [Deal(n, int(m)).key for n in range(0, 6) for m in level_masks(n)]
        assert len(keys) == len(set(keys))
        assert all(Deal.from_key(k).key == k for k in keys)

    @pytest.mark.parametrize("bad", [0, -3, 0b1011, 0b10001])
    def test_bad_keys(self, bad):
        with pytest.raises(InvalidDealError):
            Deal.from_key(bad)

    def test_hands_swapped_and_reduced(self):
        d = Deal.from_label("EWEW")
        assert d.west_cards == (2, 4) and d.east_cards == (1, 3)
        assert d.swapped() == Deal.from_label("WEWE")
        assert d.without_lowest() == Deal.from_label("EW")
        assert d.ace_holder == "W"
        # D_ij: West plays W_i, East E_j; (trick for West, what is left).
        assert d.reduction(1, 1) == (1, Deal.from_label("EW"))
        assert d.reduction(1, 2) == (0, Deal.from_label("EW"))
        assert d.reduction(2, 1) == (1, Deal.from_label("WE"))
        assert d.reduction(2, 2) == (1, Deal.from_label("EW"))

    def test_runs_of_equivalent_cards(self):
        d = Deal.from_label("EEWWWE")
        assert d.run(3) == (3, 4, 5)
        assert d.run(1) == (1, 2)
        assert d.run(6) == (6,)


class TestRanking:
    def test_level_masks_are_in_rank_order(self):
        for n in range(0, 7):
            masks = level_masks(n)
            assert len(masks) == level_size(n)
            assert list(masks) == sorted(masks)
            assert [rank(int(m)) for m in masks] == list(range(len(masks)))
            assert [unrank(n, r) for r in range(len(masks))] == [int(m) for m in masks]

    def test_rank_out_of_range(self):
        with pytest.raises(ValueError):
            unrank(2, 6)
