"""The level store: every level as checksummed chunks of value codes (docs/spec.md §5, docs/level-store.md).

Store compactly what is expensive to derive, derive the rest when asked, checksum everything — the rule of
the Syzygy endgame tablebases.  Every complete level has its chunks in ``level_chunk``
(:mod:`whist_catalogue.engine.chunks`), each with its SHA-256, and its ``level`` row holds the union of their
value tables, the statistics counted at build time, the chunk size and the chunks' bytes — under a SHA-256 of
its own (:func:`level_row_checksum`).  What is read is checked as it is read: a level row against its checksum
(:func:`level_row_problem`), a chunk against its SHA-256 and its place (:func:`checked_chunk`), a whole level
read back against its row (:func:`read_level_values`).

This module reads with SQLAlchemy Core statements and imports no Numba:

* :class:`ChunkCache` — decoded chunks, least recently used first out, bounded in bytes;
* :func:`read_level_values` — a whole level's values, as the engine's arrays (the build resumes from the store
  and the engine starts from the catalogue's top level instead of recomputing the levels below);
* :func:`check_level_store` — ``verify``'s part for a level: every chunk, the row against them, and a
  recomputed sample.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict
from datetime import datetime
from math import comb
from typing import Any, Callable, Generic, Iterator, Mapping, Protocol, TypeVar

import numpy as np
import sqlalchemy as sa

from whist_catalogue.constants import CHECK_NAMES, MAX_LEVEL_N
from whist_catalogue.engine.chunks import CHUNK_DEALS, Chunk, read_chunk
from whist_catalogue.engine.codes import ValueTable, remap, union
from whist_catalogue.errors import ChunkError
from whist_catalogue.store.database import Location, database_errors
from whist_catalogue.store.models import LevelChunkRow, LevelRow, table_of

__all__ = [
    "LevelSource",
    "CACHE_BYTES",
    "ChunkCache",
    "chunk_checksum",
    "checked_chunk",
    "table_to_bytes",
    "table_from_bytes",
    "chunk_count",
    "level_row_checksum",
    "level_row_problem",
    "raw_level_rows",
    "level_counts",
    "read_level_values",
    "check_level_store",
]


class LevelSource(Protocol):
    """What the search and the dataset read of a catalogue: its complete levels, each level's table of values and
    chunks, checked as they are read.  :class:`~whist_catalogue.store.reader.Catalogue` is one (its methods say
    what each gives); a reader of levels asks for no more than this."""

    location: Location

    def complete_levels(self) -> frozenset[int]: ...

    def level_table(self, n: int) -> tuple[ValueTable, np.ndarray]: ...

    def chunk_deals(self, n: int) -> int: ...

    def scan_chunks(self, n: int, first: int = 0) -> Iterator[Chunk]: ...

    def values_at(self, n: int, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...


CACHE_BYTES = 512 << 20
"""Codes of decoded chunks kept in memory by a reader: all of level 15 (155 MB at one byte a deal) and
hundreds of level 16's chunks, so that the α matrices of level-16 deals, whose reductions spread over
every chunk of level 15, stay in memory."""

_chunks = table_of(LevelChunkRow)
_levels = table_of(LevelRow)
C = TypeVar("C")


def chunk_checksum(data: bytes | bytearray | memoryview) -> str:
    """SHA-256 (hex) of an encoded chunk, as stored in ``level_chunk.checksum``."""
    return hashlib.sha256(data).hexdigest()


def chunk_count(n: int, chunk_deals: int = CHUNK_DEALS) -> int:
    """Chunks of level n."""
    return -(-comb(2 * n, n) // chunk_deals)


def table_to_bytes(table: ValueTable) -> bytes:
    """A level's value table as stored in ``level.value_table``: numerator int32[k], then infinitesimal int8[k]."""
    return np.asarray(table.numerator, "<i4").tobytes() + np.asarray(table.infinitesimal, "i1").tobytes()


def table_from_bytes(blob: bytes) -> ValueTable:
    k, rest = divmod(len(blob), 5)
    if rest:
        raise ChunkError(f"a value table of {len(blob)} bytes is not k int32 numerators and k int8 ranks")
    return ValueTable(np.frombuffer(blob, "<i4", k), np.frombuffer(blob, "i1", k, offset=4 * k))


# -- the level row -------------------------------------------------------------------------------------------


def level_row_checksum(n: Any, row_count: Any, chunk_deals: Any, stored_bytes: Any, value_table: Any,
                       statistics: Any) -> str | None:
    """``level.checksum``: SHA-256 (hex) of what a reader takes from a complete level's row — n, its deals, the
    chunk size, the chunks' bytes, the statistics (JSON text) and the value table — or None when a cell holds a
    type no build writes.  (A migration keeps a frozen copy of this formula: change it only with a new one.)"""
    if not all(type(x) is int for x in (n, row_count, chunk_deals, stored_bytes)):
        return None
    if not isinstance(value_table, bytes) or not isinstance(statistics, str):
        return None
    head = f"level {n}\ndeals {row_count}\nchunk_deals {chunk_deals}\nstored_bytes {stored_bytes}\n{statistics}\n"
    return hashlib.sha256(head.encode() + value_table).hexdigest()


def level_row_problem(row: Mapping[str, Any]) -> str | None:
    """What is wrong with a ``level`` row (a mapping of its columns), or None: a cell of a type or range no build
    writes; for a complete level, a checksum that differs from the row's, or statistics that do not fit its
    value table.  Each text names the level."""
    n = row["n"]
    if type(n) is not int or not 1 <= n <= MAX_LEVEL_N:
        return f"a row names level n = {repr(n)[:24]} (levels are 1…{MAX_LEVEL_N})"
    if row["complete"] not in (True, False):
        return f"level {n} records complete = {repr(row['complete'])[:24]}"
    if type(row["row_count"]) is not int or row["row_count"] < 0:
        return f"level {n} records {repr(row['row_count'])[:24]} deals"
    if row["checksum"] is not None and not isinstance(row["checksum"], str):
        return f"level {n} records a checksum of the wrong type"
    version = row["software_version"]
    if version is not None and (not isinstance(version, str) or not re.fullmatch(r"[0-9A-Za-z.+_-]{1,32}", version)):
        return f"level {n} records a software version that is not one: {repr(version)[:24]}"
    built_at = row["built_at"]
    if built_at is not None and not isinstance(built_at, datetime):
        try:
            datetime.fromisoformat(built_at)
        except (TypeError, ValueError):
            return f"level {n} records a build time that is not one: {repr(built_at)[:24]}"
    if not row["complete"]:
        return None
    if type(row["chunk_deals"]) is not int or row["chunk_deals"] < 1:
        return f"level {n} records {str(row['chunk_deals'])[:20]!r} deals a chunk"
    if row["checksum"] is None or row["checksum"] != level_row_checksum(
            n, row["row_count"], row["chunk_deals"], row["stored_bytes"], row["value_table"], row["statistics"]):
        return (f"level {n}: its level row differs from the checksum recorded at build time (its value table,"
                " statistics, chunk size or sizes were changed, or it was never checksummed)")
    try:
        level_counts(row)
    except ChunkError as exc:
        return f"level {n}: {exc}"
    return None


def level_counts(row: Mapping[str, Any]) -> tuple[ValueTable, np.ndarray]:
    """A complete level row's value table and how many deals have each value (its statistics), or
    :class:`ChunkError` saying why they cannot be read."""
    table = table_from_bytes(row["value_table"])
    try:
        counts = np.array(json.loads(row["statistics"])["counts"], np.int64)
    except (KeyError, TypeError, ValueError, OverflowError):
        counts = None
    if counts is None or counts.shape != (len(table),) or int(counts.sum()) != comb(2 * row["n"], row["n"]):
        raise ChunkError("its statistics do not match its value table")
    return table, counts


# -- chunks ------------------------------------------------------------------------------------------------------


def checked_chunk(n: int, index: int, chunk_deals: int, data: Any, checksum: Any, start: Any, stop: Any) -> Chunk:
    """Chunk ``index`` of level n decoded from its ``level_chunk`` row, or :class:`ChunkError` saying what is wrong.

    What costs nothing beside decoding is checked: the SHA-256 of ``data`` against the one recorded at build
    time, the chunk's CRC-32 (:func:`read_chunk`), and its own header — level n, ranks [index · chunk_deals,
    min(C(2n, n), (index + 1) · chunk_deals)) — against the place it is read for and the row's ``start`` and
    ``stop``.  So a damaged chunk, one swapped within its level, one from another level and a wrong
    ``level.chunk_deals`` are each named rather than served as answers.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ChunkError(f"its data holds {type(data).__name__}, not bytes")
    if chunk_checksum(data) != checksum:
        raise ChunkError("checksum differs from the one recorded at build time")
    chunk = read_chunk(bytes(data))
    first = index * chunk_deals
    last = min(comb(2 * n, n), first + chunk_deals)
    if (chunk.n, chunk.start, chunk.stop) != (n, first, last):
        raise ChunkError(f"its header says level {chunk.n}, ranks [{chunk.start:,}, {chunk.stop:,});"
                         f" chunk {index} of level {n} holds ranks [{first:,}, {last:,})"
                         f" ({chunk_deals:,} deals a chunk, as the level records)")
    if (start, stop) != (chunk.start, chunk.stop):
        raise ChunkError(f"its row records ranks [{start}, {stop}), its header [{chunk.start:,}, {chunk.stop:,})")
    return chunk


class ChunkCache(Generic[C]):
    """Decoded chunks by (level, chunk index), evicting the least recently used beyond ``max_bytes``: a level's
    chunks here, the table of endings' in :mod:`whist_catalogue.store.endings`.

    ``load(level, index)`` returns the decoded chunk, checked once as it enters the cache (:func:`checked_chunk`);
    ``size(chunk)`` is what it counts against ``max_bytes``.  Thread-safe: a chunk loaded twice by racing threads
    is harmless.
    """

    def __init__(self, load: Callable[[int, int], C], max_bytes: int, size: Callable[[C], int]) -> None:
        self._load = load
        self._size = size
        self.max_bytes = max_bytes
        self._chunks: OrderedDict[tuple[int, int], tuple[C, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, level: int, index: int) -> C:
        key = (level, index)
        with self._lock:
            entry = self._chunks.get(key)
            if entry is not None:
                self._chunks.move_to_end(key)
                return entry[0]
        chunk = self._load(level, index)
        size = self._size(chunk)
        with self._lock:
            if key not in self._chunks:
                self._chunks[key] = (chunk, size)
                self._bytes += size
                while self._bytes > self.max_bytes and len(self._chunks) > 1:
                    _, (_, old) = self._chunks.popitem(last=False)
                    self._bytes -= old
        return chunk


def raw_level_rows(connection: sa.Connection, *where: sa.ColumnElement[bool],
                   table: sa.Table = _levels) -> list[dict[str, Any]]:
    """The rows of a table of levels — ``level`` by default, or the table of endings' ``ending_level`` — that meet
    ``where``, by level, each a dict of its cells as the database holds them: no conversion by SQLAlchemy's types,
    so that a cell no build wrote is a finding (:func:`level_row_problem`), never an exception while reading."""
    statement = sa.select(*(sa.type_coerce(c, sa.types.NullType()).label(c.name) for c in table.columns))
    return [dict(r) for r in connection.execute(statement.where(*where).order_by(*table.primary_key)).mappings()]


def read_level_values(connection: sa.Connection, n: int) -> tuple[np.ndarray, ValueTable, np.ndarray]:
    """(codes uint16, value table, flags uint8) of every deal of level n, by rank, from its chunks: the level as
    the engine holds it (:class:`whist_catalogue.engine.levels.Level`).  Checked as it is read: the level's row
    (:func:`level_row_problem`), each chunk (:func:`checked_chunk`), and the chunks against the row — the union
    of their tables is its value table and their deals per value its statistics — else :class:`ChunkError`
    naming the level and chunk."""
    row = next(iter(raw_level_rows(connection, _levels.c.n == n)), None)
    problem = "it has no level row" if row is None else level_row_problem(row) or (
        None if row["complete"] else "it is not complete")
    if problem is not None or row is None:
        raise ChunkError(problem if problem and problem.startswith(f"level {n}") else f"level {n}: {problem}")
    expected_table, expected_counts = level_counts(row)
    size, chunk_deals = comb(2 * n, n), row["chunk_deals"]
    chunks: list[Chunk] = []
    rows = connection.execute(sa.select(_chunks.c.chunk, _chunks.c.data, _chunks.c.checksum, _chunks.c.start,
                                        _chunks.c.stop).where(_chunks.c.n == n).order_by(_chunks.c.chunk))
    for index, data, checksum, start, stop in rows:
        try:
            if index != len(chunks):
                raise ChunkError(f"found where chunk {len(chunks)} belongs")
            chunks.append(checked_chunk(n, index, chunk_deals, data, checksum, start, stop))
        except ChunkError as exc:
            raise ChunkError(f"level {n} chunk {index}: {exc}") from None
    covered = chunks[-1].stop if chunks else 0
    if covered != size:
        raise ChunkError(f"level {n}: its chunks cover {covered:,} of {size:,} deals")
    table = union([c.table for c in chunks])
    codes = np.empty(size, np.uint16)
    flags = np.empty(size, np.uint8)
    for c in chunks:
        codes[c.start : c.stop] = remap(c.codes, c.table, table)
        flags[c.start : c.stop] = c.flags
    if not (np.array_equal(table.keys(), expected_table.keys())
            and np.array_equal(np.bincount(codes, minlength=len(table)), expected_counts)):
        raise ChunkError(f"level {n}: its chunks hold other values than its level row records")
    return codes, table, flags


# -- verify ------------------------------------------------------------------------------------------


def check_level_store(catalogue: Any, row: Mapping[str, Any], problems: list[str], *, rng: Any,
                      sample: int, recursive_max_n: int = 9) -> int:
    """``verify``'s part for the complete level of ``row`` (a level row that passed :func:`level_row_problem`),
    into ``problems``: its chunks tile [0, C(2n, n)) exactly, each SHA-256 matches and each decodes (a damaged
    chunk is named), the row's table, statistics and bytes agree with them, and a sample of deals recomputed
    independently has the stored value.  Returns how many deals were sampled.

    The sample is recomputed by the literal recursive definition up to ``recursive_max_n``
    (:mod:`whist_catalogue.theory.definition`); above it, by one step of that definition —
    the simplest element of I(D) from α, whose entries are level n−1's values as stored,
    themselves checked the same way down to the definition — never by the engine's kernels.
    """
    n, chunk_deals = row["n"], row["chunk_deals"]
    size = comb(2 * n, n)
    found: list[str] = []
    table, stored_counts = level_counts(row)
    expected_chunks = chunk_count(n, chunk_deals)
    counts = np.zeros(len(table), np.int64)
    flagged = np.zeros(len(CHECK_NAMES), np.int64)
    covered = stored_bytes = 0
    indexes = []
    with database_errors(catalogue.location), catalogue.connect() as connection:
        rows = connection.execute(
            sa.select(_chunks.c.chunk, _chunks.c.start, _chunks.c.stop, _chunks.c.checksum, _chunks.c.data)
            .where(_chunks.c.n == n).order_by(_chunks.c.chunk))
        for index, start, stop, checksum, data in rows:
            indexes.append(index)
            stored_bytes += len(data) if isinstance(data, (bytes, bytearray, memoryview)) else 0
            name = f"level {n} chunk {index} (ranks {start:,}…{stop - 1:,})" if isinstance(start, int) \
                and isinstance(stop, int) else f"level {n} chunk {index}"
            if not (isinstance(index, int) and 0 <= index < expected_chunks):
                found.append(f"{name}: level {n} has {expected_chunks:,} chunks of {chunk_deals:,} deals:"
                             " a chunk that belongs to no place in it")
                continue
            try:
                chunk = checked_chunk(n, index, chunk_deals, data, checksum, start, stop)
            except ChunkError as exc:
                found.append(f"{name}: {exc}")
                continue
            covered += chunk.stop - chunk.start
            flagged += [np.count_nonzero(chunk.flags & (1 << c)) for c in range(len(CHECK_NAMES))]
            try:
                places = remap(np.arange(len(chunk.table), dtype=np.uint16), chunk.table, table)
            except ValueError:
                found.append(f"{name}: a value missing from the level's table")
                continue
            np.add.at(counts, places, np.bincount(chunk.codes, minlength=len(chunk.table)))
    missing = sorted(set(range(expected_chunks)) - set(indexes))
    if missing:
        found.append(f"level {n}: chunk{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing[:5]))}"
                     f"{' …' if len(missing) > 5 else ''} of {expected_chunks:,} missing")
    if covered != size and not found:
        found.append(f"level {n}: chunks cover {covered:,} of C(2n, n) = {size:,} deals")
    if row["stored_bytes"] != stored_bytes and not found:  # what stats and the app report as its size
        found.append(f"level {n}: records {row['stored_bytes']!r} bytes of chunks, its chunks hold {stored_bytes:,}")
    if not found and not np.array_equal(counts, stored_counts):
        found.append(f"level {n}: stored statistics differ from the chunks' counts")
    if not found and json.loads(row["statistics"]).get("counterexamples") != dict(zip(CHECK_NAMES, flagged.tolist())):
        found.append(f"level {n}: stored statistics differ from the chunks' counterexample bits")
    sampled = 0
    if sample > 0 and not found:
        sampled = min(sample, size)
        found.extend(_check_sample(catalogue, n, rng.sample(range(size), sampled), recursive_max_n))
    problems.extend(found)
    return sampled


def _check_sample(catalogue: Any, n: int, ranks: list[int], recursive_max_n: int) -> list[str]:
    from whist_catalogue.theory import definition
    from whist_catalogue.theory.deals import Deal
    from whist_catalogue.theory.labeled import labeled_matrix, maximum, minimum
    from whist_catalogue.theory.ranking import unrank

    problems = []
    for r in ranks:
        deal = Deal(n, unrank(n, r))
        stored = catalogue.value(deal)
        if n <= recursive_max_n:
            expected = definition.val(deal)
        else:
            alpha = labeled_matrix(deal, catalogue.value)
            maxmin = maximum(minimum(row) for row in alpha)
            minmax = minimum(maximum(row[j] for row in alpha) for j in range(n))
            try:
                expected = definition.simplest_in_interval(definition.Interval(maxmin, minmax))
            except ArithmeticError as exc:  # level n−1 as stored admits no value: it is wrong too
                problems.append(f"level {n}: deal {deal.label} cannot be recomputed from level {n - 1} as stored:"
                                f" {exc}")
                continue
        if stored != expected:
            problems.append(f"level {n}: deal {deal.label} has {stored} in its chunk, recomputed {expected}")
    return problems
