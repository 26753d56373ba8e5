"""Regenerate ``docs/asymptotics.md`` and its plots: Section 11 of the single-suit paper, checked.

    .venv/bin/python -m whist_catalogue.scripts.reports.asymptotics            # the full report (a minute or two)
    .venv/bin/python -m whist_catalogue.scripts.reports.asymptotics --quick    # a smoke run into a scratch directory

All computation is in :mod:`whist_catalogue.single_suit.asymptotics`; this script lays the
results out as Markdown tables and saves the figures as PNG.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

from whist_catalogue.scripts.reports import columns_table, fraction, page_path, regenerate_with, table, write_page
from whist_catalogue.single_suit import asymptotics as asy

COMMAND = ".venv/bin/python -m whist_catalogue.scripts.reports.asymptotics"
QUICK_PLAN = ((100, 5_000), (1_000, 5_000), (10_000, 1_000))


def taylor_term(a: Fraction, b: Fraction) -> str:
    """a + b/√π, where one of the two is 0 (the coefficients of (55) alternate)."""
    if b == 0:
        return fraction(a)
    sign = "−" if b < 0 else ""
    b = abs(b)
    if b.denominator == 1:
        return f"{sign}{b.numerator}/√π"
    return f"{sign}{b.numerator}/({b.denominator}√π)"


def ok(flag: bool) -> str:
    return "yes" if flag else "**NO**"


def exact_section(data: asy.AsymptoticsData) -> list[str]:
    levels = data.exact
    top = levels[-1]
    out = [
        f"## 1. Exact results over every deal, n ≤ {top.n}",
        "",
        "Every deal of every level was valued by the per-level kernels (Theorem 9.1 through the",
        "linear-time procedure of Theorem 10.1, checked deal by deal against the brute-force referee",
        "for n ≤ 8 in `tests/test_single_suit.py`), and the diagonal sums T_k counted.",
        "",
        "### 1.1 Lemma 11.2, formula (38) and the bounds of §11.2",
        "",
        "*Lemma 11.2*: T₀ takes each value −n, −n+2, …, n on exactly C(2n,n)/(n+1) (the Catalan number) deals.",
        "*(38)*: Theorem 11.4's count of the deals with T_k > 0 equals the actual count, for every k = 1 … n−1.",
        "The last three columns are the largest ratio of the exact probability to the paper's bound",
        "(≤ 1 means the bound holds for every h, k or i, j): Theorem 11.8, Pr[some k ≥ h has T_k ≥ 0] ≤ 2e^(−h²/2n);",
        "Lemma 11.9, Pr[T_k ∈ {1, 2}] ≤ 2/(n−k+3) for k ≥ 0; Lemma 11.7, Pr[A_ij = 1 | East's ace] ≤ e^(−(j−i)²/2n)",
        "(exact hypergeometric probabilities).",
        "",
    ]
    out += columns_table(levels, [
        ("n", lambda level: level.n),
        ("deals", lambda level: f"{level.deals:,}"),
        ("Lemma 11.2", lambda level: ok(level.lemma_11_2_holds())),
        ("(38) = count", lambda level: f"{level.n - 1 - len(level.formula_38_mismatches())} of {level.n - 1}"),
        ("Thm 11.8 ratio", lambda level: f"{level.theorem_11_8_margin():.3f}"),
        ("Lemma 11.9 ratio", lambda level: f"{level.lemma_11_9_margin():.3f}"),
        ("Lemma 11.7 ratio", lambda level: f"{asy.lemma_11_7_margin(level.n):.3f}"),
        ("seconds", lambda level: f"{level.seconds:.2f}"),
    ])
    out += [f"Formula (38) and the count for n = {top.n}, every k:", ""]
    out += table(
        ["k", "(38)", "deals with T_k > 0"],
        [[k, f"{asy.count_t_positive_formula(top.n, k):,}", f"{top.t_positive[k]:,}"] for k in range(1, top.n)],
    )
    out += [
        "### 1.2 The distribution of H (Theorem 9.1)",
        "",
        "Number of deals with each value of H ≥ 0; the distribution is symmetric (swapping the hands",
        "negates H), which the column *symmetric* confirms, and H ≡ n (mod 2) exactly when the outcome",
        "does not depend on the lead.",
        "",
    ]
    width = top.n
    rows = []
    for level in levels:
        symmetric = all(level.h_counts.get(h, 0) == level.h_counts.get(-h, 0) for h in level.h_counts)
        rows.append(
            [level.n, ok(symmetric)]
            + [f"{level.h_counts.get(h, 0):,}" if h <= level.n else "" for h in range(width + 1)]
        )
    out += table(["n", "symmetric"] + [f"H={h}" for h in range(width + 1)], rows)
    out += [
        "### 1.3 Dealer, ace and king: exact expectations",
        "",
        "The dealer is the player who does not lead (§11.3); both seats give the same value.",
        "For the ace and the king (§11.4) the lead is decided at random, so the holder expects (n ± H)/2",
        "tricks and his advantage over the opponent is E[±H]. Pr[H = H̄ | East's ace] is Theorem 11.11's",
        "probability (bounded by 2√(log n / n) + O(1/√n)); *ace rule* is the share of deals with H = H̄ when",
        "West holds the ace and H = H̲ when East does (§11.2). KS is the exact Kolmogorov–Smirnov distance",
        "of H_n/√n to the limit law.",
        "",
    ]
    out += columns_table(levels, [
        ("n", lambda level: level.n),
        ("dealer − n/2", lambda level: f"{fraction(level.dealer_advantage)} = {float(level.dealer_advantage):.5f}"),
        ("Pr[H ≢ n]", lambda level: f"{level.parity_differs / level.deals:.5f}"),
        ("ace holder − n/2", lambda level: f"{float(level.ace_holder_tricks - Fraction(level.n, 2)):.5f}"),
        ("ace advantage", lambda level: f"{fraction(level.ace_advantage)} = {float(level.ace_advantage):.5f}"),
        ("king advantage", lambda level: f"{float(level.king_advantage):.5f}"),
        ("Pr[H=H̄ \\| East's ace]", lambda level: f"{float(level.east_ace_h_upper_probability):.5f}"),
        ("2√(log n/n)", lambda level: f"{2 * math.sqrt(math.log(level.n) / level.n):.3f}" if level.n > 1 else "–"),
        ("ace rule", lambda level: f"{level.ace_rule / level.deals:.5f}"),
        ("KS", lambda level: f"{level.ks_distance():.4f}"),
    ])
    out += [
        "### 1.4 The involution ψ of §11.4",
        "",
        "ψ keeps West's ace and reverses the order of the other 2n − 1 cards. §11.4 argues that",
        "H̄(ψ(D)) = 2 − H̄(D) with high probability, so that E[H | West's ace] → 1. Over every deal the pair",
        "sums H(D) + H(ψ(D)) take only the values 1 and 2, and — an observation, not a claim of the paper —",
        "H(D) + H(ψ(D)) = [H(D) = H̄(D)] + [H(ψ(D)) = H̄(ψ(D))] for every West-ace deal (*failures* counts",
        "the exceptions). Averaging over the pairs, this makes the ace advantage E[±H] of 1.3 equal to the",
        "share of deals obeying the ace rule, exactly, as the two columns there show.",
        "",
    ]
    out += columns_table(levels, [
        ("n", lambda level: level.n),
        ("H(D) + H(ψ(D)) → West-ace deals",
         lambda level: ", ".join(f"{k}: {v:,}" for k, v in sorted(level.psi_pair_sums.items()))),
        ("failures", lambda level: level.psi_identity_failures),
    ])
    return out


def limit_section() -> list[str]:
    grid = np.linspace(0.01, 5.0, 500)
    integral = np.array([asy.limit_survival_integral(float(x)) for x in grid])
    closed = np.asarray(asy.limit_survival(grid))
    worst = float(np.abs(integral - closed).max())
    out = [
        "## 2. The limit law (Theorems 11.5 and 11.6)",
        "",
        "Pr[ξ > x] for x > 0 by the integral (53) (adaptive quadrature, SciPy `quad`) and by the closed form (55)",
        "(SciPy `hyp1f1`); for x < 0, Pr[ξ > x] = 1 − Pr[ξ > −x].",
        f"On {len(grid)} points 0.01 ≤ x ≤ 5 the largest difference is **{worst:.1e}** (required: below 1e-10).",
        "",
    ]
    rows = []
    for x in (0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0):
        a, b = asy.limit_survival_integral(x), float(asy.limit_survival(x))
        rows.append([x, f"{a:.15f}", f"{b:.15f}", f"{abs(a - b):.1e}"])
    out += table(["x", "integral (53)", "closed form (55)", "difference"], rows)
    rows = []
    for m, ((pa, pb), (ca, cb)) in enumerate(zip(asy.PAPER_TAYLOR, asy.taylor_coefficients(len(asy.PAPER_TAYLOR) - 1))):
        rows.append([m, taylor_term(pa, pb), taylor_term(ca, cb), ok((pa, pb) == (ca, cb))])
    out += [
        "The Taylor expansion quoted after (63), against the coefficients computed exactly from the series of",
        "(1/2 + x²)e^(−x²) and (2x/√π)e^(−2x²)₁F₁(2; 3/2; x²):",
        "",
    ]
    out += table(["power of x", "paper", "computed", "agree"], rows)
    nxt = asy.taylor_coefficients(8)
    out += [
        f"The next two coefficients are {taylor_term(*nxt[7])} and {taylor_term(*nxt[8])}; the tests also check",
        "that (55) minus the quoted polynomial is c₇x⁷ + O(x⁸), and that Pr[ξ > x] = 1/2 − (2/√π)x + x|x|/2 + O(x³)",
        "on both sides of 0, so the density has a peak there, of height "
        f"{asy.limit_density(0.0):.6f} = 2/√π.",
        "",
        f"The limit law has standard deviation √E[ξ²] = {asy.limit_moment(2) ** 0.5:.12f} (numerically √2 − 1 ="
        f" {math.sqrt(2) - 1:.12f}; not stated in the paper) and E|ξ| = {asy.limit_moment(1):.6f}.",
        "",
    ]
    return out


def sample_section(data: asy.AsymptoticsData) -> list[str]:
    out = [
        "## 3. Sampling beyond the catalogue (Theorem 10.1, batched)",
        "",
        "Uniformly random deals drawn by the Numba kernel of `catalogue/single_suit/kernels.py` (deal i of a",
        "run depends only on the seed and i) and valued by the linear-time algorithm. Intervals are 95 %",
        "normal intervals. The dealer's advantage is averaged over both seats, ½·[H ≢ n (mod 2)] per deal. The",
        "ace holder's advantage uses the pairs (D′, ψ(D′)) of §11.4 (D′ the deal turned so that West holds the",
        "ace); the column *±H only* is the plain estimator from the same deals, for comparison. The king's uses",
        "the pairs (D″, ψ_K(D″)), D″ turned so that West holds the king and ψ_K reversing cards 1 … 2n−2.",
        "*seconds* is the wall time of the sampling kernel, each deal valued with both its partners.",
        "H/√n lives on a grid of spacing 1/√n, so no law on that grid is nearer the continuous limit than half",
        "its largest atom in KS distance; the column *½ largest atom* gives that floor for each sample.",
        "",
    ]
    out += columns_table(data.samples, [
        ("n", lambda s: f"{s.n:,}"),
        ("deals", lambda s: f"{s.count:,}"),
        ("seed", lambda s: s.seed),
        ("seconds", lambda s: f"{s.seconds:.1f}"),
        ("mean H/√n", lambda s: f"{s.scaled_mean:+.4f}"),
        ("std H/√n", lambda s: f"{s.scaled_std:.4f}"),
        ("KS", lambda s: f"{s.ks:.4f}"),
        ("½ largest atom", lambda s: f"{s.h_counts.max() / s.count / 2:.4f}"),
        ("dealer − n/2", lambda s: s.dealer_advantage),
        ("ace advantage (ψ)", lambda s: s.ace_advantage),
        ("±H only", lambda s: s.ace_advantage_plain),
        ("king advantage (ψ_K)", lambda s: s.king_advantage),
        ("±H only", lambda s: s.king_advantage_plain),
        ("Pr[H=H̄ \\| East's ace]", lambda s: s.east_ace_h_upper),
        ("2√(log n/n)", lambda s: f"{2 * math.sqrt(math.log(s.n) / s.n):.4f}"),
        ("ace rule", lambda s: s.ace_rule),
    ])
    std = asy.limit_moment(2) ** 0.5
    out += [f"Limit law: mean 0, standard deviation {std:.4f}; Theorem 11.12: 1/4; §11.4: ace 1, king 1/2.", ""]
    return out


def figures_section(image_dir: Path, relative: str, data: asy.AsymptoticsData) -> list[str]:
    from matplotlib.figure import Figure

    out = ["## 4. Figures", ""]
    image_dir.mkdir(parents=True, exist_ok=True)
    for name, title in asy.FIGURES.items():
        figure = Figure(figsize=(11, 5) if name == "limit-law" else (8, 5), dpi=110)
        asy.draw_figure(name, figure, data)
        path = image_dir / f"asymptotics-{name}.png"
        figure.savefig(path, metadata={"Software": None})
        out += [f"### {title}", "", f"![{title}]({relative}/{path.name})", ""]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--max-exact-n", type=int, default=14, help="largest level counted exactly (default 14)")
    parser.add_argument("--seed", type=int, default=20050221, help="seed of the first sample (the others follow)")
    parser.add_argument("--out", type=Path, default=None,
                        help="the Markdown file (default docs/asymptotics.md; with --quick, a scratch folder's)")
    parser.add_argument("--quick", action="store_true", help="small samples, for a smoke run")
    args = parser.parse_args(argv)
    if not 2 <= args.max_exact_n <= 16:
        parser.error("--max-exact-n must be between 2 and 16")
    args.out = page_path(args.out, "asymptotics.md", args.quick)

    start = time.perf_counter()
    plan = QUICK_PLAN if args.quick else asy.SAMPLE_PLAN
    data = asy.compute_data(args.max_exact_n, plan, args.seed, progress=lambda m: print(m, file=sys.stderr))
    out: Path = args.out
    lines = [
        "# Section 11 of the single-suit paper, checked",
        "",
        *regenerate_with("asymptotics.py", COMMAND + (" --quick" if args.quick else "")),
        "Every claim of §11 of `papers/single-suit-whist.md` (Wästlund, *A solution of two-person",
        "single-suit whist*) is checked here: exactly over every deal up to n = "
        f"{args.max_exact_n}, and by sampling with the linear-time algorithm beyond. The functions are in",
        "`catalogue/single_suit/asymptotics.py`; the desktop app draws the same figures with `asymptotics.draw_figure`.",
        "",
    ]
    lines += exact_section(data)
    lines += limit_section()
    lines += sample_section(data)
    lines += figures_section(out.parent / "img", "img", data)
    write_page(out, lines, start)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
