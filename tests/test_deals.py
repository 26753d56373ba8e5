"""Deal notation (docs/spec.md §2), canonical labels and keys, D̄, D₀ and the reductions D_ij (§7.2)."""

import numpy as np
import pytest

from whist_catalogue.errors import AsymmetricSuitError, DuplicateCardError, InvalidDealError
from whist_catalogue.theory.deals import Deal, Notation, Suit, parse_deal, parse_multisuit, parse_suit
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
            n = rng.randint(2, 12)  # two numbers a side: number notation (docs/spec.md §2)
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
    def test_key_of_spec_section_2(self):
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

    def test_long_runs_are_filled_in_parts_without_a_seam(self):
        """From 2^16 masks on, parts are filled on all cores, each from its own unranked first mask: every mask
        is still the one of its rank (checked at and around each part's first), and the run is increasing."""
        for n, start, stop in ((9, 0, 48620), (10, 0, 184756), (12, 123_457, 123_457 + 70_001),
                               (17, 2_333_606_220 - (1 << 17), 2_333_606_220)):
            masks = level_masks(n, start, stop)
            assert len(masks) == stop - start and bool(np.all(np.diff(masks) > 0))
            size = stop - start
            for i in {min(size - 1, max(0, size * part // 16 + d)) for part in range(17) for d in (-1, 0, 1)}:
                assert int(masks[i]) == unrank(n, start + i)
            if n <= 10:
                assert [rank(int(m)) for m in masks] == list(range(start, stop))

    def test_rank_out_of_range(self):
        with pytest.raises(ValueError):
            unrank(2, 6)


class TestTwoHandSuit:
    """two_hand_suit, the batches' reader of a suit (plain rank notation with integer operations), against
    read_suit: the same reading, or the same refusal."""

    @staticmethod
    def _expected(text):
        from whist_catalogue.theory.deals import read_suit

        suit = read_suit(text)
        ranks = sorted(suit.west + suit.east)
        west = sum(1 << i for i, r in enumerate(ranks) if r in suit.west)
        return west, len(suit.west), len(suit.east), tuple(map(suit.card_name, ranks))

    def _agrees(self, text):
        """Whether the parser reads ``text``; either way two_hand_suit says the same."""
        from whist_catalogue.errors import WhistError
        from whist_catalogue.theory.deals import two_hand_suit

        try:
            expected = self._expected(text)
        except WhistError as exc:
            with pytest.raises(type(exc)):
                two_hand_suit(text)
            return False
        assert two_hand_suit(text) == expected, text
        return True

    def test_every_plain_suit_of_up_to_4_cards_a_hand_from_the_top_8_ranks(self):
        from itertools import combinations

        ranks = "AKQJT987"
        for n in range(1, 5):
            for cards in combinations(ranks, 2 * n):
                for west in combinations(cards, n):
                    east = "".join(c for c in cards if c not in west)
                    assert self._agrees("".join(west) + "/" + east)

    def test_random_texts_agree_with_the_parser(self):
        import random

        rng = random.Random(2)
        alphabet = "AKQJT98765432akqjt1 0/-xW"
        plain = 0
        for _ in range(20_000):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
            if rng.random() < 0.5:  # mostly well-formed: two hands of distinct ranks
                n = rng.randint(1, 6)
                cards = rng.sample("AKQJT98765432", 2 * n)
                text = "".join(cards[:n]) + "/" + "".join(cards[n:])
                text = text.lower() if rng.random() < 0.2 else text
            plain += self._agrees(text)
        assert plain > 9_000

    @pytest.mark.parametrize("text", ["AA/KQ", "A/KQ", "AK/QJ/T9", "10/9", "A Q/KJ", "-/-", "AQ/KJ,", "1/2"])
    def test_anything_else_as_the_parser_reads_or_refuses_it(self, text):
        self._agrees(text)


class TestImmutableValueObjects:
    """Deal, Suit, Value and Infinitesimal compare, hash, show and pickle by their fields and stay read-only."""

    def test_equality_hash_and_repr(self):
        from whist_catalogue.theory.values import Infinitesimal, Value

        assert Deal(2, 0b0101) == Deal.from_label("WEWE") and Deal(2, 0b0101) != Deal(2, 0b0110)
        assert len({Deal(2, 0b0101), Deal.from_label("WEWE"), Deal(2, 0b0110)}) == 2
        assert Deal(2, 0b0101) != (2, 0b0101)
        assert repr(parse_suit("AQ/KJ")) == "Suit(west=(12, 14), east=(11, 13), notation=<Notation.RANKS: 'ranks'>)"
        # The parser's cached canonical deal is not a field: a Suit built without it is equal.
        assert parse_suit("AQ/KJ") == Suit((12, 14), (11, 13), Notation.RANKS)
        assert hash(parse_suit("AQ/KJ")) == hash(Suit((12, 14), (11, 13), Notation.RANKS))
        assert Value("3/2", "e1") == Value.from_str("1 + 1/2 + ε₁") and hash(Value(1)) == hash(Value("1"))
        assert Infinitesimal.epsilon(2) != Infinitesimal.epsilon(-2)

    def test_read_only(self):
        from whist_catalogue.theory.values import Value

        for obj, field in ((Deal(1, 1), "n"), (parse_suit("A/K"), "west"), (Value(1), "number")):
            with pytest.raises(AttributeError):
                setattr(obj, field, 0)
            with pytest.raises(AttributeError):
                delattr(obj, field)
            with pytest.raises(AttributeError):
                obj.other = 0

    def test_pickle_and_copy_round_trip(self):
        import copy
        import pickle

        from whist_catalogue.theory.values import Infinitesimal, Value

        for obj in (Deal(3, 0b010101), parse_suit("K Q 10 / A J 9"), Value("-5/4", Infinitesimal.fuzzy())):
            again = pickle.loads(pickle.dumps(obj))
            assert again == obj and type(again) is type(obj) and copy.deepcopy(obj) == obj
        assert pickle.loads(pickle.dumps(parse_suit("AQ/KJ"))).deal == Deal.from_label("EWEW")
