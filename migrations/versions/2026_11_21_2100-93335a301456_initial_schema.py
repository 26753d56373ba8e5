"""Initial schema: one row per deal, and a metadata row per level.

Revision ID: 93335a301456
Revises:
Create Date: 2026-11-21 21:00:00+00:00

"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "93335a301456"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

KEY = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
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
    op.create_index(
        op.f("ix_deal_inf_sign_stoppers"),
        "deal",
        ["inf_sign", "stoppers"],
        sqlite_where=sa.text("inf_sign != 0"),
        postgresql_where=sa.text("inf_sign != 0"),
    )
    op.create_index(op.f("ix_deal_west_leads_east_leads"), "deal", ["west_leads", "east_leads"])
    op.create_index(
        op.f("ix_deal_flags"),
        "deal",
        ["flags"],
        sqlite_where=sa.text("flags != 0"),
        postgresql_where=sa.text("flags != 0"),
    )
    op.create_table(
        "level",
        sa.Column("n", sa.SmallInteger(), nullable=False, autoincrement=False),
        sa.Column("complete", sa.Boolean(create_constraint=True, name="complete_bool"), nullable=False),
        sa.Column("row_count", sa.BigInteger(), nullable=False),
        sa.Column("checksum", sa.String(length=64), nullable=True),
        sa.Column("software_version", sa.String(length=32), nullable=True),
        sa.Column("built_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("n", name=op.f("pk_level")),
    )


def downgrade() -> None:
    op.drop_table("level")
    op.drop_index(op.f("ix_deal_flags"), table_name="deal")
    op.drop_index(op.f("ix_deal_west_leads_east_leads"), table_name="deal")
    op.drop_index(op.f("ix_deal_inf_sign_stoppers"), table_name="deal")
    op.drop_index(op.f("ix_deal_denominator"), table_name="deal")
    op.drop_index(op.f("ix_deal_fraction_scaled"), table_name="deal")
    op.drop_index(op.f("ix_deal_number_scaled_inf_sign_stoppers"), table_name="deal")
    op.drop_table("deal")
