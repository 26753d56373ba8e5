"""Checking a catalogue (``verify``): everything a user can read, against what was recorded or recomputed.

``verify`` runs a list of independent checks (:data:`CHECKS`); each adds what it finds to one
:class:`VerifyReport`, and one more check plugs in with one line.

1. **integrity** — the database's own check of its pages and indexes: SQLite's ``PRAGMA integrity_check``
   (``quick_check`` does not compare an index with its table); on PostgreSQL ``amcheck``'s ``bt_index_check``
   on every index of the catalogue's tables when the extension is installed and the role may run it (else a
   note says the indexes were not checked).
2. **level metadata** — every ``level`` row is one this software could have written, and a complete level's
   row equals the checksum recorded at build time (:func:`whist_catalogue.store.levels.level_row_problem`: what
   look-ups, searches and ``stats`` check before they use it); every level records the build's one chunk size.
3. **levels** — per level: complete, and complete above a complete level; its chunks tile [0, C(2n, n)) with
   each chunk's SHA-256 and header as recorded, and the row's value table, statistics and bytes agree with them
   (:func:`whist_catalogue.store.levels.check_level_store`); a few random deals recomputed independently — the
   literal recursive definition up to ``recursive_max_n``, one step of it from level n−1 as stored above.  With
   ``full``: every deal's value and check bits compared with the level recomputed by the engine.
4. **stray chunks** — no chunk of a level the level table does not list.
5. **solved games** — each stored game equals its checksum and the game solved again now.
6. **endings** — the table of two-hand endings (:func:`whist_catalogue.store.endings.check_endings`): its rows
   under their checksums, every chunk of every complete level as recorded, the counts, and a sample of positions
   searched again without the table (``full``: every level computed again from the one below).

The catalogue passes only if every check holds.  ``progress(step, done, total)`` counts deals: each level
weighs what it holds, so the bar moves as the work does, and says ``done`` only when every check has run.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from math import comb
from typing import Any, Callable

import numpy as np
import sqlalchemy as sa

from whist_catalogue.errors import CatalogueError
from whist_catalogue.store.database import database_errors
from whist_catalogue.store.endings import check_endings
from whist_catalogue.store.levels import check_level_store, level_row_problem, raw_level_rows, read_level_values
from whist_catalogue.store.models import LevelChunkRow, SolvedGameRow, solved_game_checksum
from whist_catalogue.store.records import level_ranges

__all__ = ["LevelCheck", "VerifyReport", "VerifyContext", "CHECKS", "verify", "RECURSIVE_MAX_N", "DEFAULT_SAMPLE",
           "MAX_SAMPLE"]

RECURSIVE_MAX_N = 9
"""Sampled deals up to this size are recomputed by the literal recursive definition (≈ 0.5 s a deal at n = 9)."""
DEFAULT_SAMPLE = 4
"""Sampled deals per level."""
MAX_SAMPLE = 100_000
"""The most sampled deals a level ``verify`` accepts (about a minute a thousand by the recursive definition at
n = 9): a larger request is refused before any work."""


# -- the report -----------------------------------------------------------------------------------------


@dataclass
class LevelCheck:
    """The verdict on one level."""

    n: int
    complete: bool
    expected_rows: int
    """C(2n, n): the deals the level must hold."""
    row_count: int | None = None
    """Deals its chunks were found to hold."""
    checksum_ok: bool | None = None
    """Every chunk's SHA-256, and the level row's own."""
    sampled: int = 0
    recomputed: int = 0
    """Deals whose value and check bits were compared with the engine's (``full``)."""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.complete and not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "complete": self.complete,
            "expected_rows": self.expected_rows,
            "rows": self.row_count,
            "checksum_ok": self.checksum_ok,
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
    ending_levels: list[int] = field(default_factory=list)
    """Levels of the table of two-hand endings checked whole (every chunk, the counts, a sample searched again)."""
    ending_positions: int = 0
    ending_sampled: int = 0

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
        if self.ending_levels:
            text += (f"; the table of endings: k = {level_ranges(self.ending_levels)} checked ({self.ending_positions:,}"
                     f" positions), {self.ending_sampled} sampled positions searched again")
        problems = self.all_problems
        if problems:
            shown = "; ".join(problems[:5]) + (f"; … {len(problems) - 5} more" if len(problems) > 5 else "")
            text += f" — {len(problems)} problem{'s' if len(problems) != 1 else ''}: {shown}"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "catalogue": self.location,
            "ok": self.ok,
            "checks": self.checks,
            "levels": [c.to_json() for c in self.levels],
            "problems": self.all_problems,
            "notes": self.notes,
            "ending_levels": self.ending_levels,
            "ending_positions": self.ending_positions,
            "ending_sampled": self.ending_sampled,
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
    rows: list[dict[str, Any]] = field(default_factory=list)
    """Every ``level`` row that names a level (the levels check reads these)."""
    done: int = 0
    """Deals checked so far, of :attr:`total`."""
    total: int = 0

    def query(self, statement: Any) -> list[Any]:
        """The rows of a statement, damage reported as a :class:`~whist_catalogue.errors.CatalogueError`."""
        with database_errors(self.catalogue.location), self.catalogue.connect() as connection:
            return list(connection.execute(statement))

    def step(self, name: str, deals: int = 0) -> None:
        self.done += deals
        if self.progress is not None:
            self.progress(name, min(self.done, self.total), self.total)


Check = Callable[[VerifyContext], None]


# -- 1. integrity ---------------------------------------------------------------------------------------


def check_integrity(ctx: VerifyContext) -> None:
    """The database's own check of pages and indexes (module docstring, 1)."""
    if ctx.catalogue.location.is_sqlite:
        # quick_check skips comparing indexes with their table: a flipped byte in an index key passes it.
        try:
            found = [row[0] for row in ctx.query(sa.text("PRAGMA integrity_check(20)"))]
        except CatalogueError as exc:
            ctx.report.problems.append(f"SQLite integrity_check cannot run: {exc}")
            return
        if found != ["ok"]:
            indexes = sorted(set(re.findall(r"index (\w+)", " ".join(found))))
            named = f"damaged index {', '.join(indexes)}: " if indexes else ""
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            ctx.report.problems.append(f"SQLite integrity_check: {named}{found[0]}{more}")
        return
    _check_postgresql_indexes(ctx)


def _check_postgresql_indexes(ctx: VerifyContext) -> None:
    installed = sa.text("SELECT count(*) FROM pg_extension WHERE extname = 'amcheck'")
    if not ctx.query(installed)[0][0]:
        ctx.report.notes.append("PostgreSQL: the amcheck extension is not installed, so indexes were not checked"
                                " (CREATE EXTENSION amcheck, as a superuser, enables the check)")
        return
    indexes = sa.text(
        "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "JOIN pg_class t ON t.oid = i.indrelid JOIN pg_am a ON a.oid = c.relam "
        "WHERE t.relname IN ('level', 'level_chunk', 'solved_game', 'ending_level', 'ending_chunk') "
        "AND a.amname = 'btree' "
        "AND t.relnamespace = to_regnamespace(current_schema())::oid ORDER BY c.relname"
    )
    allowed = sa.text("SELECT has_function_privilege('bt_index_check(regclass, boolean)', 'EXECUTE')")
    if not ctx.query(allowed)[0][0]:
        # amcheck's functions are for superusers unless granted: the catalogue's owner may not run them.
        ctx.report.notes.append("PostgreSQL: amcheck is installed but this role may not run bt_index_check, so indexes"
                                " were not checked (a superuser can run verify, or GRANT EXECUTE ON FUNCTION"
                                " bt_index_check(regclass, boolean) to this role)")
        return
    for (name,) in ctx.query(indexes):
        try:
            ctx.query(sa.text("SELECT bt_index_check(CAST(:name AS regclass), true)").bindparams(name=name))
        except CatalogueError as exc:
            ctx.report.problems.append(f"PostgreSQL amcheck: damaged index {name}: {exc}")


# -- 2. level metadata ----------------------------------------------------------------------------------


def check_level_metadata(ctx: VerifyContext) -> None:
    """Every ``level`` row is one this software could have written, under its checksum (module docstring, 2)."""
    try:
        with database_errors(ctx.catalogue.location), ctx.catalogue.connect() as connection:
            rows = raw_level_rows(connection)
    except CatalogueError as exc:
        ctx.report.problems.append(f"level table cannot be read: {exc}")
        return
    if not rows:
        ctx.report.problems.append("the catalogue holds no levels (build it with whist-catalogue build)")
    for row in rows:
        problem = level_row_problem(row)
        if problem:
            ctx.report.problems.append(f"level table: {problem} (corrupt metadata; rebuild the catalogue)")
        if type(row["n"]) is int and 1 <= row["n"] <= 30:
            ctx.rows.append({**row, "problem": problem})
    # Every build writes one chunk size for all its levels; a level whose chunk_deals differs was changed, even
    # where its chunks' headers cannot tell (a level of one chunk reads the same under any larger size).
    sizes: dict[Any, list[int]] = {}
    for row in ctx.rows:
        if row["complete"]:
            sizes.setdefault(row["chunk_deals"], []).append(row["n"])
    if len(sizes) > 1:
        usual = max(sizes, key=lambda size: (len(sizes[size]), str(size)))
        for size, ns in sorted(sizes.items(), key=lambda item: str(item[0])):
            if size != usual:
                levels, record = (f"levels {', '.join(map(str, ns))}", "record") if len(ns) > 1 else \
                    (f"level {ns[0]}", "records")
                shown = f"{size:,}" if type(size) is int else repr(size)[:24]
                ctx.report.problems.append(f"level table: {levels} {record} {shown} deals a chunk, the other levels"
                                           f" {usual:,} (corrupt metadata; rebuild the catalogue)")


# -- 3. levels ------------------------------------------------------------------------------------------


def check_levels(ctx: VerifyContext) -> None:
    """Completeness, the chunks against the row, the sample and (``full``) every deal recomputed (module
    docstring, 3)."""
    from whist_catalogue.engine.levels import Level

    by_n = {r["n"]: r for r in ctx.rows}
    complete = {n for n, r in by_n.items() if r["complete"]}
    for n in sorted(complete):
        if n > 1 and n - 1 not in complete:
            # A build makes each level from the one below, and a level's best moves are read from it.
            ctx.report.problems.append(f"level {n} is complete but level {n - 1}, from which it is made and its best"
                                       " moves are derived, is not (a level row deleted or changed)")
    previous = Level.empty()
    for n in sorted(by_n):
        row = by_n[n]
        check = LevelCheck(n, bool(row["complete"]), comb(2 * n, n))
        ctx.report.levels.append(check)
        ctx.step(f"level {n}")
        if not check.complete:
            check.problems.append(f"level {n}: incomplete (interrupted or not yet built; rerun build to finish it)")
        elif row["problem"] is not None:
            check.checksum_ok = False
            check.problems.append(f"level {n}: its chunks cannot be checked against its damaged level row")
        else:
            _check_complete_level(ctx, row, check)
            if ctx.full:
                previous = _recompute(ctx, check, previous)
        ctx.step(f"level {n}", check.expected_rows)


def _check_complete_level(ctx: VerifyContext, row: dict[str, Any], check: LevelCheck) -> None:
    problems: list[str] = []
    try:
        check.sampled = check_level_store(ctx.catalogue, row, problems, rng=ctx.rng, sample=ctx.sample,
                                          recursive_max_n=ctx.recursive_max_n)
    except CatalogueError as exc:  # damage elsewhere (a malformed page) stops this level's check
        problems.append(f"level {check.n}: chunks cannot be checked: {exc}")
    check.checksum_ok = not any("checksum" in p or "cannot be checked" in p for p in problems)
    check.row_count = check.expected_rows if not problems else None
    check.problems.extend(problems)


def _recompute(ctx: VerifyContext, check: LevelCheck, previous: Any) -> Any:
    """``verify --full``: level n recomputed by the engine from the levels below (each as the engine makes it, from
    level 1 up), every deal's value and check bits compared with the chunks'."""
    from whist_catalogue.engine.levels import CHECK_NAMES, Level, compute_level

    n = check.n
    for m in range(previous.n + 1, n + 1):
        level = compute_level(m, previous, checks=m == n)
        previous = Level(m, level.codes, level.table)
        if m < n:
            continue
        try:
            with database_errors(ctx.catalogue.location), ctx.catalogue.connect() as connection:
                codes, table, flags = read_level_values(connection, n)
        except (CatalogueError, ValueError) as exc:
            check.problems.append(f"level {n}: chunks cannot be read: {exc}")
            break
        differ = (table.numerator[codes] != level.numerator) | (table.infinitesimal[codes] != level.infinitesimal)
        mask = (1 << len(CHECK_NAMES)) - 1
        if differ.any():
            check.problems.append(f"level {n}: the value stored for rank {int(np.flatnonzero(differ)[0]):,} differs"
                                  " from the engine's")
        elif level.flags is not None and not np.array_equal(flags & mask, level.flags & mask):
            check.problems.append(f"level {n}: stored check flags differ from the engine's")
        else:
            check.recomputed = len(level)
    return previous


# -- 4. stray chunks ------------------------------------------------------------------------------------


def check_stray_chunks(ctx: VerifyContext) -> None:
    """No chunk of a level the ``level`` table does not list (module docstring, 4): a level row deleted while its
    chunks remain changes what look-ups answer (they compute the level again, or cannot derive the best moves of
    the level above)."""
    chunks = LevelChunkRow.__table__
    listed = {r["n"] for r in ctx.rows}
    try:
        found = [row[0] for row in ctx.query(sa.select(chunks.c.n).group_by(chunks.c.n).order_by(chunks.c.n))]
    except CatalogueError as exc:
        ctx.report.problems.append(f"level_chunk table cannot be read: {exc}")
        return
    for n in found:
        if n not in listed:
            ctx.report.problems.append(f"level_chunk holds chunks of level {n!r}, which the level table does not list"
                                       " (its level row deleted or damaged; rebuild the catalogue)")


# -- 5. solved games ------------------------------------------------------------------------------------


def check_solved_games(ctx: VerifyContext) -> None:
    """Each stored solved game equals its checksum and the game solved again (module docstring, 5)."""
    from whist_catalogue.games import solved_games

    statement = sa.select(SolvedGameRow.name, SolvedGameRow.parameters, SolvedGameRow.solution,
                          SolvedGameRow.checksum).order_by(SolvedGameRow.name, SolvedGameRow.id)
    try:
        rows = ctx.query(statement)
    except CatalogueError as exc:
        ctx.report.problems.append(f"solved games cannot be read: {exc}")
        return
    for k, (name, parameters, solution, checksum) in enumerate(rows, 1):
        ctx.step(f"solved game {k} of {len(rows)}")
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


def _deals_listed(catalogue: Any) -> int:
    """The deals of every level the level table names: what the progress counts to (0 if it cannot be read —
    the metadata check then says why)."""
    try:
        with database_errors(catalogue.location), catalogue.connect() as connection:
            rows = raw_level_rows(connection)
    except CatalogueError:
        return 0
    return sum(comb(2 * r["n"], r["n"]) for r in rows if type(r["n"]) is int and 1 <= r["n"] <= 30)


CHECKS: list[tuple[str, Check]] = [
    ("integrity", check_integrity),
    ("level metadata", check_level_metadata),
    ("levels", check_levels),
    ("stray chunks", check_stray_chunks),
    ("solved games", check_solved_games),
    ("endings", check_endings),
]
"""The checks :func:`verify` runs, in order: (name, function of a :class:`VerifyContext`)."""


def verify(
    location: Any,
    *,
    sample: int = DEFAULT_SAMPLE,
    seed: int | None = None,
    recursive_max_n: int = RECURSIVE_MAX_N,
    full: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
) -> VerifyReport:
    """Check the catalogue at ``location`` (a path, URL or open :class:`~whist_catalogue.store.reader.Catalogue`;
    see the module docstring); ``progress(step, done, total)`` in deals."""
    from whist_catalogue.store.reader import Catalogue, open_catalogue

    if not 0 <= sample <= MAX_SAMPLE:
        raise CatalogueError(f"sample must be between 0 and {MAX_SAMPLE:,}, got {sample}")
    catalogue = location if isinstance(location, Catalogue) else open_catalogue(location)
    try:
        report = VerifyReport(str(catalogue.location))
        ctx = VerifyContext(catalogue, report, sample, random.Random(seed), recursive_max_n, full, progress)
        ctx.total = _deals_listed(catalogue)
        for name, check in CHECKS:
            report.checks.append(name)
            ctx.step(name)
            try:
                check(ctx)
            except CatalogueError as exc:
                # Damage the check could not get past (a table gone, a malformed page): a finding, not a crash.
                report.problems.append(f"{name}: cannot be checked: {exc}")
        ctx.step("done")
        return report
    finally:
        if catalogue is not location:
            catalogue.close()
