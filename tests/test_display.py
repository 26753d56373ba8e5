"""Deals, values and analyses as they show themselves in a notebook (``_repr_html_``, theory/display.py)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from whist_catalogue.theory.deals import Deal, parse_multisuit, parse_suit
from whist_catalogue.theory.definition import solve
from whist_catalogue.theory.display import MAX_DRAWN_CARDS, deal_svg
from whist_catalogue.theory.multisuit import analyse
from whist_catalogue.theory.values import Value

SVG = "{http://www.w3.org/2000/svg}"


def rows_of(svg: str) -> dict[str, list[str]]:
    """The card names drawn on West's and East's rows, left to right, read back from the SVG."""
    root = ET.fromstring(svg)
    texts = [(float(t.get("y")), float(t.get("x")), t.text) for t in root.iter(f"{SVG}text")]
    by_row: dict[float, list[tuple[float, str]]] = {}
    for y, x, text in texts:
        by_row.setdefault(y, []).append((x, text))
    rows = {}
    for _, items in sorted(by_row.items()):
        names = [text for _, text in sorted(items)]
        rows[names[0]] = names[1:]
    return rows


def test_a_suit_is_drawn_in_its_own_notation_highest_first():
    suit = parse_suit("K Q 10 / A J 9")
    assert rows_of(deal_svg([suit])) == {"West": ["K", "Q", "T"], "East": ["A", "J", "9"]}
    numbers = parse_suit("13 12 9 / 14 11 10")
    assert rows_of(deal_svg([numbers])) == {"West": ["13", "12", "9"], "East": ["14", "11", "10"]}


def test_a_canonical_deal_is_drawn_with_ranks_from_the_ace_down():
    # EWEWWE: card 1 (the lowest) East's … card 6 (the ace) East's — the deal KQT/AJ9 up to the ranks' names.
    assert rows_of(deal_svg([Deal.from_label("EWEWWE")])) == {"West": ["K", "Q", "T"], "East": ["A", "J", "9"]}
    html = Deal.from_label("EWEWWE")._repr_html_()
    assert "EWEWWE" in html and "n = 3" in html and "key 90" in html
    big = Deal.from_label("WE" * 7)  # 14 cards: beyond the ranks, drawn as the owner string's numbers
    assert rows_of(deal_svg([big]))["West"] == ["13", "11", "9", "7", "5", "3", "1"]


def test_several_suits_behind_their_symbols():
    suits = parse_multisuit("KQT98/AJ765, AK9/QJT")
    rows = rows_of(deal_svg(suits))
    assert rows["West"] == ["♠", "K", "Q", "T", "9", "8", "♥", "A", "K", "9"]
    assert rows["East"] == ["♠", "A", "J", "7", "6", "5", "♥", "Q", "J", "T"]


def test_values_in_the_papers_notation_with_their_json():
    value = Value.from_str("3 - e2")
    html = value._repr_html_()
    assert ">3 − ε₂<" in html
    exact = json.loads(html.split('title="')[1].split('"')[0].replace("&quot;", '"'))
    assert exact == {"number": "3", "infinitesimal": "-e2", "text": "3 − ε₂"}


def test_a_solution_and_a_multi_suit_analysis(tmp_path):
    suit = parse_suit("KQT/AJ9")
    html = solve(suit.deal)._repr_html_()
    assert "1 + 1/2" in html and "West takes 1 trick with West on lead, 2 tricks with East on lead" in html
    assert "West: Q K" in html and "East: 9 J" in html  # the best leads, lowest first
    from whist_catalogue.store.solvers import default_solver

    analysis = analyse(parse_multisuit("KQT98/AJ765, AK9/QJT, AJ9753/KQT864, KQT86/AJ975"), default_solver())
    html = analysis._repr_html_()
    assert "10 + 1/2 ± ε₀" in html and "3 − ε₂" in html
    assert "West takes 11 tricks with West on lead, 10 tricks with East on lead" in html
    assert "West leads the 8 of ♠; East leads the T of ♥" in html


def test_a_huge_deal_is_described_not_drawn():
    big = parse_suit(" ".join(map(str, range(2, 2 * MAX_DRAWN_CARDS + 4, 2))) + " / "
                     + " ".join(map(str, range(1, 2 * MAX_DRAWN_CARDS + 3, 2))))
    html = big._repr_html_()
    assert "<svg" not in html and f"{MAX_DRAWN_CARDS + 1} cards a hand" in html
