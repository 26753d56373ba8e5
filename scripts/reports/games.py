"""Write ``docs/matrix-games.md``: the exact results for chemin-de-fer and N-card Le Her.

Usage: ``python -m whist_catalogue.scripts.reports.games [--output PATH] [--max-cards N]``.
Everything printed comes from :func:`whist_catalogue.games.solved_games.solve`'s JSON (each
solution certified exactly as it is built); this script only lays it out.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from pathlib import Path
from typing import Any, Sequence

from whist_catalogue.games import solved_games
from whist_catalogue.scripts.reports import DOCS

COMMAND = ".venv/bin/python -m whist_catalogue.scripts.reports.games"
DEFAULT_OUTPUT = DOCS / "matrix-games.md"


def _f(exact: str, digits: int = 6) -> str:
    return f"{float(Fraction(exact)):.{digits}f}"


def _mixture(strategy: dict[str, str]) -> str:
    return ", ".join(f"{k}: {p}" for k, p in strategy.items())


def chemin_de_fer_section(s: dict[str, Any]) -> list[str]:
    cell = s["banker_mixed_cell"]
    value_percent = float(Fraction(s["value"])) * 100
    out = [
        "## Chemin-de-fer (Foster)",
        "",
        "Model of `papers/chemin-de-fer.md` §4–6: six packs; each initial score from two cards drawn without",
        "replacement; third cards with replacement; player A calls on 5 with frequency h. Player 1 is the",
        "Banker B (maximiser), player 2 is A. G(h) is the Banker's best-reply gain **per unit stake**",
        "(Foster's Table 3 and Fig. 3 are per cent).",
        "",
        "### Minimax solution",
        "",
        "| | exact | decimal | Foster (read off Fig. 3) |",
        "| --- | --- | --- | --- |",
        f"| h* (A calls on 5) | {s['h']} | {_f(s['h'])} | about 0.8 |",
        f"| value (Banker's gain per unit stake) | {s['value']} | {value_percent:.6f} % | about 1.29 % |",
        f"| Banker randomises cell (j, l) | ({cell['j']}, {cell['l']}) | | (6, 10) |",
        f"| … standing with probability | {cell['stand']} | {_f(cell['stand'])} | 0.6 |",
        f"| … drawing with probability | {cell['draw']} | {_f(cell['draw'])} | 0.4 |",
        "",
        f"The Banker's optimal mixed strategy: {_mixture(s['player1'])} (the tables below).",
        f"Player A: {_mixture(s['player2'])}.",
        "",
        "### Table 3: G(h) in per cent",
        "",
        "| h | G(h) exact (per unit stake) | G(h) % | to 3 decimals | Foster |",
        "| --- | --- | --- | --- | --- |",
    ]
    exact = {p["h"]: p["G"] for p in s["curve"]}
    for row in s["table3"]:
        g = exact[row["h"]]
        mark = "" if row["G_percent"] == row["foster_percent"] else " ✗"
        percent = float(Fraction(g)) * 100
        out.append(
            f"| {_f(row['h'], 3)} | {g} | {percent:.6f} | {row['G_percent']} | {row['foster_percent']}{mark} |"
        )
    out += [
        "",
        "### Tables 4–7: the Banker's best reply on each range of h",
        "",
        "Rows j = 3–6 (Banker's score), columns l = 0–9 (A's third card) and 10 (A stood); 1 = draw.",
        "",
        "| table | h from | h to | G(h) on the range | changed cell |",
        "| --- | --- | --- | --- | --- |",
    ]
    for t in s["tables"]:
        changed = ", ".join(f"({j}, {l})" for j, l in t["changed"]) or "—"
        out.append(
            f"| {t['foster_table']} | {t['h_from']} ≈ {_f(t['h_from'], 4)} | {t['h_to']} ≈ {_f(t['h_to'], 4)} "
            f"| {t['G_intercept']} + ({t['G_slope']}) h | {changed} |"
        )
    for t in s["tables"]:
        out += ["", f"Table {t['foster_table']}:", "", "```", "j\\l " + " ".join(f"{l:>2}" for l in range(11))]
        out += [f"{j:>3} " + " ".join(f"{d:>2}" for d in row) for j, row in t["decisions"].items()]
        out.append("```")
    out += [
        "",
        "### Where the exact solution differs from Foster's reading",
        "",
        f"- The first breakpoint is at h = {s['breakpoints'][0]} ≈ {_f(s['breakpoints'][0], 4)}, where cell (3, 9)",
        "  changes; Foster gives Table 4 for 0 ≤ h ≤ 0.5 and calls G a straight line there, but his own Table 3",
        "  values at h = 0, 0.25, 0.5 are not collinear (slopes −0.344 and −0.320). His nine sample points are all",
        "  reproduced to his three decimals, and each lies in the range of the table he printed for it.",
        f"- The minimum is at h* = {s['h']} ≈ {_f(s['h'], 4)}, not at his sample h = 0.8; the value there is",
        f"  {value_percent:.4f} %, below his G(0.8) = 1.287 % (his \"about 1.29 %\").",
        "",
    ]
    return out


def le_her_section(solutions: Sequence[dict[str, Any]]) -> list[str]:
    out = [
        "## N-card Le Her (Benjamin–Goldman)",
        "",
        "Player 1 (maximiser) keeps exactly the cards ≥ s; player 2, after a keep, keeps exactly the cards ≥ t.",
        "The value is player 1's probability of winning. The matrix a(s, t) is computed by enumerating every",
        "deal (X, Y, Z) and equals Lemmas 1–2 entry by entry. The strategies shown are the paper's subgame",
        "(Theorem 2 for N ≥ 7; the reductions after (13) for N ≤ 6), padded with zeros and certified exactly",
        "on the whole (N − 1)×(N − 1) matrix; the value agrees with the general solver's.",
        "",
        "| N | value | ≈ | player 1 (s: prob.) | player 2 (t: prob.) | s* | t** | subgame rows × columns | agrees |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for s in solutions:
        sub = s["subgame"]
        s_star = s["s_star"]["decimal"][: s["s_star"]["decimal"].index(".") + 7] if s["s_star"] else "—"
        t_star = s["t_star"]["decimal"][: s["t_star"]["decimal"].index(".") + 7] if s["t_star"] else "—"
        if s["t_star"] and s["t_star"]["at_ceiling"]:
            t_star += " (= ⌈s*⌉)"
        out.append(
            f"| {s['cards']} | {s['value']} | {_f(s['value'])} | {_mixture(s['player1'])} | {_mixture(s['player2'])} "
            f"| {s_star} | {t_star} | {sub['rows']} × {sub['columns']} | {'yes' if sub['agrees'] else 'NO'} |"
        )
    out += [
        "",
        "s* is the real root of φ(s) = 6s³ + (6N − 39)s² + (6N² − 60N + 135)s − (6N³ − 21N² − 28N + 110) (13);",
        "t** = max(t*(s*), ⌈s*⌉) with t*(s) = (N + 2)/2 + (s − 1)(s − 2)/2(N − 2) (12). Both are irrational here,",
        "given truncated to 6 decimals; the JSON carries an exact isolating interval.",
        "",
        "### Notes on the paper",
        "",
        "- The discriminant of φ′ is −36(8N² − 68N + 101); the paper prints 110. Either is negative for N ≥ 7.",
        "- For N = 6 the paper says column 6 of the 2×3 subgame coincides with column 5; it is (7/12, 17/30)",
        "  against (67/120, 17/30): dominated, not equal, so the reduction to 2×2 stands.",
        "- For N = 7, t*(s*) < ⌈s*⌉, so t** = ⌈s*⌉ = 6 and Theorem 2's subgame is 2×1.",
        "- Optimal strategies are not always unique (e.g. N = 17, 37: the general solver finds other optimal",
        "  strategies with the same value).",
        "",
    ]
    return out


MATRIX_SECTION = [
    '## A matrix game of your own',
    '',
    'Any two-person zero-sum game is solved the same way as the two above — exactly, by',
    "`whist_catalogue.games.matrix_games.solve_matrix_game`, and certified: each player's strategy is checked",
    'against every pure reply of the other. Entry (i, j) is what player 2 pays player 1 when player 1 plays row i',
    '(and maximises) and player 2 column j (and minimises).',
    '',
    "    whist-catalogue solve matrix game.csv            # a grid or CSV file of player 1's pay-offs",
    '    whist-catalogue solve matrix game.nfg --json     # a Gambit strategic-form file',
    "    printf '3 -1\\n-2 1\\n' | whist-catalogue solve matrix -",
    '    whist-catalogue solve le-her --cards 13 --nfg le-her-13.nfg      # save a solved game for Gambit',
    '    whist-catalogue solve chemin-de-fer --nfg chemin-de-fer.nfg',
    '',
    '```console',
    "$ printf ',L,R\\nT,3,-1\\nB,-2,1\\n' > game.csv && whist-catalogue solve matrix game.csv",
    'game: 2 × 2, exact solution (certified against every pure reply)',
    'value (to player 1, rows): 1/7 ≈ 0.142857',
    'player 1 (rows) plays: T with probability 3/7, B with probability 4/7',
    'player 2 (columns) plays: L with probability 2/7, R with probability 5/7',
    '     L  R',
    '  T  3 -1',
    '  B -2  1',
    '```',
    '',
    '* **Grids and CSV**: a row a line (or rows separated by `;`), entries separated by commas, tabs or spaces;',
    '  integers, fractions `p/q` or decimals (`0.25` is read as exactly 1/4). A first row and a first column of',
    '  names are optional. A ragged grid, an entry that is not a number, or two strategies of the same name is',
    '  one error naming the row and column, exit status 2.',
    '* **Gambit `.nfg`** (`catalogue/games/strategic_form.py`): the pay-off and the outcome versions of',
    "  Gambit's strategic-form format, two players; the pay-offs must sum to the same constant in every cell",
    "  (zero-sum, or constant-sum as Le Her's probabilities of winning are). An extensive-form `.efg` file or",
    '  another format is refused with a line saying what is read.',
    '* **Saving**: `--nfg OUT` writes any game (yours, Le Her, chemin-de-fer) in the pay-off version, player 2',
    "  paid what player 1 loses; names are written as Gambit's labels must be, in printable ASCII (`≥` as `>=`).",
    "  Le Her is its (N − 1) × (N − 1) matrix a(s, t), strategies `s=2` … and `t=2` …; chemin-de-fer is Foster's",
    '  N × 2 game over the 8 Banker strategies that differ in the three cells any optimal table changes',
    '  ((3, 9), (4, 1), (6, 10)), against stand and call on 5 — the same value, 389724220/30386933291, and',
    '  the same h* = 575/704.',
    '* **In the app**: Solutions › *Your game* — type into the grid, paste one copied from a spreadsheet',
    '  (Ctrl+V), or open a file; *Save as .nfg…* there and on the chemin-de-fer and Le Her pages.',
    '* **Checked against Gambit**: `tests/test_strategic_form.py` solves 40 random games, Le Her for',
    "  N = 3, 4, 7, 13 and chemin-de-fer with Gambit's own exact linear program (`pygambit`), reading the",
    "  `.nfg` files this project writes: the values agree exactly, and Gambit's optimal strategies pass this",
    "  project's certificate as this project's pass Gambit's value.",
    '',
    'The JSON of `solve matrix` has `game: "matrix"`, `title`, `value`, `value_float`, `players`, `player1` and',
    '`player2` (the strategies played with positive probability, by name), `matrix` = `{rows, columns, entries}`,',
    '`guarantees` (what each strategy guarantees against every pure reply: both equal the value) and `certified`.',
    '',
]


JSON_SECTION = [
    "## The JSON objects",
    "",
    "`whist_catalogue.games.solved_games.solve(name, **params).to_json()` (what `whist-catalogue solve … --json`",
    "prints) is [spec.md §6](spec.md)'s object; `SolvedGame.from_json` reads it back.",
    "Exact numbers are strings `\"p/q\"` or `\"p\"`; floats only under keys ending in `_float` (and `float`).",
    "`value` is always player 1's expected pay-off; `players` says who each player is.",
    "",
    "- Both games: `game`, `title`, `paper`, `parameters`, `value`, `value_float`, `players`, `player1`, `player2`,",
    "  `certified`.",
    "- `chemin-de-fer`: player 1 = the Banker, keys of `player1` = names of entries of `tables`; player 2 = A,",
    "  keys `call` / `stand` (on 5). `h` (+ `h_float`); `banker_mixed_cell` `{j, l, draw, stand}`;",
    "  `breakpoints`; `curve` = `[{h, G, G_float, breakpoint, table3}]` with G per unit stake, at every breakpoint,",
    "  both ends and each h of Table 3; `tables` = `[{name, foster_table, h_from, h_to, G_intercept, G_slope,",
    "  changed, decisions}]` with `decisions` = `{\"3\": [11 × 0/1 for l = 0…10], …, \"6\": […]}`; `table1` (a_0…a_9);",
    "  `table3` = `[{h, G_percent, foster_percent}]`.",
    "- `le-her`: `cards`; keys of `player1` / `player2` = critical cards s / t (keep exactly the cards ≥ key);",
    "  `critical_cards` (Theorem 1's reading: the lowest card played and the probability of keeping it);",
    "  `matrix` = `{rows, columns, entries}` (a(s, t), rows s = 2…N, columns t = 2…N); `s_star` = `{cubic, lower,",
    "  upper, floor, ceil, decimal, float}` (φ's coefficients, highest first, and an isolating interval) and",
    "  `t_star` (t**, same fields without `cubic`, plus `at_ceiling`, `t_star_of_s_star_float`), both `null` for",
    "  N ≤ 6; `subgame` = `{rows, columns, matrix, value, player1, player2, reason, agrees}`.",
    "",
]


def build(max_cards: int) -> str:
    chemin = solved_games.solve("chemin-de-fer").to_json()
    le_her = [solved_games.solve("le-her", cards=n).to_json() for n in range(3, max_cards + 1)]
    lines = [
        "# Solved matrix games: exact results",
        "",
        f"Generated by `{COMMAND}`{'' if max_cards == 52 else f' --max-cards {max_cards}'}; do not edit by hand.",
        "Every number is exact (a reduced fraction) unless marked ≈ or given as a decimal; every solution is",
        "certified exactly: each player's strategy guarantees the value against every pure reply.",
        "The same objects are printed by `whist-catalogue solve chemin-de-fer --json` and",
        "`whist-catalogue solve le-her --cards N --json`.",
        "",
    ]
    lines += chemin_de_fer_section(chemin)
    lines += le_her_section(le_her)
    lines += MATRIX_SECTION
    lines += JSON_SECTION
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make_games_report", description=(__doc__ or "").partition("\n")[0])
    parser.add_argument(
        "--output", type=Path, default=DEFAULT_OUTPUT, help="where to write (default: docs/matrix-games.md)"
    )
    parser.add_argument("--max-cards", type=int, default=52, help="Le Her for N = 3 … this (default 52)")
    args = parser.parse_args(argv)
    if args.max_cards < 3:
        parser.error(f"--max-cards must be at least 3, got {args.max_cards}")
    args.output.write_text(build(args.max_cards), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
