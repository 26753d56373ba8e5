"""The search language's meaning: its fields, and the compiler from the syntax tree to conditions (docs/search.md).

The compiler lowers a :class:`~.syntax.Node` tree to this module's own few node classes (:data:`Expr`): the
per-deal fields of :mod:`whist_catalogue.store.fields` by name, integer constants, 64-bit integer arithmetic,
comparisons, logic and ranges of levels — nothing else, so that what an expression means can change with no
library's internals.  :mod:`.arrays` evaluates them over whole chunks.

Constants are exact: ``3+3/8``, ``0.375``, ``e2`` (ε₂), ``-e0``, ``2-e2``, ``W``/``E``, ``(1, 2)``, ``1/2 +- e0``
(±ε₀, which no single-suit value has).  Numbers compare exactly (``number`` is q·2^24 in the arrays, so
``number >= 2`` is an integer comparison); every integer the search computes stays below 2^62.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor
from typing import Any, Callable

from whist_catalogue.constants import CHECK_NAMES, MAX_LEVEL_N, SCALE_BITS
from whist_catalogue.errors import SearchSyntaxError
from whist_catalogue.store.fields import FIELDS as _REGISTRY
from whist_catalogue.store.fields import Field
from whist_catalogue.store.search.syntax import Node, parse
from whist_catalogue.theory.values import Infinitesimal, Value, is_dyadic

__all__ = [
    "FIELDS", "ALIASES", "CHECK_ALIASES", "MAX_ROWS", "Expr", "Column", "Constant", "Arithmetic", "Comparison",
    "Logic", "Levels", "ByValue", "TRUE", "FALSE", "all_of", "any_of", "negation", "children", "with_children",
    "columns_of", "compile_search", "condition_of", "check_page", "describe_fields", "COMPARE",
]

MAX_ROWS = 10**15
"""The largest ``limit`` or ``offset`` of a search: more deals than any catalogue holds, and far below the
64-bit integers."""
MAX_INT = 1 << 62
"""Every integer a compiled condition computes stays below this (the compiler checks the bounds)."""

# -- fields ------------------------------------------------------------------------------------------------

FIELDS: dict[str, Field] = {f.searched_as: f for f in _REGISTRY.values() if f.search is not None}
"""The language's fields by the name it gives them (:mod:`whist_catalogue.store.fields`)."""
ALIASES: dict[str, str] = {alias: f.searched_as for f in FIELDS.values() for alias in f.aliases}
"""Other names of fields: ``hbar`` for ``h_upper`` …"""
CHECK_ALIASES = {"12.2": "conjecture_12_2", "12.3": "conjecture_12_3", "12.4": "conjecture_12_4",
                 "8.10": "theorem_8_10", "9.4": "theorem_9_4", "holdup": "conjecture_12_4_labeled"}
"""What ``counterexample(…)`` accepts besides the names of :data:`whist_catalogue.constants.CHECK_NAMES` and ``any``."""
PLAYER_NAMES = {"w": "W", "west": "W", "e": "E", "east": "E"}
_EPSILON = re.compile(r"e(\d+)")


# -- the compiled condition: the language's own tree of operations ------------------------------------------


@dataclass(frozen=True, slots=True)
class Column:
    """A per-deal field's array, by its name in :data:`whist_catalogue.store.fields.FIELDS`."""

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
    """low ≤ n ≤ high: which levels can match is decided before any deal is read (:func:`.arrays.levels_asked`)."""

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
    """The conjunction, with constant conditions folded."""
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
        # "not not x" is x, in the three-valued logic of levels_asked too; folding it keeps a chain of nots
        # within the documented nesting shallow.
        return item.args[0]
    return Logic("not", (item,))


def children(expr: Expr) -> tuple[Expr, ...]:
    """The sub-expressions of a node (none for a leaf)."""
    if isinstance(expr, (Arithmetic, Logic)):
        return expr.args
    if isinstance(expr, Comparison):
        return (expr.left, expr.right)
    if isinstance(expr, ByValue):
        return (expr.expr,)
    return ()


def with_children(expr: Expr, rewrite: Callable[[Expr], Expr]) -> Expr:
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
        stack.extend(children(e))
    return names


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
    if bound >= MAX_INT:
        raise _fail(node, "numbers too large for the search's 64-bit integers")
    return bound


class _Compiler:
    def compile_bool(self, node: Node) -> Expr:
        result = self.compile(node)
        if isinstance(result, _Bool):
            return result.expr
        if isinstance(result, _Special) and result.field.search == "flag":
            return _flag(result.field.bit)
        raise _fail(node, f"{_describe(node)} is not a condition (compare it: n = 5, value >= 2, ace = W …)")

    def compile(self, node: Node) -> _Num | _Const | _Bool | _Special:
        match node.kind:
            case "or":
                return _Bool(any_of(*(self.compile_bool(a) for a in node.args)))
            case "and":
                return _Bool(all_of(*(self.compile_bool(a) for a in node.args)))
            case "not":
                return _Bool(negation(self.compile_bool(node.args[0])))
            case "num":
                return _Const(Fraction(node.text))
            case "name":
                return self._name(node)
            case "tuple":
                return self._tuple(node)
            case "call":
                return self._call(node)
            case "neg":
                return self._neg(node)
            case "add" | "sub":
                return self._additive(node, +1 if node.kind == "add" else -1)
            case "pm":
                return self._pm(node)
            case "mul":
                return self._mul(node)
            case "div":
                return self._div(node)
            case "cmp":
                left, right = (self.compile(x) for x in node.args)
                return _Bool(self._compare(node, node.text, left, right))
            case "in":
                return self._in(node)
        raise AssertionError(f"the parser made a node of no known kind: {node.kind}")

    # -- atoms ---------------------------------------------------------------------------------
    def _name(self, node: Node) -> _Num | _Const | _Special:
        word = node.text
        lower = word.lower()
        name = ALIASES.get(lower, lower)
        if name in FIELDS:
            f = FIELDS[name]
            if f.search == "number":
                return _Num(Column(f.name), f.scale, f.bound, f.searched_as)
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
        from whist_catalogue.engine.statistics import VALUE_CLASS_QUERIES

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
            raise _fail(node, "numbers too fine for the search's 64-bit integers")
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
            kind = left.field.search
            if kind == "value":
                return _compare_value(node, op, right)
            if kind == "infinitesimal":
                return _compare_infinitesimal(node, op, right)
            if kind == "player":
                return _compare_player(node, op, left.field, right)
            if kind == "pair":
                return self._compare_pair(node, op, left.field, right)
            raise _fail(node, f"{left.field.searched_as} is a condition by itself; it cannot be compared")
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
            raise _fail(node, f"{field.searched_as} can only be tested with = or !=")
        parts = [self._name(Node("name", node.pos, (), p)) for p in field.parts]
        if isinstance(right, _Special) and right.field.search == "pair":
            others = [self._name(Node("name", node.pos, (), p)) for p in right.field.parts]
        elif isinstance(right, _Const) and isinstance(right.value, tuple) and len(right.value) == len(parts):
            others = list(right.value)
        else:
            raise _fail(node, f"{field.searched_as} compares with a pair such as (1, 2)")
        equal = all_of(*(self._compare(node, "=", a, b) for a, b in zip(parts, others)))
        return equal if op == "=" else negation(equal)


COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "=": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
"""A comparison of the language, on numbers, Fractions or NumPy arrays alike."""
_MIRROR = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _flag(bit: int | None) -> Expr:
    assert bit is not None
    return _flag_mask(1 << bit)


def _flag_mask(mask: int) -> Expr:
    # "flags != 0" first: almost no deal is flagged, and "and" stops at the first part no deal of a chunk meets.
    flags = Column("flags")
    return all_of(Comparison("!=", flags, Constant(0)), Comparison("!=", Arithmetic("&", (flags, Constant(mask))), Constant(0)))


def _describe(node: Node) -> str:
    return repr(node.text) if node.text else f"the {node.kind} expression"


def _describe_result(x: Any) -> str:
    if isinstance(x, _Special):
        return f"{x.field.searched_as} ({x.field.search})"
    if isinstance(x, _Const):
        return repr(_const_text(x.value))
    return "a condition"


def _const_text(v: Any) -> str:
    if isinstance(v, tuple):
        return "(" + ", ".join(_const_text(i.value) for i in v) + ")"
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
        return COMPARE[op](va.number, vb.number)
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
        raise _fail(node, "numbers too fine for the search's 64-bit integers")
    expr = x.expr if q.numerator == 1 else Arithmetic("*", (x.expr, Constant(q.numerator)))
    return _Num(expr, x.scale + k, _check_bound(node, x.bound * abs(q.numerator)))


def _compare_num_const(node: Node, op: str, x: _Num, q: Fraction) -> Expr:
    """x/2^scale OP q, with the constant scaled to an integer (so an index on the column applies)."""
    target = q * (1 << x.scale)
    if abs(target) > MAX_INT:
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


def _nonzero_inf(*conditions: Expr) -> Expr:
    """Conditions that imply a nonzero infinitesimal, with "inf_sign != 0" spelled out: few values have an
    infinitesimal part, and it decides most of a table at once."""
    return all_of(Comparison("!=", Column("inf_sign"), Constant(0)), *conditions)


def _inf_equals(x: Infinitesimal) -> Expr:
    sign, stoppers = x.sign, abs(x.index)
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
    target = v.number * (1 << SCALE_BITS)
    if target.denominator != 1:  # not dyadic, or finer than any stored value
        return _compare_num_const(node, op, _Num(number, SCALE_BITS, _REGISTRY["number_scaled"].bound), v.number)
    if abs(target) > MAX_INT:
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
        raise _fail(node, f"{field.searched_as} can only be tested with = or !=")
    if isinstance(right, _Const) and isinstance(right.value, str):
        other: Expr = Constant(right.value)
    elif isinstance(right, _Special) and right.field.search == "player":
        other = Column(right.field.name)
    else:
        raise _fail(node, f"{field.searched_as} compares with a player: W or E")
    return Comparison(op, Column(field.name), other)


def compile_search(text: str) -> Expr:
    """The compiled condition (:data:`Expr`) of a search expression.

    Raises :class:`~whist_catalogue.errors.SearchSyntaxError` for anything malformed,
    unknown or out of range; the message names the problem and its position.
    """
    return _Compiler().compile_bool(parse(text))


def condition_of(expression: str | None = None, *, level: int | None = None) -> Expr:
    """An expression and/or a level, combined as one compiled condition (never by pasting text together)."""
    parts = []
    if expression is not None:
        parts.append(compile_search(expression))
    if level is not None:
        parts.append(_n_range("=", Fraction(level)))
    return all_of(*parts)


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
    return [(name, f.search or "", f.meaning) for name, f in FIELDS.items()]


