"""The solved matrix games of docs/spec.md §6, as the command line, the catalogue and the app see them.

One registry, :data:`GAMES`; one entry point, :func:`solve`, returning a :class:`SolvedGame` —
:class:`CheminDeFer`, :class:`LeHer` — rendered once for every interface: its JSON (:meth:`~SolvedGame.to_json`,
the object of docs/spec.md §6: ``{"game", "value", "value_float", "player1", "player2", …}`` plus the fields
each game adds, which the catalogue stores and :meth:`~SolvedGame.from_json` reads back), its summary rows and
its text (the command line) and HTML (the app, a notebook).  In JSON exact numbers are strings ``"p/q"`` (or
``"p"``); a float appears only as an explicit companion whose key ends in ``_float``.  ``value`` is always
player 1's expected pay-off; ``players`` says who player 1 and player 2 are and what their strategies' names
mean.

* ``chemin-de-fer`` (``papers/chemin-de-fer.md``, :mod:`whist_catalogue.games.chemin_de_fer`);
* ``le-her`` with ``cards`` = N ≥ 3 (``papers/le-her.md``, :mod:`whist_catalogue.games.le_her`).

Any other two-person zero-sum game, the user's own, is solved by :func:`solve_strategic_form` into a
:class:`MatrixGame` (``"game": "matrix"``); :func:`strategic_form` gives the registered games as matrix games
with named strategies, which :func:`whist_catalogue.games.strategic_form.to_nfg` writes for Gambit.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from html import escape
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Sequence

from whist_catalogue.errors import GameArgumentError

if TYPE_CHECKING:
    from whist_catalogue.games.strategic_form import StrategicForm

# The games (NumPy, and SciPy's LP solver) load only when a game is solved: the
# command line builds its parser from this registry on every run.

__all__ = [
    "SolvedGame",
    "CheminDeFer",
    "LeHer",
    "MatrixGame",
    "BankerTable",
    "Subgame",
    "Root",
    "approx",
    "Parameter",
    "Game",
    "GAMES",
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
    solver: Callable[..., SolvedGame]


Mixture = tuple[tuple[str, Fraction], ...]
"""A mixed strategy: each pure strategy used, by name, with its probability (in the order the game lists them)."""


def approx(q: Fraction, digits: int = 6) -> str:
    """An exact number for people: ``575/704 ≈ 0.816761``, or an integer alone."""
    return str(q) if q.denominator == 1 else f"{q} ≈ {float(q):.{digits}f}"


def _q(x: Fraction | int) -> str:
    return str(Fraction(x))


def _mixture(strategy: dict[str, Any]) -> Mixture:
    return tuple((str(k), Fraction(p)) for k, p in strategy.items())


def _said(strategy: Mixture, letter: str = "", joined: str = ", ") -> str:
    """``s = 8 with probability 6/7, s = 9 with probability 1/7``."""
    return joined.join(f"{letter}{name} with probability {p}" for name, p in strategy)


def _grid(corner: str, columns: Sequence[object], rows: Sequence[tuple[object, Sequence[object]]]) -> list[str]:
    """A small matrix as text: the column names over right-aligned entries, each row after its name."""
    left = max(len(corner), *(len(str(name)) for name, _ in rows))
    width = max(len(str(e)) for e in [*columns, *(e for _, row in rows for e in row)])
    return [f"  {corner:>{left}} " + " ".join(f"{c!s:>{width}}" for c in columns),
            *(f"  {name!s:>{left}} " + " ".join(f"{e!s:>{width}}" for e in row) for name, row in rows)]


_MATRIX_PRINT_LIMIT = 10
"""The command line prints a game's whole matrix only up to this many strategies a player."""


@dataclass(frozen=True, slots=True)
class SolvedGame:
    """A certified solution (docs/spec.md §6): the value to player 1 and both players' optimal mixed strategies.

    Rendered once, for every interface: :meth:`to_json` is the JSON object of docs/spec.md §6 (what ``solve
    --json`` prints and the catalogue stores; :meth:`from_json` reads it back), :meth:`summary` the rows that
    the command line's :meth:`text` and the app's :meth:`html` both show. Each game adds its own fields."""

    game: ClassVar[str]
    title: str
    value: Fraction
    players: tuple[str, str]
    """Who player 1 and player 2 are, and what their strategies' names mean."""
    player1: Mixture
    player2: Mixture

    @staticmethod
    def from_json(obj: dict[str, Any]) -> SolvedGame:
        """The solution a JSON object of :meth:`to_json` describes (a catalogue's stored game)."""
        kinds: dict[str, type[SolvedGame]] = {k.game: k for k in (CheminDeFer, LeHer, MatrixGame)}
        kind = kinds.get(str(obj.get("game"))) if isinstance(obj, dict) else None
        if kind is None:
            raise GameArgumentError(f"not a solved game: {str(obj)[:60]!r}")
        common = {"title": obj["title"], "value": Fraction(obj["value"]),
                  "players": (obj["players"]["player1"], obj["players"]["player2"]),
                  "player1": _mixture(obj["player1"]), "player2": _mixture(obj["player2"])}
        return kind._read(obj, common)

    @classmethod
    def _read(cls, obj: dict[str, Any], common: dict[str, Any]) -> SolvedGame:
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "title": self.title, **self._heading(), "value": _q(self.value),
                "value_float": float(self.value), "players": {"player1": self.players[0], "player2": self.players[1]},
                "player1": {k: _q(p) for k, p in self.player1}, "player2": {k: _q(p) for k, p in self.player2},
                **self._own_json(), "certified": True}

    def _heading(self) -> dict[str, Any]:
        """The registered games' name of the paper and parameters, which follow the title."""
        return {"paper": GAMES[self.game].paper, "parameters": {}}

    def _own_json(self) -> dict[str, Any]:
        raise NotImplementedError

    def headline(self) -> str:
        raise NotImplementedError

    def summary(self) -> tuple[tuple[str, str], ...]:
        """(what, how much) rows: the value and the optimal strategies, as people read them."""
        raise NotImplementedError

    def details(self) -> list[str]:
        """What the command line prints below the summary: the game's tables (the app shows them as grids)."""
        return []

    def text(self) -> str:
        return "\n".join([self.headline(), *(f"{what}: {shown}" for what, shown in self.summary()), *self.details()])

    def html(self) -> str:
        """:meth:`text`'s headline and summary for a rich-text label (the app) or a notebook."""
        rows = (f"{escape(what[:1].upper() + what[1:], False)}: <b>{escape(shown, False)}</b>"
                for what, shown in self.summary())
        return "<br>".join([f"<b>{escape(self.headline(), False)}</b>", *rows])

    _repr_html_ = html


# --- chemin-de-fer ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BankerTable:
    """The Banker's best pure reply on one range of h: draw (1) or stand (0) for each score j and third card l."""

    name: str
    foster_table: int | None
    h_from: Fraction
    h_to: Fraction
    intercept: Fraction
    slope: Fraction
    """G(h) = intercept + slope · h on the range, per unit stake."""
    changed: tuple[tuple[int, int], ...]
    """The cells (j, l) that differ from the previous range's table (Foster's ringed numbers)."""
    decisions: tuple[tuple[int, tuple[int, ...]], ...]
    """(j, the decisions for l = 0 … 9 and 10, the player stood) for j = 3 … 6."""

    @property
    def title(self) -> str:
        return f"Table {self.foster_table}" if self.foster_table is not None else self.name


@dataclass(frozen=True, slots=True)
class CheminDeFer(SolvedGame):
    """Foster's chemin-de-fer: the player A calls on 5 with frequency h; the Banker's gain G(h) and tables."""

    game: ClassVar[str] = "chemin-de-fer"
    h: Fraction
    mixed_cell: tuple[int, int, Fraction]
    """(j, l, the probability of drawing) of the one cell the optimal Banker randomises."""
    breakpoints: tuple[Fraction, ...]
    curve: tuple[tuple[Fraction, Fraction, bool, bool], ...]
    """(h, G(h), a breakpoint, a row of Foster's Table 3) for each h of either kind, and 0 and 1."""
    tables: tuple[BankerTable, ...]
    table1: tuple[Fraction, ...]
    table3: tuple[tuple[Fraction, str, str], ...]
    """(h, G(h) in per cent to three decimals, as Foster printed it)."""

    @classmethod
    def _read(cls, obj: dict[str, Any], common: dict[str, Any]) -> CheminDeFer:
        cell = obj["banker_mixed_cell"]
        return cls(
            **common, h=Fraction(obj["h"]), mixed_cell=(cell["j"], cell["l"], Fraction(cell["draw"])),
            breakpoints=tuple(map(Fraction, obj["breakpoints"])),
            curve=tuple((Fraction(p["h"]), Fraction(p["G"]), p["breakpoint"], p["table3"]) for p in obj["curve"]),
            tables=tuple(BankerTable(t["name"], t["foster_table"], Fraction(t["h_from"]), Fraction(t["h_to"]),
                                     Fraction(t["G_intercept"]), Fraction(t["G_slope"]),
                                     tuple((j, l) for j, l in t["changed"]),
                                     tuple((int(j), tuple(row)) for j, row in t["decisions"].items()))
                         for t in obj["tables"]),
            table1=tuple(map(Fraction, obj["table1"])),
            table3=tuple((Fraction(r["h"]), r["G_percent"], r["foster_percent"]) for r in obj["table3"]),
        )

    def _own_json(self) -> dict[str, Any]:
        j, l, draw = self.mixed_cell
        return {
            "h": _q(self.h),
            "h_float": float(self.h),
            "banker_mixed_cell": {"j": j, "l": l, "draw": _q(draw), "stand": _q(1 - draw)},
            "breakpoints": [_q(h) for h in self.breakpoints],
            "curve": [{"h": _q(h), "G": _q(g), "G_float": float(g), "breakpoint": b, "table3": t}
                      for h, g, b, t in self.curve],
            "tables": [{"name": t.name, "foster_table": t.foster_table, "h_from": _q(t.h_from), "h_to": _q(t.h_to),
                        "G_intercept": _q(t.intercept), "G_slope": _q(t.slope),
                        "changed": [list(cell) for cell in t.changed],
                        "decisions": {str(j): list(row) for j, row in t.decisions}} for t in self.tables],
            "table1": [_q(a) for a in self.table1],
            "table3": [{"h": _q(h), "G_percent": g, "foster_percent": printed} for h, g, printed in self.table3],
        }

    def table(self, name: str) -> BankerTable:
        return next(t for t in self.tables if t.name == name)

    def headline(self) -> str:
        return f"{self.title} — exact minimax solution"

    def summary(self) -> tuple[tuple[str, str], ...]:
        j, l, draw = self.mixed_cell
        when = "when player A stood" if l == 10 else f"against A's third card {l}"
        return (
            ("value (the Banker's expected gain per unit stake)",
             f"{approx(self.value, 8)} ({float(self.value) * 100:.4f} %)"),
            ("player A calls for a third card on 5 with frequency", f"h* = {approx(self.h)}"),
            ("the Banker mixes", _said(tuple((self.table(name).title, p) for name, p in self.player1), joined=" and ")),
            ("so he randomises one cell", f"(j={j}, l={l}), a score of {j} {when}: draw {approx(draw)}, "
                                          f"stand {1 - draw}"),
            ("breakpoints of G(h)", ", ".join(approx(h) for h in self.breakpoints)),
        )

    def details(self) -> list[str]:
        lines = ["", "Table 3: G(h) in per cent", f"  {'h':>6}  {'exact':>7}  {'Foster':>7}"]
        lines += [f"  {float(h):>6.3f}  {g:>7}  {printed:>7}" for h, g, printed in self.table3]
        for t in self.tables:
            changed = ", ".join(f"({j}, {l})" for j, l in t.changed) or "—"
            lines += ["", f"{t.title}: {approx(t.h_from, 4)} ≤ h ≤ {approx(t.h_to, 4)}; changed cells: {changed}",
                      *_grid("j\\l", range(11), t.decisions)]
        return lines


def _chemin_de_fer() -> CheminDeFer:
    from whist_catalogue.games import chemin_de_fer
    from whist_catalogue.games.matrix_games import round_decimal

    solution = chemin_de_fer.solve()
    solution.certify()
    (j, l), draw = solution.mixed_cells[0]
    breakpoints = set(solution.breakpoints) | {Fraction(0), Fraction(1)}
    table3 = set(chemin_de_fer.FOSTER_TABLE_3)
    game = GAMES["chemin-de-fer"]
    return CheminDeFer(
        title=game.title,
        value=solution.value,
        players=(
            "the Banker B, maximiser; value = his expected gain per unit stake; "
            "a strategy is one of 'tables' (by name): draw (1) or stand (0) for his score j = 3–6 "
            "and A's third card l = 0–9, or l = 10 when A stood",
            "the player A, minimiser; his only choice is on an initial 5: 'call' or 'stand'",
        ),
        player1=tuple((r.name, p) for p, r in solution.banker_mixture),
        player2=(("call", solution.h), ("stand", 1 - solution.h)),
        h=solution.h,
        mixed_cell=(j, l, draw),
        breakpoints=solution.breakpoints,
        curve=tuple((h, solution.G(h), h in breakpoints, h in table3) for h in sorted(breakpoints | table3)),
        tables=tuple(BankerTable(r.name, r.foster_number, r.start, r.end, r.line.intercept, r.line.slope, r.changed,
                                 tuple((int(j), tuple(row)) for j, row in r.table.to_json().items()))
                     for r in solution.ranges),
        table1=tuple(chemin_de_fer.initial_score_probabilities()),
        table3=tuple((h, round_decimal(solution.G(h) * 100, 3), printed)
                     for h, printed in chemin_de_fer.FOSTER_TABLE_3.items()),
    )


# --- Le Her ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Root:
    """A real number isolated exactly: lower ≤ x ≤ upper, its floor and ceiling, its first 12 decimals."""

    lower: Fraction
    upper: Fraction
    floor: int
    ceil: int
    decimal: str
    approximately: float

    @classmethod
    def of(cls, obj: dict[str, Any]) -> Root:
        return cls(Fraction(obj["lower"]), Fraction(obj["upper"]), obj["floor"], obj["ceil"], obj["decimal"],
                   obj["float"])

    def to_json(self) -> dict[str, Any]:
        return {"lower": _q(self.lower), "upper": _q(self.upper), "floor": self.floor, "ceil": self.ceil,
                "decimal": self.decimal, "float": self.approximately}


@dataclass(frozen=True, slots=True)
class Subgame:
    """The small game that holds the solution (Theorem 2's 2×2 subgame, or the paper's reductions for N ≤ 6)."""

    rows: tuple[int, ...]
    columns: tuple[int, ...]
    matrix: tuple[tuple[Fraction, ...], ...]
    value: Fraction
    player1: Mixture
    player2: Mixture
    reason: str
    agrees: bool
    """Whether its value is the whole game's."""


@dataclass(frozen=True, slots=True)
class LeHer(SolvedGame):
    """N-card Le Her: a(s, t), player 1 keeping the cards ≥ s and player 2 after a keep the cards ≥ t."""

    game: ClassVar[str] = "le-her"
    cards: int
    matrix: tuple[tuple[Fraction, ...], ...]
    """a(s, t) for s, t = 2 … N: player 1's probability of winning."""
    subgame: Subgame
    cubic: tuple[int, ...] | None = None
    """φ of Theorem 2 (N ≥ 7), highest degree first; s* is its real root."""
    s_star: Root | None = None
    t_star: Root | None = None
    t_at_ceiling: bool = False
    """Whether t** = ⌈s*⌉."""
    t_star_of_s_star: float | None = None

    @classmethod
    def _read(cls, obj: dict[str, Any], common: dict[str, Any]) -> LeHer:
        sub, s, t = obj["subgame"], obj["s_star"], obj["t_star"]
        return cls(
            **common, cards=obj["cards"], matrix=tuple(tuple(map(Fraction, row)) for row in obj["matrix"]["entries"]),
            subgame=Subgame(tuple(sub["rows"]), tuple(sub["columns"]),
                            tuple(tuple(map(Fraction, row)) for row in sub["matrix"]), Fraction(sub["value"]),
                            _mixture(sub["player1"]), _mixture(sub["player2"]), sub["reason"], sub["agrees"]),
            cubic=None if s is None else tuple(s["cubic"]), s_star=None if s is None else Root.of(s),
            t_star=None if t is None else Root.of(t), t_at_ceiling=t is not None and t["at_ceiling"],
            t_star_of_s_star=None if t is None else t["t_star_of_s_star_float"],
        )

    @property
    def strategies(self) -> tuple[int, ...]:
        """s (and t) = 2 … N: the rows (and columns) of :attr:`matrix`."""
        return tuple(range(2, self.cards + 1))

    def _heading(self) -> dict[str, Any]:
        return {"paper": GAMES[self.game].paper, "parameters": {"cards": self.cards}, "cards": self.cards}

    def _own_json(self) -> dict[str, Any]:
        def critical(strategy: Mixture) -> dict[str, Any]:
            # Theorem 1's reading of a mixture of S_c and S_(c+1): keep above c, keep c with some probability.
            card, keep = min(((int(k), p) for k, p in strategy))
            return {"card": card, "keep": _q(keep)}

        sub = self.subgame
        return {
            "critical_cards": {"player1": critical(self.player1), "player2": critical(self.player2)},
            "matrix": {"rows": list(self.strategies), "columns": list(self.strategies),
                       "entries": [[_q(a) for a in row] for row in self.matrix]},
            "s_star": None if self.s_star is None else {"cubic": list(self.cubic or ()), **self.s_star.to_json()},
            "t_star": None if self.t_star is None else {"at_ceiling": self.t_at_ceiling,
                                                         "t_star_of_s_star_float": self.t_star_of_s_star,
                                                         **self.t_star.to_json()},
            "subgame": {"rows": list(sub.rows), "columns": list(sub.columns),
                        "matrix": [[_q(a) for a in row] for row in sub.matrix], "value": _q(sub.value),
                        "player1": {k: _q(p) for k, p in sub.player1}, "player2": {k: _q(p) for k, p in sub.player2},
                        "reason": sub.reason, "agrees": sub.agrees},
        }

    def headline(self) -> str:
        return f"{self.title}, N = {self.cards}"

    def summary(self) -> tuple[tuple[str, str], ...]:
        sub = self.subgame
        rows = [
            ("value (player 1's probability of winning)", approx(self.value)),
            ("player 1 keeps exactly the cards ≥ s", _said(self.player1, "s = ")),
            ("player 2, after a keep, keeps exactly the cards ≥ t", _said(self.player2, "t = ")),
        ]
        if self.s_star is not None and self.t_star is not None:
            rows.append(("Theorem 2's thresholds", f"s* = {self.s_star.decimal}… (the real root of the cubic φ), "
                                                   f"t** = {self.t_star.decimal}…"))
        rows.append((f"the subgame ({sub.reason})",
                     f"rows s ∈ {list(sub.rows)}, columns t ∈ {list(sub.columns)}, value {approx(sub.value)}"
                     + (" — agrees with the whole game" if sub.agrees else "")))
        return tuple(rows)

    def details(self) -> list[str]:
        if self.cards > _MATRIX_PRINT_LIMIT:
            return []
        return ["a(s, t), rows s, columns t:",
                *_grid("s\\t", self.strategies, list(zip(self.strategies, ([_q(a) for a in r] for r in self.matrix))))]


def _le_her(cards: int) -> LeHer:
    from whist_catalogue.games import le_her

    solution = le_her.solve(cards)
    solution.solution.certify()
    n, sub = solution.n, solution.subgame
    game = GAMES["le-her"]
    roots: dict[str, Any] = {}
    if solution.s_star is not None and solution.t_star is not None:
        root = solution.s_star.refine(Fraction(1, 10**15))
        t2 = solution.t_star
        low, high = t2.bracket(Fraction(1, 10**15))
        roots = {"cubic": tuple(le_her.phi_coefficients(n)),
                 "s_star": Root(root.lower, root.upper, root.floor(), root.ceil(), root.decimal(12), float(root)),
                 "t_star": Root(low, high, t2.floor(), t2.ceil(), t2.decimal(12), float(t2)),
                 "t_at_ceiling": t2.at_ceiling, "t_star_of_s_star": float(le_her.t_star(n, root.lower))}
    return LeHer(
        title=game.title,
        value=solution.value,
        players=(
            "Player 1 (moves first), maximiser; value = his probability of winning; "
            "strategy key s = keep exactly the cards ≥ s, swap the others",
            "Player 2, minimiser; strategy key t = after a keep by player 1, keep exactly the cards ≥ t",
        ),
        player1=tuple((str(k), p) for k, p in solution.player1().items()),
        player2=tuple((str(k), p) for k, p in solution.player2().items()),
        cards=n,
        matrix=solution.matrix,
        subgame=Subgame(sub.rows, sub.columns, sub.solution.matrix, sub.solution.value,
                        tuple((str(k), p) for k, p in zip(sub.rows, sub.solution.player1)),
                        tuple((str(k), p) for k, p in zip(sub.columns, sub.solution.player2)), sub.reason, True),
        **roots,
    )


# --- a matrix game of the user's own ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatrixGame(SolvedGame):
    """Any two-person zero-sum game: player 1 picks a row and maximises, player 2 a column and minimises."""

    game: ClassVar[str] = "matrix"
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    entries: tuple[tuple[Fraction, ...], ...]
    guarantees: tuple[Fraction, Fraction]
    """What each optimal strategy guarantees against every pure reply: both the value, certified."""

    @classmethod
    def _read(cls, obj: dict[str, Any], common: dict[str, Any]) -> MatrixGame:
        matrix = obj["matrix"]
        return cls(**common, rows=tuple(matrix["rows"]), columns=tuple(matrix["columns"]),
                   entries=tuple(tuple(map(Fraction, row)) for row in matrix["entries"]),
                   guarantees=(Fraction(obj["guarantees"]["player1"]), Fraction(obj["guarantees"]["player2"])))

    def _heading(self) -> dict[str, Any]:
        return {}

    def _own_json(self) -> dict[str, Any]:
        return {"matrix": {"rows": list(self.rows), "columns": list(self.columns),
                           "entries": [[_q(a) for a in row] for row in self.entries]},
                "guarantees": {"player1": _q(self.guarantees[0]), "player2": _q(self.guarantees[1])}}

    def headline(self) -> str:
        return (f"{self.title}: {len(self.rows)} × {len(self.columns)}, exact solution "
                "(certified against every pure reply)")

    def summary(self) -> tuple[tuple[str, str], ...]:
        return (("value (to player 1, rows)", approx(self.value)),
                ("player 1 (rows) plays", _said(self.player1)),
                ("player 2 (columns) plays", _said(self.player2)))

    def details(self) -> list[str]:
        if len(self.rows) > _MATRIX_PRINT_LIMIT or len(self.columns) > _MATRIX_PRINT_LIMIT:
            return []
        return _grid("", self.columns, list(zip(self.rows, ([_q(a) for a in row] for row in self.entries))))


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


def solve(name: str, **params: object) -> SolvedGame:
    """The certified solution of a registered game (its JSON: :meth:`SolvedGame.to_json`)."""
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


def solve_strategic_form(game: StrategicForm) -> MatrixGame:
    """The exact, certified solution of a matrix game, with the same parts as :func:`solve`'s."""
    from whist_catalogue.games.matrix_games import solve_matrix_game

    solution = solve_matrix_game(game.matrix)
    solution.certify()
    return MatrixGame(
        title=game.title,
        value=solution.value,
        players=(f"{game.players[0]}, rows, maximiser", f"{game.players[1]}, columns, minimiser"),
        player1=tuple((game.rows[i], p) for i, p in enumerate(solution.player1) if p),
        player2=tuple((game.columns[j], p) for j, p in enumerate(solution.player2) if p),
        rows=tuple(game.rows),
        columns=tuple(game.columns),
        entries=tuple(tuple(row) for row in game.matrix),
        guarantees=(solution.row_guarantee(), solution.column_guarantee()),
    )
