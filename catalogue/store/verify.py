"""Checking a catalogue (``verify``): everything a user can read, against what was recorded or recomputed.

``verify`` runs a list of independent checks (:data:`CHECKS`); each adds what it
finds to one :class:`VerifyReport`, and one more check plugs in with one line.

1. **integrity** — the database's own check of its pages and indexes: SQLite's
   ``PRAGMA integrity_check``, which catches a damaged index that would make
   searches silently wrong (``quick_check`` does not compare an index with its
   table, so it misses a changed key); on PostgreSQL
   ``amcheck``'s ``bt_index_check`` on every index of the catalogue's tables when
   the extension is installed (else a note says the indexes were not checked).
2. **level metadata** — every ``level`` row is one this software could have
   written: n in 1…30, a row count, a checksum of a known format.
3. **levels** — per level: marked complete; exactly C(2n, n) rows in its key
   range, as recorded, each with the right ``n``; every column of every row of
   the right type; the checksum recorded at build time equals the one of the
   rows read back — format 2 (``"2:"`` + 62 hex digits of SHA-256) covers every
   stored column (:func:`level_checksum`), format 1 (older catalogues: 64 hex
   digits) the key, value and moves only; a few random deals recomputed
   independently — by the literal recursive definition up to
   ``recursive_max_n``, above it by :class:`~whist_catalogue.engine.levels.EngineSolver`
   (moves from the α matrix, not the moves kernel) — value, moves, outcome
   (also by Theorem 8.1), H̄, H̲, H, Greedy Whist, Five-card, the ace and the
   flags.  With ``full``: every column of every deal compared with the level
   recomputed by the engine (:func:`whist_catalogue.store.build.level_columns`),
   vectorized.
4. **stray rows** — no row outside the complete levels.
5. **solved games** — each stored game is valid JSON and equals the game
   solved again now (:func:`whist_catalogue.games.solved_games.solve`).

The catalogue passes only if every check holds.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from datetime import datetime
from math import comb
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from whist_catalogue.constants import MAX_LEVEL_N
from whist_catalogue.errors import CatalogueError
from whist_catalogue.store.database import database_errors

__all__ = [
    "level_checksum",
    "level_checksum_v1",
    "checksum_version",
    "CHECKSUM_COLUMNS",
    "LevelCheck",
    "VerifyReport",
    "VerifyContext",
    "CHECKS",
    "verify",
    "RECURSIVE_MAX_N",
    "DEFAULT_SAMPLE",
    "MAX_SAMPLE",
]

RECURSIVE_MAX_N = 9
"""Sampled deals up to this size are recomputed by the literal recursive definition (≈ 0.5 s a deal at n = 9)."""
DEFAULT_SAMPLE = 4
"""Sampled deals per level."""
MAX_SAMPLE = 100_000
"""The most sampled deals a level ``verify`` accepts (about a minute a thousand by the recursive definition at
n = 9): a larger request is refused before any work."""
CHUNK = 65_536

# -- checksums ------------------------------------------------------------------------------------------

CHECKSUM_COLUMNS = (
    "key", "n", "numerator", "denominator", "number_scaled", "fraction_scaled", "inf_sign", "stoppers",
    "west_leads", "east_leads", "h_lower", "h_upper", "h", "greedy_west_leads", "greedy_east_leads",
    "five_card_west_leads", "five_card_east_leads", "ace", "flags", "moves",
)  # fmt: skip
"""Every stored column of ``deal``, in the order the format-2 checksum packs them."""
PLAYER_COLUMNS = frozenset({"five_card_west_leads", "five_card_east_leads", "ace"})
INTEGER_COLUMNS = tuple(c for c in CHECKSUM_COLUMNS if c not in PLAYER_COLUMNS and c != "moves")
_V2 = "2:"


def _v2_dtype(n: int) -> np.dtype:
    # Every integer as int64: a tampered value that overflowed a narrower type could wrap back to the original.
    fields = [(c, "<i8") for c in INTEGER_COLUMNS] + [(c, "u1") for c in sorted(PLAYER_COLUMNS)]
    return np.dtype(fields + [("moves", "<u2", (2 + 2 * n,))])


def _player_codes(column: np.ndarray) -> np.ndarray:
    """W → 1, E → 2, anything else (a tampered or mistyped cell) → 0."""
    return ((column == "W") * 1 + (column == "E") * 2).astype(np.uint8)


class _Digest:
    """Both checksum formats of a level, fed chunk by chunk in key order."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.v1 = hashlib.sha256()
        self.v2 = hashlib.sha256()

    def update(self, columns: Mapping[str, np.ndarray]) -> None:
        rows = len(columns["key"])
        records = np.zeros(rows, _v2_dtype(self.n))
        for c in INTEGER_COLUMNS:
            records[c] = columns[c]
        for c in PLAYER_COLUMNS:
            records[c] = _player_codes(np.asarray(columns[c]))
        records["moves"] = columns["moves"]
        self.v2.update(records.tobytes())
        rank = np.asarray(columns["inf_sign"], np.int64) * (np.asarray(columns["stoppers"], np.int64) + 1)
        self.v1.update(_v1_records(columns["key"], columns["number_scaled"], rank, columns["moves"]).tobytes())

    def checksum(self) -> str:
        return _V2 + self.v2.hexdigest()[:62]


def level_checksum(n: int, columns: Mapping[str, np.ndarray]) -> str:
    """The format-2 checksum of a whole level: SHA-256 over every column of :data:`CHECKSUM_COLUMNS` in key order.

    ``columns`` as :func:`whist_catalogue.store.build.level_columns` makes them (``moves`` a (rows, 2 + 2n)
    uint16 array, players ``"W"``/``"E"``).  Written ``"2:"`` + 62 hex digits, so that it fits the
    ``level.checksum`` column and tells itself apart from the 64 hex digits of format 1.
    """
    digest = _Digest(n)
    digest.update(columns)
    return digest.checksum()


def _v1_records(keys, number_scaled, rank, moves) -> np.ndarray:  # noqa: ANN001
    n = (np.shape(moves)[1] - 2) // 2
    dtype = np.dtype([("key", "<i8"), ("number", "<i4"), ("rank", "i1"), ("moves", "<u2", (2 + 2 * n,))])
    records = np.empty(len(keys), dtype)
    records["key"] = keys
    records["number"] = number_scaled
    records["rank"] = rank
    records["moves"] = moves
    return records


def level_checksum_v1(keys: np.ndarray, number_scaled: np.ndarray, rank: np.ndarray, moves: np.ndarray) -> str:
    """Format 1 (catalogues built before format 2): SHA-256 of key, q·2^24, infinitesimal rank and moves."""
    return hashlib.sha256(_v1_records(keys, number_scaled, rank, moves).tobytes()).hexdigest()


def checksum_version(checksum: object) -> int | None:
    """1 or 2 for a checksum of a known format, None otherwise."""
    if not isinstance(checksum, str):
        return None
    if checksum.startswith(_V2) and re.fullmatch(r"[0-9a-f]{62}", checksum[2:]):
        return 2
    if re.fullmatch(r"[0-9a-f]{64}", checksum):
        return 1
    return None


# -- the report -----------------------------------------------------------------------------------------


@dataclass
class LevelCheck:
    """The verdict on one level."""

    n: int
    complete: bool
    expected_rows: int
    row_count: int | None = None
    """Rows found in the level's key range."""
    checksum_ok: bool | None = None
    checksum_version: int | None = None
    """1: key, value and moves; 2: every column."""
    sampled: int = 0
    recomputed: int = 0
    """Deals whose every column was compared with the engine (``full``)."""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.complete and not self.problems

    def to_json(self) -> dict:
        return {
            "n": self.n,
            "complete": self.complete,
            "expected_rows": self.expected_rows,
            "rows": self.row_count,
            "checksum_ok": self.checksum_ok,
            "checksum_version": self.checksum_version,
            "sampled": self.sampled,
            "recomputed": self.recomputed,
            "ok": self.ok,
            "problems": self.problems,
        }


@dataclass
class VerifyReport:
    """Every level's verdict, problems that belong to no level, and notes (limits of what was checked)."""

    location: str
    levels: list[LevelCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    """The checks that ran, in order."""

    @property
    def ok(self) -> bool:
        return bool(self.levels) and not self.problems and all(c.ok for c in self.levels)

    @property
    def all_problems(self) -> list[str]:
        return self.problems + [p for c in self.levels for p in c.problems]

    def summary(self) -> str:
        complete = [c for c in self.levels if c.complete]
        deals = sum(c.expected_rows for c in complete)
        sampled = sum(c.sampled for c in self.levels)
        recomputed = sum(c.recomputed for c in self.levels)
        head = "OK" if self.ok else "FAILED"
        full = f", {recomputed:,} deals recomputed in full" if recomputed else ""
        text = (
            f"verify {head}: {self.location}: {len(complete)} of {len(self.levels)} levels complete"
            f" ({deals:,} deals), checksums {'match' if all(c.checksum_ok for c in complete) else 'DIFFER'},"
            f" {sampled} sampled deals recomputed{full}"
        )
        problems = self.all_problems
        if problems:
            shown = "; ".join(problems[:5]) + (f"; … {len(problems) - 5} more" if len(problems) > 5 else "")
            text += f" — {len(problems)} problem{'s' if len(problems) != 1 else ''}: {shown}"
        return text

    def to_json(self) -> dict:
        return {
            "catalogue": self.location,
            "ok": self.ok,
            "checks": self.checks,
            "levels": [c.to_json() for c in self.levels],
            "problems": self.all_problems,
            "notes": self.notes,
            "summary": self.summary(),
        }


@dataclass
class VerifyContext:
    """What every check gets: the open catalogue, the options, and the report to add to."""

    catalogue: Any
    report: VerifyReport
    sample: int = DEFAULT_SAMPLE
    rng: random.Random = field(default_factory=random.Random)
    recursive_max_n: int = RECURSIVE_MAX_N
    full: bool = False
    progress: Callable[[str, int, int], None] | None = None
    level_rows: list[dict[str, Any]] = field(default_factory=list)
    """The ``level`` rows that passed the metadata check, by n (the levels check reads these)."""

    def stream(self, statement, batch: int = CHUNK) -> Iterator:  # noqa: ANN001
        return self.catalogue.stream(statement, batch)


Check = Callable[[VerifyContext], None]


# -- 1. integrity ---------------------------------------------------------------------------------------


def check_integrity(ctx: VerifyContext) -> None:
    """The database's own check of pages and indexes (module docstring, 1)."""
    import sqlalchemy as sa

    location = ctx.catalogue.location
    if location.is_sqlite:
        # quick_check skips comparing indexes with their table: a flipped byte in an index key passes it
        # (and would make searches wrong), so the full check runs: 11.6 s against quick_check's 1.6 s for
        # n ≤ 12, measured with the machine's load at 9 (docs/benchmarks.md).
        pragma = "integrity_check"
        try:
            found = [row[0] for row in ctx.stream(sa.text(f"PRAGMA {pragma}(20)"), 100)]
        except CatalogueError as exc:
            ctx.report.problems.append(f"SQLite {pragma} cannot run: {exc}")
            return
        if found != ["ok"]:
            indexes = sorted(set(re.findall(r"index (\w+)", " ".join(found))))
            named = f"damaged index {', '.join(indexes)}: " if indexes else ""
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            ctx.report.problems.append(f"SQLite {pragma}: {named}{found[0]}{more}")
        return
    _check_postgresql_indexes(ctx)


def _check_postgresql_indexes(ctx: VerifyContext) -> None:
    import sqlalchemy as sa

    installed = sa.text("SELECT count(*) FROM pg_extension WHERE extname = 'amcheck'")
    if not next(iter(ctx.stream(installed, 10)))[0]:
        ctx.report.notes.append("PostgreSQL: the amcheck extension is not installed, so indexes were not checked"
                                " (CREATE EXTENSION amcheck, as a superuser, enables the check)")
        return
    indexes = sa.text(
        "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "JOIN pg_class t ON t.oid = i.indrelid JOIN pg_am a ON a.oid = c.relam "
        "WHERE t.relname IN ('deal', 'level', 'solved_game') AND a.amname = 'btree' "
        "AND t.relnamespace = to_regnamespace(current_schema())::oid ORDER BY c.relname"
    )
    allowed = sa.text("SELECT has_function_privilege('bt_index_check(regclass, boolean)', 'EXECUTE')")
    if not next(iter(ctx.stream(allowed, 10)))[0]:
        # amcheck's functions are for superusers unless granted: the catalogue's owner may not run them.
        ctx.report.notes.append("PostgreSQL: amcheck is installed but this role may not run bt_index_check, so indexes"
                                " were not checked (a superuser can run verify, or GRANT EXECUTE ON FUNCTION"
                                " bt_index_check(regclass, boolean) to this role)")
        return
    for (name,) in list(ctx.stream(indexes, 100)):
        try:
            list(ctx.stream(sa.text("SELECT bt_index_check(CAST(:name AS regclass), true)").bindparams(name=name), 1))
        except CatalogueError as exc:
            ctx.report.problems.append(f"PostgreSQL amcheck: damaged index {name}: {exc}")


# -- 2. level metadata ----------------------------------------------------------------------------------


def check_level_metadata(ctx: VerifyContext) -> None:
    """Every ``level`` row is one this software could have written (module docstring, 2)."""
    import sqlalchemy as sa

    from whist_catalogue.store.models import LevelRow

    columns = [c.name for c in LevelRow.__table__.columns]
    # The cells as stored, without SQLAlchemy's conversions: a date that does not parse is a finding, not a crash.
    statement = sa.select(*(sa.type_coerce(c, sa.types.NullType()).label(c.name) for c in LevelRow.__table__.columns)
                          ).order_by(LevelRow.n)
    try:
        rows = [dict(zip(columns, r)) for r in ctx.stream(statement, 1000)]
    except CatalogueError as exc:
        ctx.report.problems.append(f"level table cannot be read: {exc}")
        return
    if not rows:
        ctx.report.problems.append("the catalogue holds no levels (build it with whist-catalogue build)")
    for row in rows:
        problem = _level_row_problem(row)
        if problem:
            ctx.report.problems.append(f"level table: {problem} (corrupt metadata; rebuild the catalogue)")
        else:
            ctx.level_rows.append(row)
    # Every build writes one chunk size for all its levels; a level whose chunk_deals differs was changed, even
    # where its chunks' headers cannot tell (a level of one chunk reads the same under any larger size).
    sizes: dict[int, list[int]] = {}
    for row in ctx.level_rows:
        if row.get("storage") is not None and row["complete"]:
            sizes.setdefault(row["chunk_deals"], []).append(row["n"])
    if len(sizes) > 1:
        usual = max(sizes, key=lambda size: (len(sizes[size]), size))
        for size, ns in sorted(sizes.items()):
            if size != usual:
                levels, record = (f"levels {', '.join(map(str, ns))}", "record") if len(ns) > 1 else \
                    (f"level {ns[0]}", "records")
                ctx.report.problems.append(f"level table: {levels} {record} {size:,} deals a chunk, the other levels"
                                           f" {usual:,} (corrupt metadata; rebuild the catalogue)")


def _level_row_problem(row: dict[str, Any]) -> str | None:
    n = row["n"]
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_LEVEL_N:
        return f"a row names level n = {n!r} (levels are 1…{MAX_LEVEL_N})"
    if row["complete"] not in (True, False):
        return f"level {n} records complete = {row['complete']!r}"
    if isinstance(row["row_count"], bool) or not isinstance(row["row_count"], int) or row["row_count"] < 0:
        return f"level {n} records {row['row_count']!r} rows"
    if row.get("storage") not in (None, "rows", "chunks"):
        return f"level {n} records a storage of no known kind: {str(row['storage'])[:20]!r}"
    chunk_deals = row.get("chunk_deals")
    if (row["complete"] and row.get("storage") is not None or chunk_deals is not None) and (
            type(chunk_deals) is not int or chunk_deals < 1):
        return f"level {n} records {str(chunk_deals)[:20]!r} deals a chunk"
    # A chunk-only level has no rows to checksum: its chunks carry their own checksums.
    if row["complete"] and row.get("storage") != "chunks" and checksum_version(row["checksum"]) is None:
        return f"level {n} records a checksum of no known format: {str(row['checksum'])[:20]!r}"
    built_at = row.get("built_at")
    if built_at is not None and not isinstance(built_at, datetime):
        try:
            datetime.fromisoformat(built_at)
        except (TypeError, ValueError):
            return f"level {n} records a build time that is not one: {str(built_at)[:20]!r}"
    version = row["software_version"]
    if version is not None and (not isinstance(version, str) or not re.fullmatch(r"[0-9A-Za-z.+_-]{1,32}", version)):
        return f"level {n} records a software version that is not one: {str(version)[:20]!r}"
    return None


# -- 3. levels ------------------------------------------------------------------------------------------


def check_levels(ctx: VerifyContext) -> None:
    """Completeness, types, checksum, the sample and (``full``) every deal recomputed (module docstring, 3)."""
    from whist_catalogue.engine.levels import EngineSolver, Level, compute_level

    rows = ctx.level_rows
    if not rows:
        return
    top = max(r["n"] for r in rows)
    engine = EngineSolver(top) if ctx.sample and top > ctx.recursive_max_n else None
    by_n = {r["n"]: r for r in rows}
    previous = Level.empty()
    complete = {n for n, r in by_n.items() if r["complete"]}
    for n in sorted(complete):
        if n > 1 and n - 1 not in complete:
            # A build makes each level from the one below, and a chunk-only level's best moves are read from it.
            ctx.report.problems.append(f"level {n} is complete but level {n - 1}, from which it is made and its best"
                                       " moves are derived, is not (a level row deleted or changed)")
    for i, n in enumerate(sorted(by_n)):
        if ctx.progress:
            ctx.progress(f"level {n}", i, len(by_n))
        expected = None
        values = None
        if ctx.full:
            # Every level from 1 up, as the build computes them: each is made from the one before.
            rows = by_n[n].get("storage") != "chunks"
            for m in range(previous.n + 1, n + 1):
                level = compute_level(m, previous, moves=rows and m == n, checks=m == n)
                if m == n:
                    from whist_catalogue.store.build import level_columns

                    # A level with rows has chunks too (the next level's best moves are read from them): both
                    # are compared with the engine.
                    values = _LevelValues(level)
                    expected = level_columns(level) if rows else values
                previous = Level(m, level.codes, level.table)
        ctx.report.levels.append(_check_level(ctx, by_n[n], engine, expected, values))
    if ctx.progress:
        ctx.progress("done", len(by_n), len(by_n))


def _check_level(ctx: VerifyContext, info: dict[str, Any], engine, expected,  # noqa: ANN001
                 values: _LevelValues | None = None) -> LevelCheck:
    n = info["n"]
    check = LevelCheck(n, bool(info["complete"]), comb(2 * n, n))
    if not check.complete:
        check.problems.append(f"level {n}: incomplete (interrupted or not yet built; rerun build to finish it)")
        return check
    chunks_ok = True
    if info.get("storage") is not None:  # a level of the level store: its chunks first
        from whist_catalogue.store.levels import check_level_store
        from whist_catalogue.store.reader import LevelInfo

        fields: dict[str, Any] = {name: info.get(name) for name in LevelInfo.__dataclass_fields__}
        level_info = LevelInfo(**fields)
        try:
            has_rows = check_level_store(ctx.catalogue, level_info, check, rng=ctx.rng, sample=ctx.sample,
                                         recursive_max_n=ctx.recursive_max_n)
        except CatalogueError as exc:  # damage elsewhere (another level's metadata) stops this level's check
            check.problems.append(f"level {n}: chunks cannot be checked: {exc}")
            return check
        if values is not None:
            _compare_chunk_values(ctx, check, values)
        if not has_rows:
            return check  # the level store's chunks are all there is of this level
        chunks_ok = check.checksum_ok
    check.checksum_version = checksum_version(info["checksum"])
    chunk_values = None
    if info.get("storage") is not None and chunks_ok:
        # The rows are under the level's checksum; the chunks must hold the same values, since the next level's
        # best moves are derived from them (a chunk changed with its SHA-256 recomputed shows here).
        from whist_catalogue.store.levels import read_level_values

        try:
            with database_errors(ctx.catalogue.location), ctx.catalogue.connect() as connection:
                chunk_values = read_level_values(connection, n)
        except (CatalogueError, ValueError) as exc:
            check.problems.append(f"level {n}: chunks cannot be read: {exc}")
    try:
        scan = _scan_level(ctx, n, expected, chunk_values)
    except CatalogueError as exc:  # a damaged page: this level fails, the others are still checked
        check.problems.append(f"level {n}: cannot be read: {exc}")
        return check
    check.row_count = scan.rows
    if scan.rows != check.expected_rows or info["row_count"] != check.expected_rows:
        check.problems.append(
            f"level {n}: {scan.rows:,} rows stored, {info['row_count']:,} recorded, C(2n, n) = {check.expected_rows:,}"
        )
    check.problems.extend(f"level {n}: {p}" for p in scan.problems)
    recorded = info["checksum"]
    found = None if check.checksum_version is None else scan.checksums.get(check.checksum_version)
    check.checksum_ok = found is not None and found == recorded and chunks_ok
    if not (found is not None and found == recorded):
        check.problems.append(f"level {n}: checksum differs from the one recorded at build time"
                              " (a stored value, move or column was changed, or rows are missing)")
    if check.checksum_version == 1:
        ctx.report.notes.append(f"level {n} was built before checksums covered every column (format 1: key, value,"
                                " moves); verify --full checks the other columns, a rebuild of the level records"
                                " the full checksum")
    if expected is not None and not scan.problems:
        check.recomputed = scan.rows
    if ctx.sample > 0:
        try:
            check.problems.extend(_check_sample(ctx.catalogue, n, ctx.rng, ctx.sample, ctx.recursive_max_n, engine))
        except CatalogueError as exc:
            check.problems.append(f"level {n}: sample cannot be read: {exc}")
        check.sampled = min(ctx.sample, check.expected_rows)
    return check


@dataclass
class _LevelValues:
    """``verify --full`` of a chunk-only level: the level recomputed by the engine (values and check flags)."""

    level: Any


def _compare_chunk_values(ctx: VerifyContext, check: LevelCheck, expected: _LevelValues) -> None:
    """Every deal's value and check flags in the chunks against the engine's (``verify --full``)."""
    from whist_catalogue.store.build import FLAG_MASK
    from whist_catalogue.store.levels import read_level_values

    level = expected.level
    try:
        with database_errors(ctx.catalogue.location), ctx.catalogue.connect() as connection:
            codes, table, flags = read_level_values(connection, level.n)
    except (CatalogueError, ValueError) as exc:
        check.problems.append(f"level {level.n}: chunks cannot be read: {exc}")
        return
    same = (np.array_equal(table.numerator[codes], level.numerator)
            and np.array_equal(table.infinitesimal[codes], level.infinitesimal))
    if not same:
        bad = int(np.flatnonzero((table.numerator[codes] != level.numerator)
                                 | (table.infinitesimal[codes] != level.infinitesimal))[0])
        check.problems.append(f"level {level.n}: the value stored for rank {bad:,} differs from the engine's")
    elif level.flags is not None and not np.array_equal(flags & FLAG_MASK, level.flags & FLAG_MASK):
        check.problems.append(f"level {level.n}: stored check flags differ from the engine's")
    else:
        check.recomputed = len(level)


@dataclass
class _LevelScan:
    rows: int = 0
    checksums: dict[int, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _scan_level(ctx: VerifyContext, n: int, expected: Mapping[str, np.ndarray] | None,
                chunk_values: tuple[np.ndarray, Any, np.ndarray] | None = None) -> _LevelScan:
    """Read level n in key order, a chunk at a time: types, row count, both checksums, and — given the
    expected columns — every column compared with them; given the level's chunks (codes, table, flags by
    rank: key order is rank order), every row's value and check flags compared with its chunk's."""
    from whist_catalogue.store.build import FLAG_MASK
    import sqlalchemy as sa

    from whist_catalogue.store.models import DealRow

    table = DealRow.__table__
    statement = sa.select(*(table.c[c] for c in CHECKSUM_COLUMNS)).where(DealRow.in_level(n)).order_by(DealRow.key)
    scan = _LevelScan()
    digest = _Digest(n)
    width = 2 + 2 * n
    differing: dict[str, int] = {}
    first_bad: dict[str, int] = {}
    comparable = expected is not None
    for chunk in ctx.catalogue.stream_chunks(statement, CHUNK):
        columns, problem = _columns(chunk, width)
        if problem:
            scan.rows += len(chunk)
            scan.problems.append(problem + " (corrupt rows; rebuild the level)")
            return scan
        wrong_n = int(np.count_nonzero(columns["n"] != n))
        if wrong_n:
            scan.problems.append(f"{wrong_n} rows have a wrong n")
        digest.update(columns)
        if chunk_values is not None:
            codes, values, flags = chunk_values
            start, stop = scan.rows, scan.rows + len(chunk)
            part = codes[start:stop]
            rank = columns["inf_sign"] * (columns["stoppers"] + 1)
            differ = ((values.numerator[part] != columns["number_scaled"]) | (values.infinitesimal[part] != rank)
                      | ((flags[start:stop] & FLAG_MASK) != (columns["flags"] & FLAG_MASK))) \
                if stop <= len(codes) else np.ones(len(chunk), bool)
            if differ.any():
                from whist_catalogue.theory.deals import deal_label

                first = int(np.argmax(differ))
                scan.problems.append(f"its rows and its chunks disagree in {int(differ.sum()):,} deal"
                                     f"{'s' if int(differ.sum()) != 1 else ''} (first: rank {start + first:,},"
                                     f" {deal_label(int(columns['key'][first]))}) on the value or check flags")
                chunk_values = None
        if comparable and expected is not None:
            start, stop = scan.rows, scan.rows + len(chunk)
            if stop > len(expected["key"]) or not np.array_equal(columns["key"], expected["key"][start:stop]):
                scan.problems.append("its keys are not the level's deals in order (rows missing or added)")
                comparable = False
            else:
                for c in CHECKSUM_COLUMNS:
                    want = expected[c][start:stop]
                    got = columns[c]
                    bad = ~(got == want).reshape(len(chunk), -1).all(axis=1)
                    if bad.any():
                        differing[c] = differing.get(c, 0) + int(bad.sum())
                        first_bad.setdefault(c, int(columns["key"][np.argmax(bad)]))
        scan.rows += len(chunk)
    from whist_catalogue.theory.deals import deal_label

    for c, count in differing.items():
        scan.problems.append(f"column {c} differs from the recomputed level in {count:,} deal"
                             f"{'s' if count != 1 else ''} (first: {deal_label(first_bad[c])})")
    scan.checksums = {1: digest.v1.hexdigest(), 2: digest.checksum()}
    return scan


def _columns(chunk: list, width: int) -> tuple[dict[str, np.ndarray], str | None]:
    """The chunk's rows as one array a column, or the first column holding a value of the wrong type."""
    columns: dict[str, np.ndarray] = {}
    for i, (c, cells) in enumerate(zip(CHECKSUM_COLUMNS, zip(*chunk))):
        if c == "moves":
            if not all(type(b) is bytes and len(b) == 2 * width for b in cells):
                key = next(r[0] for r in chunk if not (type(r[i]) is bytes and len(r[i]) == 2 * width))
                return columns, f"deal key {key}: moves are not {2 * width} bytes"
            columns[c] = np.frombuffer(b"".join(cells), "<u2").reshape(len(chunk), width)
        elif c in PLAYER_COLUMNS:
            columns[c] = np.array(cells, dtype=object)
        else:
            array = np.array(cells)
            if array.dtype.kind not in "iu":
                key = next(r[0] for r in chunk if type(r[i]) is not int)
                return columns, f"deal key {key}: column {c} holds {type(_first_odd(cells)).__name__}, not an integer"
            columns[c] = array.astype(np.int64)
    return columns, None


def _first_odd(cells: Sequence[object]) -> object:
    return next(v for v in cells if type(v) is not int)


def _check_sample(catalogue, n: int, rng: random.Random, sample: int, recursive_max_n: int,  # noqa: ANN001
                  engine) -> list[str]:  # noqa: ANN001
    from whist_catalogue.engine.scan import conjecture_12_2_holds, conjecture_12_3_holds, theorem_8_10_holds
    from whist_catalogue.single_suit import formulas as single_suit
    from whist_catalogue.single_suit.formulas import outcome_from_h
    from whist_catalogue.store.reader import NotInCatalogue
    from whist_catalogue.theory import definition
    from whist_catalogue.theory.deals import Deal
    from whist_catalogue.theory.ranking import level_size, unrank
    from whist_catalogue.theory.values import rho

    size = level_size(n)
    ranks = rng.sample(range(size), min(sample, size))
    solver = definition if n <= recursive_max_n or engine is None else engine
    problems = []
    for r in ranks:
        deal = Deal(n, unrank(n, r))
        try:
            stored = catalogue.record(deal)
        except (NotInCatalogue, CatalogueError) as exc:
            problems.append(f"level {n}: deal {deal.label} cannot be read: {exc}")
            continue
        expected = solver.solve(deal)
        q = single_suit.quantities(deal)
        greedy = q.greedy_whist_outcome
        reduced = solver.solve(deal.without_lowest()).value if n > 1 else None
        flags = (
            (0 if conjecture_12_2_holds(expected.value, n) else 1)
            | (0 if conjecture_12_3_holds(expected.value) else 2)
            | (0 if reduced is None or theorem_8_10_holds(expected.value, reduced) else 8)
        )
        try:
            mismatches = [
                name
                for name, ok in (
                    ("value", stored.value == expected.value),
                    ("best moves", stored.solution == expected),
                    ("outcome", stored.outcome == rho(expected.value)),
                    ("outcome by Theorem 8.1", stored.outcome == outcome_from_h(n, stored.h)),
                    ("H bounds", (stored.h_lower, stored.h_upper) == (q.h_lower, q.h_upper)),
                    ("H", stored.h == q.h),
                    ("Greedy Whist", stored.greedy == greedy),
                    ("Five-card", stored.five_card == (q.five_card_west_leads, q.five_card_east_leads)),
                    ("ace", stored.ace == deal.ace_holder),
                    ("flags of 12.2, 12.3, 8.10", stored.flags & 0b1011 == flags),
                )
                if not ok
            ]
        except (TypeError, ValueError, IndexError) as exc:
            mismatches = [f"unreadable ({exc})"]
        if mismatches:
            problems.append(f"level {n}: deal {deal.label} differs when recomputed: {', '.join(mismatches)}")
    return problems


# -- 4. stray rows --------------------------------------------------------------------------------------


def check_stray_rows(ctx: VerifyContext) -> None:
    """No row outside the complete levels (module docstring, 4)."""
    import sqlalchemy as sa

    from whist_catalogue.store.models import DealRow

    counted = sum(c.row_count or 0 for c in ctx.report.levels if c.complete)
    try:
        total = next(iter(ctx.stream(sa.select(sa.func.count()).select_from(DealRow), 10)))[0]
    except CatalogueError as exc:
        ctx.report.problems.append(f"deal table cannot be counted: {exc}")
        return
    if total != counted:
        ctx.report.problems.append(f"{total - counted:,} rows lie outside the complete levels")


def check_stray_chunks(ctx: VerifyContext) -> None:
    """No chunk of a level the ``level`` table does not list (module docstring, 4): a level row deleted while its
    chunks remain changes what look-ups answer (they compute the level again, or cannot derive the best moves of
    the level above)."""
    import sqlalchemy as sa

    from whist_catalogue.store.models import LevelChunkRow

    chunks = LevelChunkRow.__table__
    listed = {r["n"] for r in ctx.level_rows}
    try:
        found = [row[0] for row in ctx.stream(sa.select(chunks.c.n, sa.func.count()).group_by(chunks.c.n)
                                              .order_by(chunks.c.n), 100)]
    except CatalogueError as exc:
        ctx.report.problems.append(f"level_chunk table cannot be read: {exc}")
        return
    for n in found:
        if n not in listed:
            ctx.report.problems.append(f"level_chunk holds chunks of level {n!r}, which the level table does not list"
                                       " (its level row deleted or damaged; rebuild the catalogue)")


# -- 5. solved games ------------------------------------------------------------------------------------


def check_solved_games(ctx: VerifyContext) -> None:
    """Each stored solved game is valid JSON and equals the game solved again (module docstring, 5)."""
    import sqlalchemy as sa

    from whist_catalogue.games import solved_games
    from whist_catalogue.store.models import SolvedGameRow, solved_game_checksum

    statement = sa.select(SolvedGameRow.name, SolvedGameRow.parameters, SolvedGameRow.solution,
                          SolvedGameRow.checksum).order_by(SolvedGameRow.name, SolvedGameRow.id)
    try:
        rows = list(ctx.stream(statement, 100))
    except CatalogueError as exc:
        ctx.report.problems.append(f"solved games cannot be read: {exc}")
        return
    for name, parameters, solution, checksum in rows:
        where = f"solved game {name} {parameters}"
        if not all(isinstance(v, str) for v in (name, parameters, solution)) \
                or checksum != solved_game_checksum(name, parameters, solution):
            # What `solve --db` checks before showing the game: it must pass here too.
            ctx.report.problems.append(f"{where}: differs from the checksum recorded at build time")
        try:
            params = json.loads(parameters)
            stored = json.loads(solution)
        except (TypeError, ValueError):
            ctx.report.problems.append(f"{where}: not valid JSON (rebuild the catalogue)")
            continue
        try:
            fresh = json.loads(json.dumps(solved_games.solve(name, **params).to_json()))
        except Exception as exc:  # noqa: BLE001 - an unknown name or parameters: the row is not ours
            ctx.report.problems.append(f"{where}: cannot be solved again ({type(exc).__name__}: {exc})")
            continue
        if stored != fresh:
            fields = sorted(k for k in set(stored) | set(fresh) if stored.get(k) != fresh.get(k)) \
                if isinstance(stored, dict) else ["the whole solution"]
            ctx.report.problems.append(f"{where}: differs from the game solved again ({', '.join(fields)})")


CHECKS: list[tuple[str, Check]] = [
    ("integrity", check_integrity),
    ("level metadata", check_level_metadata),
    ("levels", check_levels),
    ("stray rows", check_stray_rows),
    ("stray chunks", check_stray_chunks),
    ("solved games", check_solved_games),
]
"""The checks :func:`verify` runs, in order: (name, function of a :class:`VerifyContext`)."""


def verify(
    location,  # noqa: ANN001 - str | PathLike | Catalogue
    *,
    sample: int = DEFAULT_SAMPLE,
    seed: int | None = None,
    recursive_max_n: int = RECURSIVE_MAX_N,
    full: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
    checks: list[tuple[str, Check]] | None = None,
) -> VerifyReport:
    """Check the catalogue at ``location`` (see the module docstring); ``progress(step, done, total)`` per level."""
    from whist_catalogue.store.reader import Catalogue, open_catalogue

    if not 0 <= sample <= MAX_SAMPLE:
        raise CatalogueError(f"sample must be between 0 and {MAX_SAMPLE:,}, got {sample}")
    catalogue = location if isinstance(location, Catalogue) else open_catalogue(location)
    try:
        report = VerifyReport(str(catalogue.location))
        ctx = VerifyContext(catalogue, report, sample, random.Random(seed), recursive_max_n, full, progress)
        for name, check in CHECKS if checks is None else checks:
            report.checks.append(name)
            try:
                check(ctx)
            except CatalogueError as exc:
                # Damage the check could not get past (a table gone, a malformed page): a finding, not a crash.
                report.problems.append(f"{name}: cannot be checked: {exc}")
        return report
    finally:
        if catalogue is not location:
            catalogue.close()
