"""Checking a catalogue (``verify``): completeness, checksums, and a sample recomputed independently.

For every level of the ``level`` table:

1. **completeness** — the level is marked complete, and the rows in its key
   range number exactly C(2n, n), as recorded, each with the right ``n``;
2. **checksum** — the SHA-256 of its values and moves, read back in key order,
   equals the one recorded when the level was written (:func:`level_checksum`);
3. **sample** — a few random deals are recomputed without the engine's level
   kernels where that is practical: by the literal recursive definition
   (:func:`whist_catalogue.theory.definition.solve`) up to ``recursive_max_n``, above it by
   :class:`whist_catalogue.engine.levels.EngineSolver`, whose moves come from the α matrix
   rather than the moves kernel.  Value, best leads and replies, the outcome
   (also against Theorem 8.1's (⌊(n+H)/2⌋, ⌈(n+H)/2⌉)), H̄, H̲, H, Greedy Whist,
   Five-card and the ace (the single-suit paper's direct formulas,
   :func:`whist_catalogue.single_suit.formulas.quantities`) and the flags of Conjectures 12.2
   and 12.3 and Theorem 8.10 must all agree.

Rows outside every complete level are reported too.  The catalogue passes only
if every check holds.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from math import comb
from typing import Callable, Iterator

import numpy as np

from whist_catalogue.errors import CatalogueError

__all__ = [
    "level_checksum",
    "checksum_dtype",
    "LevelCheck",
    "VerifyReport",
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


def checksum_dtype(n: int) -> np.dtype:
    """One deal in the checksum: key (int64), q·2^24 (int32), infinitesimal rank (int8), 2 + 2n move masks (uint16)."""
    return np.dtype([("key", "<i8"), ("number", "<i4"), ("rank", "i1"), ("moves", "<u2", (2 + 2 * n,))])


def level_checksum(keys: np.ndarray, number_scaled: np.ndarray, rank: np.ndarray, moves: np.ndarray) -> str:
    """SHA-256 (hex) of a level's deals in key order, each packed as :func:`checksum_dtype`."""
    digest = hashlib.sha256()
    _update(digest, keys, number_scaled, rank, moves)
    return digest.hexdigest()


def _update(digest, keys, number_scaled, rank, moves) -> None:  # noqa: ANN001
    n = (moves.shape[1] - 2) // 2
    records = np.empty(len(keys), checksum_dtype(n))
    records["key"] = keys
    records["number"] = number_scaled
    records["rank"] = rank
    records["moves"] = moves
    digest.update(records.tobytes())


@dataclass
class LevelCheck:
    """The verdict on one level."""

    n: int
    complete: bool
    expected_rows: int
    row_count: int | None = None
    """Rows found in the level's key range."""
    checksum_ok: bool | None = None
    sampled: int = 0
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
            "sampled": self.sampled,
            "ok": self.ok,
            "problems": self.problems,
        }


@dataclass
class VerifyReport:
    """Every level's verdict, and problems that belong to no level."""

    location: str
    levels: list[LevelCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

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
        head = "OK" if self.ok else "FAILED"
        text = (
            f"verify {head}: {self.location}: {len(complete)} of {len(self.levels)} levels complete"
            f" ({deals:,} deals), checksums {'match' if all(c.checksum_ok for c in complete) else 'DIFFER'},"
            f" {sampled} sampled deals recomputed"
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
            "levels": [c.to_json() for c in self.levels],
            "problems": self.all_problems,
            "summary": self.summary(),
        }


def verify(
    location,  # noqa: ANN001 - str | PathLike | Catalogue
    *,
    sample: int = DEFAULT_SAMPLE,
    seed: int | None = None,
    recursive_max_n: int = RECURSIVE_MAX_N,
    progress: Callable[[str, int, int], None] | None = None,
) -> VerifyReport:
    """Check the catalogue at ``location`` (see the module docstring); ``progress(step, done, total)`` per level."""
    from whist_catalogue.engine.levels import EngineSolver
    from whist_catalogue.store.reader import Catalogue, open_catalogue

    catalogue = location if isinstance(location, Catalogue) else open_catalogue(location)
    try:
        report = VerifyReport(str(catalogue.location))
        levels = catalogue.levels()
        if not levels:
            report.problems.append("the catalogue holds no levels (build it with whist-catalogue build)")
            return report
        rng = random.Random(seed)
        # Above the recursive bound: values from in-memory levels, moves from the α matrix.
        engine = EngineSolver(max(info.n for info in levels))
        for i, info in enumerate(levels):
            if progress:
                progress(f"level {info.n}", i, len(levels))
            report.levels.append(_check_level(catalogue, info, rng, sample, recursive_max_n, engine))
        _check_stray_rows(catalogue, report)
        if progress:
            progress("done", len(levels), len(levels))
        return report
    finally:
        if catalogue is not location:
            catalogue.close()


def _check_level(catalogue, info, rng: random.Random, sample: int, recursive_max_n: int,  # noqa: ANN001
                 engine) -> LevelCheck:  # noqa: ANN001
    n = info.n
    check = LevelCheck(n, info.complete, comb(2 * n, n))
    if not info.complete:
        check.problems.append(f"level {n}: incomplete (interrupted or not yet built; rerun build to finish it)")
        return check
    try:
        found, wrong_n, checksum = _read_level(catalogue, n)
    except CatalogueError as exc:  # a damaged page: this level fails, the others are still checked
        check.problems.append(f"level {n}: cannot be read: {exc}")
        return check
    check.row_count = found
    if found != check.expected_rows or info.row_count != check.expected_rows:
        check.problems.append(
            f"level {n}: {found:,} rows stored, {info.row_count:,} recorded, C(2n, n) = {check.expected_rows:,}"
        )
    if wrong_n:
        check.problems.append(f"level {n}: {wrong_n} rows have a wrong n")
    check.checksum_ok = checksum == info.checksum
    if not check.checksum_ok:
        check.problems.append(f"level {n}: checksum differs from the one recorded at build time")
    if sample > 0:
        try:
            check.problems.extend(_check_sample(catalogue, n, rng, sample, recursive_max_n, engine))
        except CatalogueError as exc:
            check.problems.append(f"level {n}: sample cannot be read: {exc}")
        check.sampled = min(sample, check.expected_rows)
    return check


def _read_level(catalogue, n: int) -> tuple[int, int, str]:  # noqa: ANN001
    """(rows, rows with a wrong n, checksum) of level n, streamed in key order."""
    import sqlalchemy as sa

    from whist_catalogue.store.models import DealRow

    statement = (
        sa.select(DealRow.key, DealRow.n, DealRow.number_scaled, DealRow.inf_sign, DealRow.stoppers, DealRow.moves)
        .where(DealRow.in_level(n))
        .order_by(DealRow.key)
    )
    digest = hashlib.sha256()
    rows = wrong = 0
    width = 2 + 2 * n
    for chunk in _chunks(catalogue.stream(statement, CHUNK), CHUNK):
        keys = np.fromiter((r[0] for r in chunk), np.int64, len(chunk))
        ns = np.fromiter((r[1] for r in chunk), np.int64, len(chunk))
        number = np.fromiter((r[2] for r in chunk), np.int64, len(chunk))
        rank = np.fromiter((r[3] * (r[4] + 1) for r in chunk), np.int64, len(chunk))
        blob = b"".join(r[5] for r in chunk)
        if len(blob) != 2 * width * len(chunk):
            return rows + len(chunk), wrong, "bad moves"
        moves = np.frombuffer(blob, "<u2").reshape(len(chunk), width)
        _update(digest, keys, number, rank, moves)
        rows += len(chunk)
        wrong += int(np.count_nonzero(ns != n))
    return rows, wrong, digest.hexdigest()


def _chunks(rows: Iterator, size: int) -> Iterator[list]:
    chunk: list = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


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
    solver = definition if n <= recursive_max_n else engine
    problems = []
    for r in ranks:
        deal = Deal(n, unrank(n, r))
        try:
            stored = catalogue.record(deal)
        except NotInCatalogue:
            problems.append(f"level {n}: deal {deal.label} cannot be read")
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
        if mismatches:
            problems.append(f"level {n}: deal {deal.label} differs when recomputed: {', '.join(mismatches)}")
    return problems


def _check_stray_rows(catalogue, report: VerifyReport) -> None:  # noqa: ANN001
    import sqlalchemy as sa

    from whist_catalogue.store.models import DealRow

    counted = sum(c.row_count or 0 for c in report.levels if c.complete)
    statement = sa.select(sa.func.count()).select_from(DealRow)
    total = next(iter(catalogue.stream(statement)))[0]
    if total != counted:
        report.problems.append(f"{total - counted:,} rows lie outside the complete levels")
