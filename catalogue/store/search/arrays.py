"""The search's array back end: a compiled condition evaluated over whole chunks of the level store (docs/search.md).

The compiled condition (:mod:`.ir`) is evaluated by NumPy, node by node (:func:`evaluate`), over whole arrays of
a chunk's deals at once.  Whatever reads the value alone (n, number, frac, inf, outcome, class(…) …) is decided
once per distinct value of the chunk's table and read off its codes (:class:`~.ir.ByValue`); what reads the deal
(h, greedy, five_card, ace, flags, key) takes the arrays of :class:`whist_catalogue.store.fields.DealColumns`,
which computes only the fields asked for, a chunk at a time (bounded memory).

Over a catalogue: :func:`count` (a condition on the value alone straight from a level's stored counts),
:func:`coverage` (the levels a search asks for, decided before any deal is read) and :func:`matches` (the
matching deals in key order, from an offset or after a given deal: paging by key starts at that deal's chunk).
"""

from __future__ import annotations

from math import comb
from typing import TYPE_CHECKING, Any, Callable, Generator, Iterable

import numpy as np

from whist_catalogue.constants import MAX_LEVEL_N
from whist_catalogue.store.fields import FIELDS, DealColumns
from whist_catalogue.store.records import SearchCoverage
from whist_catalogue.store.search.ir import (COMPARE, ByValue, Comparison, Constant, Expr, Levels, Logic, Arithmetic,
                                             Column, columns_of, condition_of, with_children)
from whist_catalogue.errors import SearchSyntaxError
from whist_catalogue.theory.deals import Deal

if TYPE_CHECKING:
    from whist_catalogue.engine.chunks import Chunk
    from whist_catalogue.store.levels import LevelSource
    from whist_catalogue.store.records import DealRecord

__all__ = ["UNKNOWN", "VALUE_COLUMNS", "LevelProgress", "evaluate", "levels_asked", "narrowing_hint", "ChunkQuery",
           "count", "coverage", "matches", "Matches"]

LevelProgress = Callable[[int, int, int], None]
"""progress(n, done, total): deals of level n searched so far."""

VALUE_COLUMNS = frozenset({f.name for f in FIELDS.values() if f.by_value is not None} | {"n"})
"""The arrays that depend on the value only (and ``n``): decided once per distinct value."""


class _Unknown:
    """A column not known in :func:`levels_asked`'s three-valued evaluation."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()

_ARITHMETIC = {"+": np.add, "-": np.subtract, "*": np.multiply}


def _wide(x: Any) -> Any:
    """An integer array as int64: the compiler's bounds keep every result below 2^62."""
    if isinstance(x, np.ndarray) and x.dtype.kind in "iub" and x.dtype != np.int64:
        return x.astype(np.int64)
    return x


def _fits(x: Any, constant: Any) -> bool:
    """Whether an integer constant lies in the range of an array's integer type (else compare in 64 bits)."""
    if not isinstance(x, np.ndarray) or x.dtype.kind not in "iu" or isinstance(constant, bool) \
            or not isinstance(constant, int):
        return True
    info = np.iinfo(x.dtype)
    return info.min <= constant <= info.max


def evaluate(expr: Expr, column: Callable[[str], Any], by_value: Callable[[Expr], Any] | None = None) -> Any:
    """The value of a compiled condition (or integer expression) over NumPy columns: ``column(name)`` gives a
    field's array (or a scalar, or :data:`UNKNOWN`), ``by_value(expr)`` a :class:`~.ir.ByValue`'s; the result is
    a bool array or a scalar (or :data:`UNKNOWN`).  ``and`` and ``or`` stop at the first item that decides them,
    so a chunk no deal of which can match costs no deal's quantities."""
    match expr:
        case Column(name):
            return column(name)
        case Constant(value):
            return value
        case Levels(low, high):
            n = column("n")
            if n is UNKNOWN:
                return UNKNOWN
            return (n >= low) & (n <= high) if isinstance(n, np.ndarray) else low <= n <= high
        case ByValue(inner):
            return evaluate(inner, column) if by_value is None else by_value(inner)
        case Arithmetic(op, items):
            args = [_wide(evaluate(a, column, by_value)) for a in items]
            if any(a is UNKNOWN for a in args):
                return UNKNOWN
            if op == "neg":
                return -args[0]
            if op == "&":
                return np.bitwise_and(args[0], args[1])
            return _ARITHMETIC[op](args[0], args[1])
        case Comparison(op, left_expr, right_expr):
            left = evaluate(left_expr, column, by_value)
            if left is UNKNOWN:
                return UNKNOWN
            right = evaluate(right_expr, column, by_value)
            if right is UNKNOWN:
                return UNKNOWN
            if not (_fits(left, right) and _fits(right, left)):
                left, right = _wide(left), _wide(right)
            result = COMPARE[op](left, right)
            return bool(result) if isinstance(result, np.bool_) else result
        case Logic("not", (inner,)):
            value = evaluate(inner, column, by_value)
            if value is UNKNOWN:
                return UNKNOWN
            return ~value if isinstance(value, np.ndarray) else not value
        case Logic(op, items):
            return _logical(op == "and", items, column, by_value)
    raise AssertionError(f"no such node: {expr!r}")


def _logical(conjunction: bool, items: tuple[Expr, ...], column: Callable[[str], Any],
             by_value: Callable[[Expr], Any] | None) -> Any:
    """``and`` (conjunction) or ``or`` in three-valued logic over scalars and arrays."""
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
    """``expr`` with the players W and E as True and False, as :class:`~whist_catalogue.store.fields.DealColumns`
    holds them."""
    if isinstance(expr, Constant) and isinstance(expr.value, str):
        return Constant(expr.value == "W")
    return with_children(expr, _players_as_truth)


def _by_value(expr: Expr) -> Expr:
    """``expr`` with each largest part that reads the value alone (and at least one column) wrapped in
    :class:`~.ir.ByValue`."""
    used = columns_of(expr)
    if used and used <= VALUE_COLUMNS:
        return ByValue(expr)
    return with_children(expr, _by_value)


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
        used = columns_of(self.condition)
        self.per_deal = not used <= VALUE_COLUMNS
        self._split = _by_value(_players_as_truth(self.condition))

    def asked(self, top: int = MAX_LEVEL_N) -> list[int]:
        """The levels this search asks for (:func:`levels_asked`)."""
        return levels_asked(self.condition, top)

    def on_table(self, n: int, numerator: np.ndarray, infinitesimal: np.ndarray) -> np.ndarray:
        """Per value of a table (engine arrays): does a deal of level n with that value match?  Only when
        not :attr:`per_deal`."""
        if self.per_deal:
            raise ValueError("this search needs the deals, not only their values")
        result = self._per_value(n, numerator, infinitesimal)(self.condition)
        return np.broadcast_to(np.asarray(result, bool), numerator.shape)

    @staticmethod
    def _per_value(n: int, numerator: np.ndarray, infinitesimal: np.ndarray) -> Callable[[Expr], Any]:
        """An expression of the value alone over a table of values: each field's array over the table made
        when first read (:attr:`~whist_catalogue.store.fields.Field.by_value`)."""
        columns: dict[str, Any] = {"n": n}

        def column(name: str) -> Any:
            if name not in columns:
                by_value = FIELDS[name].by_value
                assert by_value is not None  # VALUE_COLUMNS: only fields of the value reach here
                columns[name] = by_value(numerator, infinitesimal)
            return columns[name]

        return lambda expr: evaluate(expr, column)

    def on_chunk(self, chunk: Chunk) -> np.ndarray:
        """Per deal of a decoded chunk (:class:`whist_catalogue.engine.chunks.Chunk`): does it match?"""
        n = chunk.n
        if not self.per_deal:
            return self.on_table(n, chunk.table.numerator, chunk.table.infinitesimal)[chunk.codes]
        per_value = self._per_value(n, chunk.table.numerator, chunk.table.infinitesimal)
        deals = DealColumns(chunk)

        def by_value(expr: Expr) -> Any:
            result = per_value(expr)
            return result[chunk.codes] if isinstance(result, np.ndarray) else result

        result = evaluate(self._split, lambda name: n if name == "n" else deals[name], by_value)
        return np.broadcast_to(np.asarray(result, bool), chunk.codes.shape)


# -- a search over a catalogue ------------------------------------------------------------------------------------


def coverage(complete: Iterable[int], expression: str | None = None, *, level: int | None = None) -> SearchCoverage:
    """Which levels a search covers, and which of those it asks for the catalogue (of ``complete`` levels)
    lacks."""
    asked = ChunkQuery(expression, level=level).asked()
    complete = frozenset(complete)
    searched = [n for n in asked if n in complete]
    # A search that does not restrict n asks for every level; only a bounded one can miss some.
    bounded = len(asked) < MAX_LEVEL_N
    top = max(complete, default=0)
    missing = [n for n in asked if n not in complete and (bounded or n <= top)]
    return SearchCoverage(searched, missing, impossible=not asked)


def _levels(catalogue: LevelSource, query: ChunkQuery) -> list[int]:
    complete = catalogue.complete_levels()
    return [n for n in query.asked() if n in complete]


def count(catalogue: LevelSource, expression: str | None = None, *, level: int | None = None,
          progress: LevelProgress | None = None) -> int:
    """How many deals of the catalogue's complete levels match
    (:meth:`~whist_catalogue.store.reader.Catalogue.count`)."""
    query = ChunkQuery(expression, level=level)
    found = 0
    for n in _levels(catalogue, query):
        if not query.per_deal:
            table, counts = catalogue.level_table(n)
            found += int(counts[query.on_table(n, table.numerator, table.infinitesimal)].sum())
            continue
        total, done = comb(2 * n, n), 0
        if progress is not None:
            progress(n, 0, total)
        for chunk in catalogue.scan_chunks(n):
            found += int(np.count_nonzero(query.on_chunk(chunk)))
            done += chunk.stop - chunk.start
            if progress is not None:
                progress(n, done, total)
    return found


class Matches:
    """The records of a search, streamed; an iterator and a context manager (closing it releases the connection
    a level's scan holds)."""

    def __init__(self, records: Generator[DealRecord, None, None]) -> None:
        self._records = records

    def __iter__(self) -> Matches:
        return self

    def __next__(self) -> DealRecord:
        return next(self._records)

    def close(self) -> None:
        self._records.close()

    def __enter__(self) -> Matches:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def matches(catalogue: LevelSource, expression: str | None = None, *, level: int | None = None,
            limit: int | None = None, offset: int = 0, after: int | None = None,
            progress: LevelProgress | None = None) -> Matches:
    """The matching deals in key order (levels by n, each in rank order), past the first ``offset`` matches or
    past the deal whose key is ``after``, at most ``limit``: each chunk's matches are yielded as soon as it is
    searched; a page after a key starts at that key's chunk, not at its level's start.  The expression is parsed
    here, so a bad one raises before anything is read."""
    query = ChunkQuery(expression, level=level)
    start = Deal.from_key(after) if after is not None else None
    return Matches(_matches(catalogue, query, limit, offset, start, progress))


def _matches(catalogue: LevelSource, query: ChunkQuery, limit: int | None, offset: int, start: Deal | None,
             progress: LevelProgress | None) -> Generator[DealRecord, None, None]:
    from whist_catalogue.store import derived
    from whist_catalogue.theory.ranking import rank

    remaining, skip = limit, offset
    if remaining == 0:
        return
    for n in _levels(catalogue, query):
        if start is not None and n < start.n:
            continue
        first_rank = rank(start.west) + 1 if start is not None and n == start.n else 0
        first = first_rank // catalogue.chunk_deals(n)
        total = comb(2 * n, n)
        for chunk in catalogue.scan_chunks(n, first):
            places = np.flatnonzero(query.on_chunk(chunk))
            if first_rank > chunk.start:
                places = places[places >= first_rank - chunk.start]
            if progress is not None:
                progress(n, chunk.stop, total)
            if skip >= len(places):
                skip -= len(places)
                continue
            places, skip = places[skip:], 0
            if remaining is not None:
                places = places[:remaining]
            yield from derived.records(chunk, places, catalogue.values_at)
            if remaining is not None:
                remaining -= len(places)
                if remaining == 0:
                    return
