"""Theorem 9.1 and the lead rule of §10.4 against the brute-force referee.

The paper's worked deals are given here in the notation of docs/spec.md §2; where the
paper's text is garbled (deals (5)–(8), (26)) they are reconstructed from the
surrounding text, which states each suit and the outcome.
"""

import random

import pytest

from whist_catalogue.store.solvers import ComputingSolver
from whist_catalogue.theory import referee
from whist_catalogue.theory.deals import Deal, Notation, Suit, parse_multisuit
from whist_catalogue.theory.multisuit import LeadRule, analyse, choose_lead, optimal_line
from whist_catalogue.theory.values import Outcome, Value

SOLVER = ComputingSolver()

WORKED_DEALS = {
    "(2)": ("AQ/KJ", (1, 2)),
    "(3)": ("AQ/KJ, AQ/KJ, AQ/KJ, AQ/KJ", (6, 6)),
    "(4)": ("AQ/KJ, AKJ/QT9, AJ9/KQT", (5, 6)),
    "(5)": ("AQ/KJ, AKJ/QT9, AJ9/KQT, KT98/AQJ7", (7, 7)),
    "(6)": ("AQ/KJ, A/K", (2, 2)),
    "(7)": ("AQ/KJ, A/K, K/A", (3, 2)),
    "(8)": ("AKT/QJ9, AKT/QJ9", (4, 5)),
    "(9)": ("AQJ/KT9, KJ/AQ", (2, 3)),
    "(13)": ("KJ/AQ", (0, 1)),
    "(14)": ("KJ/AQ, K/A", (1, 1)),
    "(15)": ("KJ/AQ, A/K, K/A", (2, 1)),
    "(16)": ("KJ/AQ, AJ/KQ", (2, 2)),
    "(17)": ("KJ/AQ, AJ/KQ, A/K", (3, 3)),
    "(18)": ("KJ/AQ, K/A, A/K, A/K", (3, 2)),
    "(26)": ("AJ98/KQT7, AKT/QJ9, KQ9/AJT", (5, 6)),
    "(27)": ("AKQ8/JT97, AQ87/KJT9, AJT7/KQ98, KQ9/AJT", (9, 9)),
    "(28)": ("KQT98/AJ765, AK9/QJT, AJ9753/KQT864, KQT86/AJ975", (11, 10)),
}


@pytest.mark.parametrize("name", WORKED_DEALS)
def test_worked_deals(name):
    text, outcome = WORKED_DEALS[name]
    suits = parse_multisuit(text)
    analysis = analyse(suits, SOLVER)
    assert analysis.outcome == Outcome(*outcome)
    assert referee.whist_outcome([s.deal for s in suits]) == Outcome(*outcome)


def test_suit_values_stated_in_the_paper():
    def values(text):
        return [s.value for s in analyse(parse_multisuit(text), SOLVER).solutions]

    V = Value.from_str
    assert values(WORKED_DEALS["(26)"][0]) == [V("2"), V("2 + 1/4"), V("1 + 1/4")]
    assert values(WORKED_DEALS["(27)"][0]) == [V("3 + 1/8"), V("2 + e2"), V("2 + 1/8"), V("1 + 1/4")]
    assert values(WORKED_DEALS["(28)"][0]) == [V("3 - e2"), V("2 + e2"), V("3"), V("2 + 1/2")]
    assert analyse(parse_multisuit(WORKED_DEALS["(28)"][0]), SOLVER).value == V("10 + 1/2 +- e0")


def winning_first_leads(suits: tuple[Suit, ...], west: bool, target: int) -> set[tuple[int, str]]:
    """Every first lead (suit index, card name) after which the leader still reaches ``target``."""
    deals = [s.deal for s in suits]
    out = set()
    for i, s in enumerate(suits):
        for c in s.deal.west_cards if west else s.deal.east_cards:
            tricks = referee.tricks_after_lead(deals, west, i, c)
            if (tricks >= target) if west else (tricks <= target):
                out.add((i, s.name_of(c)))
    return out


def test_deal_27_west_must_exit_with_a_small_heart():
    suits = parse_multisuit(WORKED_DEALS["(27)"][0])
    assert winning_first_leads(suits, True, 9) == {(1, "7"), (1, "8")}
    lead = analyse(suits, SOLVER).west_lead
    assert lead.rule is LeadRule.EXIT and lead.suit == 1 and suits[1].name_of(lead.card) in ("7", "8")


def test_deal_28_west_must_lead_a_spade_any_spade():
    suits = parse_multisuit(WORKED_DEALS["(28)"][0])
    assert winning_first_leads(suits, True, 11) == {(0, c) for c in "KQT98"}
    lead = analyse(suits, SOLVER).west_lead
    assert lead.rule is LeadRule.ATTACK_EXIT and lead.suit == 0


def test_deal_26_west_must_duck_the_spade_king():
    suits = parse_multisuit(WORKED_DEALS["(26)"][0])
    deals = [s.deal for s in suits]
    spades = suits[0]
    king, ace, low = spades.card_of(13), spades.card_of(14), spades.card_of(8)
    assert referee.tricks_after_trick(deals, 0, ace, king) == 5
    assert referee.tricks_after_trick(deals, 0, low, king) == 6
    assert ace not in SOLVER.solve(spades.deal).replies("E", king)


def random_multisuit(rng: random.Random, max_cards: int) -> tuple[Suit, ...]:
    total = rng.randint(max_cards // 2 + 1, max_cards)
    sizes = []
    while total:
        size = rng.randint(1, min(total, 6))
        sizes.append(size)
        total -= size
    suits = []
    for n in sizes:
        west = rng.sample(range(1, 2 * n + 1), n)
        suits.append(Suit(tuple(sorted(west)), tuple(sorted(set(range(1, 2 * n + 1)) - set(west))), Notation.NUMBERS))
    return tuple(suits)


def test_theorem_9_1_on_300_random_deals_up_to_10_cards_a_hand():
    """ρ(Σ val) = the referee's outcome, and each side's rule-chosen first lead achieves it."""
    rng = random.Random(9_1)
    sizes = []
    for _ in range(300):
        suits = random_multisuit(rng, 10)
        sizes.append((sum(s.n for s in suits), len(suits)))
        deals = [s.deal for s in suits]
        analysis = analyse(suits, SOLVER)
        outcome = referee.whist_outcome(deals)
        assert analysis.outcome == outcome, [str(s) for s in suits]
        w, e = analysis.west_lead, analysis.east_lead
        assert referee.tricks_after_lead(deals, True, w.suit, w.card) == outcome.west_leads
        assert referee.tricks_after_lead(deals, False, e.suit, e.card) == outcome.east_leads
    assert sum(n == 10 for n, _ in sizes) >= 40 and sum(k >= 3 for _, k in sizes) >= 100


def test_optimal_line_reaches_the_outcome():
    rng = random.Random(2026)
    for _ in range(40):
        suits = random_multisuit(rng, 8)
        outcome = referee.whist_outcome([s.deal for s in suits])
        for leader, expected in (("W", outcome.west_leads), ("E", outcome.east_leads)):
            line = optimal_line(suits, SOLVER, leader)
            assert sum(t.winner == "W" for t in line) == expected
            assert len(line) == sum(s.n for s in suits)


def test_theorem_2_1_half_integers_add_up():
    # Suits each worth n + 1/2: the outcome is their sum rounded towards the player not on lead.
    suits = parse_multisuit("AQ/KJ, AKJ/QT9, AJ9/KQT, KT98/AQJ7, KQT/AJ9")
    analysis = analyse(suits, SOLVER)
    assert all(s.value.denominator == 2 for s in analysis.solutions)
    assert analysis.value == Value.from_str("8 + 1/2")
    assert analysis.outcome == referee.whist_outcome([s.deal for s in suits]) == Outcome(8, 9)


def test_choose_lead_needs_cards():
    with pytest.raises(ValueError):
        choose_lead([None, None], "W")
    empty = SOLVER.solve(Deal(0, 0))
    with pytest.raises(ValueError):
        choose_lead([empty], "E")


def test_packed_evaluation_and_batches_equal_the_analysis_on_300_random_deals():
    """evaluate() and analyse_batch() on packed values give analyse()'s values, outcome and first leads."""
    from whist_catalogue.theory.multisuit import analyse_batch, evaluate
    from whist_catalogue.theory.small_suits import SuitTable

    table = SuitTable(SOLVER)
    rng = random.Random(12)
    rows, expected = [], []
    for _ in range(300):
        suits = random_multisuit(rng, 13)
        deals = [s.deal for s in suits]
        analysis, packed = analyse(suits, SOLVER), evaluate(deals, table)
        assert packed.suit_values == tuple(s.value for s in analysis.solutions)
        assert (packed.value, packed.outcome) == (analysis.value, analysis.outcome)
        assert (packed.west_lead, packed.east_lead) == (analysis.west_lead, analysis.east_lead)
        rows.append([d.key for d in deals] + [1] * (6 - len(deals)))  # 1, the empty deal, pads a row
        expected.append(analysis)
    batch = analyse_batch(rows, table)
    assert len(batch) == 300
    for k, a in enumerate(expected):
        assert (batch.west_leads[k], batch.east_leads[k]) == a.outcome
        assert (batch.west_lead_suit[k], batch.west_lead_card[k]) == (a.west_lead.suit, a.west_lead.card)
        assert (batch.east_lead_suit[k], batch.east_lead_card[k]) == (a.east_lead.suit, a.east_lead.card)


def _written(suit: Suit, rng: random.Random) -> str:
    """A suit as a user might type it: ranks (upper or lower case, spaced or not, 10 or T), numbers, owners."""
    style = rng.choice(["ranks", "ranks", "lower", "spaced", "numbers", "owners"])
    if style == "owners" or max(suit.west + suit.east) > 13:
        return suit.deal.label if style == "owners" else str(suit)
    names = {r: "23456789TJQKA"[r - 1] for r in range(1, 14)}  # canonical card k as rank k + 1
    if style == "numbers":
        west, east = (" ".join(str(r + 1) for r in reversed(hand)) for hand in (suit.west, suit.east))
        return f"{west} / {east}"
    west = "".join(names[r] for r in reversed(suit.west))
    east = "".join(names[r] for r in reversed(suit.east))
    if style == "lower":
        return f"{west.lower()}/{east.lower()}"
    if style == "spaced":
        return f" {' '.join(west).replace('T', '10')} / {' '.join(east)} "
    return f"{west}/{east}"


def test_the_deal_evaluator_on_texts_equals_evaluate_on_1000_random_deals():
    """DealEvaluator — memoised suits, rank notation read without building a Suit — gives evaluate()'s answer
    on the parsed deal, and names each first lead as the parsed suit does, in every notation."""
    from whist_catalogue.theory.multisuit import DealEvaluator, evaluate
    from whist_catalogue.theory.small_suits import SuitTable

    table = SuitTable()
    evaluator = DealEvaluator(table)
    rng = random.Random(120)
    for _ in range(1000):
        text = rng.choice([", ", ",", "; "]).join(_written(s, rng) for s in random_multisuit(rng, 13))
        suits = parse_multisuit(text)
        written, expected = evaluator(text), evaluate([s.deal for s in suits], table)
        assert written.evaluation == expected, text
        assert written.suits == suits
        assert written.west_card == suits[expected.west_lead.suit].name_of(expected.west_lead.card), text
        assert written.east_card == suits[expected.east_lead.suit].name_of(expected.east_lead.card), text
    assert len(evaluator._suits) < 5000  # each distinct suit text once


@pytest.mark.parametrize(
    "text", ["AK/QJ, A/KQ", "AK/QJ, AA/KQ", "AK/QJ, ", "AK/QJ,, KQ/AJ", "", "AK/QJ; XY/AB", "AK/QJ, 1 2 3 / 4 5"],
)
def test_the_deal_evaluator_refuses_what_the_parser_refuses_with_its_words(text):
    from whist_catalogue.errors import InvalidDealError
    from whist_catalogue.theory.multisuit import DealEvaluator
    from whist_catalogue.theory.small_suits import SuitTable

    evaluator = DealEvaluator(SuitTable())
    evaluator("AK/QJ, KQ/AJ")  # known parts do not change what a later deal is told
    with pytest.raises(InvalidDealError) as parsed:
        parse_multisuit(text)
    with pytest.raises(type(parsed.value)) as evaluated:
        evaluator(text)
    assert str(evaluated.value) == str(parsed.value)
