"""A level's values as 2-byte codes: a table of its distinct values, and per deal an index into it.

A level of single-suit deals takes few distinct values — a few hundred at n = 16
(``docs/conjectures.md``) — so each deal's value is stored as a ``uint16`` *code*
into a :class:`ValueTable` instead of the engine's five-byte exact encoding
(:mod:`whist_catalogue.engine.encoding`: a numerator over 2^24 and an
infinitesimal rank).  That is what lets level n − 1 of n = 17 sit in 1.2 GB and
what the catalogue's level store keeps on disk.

A table lists its values in the order of V restricted to single-suit values
(§6.1.6 of the multi-suit paper: by number, then by infinitesimal), so a code
order is the value order and tables of different chunks merge by sorting.

Encoding is one pass over the deals through a small open-addressing hash table
(:class:`Encoder`), first-seen codes, then one vectorised remap into value order.
"""

from __future__ import annotations

from dataclasses import dataclass

from functools import cache

import numpy as np

from whist_catalogue.constants import INF_OFFSET
from whist_catalogue.engine.encoding import decode_value, parts_of_value_key, value_key
from whist_catalogue.theory.values import Value

__all__ = ["MAX_CODES", "ValueTable", "Encoder", "encode", "remap", "union", "value_keys"]

MAX_CODES = 1 << 16
"""Codes are uint16: a level (or chunk) may hold at most this many distinct values."""

_SLOTS = 1 << 18
"""Hash slots: a power of two, four times MAX_CODES, so probes stay short."""

_EMPTY = np.int64(-1)


def value_keys(numerator: np.ndarray, infinitesimal: np.ndarray) -> np.ndarray:
    """One int64 per value whose integer order is the value order (:func:`~whist_catalogue.engine.encoding.value_key`)."""
    return value_key(numerator.astype(np.int64), infinitesimal.astype(np.int64))


@dataclass(frozen=True)
class ValueTable:
    """Distinct single-suit values in ascending order, as parallel arrays: a level's table, and a chunk's
    (:mod:`.chunks`)."""

    numerator: np.ndarray
    """val · 2^24 (int32), as :mod:`whist_catalogue.engine.encoding`."""
    infinitesimal: np.ndarray
    """Rank of the infinitesimal part (int8), as :mod:`whist_catalogue.engine.encoding`."""

    def __post_init__(self) -> None:
        if self.numerator.shape != self.infinitesimal.shape or self.numerator.ndim != 1:
            raise ValueError("a value table needs two 1-d arrays of one length")
        if len(self) > MAX_CODES:
            raise OverflowError(f"{len(self)} distinct values do not fit 16-bit codes")

    def __len__(self) -> int:
        return int(self.numerator.shape[0])

    def value(self, code: int) -> Value:
        return decode_value(int(self.numerator[code]), int(self.infinitesimal[code]))

    def values(self) -> list[Value]:
        return [self.value(c) for c in range(len(self))]

    def keys(self) -> np.ndarray:
        return value_keys(self.numerator, self.infinitesimal)

    @classmethod
    def from_keys(cls, keys: np.ndarray) -> ValueTable:
        keys = np.asarray(keys, np.int64)
        numerator, rank = parts_of_value_key(keys)
        return cls(numerator.astype(np.int32), rank.astype(np.int8))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ValueTable) and np.array_equal(self.numerator, other.numerator)
                and np.array_equal(self.infinitesimal, other.infinitesimal))

    # no __hash__: with __eq__ defined it is None (mutable arrays inside)


def _encode_into(numerator, infinitesimal, slots, slot_code, found_keys, count, out):
    """First-seen codes of ``numerator``/``infinitesimal`` into ``out``; returns the new count (−1: overflow)."""
    mask = slots.shape[0] - 1
    for i in range(numerator.shape[0]):
        key = (np.int64(numerator[i]) << 8) + (np.int64(infinitesimal[i]) + INF_OFFSET)  # value_key, in Numba
        h = (key * np.int64(-7046029254386353131)) >> 40  # Fibonacci hashing; the high bits mix best
        s = h & mask
        while True:
            k = slots[s]
            if k == key:
                out[i] = slot_code[s]
                break
            if k == -1:
                if count >= found_keys.shape[0]:
                    return -1
                slots[s] = key
                slot_code[s] = count
                found_keys[count] = key
                out[i] = count
                count += 1
                break
            s = (s + 1) & mask
    return count


@cache
def _encode_kernel():
    # Compiled on first use: the look-up path reads tables and chunks without importing Numba.
    from whist_catalogue.theory.jit import kernel

    return kernel(_encode_into)


class Encoder:
    """Codes for a stream of values, chunk by chunk, against one growing table.

    :meth:`add` returns provisional (first-seen) codes; :meth:`finish` returns the
    table in value order and the ``uint16`` array that maps provisional codes to
    final ones (``final = order[provisional]``).  Not thread-safe.
    """

    def __init__(self) -> None:
        self._slots = np.full(_SLOTS, _EMPTY, np.int64)
        self._slot_code = np.zeros(_SLOTS, np.int64)
        self._keys = np.empty(MAX_CODES, np.int64)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, numerator: np.ndarray, infinitesimal: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        codes = np.empty(numerator.shape[0], np.uint16) if out is None else out
        count = _encode_kernel()(numerator, infinitesimal, self._slots, self._slot_code, self._keys, self._count, codes)
        if count < 0:
            raise OverflowError(f"more than {MAX_CODES} distinct values do not fit 16-bit codes")
        self._count = count
        return codes

    def seen(self) -> tuple[np.ndarray, np.ndarray]:
        """The values met so far in provisional-code order: (numerator int32, infinitesimal int8)."""
        numerator, rank = parts_of_value_key(self._keys[: self._count])
        return numerator.astype(np.int32), rank.astype(np.int8)

    def finish(self) -> tuple[ValueTable, np.ndarray]:
        keys = self._keys[: self._count]
        order = np.argsort(keys, kind="stable")
        final = np.empty(self._count, np.uint16)
        final[order] = np.arange(self._count, dtype=np.uint16)
        return ValueTable.from_keys(keys[order]), final


def encode(numerator: np.ndarray, infinitesimal: np.ndarray) -> tuple[np.ndarray, ValueTable]:
    """(codes, table) of values held in the engine's exact encoding."""
    encoder = Encoder()
    codes = encoder.add(np.ascontiguousarray(numerator), np.ascontiguousarray(infinitesimal))
    table, final = encoder.finish()
    return final[codes], table


def remap(codes: np.ndarray, source: ValueTable, target: ValueTable) -> np.ndarray:
    """``codes`` of ``source`` re-expressed as codes of ``target``, which must hold every value of ``source``."""
    source_keys, target_keys = source.keys(), target.keys()
    where = np.searchsorted(target_keys, source_keys)
    if len(source) and (where.max(initial=0) >= len(target) or not np.array_equal(target_keys[where], source_keys)):
        raise ValueError("the target table lacks values of the source table")
    return where.astype(np.uint16)[codes]


def union(tables: list[ValueTable]) -> ValueTable:
    """Every value of the given tables, in value order."""
    if not tables:
        return ValueTable(np.zeros(0, np.int32), np.zeros(0, np.int8))
    return ValueTable.from_keys(np.unique(np.concatenate([t.keys() for t in tables])))
