"""``whist-catalogue moves`` (SPEC §4): the JSON contract, the user's notation, bad input."""

import io
import random

import pytest
from test_cli import run_cli, run_json
from test_multisuit import random_multisuit

from whist_catalogue.theory import referee
from whist_catalogue.theory.deals import parse_multisuit


def test_moves_json_after_a_lead_and_at_a_trick_start(capsys):
    (after_lead,) = run_json(capsys, "moves", "--json", "--led", "1:T", "7/6, JT5/K83, 3/A")
    assert after_lead == {
        "deal": "7/6, JT5/K83, 3/A",
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
    done = run_cli("moves", "--led", "1:T", "7/6, JT5/K83, 3/A")
    assert done.returncode == 0
    assert "East to play" in done.stdout and "K:2*" in done.stdout


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["moves", "--led", "1T", "AQ/KJ, A/K"], "SUIT:CARD"),
        (["moves", "--led", "2:A", "AQ/KJ, A/K"], "suits 0…1"),
        (["moves", "--led", "0:K", "AQ/KJ"], "does not hold K"),
        (["moves", "--led", "0:9", "AQ/KJ"], "no card '9'"),
        (["moves", "--leader", "N", "AQ/KJ"], "invalid choice"),
        (["moves", "AQ/KJ, A/KQ"], "asymmetric"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, needle):
    done = run_cli(*argv)
    assert done.returncode == 2
    assert needle in done.stderr and len(done.stderr.strip().splitlines()) == 1 and not done.stdout
