"""``outcome`` and ``moves`` on every two-person deal (docs/spec.md §2, §4): uneven suits, voids, trumps.

Each searched answer is checked against the solver's own API (``solve``, ``solve_many``: itself checked against
plain minimax and DDS in tests/test_twohand_*.py), and the theory's against ``evaluate``; the printed deal reads
back as the same deal; bad input is one line and exit status 2; ``--cluster`` prints the in-process bytes.
"""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys

import pytest
from test_cli import NO_CATALOGUE, run_json

from whist_catalogue.constants import MAX_SEARCH_N
from whist_catalogue.scripts.benchmarks.twohand import random_two_hand
from whist_catalogue.scripts.main import main
from whist_catalogue.theory.deals import parse_multisuit, parse_two_hand
from whist_catalogue.theory.labeled import Player
from whist_catalogue.theory.multisuit import evaluate
from whist_catalogue.theory.small_suits import SuitTable
from whist_catalogue.twohand.position import Position
from whist_catalogue.twohand.solver import solve, solve_many

CLI = [sys.executable, "-m", "whist_catalogue"]


def _cards(solution, leader: Player) -> list[dict]:
    deal = solution.position.deal
    return [{"suit": r.suit, "card": deal.suits[r.suit].card_name(r.card), "west_tricks": r.west_tricks}
            for r in solution.answer(leader).moves]


def _assert_searched(line: dict, text: str, trumps=None) -> None:
    """A searched line: no value, the solver's outcome, a best first card a side, every first card."""
    solution = solve(text, trumps, line=False)
    assert solution.source == "search" and solution.outcome is not None
    assert line["source"] == "search" and line["suits"] is None and line["value"] is None
    assert line["trumps"] == solution.position.trump
    assert line["outcome"] == {"west_leads": solution.outcome.west_leads, "east_leads": solution.outcome.east_leads}
    leaders: tuple[tuple[str, Player], ...] = (("west", "W"), ("east", "E"))
    for side, leader in leaders:
        cards = _cards(solution, leader)
        assert line["cards"][side] == cards
        best = solution.answer(leader).west_tricks
        lead = line["lead"][side]
        assert {**lead, "west_tricks": best} in cards  # a best first card
        assert lead == {k: v for k, v in next(c for c in cards if c["west_tricks"] == best).items() if k != "west_tricks"}


def test_outcome_of_a_deal_with_voids_and_trumps(capsys):
    (line,) = run_json(capsys, "outcome", "--json", "--cards", "trumps ♥: AK2/-, 5/QJ43")
    assert line["deal"] == "trumps ♥: AK2/-, 5/QJ43" and line["trumps"] == 1
    assert line["outcome"] == {"west_leads": 0, "east_leads": 0}  # East ruffs everything
    assert list(line) == ["deal", "source", "trumps", "suits", "value", "outcome", "lead", "cards"]
    assert line["cards"]["east"] == [{"suit": 1, "card": c, "west_tricks": k} for c, k in
                                     (("3", 1), ("4", 1), ("J", 0), ("Q", 0))]
    _assert_searched(line, "trumps ♥: AK2/-, 5/QJ43")


@pytest.mark.parametrize("name", ["2", "H", "h", "♥", " 2 "])
def test_trumps_is_named_by_its_number_from_1_its_letter_or_its_symbol(capsys, name):
    (line,) = run_json(capsys, "outcome", "--json", "--cards", "--trumps", name, "AK2/-, 5/QJ43")
    assert line["deal"] == "trumps ♥: AK2/-, 5/QJ43"  # the trump suit named in the deal's text: it reads back
    assert line["trumps"] == 1 and line["outcome"] == {"west_leads": 0, "east_leads": 0}
    (no_trumps,) = run_json(capsys, "outcome", "--json", "AK2/-, 5/QJ43")
    assert no_trumps["trumps"] is None and no_trumps["outcome"] == {"west_leads": 3, "east_leads": 0}


def test_a_deal_the_shell_split_at_its_spaces_is_one_deal(capsys):
    # `outcome trumps ♥: AK2/-, 5/QJ43 AQ/KJ` unquoted: four pieces of the first deal, then a second deal
    lines = run_json(capsys, "outcome", "--json", "trumps", "♥:", "AK2/-,", "5/QJ43", "AQ/KJ")
    assert [line["deal"] for line in lines] == ["trumps ♥: AK2/-, 5/QJ43", "AQ/KJ"]
    assert lines[0]["outcome"] == {"west_leads": 0, "east_leads": 0} and lines[0]["trumps"] == 1
    (unsplit,) = run_json(capsys, "outcome", "--json", "AK2/-,", "5/QJ43")
    assert unsplit["deal"] == "AK2/-, 5/QJ43" and unsplit["outcome"] == {"west_leads": 3, "east_leads": 0}


def test_a_symmetric_deal_with_trumps_is_the_theory_s(capsys):
    """Every suit even: nobody can ever ruff or discard, so trumps change nothing and Theorem 9.1 answers."""
    text = "KQT98/AJ765, AK9/QJT, AJ9753/KQT864, KQT86/AJ975"
    (plain,) = run_json(capsys, "outcome", "--json", text)
    (trumps,) = run_json(capsys, "outcome", "--json", "--trumps", "♦", text)
    assert plain["source"] == trumps["source"] == "theory" and plain["trumps"] is None and trumps["trumps"] == 2
    assert trumps["deal"] == f"trumps ♦: {text}"
    assert {k: v for k, v in trumps.items() if k not in ("deal", "trumps")} == \
        {k: v for k, v in plain.items() if k not in ("deal", "trumps")}
    assert plain["outcome"] == {"west_leads": 11, "east_leads": 10}
    assert solve(f"trumps ♦: {text}").outcome == (11, 10)  # and the search agrees, trumps and all
    code, out = _run("outcome", "--trumps", "D", text)
    assert code == 0 and "  answered     from the suits' values (Theorem 9.1): every suit is even, so nobody can" \
        " ever ruff, and trumps (♦) change nothing\n" in out


def _run(*argv: str, stdin: str | None = None) -> tuple[int, str]:
    return _run_in(argv, stdin)[:2]


def _run_in(argv, stdin: str | None = None) -> tuple[int, str, str]:
    """main() in this process on ``argv`` (stdin from ``stdin``): exit status, stdout, stderr."""
    import contextlib

    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    try:
        if stdin is not None:
            sys.stdin = io.StringIO(stdin)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


def test_the_text_says_where_each_answer_comes_from():
    code, out = _run("outcome", "AK2/-, 5/QJ43", "AQ/KJ, 7/6")
    assert code == 0
    searched, theory = out.split("\n", 5)[:5], out
    assert searched[0] == "AK2/-, 5/QJ43"
    assert searched[1] == "  answered     by search: an uneven suit puts the deal outside the theory, so it has no" \
        " value in V"
    assert "suit values" not in "\n".join(searched)
    assert searched[2] == "  outcome      West takes 3 tricks with West on lead, 0 tricks with East on lead"
    assert "AQ/KJ, 7/6\n  answered     from the suits' values (Theorem 9.1)\n  suit values  1 + 1/2  +  1 − ε₀\n" \
        in theory


def test_every_first_card_in_text():
    code, out = _run("outcome", "--cards", "trumps ♥: AK2/-, 5/QJ43")
    assert code == 0
    assert "  every first card with East on lead, West's tricks after each (* best):\n" \
        "    suit 2 (5/QJ43)  3:1  4:1  J:0*  Q:0*\n" in out


def test_a_batch_mixes_trump_suits_symmetric_deals_and_notations(capsys, monkeypatch):
    """One batch from stdin: deals naming different trump suits, none, symmetric ones (the theory's), numbers and
    owner strings — answered in input order, each as on its own."""
    rng = random.Random(5)
    lines = [random_two_hand(rng, rng.randint(1, 9), rng.random() < 0.6).text() for _ in range(60)]
    lines += ["AQ/KJ, 7/6", "trumps 2: 13 12 / -, 5 / 14 11 10", "WWE, EEW", "trumps S: EWEW, WE", "-/A, K/-"]
    rng.shuffle(lines)
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    answered = run_json(capsys, "outcome", "--json", "--cards", "-")
    assert [line["deal"] for line in answered] == lines
    table = SuitTable()
    for text, line, solution in zip(lines, answered, solve_many(lines)):
        assert parse_two_hand(line["deal"]) == parse_two_hand(text)
        if solution.source == "theory":
            body = text.split(":", 1)[1] if text.startswith("trumps") else text
            found = evaluate([s.deal for s in parse_multisuit(body)], table)
            assert line["source"] == "theory" and line["value"]["text"] == found.value.text()
            assert line["outcome"] == {"west_leads": found.outcome.west_leads, "east_leads": found.outcome.east_leads}
            assert line["cards"] == {"west": _cards(solution, "W"), "east": _cards(solution, "E")}
        else:
            _assert_searched(line, text)
    assert {line["trumps"] for line in answered} >= {None, 0, 1}


@pytest.mark.parametrize("text, trumps", [("AK2/-, 5/QJ43", "1"), ("13 12 / -, 5 / 14 11 10", "♥"), ("WWE, EEW", None),
                                          ("K Q 10 / -, - / A J 9", "S"), ("trumps ♣: A/-, -/K, Q/J, -/9, 8/-", None)])
def test_the_printed_deal_reads_back_as_the_same_deal(text, trumps):
    options = ["--trumps", trumps] if trumps else []
    code, out = _run("outcome", *options, text)
    assert code == 0
    printed = out.splitlines()[0]
    assert parse_two_hand(printed) == parse_two_hand(text, trumps)
    again = _run("outcome", printed)[1]
    assert again == out


def test_moves_of_a_two_hand_position_at_a_trick_start_and_after_the_lead(capsys):
    (start,) = run_json(capsys, "moves", "--json", "--leader", "E", "AK2/-, 5/QJ43")
    assert start == {"deal": "AK2/-, 5/QJ43", "source": "search", "trumps": None, "to_play": "E",
                     "moves": [{"suit": 1, "card": c, "west_tricks": k} for c, k in (("3", 4), ("4", 4), ("J", 0),
                                                                                     ("Q", 0))]}
    (after,) = run_json(capsys, "moves", "--json", "--trumps", "H", "--led", "1:A", "AK2/-, 5/QJ43")
    solution = solve(Position("AK2/-, 5/QJ43", "W", (0, 14), trumps="H"), line=False)
    assert after["to_play"] == "E" and after["trumps"] == 1
    assert after["moves"] == [{"suit": r.suit, "card": solution.position.suits[r.suit].card_name(r.card),
                               "west_tricks": r.west_tricks} for r in solution.answers[0].moves]
    assert {m["card"] for m in after["moves"]} == {"3", "4", "J", "Q"}  # void in spades: any card, a ruff or not


def test_moves_from_stdin_agree_with_the_solver(capsys, monkeypatch):
    rng = random.Random(9)
    deals = [random_two_hand(rng, rng.randint(2, 8), rng.random() < 0.5) for _ in range(40)]
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(d.text() + "\n" for d in deals)))
    lines = run_json(capsys, "moves", "--json", "--leader", "E", "-")
    for deal, line in zip(deals, lines, strict=True):
        solution = solve(Position(deal, "E"), line=False)
        assert line["source"] == solution.source
        assert [(m["suit"], m["card"], m["west_tricks"]) for m in line["moves"]] == \
            [(r.suit, deal.suits[r.suit].card_name(r.card), r.west_tricks) for r in solution.answers[0].moves]


@pytest.mark.parametrize(
    "argv, words",
    [
        (["outcome", "AK2/Q, 5/J"], "hands of different sizes in 'AK2/Q, 5/J': West holds 4 cards, East 2"),
        (["outcome", "AK2/-, 5/QJ5"], "suit 2: card 5 appears twice"),
        (["outcome", "AK2/-, -/-, 5/QJ43"], "suit 2: empty suit: '-/-'"),
        (["outcome", "--trumps", "3", "AK2/-, 5/QJ43"], "no trump suit '3' in 'AK2/-, 5/QJ43': the deal has suits 1…2"),
        (["outcome", "trumps ♦: AK2/-, 5/QJ43"], "no trump suit '♦'"),
        (["outcome", "--trumps", "1", "trumps 2: AK2/-, 5/QJ43"], "two trump suits"),
        (["outcome", "--trumps", "X", "AK2/-, 5/QJ43"], "'X' names no suit"),
        (["outcome", "--trumps", "0", "AK2/-, 5/QJ43"], "'0' names no suit"),
        (["outcome", "AKQJT98765432/-, -/AKQJT98765432, 2345/6789"],
         f"17 cards a hand in 'AKQJT98765432/-, -/AKQJT98765432, 2345/6789': the exact search takes at most"
         f" {MAX_SEARCH_N} cards a hand"),
        (["moves", "--led", "1:5", "AK2/-, 5/QJ43"], "no card '5' in suit 1 (♠)"),
        (["moves", "--leader", "E", "--led", "1:A", "AK2/-, 5/QJ43"], "East does not hold A in suit 1 (♠)"),
        (["moves", "AK2/-, 5/QJ4"], "West holds 4 cards, East 3"),
        (["outcome", "--cluster", "nowhere", "AK2/-, 5/QJ43"], "expected tcp://HOST:PORT"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, words):
    code, out, err = _run_in(argv)
    assert code == 2 and not out, (code, out, err)
    assert words in err and err.count("\n") == 1, err


def test_a_symmetric_deal_has_no_search_limit(capsys):
    """17 cards a hand in even suits: the theory's (the preloaded suits), beyond the search's limit."""
    (line,) = run_json(capsys, "outcome", "--json", "--trumps", "1", "WEWEWEWEWEWEWEWE, EWEWEWEWEWEWEWEW, WE")
    assert line["source"] == "theory" and line["trumps"] == 0 and line["value"] is not None


def test_a_bad_deal_in_a_searched_batch_comes_after_the_answers_before_it():
    lines = ["AK2/-, 5/QJ43", "trumps 1: A/-, -/K", "AK2/Q, 5/J", "A/-, -/K"]
    code, out, err = _run_in(["outcome", "--json", "-"], stdin="\n".join(lines) + "\n")
    assert code == 2 and err == "whist-catalogue: error: stdin line 3: hands of different sizes in 'AK2/Q, 5/J':" \
        " West holds 4 cards, East 2 (each hand must hold as many cards as the other)\n"
    assert [json.loads(x)["deal"] for x in out.splitlines()] == lines[:2]


def test_on_a_local_cluster_the_same_bytes_as_in_process(tmp_path):
    """``--cluster local:2`` (a Dask LocalCluster of two worker processes) searches a batch of several blocks;
    its output is byte for byte the in-process output, in input order, for outcome and moves alike."""
    rng = random.Random(11)
    deals = [random_two_hand(rng, rng.choice((5, 7, 9)), rng.random() < 0.7).text() for _ in range(4500)]
    deals[100:100] = ["AQ/KJ, 7/6", "KQT98/AJ765, AK9/QJT, AJ9753/KQT864, KQT86/AJ975"]  # the theory's, in between
    stdin = "\n".join(deals) + "\n"
    env = {**__import__("os").environ, **NO_CATALOGUE}
    for argv in (["outcome", "--json", "--cards", "-"], ["moves", "--leader", "E", "-"]):
        here = subprocess.run(CLI + argv, input=stdin, capture_output=True, text=True, env=env, timeout=600)
        there = subprocess.run(CLI + [*argv, "--cluster", "local:2"], input=stdin, capture_output=True, text=True,
                               env=env, timeout=600)
        assert here.returncode == there.returncode == 0, there.stderr
        assert here.stdout == there.stdout and there.stderr == ""
        assert here.stdout.count("\n") >= len(deals)
    # A deal at fault in the third block: the answers before it, in order, then its error — on the cluster too.
    bad = stdin.replace(f"{deals[4300]}\n", "AK2/Q, 5/J\n", 1)
    here, there = (subprocess.run(CLI + ["outcome", "--json", "-", *cluster], input=bad, capture_output=True, text=True,
                                  env=env, timeout=600) for cluster in ([], ["--cluster", "local:2"]))
    assert here.returncode == there.returncode == 2 and here.stdout == there.stdout and here.stderr == there.stderr
    assert here.stderr.startswith("whist-catalogue: error: stdin line 4301: hands of different sizes")
    assert here.stdout.count("\n") == 4300


def test_the_command_line_loads_the_search_without_scipy_s_linear_algebra():
    """Its own process loads Numba without ``scipy.linalg`` (a fifth of its start-up), which imports as usual
    afterwards, and NumPy with one OpenBLAS thread (the others spin at import); a caller's process is left as it
    was."""
    program = ("import sys\n"
               "sys.argv = ['whist-catalogue', 'outcome', '--json', 'AK2/-, 5/QJ43']\n"
               "from whist_catalogue.scripts.main import _run\n"
               "code = _run(None)\n"
               "loaded = 'scipy.linalg' in sys.modules\n"
               "import os, scipy.linalg\n"
               "print(code, loaded, scipy.linalg.__name__, os.environ['OPENBLAS_NUM_THREADS'], file=sys.stderr)\n")
    env = {k: v for k, v in __import__("os").environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300,
                          env={**env, **NO_CATALOGUE})
    assert done.stderr.strip() == "0 False scipy.linalg 1" and json.loads(done.stdout)["outcome"]["west_leads"] == 3
