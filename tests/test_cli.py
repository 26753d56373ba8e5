"""The ``value``, ``outcome`` and ``scan`` commands (docs/spec.md §4): JSON contracts and bad input."""

import io
import json
import os
import subprocess
import sys
from fractions import Fraction

import pytest

from whist_catalogue.scripts.main import main
from whist_catalogue.theory.values import Value

NO_CATALOGUE = {"WHIST_CATALOGUE_DB": "/nonexistent/whist-catalogue-test.sqlite"}


def run_json(capsys, *argv):
    assert main(list(argv)) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def run_cli(*argv, stdin=None):
    env = dict(os.environ, **NO_CATALOGUE)
    return subprocess.run([sys.executable, "-m", "whist_catalogue", *argv], input=stdin,
                          capture_output=True, text=True, env=env, timeout=300)


def test_value_json(capsys):
    lines = run_json(capsys, "value", "--json", "AQ/KJ", "13 12 9 8 7 2 1 / 14 11 10 6 5 4 3", "EWEW")
    assert lines[0] == {
        "deal": "AQ/KJ",  # as written, as outcome and moves echo it; the canonical label beside it
        "label": "EWEW",
        "n": 2,
        "value": {"number": "3/2", "infinitesimal": "0", "text": "1 + 1/2"},
        "outcome": {"west_leads": 1, "east_leads": 2},
        "best_leads": {"west": ["A"], "east": ["J", "K"]},
    }
    assert lines[1]["value"]["number"] == "27/8" and lines[1]["best_leads"]["west"] == ["12", "13"]
    # Owner-string notation names card k by its number.
    assert lines[2]["best_leads"] == {"west": ["4"], "east": ["1", "3"]}


def test_value_of_an_exit(capsys):
    (line,) = run_json(capsys, "value", "--json", "KQ/AJ")
    assert line["value"] == {"number": "1", "infinitesimal": "-e1", "text": "1 − ε₁"}


def test_value_reads_stdin(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("AQ/KJ\n\nKT9/AQJ\n"))
    lines = run_json(capsys, "value", "--json", "-")
    assert [x["value"]["number"] for x in lines] == ["3/2", "1"]


def test_outcome_json_deal_28(capsys):
    text = "KQT98/AJ765, AK9/QJT, AJ9753/KQT864, KQT86/AJ975"
    (line,) = run_json(capsys, "outcome", "--json", text)
    assert line["deal"] == text
    assert [s["text"] for s in line["suits"]] == ["3 − ε₂", "2 + ε₂", "3", "2 + 1/2"]
    assert line["value"] == {"number": "21/2", "infinitesimal": "+-e0", "text": "10 + 1/2 ± ε₀"}
    assert line["outcome"] == {"west_leads": 11, "east_leads": 10}
    assert line["lead"]["west"]["suit"] == 0 and line["lead"]["west"]["card"] in list("KQT98")
    assert line["lead"]["east"]["suit"] == 1


def test_outcome_json_deal_27_numbers(capsys):
    (line,) = run_json(capsys, "outcome", "--json", "14 13 12 8 / 11 10 9 7; 14 12 8 7 / 13 11 10 9")
    assert line["lead"]["west"] == {"suit": 1, "card": "7"}


def test_outcome_of_a_huge_single_suit_uses_the_linear_time_algorithm(capsys):
    # Theorem 10.4's D_k (k + 1 cards a hand) has value k + 1/2^k, so χ(D_k) = (k, k).
    k = 2999
    (line,) = run_json(capsys, "outcome", "--json", "EW" + "E" * k + "W" * k)
    assert line["outcome"] == {"west_leads": k, "east_leads": k}
    assert line["method"].startswith("linear-time") and line["value"] is None
    # (WE)^n (K J 9 … against A Q 10 …) has value (n − 1)/2 for n ≥ 2, as the engine shows for small n;
    # Theorem 12.1 names that value in linear time, half-integral for even n and integral for odd n.
    from whist_catalogue.store.solvers import ComputingSolver
    from whist_catalogue.theory.deals import Deal
    from whist_catalogue.theory.values import Value

    solver = ComputingSolver(10)
    assert all(solver.value(Deal.from_label("WE" * n)) == Value(Fraction(n - 1, 2)) for n in range(2, 11))
    (even,) = run_json(capsys, "outcome", "--json", "WE" * 3000)
    assert even["value"]["number"] == "2999/2" and even["outcome"] == {"west_leads": 1499, "east_leads": 1500}
    (odd,) = run_json(capsys, "outcome", "--json", "WE" * 3001)
    assert odd["value"]["number"] == "1500" and odd["outcome"] == {"west_leads": 1500, "east_leads": 1500}


def test_value_and_moves_answer_a_suit_beyond_the_engine_as_outcome_does(capsys):
    """``value`` on a 40-card suit gives what ``outcome`` gives — the linear-time outcome, the value when Theorem
    12.1 names it, the normal leads Theorem 8.2 calls best — says what it cannot give and why, and never advises
    building a catalogue that cannot reach the suit."""
    import random

    rng = random.Random(24)
    owners = ["".join(rng.sample("WE" * 40, 80)) for _ in range(6)] + ["WE" * 40, "EW" + "E" * 39 + "W" * 39]
    values = run_json(capsys, "value", "--json", *owners)
    outcomes = run_json(capsys, "outcome", "--json", *owners)
    named = 0
    for text, value, outcome in zip(owners, values, outcomes):
        assert value["n"] == 40 and value["method"] == outcome["method"]
        assert value["outcome"] == outcome["outcome"] and value["value"] == outcome["value"]
        named += value["value"] is not None
        if value["value"] is None:
            k = value["outcome"]["west_leads"]
            assert value["value_between"] == {"lower": Value(Fraction(2 * k - 1, 2)).to_json(),
                                              "upper": Value(Fraction(2 * k + 1, 2)).to_json()}
            assert value["not_given"].startswith("the exact value")
        for side in ("west", "east"):
            lead = outcome["lead"][side]
            assert value["best_leads"][side] == ([] if lead is None else [lead["card"]])
        assert "beyond the engine's reach" in value["not_given"] and "build" not in value["not_given"]
    assert named >= 2  # (WE)^40 = 39/2 among them
    assert values[6]["value"]["number"] == "39/2"
    code, text = main(["value", owners[0]]), capsys.readouterr()
    assert code == 0 and text.err == "" and "build the catalogue" not in text.out
    assert f"  outcome   West takes {values[0]['outcome']['west_leads']} tricks" in text.out
    assert "  not given  " in text.out and "linear time" in text.out
    # ``moves``: every card's result, by one trick of look-ahead on Theorem 10.1; the best is the outcome.
    (moves,) = run_json(capsys, "moves", "--json", owners[0])
    assert len(moves["moves"]) == 40 and moves["method"].startswith("linear-time")
    assert max(m["west_tricks"] for m in moves["moves"]) == values[0]["outcome"]["west_leads"]
    (replies,) = run_json(capsys, "moves", "--json", "--leader", "E", "--led", f"1:{owners[0].index('E') + 1}",
                          owners[0])
    assert replies["to_play"] == "W" and len(replies["moves"]) == 40


def test_text_output(capsys):
    assert main(["value", "KQT/AJ9"]) == 0
    out = capsys.readouterr().out
    assert "1 + 1/2" in out and "West: Q K" in out
    assert main(["outcome", "AKQ8/JT97, AQ87/KJT9, AJT7/KQ98, KQ9/AJT"]) == 0
    out = capsys.readouterr().out
    assert "8 + 1/2 + ε₂" in out and "exit in a suit with positive infinitesimal" in out


@pytest.mark.parametrize(
    "argv, words",
    [
        (["value", "AQ/K"], "asymmetric suit AQ/K: West holds 2 cards, East 1"),
        (["value", "A/KQ"], "West holds 1 card, East 2"),
        (["value", "WEE"], "West holds 1 card, East 2"),
        (["value", "AA/KQ"], "twice"),
        (["value", "AX/KQ"], "rank"),
        (["value", ""], "empty"),
        (["outcome", "AQ/KJ, AX/QT"], "suit 2: not a card rank 'X'"),
        (["outcome", "AQ/KJ, AK/Q"], "hands of different sizes in 'AQ/KJ, AK/Q': West holds 4 cards, East 3"),
        (["value", "KQT/AJ9, AK/QJ"], "use the outcome command"),
        (["value"], "no deals"),
        (["value", "--frob", "AQ/KJ"], "unrecognized"),
        (["frobnicate"], "invalid choice"),
        (["scan", "--max-n", "0"], "--max-n"),
        (["scan", "--max-n", "x"], "invalid int"),
        (["value", "--db", "/nonexistent/dir/cat.sqlite", "AQ/KJ"], "nonexistent"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, words):
    result = run_cli(*argv)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_a_suit_may_be_written_after_its_symbol(capsys):
    """As ``--led ♠:T`` names a suit by its symbol, a deal may write it: ``♠AQ/KJ``."""
    (plain,) = run_json(capsys, "value", "--json", "AQ/KJ")
    (marked,) = run_json(capsys, "value", "--json", "♠AQ/KJ")
    assert marked == {**plain, "deal": "♠AQ/KJ"}
    text = "♠ KQT98/AJ765, ♥AK9/QJT, ♦AJ9753/KQT864, ♣KQT86/AJ975"
    (line,) = run_json(capsys, "outcome", "--json", text)
    (same,) = run_json(capsys, "outcome", "--json", "KQT98/AJ765, AK9/QJT, AJ9753/KQT864, KQT86/AJ975")
    assert {**line, "deal": None} == {**same, "deal": None}
    result = run_cli("outcome", "♥AQ/KJ, ♠KQ/AJ")
    assert result.returncode == 2 and "suit 1 is written after ♥, which names suit 2" in result.stderr


def test_every_error_line_has_the_one_form():
    """A sub-command's own parser, the commands and the core all begin the line the same way; argparse's
    sub-parsers would say ``whist-catalogue export: error:``."""
    for argv in (["export", "--level", "x"], ["solve", "le-her", "--cards"], ["value", "AQ/K"], ["frobnicate"]):
        result = run_cli(*argv)
        assert result.returncode == 2 and result.stderr.startswith("whist-catalogue: error: "), (argv, result.stderr)
        assert result.stderr.count("\n") == 1 and "export:" not in result.stderr


def test_ctrl_c_is_a_stop_not_an_error():
    """Ctrl+C while a command waits for stdin: one calm line, exit status 130, nothing on stdout."""
    import signal
    import time

    from test_hostile_input import _as_from_a_terminal  # SIGINT not ignored, as at a terminal

    proc = subprocess.Popen([sys.executable, "-m", "whist_catalogue", "value", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, **NO_CATALOGUE), preexec_fn=_as_from_a_terminal)
    try:
        proc.stdin.write("AQ/KJ\n" * 512)  # a pipe's deals are answered 512 at a time; then it waits for more
        proc.stdin.flush()
        assert proc.stdout.readline().startswith("AQ/KJ")
        time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and err == "whist-catalogue: interrupted\n", (proc.returncode, err)


@pytest.mark.parametrize("command", ["value", "outcome", "moves"])
def test_a_bad_line_of_stdin_is_named_by_its_number(command, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("AQ/KJ\n\nKT9/AQJ\nAQ/K\nKQ/AJ\n"))
    assert main([command, "-"]) == 2
    err = capsys.readouterr().err
    # value takes symmetric suits only; outcome and moves take two-hand deals, whose hands must be of one size.
    said = "asymmetric suit AQ/K" if command == "value" else "hands of different sizes in 'AQ/K': West holds 2 cards"
    assert err.startswith(f"whist-catalogue: error: stdin line 4: {said}") and err.count("\n") == 1


def test_scan_json(capsys):
    lines = run_json(capsys, "scan", "--max-n", "4", "--json", "--no-progress")
    assert [x["n"] for x in lines] == [1, 2, 3, 4]
    four = lines[3]
    assert four["deals"] == 70 and four["values"]["15/8|0"] == 2  # K Q 9 8 / A J 10 7 and a mirror image
    assert four["checks"]["conjecture_12_3"] == {"checked": 44, "counterexamples": 0, "first_counterexample": None,
                                                 "reverified": None}
    assert four["checks"]["conjecture_12_4_labeled"]["first_counterexample"] == "EEWWWWEE"
    assert four["checks"]["conjecture_12_4_labeled"]["reverified"] is True


def test_a_scan_report_reads_back_from_its_json_line():
    """`LevelReport.from_json` (used to render docs/conjectures.md again from docs/data/scan.jsonl) loses nothing."""
    from whist_catalogue.engine.scan import LevelReport, scan

    for report in scan(7):
        line = json.loads(json.dumps(report.to_json(), ensure_ascii=False))
        again = LevelReport.from_json(line)
        assert again.to_json() == line
        assert again.statistics.value_counts == report.statistics.value_counts
        assert [c.first for c in again.checks] == [c.first for c in report.checks]


def test_a_huge_suit_names_the_normal_leads_theorem_8_2_makes_best(capsys):
    import random

    from whist_catalogue.single_suit.formulas import normal_lead
    from whist_catalogue.theory.deals import Deal

    rng = random.Random(8)
    seen = {True: 0, False: 0}
    for _ in range(30):
        owners = list("W" * 40 + "E" * 40)
        rng.shuffle(owners)
        label = "".join(owners)
        (line,) = run_json(capsys, "outcome", "--json", label)
        deal = Deal.from_label(label)
        for side, west in (("west", True), ("east", False)):
            lead, note = line["lead"][side], line["lead_note"][side]
            if lead is None:
                assert note.startswith("not determined") and "Theorem 8.2" in note
            else:
                assert lead == {"suit": 0, "card": str(normal_lead(deal, west))} and "Theorem 8.2" in note
            seen[lead is not None] += 1
    assert seen[True] > 20


def test_an_answer_record_s_json_is_its_line(capsys):
    """``to_json`` (the API) and ``json_line`` (a batch's hot loop) of each answer record say the same, and the
    command prints the record's own text."""
    from whist_catalogue.store.solvers import answer
    from whist_catalogue.theory.answers import ValueAnswer
    from whist_catalogue.theory.deals import parse_suit
    from whist_catalogue.theory.multisuit import DealEvaluator
    from whist_catalogue.theory.small_suits import SuitTable
    from whist_catalogue.scripts.deal_commands import _outcome_answer
    from whist_catalogue.theory.answers import ValueJson

    table = SuitTable()
    for text in ("K Q 10 / A J 9", "WE" * 40, "WWEE" * 30):
        suit = parse_suit(text)
        record = ValueAnswer.of(text, suit, answer(table, suit.deal))
        assert isinstance(record, ValueAnswer) and json.loads(record.json_line({})) == record.to_json()
        assert main(["value", text]) == 0 and capsys.readouterr().out == record.text()
    evaluate = DealEvaluator(table)
    for text in ("KQT98/AJ765, AK9/QJT, AJ9753/KQT864, KQT86/AJ975", "WE" * 40):
        record = _outcome_answer(text, evaluate)
        assert json.loads(record.json_line(ValueJson())) == record.to_json()
        assert main(["outcome", text]) == 0 and capsys.readouterr().out == record.text()
