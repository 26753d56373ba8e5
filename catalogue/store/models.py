"""The catalogue's tables as SQLAlchemy 2 typed models (docs/spec.md §5).

This is the one module that declares every model, so it is also the
"import-all" module that ``migrations/env.py`` imports for ``Base.metadata``.
The schema itself is created and changed only by the alembic migrations in
``migrations/versions``; a test checks that these models and the migrations
agree.

* :class:`DealRow` (``deal``) — one row per single-suit deal, keyed by the
  integer key of docs/spec.md §2.  The value q + x is stored exactly and in the forms
  searches need: the reduced fraction p/q, q·2^24 and frac(q)·2^24 as integers
  (range searches on an index), and the infinitesimal as a sign and a stopper
  count.  Best leads and replies are the 2 + 2n position masks of
  :meth:`whist_catalogue.theory.solution.SuitSolution.move_masks`, packed as little-endian
  uint16.
* :class:`LevelRow` (``level``) — per n: complete or not, row count, checksum,
  software version and build time.  Only a level whose rows were all written
  in the same transaction is ever marked complete.
* :class:`SolvedGameRow` (``solved_game``) — the matrix games of docs/spec.md §6 as
  JSON, filled by ``build``.
* :class:`LevelChunkRow` (``level_chunk``) — the level store (docs/level-store.md):
  every complete level as chunks of value codes, keyed by (n, chunk), each
  with its SHA-256.  The level's own row holds the union of its chunks' value
  tables and the statistics counted at build time; everything else of a deal
  (outcome, best moves, the single-suit quantities) is derived when asked.

Deals of one level occupy one contiguous key range, [2^(2n), 2^(2n+1)), so
"level n" is a primary-key range scan (:meth:`DealRow.in_level`) and needs no
index of its own.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy import CheckConstraint, Index, MetaData
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "Base",
    "DealRow",
    "LevelRow",
    "SolvedGameRow",
    "LevelChunkRow",
    "solved_game_checksum",
    "STORAGES",
    "NAMING_CONVENTION",
    "SCHEMA_VERSION_TABLE",
    "KeyType",
    "PLAYERS",
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

KeyType = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
"""64-bit integer; INTEGER on SQLite so that the key is the table's rowid (no separate key index)."""

PLAYERS = ("W", "E")
STORAGES = ("rows", "chunks")
"""How a complete level is stored: ``rows`` — chunks and a ``deal`` row per deal; ``chunks`` — chunks only."""


class Base(DeclarativeBase):
    """The declarative base of the catalogue's models."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def table_of(model: type[Base]) -> sa.Table:
    """The Table a model maps: SQLAlchemy types ``__table__`` as any FROM clause, without ``.indexes``."""
    table = model.__table__
    if not isinstance(table, sa.Table):
        raise TypeError(f"{model.__name__} is not mapped to a table")
    return table


class DealRow(Base):
    """One single-suit deal: its value, outcome, optimal moves and the single-suit paper's quantities."""

    __tablename__ = "deal"

    key: Mapped[int] = mapped_column(KeyType, primary_key=True, autoincrement=False)
    """Integer key of docs/spec.md §2: West's mask with the sentinel bit 2n."""
    n: Mapped[int] = mapped_column(sa.SmallInteger)
    """Cards a hand."""

    # -- the value q + x (multi-suit paper §6), exactly ---------------------------------
    numerator: Mapped[int] = mapped_column(sa.Integer)
    """Numerator p of the numerical part q = p/denominator, reduced."""
    denominator: Mapped[int] = mapped_column(sa.Integer)
    """Denominator of q, reduced: a power of two (1 for an integer)."""
    number_scaled: Mapped[int] = mapped_column(sa.Integer)
    """q · 2^24, an exact integer whose order is the order of numbers (range searches)."""
    fraction_scaled: Mapped[int] = mapped_column(sa.Integer)
    """(q − ⌊q⌋) · 2^24: the fractional part."""
    inf_sign: Mapped[int] = mapped_column(sa.SmallInteger)
    """Sign of the infinitesimal x: +1 for ε_k (West's exit), −1 for −ε_k, 0 for x = 0."""
    stoppers: Mapped[int] = mapped_column(sa.SmallInteger)
    """k of ±ε_k: the stoppers protecting the exit (0 when x = 0 or x = ±ε₀)."""

    # -- the outcome χ(D) = ρ(val(D)) (Corollary 8.9) -------------------------------------
    west_leads: Mapped[int] = mapped_column(sa.SmallInteger)
    """Tricks West takes with West on lead."""
    east_leads: Mapped[int] = mapped_column(sa.SmallInteger)
    """Tricks West takes with East on lead."""

    moves: Mapped[bytes] = mapped_column(sa.LargeBinary)
    """Best leads and replies (docs/spec.md §3): 2 + 2n uint16 position masks, little-endian."""

    # -- the single-suit paper ---------------------------------------------------------------
    h_lower: Mapped[int] = mapped_column(sa.SmallInteger)
    """H̲ (end of §5)."""
    h_upper: Mapped[int] = mapped_column(sa.SmallInteger)
    """H̄ (end of §5)."""
    h: Mapped[int] = mapped_column(sa.SmallInteger)
    """H of Theorem 9.1: West takes (n + H)/2 tricks, rounded down on lead, up otherwise."""
    greedy_west_leads: Mapped[int] = mapped_column(sa.SmallInteger)
    """Greedy Whist (Theorem 6.1): West's tricks with West on lead."""
    greedy_east_leads: Mapped[int] = mapped_column(sa.SmallInteger)
    """Greedy Whist: West's tricks with East on lead."""
    five_card_west_leads: Mapped[str] = mapped_column(sa.String(1))
    """Five-card (Theorem 7.2): the winner, ``W`` or ``E``, with West on lead."""
    five_card_east_leads: Mapped[str] = mapped_column(sa.String(1))
    """Five-card: the winner with East on lead."""
    ace: Mapped[str] = mapped_column(sa.String(1))
    """Who holds the highest card, ``W`` or ``E``."""

    flags: Mapped[int] = mapped_column(sa.SmallInteger)
    """Bit c set when the deal is a counterexample to check ``whist_catalogue.engine.levels.CHECK_NAMES[c]``."""

    __table_args__ = (
        CheckConstraint("n >= 1", "n_positive"),
        CheckConstraint("denominator >= 1", "denominator_positive"),
        CheckConstraint("inf_sign IN (-1, 0, 1)", "inf_sign_range"),
        CheckConstraint("stoppers >= 0", "stoppers_nonnegative"),
        CheckConstraint("five_card_west_leads IN ('W', 'E')", "five_card_west_leads_player"),
        CheckConstraint("five_card_east_leads IN ('W', 'E')", "five_card_east_leads_player"),
        CheckConstraint("ace IN ('W', 'E')", "ace_player"),
        Index(None, "number_scaled", "inf_sign", "stoppers"),
        Index(None, "fraction_scaled"),
        Index(None, "denominator"),
        Index(None, "inf_sign", "stoppers", sqlite_where=sa.text("inf_sign != 0"),
              postgresql_where=sa.text("inf_sign != 0")),
        Index(None, "west_leads", "east_leads"),
        Index(None, "flags", sqlite_where=sa.text("flags != 0"), postgresql_where=sa.text("flags != 0")),
    )

    @staticmethod
    def key_range(n: int) -> tuple[int, int]:
        """[low, high): the keys of level n."""
        return 1 << (2 * n), 1 << (2 * n + 1)

    @classmethod
    def in_level(cls, n: int) -> sa.ColumnElement[bool]:
        """The deals of level n, as a primary-key range (fast on every backend)."""
        low, high = cls.key_range(n)
        return sa.and_(cls.key >= low, cls.key < high)

    def __repr__(self) -> str:
        return f"DealRow(key={self.key}, n={self.n})"


class LevelRow(Base):
    """What is known about one level n: is it complete, and how to check it."""

    __tablename__ = "level"

    n: Mapped[int] = mapped_column(sa.SmallInteger, primary_key=True, autoincrement=False)
    complete: Mapped[bool] = mapped_column(sa.Boolean(create_constraint=True, name="complete_bool"))
    """True only once every deal of the level is stored (set in the transaction that stores them)."""
    row_count: Mapped[int] = mapped_column(sa.BigInteger)
    """Rows stored for the level; C(2n, n) when complete."""
    checksum: Mapped[str | None] = mapped_column(sa.String(64))
    """SHA-256 (hex) of the level's values and moves in key order (:func:`whist_catalogue.store.verify.level_checksum`)."""
    software_version: Mapped[str | None] = mapped_column(sa.String(32))
    """``catalogue.__version__`` of the build that wrote the level."""
    built_at: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True))
    """When the level's transaction committed (UTC)."""
    build_seconds: Mapped[float | None] = mapped_column(sa.Float)
    """Wall time spent computing and storing the level (added by the second migration)."""
    storage: Mapped[str | None] = mapped_column(sa.String(16))
    """:data:`STORAGES`: whether the level also has ``deal`` rows (None for a level built before the level store)."""
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


class LevelChunkRow(Base):
    """One chunk of a level: the deals with ranks in [start, stop) as value codes (:mod:`whist_catalogue.engine.chunks`)."""

    __tablename__ = "level_chunk"

    n: Mapped[int] = mapped_column(sa.SmallInteger, primary_key=True, autoincrement=False)
    chunk: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=False)
    """Index of the chunk in its level: it holds ranks [chunk · chunk_deals, …)."""
    start: Mapped[int] = mapped_column(sa.BigInteger)
    stop: Mapped[int] = mapped_column(sa.BigInteger)
    data: Mapped[bytes] = mapped_column(sa.LargeBinary)
    """The encoded chunk (:func:`whist_catalogue.engine.chunks.encode_chunk`)."""
    checksum: Mapped[str] = mapped_column(sa.String(64))
    """SHA-256 (hex) of ``data``."""

    __table_args__ = (CheckConstraint("stop > start", "range_nonempty"),)

    def __repr__(self) -> str:
        return f"LevelChunkRow(n={self.n}, chunk={self.chunk}, start={self.start}, stop={self.stop})"


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
