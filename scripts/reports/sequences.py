"""Regenerate ``docs/data/sequences/`` and ``docs/sequences.md``: the integer sequences the scan counts per level.

    .venv/bin/python -m whist_catalogue.scripts.reports.sequences

Reads ``docs/data/scan.jsonl`` (one ``scan --json`` line per level; a longer run appended there extends
every sequence) and writes, for each counted quantity, a b-file — lines ``n a(n)``, as the OEIS keeps
them — and a page listing each sequence's first terms, what it counts, and each formula that fits with
the range of n on which it was checked against the data.  A formula is kept in the page only with the
range where it holds: the script finds that range from the data, it is not written by hand.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any, Callable, Mapping

from whist_catalogue.scripts.reports import DOCS

COMMAND = ".venv/bin/python -m whist_catalogue.scripts.reports.sequences"
SCAN_FILE = DOCS / "data" / "scan.jsonl"

Level = Mapping[str, Any]
"""One ``scan --json`` line, as JSON reads it."""


def _infinitesimal_count(code: str) -> Callable[[Level], int]:
    return lambda level: int(level["infinitesimals"].get(code, 0))


def _class_count(name: str) -> Callable[[Level], int]:
    return lambda level: int(level["classes"].get(name, 0))


def _checked(name: str) -> Callable[[Level], int]:
    return lambda level: int(level["checks"][name]["checked"])


def _counterexamples(name: str) -> Callable[[Level], int]:
    return lambda level: int(level["checks"][name]["counterexamples"])


def _lead_matters(level: Level) -> int:
    outcomes: Mapping[str, int] = level["outcomes"]
    return sum(c for key, c in outcomes.items() if len(set(key.split("|"))) == 2)


def _largest_denominator(level: Level) -> int:
    return max(Fraction(f).denominator for f in level["fractional_parts"])


@dataclass(frozen=True)
class Formula:
    text: str
    """The formula as the page shows it."""
    value: Callable[[int, Mapping[str, dict[int, int]]], int]
    """a(n), given n and every sequence by name (a formula may name another sequence)."""


@dataclass(frozen=True)
class Sequence:
    name: str
    """The b-file's name, without ``.txt``."""
    title: str
    counts: str
    """What a(n) counts."""
    term: Callable[[Level], int]
    formulas: tuple[Formula, ...] = ()


def _catalan(m: int) -> int:
    return comb(2 * m, m) // (m + 1)


SEQUENCES: tuple[Sequence, ...] = (
    Sequence("deals", "Deals", "single-suit deals with n cards a hand: C(2n, n)", lambda lv: int(lv["deals"]),
             (Formula("C(2n, n)", lambda n, s: comb(2 * n, n)),)),
    Sequence("distinct-values", "Distinct values", "distinct values val(D) among the deals with n cards a hand",
             lambda lv: int(lv["distinct_values"]),
             (Formula("n² + 3n − 5", lambda n, s: n * n + 3 * n - 5),)),
    Sequence("integer-values", "Integer values", "deals whose value is an integer (no infinitesimal part)",
             _class_count("integer")),
    Sequence("half-integer-values", "Half-integer values", "deals whose value is an integer plus 1/2",
             _class_count("half-integer"),
             (Formula("deals where the lead matters", lambda n, s: s["lead-matters"][n]),)),
    Sequence("dyadic-values", "Other dyadic values",
             "deals whose value is a number of denominator ≥ 4 (no infinitesimal part)", _class_count("dyadic")),
    Sequence("positive-infinitesimal-values", "Positive infinitesimal values",
             "deals whose value has a positive infinitesimal part (ε₀ or ε_k, k ≥ 1)",
             _class_count("positive infinitesimal"),
             (Formula("negative infinitesimal values", lambda n, s: s["negative-infinitesimal-values"][n]),)),
    Sequence("negative-infinitesimal-values", "Negative infinitesimal values",
             "deals whose value has a negative infinitesimal part (−ε₀ or −ε_k, k ≥ 1)",
             _class_count("negative infinitesimal"),
             (Formula("positive infinitesimal values", lambda n, s: s["positive-infinitesimal-values"][n]),)),
    Sequence("lead-matters", "Deals where the lead matters",
             "deals whose outcome depends on who leads (West's tricks differ with West and with East on lead)",
             _lead_matters,
             (Formula("half-integer values", lambda n, s: s["half-integer-values"][n]),)),
    Sequence("distinct-fractional-parts", "Distinct fractional parts",
             "distinct fractional parts of the values' numerical parts", lambda lv: len(lv["fractional_parts"]),
             (Formula("2n", lambda n, s: 2 * n),)),
    Sequence("largest-denominator", "Largest denominator", "the largest denominator of a value's numerical part",
             _largest_denominator, (Formula("2^(n−1)", lambda n, s: 2 ** (n - 1)),)),
    Sequence("distinct-infinitesimals", "Distinct infinitesimal parts",
             "distinct infinitesimal parts of the values (0 included)", lambda lv: len(lv["infinitesimals"]),
             (Formula("2n + 1", lambda n, s: 2 * n + 1),)),
    Sequence("epsilon-0", "Infinitesimal part ε₀", "deals whose value has infinitesimal part ε₀",
             _infinitesimal_count("e0"), (Formula("1", lambda n, s: 1),)),
    Sequence("epsilon-1", "Infinitesimal part ε₁", "deals whose value has infinitesimal part ε₁",
             _infinitesimal_count("e1"), (Formula("n − 2", lambda n, s: n - 2),)),
    Sequence("epsilon-2", "Infinitesimal part ε₂", "deals whose value has infinitesimal part ε₂",
             _infinitesimal_count("e2"), (Formula("C(n − 2, 2)", lambda n, s: comb(n - 2, 2)),)),
    Sequence("epsilon-3", "Infinitesimal part ε₃", "deals whose value has infinitesimal part ε₃",
             _infinitesimal_count("e3"), (Formula("C(n − 2, 3) − 1", lambda n, s: comb(n - 2, 3) - 1),)),
    Sequence("epsilon-top", "Infinitesimal part ε_⌈n/2⌉", "deals whose value has infinitesimal part ε_k, k = ⌈n/2⌉",
             lambda lv: _infinitesimal_count(f"e{(int(lv['n']) + 1) // 2}")(lv),
             (Formula("Catalan number C_(n − ⌈n/2⌉)", lambda n, s: _catalan(n - (n + 1) // 2)),)),
    Sequence("conjecture-12-2-checked", "Conjecture 12.2: deals checked",
             "deals on which `scan` checks Conjecture 12.2 (multi-suit paper)", _checked("conjecture_12_2"),
             (Formula("positive + negative infinitesimal values",
                      lambda n, s: s["positive-infinitesimal-values"][n] + s["negative-infinitesimal-values"][n]),)),
    Sequence("conjecture-12-3-checked", "Conjecture 12.3: deals checked",
             "deals on which `scan` checks Conjecture 12.3", _checked("conjecture_12_3"),
             (Formula("half-integer + other dyadic values",
                      lambda n, s: s["half-integer-values"][n] + s["dyadic-values"][n]),)),
    Sequence("conjecture-12-4-checked", "Conjecture 12.4: cases checked",
             "cases (a deal and a pair of cards) on which `scan` checks Conjecture 12.4",
             _checked("conjecture_12_4"),
             (Formula("4(n − 1)·C(2n − 2, n − 1)", lambda n, s: 4 * (n - 1) * comb(2 * n - 2, n - 1)),)),
    Sequence("theorem-8-10-checked", "Theorem 8.10: deals checked",
             "deals on which `scan` checks Theorem 8.10 (multi-suit paper)", _checked("theorem_8_10"),
             (Formula("C(2n, n)", lambda n, s: comb(2 * n, n)),)),
    Sequence("theorem-9-4-checked", "Theorem 9.4: cases checked",
             "cases on which `scan` checks Theorem 9.4 (single-suit paper)", _checked("theorem_9_4"),
             (Formula("4(n − 1)·C(2n − 2, n − 1)", lambda n, s: 4 * (n - 1) * comb(2 * n - 2, n - 1)),)),
    Sequence("single-suit-theorem-9-1-checked", "Two theories agree: deals checked",
             "deals on which `scan` checks that ρ(val(D)) equals the single-suit paper's Theorem 9.1",
             _checked("single_suit_theorem_9_1"), (Formula("C(2n, n)", lambda n, s: comb(2 * n, n)),)),
    Sequence("conjecture-12-4-labeled-counterexamples", "Labeled form of Conjecture 12.4: counterexamples",
             "cases where the stronger, labeled-value form of Conjecture 12.4 fails (not the paper's claim)",
             _counterexamples("conjecture_12_4_labeled")),
)


def read_levels(path: Path = SCAN_FILE) -> list[dict]:
    """The scan's per-level objects, by n ascending; n must run 1, 2, … without a gap."""
    with open(path, encoding="utf-8") as f:
        levels = sorted((json.loads(line) for line in f if line.strip()), key=lambda lv: lv["n"])
    if [lv["n"] for lv in levels] != list(range(1, len(levels) + 1)):
        raise ValueError(f"{path}: the levels must be n = 1, 2, … without a gap")
    return levels


def terms(levels: list[dict]) -> dict[str, dict[int, int]]:
    """Every sequence: name → {n: a(n)}."""
    return {s.name: {int(lv["n"]): s.term(lv) for lv in levels} for s in SEQUENCES}


def holds_from(formula: Formula, values: Mapping[str, dict[int, int]], name: str) -> int | None:
    """The least m such that the formula gives a(n) for every n from m to the last level; None if it fails there."""
    ns = sorted(values[name])
    start = None
    for n in reversed(ns):
        if formula.value(n, values) != values[name][n]:
            break
        start = n
    return start


def b_file(values: dict[int, int]) -> str:
    return "".join(f"{n} {a}\n" for n, a in sorted(values.items()))


def page(values: dict[str, dict[int, int]]) -> str:
    top = max(values["deals"])
    lines = [
        "# Integer sequences of single-suit whist",
        "",
        "Generated by `scripts/reports/sequences.py` from [data/scan.jsonl](data/scan.jsonl) (the per-level",
        f"statistics of `scan`, every deal with n ≤ {top}); regenerate with",
        "",
        "```",
        COMMAND,
        "```",
        "",
        "Each sequence is a b-file in [data/sequences/](data/sequences/): a line `n a(n)` for n = 1, 2, …, as the OEIS",
        "keeps them. A formula is listed with the range of n on which it was checked against the data — the",
        "script finds the longest run of levels, ending at the last one, on which the formula gives every term;",
        "before that range it fails (or is not defined). A formula naming another sequence is a relation between",
        "the two. These are observations from the data, not theorems, except where the papers prove them;",
        "[predictions-n18.md](predictions-n18.md) says what they predict for n = 18.",
        "",
        "| sequence | a(1), a(2), … | formula | checked for |",
        "| --- | --- | --- | --- |",
    ]
    for s in SEQUENCES:
        first = ", ".join(str(values[s.name][n]) for n in sorted(values[s.name])[:10])
        fits = []
        for f in s.formulas:
            start = holds_from(f, values, s.name)
            if start is not None:
                fits.append((f.text, f"{start} ≤ n ≤ {top}"))
        formula = "; ".join(t for t, _ in fits) or "none found"
        checked = "; ".join(r for _, r in fits) or "–"
        lines.append(f"| [{s.title}](data/sequences/{s.name}.txt) | {first}, … | {formula} | {checked} |")
    lines += ["", "## What each sequence counts", ""]
    for s in SEQUENCES:
        lines.append(f"* **{s.title}** (`{s.name}.txt`): {s.counts}.")
    lines += [
        "",
        "The counts `scan` checks the conjectures on come from its per-level report (`scan --json`, field `checks`);",
        "the theorems and conjectures are those of Wästlund's two papers, as [conjectures.md](conjectures.md) describes.",
        "",
    ]
    return "\n".join(lines)


def write(scan_file: Path, out_dir: Path, page_path: Path) -> dict[str, dict[int, int]]:
    values = terms(read_levels(scan_file))
    out_dir.mkdir(parents=True, exist_ok=True)
    for s in SEQUENCES:
        (out_dir / f"{s.name}.txt").write_text(b_file(values[s.name]), encoding="utf-8")
    page_path.write_text(page(values), encoding="utf-8")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scan", type=Path, default=SCAN_FILE, help="the scan's JSON Lines (default docs/data/scan.jsonl)")
    parser.add_argument("--out", type=Path, default=DOCS / "data" / "sequences", help="the b-files' folder")
    parser.add_argument("--page", type=Path, default=DOCS / "sequences.md", help="the Markdown page")
    args = parser.parse_args(argv)
    values = write(args.scan, args.out, args.page)
    print(f"wrote {len(values)} sequences to {args.out} and {args.page}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
