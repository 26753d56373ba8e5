"""Regenerate ``docs/distributions.md`` and its plots: exact outcome distributions of multi-suit deals.

    .venv/bin/python -m whist_catalogue.scripts.reports.distributions            # the full report (about 10 s here)
    .venv/bin/python -m whist_catalogue.scripts.reports.distributions --quick    # a smoke run into a scratch file

Every number comes from :func:`whist_catalogue.store.distributions.distribution` (Theorem 9.1 of the
multi-suit paper over the shipped per-level value counts); this script lays them out as Markdown tables,
writes every exact value to ``docs/data/distributions.jsonl`` and saves the figures as PNG.  The sampling
section plays random deals through the evaluator (:func:`whist_catalogue.theory.multisuit.analyse_batch`),
which does not use the shipped counts.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Callable

import numpy as np
from scipy.stats import chi2

from whist_catalogue.scripts.reports import fraction, page_path, regenerate_with, table, write_page
from whist_catalogue.store.distributions import distribution, shipped_counts, shipped_max_n
from whist_catalogue.theory.distribution import OutcomeDistribution, draw_distribution
from whist_catalogue.theory.multisuit import analyse_batch

COMMAND = ".venv/bin/python -m whist_catalogue.scripts.reports.distributions"
EQUAL_SUITS = {1: 16, 2: 16, 3: 16, 4: 16, 5: 10, 6: 10, 7: 8, 8: 8}
"""k equal suits of n cards a hand, for n up to this (the cost grows with the distinct sums of k/2 suits)."""
QUICK_EQUAL_SUITS = {1: 8, 2: 8, 3: 6, 4: 6, 8: 3}
SPLITS = ((12, (1, 2, 3, 4, 6, 12)), (16, (1, 2, 4, 8)))
"""N tricks split into k equal suits."""
SAMPLED = ((8, 8, 8, 8), (8, 7, 6, 5, 4, 3, 2, 1), (2, 2, 2, 2, 2, 2, 2, 2))
EXAMPLE = (13, 13, 13, 13)


def decimal(q: Fraction, digits: int = 6) -> str:
    return f"{float(q):.{digits}f}".replace("-", "−")


def sizes_text(sizes: tuple[int, ...]) -> str:
    if len(set(sizes)) == 1 and len(sizes) > 8:
        return f"{len(sizes)} suits of {sizes[0]}"
    return ",".join(map(str, sizes))


class Results:
    """Every distribution the report computes, by suit sizes, with the seconds each took."""

    def __init__(self) -> None:
        self.by_sizes: dict[tuple[int, ...], OutcomeDistribution] = {}
        self.seconds: dict[tuple[int, ...], float] = {}

    def get(self, sizes: tuple[int, ...]) -> OutcomeDistribution:
        if sizes not in self.by_sizes:
            start = time.perf_counter()
            self.by_sizes[sizes] = distribution(sizes)
            self.seconds[sizes] = time.perf_counter() - start
            print(f"  {sizes_text(sizes)}: {self.seconds[sizes]:.2f} s", file=sys.stderr)
        return self.by_sizes[sizes]


def equal_suits_section(results: Results, plan: dict[int, int]) -> list[str]:
    out = [
        "## 1. k equal suits",
        "",
        "k suits of n cards a hand (N = kn tricks). *Dealer's advantage*: E[tricks of the player not on lead] − N/2,",
        "the quantity of §11 of the single-suit paper (which tends to 1/4 for one suit); by the symmetry of the hands",
        "it is half of what not having the lead is worth, (E[West's tricks | East leads] − E[West's tricks | West leads]) / 2.",
        "*Lead matters*: Pr[West's tricks differ with the lead]; *leader gains*: Pr[the player on lead takes one trick more",
        "than without it] — never for one suit, where the lead can only cost (§6.5: a tie is broken toward the leader only",
        "by ±ε₀, which a single suit never has).",
        "",
        "### 1.1 Dealer's advantage",
        "",
    ]
    ks = sorted(plan)

    def by_n_and_k(cell: Callable[[OutcomeDistribution], str]) -> list[str]:
        """A row an n, a column a k: ``cell`` of k suits of n cards a hand, blank beyond the plan."""
        rows = [[n, *(cell(results.get((n,) * k)) if n <= plan[k] else "" for k in ks)]
                for n in range(1, max(plan.values()) + 1)]
        return table(["n"] + [f"k = {k}" for k in ks], rows)

    out += by_n_and_k(lambda d: decimal(d.dealer_advantage))
    out += ["### 1.2 Pr[the lead changes the outcome] (and Pr[the leader gains], in brackets)", ""]
    out += by_n_and_k(lambda d: f"{decimal(d.lead_matters, 4)} ({float(d.leader_gains):.1e})")
    out += ["### 1.3 Exact values, k ≤ 4 suits of n ≤ 6", ""]
    rows: list[list[object]] = []
    for k in (2, 3, 4):
        for n in range(1, 7):
            if n <= plan.get(k, 0):
                d = results.get((n,) * k)
                rows.append([k, n, f"{d.deals:,}", fraction(d.dealer_advantage), fraction(d.lead_matters),
                             fraction(d.leader_gains)])
    out += table(["k", "n", "deals", "dealer's advantage", "lead matters", "leader gains"], rows)
    return out


def splits_section(results: Results) -> list[str]:
    out = [
        "## 2. A fixed number of tricks split into k equal suits",
        "",
        "The same N tricks dealt as k suits of N/k cards a hand: more, shorter suits.",
        "",
    ]
    rows = []
    for total, ks in SPLITS:
        for k in ks:
            sizes = (total // k,) * k
            d = results.get(sizes)
            rows.append([total, k, sizes_text(sizes), decimal(d.dealer_advantage), decimal(d.lead_matters),
                         decimal(d.leader_gains), decimal(d.dealer_gains), fraction(d.dealer_advantage)])
    out += table(["N", "k", "suits", "dealer's advantage", "lead matters", "leader gains", "non-leader gains",
                  "dealer's advantage, exact"], rows)
    return out


def sampled_section(results: Results, samples: int, seed: int) -> list[str]:
    out = [
        "## 3. Checked against random deals",
        "",
        f"{samples:,} random deals of each size, every suit dealt uniformly, valued one by one by the evaluator",
        "(`theory.multisuit.analyse_batch`: each suit's value from the preloaded table of every deal with n ≤ 8,",
        "then ρ of the sum) — not through the shipped counts. *χ²*: Pearson's statistic of the observed outcomes",
        "against the exact probabilities (cells expected fewer than 5 times pooled), with its p-value;",
        "*z*: the sample means' distance to the exact expectations, in standard errors.",
        "",
    ]
    rows = []
    rng = np.random.default_rng(seed)
    for sizes in SAMPLED:
        keys = np.empty((samples, len(sizes)), dtype=np.int64)
        for s, n in enumerate(sizes):
            west = rng.random((samples, 2 * n)).argsort(axis=1)[:, :n]
            keys[:, s] = (1 << west).sum(axis=1) | (1 << (2 * n))
        batch = analyse_batch(keys)
        seen = Counter(zip(batch.west_leads, batch.east_leads))
        d = results.get(sizes)
        expected = {(int(o.west_leads), int(o.east_leads)): float(p) * samples for o, p in d.probabilities().items()}
        big = [o for o, e in expected.items() if e >= 5]
        observed = [seen.get(o, 0) for o in big] + [samples - sum(seen.get(o, 0) for o in big)]
        means = [expected[o] for o in big] + [samples - sum(expected[o] for o in big)]
        cells = [(o, e) for o, e in zip(observed, means) if e > 0]
        statistic = sum((o - e) ** 2 / e for o, e in cells)
        p_value = chi2.sf(statistic, len(cells) - 1)
        zs = []
        for leader, tricks in (("W", batch.west_leads), ("E", batch.east_leads)):
            t = np.asarray(tricks, dtype=float)
            zs.append((t.mean() - float(d.expected_tricks(leader))) / (t.std() / samples**0.5))
        outside = sum(c for o, c in seen.items() if o not in expected)
        rows.append([sizes_text(sizes), f"{d.deals:,}", len(cells), f"{statistic:.1f}", f"{p_value:.3f}",
                     f"{zs[0]:+.2f}", f"{zs[1]:+.2f}", outside])
    out += table(["suits", "deals", "cells", "χ²", "p", "z (West leads)", "z (East leads)",
                  "outcomes never expected"], rows)
    return out


def figures_section(results: Results, plan: dict[int, int], image_dir: Path, relative: str) -> list[str]:
    from matplotlib.figure import Figure

    image_dir.mkdir(parents=True, exist_ok=True)
    out = ["## 4. Figures", ""]
    ks = sorted(plan)

    def save(figure: Figure, name: str, title: str) -> None:
        path = image_dir / f"distributions-{name}.png"
        figure.savefig(path, metadata={"Software": None})
        out.extend([f"### {title}", "", f"![{title}]({relative}/{path.name})", ""])

    for name, title, attribute in (
        ("dealer-advantage", "Dealer's advantage, k equal suits of n cards", "dealer_advantage"),
        ("lead-matters", "Pr[the lead changes the outcome], k equal suits of n cards", "lead_matters"),
    ):
        figure = Figure(figsize=(8, 5), dpi=110, layout="constrained")
        axes = figure.subplots()
        for k in ks:
            ns = list(range(1, plan[k] + 1))
            axes.plot(ns, [float(getattr(results.get((n,) * k), attribute)) for n in ns], marker="o", ms=3,
                      label=f"k = {k}")
        if attribute == "dealer_advantage":
            axes.axhline(0.25, color="grey", lw=0.8, ls="--", label="1/4 (one suit, n → ∞)")
        axes.axhline(0, color="black", lw=0.5)
        axes.set_xlabel("n (cards a hand in each suit)")
        axes.set_ylabel("tricks" if attribute == "dealer_advantage" else "probability")
        axes.set_title(title)
        axes.legend(fontsize="small", ncol=2)
        save(figure, name, title)
    figure = Figure(figsize=(10, 5), dpi=110, layout="constrained")
    draw_distribution(figure, results.get(EXAMPLE))
    save(figure, "example", f"The outcome distribution of {sizes_text(EXAMPLE)} (as the app draws it)")
    return out


def write_data(results: Results, path: Path) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for sizes in sorted(results.by_sizes, key=lambda s: (len(s), s)):
            f.write(json.dumps(results.by_sizes[sizes].to_json()) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=None,
                        help="the Markdown file (default docs/distributions.md; with --quick, a scratch folder's)")
    parser.add_argument("--samples", type=int, default=100_000, help="random deals of each sampled size")
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--quick", action="store_true", help="small levels and samples, for a smoke run")
    args = parser.parse_args(argv)
    args.out = page_path(args.out, "distributions.md", args.quick)
    start = time.perf_counter()
    plan = QUICK_EQUAL_SUITS if args.quick else EQUAL_SUITS
    samples = 2_000 if args.quick else args.samples
    results = Results()
    lines = [
        "# Exact outcome distributions of multi-suit deals",
        "",
        *regenerate_with("distributions.py", COMMAND + (" --quick" if args.quick else "")),
        "Deal each of k suits independently and uniformly — suit i one of the C(2nᵢ, nᵢ) ways of giving West nᵢ of",
        "its 2nᵢ cards. By Theorem 9.1 of Wästlund's *On two-person symmetric multi-suit whist* the outcome (West's",
        "tricks with West on lead, and with East on lead) is ρ of the sum in V of the suits' values, so its exact",
        "distribution is a convolution of the per-level value counts — no deal is played, however many there are",
        "(4 suits of 16: 1.3 × 10³⁵ deals). One distribution from the command line:",
        "",
        "```console",
        "$ whist-catalogue distribution 4,4,3,2            # a table of outcomes, exact probabilities",
        "$ whist-catalogue distribution 16,16,16,16 --json # every count and probability as exact integers and p/q",
        "```",
        "",
        "**Where the counts come from.** The per-level value counts are the published `scan`'s, every level",
        f"n ≤ {shipped_max_n()}, shipped with the package (`docs/data/scan.jsonl`); `--db` adds a catalogue's complete levels for",
        "any level that file lacks, `--source catalogue` takes them from the catalogue only, and `--counts FILE`",
        f"reads another `scan --json` run (a level {shipped_max_n() + 1}, say). The tests check the shipped counts against the engine",
        "(n ≤ 10) and a catalogue, and the distributions against the brute-force minimax of the card game over",
        "every deal of (1,1,1), (2,2,2), (1,2,3), (3,3,3), (2,3,4) and more — not through Theorem 9.1 — and",
        "against 10⁵ random deals played through the evaluator (`tests/test_distribution.py`).",
        "",
        "**How.** The numerical parts are added exactly (integers over 2^24), the infinitesimal parts by the",
        "semigroup's own addition (§6.1.4), and ρ is §6.5's. The suits are split into two halves whose sums are",
        "convolved in full; of the halves' sum only the outcome is counted: a sum that is not a half-integer",
        "rounds to the nearest integer whatever its infinitesimal part (cumulative counts), and a half-integer is",
        "matched by fractional parts and resolved by its infinitesimal part. Speed: [benchmarks.md](benchmarks.md).",
        "Every exact value below is in [data/distributions.jsonl](data/distributions.jsonl), one line per suit sizes.",
        "",
    ]
    print("computing distributions …", file=sys.stderr)
    lines += equal_suits_section(results, plan)
    lines += splits_section(results)
    lines += sampled_section(results, samples, args.seed)
    lines += findings(results, plan)
    lines += figures_section(results, plan, args.out.parent / "img", "img")
    write_page(args.out, lines, start)
    if not args.quick:
        write_data(results, args.out.parent / "data" / "distributions.jsonl")
    return 0


def holds(flag: bool, where: str) -> str:
    return f"holds for {where}" if flag else f"**does not hold** for {where}"


def findings(results: Results, plan: dict[int, int]) -> list[str]:
    """What the tables show, each statement computed from them (so it is regenerated with them)."""
    out = ["## What the tables show", ""]
    one = [results.get((n,)) for n in range(1, plan[1] + 1)]
    out.append("* **One suit**: the dealer's advantage is half of Pr[the lead matters] and the leader never gains: "
               + holds(all(d.lead_matters == 2 * d.dealer_advantage and d.leader_gains == 0 for d in one),
                       f"n ≤ {plan[1]}") + ".")
    for k in sorted(plan):
        if k == 1:
            continue
        values = [results.get((n,) * k) for n in range(1, plan[k] + 1)]
        negative = [n for n, d in enumerate(values, 1) if d.dealer_advantage < 0]
        best = max(range(len(values)), key=lambda i: values[i].dealer_advantage) + 1
        out.append(f"* **k = {k}**: the dealer's advantage is largest at n = {best} of n ≤ {plan[k]} "
                   f"({decimal(values[best - 1].dealer_advantage)}); "
                   + (f"negative — the leader is favoured — for n = {', '.join(map(str, negative))}."
                      if negative else "positive for every n."))
    two = [results.get((n, n)) for n in range(1, plan[2] + 1)]
    top_shipped = shipped_max_n()
    integral = all(value.number.denominator == 1
                   for n in range(1, top_shipped + 1) for value in (shipped_counts(n) or {})
                   if not value.infinitesimal.is_zero)
    out.append("* **Two suits**: the leader never gains either: " + holds(all(d.leader_gains == 0 for d in two),
                                                                         f"n ≤ {plan[2]}") + ". ρ favours the leader only on a half-integer sum with "
               "infinitesimal part ±ε₀, which needs two suits of nonzero infinitesimal part — and that such a value "
               "has an integer number part, so that a third suit must bring the half, "
               + holds(integral, f"every level of the shipped counts (n ≤ {top_shipped})") + ".")
    top = plan[4]
    advantage = [float(results.get((top,) * k).dealer_advantage) for k in (1, 2, 3, 4)]
    out.append(f"* At n = {top}, the dealer's advantage for k = 1, 2, 3, 4 suits is "
               + ", ".join(f"{a:.5f}" for a in advantage)
               + ". The lead matters only when the sum of the values is exactly a half-integer with infinitesimal "
               "part 0 or ±ε₀ (§6.5), and the more suits, the less often that happens.")
    ks = sorted(plan)
    down = all(results.get((n,) * k).dealer_advantage > results.get((n,) * j).dealer_advantage
               and results.get((n,) * k).lead_matters > results.get((n,) * j).lead_matters
               for n in range(4, max(plan.values()) + 1) for k, j in zip(ks, ks[1:]) if n <= plan[j])
    out.append("* **More suits of the same size**: for every n ≥ 4 of the tables, both the dealer's advantage and "
               "Pr[the lead matters] decrease strictly as k grows — " + holds(down, "every n ≥ 4 and k in the tables")
               + ".")
    up = all(results.get((n + 1,) * k).dealer_advantage > results.get((n,) * k).dealer_advantage
             for k in ks if k >= 2 for n in range(2, plan[k]))
    out.append("* **Longer suits**: for each k ≥ 2 the dealer's advantage grows with n from n = 2 on, without the "
               "odd–even swing of one suit — " + holds(up, "every k ≥ 2 and n in the tables")
               + "; for one suit it tends to 1/4 (§11 of the single-suit paper), and for k suits the tables do not "
               "reach far enough to say where it goes.")
    splits = all(results.get((total // k,) * k).dealer_advantage > results.get((total // j,) * j).dealer_advantage
                 for total, kk in SPLITS for k, j in zip(kk, kk[1:]) if total // j >= 2)
    out.append("* **The same tricks in more, shorter suits** (section 2): the dealer's advantage falls as k grows "
               "while the suits have at least 2 cards a hand — " + holds(splits, "N = 12 and 16")
               + "; with suits of 2 it is negative (the leader gains in every deal where the lead matters), and "
               "with suits of 1 the lead never matters.")
    out.append("")
    return out


if __name__ == "__main__":
    raise SystemExit(main())
