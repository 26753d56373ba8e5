"""The solved matrix games of docs/spec.md §6, as the command line, the catalogue and the app see them.

One registry, :data:`GAMES`; one entry point, :func:`solve`, returning the JSON
object of docs/spec.md §6: ``{"game", "value", "value_float", "player1", "player2", …}``
plus the fields each game adds.  Exact numbers are strings ``"p/q"`` (or ``"p"``);
a float appears only as an explicit companion whose key ends in ``_float``.
``value`` is always player 1's expected pay-off; the ``players`` field says who
player 1 and player 2 are and what their strategy keys mean.

* ``chemin-de-fer`` (``papers/chemin-de-fer.md``, :mod:`whist_catalogue.games.chemin_de_fer`);
* ``le-her`` with ``cards`` = N ≥ 3 (``papers/le-her.md``, :mod:`whist_catalogue.games.le_her`).

Any other two-person zero-sum game, the user's own, is solved by :func:`solve_strategic_form` into an object
of the same shape (``"game": "matrix"``); :func:`strategic_form` gives the registered games as matrix games
with named strategies, which :func:`whist_catalogue.games.strategic_form.to_nfg` writes for Gambit.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable

from whist_catalogue.errors import GameArgumentError

if TYPE_CHECKING:
    from whist_catalogue.games.strategic_form import StrategicForm

# The games (NumPy, and SciPy's LP solver) load only when a game is solved: the
# command line builds its parser from this registry on every run.

__all__ = [
    "Parameter",
    "Game",
    "GAMES",
    "game_names",
    "get_game",
    "validate",
    "solve",
    "strategic_form",
    "solve_strategic_form",
]


@dataclass(frozen=True, slots=True)
class Parameter:
    """An integer parameter of a game."""

    name: str
    help: str
    minimum: int
    maximum: int


@dataclass(frozen=True, slots=True)
class Game:
    """A solved game of the registry."""

    name: str
    """The name the command line and the catalogue use (``solve NAME``)."""
    title: str
    paper: str
    """The source paper, relative to the shared papers directory."""
    parameters: tuple[Parameter, ...]
    solver: Callable[..., dict[str, Any]]


def _q(x: Fraction | int) -> str:
    return str(Fraction(x))


def _strategy(probabilities: dict[Any, Fraction]) -> dict[str, str]:
    return {str(k): _q(p) for k, p in probabilities.items()}


# --- chemin-de-fer ---------------------------------------------------------------------------------


def _chemin_de_fer() -> dict[str, Any]:
    from whist_catalogue.games import chemin_de_fer
    from whist_catalogue.games.matrix_games import round_decimal

    solution = chemin_de_fer.solve()
    solution.certify()
    (j, l), draw = solution.mixed_cells[0]
    breakpoints = set(solution.breakpoints) | {Fraction(0), Fraction(1)}
    table3 = set(chemin_de_fer.FOSTER_TABLE_3)
    curve = []
    for h in sorted(breakpoints | table3):
        g = solution.G(h)
        curve.append(
            {"h": _q(h), "G": _q(g), "G_float": float(g), "breakpoint": h in breakpoints, "table3": h in table3}
        )
    return {
        "game": "chemin-de-fer",
        "title": GAMES["chemin-de-fer"].title,
        "paper": GAMES["chemin-de-fer"].paper,
        "parameters": {},
        "value": _q(solution.value),
        "value_float": float(solution.value),
        "players": {
            "player1": "the Banker B, maximiser; value = his expected gain per unit stake; "
            "a strategy is one of 'tables' (by name): draw (1) or stand (0) for his score j = 3–6 "
            "and A's third card l = 0–9, or l = 10 when A stood",
            "player2": "the player A, minimiser; his only choice is on an initial 5: 'call' or 'stand'",
        },
        "player1": {r.name: _q(p) for p, r in solution.banker_mixture},
        "player2": {"call": _q(solution.h), "stand": _q(1 - solution.h)},
        "h": _q(solution.h),
        "h_float": float(solution.h),
        "banker_mixed_cell": {"j": j, "l": l, "draw": _q(draw), "stand": _q(1 - draw)},
        "breakpoints": [_q(r.start) for r in solution.ranges[1:]],
        "curve": curve,
        "tables": [
            {
                "name": r.name,
                "foster_table": r.foster_number,
                "h_from": _q(r.start),
                "h_to": _q(r.end),
                "G_intercept": _q(r.line.intercept),
                "G_slope": _q(r.line.slope),
                "changed": [list(cell) for cell in r.changed],
                "decisions": r.table.to_json(),
            }
            for r in solution.ranges
        ],
        "table1": [_q(a) for a in chemin_de_fer.initial_score_probabilities()],
        "table3": [
            {"h": _q(h), "G_percent": round_decimal(solution.G(h) * 100, 3), "foster_percent": printed}
            for h, printed in chemin_de_fer.FOSTER_TABLE_3.items()
        ],
        "certified": True,
    }


# --- Le Her ----------------------------------------------------------------------------------------


def _root_json(lower: Fraction, upper: Fraction, floor: int, ceil: int, decimal: str, as_float: float) -> dict:
    return {"lower": _q(lower), "upper": _q(upper), "floor": floor, "ceil": ceil, "decimal": decimal, "float": as_float}


def _critical(probabilities: dict[int, Fraction]) -> dict[str, Any]:
    """Theorem 1's reading of a mixture of S_c and S_(c+1): always keep above c, keep c with some probability."""
    card = min(probabilities)
    return {"card": card, "keep": _q(probabilities[card])}


def _le_her(cards: int) -> dict[str, Any]:
    from whist_catalogue.games import le_her

    solution = le_her.solve(cards)
    solution.solution.certify()
    n = solution.n
    player1, player2 = solution.player1(), solution.player2()
    sub = solution.subgame
    out: dict[str, Any] = {
        "game": "le-her",
        "title": GAMES["le-her"].title,
        "paper": GAMES["le-her"].paper,
        "parameters": {"cards": n},
        "cards": n,
        "value": _q(solution.value),
        "value_float": float(solution.value),
        "players": {
            "player1": "Player 1 (moves first), maximiser; value = his probability of winning; "
            "strategy key s = keep exactly the cards ≥ s, swap the others",
            "player2": "Player 2, minimiser; strategy key t = after a keep by player 1, keep exactly the cards ≥ t",
        },
        "player1": _strategy(player1),
        "player2": _strategy(player2),
        "critical_cards": {"player1": _critical(player1), "player2": _critical(player2)},
        "matrix": {
            "rows": list(range(2, n + 1)),
            "columns": list(range(2, n + 1)),
            "entries": [[_q(a) for a in row] for row in solution.matrix],
        },
        "s_star": None,
        "t_star": None,
        "subgame": {
            "rows": list(sub.rows),
            "columns": list(sub.columns),
            "matrix": [[_q(a) for a in row] for row in sub.solution.matrix],
            "value": _q(sub.solution.value),
            "player1": _strategy(dict(zip(sub.rows, sub.solution.player1))),
            "player2": _strategy(dict(zip(sub.columns, sub.solution.player2))),
            "reason": sub.reason,
            "agrees": True,
        },
        "certified": True,
    }
    if solution.s_star is not None and solution.t_star is not None:
        root = solution.s_star.refine(Fraction(1, 10**15))
        out["s_star"] = {
            "cubic": list(le_her.phi_coefficients(n)),
            **_root_json(root.lower, root.upper, root.floor(), root.ceil(), root.decimal(12), float(root)),
        }
        t2 = solution.t_star
        low, high = t2.bracket(Fraction(1, 10**15))
        out["t_star"] = {
            "at_ceiling": t2.at_ceiling,
            "t_star_of_s_star_float": float(le_her.t_star(n, root.lower)),
            **_root_json(low, high, t2.floor(), t2.ceil(), t2.decimal(12), float(t2)),
        }
    return out


# --- the registry ----------------------------------------------------------------------------------


GAMES: dict[str, Game] = {
    "chemin-de-fer": Game(
        "chemin-de-fer", "Chemin-de-fer (Foster)", "papers/chemin-de-fer.md", (), _chemin_de_fer
    ),
    "le-her": Game(
        "le-her",
        "N-card Le Her (Benjamin and Goldman)",
        "papers/le-her.md",
        # le_her.MIN_CARDS and MAX_CARDS, written out so that the registry loads without NumPy (a test checks).
        (Parameter("cards", "the number N of cards, valued 1…N", 3, 200),),
        _le_her,
    ),
}
"""Every solved game, by name."""


def game_names() -> tuple[str, ...]:
    return tuple(GAMES)


def get_game(name: str) -> Game:
    """The game called ``name``; :class:`GameArgumentError` naming the known games if there is none."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise GameArgumentError(f"unknown game {name!r} (known: {', '.join(GAMES)})") from None


def validate(name: str, **params: object) -> dict[str, int]:
    """The parameters, checked: every one known, present, an integer, in range."""
    game = get_game(name)
    known = {p.name for p in game.parameters}
    for key in params:
        if key not in known:
            takes = ", ".join(sorted(known)) or "no parameters"
            raise GameArgumentError(f"{name}: unknown parameter {key!r} (takes {takes})")
    checked: dict[str, int] = {}
    for p in game.parameters:
        if p.name not in params or params[p.name] is None:
            raise GameArgumentError(f"{name}: missing parameter {p.name!r} ({p.help})")
        value = params[p.name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise GameArgumentError(f"{name}: {p.name} must be an integer, got {value!r}")
        if not p.minimum <= value <= p.maximum:
            raise GameArgumentError(f"{name}: {p.name} must be between {p.minimum} and {p.maximum}, got {value}")
        checked[p.name] = value
    return checked


def solve(name: str, **params: object) -> dict[str, Any]:
    """The solution of a game as the JSON object of docs/spec.md §6 (see the module docstring)."""
    game = get_game(name)
    return game.solver(**validate(name, **params))


# --- matrix games of the user's own, and the registered games as matrix games ----------------------


def strategic_form(name: str, **params: object) -> StrategicForm:
    """A registered game as a matrix game with named pure strategies (for ``.nfg`` files).

    Le Her is its (N − 1) × (N − 1) matrix a(s, t); chemin-de-fer is Foster's N × 2 game restricted to the
    Banker's strategies that differ only in the cells any optimal table changes (the others fixed as every
    range of h has them), which has the same value and the same optimal strategies."""
    from whist_catalogue.games.strategic_form import StrategicForm

    checked = validate(name, **params)
    title = GAMES[name].title
    if name == "le-her":
        from whist_catalogue.games import le_her

        n = checked["cards"]
        # Named s=… and t=… (keep exactly the cards ≥ s, ≥ t): Gambit cannot take labels "2", "3", … out of order.
        return StrategicForm(
            le_her.payoff_matrix(n),
            tuple(f"s={k}" for k in range(2, n + 1)),
            tuple(f"t={k}" for k in range(2, n + 1)),
            f"{title}, N = {n}",
            ("Player 1 (keeps ≥ s)", "Player 2 (keeps ≥ t)"),
        )
    from whist_catalogue.games import chemin_de_fer

    matrix, tables = chemin_de_fer.solve().reduced_matrix()
    cells = [(int(j), int(l)) for j, l in (c for c in chemin_de_fer.envelope().varying_situations() if isinstance(c, tuple))]
    rows = tuple(
        ", ".join(f"({j},{l}) {'draw' if table.draws(j, l) else 'stand'}" for j, l in cells) for table in tables
    )
    return StrategicForm(matrix, rows, ("stand on 5", "call on 5"), title, ("Banker", "Player A"))


def solve_strategic_form(game: StrategicForm) -> dict[str, Any]:
    """The exact, certified solution of a matrix game, as an object of the same shape as :func:`solve`'s."""
    from whist_catalogue.games.matrix_games import solve_matrix_game

    solution = solve_matrix_game(game.matrix)
    solution.certify()
    return {
        "game": "matrix",
        "title": game.title,
        "value": _q(solution.value),
        "value_float": float(solution.value),
        "players": {"player1": f"{game.players[0]}, rows, maximiser", "player2": f"{game.players[1]}, columns, minimiser"},
        "player1": {game.rows[i]: _q(p) for i, p in enumerate(solution.player1) if p},
        "player2": {game.columns[j]: _q(p) for j, p in enumerate(solution.player2) if p},
        "matrix": {
            "rows": list(game.rows),
            "columns": list(game.columns),
            "entries": [[_q(a) for a in row] for row in game.matrix],
        },
        "guarantees": {
            "player1": _q(solution.row_guarantee()),
            "player2": _q(solution.column_guarantee()),
        },
        "certified": True,
    }
