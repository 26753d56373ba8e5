"""The level store: levels as checksummed chunks of value codes, with per-level tables and statistics.

Revision ID: 7c1e5a9d2b40
Revises: 543b772c1157
Create Date: 2026-11-22 17:30:00+00:00

"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "7c1e5a9d2b40"
down_revision: str | None = "543b772c1157"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("level") as batch:
        batch.add_column(sa.Column("storage", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("chunk_deals", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("value_table", sa.LargeBinary(), nullable=True))
        batch.add_column(sa.Column("statistics", sa.Text(), nullable=True))
        batch.add_column(sa.Column("stored_bytes", sa.BigInteger(), nullable=True))
    op.create_table(
        "level_chunk",
        sa.Column("n", sa.SmallInteger(), nullable=False),
        sa.Column("chunk", sa.Integer(), nullable=False),
        sa.Column("start", sa.BigInteger(), nullable=False),
        sa.Column("stop", sa.BigInteger(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("checksum", sa.String(length=64), nullable=False),
        sa.CheckConstraint("stop > start", name=op.f("ck_level_chunk_range_nonempty")),
        sa.PrimaryKeyConstraint("n", "chunk", name=op.f("pk_level_chunk")),
    )


def downgrade() -> None:
    op.drop_table("level_chunk")
    with op.batch_alter_table("level") as batch:
        for column in ("stored_bytes", "statistics", "value_table", "chunk_deals", "storage"):
            batch.drop_column(column)
