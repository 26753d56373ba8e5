"""``whist-catalogue solve GAME``: the solved matrix games of docs/spec.md §4 and §6.

``solve chemin-de-fer``, ``solve le-her --cards N`` and ``solve matrix FILE`` (a game of the
user's own: a grid, CSV or Gambit ``.nfg`` file, ``-`` for stdin): the
:class:`~whist_catalogue.games.solved_games.SolvedGame` of :func:`whist_catalogue.games.solved_games.solve`,
as its text by default and its JSON with ``--json``;
``--nfg OUT`` also writes the game in Gambit's strategic-form format.  With ``--db`` the solution stored in that catalogue is read (solved now if
it holds none).  Bad arguments become :class:`~whist_catalogue.errors.GameArgumentError`
in the registry, which the main command turns into one line and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
import difflib
from typing import TYPE_CHECKING, Any

from whist_catalogue.errors import GameArgumentError
from whist_catalogue.games import solved_games
from whist_catalogue.scripts.cli import EXIT_OK, add_command, emit, whole_number

if TYPE_CHECKING:
    from whist_catalogue.games.solved_games import SolvedGame

__all__ = ["register", "run"]

MATRIX = "matrix"
"""The game of the user's own: ``solve matrix FILE``."""


def register(subparsers: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    games = ", ".join(solved_games.GAMES)
    parser = add_command(
        subparsers, "solve", run, common,
        help=f"exact solution of a matrix game ({games}, or your own: {MATRIX} FILE)",
        description=f"Exact value and optimal strategies of a solved card game ({games}), or of any two-person "
        f"zero-sum game of your own ({MATRIX} FILE).",
    )
    parser.add_argument("game", metavar="GAME", help=f"one of: {games}, or {MATRIX} (a game of your own, in FILE)")
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
    parser.set_defaults(parameter_names=names)


def run(args: argparse.Namespace) -> int:
    params = {name: getattr(args, name) for name in args.parameter_names if getattr(args, name) is not None}
    if args.game == MATRIX:
        return _run_matrix(args, params)
    _known(args.game)
    if args.source is not None:
        raise GameArgumentError(f"{args.game} takes no FILE (only matrix does)")
    if args.nfg is not None:
        from whist_catalogue.games.strategic_form import write_nfg

        write_nfg(args.nfg, solved_games.strategic_form(args.game, **params))
    if args.db is None:
        return _show(args, solved_games.solve(args.game, **params))
    from whist_catalogue.store.reader import open_catalogue, stored_or_solved

    params = solved_games.validate(args.game, **params)  # bad arguments are reported before opening anything
    with open_catalogue(args.db) as catalogue:
        return _show(args, stored_or_solved(catalogue, args.game, **params))


def _known(name: str) -> None:
    """A game of the registry, or matrix: else the names there are, and the one meant if it is a slip."""
    names = (*solved_games.GAMES, MATRIX)
    if name not in names:
        close = difflib.get_close_matches(name, names, n=1)
        meant = f"did you mean {close[0]}? " if close else ""
        raise GameArgumentError(f"unknown game {name!r} ({meant}known: {', '.join(names)})")


def _show(args: argparse.Namespace, solution: SolvedGame) -> int:
    emit(solution, args.json)
    return EXIT_OK


def _run_matrix(args: argparse.Namespace, params: dict[str, Any]) -> int:
    from whist_catalogue.games.strategic_form import parse_grid, read_game, write_nfg

    if params:
        raise GameArgumentError(f"matrix takes no --{next(iter(params))}: the game is all in its FILE")
    if args.source is None:
        raise GameArgumentError("matrix needs the game: a grid, CSV or .nfg FILE, or - to read it from stdin")
    game = parse_grid(sys.stdin.read(), title="matrix game") if args.source == "-" else read_game(args.source)
    solution = solved_games.solve_strategic_form(game)
    if args.nfg is not None:
        write_nfg(args.nfg, game)
    return _show(args, solution)

