"""A matrix game of the user's own: grids, CSV and Gambit .nfg in and out, solved exactly — with Gambit as referee.

Gambit (``pygambit``) solves every game here independently, by its own exact linear program; our solver's
value must equal Gambit's, and our strategies must be optimal (certified against every pure reply) — optimal
strategies need not be unique, so the strategies themselves are compared through what they guarantee.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pygambit as gbt
import pytest

from whist_catalogue.games import solved_games
from whist_catalogue.games.matrix_games import InvalidMatrixError, MatrixGameSolution
from whist_catalogue.games.strategic_form import StrategicForm, parse_grid, parse_nfg, read_game, to_nfg
from whist_catalogue.scripts.main import main


def gambit_value(game: StrategicForm, tmp_path) -> tuple[Fraction, list[Fraction], list[Fraction]]:
    """Gambit's exact value and an optimal strategy pair, reading our .nfg file (so the file format is checked too)."""
    path = tmp_path / "game.nfg"
    path.write_text(to_nfg(game))
    g = gbt.read_nfg(str(path))
    equilibrium = gbt.nash.lp_solve(g, rational=True).equilibrium
    first, second = g.players  # Gambit 17 names players and strategies by their labels
    value = Fraction(str(equilibrium.payoffs[first]))
    x = [Fraction(str(equilibrium[first][s])) for s in g.get_strategies(first)]
    y = [Fraction(str(equilibrium[second][s])) for s in g.get_strategies(second)]
    return value, x, y


def check_against_gambit(game: StrategicForm, tmp_path) -> dict:
    ours = solved_games.solve_strategic_form(game).to_json()
    value, x, y = gambit_value(game, tmp_path)
    assert Fraction(ours["value"]) == value
    # Gambit's pair is optimal for our solver's certificate too: the same game, the same value.
    MatrixGameSolution(game.matrix, value, tuple(x), tuple(y)).certify()
    p1 = [Fraction(ours["player1"].get(name, "0")) for name in game.rows]
    p2 = [Fraction(ours["player2"].get(name, "0")) for name in game.columns]
    MatrixGameSolution(game.matrix, value, tuple(p1), tuple(p2)).certify()
    return ours


def random_game(rng: random.Random) -> StrategicForm:
    m, n = rng.randint(1, 6), rng.randint(1, 6)
    matrix = [[Fraction(rng.randint(-9, 9), rng.choice((1, 1, 2, 3))) for _ in range(n)] for _ in range(m)]
    return StrategicForm.of(matrix, title="random")


def test_random_games_agree_with_gambit(tmp_path):
    rng = random.Random(24)
    for _ in range(40):
        check_against_gambit(random_game(rng), tmp_path)


@pytest.mark.parametrize("cards", [3, 4, 7, 13])
def test_le_her_as_nfg_agrees_with_gambit(cards, tmp_path):
    game = solved_games.strategic_form("le-her", cards=cards)
    ours = check_against_gambit(game, tmp_path)
    assert ours["value"] == solved_games.solve("le-her", cards=cards).to_json()["value"]


def test_chemin_de_fer_as_nfg_agrees_with_gambit(tmp_path):
    game = solved_games.strategic_form("chemin-de-fer")
    ours = check_against_gambit(game, tmp_path)
    solved = solved_games.solve("chemin-de-fer").to_json()
    assert ours["value"] == solved["value"] == "389724220/30386933291"
    assert ours["player2"] == {"stand on 5": "129/704", "call on 5": "575/704"}  # h* = 575/704
    assert sorted(ours["player1"].values()) == sorted(solved["player1"].values())


def test_a_gambit_written_game_is_read(tmp_path):
    """A file Gambit itself wrote — the outcome version of the format included — reads as the same matrix."""
    matrix = [[Fraction(3), Fraction(-1)], [Fraction(-2), Fraction(1)]]
    g = gbt.StrategicGame.from_arrays(
        [[3, -1], [-2, 1]], [[-3, 1], [2, -1]], title="from gambit"
    )
    path = tmp_path / "gambit.nfg"
    path.write_text(g.to_nfg())
    game = read_game(path)
    assert [list(row) for row in game.matrix] == matrix
    assert game.title == "from gambit"
    outcome_version = (
        'NFG 1 R "outcomes" { "P1" "P2" } { { "a" "b" } { "x" "y" } }\n""\n'
        '{ { "ax" 1, -1 } { "bx" 0 0 } { "by" 5/2 -5/2 } }\n1 2 0 3\n'
    )
    assert parse_nfg(outcome_version).matrix == ((1, 0), (0, Fraction(5, 2)))


def test_grids_with_and_without_names():
    plain = parse_grid("3 -1\n-2 1")
    assert plain.rows == ("1", "2") and plain.columns == ("1", "2")
    named = parse_grid(",L,R\nT,3,-1\nB,-2,1")
    assert named.rows == ("T", "B") and named.columns == ("L", "R") and named.matrix == plain.matrix
    pasted = parse_grid("L\tR\n0.5\t-1\n-2\t1/3")  # a spreadsheet's copy: decimals are exact
    assert pasted.matrix == ((Fraction(1, 2), -1), (-2, Fraction(1, 3))) and pasted.columns == ("L", "R")
    assert parse_grid("T 3 -1; B -2 1").rows == ("T", "B")
    value = solved_games.solve_strategic_form(named).to_json()
    assert value["value"] == "1/7"
    assert value["player1"] == {"T": "3/7", "B": "4/7"} and value["player2"] == {"L": "2/7", "R": "5/7"}


@pytest.mark.parametrize(
    "text, message",
    [
        ("1 2\n3", "ragged matrix: row 2 has 1 entry, row 1 has 2"),
        ("1 x\n2 3", "row 1, column 2: 'x' is not a number"),
        (",L,R\nT,1,oops\nB,2,3", "row 2, column 3: 'oops' is not a number"),
        ("", "the game has no pay-offs"),
        ("EFG 2 R \"tree\" { \"a\" \"b\" }", "an extensive-form game (.efg)"),
        ('NFG 1 R "three" { "a" "b" "c" } { 1 1 1 }\n1 1 1', "a game of 3 players; a matrix game has two"),
        ('NFG 1 R "g" { "a" "b" } { 2 2 }\n1 -1 1 -1 1 -1 1 2', "not a zero-sum (or constant-sum) game"),
        ('NFG 1 R "g" { "a" "b" } { 2 2 }\n1 -1 1 -1', "4 pay-offs for 2 × 2 profiles"),
        (",L,L\nT,1,2", "two columns are named 'L'"),
        ("1/0 1", "'1/0' divides by zero"),
    ],
)
def test_bad_games_are_one_clear_error(text, message):
    with pytest.raises(InvalidMatrixError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_grid(text)


def test_solve_matrix_from_the_command_line(tmp_path, capsys, monkeypatch):
    csv_file = tmp_path / "game.csv"
    csv_file.write_text(",L,R\nT,3,-1\nB,-2,1\n")
    nfg = tmp_path / "game.nfg"
    assert main(["solve", "matrix", str(csv_file), "--json", "--nfg", str(nfg)]) == 0
    solution = json.loads(capsys.readouterr().out)
    assert solution["game"] == "matrix" and solution["value"] == "1/7" and solution["certified"]
    assert read_game(nfg).matrix == parse_grid(csv_file.read_text()).matrix
    assert main(["solve", "matrix", str(nfg)]) == 0
    text = capsys.readouterr().out
    assert "value (to player 1, rows): 1/7" in text and "T with probability 3/7" in text
    # Chemin-de-fer and Le Her saved for Gambit users.
    assert main(["solve", "le-her", "--cards", "5", "--nfg", str(tmp_path / "le-her.nfg")]) == 0
    assert read_game(tmp_path / "le-her.nfg").matrix == solved_games.strategic_form("le-her", cards=5).matrix
    capsys.readouterr()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["solve", "matrix"], "matrix needs the game"),
        (["solve", "matrix", "{tmp}/missing.csv"], "No such file or directory"),
        (["solve", "matrix", "{tmp}/binary.csv"], "not a text file"),
        (["solve", "matrix", "{tmp}/ragged.csv"], "ragged matrix"),
        (["solve", "le-her", "--cards", "4", "--nfg", "{tmp}/no/x.nfg"], "No such file or directory"),
        (["solve", "chemin-de-fer", "{tmp}/ragged.csv"], "takes no FILE"),
    ],
)
def test_bad_matrix_commands_exit_2(argv, message, tmp_path, capsys):
    (tmp_path / "binary.csv").write_bytes(b"\x00\xff\xfe")
    (tmp_path / "ragged.csv").write_text("1,2\n3\n")
    before = sorted(tmp_path.rglob("*"))
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert sorted(tmp_path.rglob("*")) == before  # nothing written, no half file
