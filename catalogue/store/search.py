"""The search language: a small expression language over the catalogue's deals (``docs/search.md``).

A tokenizer and a recursive-descent parser turn the text into a syntax tree; the
compiler lowers it to a condition of this module's own node classes (:data:`Expr`:
columns of the ``deal`` table, integer constants, 64-bit arithmetic, comparisons,
logic, ranges of levels).  :func:`to_sql` makes it a SQLAlchemy boolean expression
over :class:`~whist_catalogue.store.models.DealRow` for the levels held as rows, and
:func:`evaluate` runs it in NumPy over whole chunks for the levels held as chunks
(:class:`ChunkQuery`).  User text never reaches SQL: names must be fields of
:data:`FIELDS`, and every constant becomes a bound parameter.

Grammar (keywords case-insensitive)::

    query      := or_expr
    or_expr    := and_expr (("or" | "||") and_expr)*
    and_expr   := not_expr (("and" | "&&") not_expr)*
    not_expr   := ("not" | "!") not_expr | comparison
    comparison := sum [ CMP sum | "in" sum ]          CMP: = == != <> < <= > >=
    sum        := product (("+" | "-" | "+-") product)*
    product    := unary (("*" | "/") unary)*
    unary      := ("-" | "+" | "+-") unary | primary
    primary    := NUMBER | NAME | NAME "(" [args] ")" | "(" or_expr ("," or_expr)* [","] ")"

Constants are exact: ``3+3/8``, ``0.375``, ``e2`` (ε₂), ``-e0``, ``2-e2``, ``W``/``E``,
``(1, 2)``, ``1/2 +- e0`` (±ε₀, which no single-suit value has).  Numbers compare exactly (``number`` is q·2^24 in the database,
so ``number >= 2`` is a range on an index); ``n`` becomes a range of the
primary key.  Limits keep hostile input harmless: at most
:data:`MAX_LENGTH` characters, :data:`MAX_DEPTH` levels of nesting, numbers of
at most :data:`MAX_DIGITS` digits, and every integer the database computes
stays below 2^62.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor
from typing import Any, Callable

import sqlalchemy as sa
from sqlalchemy.sql.elements import ColumnElement

from whist_catalogue.constants import MAX_LEVEL_N, SCALE_BITS
from whist_catalogue.engine.levels import CHECK_NAMES
from whist_catalogue.engine.statistics import VALUE_CLASS_QUERIES
from whist_catalogue.errors import SearchSyntaxError
from whist_catalogue.store.models import DealRow
from whist_catalogue.theory.values import Infinitesimal, Value, is_dyadic

__all__ = [
    "compile_search",
    "search_condition",
    "parse",
    "describe_fields",
    "FIELDS",
    "ALIASES",
    "CHECK_ALIASES",
    "Field",
    "MAX_LENGTH",
    "MAX_DEPTH",
    "MAX_DIGITS",
    "evaluate",
    "uses_key_field",
    "levels_asked",
    "VALUE_COLUMNS",
    "UNKNOWN",
    "ChunkQuery",
    "MAX_ROWS",
    "check_page",
    "narrowing_hint",
    "compile_condition",
    "condition_of",
    "to_sql",
    "Expr",
    "Column",
    "Constant",
    "Arithmetic",
    "Comparison",
    "Logic",
    "Levels",
    "ByValue",
]

MAX_LENGTH = 4000
MAX_DEPTH = 60
MAX_DIGITS = 15
MAX_ROWS = 10**15
"""The largest ``limit`` or ``offset`` of a search: more deals than any catalogue holds, and far below the
database's 64-bit integers."""
MAX_SQL_INT = 1 << 62

# -- tokens -------------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<number>\d+(?:\.\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\+-|<=|>=|!=|<>|==|&&|\|\||[=<>()+\-*/,!])
    """,
    re.VERBOSE,
)
_UNICODE = str.maketrans({"±": "+-", "−": "-", "ε": "e", "≤": "<=", "≥": ">=", "≠": "!=", "₀": "0", "₁": "1", "₂": "2",
                          "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7", "₈": "8", "₉": "9"})
KEYWORDS = {"and", "or", "not", "in"}


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # number, name, op, keyword, end
    text: str
    pos: int


def tokenize(text: str) -> list[Token]:
    if len(text) > MAX_LENGTH:
        raise SearchSyntaxError(f"search: expression too long ({len(text)} characters, at most {MAX_LENGTH})")
    source = text.translate(_UNICODE)
    tokens: list[Token] = []
    pos = 0
    while pos < len(source):
        m = _TOKEN.match(source, pos)
        if m is None:
            raise SearchSyntaxError(f"search: unexpected character {source[pos]!r} at position {pos + 1}")
        kind = m.lastgroup
        assert kind is not None
        word = m.group()
        if kind == "number" and len(word.replace(".", "")) > MAX_DIGITS:
            raise SearchSyntaxError(f"search: number too large: {word[:20]}… at position {pos + 1}")
        if kind == "name" and word.lower() in KEYWORDS:
            kind, word = "keyword", word.lower()
        if kind != "space":
            tokens.append(Token(kind, word, pos + 1))
        pos = m.end()
    tokens.append(Token("end", "", len(source) + 1))
    return tokens


# -- syntax tree ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Node:
    kind: str
    """or, and, not, cmp, in, num, name, call, neg, add, sub, mul, div, tuple"""
    pos: int
    args: tuple[Any, ...] = ()
    text: str = ""


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0
        self.depth = 0

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def advance(self) -> Token:
        t = self.tokens[self.i]
        self.i += 1
        return t

    def accept(self, *texts: str) -> Token | None:
        if self.tok.kind in ("op", "keyword") and self.tok.text in texts:
            return self.advance()
        return None

    def expect(self, text: str) -> Token:
        t = self.accept(text)
        if t is None:
            raise self.error(f"expected {text!r}")
        return t

    def error(self, message: str) -> SearchSyntaxError:
        t = self.tok
        found = "the end of the expression" if t.kind == "end" else repr(t.text)
        return SearchSyntaxError(f"search: {message}, found {found} at position {t.pos}")

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise SearchSyntaxError(
                f"search: expression nested too deeply (more than {MAX_DEPTH} levels of parentheses, operators"
                " and chained + - * /)"
            )

    def parse(self) -> Node:
        if self.tok.kind == "end":
            raise SearchSyntaxError("search: empty expression")
        node = self.or_expr()
        if self.tok.kind != "end":
            raise self.error("expected and, or, or the end of the expression")
        return node

    def or_expr(self) -> Node:
        self.enter()
        items = [self.and_expr()]
        while self.accept("or", "||"):
            items.append(self.and_expr())
        self.depth -= 1
        return items[0] if len(items) == 1 else Node("or", items[0].pos, tuple(items))

    def and_expr(self) -> Node:
        items = [self.not_expr()]
        while self.accept("and", "&&"):
            items.append(self.not_expr())
        return items[0] if len(items) == 1 else Node("and", items[0].pos, tuple(items))

    def not_expr(self) -> Node:
        t = self.accept("not", "!")
        if t is not None:
            self.enter()
            inner = self.not_expr()
            self.depth -= 1
            return Node("not", t.pos, (inner,))
        return self.comparison()

    def comparison(self) -> Node:
        left = self.sum()
        t = self.accept("=", "==", "!=", "<>", "<", "<=", ">", ">=")
        if t is not None:
            op = {"==": "=", "<>": "!="}.get(t.text, t.text)
            return Node("cmp", t.pos, (left, self.sum()), op)
        t = self.accept("in")
        if t is not None:
            return Node("in", t.pos, (left, self.sum()))
        return left

    # A chain a + b + c … is a left-deep tree, as deep as it is long, and compiling it recurses that deep:
    # each operator counts as one level of nesting.
    def sum(self) -> Node:
        node = self.product()
        entered = 0
        while (t := self.accept("+", "-", "+-")) is not None:
            self.enter()
            entered += 1
            kind = {"+": "add", "-": "sub", "+-": "pm"}[t.text]
            node = Node(kind, t.pos, (node, self.product()))
        self.depth -= entered
        return node

    def product(self) -> Node:
        node = self.unary()
        entered = 0
        while (t := self.accept("*", "/")) is not None:
            self.enter()
            entered += 1
            node = Node("mul" if t.text == "*" else "div", t.pos, (node, self.unary()))
        self.depth -= entered
        return node

    def unary(self) -> Node:
        if (t := self.accept("-")) is not None:
            self.enter()
            inner = self.unary()
            self.depth -= 1
            return Node("neg", t.pos, (inner,))
        if (t := self.accept("+-")) is not None:
            self.enter()
            inner = self.unary()
            self.depth -= 1
            return Node("pm", t.pos, (Node("num", t.pos, (), "0"), inner))
        if self.accept("+") is not None:
            self.enter()
            inner = self.unary()
            self.depth -= 1
            return inner
        return self.primary()

    def primary(self) -> Node:
        t = self.tok
        if t.kind == "number":
            self.advance()
            return Node("num", t.pos, (), t.text)
        if t.kind == "name":
            self.advance()
            if self.accept("("):
                args: list[Node] = []
                if not self.accept(")"):
                    args.append(self.or_expr())
                    while self.accept(","):
                        args.append(self.or_expr())
                    self.expect(")")
                return Node("call", t.pos, tuple(args), t.text)
            return Node("name", t.pos, (), t.text)
        if self.accept("("):
            items = [self.or_expr()]
            trailing = False
            while self.accept(","):
                if self.tok.kind == "op" and self.tok.text == ")":
                    trailing = True
                    break
                items.append(self.or_expr())
            self.expect(")")
            if len(items) == 1 and not trailing:
                return items[0]
            return Node("tuple", t.pos, tuple(items))
        raise self.error("expected a field, a number or '('")


def parse(text: str) -> Node:
    """The syntax tree of a search expression (:class:`~whist_catalogue.errors.SearchSyntaxError` if malformed)."""
    if not isinstance(text, str):
        raise SearchSyntaxError(f"search: not text: {text!r}")
    return _Parser(text).parse()


# -- fields ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Field:
    """A name the language knows."""

    name: str
    kind: str
    """number, value, infinitesimal, player, pair, flag"""
    help: str
    column: str | None = None
    """The ``deal`` column that holds it (numbers, players)."""
    scale: int = 0
    """The column holds the quantity times 2^scale."""
    bound: int = 0
    """An upper bound of the column's absolute value."""
    parts: tuple[str, ...] = ()
    bit: int | None = None


_BIG = 1 << (SCALE_BITS + 5)
"""Bound of q·2^24 and of the numerator: values of deals lie in [0, n], n ≤ 31."""
_TRICKS = 32

FIELDS: dict[str, Field] = {
    f.name: f
    for f in (
        Field("n", "number", "cards a hand", "n", 0, 64),
        Field("key", "number", "the integer key of docs/spec.md §2", "key", 0, 1 << 63),
        Field("value", "value", "the whole value q + x, compared with a constant: value = 3+3/8, value >= 2-e2"),
        Field("number", "number", "the numerical part q", "number_scaled", SCALE_BITS, _BIG),
        Field("frac", "number", "the fractional part q − ⌊q⌋", "fraction_scaled", SCALE_BITS, 1 << SCALE_BITS),
        Field("numerator", "number", "the numerator of q, reduced", "numerator", 0, _BIG),
        Field("denominator", "number", "the denominator of q, reduced (a power of two)", "denominator", 0,
              1 << SCALE_BITS),
        Field("inf", "infinitesimal", "the infinitesimal part x: 0, e0, -e0, e1, -e1, …"),
        Field("stoppers", "number", "k of ±ε_k (0 when x = 0)", "stoppers", 0, 64),
        Field("west_leads", "number", "tricks West takes with West on lead", "west_leads", 0, _TRICKS),
        Field("east_leads", "number", "tricks West takes with East on lead", "east_leads", 0, _TRICKS),
        Field("outcome", "pair", "(west_leads, east_leads)", parts=("west_leads", "east_leads")),
        Field("h", "number", "H of Theorem 9.1 (single-suit paper)", "h", 0, _TRICKS),
        Field("h_upper", "number", "H̄ (single-suit paper, §5)", "h_upper", 0, _TRICKS),
        Field("h_lower", "number", "H̲ (single-suit paper, §5)", "h_lower", 0, _TRICKS),
        Field("greedy_west_leads", "number", "Greedy Whist: West's tricks, West on lead", "greedy_west_leads", 0,
              _TRICKS),
        Field("greedy_east_leads", "number", "Greedy Whist: West's tricks, East on lead", "greedy_east_leads", 0,
              _TRICKS),
        Field("greedy", "pair", "(greedy_west_leads, greedy_east_leads)", parts=("greedy_west_leads", "greedy_east_leads")),
        Field("five_card_west_leads", "player", "Five-card winner, West on lead: W or E", "five_card_west_leads"),
        Field("five_card_east_leads", "player", "Five-card winner, East on lead: W or E", "five_card_east_leads"),
        Field("five_card", "pair", "(five_card_west_leads, five_card_east_leads)",
              parts=("five_card_west_leads", "five_card_east_leads")),
        Field("ace", "player", "who holds the highest card: W or E", "ace"),
        Field("holdup", "flag", "against some lead beatable below the ace, ducking is strictly better than winning "
              "cheaply in the order of labeled values (the engine's check conjecture_12_4_labeled)",
              bit=CHECK_NAMES.index("conjecture_12_4_labeled")),
        Field("flags", "number", "the counterexample bits, CHECK_NAMES order", "flags", 0, 1 << 16),
    )
}
ALIASES = {"infinitesimal": "inf", "fraction": "frac", "fractional": "frac", "hbar": "h_upper", "h_bar": "h_upper",
           "hunder": "h_lower", "h_under": "h_lower", "tricks": "outcome", "ace_holder": "ace"}
CHECK_ALIASES = {"12.2": "conjecture_12_2", "12.3": "conjecture_12_3", "12.4": "conjecture_12_4",
                 "8.10": "theorem_8_10", "9.4": "theorem_9_4", "holdup": "conjecture_12_4_labeled"}
"""What ``counterexample(…)`` accepts besides the names of ``whist_catalogue.engine.levels.CHECK_NAMES`` and ``any``."""
PLAYER_NAMES = {"w": "W", "west": "W", "e": "E", "east": "E"}
_EPSILON = re.compile(r"e(\d+)")


# -- the compiled condition: the language's own tree of operations ------------------------------------------
#
# The compiler below lowers the syntax tree to these few node classes — columns of the ``deal`` table,
# constants, 64-bit integer arithmetic, comparisons and logic — and nothing else.  Two back ends read them:
# :func:`to_sql` (SQLAlchemy, for the levels held as rows) and :func:`evaluate` (NumPy, for the levels held
# as chunks).  Both walk this tree, never SQLAlchemy's expression classes, so what an expression means over
# chunks cannot change with SQLAlchemy's internals, and the two back ends agree by construction on
# everything but the arithmetic of the arrays (the suite compares them on levels held both ways).


@dataclass(frozen=True, slots=True)
class Column:
    """A column of the ``deal`` table, by name."""

    name: str


@dataclass(frozen=True, slots=True)
class Constant:
    """An integer, a player ("W", "E") or a truth value (True, False: a condition decided at compile time)."""

    value: int | str | bool


@dataclass(frozen=True, slots=True)
class Arithmetic:
    """Integer arithmetic in 64 bits: ``+``, ``-``, ``*`` (two operands), ``neg`` (one), ``&`` (bitwise and)."""

    op: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Comparison:
    """left OP right, OP one of = != < <= > >=."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Logic:
    """``and`` and ``or`` of one or more conditions, ``not`` of one."""

    op: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Levels:
    """low ≤ n ≤ high: in SQL a range of the primary key (level n holds the keys [2^(2n), 2^(2n+1)))."""

    low: int
    high: int


@dataclass(frozen=True, slots=True)
class ByValue:
    """An expression that reads the value alone, evaluated once per distinct value of a chunk and read off
    its codes (made by :class:`ChunkQuery`, never by the compiler)."""

    expr: Expr


Expr = Column | Constant | Arithmetic | Comparison | Logic | Levels | ByValue
"""A compiled expression: a condition (Comparison, Logic, Constant(bool)) or an integer (the rest)."""

TRUE = Constant(True)
FALSE = Constant(False)


def all_of(*items: Expr) -> Expr:
    """The conjunction, with constant conditions folded (as the databases would)."""
    kept = [i for i in items if i != TRUE]
    if FALSE in kept:
        return FALSE
    return TRUE if not kept else kept[0] if len(kept) == 1 else Logic("and", tuple(kept))


def any_of(*items: Expr) -> Expr:
    """The disjunction, with constant conditions folded."""
    kept = [i for i in items if i != FALSE]
    if TRUE in kept:
        return TRUE
    return FALSE if not kept else kept[0] if len(kept) == 1 else Logic("or", tuple(kept))


def negation(item: Expr) -> Expr:
    if isinstance(item, Constant) and isinstance(item.value, bool):
        return FALSE if item.value else TRUE
    if isinstance(item, Logic) and item.op == "not":
        # "not not x" is x, in SQL's three-valued logic too (NOT NOT NULL is NULL); folding it keeps a chain of
        # nots within the documented nesting from overflowing SQLite's parser (about 45 nested NOTs).
        return item.args[0]
    return Logic("not", (item,))


def _children(expr: Expr) -> tuple[Expr, ...]:
    """The sub-expressions of a node (none for a leaf)."""
    if isinstance(expr, (Arithmetic, Logic)):
        return expr.args
    if isinstance(expr, Comparison):
        return (expr.left, expr.right)
    if isinstance(expr, ByValue):
        return (expr.expr,)
    return ()


def _with_children(expr: Expr, rewrite: Callable[[Expr], Expr]) -> Expr:
    """The same node with ``rewrite`` applied to each of its operands (a leaf, or :class:`ByValue`, as it is):
    the one step of every rewriting pass over the syntax tree."""
    if isinstance(expr, (Arithmetic, Logic)):
        return type(expr)(expr.op, tuple(rewrite(a) for a in expr.args))
    if isinstance(expr, Comparison):
        return Comparison(expr.op, rewrite(expr.left), rewrite(expr.right))
    return expr


def columns_of(expr: Expr) -> set[str]:
    """The ``deal`` columns an expression reads (``n`` for a range of levels)."""
    names: set[str] = set()
    stack: list[Expr] = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, Column):
            names.add(e.name)
        elif isinstance(e, Levels):
            names.add("n")
        stack.extend(_children(e))
    return names


def to_sql(expr: Expr) -> Any:
    """The SQLAlchemy expression over :class:`~whist_catalogue.store.models.DealRow` (constants become bound
    parameters; no text of the user's reaches SQL)."""
    if isinstance(expr, Column):
        return getattr(DealRow, expr.name)
    if isinstance(expr, Constant):
        if isinstance(expr.value, bool):
            return sa.true() if expr.value else sa.false()
        return sa.literal(expr.value, sa.BigInteger) if isinstance(expr.value, int) else sa.literal(expr.value)
    if isinstance(expr, Levels):
        return sa.and_(DealRow.key >= 1 << (2 * expr.low), DealRow.key < 1 << (2 * expr.high + 1))
    if isinstance(expr, ByValue):
        return to_sql(expr.expr)
    if isinstance(expr, Arithmetic):
        # Columns in arithmetic as 64-bit integers: PostgreSQL would compute in 32 bits and overflow.
        args = [sa.cast(to_sql(a), sa.BigInteger) if isinstance(a, Column) else to_sql(a) for a in expr.args]
        if expr.op == "neg":
            return -args[0]
        if expr.op == "&":
            return args[0].bitwise_and(args[1])
        return _SQL_ARITHMETIC[expr.op](args[0], args[1])
    if isinstance(expr, Comparison):
        # A constant stays a plain bound parameter, so that an index on the column applies.
        right = expr.right.value if isinstance(expr.right, Constant) else to_sql(expr.right)
        return _OPS[expr.op](to_sql(expr.left), right)
    if expr.op == "not":
        return sa.not_(to_sql(expr.args[0]))
    parts = [to_sql(a) for a in expr.args]
    return sa.and_(*parts) if expr.op == "and" else sa.or_(*parts)


_SQL_ARITHMETIC: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
}


# -- compiled pieces ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Num:
    """An integer expression equal to the quantity times 2^scale, |expr| ≤ bound."""

    expr: Expr
    scale: int
    bound: int
    field: str | None = None


@dataclass(frozen=True, slots=True)
class _Const:
    value: Any  # Fraction, Infinitesimal, Value, player str, or tuple of _Const


@dataclass(frozen=True, slots=True)
class _Bool:
    expr: Expr


@dataclass(frozen=True, slots=True)
class _Special:
    field: Field  # value, infinitesimal, player, pair


def _fail(node: Node, message: str) -> SearchSyntaxError:
    return SearchSyntaxError(f"search: {message} (at position {node.pos})")


def _check_bound(node: Node, bound: int) -> int:
    if bound >= MAX_SQL_INT:
        raise _fail(node, "numbers too large for the database")
    return bound


class _Compiler:
    def compile_bool(self, node: Node) -> Expr:
        result = self.compile(node)
        if isinstance(result, _Bool):
            return result.expr
        if isinstance(result, _Special) and result.field.kind == "flag":
            return _flag(result.field.bit)
        raise _fail(node, f"{_describe(node)} is not a condition (compare it: n = 5, value >= 2, ace = W …)")

    def compile(self, node: Node) -> _Num | _Const | _Bool | _Special:
        method: Callable[[Node], Any] = getattr(self, f"_{node.kind}")
        return method(node)

    # -- logic ---------------------------------------------------------------------------------
    def _or(self, node: Node) -> _Bool:
        return _Bool(any_of(*(self.compile_bool(a) for a in node.args)))

    def _and(self, node: Node) -> _Bool:
        return _Bool(all_of(*(self.compile_bool(a) for a in node.args)))

    def _not(self, node: Node) -> _Bool:
        return _Bool(negation(self.compile_bool(node.args[0])))

    # -- atoms ---------------------------------------------------------------------------------
    def _num(self, node: Node) -> _Const:
        return _Const(Fraction(node.text))

    def _name(self, node: Node) -> _Num | _Const | _Special:
        word = node.text
        lower = word.lower()
        name = ALIASES.get(lower, lower)
        if name in FIELDS:
            f = FIELDS[name]
            if f.kind == "number":
                assert f.column is not None
                return _Num(Column(f.column), f.scale, f.bound, f.name)
            return _Special(f)
        if lower in PLAYER_NAMES:
            return _Const(PLAYER_NAMES[lower])
        if (m := _EPSILON.fullmatch(lower)) is not None:
            if len(m.group(1)) > 3:
                raise _fail(node, f"infinitesimal out of range: {word}")
            return _Const(Infinitesimal.epsilon(int(m.group(1))))
        known = ", ".join(sorted(FIELDS))
        raise _fail(node, f"unknown field {word!r} (fields: {known})")

    def _tuple(self, node: Node) -> _Const | _Special:
        items = [self.compile(a) for a in node.args]
        if all(isinstance(i, _Const) for i in items):
            return _Const(tuple(items))
        raise _fail(node, "a list in parentheses may hold constants only, e.g. (1, 2)")

    def _call(self, node: Node) -> _Bool:
        name = node.text.lower()
        if name == "class":
            return self._value_class(node)
        if name not in ("counterexample", "counterexamples"):
            raise _fail(node, f"unknown function {node.text!r} (there are counterexample(…) and class(…))")
        if len(node.args) != 1:
            raise _fail(node, "counterexample takes one check: counterexample(12.2)")
        arg = node.args[0]
        if arg.kind not in ("num", "name"):
            raise _fail(arg, "counterexample takes the number or name of a check, e.g. counterexample(12.2)")
        key = arg.text.lower()
        if key == "any":
            bits = sum(1 << c for c, check in enumerate(CHECK_NAMES) if check != "conjecture_12_4_labeled")
            return _Bool(_flag_mask(bits))
        check = CHECK_ALIASES.get(key, key)
        if check not in CHECK_NAMES:
            options = ", ".join(list(CHECK_ALIASES) + list(CHECK_NAMES) + ["any"])
            raise _fail(arg, f"unknown check {arg.text!r} (known: {options})")
        return _Bool(_flag(CHECK_NAMES.index(check)))

    def _value_class(self, node: Node) -> _Bool:
        """class(dyadic): the classes of ``whist_catalogue.engine.statistics.value_class``, written with _ for spaces and -."""
        classes = {c.replace(" ", "_").replace("-", "_"): q for c, q in VALUE_CLASS_QUERIES.items()}
        if len(node.args) != 1 or node.args[0].kind != "name" or node.args[0].text.lower() not in classes:
            raise _fail(node, f"class takes one of {', '.join(classes)}, e.g. class(dyadic)")
        return _Bool(self.compile_bool(parse(classes[node.args[0].text.lower()])))

    # -- arithmetic ----------------------------------------------------------------------------
    def _neg(self, node: Node) -> _Num | _Const:
        x = self.compile(node.args[0])
        if isinstance(x, _Const) and not isinstance(x.value, (str, tuple)):
            return _Const(-x.value)
        if isinstance(x, _Num):
            return _Num(Arithmetic("neg", (x.expr,)), x.scale, x.bound)
        raise _fail(node, f"cannot negate {_describe(node.args[0])}")

    def _add(self, node: Node) -> _Num | _Const:
        return self._additive(node, +1)

    def _sub(self, node: Node) -> _Num | _Const:
        return self._additive(node, -1)

    def _additive(self, node: Node, sign: int) -> _Num | _Const:
        a, b = (self.compile(x) for x in node.args)
        if isinstance(a, _Const) and isinstance(b, _Const):
            return _Const(_const_add(node, a.value, b.value, sign))
        x, y = self._num_operand(node, a), self._num_operand(node, b)
        scale = max(x.scale, y.scale)
        xs, ys = _rescale(node, x, scale), _rescale(node, y, scale)
        bound = _check_bound(node, xs.bound + ys.bound)
        return _Num(Arithmetic("+" if sign > 0 else "-", (xs.expr, ys.expr)), scale, bound)

    def _pm(self, node: Node) -> _Const:
        """a ± ε₀: only constants (no single-suit value has ±ε₀, but one may compare with it)."""
        a, b = (self.compile(x) for x in node.args)
        if not (isinstance(a, _Const) and isinstance(b, _Const) and isinstance(b.value, Infinitesimal)
                and b.value.index == 0):
            raise _fail(node, "± is only for constants: 1/2 +- e0")
        return _Const(_const_add(node, a.value, Infinitesimal.fuzzy(), +1))

    def _mul(self, node: Node) -> _Num | _Const:
        a, b = (self.compile(x) for x in node.args)
        if isinstance(a, _Const) and isinstance(b, _Const):
            p, q = _fraction(node, a.value), _fraction(node, b.value)
            return _Const(p * q)
        x, y = self._num_operand(node, a), self._num_operand(node, b)
        bound = _check_bound(node, x.bound * y.bound)
        if x.scale + y.scale > 60:
            raise _fail(node, "numbers too fine for the database")
        return _Num(Arithmetic("*", (x.expr, y.expr)), x.scale + y.scale, bound)

    def _div(self, node: Node) -> _Num | _Const:
        a, b = (self.compile(x) for x in node.args)
        if not isinstance(b, _Const):
            raise _fail(node, "only division by a constant is allowed")
        q = _fraction(node, b.value)
        if q == 0:
            raise _fail(node, "division by zero")
        if isinstance(a, _Const):
            return _Const(_fraction(node, a.value) / q)
        x = self._num_operand(node, a)
        inverse = 1 / q
        if not is_dyadic(inverse):
            raise _fail(node, f"a field can be divided only by a number whose inverse is dyadic, not by {q}")
        return _scale_by(node, x, inverse)

    def _num_operand(self, node: Node, x: Any) -> _Num:
        if isinstance(x, _Num):
            return x
        if isinstance(x, _Const):
            q = _fraction(node, x.value)
            if not is_dyadic(q):
                raise _fail(node, f"{q} is not a dyadic number, so it cannot be combined with a field")
            k = q.denominator.bit_length() - 1
            return _Num(Constant(q.numerator), k, _check_bound(node, abs(q.numerator)))
        raise _fail(node, f"arithmetic works on numeric fields and numbers, not on {_describe_result(x)}")

    # -- comparisons ---------------------------------------------------------------------------
    def _cmp(self, node: Node) -> _Bool:
        left, right = (self.compile(x) for x in node.args)
        return _Bool(self._compare(node, node.text, left, right))

    def _in(self, node: Node) -> _Bool:
        left = self.compile(node.args[0])
        options = node.args[1]
        items = list(options.args) if options.kind == "tuple" else [options]
        if not items:
            raise _fail(node, "in needs a list: frac in (3/8, 5/8)")
        return _Bool(any_of(*(self._compare(node, "=", left, self.compile(i)) for i in items)))

    def _compare(self, node: Node, op: str, left: Any, right: Any) -> Expr:
        if isinstance(left, _Const) and not isinstance(right, _Const):
            left, right, op = right, left, _MIRROR[op]
        if isinstance(left, _Bool) or isinstance(right, _Bool):
            raise _fail(node, "a condition cannot be compared; combine conditions with and, or, not")
        if isinstance(left, _Const):
            return TRUE if _const_compare(node, op, left.value, right.value) else FALSE
        if isinstance(left, _Special):
            kind = left.field.kind
            if kind == "value":
                return _compare_value(node, op, right)
            if kind == "infinitesimal":
                return _compare_infinitesimal(node, op, right)
            if kind == "player":
                return _compare_player(node, op, left.field, right)
            if kind == "pair":
                return self._compare_pair(node, op, left.field, right)
            raise _fail(node, f"{left.field.name} is a condition by itself; it cannot be compared")
        assert isinstance(left, _Num)
        if isinstance(right, _Const):
            q = _fraction(node, right.value)
            if left.field == "n":
                return _n_range(op, q)
            return _compare_num_const(node, op, left, q)
        if isinstance(right, _Num):
            scale = max(left.scale, right.scale)
            x, y = _rescale(node, left, scale), _rescale(node, right, scale)
            return Comparison(op, x.expr, y.expr)
        raise _fail(node, f"cannot compare a number with {_describe_result(right)}")

    def _compare_pair(self, node: Node, op: str, field: Field, right: Any) -> Expr:
        if op not in ("=", "!="):
            raise _fail(node, f"{field.name} can only be tested with = or !=")
        parts = [self._name(Node("name", node.pos, (), p)) for p in field.parts]
        if isinstance(right, _Special) and right.field.kind == "pair":
            others = [self._name(Node("name", node.pos, (), p)) for p in right.field.parts]
        elif isinstance(right, _Const) and isinstance(right.value, tuple) and len(right.value) == len(parts):
            others = list(right.value)
        else:
            raise _fail(node, f"{field.name} compares with a pair such as (1, 2)")
        equal = all_of(*(self._compare(node, "=", a, b) for a, b in zip(parts, others)))
        return equal if op == "=" else negation(equal)


_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
_MIRROR = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _flag(bit: int | None) -> Expr:
    assert bit is not None
    return _flag_mask(1 << bit)


def _flag_mask(mask: int) -> Expr:
    # "flags != 0" first: it lets the database use the partial index on flagged deals.
    flags = Column("flags")
    return all_of(Comparison("!=", flags, Constant(0)), Comparison("!=", Arithmetic("&", (flags, Constant(mask))), Constant(0)))


def _describe(node: Node) -> str:
    return repr(node.text) if node.text else f"the {node.kind} expression"


def _describe_result(x: Any) -> str:
    if isinstance(x, _Special):
        return f"{x.field.name} ({x.field.kind})"
    if isinstance(x, _Const):
        return repr(_const_text(x.value))
    return "a condition"


def _const_text(v: Any) -> str:
    if isinstance(v, tuple):
        return "(" + ", ".join(_const_text(i.value) for i in v) + ")"
    if isinstance(v, (Value, Infinitesimal)):
        return str(v)
    return str(v)


def _fraction(node: Node, v: Any) -> Fraction:
    if isinstance(v, Fraction):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        return Fraction(v)
    if isinstance(v, Value) and v.infinitesimal.is_zero:
        return v.number
    raise _fail(node, f"expected a number, not {_const_text(v)!r}")


def _as_value(node: Node, v: Any) -> Value:
    if isinstance(v, Value):
        return v
    if isinstance(v, Infinitesimal):
        return Value(0, v)
    q = _fraction(node, v)
    if not is_dyadic(q):
        return _NonDyadic(q)  # type: ignore[return-value]
    return Value(q)


class _NonDyadic:
    """A rational that is not dyadic: no value equals it, but values compare with it."""

    __slots__ = ("number",)

    def __init__(self, number: Fraction) -> None:
        self.number = number


def _const_add(node: Node, a: Any, b: Any, sign: int) -> Any:
    if isinstance(a, (str, tuple)) or isinstance(b, (str, tuple)):
        raise _fail(node, "cannot add players or lists")
    b_val = b if sign > 0 else -b
    if isinstance(a, Fraction) and isinstance(b_val, Fraction):
        return a + b_val
    if isinstance(a, Infinitesimal) and isinstance(b_val, Infinitesimal):
        return a + b_val
    va, vb = _as_value(node, a), _as_value(node, b_val)
    if isinstance(va, _NonDyadic) or isinstance(vb, _NonDyadic):
        raise _fail(node, "a value must have a dyadic numerical part (denominator a power of two)")
    return va + vb


def _const_compare(node: Node, op: str, a: Any, b: Any) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        if op not in ("=", "!="):
            raise _fail(node, "players compare with = or != only")
        return (a == b) == (op == "=")
    if isinstance(a, tuple) or isinstance(b, tuple):
        if op not in ("=", "!="):
            raise _fail(node, "lists compare with = or != only")
        same = isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and all(
            _const_compare(node, "=", x.value, y.value) for x, y in zip(a, b))
        return same == (op == "=")
    va, vb = _as_value(node, a), _as_value(node, b)
    if isinstance(va, _NonDyadic) or isinstance(vb, _NonDyadic):
        return _OPS[op](va.number, vb.number)
    return {"=": va == vb, "!=": va != vb, "<": va < vb, "<=": va <= vb, ">": va > vb, ">=": va >= vb}[op]


def _rescale(node: Node, x: _Num, scale: int) -> _Num:
    if x.scale == scale:
        return x
    factor = 1 << (scale - x.scale)
    return _Num(Arithmetic("*", (x.expr, Constant(factor))), scale, _check_bound(node, x.bound * factor), None)


def _scale_by(node: Node, x: _Num, q: Fraction) -> _Num:
    """x · q for a dyadic constant q."""
    k = q.denominator.bit_length() - 1
    if x.scale + k > 60:
        raise _fail(node, "numbers too fine for the database")
    expr = x.expr if q.numerator == 1 else Arithmetic("*", (x.expr, Constant(q.numerator)))
    return _Num(expr, x.scale + k, _check_bound(node, x.bound * abs(q.numerator)))


def _compare_num_const(node: Node, op: str, x: _Num, q: Fraction) -> Expr:
    """x/2^scale OP q, with the constant scaled to an integer (so an index on the column applies)."""
    target = q * (1 << x.scale)
    if abs(target) > MAX_SQL_INT:
        raise _fail(node, f"number too large: {q}")
    if target.denominator == 1:
        return Comparison(op, x.expr, Constant(int(target)))
    if op == "=":
        return FALSE
    if op == "!=":
        return TRUE
    lo, hi = floor(target), ceil(target)
    return Comparison("<=", x.expr, Constant(lo)) if op in ("<", "<=") else Comparison(">=", x.expr, Constant(hi))


def _n_range(op: str, q: Fraction) -> Expr:
    """n OP q as a range of keys: level n holds the keys [2^(2n), 2^(2n+1))."""
    if op == "!=":
        return negation(_n_range("=", q))
    if op == "=":
        if q.denominator != 1:
            return FALSE
        low = high = int(q)
    elif op in (">", ">="):
        low = floor(q) + 1 if op == ">" else ceil(q)
        high = MAX_LEVEL_N
    else:
        high = ceil(q) - 1 if op == "<" else floor(q)
        low = 1
    low, high = max(low, 1), min(high, MAX_LEVEL_N)
    if low > high:
        return FALSE
    return Levels(low, high)


def _rank_expr() -> Any:
    """The order of infinitesimals as an integer: 0, ±1 for ±ε₀, ±(k+1) for ±ε_k."""
    return Arithmetic("*", (Column("inf_sign"), Arithmetic("+", (Column("stoppers"), Constant(1)))))


def _inf_parts(x: Infinitesimal) -> tuple[int, int]:
    return x.sign, abs(x.index)


def _nonzero_inf(*conditions: Expr) -> Expr:
    """Conditions that imply a nonzero infinitesimal, with "inf_sign != 0" spelled out: it lets the
    database use the partial index on the few deals whose value has an infinitesimal part."""
    return all_of(Comparison("!=", Column("inf_sign"), Constant(0)), *conditions)


def _inf_equals(x: Infinitesimal) -> Expr:
    sign, stoppers = _inf_parts(x)
    if sign == 0:
        return Comparison("=", Column("inf_sign"), Constant(0))
    return _nonzero_inf(Comparison("=", Column("inf_sign"), Constant(sign)), Comparison("=", Column("stoppers"), Constant(stoppers)))


def _inf_order(op: str, x: Infinitesimal) -> Expr:
    """The stored infinitesimal OP x, in the order of §6.1.6 (x may be ±ε₀, incomparable with 0)."""
    if x.is_fuzzy:
        # Only 0 shares the rank of ±ε₀ and it is not comparable with it: <= is <, >= is >, = never holds.
        op = {"<=": "<", ">=": ">", "=": "false", "!=": "true"}.get(op, op)
        if op in ("false", "true"):
            return FALSE if op == "false" else TRUE
    elif op in ("=", "!="):
        equal = _inf_equals(x)
        return equal if op == "=" else negation(equal)
    rank = x.rank
    if rank > 0 and op in (">", ">="):  # positive side: one index range
        stoppers = rank - 1 if op == ">=" else rank
        return _nonzero_inf(Comparison("=", Column("inf_sign"), Constant(1)), Comparison(">=", Column("stoppers"), Constant(stoppers)))
    if rank < 0 and op in ("<", "<="):
        stoppers = -rank - 1 if op == "<=" else -rank
        return _nonzero_inf(Comparison("=", Column("inf_sign"), Constant(-1)), Comparison(">=", Column("stoppers"), Constant(stoppers)))
    if rank == 0 and op in (">", "<"):
        return _nonzero_inf(Comparison("=", Column("inf_sign"), Constant(1 if op == ">" else -1)))
    return Comparison(op, _rank_expr(), Constant(rank))


def _compare_infinitesimal(node: Node, op: str, right: Any) -> Expr:
    if isinstance(right, _Const):
        v = right.value
        if isinstance(v, Fraction) and v == 0:
            v = Infinitesimal()
        if isinstance(v, Value) and v.number == 0:
            v = v.infinitesimal
        if isinstance(v, Infinitesimal):
            return _inf_order(op, v)
    raise _fail(node, "inf compares with an infinitesimal: 0, e0, -e0, e2, -e3 …")


def _compare_value(node: Node, op: str, right: Any) -> Expr:
    if not isinstance(right, _Const) or isinstance(right.value, (str, tuple)):
        raise _fail(node, "value compares with a constant value such as 3+3/8, 2-e2 or e0")
    v = _as_value(node, right.value)
    number = Column("number_scaled")
    if isinstance(v, _NonDyadic):
        return _compare_num_const(node, op, _Num(number, SCALE_BITS, _BIG), v.number)
    target = v.number * (1 << SCALE_BITS)
    if target.denominator != 1:  # finer than any stored value
        return _compare_num_const(node, op, _Num(number, SCALE_BITS, _BIG), v.number)
    if abs(target) > MAX_SQL_INT:
        raise _fail(node, f"number too large: {v.number}")
    q = int(target)
    if op == "=":
        return all_of(Comparison("=", number, Constant(q)), _inf_order("=", v.infinitesimal))
    if op == "!=":
        return negation(all_of(Comparison("=", number, Constant(q)), _inf_order("=", v.infinitesimal)))
    strict = {"<=": "<", ">=": ">"}.get(op, op)
    beyond = Comparison(strict, number, Constant(q))
    return any_of(beyond, all_of(Comparison("=", number, Constant(q)), _inf_order(op, v.infinitesimal)))


def _compare_player(node: Node, op: str, field: Field, right: Any) -> Expr:
    if op not in ("=", "!="):
        raise _fail(node, f"{field.name} can only be tested with = or !=")
    if isinstance(right, _Const) and isinstance(right.value, str):
        other: Expr = Constant(right.value)
    elif isinstance(right, _Special) and right.field.kind == "player" and right.field.column is not None:
        other = Column(right.field.column)
    else:
        raise _fail(node, f"{field.name} compares with a player: W or E")
    assert field.column is not None
    return Comparison(op, Column(field.column), other)


def compile_condition(text: str) -> Expr:
    """The compiled condition (:data:`Expr`) of a search expression.

    Raises :class:`~whist_catalogue.errors.SearchSyntaxError` for anything malformed,
    unknown or out of range; the message names the problem and its position.
    """
    return _Compiler().compile_bool(parse(text))


def compile_search(text: str) -> ColumnElement[bool]:
    """The SQLAlchemy condition on :class:`~whist_catalogue.store.models.DealRow` for a search expression
    (:func:`compile_condition`, then :func:`to_sql`)."""
    return to_sql(compile_condition(text))


def condition_of(expression: str | None = None, *, level: int | None = None) -> Expr:
    """An expression and/or a level, combined as one compiled condition (never by pasting text together)."""
    parts = []
    if expression is not None:
        parts.append(compile_condition(expression))
    if level is not None:
        parts.append(_n_range("=", Fraction(level)))
    return all_of(*parts)


def search_condition(expression: str | None = None, *, level: int | None = None) -> ColumnElement[bool]:
    """:func:`condition_of` as a SQLAlchemy condition on :class:`~whist_catalogue.store.models.DealRow`."""
    return to_sql(condition_of(expression, level=level))


def check_page(limit: int | None, offset: int | None = 0, *, what: str = "search") -> None:
    """A page of results, checked before any query: limit and offset whole numbers in [0, :data:`MAX_ROWS`]."""
    for name, number in (("limit", limit), ("offset", offset)):
        if number is None:
            continue
        if isinstance(number, bool) or not isinstance(number, int):
            raise SearchSyntaxError(f"{what}: {name} must be a whole number, got {number!r}")
        if not 0 <= number <= MAX_ROWS:
            raise SearchSyntaxError(f"{what}: {name} must be between 0 and {MAX_ROWS:,}, got {number}")


def describe_fields() -> list[tuple[str, str, str]]:
    """(name, kind, help) of every field, for help texts and the app."""
    return [(f.name, f.kind, f.help) for f in FIELDS.values()]



# -- the same conditions over the level store's chunks ------------------------------------------------------
#
# A level held only as chunks has no rows for SQL to scan.  The compiled condition is evaluated instead by
# NumPy, node by node (:func:`evaluate`), over whole columns of a chunk at once — the same tree as SQL's, so
# the two can never disagree on what an expression means (the suite compares them on levels held both ways).
# Whatever reads the value alone (n, number, frac, inf, outcome, class(…) …) is decided once per distinct
# value of the chunk's table and read off the codes (:class:`ByValue`); what reads the deal (h, greedy,
# five_card, ace, flags, key) takes the deals' columns from :func:`whist_catalogue.store.levels.chunk_columns`,
# which computes only the quantities asked for, a chunk at a time (bounded memory).

VALUE_COLUMNS = frozenset(
    {"n", "numerator", "denominator", "number_scaled", "fraction_scaled", "inf_sign", "stoppers", "west_leads",
     "east_leads"}
)
"""Columns that depend on the value only (and ``n``)."""


class _Unknown:
    """A column not known in :func:`levels_asked`'s three-valued evaluation."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()

_NUMPY_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def _wide(x: Any) -> Any:
    """An integer array as int64: the compiler's bounds keep every result below 2^62."""
    import numpy as np

    if isinstance(x, np.ndarray) and x.dtype.kind in "iub" and x.dtype != np.int64:
        return x.astype(np.int64)
    return x


def _fits(x: Any, constant: Any) -> bool:
    """Whether an integer constant lies in the range of an array's integer type (else compare in 64 bits)."""
    import numpy as np

    if not isinstance(x, np.ndarray) or x.dtype.kind not in "iu" or isinstance(constant, bool) \
            or not isinstance(constant, int):
        return True
    info = np.iinfo(x.dtype)
    return info.min <= constant <= info.max


def evaluate(expr: Expr, column: Callable[[str], Any], by_value: Callable[[Expr], Any] | None = None) -> Any:
    """The value of a compiled condition (or integer expression) over NumPy columns: ``column(name)`` gives a
    ``deal`` column as an array (or a scalar, or :data:`UNKNOWN`), ``by_value(expr)`` a :class:`ByValue`'s;
    the result is a bool array or a scalar (or :data:`UNKNOWN`).  ``and`` and ``or`` stop at the first item
    that decides them, so a chunk no deal of which can match costs no deal's quantities."""
    import numpy as np

    if isinstance(expr, Column):
        return column(expr.name)
    if isinstance(expr, Constant):
        return expr.value
    if isinstance(expr, Levels):
        n = column("n")
        if n is UNKNOWN:
            return UNKNOWN
        return (n >= expr.low) & (n <= expr.high) if isinstance(n, np.ndarray) else expr.low <= n <= expr.high
    if isinstance(expr, ByValue):
        if by_value is None:
            return evaluate(expr.expr, column)
        return by_value(expr.expr)
    if isinstance(expr, Arithmetic):
        args = [_wide(evaluate(a, column, by_value)) for a in expr.args]
        if any(a is UNKNOWN for a in args):
            return UNKNOWN
        if expr.op == "neg":
            return -args[0]
        if expr.op == "&":
            return np.bitwise_and(args[0], args[1])
        return {"+": np.add, "-": np.subtract, "*": np.multiply}[expr.op](args[0], args[1])
    if isinstance(expr, Comparison):
        left = evaluate(expr.left, column, by_value)
        if left is UNKNOWN:
            return UNKNOWN
        right = evaluate(expr.right, column, by_value)
        if right is UNKNOWN:
            return UNKNOWN
        if not (_fits(left, right) and _fits(right, left)):
            left, right = _wide(left), _wide(right)
        result = _NUMPY_COMPARE[expr.op](left, right)
        return bool(result) if isinstance(result, np.bool_) else result
    if expr.op == "not":
        inner = evaluate(expr.args[0], column, by_value)
        if inner is UNKNOWN:
            return UNKNOWN
        return ~inner if isinstance(inner, np.ndarray) else not inner
    return _logical(expr.op == "and", expr.args, column, by_value)


def _logical(conjunction: bool, items: tuple[Expr, ...], column: Callable[[str], Any],
             by_value: Callable[[Expr], Any] | None) -> Any:
    """``and`` (conjunction) or ``or`` in three-valued logic over scalars and arrays."""
    import numpy as np

    decided = not conjunction  # the scalar that decides: False for and, True for or
    unknown = False
    result: Any = conjunction
    for item in items:
        value = evaluate(item, column, by_value)
        if value is UNKNOWN:
            unknown = True
            continue
        if isinstance(value, np.ndarray):
            result = (result & value) if conjunction else (result | value)
            if isinstance(result, np.ndarray) and not unknown and \
                    (not result.any() if conjunction else result.all()):
                return result  # every deal already decided
        elif bool(value) == decided:
            return decided
    if unknown:
        return UNKNOWN
    return result


def uses_key_field(expression: str | None) -> bool:
    """Whether the expression names the ``key`` field itself."""
    if expression is None:
        return False
    return "key" in columns_of(compile_condition(expression))


def levels_asked(condition: Expr, top: int = MAX_LEVEL_N) -> list[int]:
    """The levels n ≤ ``top`` on which the condition is not false whatever the deal: the levels a search asks for."""
    asked = []
    for n in range(1, top + 1):
        def column(name: str, n: int = n) -> Any:
            return n if name == "n" else UNKNOWN

        if evaluate(condition, column) is not False:
            asked.append(n)
    return asked


def _players_as_truth(expr: Expr) -> Expr:
    """``expr`` with the players W and E as True and False, as :func:`~whist_catalogue.store.levels.chunk_columns`
    holds them."""
    if isinstance(expr, Constant) and isinstance(expr.value, str):
        return Constant(expr.value == "W")
    return _with_children(expr, _players_as_truth)


def _by_value(expr: Expr) -> Expr:
    """``expr`` with each largest part that reads the value alone (and at least one column) wrapped in
    :class:`ByValue`."""
    used = columns_of(expr)
    if used and used <= VALUE_COLUMNS:
        return ByValue(expr)
    return _with_children(expr, _by_value)


def narrowing_hint(expression: str | None) -> str:
    """How to narrow a search that matches too many deals, for a message: a level when it asks for several,
    another condition when it already names one level (``add n = 10`` would make ``n = 14`` match nothing)."""
    try:
        asked = levels_asked(condition_of(expression))
    except SearchSyntaxError:
        asked = []
    if len(asked) == 1:
        return "add a condition, such as h = 1 or frac = 3/8"
    # Below level 10 a level holds at most 184,756 deals: a size that sorts in a moment.
    small = [n for n in asked if n <= 10]
    return f"add n = {max(small) if small else min(asked, default=10)}"


class ChunkQuery:
    """A search expression (and/or a level) ready to run over chunks: :meth:`on_table` decides it per distinct
    value when it reads the value alone, :meth:`on_chunk` per deal."""

    def __init__(self, expression: str | None = None, *, level: int | None = None) -> None:
        self.condition = condition_of(expression, level=level)
        self.sql = to_sql(self.condition)
        used = columns_of(self.condition)
        self.per_deal = not used <= VALUE_COLUMNS
        self.deal_fields = sorted(used - VALUE_COLUMNS)
        """The per-deal columns the search reads (what :func:`~whist_catalogue.store.levels.chunk_columns`
        computes)."""
        self._split = _by_value(_players_as_truth(self.condition))

    def asked(self, top: int = MAX_LEVEL_N) -> list[int]:
        """The levels this search asks for (:func:`levels_asked`)."""
        return levels_asked(self.condition, top)

    def on_table(self, n: int, numerator: Any, infinitesimal: Any) -> Any:
        """Per value of a table (engine arrays): does a deal of level n with that value match?  Only when
        not :attr:`per_deal`."""
        import numpy as np

        if self.per_deal:
            raise ValueError("this search needs the deals, not only their values")
        result = self._per_value(n, numerator, infinitesimal)(self.condition)
        return np.broadcast_to(np.asarray(result, bool), numerator.shape)

    @staticmethod
    def _per_value(n: int, numerator: Any, infinitesimal: Any) -> Callable[[Expr], Any]:
        from whist_catalogue.store.levels import value_columns

        columns = value_columns(numerator, infinitesimal)
        return lambda expr: evaluate(expr, lambda name: n if name == "n" else columns[name])

    def on_chunk(self, chunk: Any) -> Any:
        """Per deal of a decoded chunk (:class:`whist_catalogue.engine.chunks.Chunk`): does it match?"""
        import numpy as np

        n = chunk.n
        if not self.per_deal:
            return self.on_table(n, chunk.table.numerator, chunk.table.infinitesimal)[chunk.codes]
        from whist_catalogue.store.levels import chunk_columns

        per_value = self._per_value(n, chunk.table.numerator, chunk.table.infinitesimal)
        columns: dict[str, Any] = {"n": n}

        def by_value(expr: Expr) -> Any:
            result = per_value(expr)
            return result[chunk.codes] if isinstance(result, np.ndarray) else result

        def column(name: str) -> Any:
            if name not in columns:
                # Every per-deal column the search reads, in one pass of the kernels (they share the work).
                columns.update(chunk_columns(chunk, self.deal_fields))
            return columns[name]

        result = evaluate(self._split, column, by_value)
        return np.broadcast_to(np.asarray(result, bool), chunk.codes.shape)
