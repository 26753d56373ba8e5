"""The level store: whole levels as checksummed chunks of value codes (docs/spec.md §5, docs/level-store.md).

Store compactly what is expensive to derive, derive the rest when asked,
checksum everything — the rule of the Syzygy endgame tablebases.  Every
complete level has its chunks in ``level_chunk`` (:mod:`whist_catalogue.engine.chunks`),
and its ``level`` row holds the union of their value tables and the statistics
counted at build time.  Levels n ≤ :data:`ROWS_MAX_N` have a ``deal`` row per
deal as well, for people who open the file with sqlite3 or pandas.

This module reads and checks chunks with SQLAlchemy Core statements, and imports
no Numba (the engine's kernels load only where a function needs them):

* :class:`ChunkCache` — decoded chunks, least recently used first out, bounded in bytes;
* :func:`read_level_values` — a whole level's values, as the engine's arrays (the build
  resumes from the store instead of recomputing the levels below);
* :func:`check_level_store` — ``verify``'s part for the chunks: completeness per level,
  each chunk's SHA-256 (a damaged chunk is named), and a recomputed sample;
* :func:`value_columns`, :func:`deal_columns` — the ``deal`` table's columns from values and from
  masks, for the build's rows;
* :func:`chunk_columns` — any of those columns for a whole decoded chunk, computing only what is asked
  (the searches over chunks);
* :func:`reduction_masks`, :func:`colex_ranks`, :func:`alpha_keys`, :func:`move_masks_from_alpha` —
  a deal's α matrix (§7.2) from level n−1's values, and its best moves (docs/spec.md §3).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from functools import lru_cache
from math import comb
from typing import Any, Callable

import numpy as np
import sqlalchemy as sa

from whist_catalogue.constants import SCALE
from whist_catalogue.engine.chunks import CHUNK_DEALS, Chunk, ChunkError, read_chunk
from whist_catalogue.engine.encoding import key_of_parts
from whist_catalogue.engine.codes import ValueTable, remap, union
from whist_catalogue.store.models import LevelChunkRow, LevelRow

__all__ = [
    "ROWS_MAX_N",
    "CACHE_BYTES",
    "ChunkCache",
    "chunk_checksum",
    "checked_chunk",
    "table_to_bytes",
    "table_from_bytes",
    "chunk_count",
    "read_level_values",
    "check_level_store",
    "level_ranges",
    "value_columns",
    "deal_columns",
    "chunk_columns",
    "DEAL_FIELDS",
    "PLAYER_FIELDS",
    "colex_ranks",
    "reduction_masks",
    "alpha_keys",
    "move_masks_from_alpha",
    "moves_width",
]

ROWS_MAX_N = 10
"""Levels up to this n also get a ``deal`` row per deal (≈ 150 bytes a deal, 250,000 deals in all):
their rows cost a second of the build, while level 11 alone would add 100 MB and 15 s."""
CACHE_BYTES = 512 << 20
"""Codes of decoded chunks kept in memory by a reader: all of level 15 (155 MB at one byte a deal) and
hundreds of level 16's chunks, so that the α matrices of level-16 deals, whose reductions spread over
every chunk of level 15, stay in memory."""

_chunks = LevelChunkRow.__table__
_levels = LevelRow.__table__


def level_ranges(ns: list[int]) -> str:
    """``1…10, 12`` for [1, …, 10, 12]."""
    parts, run = [], []
    for n in sorted(ns):
        if run and n != run[-1] + 1:
            parts.append(run)
            run = []
        run.append(n)
    if run:
        parts.append(run)
    return ", ".join(f"{r[0]}…{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in parts)


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


class ChunkCache:
    """Decoded chunks by (n, chunk index), evicting the least recently used beyond ``max_bytes``.

    ``load(n, index)`` returns the decoded chunk (:func:`checked_chunk`: checked once, as it enters the cache).
    Thread-safe: a chunk loaded twice by racing threads is harmless.
    """

    def __init__(self, load: Callable[[int, int], Chunk], max_bytes: int = CACHE_BYTES) -> None:
        self._load = load
        self.max_bytes = max_bytes
        self._chunks: OrderedDict[tuple[int, int], tuple[Chunk, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, n: int, index: int) -> Chunk:
        key = (n, index)
        with self._lock:
            entry = self._chunks.get(key)
            if entry is not None:
                self._chunks.move_to_end(key)
                return entry[0]
        chunk = self._load(n, index)
        # The codes only: check bits are inflated for full records and searches, which are rarer than look-ups
        # of values and moves; counting them up front would halve what the cache holds for those.
        size = chunk.codes.nbytes
        with self._lock:
            if key not in self._chunks:
                self._chunks[key] = (chunk, size)
                self._bytes += size
                while self._bytes > self.max_bytes and len(self._chunks) > 1:
                    _, (_, old) = self._chunks.popitem(last=False)
                    self._bytes -= old
        return chunk

    def clear(self) -> None:
        with self._lock:
            self._chunks.clear()
            self._bytes = 0

    def __len__(self) -> int:
        return len(self._chunks)


def read_level_values(connection: sa.Connection, n: int) -> tuple[np.ndarray, ValueTable, np.ndarray]:
    """(codes uint16, value table, flags uint8) of every deal of level n, by rank, from its chunks: the level as
    the engine holds it (:class:`whist_catalogue.engine.levels.Level`)."""
    size = comb(2 * n, n)
    chunk_deals = connection.execute(sa.select(_levels.c.chunk_deals).where(_levels.c.n == n)).scalar_one_or_none()
    if type(chunk_deals) is not int or chunk_deals < 1:
        raise ChunkError(f"level {n}: records {str(chunk_deals)[:20]!r} deals a chunk")
    chunks: list[Chunk] = []
    rows = connection.execute(sa.select(_chunks.c.chunk, _chunks.c.data, _chunks.c.checksum, _chunks.c.start,
                                        _chunks.c.stop).where(_chunks.c.n == n).order_by(_chunks.c.chunk))
    for index, data, checksum, start, stop in rows:
        if index != len(chunks):
            raise ChunkError(f"level {n} chunk {index}: found where chunk {len(chunks)} belongs")
        try:
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
    return codes, table, flags


# -- verify ------------------------------------------------------------------------------------------


def check_level_store(catalogue: Any, info: Any, check: Any, *, rng: Any, sample: int,
                      recursive_max_n: int = 9) -> bool:
    """``verify``'s part for level ``info.n``'s chunks, into ``check`` (a ``verify.LevelCheck``): they tile
    [0, C(2n, n)) exactly, each SHA-256 matches and each decodes (a damaged chunk is named), the level's table
    and statistics agree with them, and a sample of deals recomputed independently has the stored value.
    Returns whether the level also has ``deal`` rows for ``verify`` to check.

    The sample is recomputed by the literal recursive definition up to ``recursive_max_n``
    (:mod:`whist_catalogue.theory.definition`); above it, by one step of that definition —
    the simplest element of I(D) from α, whose entries are level n−1's values as stored,
    themselves checked the same way down to the definition — never by the engine's kernels.
    """
    from whist_catalogue.store.database import database_errors

    n = info.n
    size = comb(2 * n, n)
    problems: list[str] = []
    chunk_deals = info.chunk_deals
    if type(chunk_deals) is not int or chunk_deals < 1:
        check.checksum_ok = False
        check.problems.append(f"level {n}: records {str(chunk_deals)[:20]!r} deals a chunk")
        return info.storage != "chunks"
    with database_errors(catalogue.location), catalogue.connect() as connection:
        row = connection.execute(sa.select(_levels.c.value_table, _levels.c.statistics)
                                 .where(_levels.c.n == n)).one()
        rows = connection.execute(
            sa.select(_chunks.c.chunk, _chunks.c.start, _chunks.c.stop, _chunks.c.checksum, _chunks.c.data)
            .where(_chunks.c.n == n).order_by(_chunks.c.chunk)
        )
        covered = 0
        counts: dict[int, int] = {}
        key_of: dict[tuple[int, int], int] = {}
        try:
            table = table_from_bytes(row.value_table or b"")
            key_of = {(int(a), int(b)): i for i, (a, b) in enumerate(zip(table.numerator, table.infinitesimal))}
        except ChunkError as exc:
            problems.append(f"level {n}: value table damaged: {exc}")
        expected_chunks = chunk_count(n, chunk_deals)
        indexes = []
        stored_bytes = 0
        for index, start, stop, checksum, data in rows:
            indexes.append(index)
            stored_bytes += len(data) if isinstance(data, (bytes, bytearray, memoryview)) else 0
            name = f"level {n} chunk {index} (ranks {start:,}…{stop - 1:,})" if isinstance(start, int) \
                and isinstance(stop, int) else f"level {n} chunk {index}"
            if not (isinstance(index, int) and 0 <= index < expected_chunks):
                problems.append(f"{name}: level {n} has {expected_chunks:,} chunks of {chunk_deals:,} deals:"
                                " a chunk that belongs to no place in it")
                continue
            try:
                chunk = checked_chunk(n, index, chunk_deals, data, checksum, start, stop)
            except ChunkError as exc:
                problems.append(f"{name}: {exc}")
                continue
            covered += chunk.stop - chunk.start
            per_code = np.bincount(chunk.codes, minlength=len(chunk.table)).tolist()
            for a, b, c in zip(chunk.table.numerator.tolist(), chunk.table.infinitesimal.tolist(), per_code):
                i = key_of.get((a, b))
                if i is None:
                    problems.append(f"{name}: a value missing from the level's table")
                    break
                counts[i] = counts.get(i, 0) + c
        missing = sorted(set(range(expected_chunks)) - set(indexes))
        if missing:
            problems.append(f"level {n}: chunk{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing[:5]))}"
                            f"{' …' if len(missing) > 5 else ''} of {expected_chunks:,} missing")
        if covered != size and not problems:
            problems.append(f"level {n}: chunks cover {covered:,} of C(2n, n) = {size:,} deals")
        if info.stored_bytes != stored_bytes and not problems:  # what stats and the app report as its size
            problems.append(f"level {n}: records {info.stored_bytes!r} bytes of chunks, its chunks hold"
                            f" {stored_bytes:,}")
        if not problems:
            try:
                stored = json.loads(row.statistics or "{}").get("counts")
            except (ValueError, TypeError, AttributeError):  # not JSON, or not an object
                stored = None
            if stored != [counts.get(i, 0) for i in range(len(key_of))]:
                problems.append(f"level {n}: stored statistics differ from the chunks' counts")
    check.checksum_ok = not problems
    if sample > 0 and not problems:
        problems.extend(_check_sample(catalogue, n, rng.sample(range(size), min(sample, size)), recursive_max_n))
        check.sampled = min(sample, size)
    check.problems.extend(problems)
    return info.storage != "chunks"


def _check_sample(catalogue: Any, n: int, ranks: list[int], recursive_max_n: int) -> list[str]:
    from whist_catalogue.theory import definition
    from whist_catalogue.theory.deals import Deal
    from whist_catalogue.theory.labeled import labeled_matrix, maximum, minimum
    from whist_catalogue.theory.ranking import unrank

    problems = []
    for r in ranks:
        deal = Deal(n, unrank(n, r))
        stored = catalogue.chunk_value(deal)
        if n <= recursive_max_n:
            expected = definition.val(deal)
        else:
            alpha = labeled_matrix(deal, catalogue.chunk_value)
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


# -- what is derived at query time -----------------------------------------------------------------


def value_columns(numerator: np.ndarray, infinitesimal: np.ndarray) -> dict[str, np.ndarray]:
    """The ``deal`` columns that follow from the value alone, from engine arrays (docs/spec.md §5): the reduced
    fraction, q·2^24 and its fractional part, the infinitesimal's sign and stoppers, and the outcome ρ(val)."""
    from whist_catalogue.engine.levels import table_outcomes

    scaled = numerator.astype(np.int64)
    low_bit = scaled & -scaled
    # The reduced denominator is 2^24 / (lowest set bit of q·2^24), at least 1; 0 is 0/1.
    denominator = np.where(low_bit == 0, 1, np.maximum(1, SCALE // np.maximum(low_bit, 1)))
    rank = infinitesimal.astype(np.int64)
    west_leads, east_leads = table_outcomes(ValueTable(numerator, infinitesimal))  # ρ, elementwise
    return {
        "numerator": scaled * denominator // SCALE,
        "denominator": denominator.astype(np.int32),
        "number_scaled": scaled.astype(np.int32),
        "fraction_scaled": (scaled & (SCALE - 1)).astype(np.int32),
        "inf_sign": np.sign(rank).astype(np.int8),
        "stoppers": np.maximum(np.abs(rank) - 1, 0).astype(np.int8),
        "west_leads": west_leads.astype(np.int8),
        "east_leads": east_leads.astype(np.int8),
    }


def deal_columns(n: int, masks: np.ndarray) -> dict[str, np.ndarray]:
    """The ``deal`` columns that follow from the deal alone, for West's masks of level n: the key, and the
    single-suit paper's H̲, H̄, H, Greedy Whist, Five-card and the ace (its linear-time kernels)."""
    from whist_catalogue.single_suit.formulas import level_quantities

    q = level_quantities(n, masks)
    if not np.array_equal(q.ace_west, (masks >> (2 * n - 1)) & 1 == 1):
        raise AssertionError(f"level {n}: the single-suit quantities are not in the masks' order")

    def player(west: np.ndarray) -> np.ndarray:
        return np.where(west, "W", "E")

    return {
        "key": masks | np.int64(1 << (2 * n)),
        "h_lower": q.h_lower,
        "h_upper": q.h_upper,
        "h": q.h,
        "greedy_west_leads": q.greedy_west_leads,
        "greedy_east_leads": q.greedy_east_leads,
        "five_card_west_leads": player(q.five_card_west_wins_west_leads),
        "five_card_east_leads": player(q.five_card_west_wins_east_leads),
        "ace": player(q.ace_west),
    }


DEAL_FIELDS = ("key", "flags", "ace", "h_lower", "h_upper", "h", "greedy_west_leads", "greedy_east_leads",
               "five_card_west_leads", "five_card_east_leads")
"""The ``deal`` columns that depend on the deal, not only on its value (:func:`chunk_columns` computes them)."""
PLAYER_FIELDS = frozenset({"ace", "five_card_west_leads", "five_card_east_leads"})
"""Columns naming a player; :func:`chunk_columns` holds them as bool arrays, True for West (``W``)."""


STEP_TABLES_MAX_N = 16
"""Up to this n the per-deal quantities read T_k off two tables of 2^n rows (4 MB at n = 16), one per half of
the deal's cards (:func:`whist_catalogue.single_suit.kernels.step_tables`); above it, card by card."""


@lru_cache(maxsize=4)
def _step_tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    from whist_catalogue.single_suit.kernels import step_tables

    return step_tables(n, n)


def chunk_columns(chunk: Chunk, fields: Any, *, masks: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The ``deal`` columns named by ``fields`` for every deal of a decoded chunk, in rank order, each a NumPy
    array computed in whole-array steps: those of the value (:func:`value_columns`, read off the chunk's codes),
    ``flags`` (the chunk's check bits), ``key`` (from West's masks) and the single-suit paper's quantities
    (H̲, H̄, H, Greedy Whist, Five-card, the ace).  Players (:data:`PLAYER_FIELDS`) are bool arrays, True for
    West.

    Only what is asked for is computed: the Five-card winners need T_0 alone, Greedy Whist H̲ and H̄, and only
    ``h`` Theorem 9.1's conditions (:func:`whist_catalogue.single_suit.kernels.chunk_quantities_tables_kernel`,
    one pass for all of them); a chunk of level 16 (2^20 deals) takes tens of milliseconds.  ``masks``: West's
    masks of the chunk's deals if the caller already holds them (``level_masks(n, chunk.start, chunk.stop)``).
    """
    from whist_catalogue.theory.ranking import level_masks

    wanted = set(fields)
    n = chunk.n
    out: dict[str, np.ndarray] = {}
    by_value = wanted & {"numerator", "denominator", "number_scaled", "fraction_scaled", "inf_sign", "stoppers",
                         "west_leads", "east_leads"}
    if by_value:
        columns = value_columns(chunk.table.numerator, chunk.table.infinitesimal)
        out.update({name: columns[name][chunk.codes] for name in by_value})
    if "n" in wanted:
        out["n"] = np.full(chunk.stop - chunk.start, n, np.int8)
    if "flags" in wanted:
        out["flags"] = chunk.flags
    unknown = wanted - set(out) - set(DEAL_FIELDS)
    if unknown:
        raise ValueError(f"no deal column named {', '.join(sorted(unknown))}")
    if "ace" in wanted:
        # Colex order is the masks' numeric order: the C(2n−1, n) deals without West's top card come first.
        out["ace"] = np.arange(chunk.start, chunk.stop, dtype=np.int64) >= comb(2 * n - 1, n)
    if not wanted & set(DEAL_FIELDS) - {"flags", "ace"}:
        return out
    if masks is None:
        masks = level_masks(n, chunk.start, chunk.stop)
    if "key" in wanted:
        out["key"] = masks | np.int64(1 << (2 * n))
    depth = 2 if "h" in wanted else 1 if wanted & {"h_lower", "h_upper", "greedy_west_leads",
                                                     "greedy_east_leads"} else 0
    if depth == 0 and not wanted & {"five_card_west_leads", "five_card_east_leads"}:
        return out
    from whist_catalogue.single_suit import kernels

    size = masks.shape[0]
    h_lower, h_upper = (np.empty(size if depth else 0, np.int8) for _ in range(2))
    h = np.empty(size if depth == 2 else 0, np.int8)
    t0 = np.empty(size, np.int8)
    if n <= STEP_TABLES_MAX_N:
        low, high = _step_tables(n)
        kernels.chunk_quantities_tables_kernel(masks, n, depth, low, high, n, h_lower, h_upper, h, t0)
    else:
        kernels.chunk_quantities_kernel(masks, n, depth, h_lower, h_upper, h, t0)
    out.update(h_lower=h_lower, h_upper=h_upper, h=h)
    if wanted & {"greedy_west_leads", "greedy_east_leads"}:
        # Greedy Whist's H (§8): H̄ when positive, H̲ when negative, else 0; West takes ⌊(n+H)/2⌋ on lead.
        # As H̲ ≥ H̄ − 1, that is max(H̄, 0) + min(H̲, 0): whole-array steps in int8 (0 ≤ n + H ≤ 2n ≤ 34).
        total = np.maximum(h_upper, 0) + np.minimum(h_lower, 0) + np.int8(n)
        out.update(greedy_west_leads=total >> 1, greedy_east_leads=(total + np.int8(1)) >> 1)
    if "five_card_west_leads" in wanted:
        out["five_card_west_leads"] = t0 >= 0  # Theorem 7.2: tr(A) = 0 goes to the player on lead
    if "five_card_east_leads" in wanted:
        out["five_card_east_leads"] = t0 > 0
    return {name: out[name] for name in wanted if name in out}


def _binomials(size: int = 64) -> np.ndarray:
    table = np.zeros((size, size), np.int64)
    for p in range(size):
        for t in range(p + 1):
            table[p, t] = comb(p, t)
    return table


_BINOMIALS = _binomials()
_POSITIONS = np.arange(64, dtype=np.int64)


def colex_ranks(masks: np.ndarray, bits: int) -> np.ndarray:
    """Colex ranks of masks with ``bits`` positions (vectorised :func:`whist_catalogue.theory.ranking.rank`):
    a set bit at position p that is the t-th set bit from below adds C(p, t)."""
    held = (masks[..., None] >> _POSITIONS[:bits]) & 1
    return (held * _BINOMIALS[_POSITIONS[:bits], np.cumsum(held, axis=-1)]).sum(axis=-1)


def reduction_masks(n: int, west: int | np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(W_i positions, E_j positions, West's mask of every D_ij as an n × n array) for West's mask ``west``;
    for an array of masks, each result gains its leading axes (a batch of deals of one level)."""
    west = np.asarray(west, np.int64)
    positions = np.arange(2 * n, dtype=np.int64)
    held = (west[..., None] >> positions) & 1
    # A stable sort on "not West's" lists West's positions, then East's, each from below.
    order = np.argsort(1 - held, axis=-1, kind="stable")
    w, e = order[..., :n], order[..., n:]
    low = np.minimum(w[..., :, None], e[..., None, :])
    high = np.maximum(w[..., :, None], e[..., None, :])
    m = west[..., None, None]
    # Delete bits high and low (high first, so low's place is unchanged) and close the gaps.
    m = ((m >> (high + 1)) << high) | (m & ((np.int64(1) << high) - 1))
    m = ((m >> (low + 1)) << low) | (m & ((np.int64(1) << low) - 1))
    return w, e, m


def alpha_keys(west_cards: np.ndarray, east_cards: np.ndarray, numerator: np.ndarray,
               infinitesimal: np.ndarray) -> np.ndarray:
    """α_ij of §7.2 as integers whose order is the order of labeled values (§7.1,
    :func:`whist_catalogue.engine.encoding.labeled_key`): W_i and E_j's positions (as
    :func:`reduction_masks` gives them) and val(D_ij) as n × n engine arrays (or batches of them)."""

    west_trick = west_cards[..., :, None] > east_cards[..., None, :]
    number = numerator.astype(np.int64) + west_trick * SCALE
    rank = infinitesimal.astype(np.int64)
    # Ties of value: East's label above West's for a number, West's above East's otherwise.
    tie = np.where(rank == 0, ~west_trick, west_trick)
    return key_of_parts(number, rank, tie)


def moves_width(n: int) -> int:
    """Bytes of each position mask in a ``moves`` blob of a deal with n cards a hand: 2 (uint16) to n = 16 —
    the ``deal`` rows (n ≤ :data:`ROWS_MAX_N`) and every blob ever stored — and 4 (uint32) from n = 17, whose
    masks have 17 or more positions; only records derived from the chunks (an export of level 17) have those."""
    return 2 if n <= 16 else 4


def move_masks_from_alpha(alpha: np.ndarray) -> tuple[int, ...]:
    """Best leads and replies (docs/spec.md §3) as :meth:`~whist_catalogue.theory.solution.SuitSolution.move_masks`
    position masks, read off α (row i = W_i): the same rules as
    :func:`whist_catalogue.theory.solution.solution_from_labeled`."""
    n = alpha.shape[0]
    weights = np.int64(1) << np.arange(n, dtype=np.int64)
    row_min = alpha.min(axis=1)
    col_max = alpha.max(axis=0)
    west_leads = int(weights[row_min == row_min.max()].sum())
    east_leads = int(weights[col_max == col_max.min()].sum())
    east_replies = ((alpha == row_min[:, None]) * weights[None, :]).sum(axis=1)
    west_replies = ((alpha == col_max[None, :]) * weights[:, None]).sum(axis=0)
    return (west_leads, east_leads, *map(int, east_replies), *map(int, west_replies))
