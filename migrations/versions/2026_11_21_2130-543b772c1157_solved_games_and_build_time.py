"""Solved matrix games, and the wall time each level took to build.

Revision ID: 543b772c1157
Revises: 93335a301456
Create Date: 2026-11-21 21:30:00+00:00

"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "543b772c1157"
down_revision: str | None = "93335a301456"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("level") as batch:
        batch.add_column(sa.Column("build_seconds", sa.Float(), nullable=True))
    op.create_table(
        "solved_game",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("parameters", sa.String(length=256), nullable=False),
        sa.Column("solution", sa.Text(), nullable=False),
        sa.Column("software_version", sa.String(length=32), nullable=False),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_solved_game")),
        sa.UniqueConstraint("name", "parameters", name=op.f("uq_solved_game_name_parameters")),
    )


def downgrade() -> None:
    op.drop_table("solved_game")
    with op.batch_alter_table("level") as batch:
        batch.drop_column("build_seconds")
