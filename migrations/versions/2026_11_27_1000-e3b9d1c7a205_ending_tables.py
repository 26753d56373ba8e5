"""The table of two-hand endings in the catalogue: a row per level k (its positions, chunk size, West's tricks
counted, bytes, under a checksum of its own) and its values as checksummed chunks (docs/two-hand.md).

Nothing to convert: a catalogue upgraded to this revision has no level of the table until
``whist-catalogue build --endings K`` stores one.

Revision ID: e3b9d1c7a205
Revises: c5e1f0a9d3b7
Create Date: 2026-11-27 10:00:00+00:00

"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "e3b9d1c7a205"
down_revision: str | None = "c5e1f0a9d3b7"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "ending_level",
        sa.Column("k", sa.SmallInteger(), nullable=False, autoincrement=False),
        sa.Column("complete", sa.Boolean(create_constraint=True, name="complete_bool"), nullable=False),
        sa.Column("positions", sa.BigInteger(), nullable=False),
        sa.Column("chunk_positions", sa.Integer(), nullable=True),
        sa.Column("statistics", sa.Text(), nullable=True),
        sa.Column("stored_bytes", sa.BigInteger(), nullable=True),
        sa.Column("checksum", sa.String(length=64), nullable=True),
        sa.Column("software_version", sa.String(length=32), nullable=True),
        sa.Column("built_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("build_seconds", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("k", name=op.f("pk_ending_level")),
    )
    op.create_table(
        "ending_chunk",
        sa.Column("k", sa.SmallInteger(), nullable=False, autoincrement=False),
        sa.Column("chunk", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("start", sa.BigInteger(), nullable=False),
        sa.Column("stop", sa.BigInteger(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("checksum", sa.String(length=64), nullable=False),
        sa.CheckConstraint("stop > start", name=op.f("ck_ending_chunk_range_nonempty")),
        sa.PrimaryKeyConstraint("k", "chunk", name=op.f("pk_ending_chunk")),
    )


def downgrade() -> None:
    op.drop_table("ending_chunk")
    op.drop_table("ending_level")
