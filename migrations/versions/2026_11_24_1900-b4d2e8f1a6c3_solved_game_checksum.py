"""A checksum beside each solved game, checked whenever the game is shown.

Rows stored before it get the checksum of what they hold now; ``verify`` still compares every stored game
with the game solved again.

Revision ID: b4d2e8f1a6c3
Revises: 7c1e5a9d2b40
Create Date: 2026-11-24 19:00:00+00:00

"""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from alembic import op

revision: str = "b4d2e8f1a6c3"
down_revision: str | None = "7c1e5a9d2b40"
branch_labels: str | None = None
depends_on: str | None = None


def _checksum(name: str, parameters: str, solution: str) -> str:
    # The formula of whist_catalogue.store.models.solved_game_checksum at this revision, frozen here.
    return hashlib.sha256("\n".join((name, parameters, solution)).encode()).hexdigest()


def upgrade() -> None:
    with op.batch_alter_table("solved_game") as batch:
        batch.add_column(sa.Column("checksum", sa.String(length=64), nullable=True))
    games = sa.table("solved_game", sa.column("id"), sa.column("name"), sa.column("parameters"),
                     sa.column("solution"), sa.column("checksum"))
    connection = op.get_bind()
    for id_, name, parameters, solution in connection.execute(
            sa.select(games.c.id, games.c.name, games.c.parameters, games.c.solution)).all():
        if all(isinstance(v, str) for v in (name, parameters, solution)):  # a malformed row stays unsummed: damage
            connection.execute(sa.update(games).where(games.c.id == id_)
                               .values(checksum=_checksum(name, parameters, solution)))


def downgrade() -> None:
    with op.batch_alter_table("solved_game") as batch:
        batch.drop_column("checksum")
