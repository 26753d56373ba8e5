"""``whist-catalogue solve``: the JSON of docs/spec.md §6, the text form, and one-line errors with status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from whist_catalogue.errors import GameArgumentError
from whist_catalogue.games import le_her, solved_games
from whist_catalogue.scripts.main import main

ROOT = Path(__file__).resolve().parents[1]
F = Fraction


def run_json(capsys, *argv: str) -> dict:
    assert main(["solve", *argv, "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    return json.loads(lines[0])


def is_exact(text: object) -> bool:
    return isinstance(text, str) and str(Fraction(text)) == text


def test_chemin_de_fer_json(capsys):
    obj = run_json(capsys, "chemin-de-fer")
    assert obj["game"] == "chemin-de-fer"
    assert obj["value"] == "389724220/30386933291" and obj["value_float"] == pytest.approx(0.0128254, abs=1e-7)
    assert obj["h"] == "575/704"
    assert obj["player1"] == {"table-5": "34093/54626", "table-6": "20533/54626"}
    assert obj["player2"] == {"call": "575/704", "stand": "129/704"}
    assert obj["banker_mixed_cell"] == {"j": 6, "l": 10, "draw": "20533/54626", "stand": "34093/54626"}
    assert obj["breakpoints"] == ["1709/4224", "575/704", "2557/2688"]
    curve_h = [p["h"] for p in obj["curve"]]
    assert set(obj["breakpoints"]) | {"0", "1", "1/4", "1/2", "3/4", "31/40", "4/5", "17/20", "9/10"} == set(curve_h)
    assert curve_h == sorted(curve_h, key=Fraction)
    assert all(is_exact(p["G"]) for p in obj["curve"])
    assert next(p for p in obj["curve"] if p["h"] == "575/704")["G"] == obj["value"]  # per unit stake, not per cent
    assert [t["foster_table"] for t in obj["tables"]] == [4, 5, 6, 7]
    assert obj["tables"][1]["decisions"]["3"] == [1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1]
    assert obj["tables"][2]["changed"] == [[6, 10]]
    assert all(row["G_percent"] == row["foster_percent"] for row in obj["table3"])
    assert set(obj["player1"]) <= {t["name"] for t in obj["tables"]}


def test_le_her_json(capsys):
    obj = run_json(capsys, "le-her", "--cards", "8")
    assert obj["game"] == "le-her" and obj["cards"] == 8
    assert obj["value"] == "107/192" and obj["value_float"] == pytest.approx(107 / 192)
    assert obj["player1"] == {"5": "1/4", "6": "3/4"} and obj["player2"] == {"6": "1/4", "7": "3/4"}
    assert obj["critical_cards"] == {"player1": {"card": 5, "keep": "1/4"}, "player2": {"card": 6, "keep": "1/4"}}
    assert obj["matrix"]["rows"] == list(range(2, 9)) and len(obj["matrix"]["entries"]) == 7
    assert all(is_exact(e) for row in obj["matrix"]["entries"] for e in row)
    assert obj["s_star"]["cubic"] == [6, 9, 39, -1614]
    assert obj["s_star"]["floor"] == 5 and obj["s_star"]["ceil"] == 6
    lower, upper = F(obj["s_star"]["lower"]), F(obj["s_star"]["upper"])
    assert 0 < upper - lower <= F(1, 10**15) and le_her.phi(8, lower) < 0 < le_her.phi(8, upper)
    assert obj["s_star"]["decimal"].startswith("5.683621")
    assert (obj["t_star"]["floor"], obj["t_star"]["ceil"], obj["t_star"]["at_ceiling"]) == (6, 7, False)
    sub = obj["subgame"]
    assert (sub["rows"], sub["columns"], sub["value"], sub["agrees"]) == ([5, 6], [6, 7], "107/192", True)
    assert sub["matrix"] == [["185/336", "47/84"], ["47/84", "187/336"]]


def test_le_her_small_n_has_no_theorem_2(capsys):
    obj = run_json(capsys, "le-her", "--cards", "3")
    assert obj["value"] == "2/3" and obj["s_star"] is None and obj["t_star"] is None
    assert obj["subgame"]["rows"] == [2, 3]


def test_text_output(capsys):
    assert main(["solve", "chemin-de-fer"]) == 0
    out = capsys.readouterr().out
    assert "h* = 575/704" in out and "(j=6, l=10)" in out and "Table 7: 2557/2688" in out
    assert main(["solve", "le-her", "--cards", "52"]) == 0
    out = capsys.readouterr().out
    assert "71329/132600" in out and "s* = 29.574439" in out and "agrees with the whole game" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["le-her", "--cards", "2"], "cards must be between 3 and 200, got 2"),
        (["le-her"], "missing parameter 'cards'"),
        (["baccarat"], "unknown game 'baccarat' (known: chemin-de-fer, le-her, matrix)"),
        (["lehr"], "unknown game 'lehr' (did you mean le-her? known: chemin-de-fer, le-her, matrix)"),
        (["chemin-de-fer", "--cards", "5"], "unknown parameter 'cards'"),
        (["le-her", "--cards", "seven"], "invalid int value: 'seven'"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys, argv, message):
    try:
        status = main(["solve", *argv])
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and message in captured.err


def test_bad_arguments_from_the_shell():
    for argv, message in ((["le-her", "--cards", "2"], "got 2"), (["foo"], "unknown game 'foo'")):
        done = subprocess.run(
            [sys.executable, "-m", "whist_catalogue", "solve", *argv],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2 and done.stdout == ""
        assert len(done.stderr.splitlines()) == 1 and message in done.stderr and "Traceback" not in done.stderr


def test_help_names_every_game(capsys):
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert all(name in said for name in ("chemin-de-fer", "le-her", "matrix FILE"))


def test_text_and_html_are_the_same_rows():
    """The command line's text and the app's HTML show one summary: no second renderer of a solution."""
    from html import unescape

    from whist_catalogue.games.strategic_form import parse_grid

    games = [solved_games.solve("chemin-de-fer"), solved_games.solve("le-her", cards=13),
             solved_games.solve_strategic_form(parse_grid("\tL\tR\nT\t3\t-1\nB\t-2\t1", title="example"))]
    for game in games:
        text = game.text().splitlines()
        html = unescape(game.html().replace("<b>", "").replace("</b>", "")).split("<br>")
        assert [line.lower() for line in html] == [line.lower() for line in text[:len(html)]]
    chemin, le_her, matrix = (game.text() for game in games)
    assert "the Banker mixes: Table 5 with probability 34093/54626 and Table 6 with probability 20533/54626" in chemin
    assert "s = 8 with probability 6/7, s = 9 with probability 1/7" in le_her
    assert "value (to player 1, rows): 1/7 ≈ 0.142857" in matrix


# -- the registry the catalogue and the app use -----------------------------------------------------


def test_registry():
    assert tuple(solved_games.GAMES) == ("chemin-de-fer", "le-her")
    assert [p.name for p in solved_games.get_game("le-her").parameters] == ["cards"]
    assert solved_games.validate("le-her", cards=52) == {"cards": 52}
    assert solved_games.solve("le-her", cards=52).value == Fraction(71329, 132600)
    for bad in ({"cards": 2.5}, {"cards": "52"}, {"cards": True}, {"cards": 2}, {}):
        with pytest.raises(GameArgumentError, match="le-her"):
            solved_games.solve("le-her", **bad)
    with pytest.raises(GameArgumentError, match="unknown game 'chess'"):
        solved_games.solve("chess")


def test_solutions_are_json_round_trippable():
    for name, params in (("chemin-de-fer", {}), ("le-her", {"cards": 13}), ("le-her", {"cards": 4})):
        solution = solved_games.solve(name, **params)
        obj = solution.to_json()
        assert json.loads(json.dumps(obj)) == obj
        # what the catalogue stores reads back as the same solution, and writes the same JSON text again
        assert solved_games.SolvedGame.from_json(json.loads(json.dumps(obj))) == solution
        assert json.dumps(solved_games.SolvedGame.from_json(obj).to_json()) == json.dumps(obj)
        assert is_exact(obj["value"]) and isinstance(obj["value_float"], float)
        assert all(is_exact(p) for p in obj["player1"].values()) and all(is_exact(p) for p in obj["player2"].values())
        assert sum(map(Fraction, obj["player1"].values())) == 1 == sum(map(Fraction, obj["player2"].values()))


def test_games_report_builds():
    from whist_catalogue.scripts.reports import games as games_report

    text = games_report.build(max_cards=8)
    assert text.startswith("# Solved matrix games") and games_report.COMMAND in text
    assert "| h* (A calls on 5) | 575/704 |" in text and "| 8 | 107/192 |" in text
    assert "✗" not in text  # every Table 3 value matches Foster's
