"""``whist-catalogue solve GAME``: the solved matrix games of docs/spec.md §4 and §6.

``solve chemin-de-fer``, ``solve le-her --cards N`` and ``solve matrix FILE`` (a game of the
user's own: a grid, CSV or Gambit ``.nfg`` file, ``-`` for stdin); human-readable text by default,
the solution object of :func:`whist_catalogue.games.solved_games.solve` with ``--json``;
``--nfg OUT`` also writes the game in Gambit's strategic-form format.  With ``--db`` the solution stored in that catalogue is read (solved now if
it holds none).  Bad arguments become :class:`~whist_catalogue.errors.GameArgumentError`
in the registry, which the main command turns into one line and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from whist_catalogue.errors import GameArgumentError
from whist_catalogue.games import solved_games
from whist_catalogue.scripts.cli import EXIT_OK, emit_json, whole_number

if TYPE_CHECKING:
    from whist_catalogue.games.strategic_form import StrategicForm

__all__ = ["register", "run", "render"]

_MATRIX_PRINT_LIMIT = 10
"""Print the whole Le Her matrix only up to this many cards."""


def register(subparsers: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    games = ", ".join(solved_games.game_names())
    parser = subparsers.add_parser(
        "solve",
        parents=[common],
        help="exact solution of a matrix game (chemin-de-fer, le-her, or your own: matrix FILE)",
        description=f"Exact value and optimal strategies of a solved card game. Games: {games}.",
    )
    parser.add_argument("game", metavar="GAME", help=f"one of: {games}, or matrix (a game of your own)")
    parser.add_argument(
        "source",
        metavar="FILE",
        nargs="?",
        help="matrix: the game — a grid or CSV file of player 1's pay-offs (rows maximise, columns minimise; "
        "names in a first row and column allowed) or a Gambit .nfg file; - reads it from stdin",
    )
    parser.add_argument("--nfg", metavar="OUT", help="also write the game as a Gambit strategic-form file (.nfg)")
    names = sorted({p.name for game in solved_games.GAMES.values() for p in game.parameters})
    for name in names:
        helps = [f"{g.name}: {p.help}" for g in solved_games.GAMES.values() for p in g.parameters if p.name == name]
        parser.add_argument(f"--{name}", type=whole_number, metavar="N", help="; ".join(helps))
    parser.set_defaults(func=run, parameter_names=names)


def run(args: argparse.Namespace) -> int:
    params = {name: getattr(args, name) for name in args.parameter_names if getattr(args, name) is not None}
    if args.game == "matrix":
        return _run_matrix(args, params)
    if args.source is not None:
        raise GameArgumentError(f"{args.game} takes no FILE (only matrix does)")
    if args.nfg is not None:
        _write_nfg(args.nfg, solved_games.strategic_form(args.game, **params))
    solution = None
    if args.db is not None:
        # With --db, the solution the catalogue stored (build stores both games); solved now if it holds none.
        from whist_catalogue.store.reader import open_catalogue

        params = solved_games.validate(args.game, **params)  # bad arguments are reported before opening anything
        with open_catalogue(args.db) as catalogue:
            solution = catalogue.solved_game(args.game, **params)
    if solution is None:
        solution = solved_games.solve(args.game, **params)
    if args.json:
        emit_json(solution)
    else:
        print(render(solution))
    return EXIT_OK


def _run_matrix(args: argparse.Namespace, params: dict[str, Any]) -> int:
    from whist_catalogue.games.strategic_form import parse_grid, read_game

    if params:
        raise GameArgumentError(f"matrix takes no --{next(iter(params))}: the game is all in its FILE")
    if args.source is None:
        raise GameArgumentError("matrix needs the game: a grid, CSV or .nfg FILE, or - to read it from stdin")
    game = parse_grid(sys.stdin.read(), title="matrix game") if args.source == "-" else read_game(args.source)
    solution = solved_games.solve_strategic_form(game)
    if args.nfg is not None:
        _write_nfg(args.nfg, game)
    if args.json:
        emit_json(solution)
    else:
        print(render(solution))
    return EXIT_OK


def _write_nfg(path: str, game: StrategicForm) -> None:
    from whist_catalogue.games.strategic_form import to_nfg

    # Written whole and then renamed: a failed write leaves no half file, and a file of the same name intact.
    target = Path(path)
    partial = target.with_name(target.name + ".partial")
    try:
        partial.write_text(to_nfg(game, comment="written by whist-catalogue"), encoding="utf-8")
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)


# --- text ------------------------------------------------------------------------------------------


def _approx(exact: str, digits: int = 6) -> str:
    q = Fraction(exact)
    return exact if q.denominator == 1 else f"{exact} ≈ {float(q):.{digits}f}"


def render(solution: dict[str, Any]) -> str:
    """The solution object as text for a terminal."""
    if solution["game"] == "chemin-de-fer":
        return _render_chemin_de_fer(solution)
    if solution["game"] == "matrix":
        return _render_matrix(solution)
    return _render_le_her(solution)


def _mixture(strategy: dict[str, str]) -> str:
    """A mixed strategy as text: ``T with probability 3/7, B with probability 4/7``."""
    return ", ".join(f"{name} with probability {p}" for name, p in strategy.items())


def _render_matrix(s: dict[str, Any]) -> str:
    matrix = s["matrix"]
    lines = [
        f"{s['title']}: {len(matrix['rows'])} × {len(matrix['columns'])}, exact solution (certified against every pure reply)",
        f"value (to player 1, rows): {_approx(s['value'])}",
        f"player 1 plays {_mixture(s['player1'])}",
        f"player 2 plays {_mixture(s['player2'])}",
    ]
    if len(matrix["rows"]) <= _MATRIX_PRINT_LIMIT and len(matrix["columns"]) <= _MATRIX_PRINT_LIMIT:
        names = [str(r) for r in matrix["rows"]]
        left = max(len(name) for name in names)
        width = max(len(str(e)) for row in matrix["entries"] + [matrix["columns"]] for e in row)
        lines.append(" " * (left + 2) + " ".join(f"{c:>{width}}" for c in matrix["columns"]))
        for name, row in zip(names, matrix["entries"]):
            lines.append(f"  {name:>{left}} " + " ".join(f"{e:>{width}}" for e in row))
    return "\n".join(lines)


def _render_chemin_de_fer(s: dict[str, Any]) -> str:
    cell = s["banker_mixed_cell"]
    percent = float(Fraction(s["value"])) * 100
    lines = [
        f"{s['title']} — exact minimax solution",
        f"value (Banker's expected gain per unit stake): {_approx(s['value'], 8)}  ({percent:.4f} %)",
        f"player A calls on 5 with frequency h* = {_approx(s['h'])}",
        f"the Banker plays {' and '.join(f'{name} with probability {p}' for name, p in s['player1'].items())},",
        f"  i.e. randomises cell (j={cell['j']}, l={cell['l']}): draw {_approx(cell['draw'])}, stand {cell['stand']}",
        "breakpoints of G(h): " + ", ".join(_approx(h) for h in s["breakpoints"]),
        "",
        "Table 3: G(h) in per cent",
        f"  {'h':>6}  {'exact':>7}  {'Foster':>7}",
    ]
    lines += [f"  {float(Fraction(r['h'])):>6.3f}  {r['G_percent']:>7}  {r['foster_percent']:>7}" for r in s["table3"]]
    lines.append("")
    for table in s["tables"]:
        changed = ", ".join(f"({j}, {l})" for j, l in table["changed"]) or "—"
        h_range = f"{_approx(table['h_from'], 4)} ≤ h ≤ {_approx(table['h_to'], 4)}"
        lines.append(f"{table['name']}: {h_range}; changed cells: {changed}")
        lines.append("  j\\l " + " ".join(f"{l:>2}" for l in range(11)))
        lines += [f"  {j:>3} " + " ".join(f"{d:>2}" for d in row) for j, row in table["decisions"].items()]
    return "\n".join(lines)


def _render_le_her(s: dict[str, Any]) -> str:
    sub = s["subgame"]
    lines = [
        f"{s['title']}, N = {s['cards']}",
        f"value (player 1's probability of winning): {_approx(s['value'])}",
        f"player 1 keeps exactly the cards ≥ s: s = {_mixture(s['player1'])}",
        f"player 2, after a keep, keeps exactly the cards ≥ t: t = {_mixture(s['player2'])}",
    ]
    if s["s_star"] is not None:
        lines.append(f"s* = {s['s_star']['decimal']}… (real root of φ), t** = {s['t_star']['decimal']}…")
    lines.append(
        f"subgame ({sub['reason']}): rows s ∈ {sub['rows']}, columns t ∈ {sub['columns']}, value {sub['value']}"
        + (" — agrees with the whole game" if sub["agrees"] else "")
    )
    if s["cards"] <= _MATRIX_PRINT_LIMIT:
        matrix = s["matrix"]
        width = max(len(e) for row in matrix["entries"] for e in row)
        lines.append("a(s, t), rows s, columns t:")
        lines.append("  s\\t " + " ".join(f"{t:>{width}}" for t in matrix["columns"]))
        for srow, row in zip(matrix["rows"], matrix["entries"]):
            lines.append(f"  {srow:>3} " + " ".join(f"{e:>{width}}" for e in row))
    return "\n".join(lines)
