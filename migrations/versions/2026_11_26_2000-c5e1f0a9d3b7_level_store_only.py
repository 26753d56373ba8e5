"""The level store alone: the per-deal rows go, and every level row gets a checksum that readers check.

Levels n ≤ 10 held a ``deal`` row per deal beside their chunks, which hold the same values; ``export`` writes
the same table (docs/dataset.md), so the rows go.  A level completed before the level store (rows only, no
``storage``) is first converted to chunks here, as the build of that time would have written them.

Then each complete level's row gets ``checksum``, the SHA-256 of what a reader takes from it — computed from
what is there only when the row agrees with its chunks: every chunk in its place with its recorded SHA-256,
the union of the chunks' value tables equal to the row's, their bytes as recorded, the statistics a count for
each value summing to C(2n, n).  A row that does not stays without one: readers then report the level as
damaged, ``verify`` names it, and the next ``build`` stores the level again.

Everything this software writes is frozen below (the chunk format of ``whist_catalogue.engine.chunks``, the
checks' names, the row checksum of ``whist_catalogue.store.levels``): a migration never imports the package.

Revision ID: c5e1f0a9d3b7
Revises: b4d2e8f1a6c3
Create Date: 2026-11-26 20:00:00+00:00

"""

from __future__ import annotations

import hashlib
import json
import struct
import zlib
from math import comb

import sqlalchemy as sa
from alembic import op

revision: str = "c5e1f0a9d3b7"
down_revision: str | None = "b4d2e8f1a6c3"
branch_labels: str | None = None
depends_on: str | None = None

CHUNK_DEALS = 1 << 20
HEADER = struct.Struct("<4sBBHQQII")
MAGIC = b"WLC1"
CHECKS = ("conjecture_12_2", "conjecture_12_3", "conjecture_12_4", "theorem_8_10", "theorem_9_4",
          "conjecture_12_4_labeled")
FLAG_MASK = (1 << len(CHECKS)) - 1
KEY = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

level = sa.table("level", sa.column("n"), sa.column("complete"), sa.column("row_count"), sa.column("checksum"),
                 sa.column("storage"), sa.column("chunk_deals"), sa.column("value_table"), sa.column("statistics"),
                 sa.column("stored_bytes"))
level_chunk = sa.table("level_chunk", sa.column("n"), sa.column("chunk"), sa.column("start"), sa.column("stop"),
                       sa.column("data"), sa.column("checksum"))
deal = sa.table("deal", sa.column("key"), sa.column("number_scaled"), sa.column("inf_sign"), sa.column("stoppers"),
                sa.column("flags"))


def _table_bytes(values: list[tuple[int, int]]) -> bytes:
    return struct.pack(f"<{len(values)}i", *(a for a, _ in values)) + struct.pack(f"<{len(values)}b",
                                                                                   *(b for _, b in values))


def _chunk(n: int, start: int, values: list[tuple[int, int]], flags: list[int]) -> bytes:
    """The chunk format WLC1 (docs/level-store.md): its table of distinct values in V's order, one code a deal."""
    table = sorted(set(values))
    code = {v: i for i, v in enumerate(table)}
    width = 1 if len(table) <= 256 else 2
    codes = [code[v] for v in values]
    raw = bytes(codes) if width == 1 else struct.pack(f"<{len(codes)}H", *codes)
    codes_stream = zlib.compress(raw, 6)
    payload = (_table_bytes(table) + struct.pack("<I", len(codes_stream)) + codes_stream
               + zlib.compress(bytes(f & FLAG_MASK for f in flags), 6))
    return HEADER.pack(MAGIC, n, width, 0, start, start + len(values), len(table), zlib.crc32(payload)) + payload


def _convert(connection: sa.Connection, n: int) -> None:
    """Level n, held as ``deal`` rows only, as chunks (key order is rank order), with its table and statistics."""
    rank = deal.c.inf_sign * (deal.c.stoppers + 1)
    result = connection.execution_options(yield_per=CHUNK_DEALS).execute(
        sa.select(deal.c.number_scaled, rank, deal.c.flags)
        .where(deal.c.key >= 1 << (2 * n), deal.c.key < 1 << (2 * n + 1)).order_by(deal.c.key))
    counts: dict[tuple[int, int], int] = {}
    flagged = [0] * len(CHECKS)
    start = stored = 0
    for index, part in enumerate(result.partitions(CHUNK_DEALS)):
        values = [(int(a), int(b)) for a, b, _ in part]
        flags = [int(f) for _, _, f in part]
        for v in values:
            counts[v] = counts.get(v, 0) + 1
        for f in flags:
            for c in range(len(CHECKS)):
                flagged[c] += f >> c & 1
        data = _chunk(n, start, values, flags)
        connection.execute(sa.insert(level_chunk).values(n=n, chunk=index, start=start, stop=start + len(values),
                                                         data=data, checksum=hashlib.sha256(data).hexdigest()))
        start += len(values)
        stored += len(data)
    if start != comb(2 * n, n):  # rows lost: the level is stored again by the next build
        connection.execute(sa.delete(level_chunk).where(level_chunk.c.n == n))
        connection.execute(sa.update(level).where(level.c.n == n).values(complete=False))
        return
    table = sorted(counts)
    statistics = {"counts": [counts[v] for v in table], "counterexamples": dict(zip(CHECKS, flagged))}
    connection.execute(sa.update(level).where(level.c.n == n).values(
        storage="chunks", chunk_deals=CHUNK_DEALS, value_table=_table_bytes(table),
        statistics=json.dumps(statistics, separators=(",", ":")), stored_bytes=stored))


def _row_checksum(n: object, row_count: object, chunk_deals: object, stored_bytes: object, value_table: object,
                  statistics: object) -> str | None:
    # whist_catalogue.store.levels.level_row_checksum at this revision.
    if not all(type(x) is int for x in (n, row_count, chunk_deals, stored_bytes)):
        return None
    if not isinstance(value_table, bytes) or not isinstance(statistics, str):
        return None
    head = f"level {n}\ndeals {row_count}\nchunk_deals {chunk_deals}\nstored_bytes {stored_bytes}\n{statistics}\n"
    return hashlib.sha256(head.encode() + value_table).hexdigest()


def _agrees_with_its_chunks(connection: sa.Connection, row: sa.Row) -> bool:
    """What ``verify`` checks of a level row that needs no decompression (module docstring)."""
    n, chunk_deals, value_table = row.n, row.chunk_deals, row.value_table
    if type(n) is not int or type(chunk_deals) is not int or chunk_deals < 1 or not isinstance(value_table, bytes):
        return False
    size = comb(2 * n, n)
    k, rest = divmod(len(value_table), 5)
    try:
        counts = json.loads(row.statistics)["counts"]
    except (TypeError, ValueError, KeyError):
        return False
    if rest or row.row_count != size or not isinstance(counts, list) or len(counts) != k \
            or not all(type(c) is int for c in counts) or sum(counts) != size:
        return False
    union: set[tuple[int, int]] = set()
    stored = expected = 0
    for index, start, stop, data, checksum in connection.execution_options(yield_per=1).execute(
            sa.select(level_chunk.c.chunk, level_chunk.c.start, level_chunk.c.stop, level_chunk.c.data,
                      level_chunk.c.checksum).where(level_chunk.c.n == n).order_by(level_chunk.c.chunk)):
        first, last = expected * chunk_deals, min(size, (expected + 1) * chunk_deals)
        if index != expected or (start, stop) != (first, last) or not isinstance(data, bytes) \
                or hashlib.sha256(data).hexdigest() != checksum or len(data) < HEADER.size:
            return False
        magic, chunk_n, _, _, chunk_start, chunk_stop, entries, _ = HEADER.unpack_from(data)
        if (magic, chunk_n, chunk_start, chunk_stop) != (MAGIC, n, first, last) \
                or len(data) < HEADER.size + 5 * entries:
            return False
        numerators = struct.unpack_from(f"<{entries}i", data, HEADER.size)
        ranks = struct.unpack_from(f"<{entries}b", data, HEADER.size + 4 * entries)
        union.update(zip(numerators, ranks))
        stored += len(data)
        expected += 1
    return expected * chunk_deals >= size and stored == row.stored_bytes and _table_bytes(sorted(union)) == value_table


def upgrade() -> None:
    connection = op.get_bind()
    legacy = connection.execute(sa.select(level.c.n).where(level.c.complete == sa.true(),
                                                           level.c.storage.is_(None))).scalars().all()
    for n in legacy:
        _convert(connection, n)
    for row in connection.execute(sa.select(level).where(level.c.complete == sa.true())).all():
        checksum = None
        if _agrees_with_its_chunks(connection, row):
            checksum = _row_checksum(row.n, row.row_count, row.chunk_deals, row.stored_bytes, row.value_table,
                                     row.statistics)
        connection.execute(sa.update(level).where(level.c.n == row.n).values(checksum=checksum))
    for name in ("ix_deal_flags", "ix_deal_west_leads_east_leads", "ix_deal_inf_sign_stoppers", "ix_deal_denominator",
                 "ix_deal_fraction_scaled", "ix_deal_number_scaled_inf_sign_stoppers"):
        op.drop_index(name, table_name="deal")
    op.drop_table("deal")
    with op.batch_alter_table("level") as batch:
        batch.drop_column("storage")


def downgrade() -> None:
    with op.batch_alter_table("level") as batch:
        batch.add_column(sa.Column("storage", sa.String(length=16), nullable=True))
    connection = op.get_bind()
    # Every level is chunks only to the software of the fourth revision, which checks no level row.
    connection.execute(sa.update(level).where(level.c.complete == sa.true()).values(storage="chunks", checksum=None))
    op.create_table(
        "deal",
        sa.Column("key", KEY, nullable=False, autoincrement=False),
        sa.Column("n", sa.SmallInteger(), nullable=False),
        sa.Column("numerator", sa.Integer(), nullable=False),
        sa.Column("denominator", sa.Integer(), nullable=False),
        sa.Column("number_scaled", sa.Integer(), nullable=False),
        sa.Column("fraction_scaled", sa.Integer(), nullable=False),
        sa.Column("inf_sign", sa.SmallInteger(), nullable=False),
        sa.Column("stoppers", sa.SmallInteger(), nullable=False),
        sa.Column("west_leads", sa.SmallInteger(), nullable=False),
        sa.Column("east_leads", sa.SmallInteger(), nullable=False),
        sa.Column("moves", sa.LargeBinary(), nullable=False),
        sa.Column("h_lower", sa.SmallInteger(), nullable=False),
        sa.Column("h_upper", sa.SmallInteger(), nullable=False),
        sa.Column("h", sa.SmallInteger(), nullable=False),
        sa.Column("greedy_west_leads", sa.SmallInteger(), nullable=False),
        sa.Column("greedy_east_leads", sa.SmallInteger(), nullable=False),
        sa.Column("five_card_west_leads", sa.String(length=1), nullable=False),
        sa.Column("five_card_east_leads", sa.String(length=1), nullable=False),
        sa.Column("ace", sa.String(length=1), nullable=False),
        sa.Column("flags", sa.SmallInteger(), nullable=False),
        sa.CheckConstraint("n >= 1", name=op.f("ck_deal_n_positive")),
        sa.CheckConstraint("denominator >= 1", name=op.f("ck_deal_denominator_positive")),
        sa.CheckConstraint("inf_sign IN (-1, 0, 1)", name=op.f("ck_deal_inf_sign_range")),
        sa.CheckConstraint("stoppers >= 0", name=op.f("ck_deal_stoppers_nonnegative")),
        sa.CheckConstraint("five_card_west_leads IN ('W', 'E')", name=op.f("ck_deal_five_card_west_leads_player")),
        sa.CheckConstraint("five_card_east_leads IN ('W', 'E')", name=op.f("ck_deal_five_card_east_leads_player")),
        sa.CheckConstraint("ace IN ('W', 'E')", name=op.f("ck_deal_ace_player")),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_deal")),
    )
    op.create_index(op.f("ix_deal_number_scaled_inf_sign_stoppers"), "deal", ["number_scaled", "inf_sign", "stoppers"])
    op.create_index(op.f("ix_deal_fraction_scaled"), "deal", ["fraction_scaled"])
    op.create_index(op.f("ix_deal_denominator"), "deal", ["denominator"])
    op.create_index(op.f("ix_deal_inf_sign_stoppers"), "deal", ["inf_sign", "stoppers"],
                    sqlite_where=sa.text("inf_sign != 0"), postgresql_where=sa.text("inf_sign != 0"))
    op.create_index(op.f("ix_deal_west_leads_east_leads"), "deal", ["west_leads", "east_leads"])
    op.create_index(op.f("ix_deal_flags"), "deal", ["flags"], sqlite_where=sa.text("flags != 0"),
                    postgresql_where=sa.text("flags != 0"))
