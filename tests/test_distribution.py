"""Exact outcome distributions of multi-suit deals (theory/distribution.py, store/distributions.py, the CLI).

The distribution comes from the per-level value counts through Theorem 9.1; it is checked here against what
does not use Theorem 9.1 at all — the brute-force minimax of the card game over every deal — and against
random deals played through the evaluator.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction
from math import comb, prod
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chi2

from catalogue_testing import run_cli

SCAN = Path(__file__).resolve().parent.parent / "docs" / "data" / "scan.jsonl"
from whist_catalogue.errors import DistributionError
from whist_catalogue.store.distributions import (
    distribution, level_counts, parse_sizes, read_scan_counts, shipped_counts, shipped_max_n,
)
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.distribution import outcome_distribution
from whist_catalogue.theory.multisuit import analyse_batch
from whist_catalogue.theory.referee import whist_outcome
from whist_catalogue.theory.values import Outcome, Value


def _level(n: int) -> list[Deal]:
    return [Deal(n, sum(1 << i for i in c)) for c in itertools.combinations(range(2 * n), n)]


def _brute_force(sizes: tuple[int, ...]) -> Counter[Outcome]:
    """χ of every deal by minimax over the cards: the rules of whist only."""
    return Counter(whist_outcome(suits) for suits in itertools.product(*map(_level, sizes)))


@pytest.mark.parametrize("sizes", [(1,), (2,), (3,), (4,), (1, 1), (1, 1, 1), (2, 2, 2), (1, 2, 3), (1, 1, 2, 2),
                                   (1, 1, 1, 1, 1)])
def test_agrees_with_brute_force_minimax(sizes):
    assert distribution(sizes).counts == dict(_brute_force(sizes))


@pytest.mark.slow
@pytest.mark.parametrize("sizes", [(3, 3, 3), (2, 3, 4)])
def test_agrees_with_brute_force_minimax_larger(sizes):
    """8,000 and 8,400 deals, a minimax each (about 3 s and 10 s)."""
    expected = _brute_force(sizes)
    assert sum(expected.values()) == prod(comb(2 * n, n) for n in sizes)
    assert distribution(sizes).counts == dict(expected)


def test_agrees_with_sampled_deals_through_the_evaluator():
    """10⁵ random deals of suits 8, 7, 6, 5 valued one by one (packed values of the preloaded table, not the
    shipped counts): a chi-square test of the exact probabilities, and the sample means within 5 standard errors."""
    sizes = (8, 7, 6, 5)
    rng = np.random.default_rng(20261124)
    samples = 100_000
    keys = np.empty((samples, len(sizes)), dtype=np.int64)
    for s, n in enumerate(sizes):
        west = rng.random((samples, 2 * n)).argsort(axis=1)[:, :n]  # West's n of the 2n cards, uniformly
        keys[:, s] = (1 << west).sum(axis=1) | (1 << (2 * n))
    batch = analyse_batch(keys)
    seen = Counter(zip(batch.west_leads, batch.east_leads))
    exact = distribution(sizes)
    expected = {(int(o.west_leads), int(o.east_leads)): float(p) * samples for o, p in exact.probabilities().items()}
    assert set(seen) <= set(expected)
    # Pool the outcomes expected fewer than 5 times into one cell.
    big = [o for o, e in expected.items() if e >= 5]
    observed = [seen.get(o, 0) for o in big] + [samples - sum(seen.get(o, 0) for o in big)]
    means = [expected[o] for o in big] + [samples - sum(expected[o] for o in big)]
    statistic = sum((o - e) ** 2 / e for o, e in zip(observed, means) if e > 0)
    assert chi2.sf(statistic, len(observed) - 1) > 1e-4
    west = np.asarray(batch.west_leads, dtype=float)
    for leader, tricks in (("W", west), ("E", np.asarray(batch.east_leads, dtype=float))):
        assert abs(tricks.mean() - float(exact.expected_tricks(leader))) < 5 * tricks.std() / samples**0.5


def test_one_suit_is_the_level_itself():
    """For one suit the distribution is ρ of the level's values: the shipped outcomes, and §11's dealer's advantage
    (docs/asymptotics.md: 1/6 at n = 2, 1038107/5014575 at n = 14)."""
    with open(SCAN, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    for line in lines:
        n = line["n"]
        if n > 14:
            continue
        d = distribution((n,))
        assert {f"{o.west_leads}|{o.east_leads}": c for o, c in d.counts.items()} == line["outcomes"]
        assert d.lead_matters == 2 * d.dealer_advantage  # one suit: the lead never helps the leader
        assert d.leader_gains == 0
    assert distribution((2,)).dealer_advantage == Fraction(1, 6)
    assert distribution((14,)).dealer_advantage == Fraction(1038107, 5014575)


def test_symmetry_and_totals():
    d = distribution((16, 16, 16, 16))
    assert d.deals == comb(32, 16) ** 4
    # Swapping the hands maps the deals onto themselves: χ = (w, e) ↔ (N − e, N − w).
    assert all(d.counts[Outcome(64 - e, 64 - w)] == c for (w, e), c in d.counts.items())
    assert d.expected_tricks("W") + d.expected_tricks("E") == 64
    assert d.lead_worth == 2 * d.dealer_advantage
    assert all(abs(w - e) <= 1 for w, e in d.counts)
    assert d.leader_gains > 0  # ±ε₀ sums: four suits can reward the leader, one never does


def test_order_of_suits_does_not_matter():
    assert distribution((5, 1, 3)) .counts == distribution((1, 3, 5)).counts == distribution((3, 5, 1)).counts


def test_core_refuses_incomplete_levels():
    with pytest.raises(ValueError, match="not complete"):
        outcome_distribution((2,), {2: {Value(0): 5}})
    with pytest.raises(ValueError):
        outcome_distribution((), {})


def test_shipped_counts_are_the_engines():
    from whist_catalogue.engine.levels import levels

    for level in levels(10):
        assert shipped_counts(level.n) == level.value_counts()
    assert shipped_max_n() >= 17


def test_catalogue_source_agrees(small_catalogue):
    from whist_catalogue.store.reader import open_catalogue

    with open_catalogue(str(small_catalogue)) as catalogue:
        assert level_counts((7, 5), "catalogue", catalogue) == level_counts((7, 5), "shipped")
        with pytest.raises(Exception, match="not complete"):
            level_counts((8,), "catalogue", catalogue)


def test_scan_file_source(tmp_path):
    path = tmp_path / "scan.jsonl"
    with open(SCAN, encoding="utf-8") as f:
        path.write_text("".join(itertools.islice(f, 3)))
    assert read_scan_counts(path) == {n: shipped_counts(n) for n in (1, 2, 3)}
    assert distribution((3, 2), scan_file=str(path)) == distribution((3, 2))
    with pytest.raises(DistributionError, match="no level 4"):
        distribution((4,), scan_file=str(path))
    path.write_text('{"n": 2, "values": {"0|e0": 1}}\n')
    with pytest.raises(DistributionError, match="add up to 1"):
        distribution((2,), scan_file=str(path))


@pytest.mark.parametrize("text", ["", "0", "3,-1", "x", "4,,", "26", ",".join(["1"] * 65)])
def test_bad_sizes(text):
    if text == "4,,":
        assert parse_sizes(text) == (4,)
        return
    with pytest.raises(DistributionError):
        parse_sizes(text)


def test_cli_json_and_text():
    code, out, err = run_cli("distribution", "2,1", "--json")
    assert code == 0 and not err
    obj = json.loads(out)
    assert obj["sizes"] == [2, 1] and obj["deals"] == 12
    assert {(o["west_leads"], o["east_leads"]): o["deals"] for o in obj["outcomes"]} == {
        (w, e): c for (w, e), c in distribution((2, 1)).counts.items()}
    assert sum(Fraction(o["probability"]) for o in obj["outcomes"]) == 1
    code, out, _ = run_cli("distribution", "4,4,3,2")
    assert code == 0
    assert "588,000 deals" in out and "dealer's advantage" in out and "593/58800" in out
    # the text is the result's own, and the sizes may be written apart as well as with commas
    assert out == distribution((4, 4, 3, 2)).text() + "\n"
    assert run_cli("distribution", "4", "4", "3", "2") == (0, out, "")
    assert run_cli("distribution", "4", "4,3", "2") == (0, out, "")


def test_the_summary_is_what_the_json_says():
    result = distribution((4, 4, 3, 2))
    obj = result.to_json()
    said = dict(result.summary())
    assert said["dealer's advantage (E[non-leader's tricks] − N/2)"] == Fraction(obj["dealer_advantage"]) \
        == Fraction(593, 58800)
    assert [said[k] for k in ("E[West's tricks], West leads", "E[West's tricks], East leads")] == \
        [Fraction(obj["expected_west_leads"]), Fraction(obj["expected_east_leads"])]
    assert result.headline() == "suits 4,4,3,2: 4 suits, 13 tricks, 588,000 deals"
    assert distribution((1,)).headline() == "suits 1: 1 suit, 1 trick, 2 deals"


@pytest.mark.parametrize("argv, message", [
    (["distribution", "3,x"], "not a suit size"),
    (["distribution", "19"], "no value counts for level 19"),
    (["distribution", "2", "--counts", "/nonexistent/scan.jsonl"], "No such file"),
    (["distribution", "2", "--counts", "x", "--source", "shipped"], "--counts names the source"),
])
def test_cli_errors(argv, message):
    code, out, err = run_cli(*argv)
    assert code == 2 and not out
    assert message in err and err.count("\n") == 1


def test_exact_dot_both_ways():
    """The int64 limb products and the Python-int fallback give the plain sums."""
    from whist_catalogue.theory.distribution import _exact_dot

    rng = np.random.default_rng(7)
    for top in (1 << 20, 1 << 59, 1 << 70):
        weights = [int(x) % top for x in rng.integers(0, 1 << 62, 300)]
        columns = np.array([[int(x) % top for x in rng.integers(0, 1 << 62, 5)] for _ in weights], dtype=object)
        expected = [sum(w * int(columns[i, j]) for i, w in enumerate(weights)) for j in range(5)]
        assert _exact_dot(weights, columns) == expected


def test_int64_and_python_int_convolutions_agree():
    """Adding two suits' distributions with NumPy int64 (while the counts fit) equals the plain double loop."""
    from whist_catalogue.theory.distribution import _add, _convolve, _level_sum

    a, b = _level_sum(shipped_counts(5)), _level_sum(shipped_counts(7))
    expected: dict = {}
    for xa, da in a.items():
        for xb, db in b.items():
            target = expected.setdefault(xa + xb, {})
            for qa, ca in da.items():
                for qb, cb in db.items():
                    target[qa + qb] = target.get(qa + qb, 0) + ca * cb
    assert _convolve(a, b, np.int64) == expected
    assert _add(a, b) == expected


def test_the_report_s_findings_are_computed_from_the_shipped_counts(tmp_path: Path):
    """The report's smoke run writes where it is told (never over docs/), and its statements about the shipped
    levels name their true reach: each value of nonzero infinitesimal part has an integer number part, at
    every shipped level (the two-suit remark rests on it)."""
    from whist_catalogue.scripts.reports import distributions as report

    out = tmp_path / "d.md"
    assert report.main(["--quick", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    top = shipped_max_n()
    assert top >= 18 and f"every level n ≤ {top}, shipped with the package" in text.replace("\n", " ")
    assert f"a third suit must bring the half, holds for every level of the shipped counts (n ≤ {top})" in text
    assert all(v.number.denominator == 1 for n in range(1, top + 1) for v in shipped_counts(n)
               if not v.infinitesimal.is_zero)
