"""A two-person zero-sum game of the user's own: read from a grid, CSV or a Gambit ``.nfg`` file, written as ``.nfg``.

The solver is :func:`whist_catalogue.games.matrix_games.solve_matrix_game` — the same exact, certified solver as
chemin-de-fer's and Le Her's (each optimal strategy checked against every pure reply of the other player) — so
a game typed in by hand is solved to the same standard as the papers' games.

Formats read:

* **A grid**, as typed or pasted from a spreadsheet: one row a line (or rows separated by ``;``), entries
  separated by commas, tabs or spaces. Entries are exact: integers, fractions ``p/q`` or decimals (``0.25`` is
  1/4). A first row and a first column of names are allowed: a first row none of whose cells is a number
  (but for a corner cell), a first column none of whose cells below the first row is a number.
* **CSV**: the same grid in a ``.csv`` file.
* **Gambit's strategic form** (``.nfg``, both its pay-off and its outcome versions): two players, each profile
  paying player 1 what player 2 loses, or a constant sum (as Le Her's probabilities of winning do); the
  matrix is player 1's pay-offs.

Entry ``matrix[i][j]`` pays player 1, who picks the row and maximises; player 2 picks the column and minimises.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from fractions import Fraction
from pathlib import Path
from typing import Iterator, NamedTuple, Sequence

from whist_catalogue.errors import InvalidMatrixError, counted
from whist_catalogue.games.matrix_games import Matrix

__all__ = [
    "MAX_STRATEGIES",
    "StrategicForm",
    "parse_grid",
    "parse_nfg",
    "read_game",
    "to_nfg",
    "write_nfg",
]

MAX_STRATEGIES = 200
"""Pure strategies a player may have: the exact solver's work grows fast, and a typo must not hang the app."""


class StrategicForm(NamedTuple):
    """A matrix game with the names of its players and of their pure strategies."""

    matrix: Matrix
    """Pay-offs to player 1, a row per pure strategy of player 1."""
    rows: tuple[str, ...]
    """Player 1's pure strategies."""
    columns: tuple[str, ...]
    """Player 2's pure strategies."""
    title: str = "matrix game"
    players: tuple[str, str] = ("Player 1", "Player 2")

    @classmethod
    def of(cls, matrix: Sequence[Sequence[object]], title: str = "matrix game") -> StrategicForm:
        """The game of this matrix with strategies named 1, 2, … (checked: a rectangle of exact numbers)."""
        exact = _rectangle([[_exact(entry, i + 1, j + 1) for j, entry in enumerate(row)] for i, row in enumerate(matrix)])
        return cls(exact, _numbered(len(exact)), _numbered(len(exact[0])), title)


def _numbered(count: int) -> tuple[str, ...]:
    return tuple(str(k) for k in range(1, count + 1))


_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)(/[+-]?\d+)?([eE][+-]?\d+)?")


def _is_number(text: str) -> bool:
    return _NUMBER.fullmatch(text.strip().replace("−", "-")) is not None


def _exact(entry: object, row: int, column: int) -> Fraction:
    """An entry as an exact Fraction; where it is not a number, say where (``row`` and ``column`` from 1, as seen)."""
    if isinstance(entry, (int, Fraction)) and not isinstance(entry, bool):
        return Fraction(entry)
    text = str(entry).strip().replace("−", "-")
    if not _NUMBER.fullmatch(text):
        raise InvalidMatrixError(f"row {row}, column {column}: {str(entry).strip()!r} is not a number")
    try:
        return Fraction(text)
    except ZeroDivisionError:
        raise InvalidMatrixError(f"row {row}, column {column}: {text!r} divides by zero") from None


def _rectangle(rows: list[list[Fraction]]) -> Matrix:
    if not rows or not rows[0]:
        raise InvalidMatrixError("the game has no pay-offs: it needs at least one row and one column")
    for i, row in enumerate(rows):
        if len(row) != len(rows[0]):
            raise InvalidMatrixError(
                f"ragged matrix: row {i + 1} has {counted(len(row), 'entry', 'entries')}, row 1 has {len(rows[0])}"
            )
    if len(rows) > MAX_STRATEGIES or len(rows[0]) > MAX_STRATEGIES:
        raise InvalidMatrixError(
            f"{len(rows)} × {len(rows[0])} pure strategies: at most {MAX_STRATEGIES} a player"
        )
    return tuple(tuple(row) for row in rows)


# --- grids and CSV ---------------------------------------------------------------------------------


def _cells(text: str) -> list[list[str]]:
    lines = [line for line in re.split(r"\r?\n|;", text) if line.strip()]
    if any("," in line or "\t" in line for line in lines):
        # A spreadsheet's or a CSV file's rows: quoted names may hold spaces.
        return [[cell.strip() for cell in row] for row in csv.reader(lines, delimiter="\t" if "\t" in text else ",")]
    return [line.split() for line in lines]


def parse_grid(text: str, title: str = "matrix game") -> StrategicForm:
    """A game typed or pasted as a grid (or read from CSV): see the module docstring."""
    if text.lstrip().startswith(("NFG", "EFG")):
        return parse_nfg(text)
    cells = [row for row in _cells(text) if any(cell for cell in row)]
    if not cells:
        raise InvalidMatrixError("the game has no pay-offs: it needs at least one row and one column")
    # Names are a whole row or column of non-numbers; a stray word among numbers is a mistake, reported as one.
    named_rows = len(cells) > 1 and all(not _is_number(row[0]) for row in cells[1:])
    first = cells[0]
    header = all(not _is_number(cell) for cell in first[1 if named_rows else 0 :])
    body = cells[1:] if header else cells
    exact = _rectangle(
        [
            [_exact(entry, i + 1 + header, j + 1 + named_rows) for j, entry in enumerate(row[named_rows:])]
            for i, row in enumerate(body)
        ]
    )
    width = len(exact[0])
    # A header over named rows may or may not have a corner cell.
    columns = tuple(first[-width:]) if header and len(first) >= width else _numbered(width)
    rows = tuple(row[0] for row in body) if named_rows else _numbered(len(exact))
    return _named(StrategicForm(exact, rows, columns, title))


def _named(game: StrategicForm) -> StrategicForm:
    """The game, once its strategies' names are known to tell its strategies apart (solutions are keyed by them)."""
    for who, names in (("rows", game.rows), ("columns", game.columns)):
        seen: set[str] = set()
        for name in names:
            if name in seen:
                raise InvalidMatrixError(f"two {who} are named {name!r}: strategies need distinct names")
            seen.add(name)
    return game


# --- Gambit's strategic form -------------------------------------------------------------------------

_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|([{}])|([^\s{}"]+)')


class _Tokens:
    def __init__(self, text: str) -> None:
        self.items: list[tuple[str, str]] = []
        for quoted, brace, word in (m.groups() for m in _TOKEN.finditer(text)):
            if quoted is not None:
                self.items.append(("string", quoted.replace('\\"', '"')))
            elif brace is not None:
                self.items.append((brace, brace))
            else:
                self.items.append(("word", word))
        self.at = 0

    def peek(self) -> str | None:
        return self.items[self.at][0] if self.at < len(self.items) else None

    def take(self, kind: str) -> str:
        if self.at >= len(self.items) or self.items[self.at][0] != kind:
            found = self.items[self.at][1] if self.at < len(self.items) else "the end of the file"
            raise InvalidMatrixError(f".nfg file: expected {_KIND_NAMES.get(kind, kind)}, found {found!r}")
        self.at += 1
        return self.items[self.at - 1][1]

    def strings(self) -> list[str]:
        self.take("{")
        out = []
        while self.peek() == "string":
            out.append(self.take("string"))
        self.take("}")
        return out

    def rest(self) -> Iterator[tuple[str, str]]:
        while self.at < len(self.items):
            self.at += 1
            yield self.items[self.at - 1]


_KIND_NAMES = {"string": "a quoted name", "word": "a number", "{": "'{'", "}": "'}'"}


def parse_nfg(text: str) -> StrategicForm:
    """A two-person constant-sum game in Gambit's strategic-form format (pay-off or outcome version)."""
    stripped = text.lstrip()
    if stripped.startswith("EFG"):
        raise InvalidMatrixError("an extensive-form game (.efg): only strategic-form games (.nfg) and grids are read")
    tokens = _Tokens(stripped)
    if tokens.peek() != "word" or tokens.take("word") != "NFG":
        raise InvalidMatrixError("not a Gambit strategic-form file: it does not start with 'NFG'")
    version = tokens.take("word")
    if version != "1":
        raise InvalidMatrixError(f".nfg file: version {version} is not read (only version 1)")
    tokens.take("word")  # R (rational) or D (decimal): the entries say which themselves
    title = tokens.take("string")
    players = tokens.strings()
    if len(players) != 2:
        raise InvalidMatrixError(f".nfg file: a game of {len(players)} players; a matrix game has two")
    tokens.take("{")
    strategies: list[tuple[str, ...]] = []
    if tokens.peek() == "{":
        while tokens.peek() == "{":
            strategies.append(tuple(tokens.strings()))
        tokens.take("}")
    else:
        counts = [tokens.take("word") for _ in range(2)]
        tokens.take("}")
        if not all(c.isdigit() and int(c) > 0 for c in counts):
            raise InvalidMatrixError(f".nfg file: strategy counts {counts} are not positive integers")
        strategies = [_numbered(int(c)) for c in counts]
    if len(strategies) != 2:
        raise InvalidMatrixError(f".nfg file: strategies of {len(strategies)} players; a matrix game has two")
    m, n = (len(s) for s in strategies)
    if m == 0 or n == 0 or m > MAX_STRATEGIES or n > MAX_STRATEGIES:
        raise InvalidMatrixError(f".nfg file: {m} × {n} pure strategies (1 to {MAX_STRATEGIES} a player)")
    if tokens.peek() == "string":
        tokens.take("string")  # the game's comment
    if tokens.peek() == "{":
        pairs = _outcome_version(tokens, m * n)
    else:
        numbers = [_nfg_number(word) for kind, word in tokens.rest() if kind == "word"]
        if len(numbers) != 2 * m * n:
            raise InvalidMatrixError(
                f".nfg file: {len(numbers)} pay-offs for {m} × {n} profiles of two players (needs {2 * m * n})"
            )
        pairs = [(numbers[2 * k], numbers[2 * k + 1]) for k in range(m * n)]
    # Gambit lists profiles with player 1's strategy changing fastest.
    matrix = tuple(tuple(pairs[i + m * j][0] for j in range(n)) for i in range(m))
    sums = {a + b for a, b in pairs}
    if len(sums) != 1:
        i, j = next((k % m, k // m) for k, (a, b) in enumerate(pairs) if a + b != pairs[0][0] + pairs[0][1])
        raise InvalidMatrixError(
            f".nfg file: not a zero-sum (or constant-sum) game — the pay-offs of ({strategies[0][i]}, "
            f"{strategies[1][j]}) add up to {pairs[i + m * j][0] + pairs[i + m * j][1]}, those of the first "
            f"profile to {pairs[0][0] + pairs[0][1]}"
        )
    return _named(StrategicForm(matrix, strategies[0], strategies[1], title or "matrix game", (players[0], players[1])))


def _nfg_number(word: str) -> Fraction:
    if not _NUMBER.fullmatch(word):
        raise InvalidMatrixError(f".nfg file: {word!r} is not a number")
    try:
        return Fraction(word)
    except ZeroDivisionError:
        raise InvalidMatrixError(f".nfg file: {word!r} divides by zero") from None


def _outcome_version(tokens: _Tokens, profiles: int) -> list[tuple[Fraction, Fraction]]:
    tokens.take("{")
    outcomes: list[tuple[Fraction, Fraction]] = []
    while tokens.peek() == "{":
        tokens.take("{")
        if tokens.peek() == "string":
            tokens.take("string")
        words = []
        while tokens.peek() == "word":
            words.append(tokens.take("word").rstrip(","))
        tokens.take("}")
        if len(words) != 2:
            raise InvalidMatrixError(f".nfg file: an outcome with {len(words)} pay-offs; a matrix game has two")
        outcomes.append((_nfg_number(words[0]), _nfg_number(words[1])))
    tokens.take("}")
    indices = [word for kind, word in tokens.rest() if kind == "word"]
    if len(indices) != profiles:
        raise InvalidMatrixError(f".nfg file: {len(indices)} outcome numbers for {profiles} profiles")
    pairs = []
    for index in indices:
        if not index.isdigit() or int(index) > len(outcomes):
            raise InvalidMatrixError(f".nfg file: outcome number {index!r} names no outcome")
        # Outcome 0 is the null outcome: nobody is paid.
        pairs.append(outcomes[int(index) - 1] if int(index) else (Fraction(0), Fraction(0)))
    return pairs


_ASCII = str.maketrans({"≥": ">=", "≤": "<=", "−": "-", "–": "-", "—": "-", "×": "x", "…": "..."})


def _label(name: str) -> str:
    """A name as Gambit accepts a label: printable ASCII, single spaces, none at either end."""
    text = unicodedata.normalize("NFKD", name.translate(_ASCII)).encode("ascii", "ignore").decode()
    return " ".join("".join(c for c in text if c.isprintable()).split())


def _labels(names: Sequence[str]) -> list[str]:
    labels = [_label(name) or str(k + 1) for k, name in enumerate(names)]
    if len(set(labels)) < len(labels):  # names told apart only by what ASCII cannot write
        labels = [f"{label} ({k + 1})" for k, label in enumerate(labels)]
    return labels


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '\\"') + '"'


def to_nfg(game: StrategicForm, comment: str = "") -> str:
    """The game in Gambit's strategic-form format, pay-off version: player 2 is paid what player 1 loses.

    Gambit's labels are printable ASCII, so names are written that way (``≥`` as ``>=``)."""
    m, n = len(game.matrix), len(game.matrix[0])
    lines = [
        f"NFG 1 R {_quoted(_label(game.title))} {{ {' '.join(_quoted(p) for p in _labels(game.players))} }}",
        "{ "
        + " ".join("{ " + " ".join(_quoted(s) for s in _labels(names)) + " }" for names in (game.rows, game.columns))
        + " }",
        _quoted(_label(comment)),
        "",
    ]
    profiles = (game.matrix[i][j] for j in range(n) for i in range(m))  # player 1's strategy changes fastest
    lines.append(" ".join(f"{a} {-a}" for a in profiles))
    return "\n".join(lines) + "\n"


# --- files -----------------------------------------------------------------------------------------


def write_nfg(path: str | Path, game: StrategicForm) -> None:
    """Write ``game`` as a ``.nfg`` file (:func:`to_nfg`), whole and then renamed: a failed write leaves no half file,
    and a file of the same name intact."""
    target = Path(path)
    partial = target.with_name(target.name + ".partial")
    try:
        partial.write_text(to_nfg(game, comment="written by whist-catalogue"), encoding="utf-8")
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)


def read_game(path: str | Path) -> StrategicForm:
    """A game from a ``.nfg`` file or a grid file (``.csv``, ``.tsv``, ``.txt``), by its contents.

    :class:`OSError` when it cannot be read; :class:`InvalidMatrixError` when it is not a game."""
    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidMatrixError(f"{path}: not a text file (a grid, CSV or .nfg file is)") from None
    if "\0" in text:
        raise InvalidMatrixError(f"{path}: not a text file (a grid, CSV or .nfg file is)")
    return parse_grid(text, title=Path(path).stem)
