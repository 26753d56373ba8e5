"""Chunks: a rank range of one level as value codes, compressed and self-contained (docs/level-store.md).

The level store keeps only what is expensive to derive — the value of every
deal — and derives the rest when asked (the Syzygy tablebases' rule).  A chunk
holds the deals of level n with colex ranks in [start, stop) (the order of
:mod:`whist_catalogue.theory.ranking`):

* its own small value table: the distinct values of the chunk in V's order
  (numerical part, then the infinitesimal's rank of §6.1.6 — single-suit values
  never carry ±ε₀, so the order is total), as ``numerator`` (int32, q·2^24 of
  :mod:`whist_catalogue.engine.encoding`) and ``infinitesimal`` (int8 rank);
* the code of every deal, an index into that table: one byte a deal when the
  table has at most 256 entries, else two;
* the per-deal counterexample bits of the engine's checks (uint8, almost all
  zero), after the codes in the same compressed stream.

Self-contained means a worker can finish a chunk without knowing the rest of
the level, and a reader can decode one chunk alone.  The codec is pure (NumPy
and zlib, no database, no Numba: :mod:`.codes` compiles its kernel only when encoding) so that both the engine's workers and the
store use it, and the look-up path imports it cheaply.  The store keeps each
chunk's SHA-256 beside it; a chunk also carries the CRC-32 of its payload, so a
damaged chunk fails to decode even without the store.

Layout (little-endian)::

    magic "WLC1" | n u8 | width u8 | zero u16 | start u64 | stop u64 | entries u32 | crc32 u32
    numerator int32[entries] | infinitesimal int8[entries] | codes_length u32
    zlib( codes (uint8 or uint16)[stop − start] ) | zlib( flags uint8[stop − start] )

The check bits have a stream of their own, so a look-up of values and best moves
inflates only the codes.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

from whist_catalogue.engine.codes import ValueTable, value_keys
from whist_catalogue.engine.encoding import parts_of_value_key
from whist_catalogue.errors import ChunkError

__all__ = [
    "Chunk",
    "ChunkError",
    "encode_chunk",
    "pack_chunk",
    "read_chunk",
    "CHUNK_DEALS",
    "MAGIC",
]

MAGIC = b"WLC1"
_HEADER = struct.Struct("<4sBBHQQII")
CHUNK_DEALS = 1 << 20
"""Deals a chunk (the last of a level may be shorter): about 1 MB of codes, a few milliseconds to decode."""
_LEVEL = 6
"""zlib's level: 9 saves under 2 % more here and takes twice as long to write."""


class Chunk:
    """A decoded chunk: deals of level ``n`` with ranks in [start, stop)."""

    __slots__ = ("n", "start", "stop", "codes", "table", "_flags")

    def __init__(self, n: int, start: int, stop: int, codes: np.ndarray, table: ValueTable,
                 flags: np.ndarray | bytes) -> None:
        self.n, self.start, self.stop, self.codes, self.table = n, start, stop, codes, table
        self._flags = flags

    @property
    def flags(self) -> np.ndarray:
        """uint8 counterexample bits per deal (``whist_catalogue.engine.levels.CHECK_NAMES`` order), inflated
        on first use."""
        if not isinstance(self._flags, np.ndarray):
            size = self.stop - self.start
            try:
                body = zlib.decompress(self._flags)
            except zlib.error as exc:
                raise ChunkError(f"{self}: cannot decompress its check bits ({exc})") from None
            if len(body) != size:
                raise ChunkError(f"{self}: {len(body)} bytes of check bits, expected {size}")
            self._flags = np.frombuffer(body, np.uint8)
        return self._flags

    @property
    def numerator(self) -> np.ndarray:
        return self.table.numerator[self.codes]

    @property
    def infinitesimal(self) -> np.ndarray:
        return self.table.infinitesimal[self.codes]

    def __str__(self) -> str:
        return f"chunk of level {self.n}, ranks [{self.start}, {self.stop})"


def encode_chunk(n: int, start: int, stop: int, numerator: np.ndarray, infinitesimal: np.ndarray,
                 flags: np.ndarray | None = None) -> bytes:
    """The chunk of the deals of level n with ranks in [start, stop), given their values (and check bits)."""
    size = stop - start
    if not (0 <= start <= stop and numerator.shape == (size,) and infinitesimal.shape == (size,)):
        raise ValueError(f"a chunk of ranks [{start}, {stop}) needs {size} values, got {numerator.shape}")
    distinct, codes = np.unique(value_keys(numerator, infinitesimal), return_inverse=True)
    numerator, rank = parts_of_value_key(distinct)
    table = ValueTable(numerator.astype(np.int32), rank.astype(np.int8))
    return pack_chunk(n, start, codes, table, flags)


def pack_chunk(n: int, start: int, codes: np.ndarray, table: ValueTable,
               flags: np.ndarray | None = None) -> bytes:
    """The chunk of the deals of level n with ranks from ``start``, given as codes into a table of distinct
    values in V's order (a :class:`whist_catalogue.engine.codes.ValueTable`, as
    :func:`whist_catalogue.engine.codes.encode` makes them)."""
    size = codes.shape[0]
    table_num = np.asarray(table.numerator, "<i4")
    table_inf = np.asarray(table.infinitesimal, "i1")
    entries = table_num.shape[0]
    if table_inf.shape != (entries,) or (size and int(codes.max()) >= entries):
        raise ValueError("codes must index a table of parallel numerator and infinitesimal arrays")
    if entries and (np.any(table_num < 0) or np.any(np.diff(value_keys(table_num, table_inf)) <= 0)):
        raise ValueError("a chunk's table holds distinct single-suit values (never negative) in V's order")
    width = 1 if entries <= 256 else 2
    bit_flags = np.zeros(size, np.uint8) if flags is None else np.asarray(flags, np.uint8)
    if bit_flags.shape != (size,):
        raise ValueError("flags must have one entry a deal")
    codes_stream = zlib.compress(np.asarray(codes).astype("<u1" if width == 1 else "<u2").tobytes(), _LEVEL)
    flags_stream = zlib.compress(bit_flags.tobytes(), _LEVEL)
    payload = (table_num.tobytes() + table_inf.tobytes() + struct.pack("<I", len(codes_stream)) + codes_stream
               + flags_stream)
    header = _HEADER.pack(MAGIC, n, width, 0, start, start + size, entries, zlib.crc32(payload))
    return header + payload


def read_chunk(blob: bytes) -> Chunk:
    """Decode a chunk; :class:`ChunkError` if the bytes are damaged in any way."""
    if len(blob) < _HEADER.size:
        raise ChunkError("chunk truncated: shorter than its header")
    magic, n, width, zero, start, stop, entries, crc = _HEADER.unpack_from(blob)
    if magic != MAGIC or width not in (1, 2) or zero or stop < start:
        raise ChunkError("not a chunk: bad header")
    payload = memoryview(blob)[_HEADER.size:]
    if zlib.crc32(payload) != crc:
        raise ChunkError(f"chunk of level {n}, ranks [{start}, {stop}): CRC-32 mismatch (damaged)")
    table_bytes = 5 * entries
    numerator = np.frombuffer(payload[: 4 * entries], "<i4")
    infinitesimal = np.frombuffer(payload[4 * entries : table_bytes], "i1")
    size = stop - start
    if len(payload) < table_bytes + 4:
        raise ChunkError(f"chunk of level {n}, ranks [{start}, {stop}): truncated")
    (codes_length,) = struct.unpack_from("<I", payload, table_bytes)
    codes_start = table_bytes + 4
    try:
        body = zlib.decompress(payload[codes_start : codes_start + codes_length])
    except zlib.error as exc:
        raise ChunkError(f"chunk of level {n}, ranks [{start}, {stop}): cannot decompress ({exc})") from None
    if len(body) != width * size:
        raise ChunkError(f"chunk of level {n}, ranks [{start}, {stop}): {len(body)} bytes of codes, "
                         f"expected {width * size}")
    codes = np.frombuffer(body, "<u1" if width == 1 else "<u2", size)
    if size and int(codes.max()) >= entries:
        raise ChunkError(f"chunk of level {n}, ranks [{start}, {stop}): a code beyond its table")
    return Chunk(n, start, stop, codes, ValueTable(numerator, infinitesimal),
                 bytes(payload[codes_start + codes_length :]))

