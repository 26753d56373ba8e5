"""``whist-catalogue moves`` (docs/spec.md §4): the JSON contract, the user's notation, bad input."""

import io
import random

import pytest
from test_cli import run_cli, run_json
from test_multisuit import random_multisuit

from whist_catalogue.theory import referee
from whist_catalogue.theory.deals import parse_multisuit


def test_moves_json_after_a_lead_and_at_a_trick_start(capsys):
    # People count suits from 1 (docs/spec.md §2): the second suit is 2 on the command line, 1 in JSON.
    (after_lead,) = run_json(capsys, "moves", "--json", "--led", "2:T", "7/6, JT5/K83, 3/A")
    assert after_lead == {
        "deal": "7/6, JT5/K83, 3/A",
        "source": "theory",
        "trumps": None,
        "to_play": "E",
        "moves": [
            {"suit": 1, "card": "3", "west_tricks": 3},
            {"suit": 1, "card": "8", "west_tricks": 3},
            {"suit": 1, "card": "K", "west_tricks": 2},
        ],
    }
    (start,) = run_json(capsys, "moves", "--json", "--leader", "E", "13 12 / 14 11, EWWE")
    assert start["to_play"] == "E"
    assert [(m["suit"], m["card"]) for m in start["moves"]] == [(0, "11"), (0, "14"), (1, "1"), (1, "4")]


def test_moves_from_stdin_agree_with_the_referee(monkeypatch, capsys):
    rng = random.Random(4)
    deals = [", ".join(str(s) for s in random_multisuit(rng, 7)) for _ in range(20)]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(deals) + "\n"))
    lines = run_json(capsys, "moves", "--json", "--leader", "E", "-")
    assert [line["deal"] for line in lines] == deals
    for text, line in zip(deals, lines):
        suits = parse_multisuit(text)
        ds = [s.deal for s in suits]
        for m in line["moves"]:
            suit = suits[m["suit"]]
            card = suit.card_of(int(m["card"]))
            assert m["west_tricks"] == referee.tricks_after_lead(ds, False, m["suit"], card)


def test_moves_text():
    done = run_cli("moves", "--led", "2:T", "7/6, JT5/K83, 3/A")
    assert done.returncode == 0
    assert "East to play" in done.stdout and "  suit 2 (JT5/K83)  3:3  8:3  K:2*\n" in done.stdout
    start = run_cli("moves", "7/6, JT5/K83, 3/A")
    assert "  suit 1 (7/6)  7:" in start.stdout and "  suit 3 (3/A)  3:" in start.stdout


@pytest.mark.parametrize("name", ["2", "H", "h", "♥", " 2 "])
def test_a_suit_is_named_by_its_number_from_1_its_letter_or_its_symbol(capsys, name):
    (line,) = run_json(capsys, "moves", "--json", "--led", f"{name}:T", "7/6, JT5/K83, 3/A")
    assert {m["suit"] for m in line["moves"]} == {1} and line["to_play"] == "E"


def test_outcome_s_lead_feeds_moves_led():
    """The lead ``outcome`` prints, typed back into ``moves --led``, is that card of that suit."""
    import re

    deal = "7/6, JT5/K83, 3/A"
    said = run_cli("outcome", deal).stdout
    card, suit = re.search(r"West leads  (\S+) of suit (\d+)", said).groups()
    after = run_cli("moves", "--json", "--led", f"{suit}:{card}", deal)
    assert after.returncode == 0, after.stderr
    parsed = parse_multisuit(deal)[int(suit) - 1]
    assert f"({parsed})" in said  # the suit named by number is the one printed beside it


def test_leader_in_any_case():
    assert run_cli("moves", "--leader", "e", "AQ/KJ").stdout == run_cli("moves", "--leader", "E", "AQ/KJ").stdout
    assert "East to play" in run_cli("moves", "--leader", "e", "AQ/KJ").stdout


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["moves", "--led", "1T", "AQ/KJ, A/K"], "SUIT:CARD"),
        (["moves", "--led", "3:A", "AQ/KJ, A/K"], "the deal has suits 1…2 (or ♠ ♥ / S H)"),
        (["moves", "--led", "0:A", "AQ/KJ, A/K"], "no suit '0'"),
        (["moves", "--led", "D:A", "AQ/KJ, A/K"], "no suit 'D'"),
        (["moves", "--led", "１:A", "AQ/KJ"], "no suit '１'"),
        (["moves", "--led=-1:A", "AQ/KJ"], "no suit '-1'"),
        (["moves", "--led", ":A", "AQ/KJ"], "SUIT:CARD"),
        (["moves", "--led", "1:K", "AQ/KJ"], "does not hold K"),
        (["moves", "--led", "1:9", "AQ/KJ"], "no card '9' in suit 1 (♠)"),
        (["moves", "--leader", "N", "AQ/KJ"], "invalid choice"),
        (["moves", "AQ/KJ, A/KQ"], "West holds 3 cards, East 4"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, needle):
    done = run_cli(*argv)
    assert done.returncode == 2
    assert needle in done.stderr and len(done.stderr.strip().splitlines()) == 1 and not done.stdout
