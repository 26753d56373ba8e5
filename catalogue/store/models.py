"""The catalogue's tables as SQLAlchemy 2 typed models (docs/spec.md §5, docs/level-store.md).

This is the one module that declares every model, so it is also the
"import-all" module that ``migrations/env.py`` imports for ``Base.metadata``.
The schema itself is created and changed only by the alembic migrations in
``migrations/versions``; a test checks that these models and the migrations
agree.

* :class:`LevelRow` (``level``) — per n: complete or not, its deals, the union of its chunks' value tables, the
  statistics counted at build time, the chunk size and the chunks' bytes, under a SHA-256 of the row
  (:func:`whist_catalogue.store.levels.level_row_checksum`); software version and build time.  Only a level
  whose chunks are all stored is ever marked complete.
* :class:`LevelChunkRow` (``level_chunk``) — the level store: every complete level as chunks of value codes,
  keyed by (n, chunk), each with its SHA-256.  Everything else of a deal (outcome, best moves, the
  single-suit quantities) is derived when asked (:mod:`whist_catalogue.store.derived`).
* :class:`SolvedGameRow` (``solved_game``) — the matrix games of docs/spec.md §6 as
  JSON, filled by ``build``.
* :class:`EndingLevelRow` (``ending_level``) and :class:`EndingChunkRow` (``ending_chunk``) — the table of
  two-hand endings (:mod:`whist_catalogue.twohand.endings`, docs/two-hand.md): per level k its positions, chunk
  size, West's tricks counted and bytes under a SHA-256 of the row
  (:func:`whist_catalogue.store.endings.ending_row_checksum`), and its values as chunks, each with its SHA-256;
  filled by ``build --endings K``, level by level as the level store is.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy import CheckConstraint, MetaData
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "Base",
    "LevelRow",
    "SolvedGameRow",
    "LevelChunkRow",
    "EndingLevelRow",
    "EndingChunkRow",
    "solved_game_checksum",
    "NAMING_CONVENTION",
    "SCHEMA_VERSION_TABLE",
    "table_of",
]

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
"""Every constraint and index gets a predictable name, so migrations can refer to it."""

# alembic's version table, under a name of our own (defined where the SQLAlchemy-free check reads it).
from whist_catalogue.store.identity import SCHEMA_VERSION_TABLE  # noqa: E402


class Base(DeclarativeBase):
    """The declarative base of the catalogue's models."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def table_of(model: type[Base]) -> sa.Table:
    """The Table a model maps: SQLAlchemy types ``__table__`` as any FROM clause, without ``.indexes``."""
    table = model.__table__
    if not isinstance(table, sa.Table):
        raise TypeError(f"{model.__name__} is not mapped to a table")
    return table


class LevelRow(Base):
    """What is known about one level n: is it complete, and how to check it."""

    __tablename__ = "level"

    n: Mapped[int] = mapped_column(sa.SmallInteger, primary_key=True, autoincrement=False)
    complete: Mapped[bool] = mapped_column(sa.Boolean(create_constraint=True, name="complete_bool"))
    """True only once every deal of the level is stored (set in the transaction that stores them)."""
    row_count: Mapped[int] = mapped_column(sa.BigInteger)
    """Deals stored for the level; C(2n, n) when complete."""
    checksum: Mapped[str | None] = mapped_column(sa.String(64))
    """SHA-256 (hex) of the row's own cells a reader uses (:func:`whist_catalogue.store.levels.level_row_checksum`),
    set when the level completes (before the fifth migration: of its ``deal`` rows)."""
    software_version: Mapped[str | None] = mapped_column(sa.String(32))
    """``catalogue.__version__`` of the build that wrote the level."""
    built_at: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True))
    """When the level's transaction committed (UTC)."""
    build_seconds: Mapped[float | None] = mapped_column(sa.Float)
    """Wall time spent computing and storing the level (added by the second migration)."""
    chunk_deals: Mapped[int | None] = mapped_column(sa.Integer)
    """Deals a chunk (the last chunk of the level may hold fewer)."""
    value_table: Mapped[bytes | None] = mapped_column(sa.LargeBinary)
    """The level's distinct values in V's order: numerator int32[k] then infinitesimal int8[k], little-endian."""
    statistics: Mapped[str | None] = mapped_column(sa.Text)
    """JSON: per value of ``value_table`` its count, and the engine's checks — counted at build time."""
    stored_bytes: Mapped[int | None] = mapped_column(sa.BigInteger)
    """Bytes of the level's chunks (compressed), as stored."""

    def __repr__(self) -> str:
        return f"LevelRow(n={self.n}, complete={self.complete}, row_count={self.row_count})"


class _Chunk:
    """The columns of a chunk row beside its level's key: its place, its range and its bytes under a SHA-256."""

    chunk: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=False)
    """Index of the chunk in its level: it holds [chunk · the level's chunk size, …)."""
    start: Mapped[int] = mapped_column(sa.BigInteger)
    stop: Mapped[int] = mapped_column(sa.BigInteger)
    data: Mapped[bytes] = mapped_column(sa.LargeBinary)
    checksum: Mapped[str] = mapped_column(sa.String(64))
    """SHA-256 (hex) of ``data``."""


class LevelChunkRow(_Chunk, Base):
    """One chunk of a level: the deals with ranks in [start, stop) as value codes, ``data`` as
    :func:`whist_catalogue.engine.chunks.encode_chunk` writes it."""

    __tablename__ = "level_chunk"
    __table_args__ = (CheckConstraint("stop > start", "range_nonempty"),)

    n: Mapped[int] = mapped_column(sa.SmallInteger, primary_key=True, autoincrement=False)

    def __repr__(self) -> str:
        return f"LevelChunkRow(n={self.n}, chunk={self.chunk}, start={self.start}, stop={self.stop})"


class EndingLevelRow(Base):
    """What is known about level k of the table of two-hand endings: complete or not, and how to check it."""

    __tablename__ = "ending_level"

    k: Mapped[int] = mapped_column(sa.SmallInteger, primary_key=True, autoincrement=False)
    """Cards a hand of the level's positions."""
    complete: Mapped[bool] = mapped_column(sa.Boolean(create_constraint=True, name="complete_bool"))
    """True only once every chunk of the level is stored (set in the transaction that checksums the row)."""
    positions: Mapped[int] = mapped_column(sa.BigInteger)
    """The level's positions (:func:`whist_catalogue.twohand.endings.positions`)."""
    chunk_positions: Mapped[int | None] = mapped_column(sa.Integer)
    """Positions a chunk (the last chunk of the level may hold fewer)."""
    statistics: Mapped[str | None] = mapped_column(sa.Text)
    """JSON: ``west_tricks``, how many positions West on lead takes 0, 1, …, k tricks in — counted at build time."""
    stored_bytes: Mapped[int | None] = mapped_column(sa.BigInteger)
    """Bytes of the level's chunks (compressed), as stored."""
    checksum: Mapped[str | None] = mapped_column(sa.String(64))
    """SHA-256 (hex) of the row's cells a reader uses (:func:`whist_catalogue.store.endings.ending_row_checksum`),
    set when the level completes."""
    software_version: Mapped[str | None] = mapped_column(sa.String(32))
    built_at: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True))
    build_seconds: Mapped[float | None] = mapped_column(sa.Float)
    """Wall time spent computing and storing the level."""

    def __repr__(self) -> str:
        return f"EndingLevelRow(k={self.k}, complete={self.complete}, positions={self.positions})"


class EndingChunkRow(_Chunk, Base):
    """One chunk of a level of the table of endings: the values of positions [start, stop), ``data`` as
    :func:`whist_catalogue.store.endings.encode_ending_chunk` writes it."""

    __tablename__ = "ending_chunk"
    __table_args__ = (CheckConstraint("stop > start", "range_nonempty"),)

    k: Mapped[int] = mapped_column(sa.SmallInteger, primary_key=True, autoincrement=False)

    def __repr__(self) -> str:
        return f"EndingChunkRow(k={self.k}, chunk={self.chunk}, start={self.start}, stop={self.stop})"


class SolvedGameRow(Base):
    """A solved matrix game (docs/spec.md §6): ``solved_games.solve(name, **parameters)`` as JSON."""

    __tablename__ = "solved_game"

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(64))
    """The registry name: ``chemin-de-fer``, ``le-her``."""
    parameters: Mapped[str] = mapped_column(sa.String(256))
    """The parameters as canonical JSON (sorted keys), e.g. ``{"cards": 13}``."""
    solution: Mapped[str] = mapped_column(sa.Text)
    """The JSON object of docs/spec.md §6."""
    software_version: Mapped[str] = mapped_column(sa.String(32))
    computed_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True))
    checksum: Mapped[str | None] = mapped_column(sa.String(64))
    """SHA-256 (hex) of name, parameters and solution (:func:`solved_game_checksum`), checked whenever the game
    is shown (added by the fourth migration; a row without one was changed)."""

    __table_args__ = (sa.UniqueConstraint("name", "parameters"),)

    def __repr__(self) -> str:
        return f"SolvedGameRow(name={self.name!r}, parameters={self.parameters})"


def solved_game_checksum(name: str, parameters: str, solution: str) -> str:
    """``solved_game.checksum``: SHA-256 (hex) of the name, the canonical parameters and the solution's JSON text,
    one a line — so a solution changed, or moved to another game's row, no longer matches."""
    import hashlib

    return hashlib.sha256("\n".join((name, parameters, solution)).encode()).hexdigest()
