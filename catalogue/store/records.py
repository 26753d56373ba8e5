"""What a look-up and a search give: a deal's record, a level's row, the levels a search covered (docs/spec.md §4-5).

* :class:`DealRecord` — everything the catalogue knows of one deal: the value from its level's chunk, the rest
  derived as :mod:`whist_catalogue.store.derived` says (multi-suit paper §7.2; single-suit paper §§5-9);
* :class:`LevelInfo` — the ``level`` row of one n, with what a read of it found wrong;
* :class:`BuildProgress` — one step of a build, of its levels or of its table of two-hand endings;
* :class:`SearchCoverage` — which levels a search covered, and which it asks for that the catalogue lacks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable, Literal, Sequence

from whist_catalogue.constants import CHECK_NAMES, MAX_BUILD_N
from whist_catalogue.theory.answers import outcome_json
from whist_catalogue.theory.deals import Deal
from whist_catalogue.theory.solution import SuitSolution, mask_positions
from whist_catalogue.theory.values import Outcome, Value

__all__ = ["DealRecord", "LevelInfo", "BuildProgress", "SearchCoverage", "level_ranges", "level_span"]


@dataclass(frozen=True, slots=True)
class DealRecord:
    """One deal of the catalogue, as domain objects."""

    deal: Deal
    value: Value
    """val(D)."""
    outcome: Outcome
    """χ(D) = ρ(val(D))."""
    move_masks: tuple[int, ...]
    """Best leads and replies as position masks (:meth:`SuitSolution.move_masks`)."""
    h_lower: int
    """H̲ (single-suit paper, end of §5)."""
    h_upper: int
    """H̄."""
    h: int
    """H of Theorem 9.1."""
    greedy: Outcome
    """Greedy Whist outcome (Theorem 6.1)."""
    five_card: tuple[str, str]
    """Five-card winner with West on lead, with East on lead (Theorem 7.2)."""
    ace: str
    """Who holds the highest card."""
    flags: int
    """Counterexample bits, ``CHECK_NAMES`` order."""

    @property
    def key(self) -> int:
        return self.deal.key

    @property
    def n(self) -> int:
        return self.deal.n

    @property
    def label(self) -> str:
        return self.deal.label

    @property
    def solution(self) -> SuitSolution:
        return SuitSolution.from_move_masks(self.deal, self.value, self.move_masks)

    @property
    def counterexamples(self) -> tuple[str, ...]:
        """Names of the checks (:data:`whist_catalogue.constants.CHECK_NAMES`) this deal is a counterexample to."""
        return tuple(name for c, name in enumerate(CHECK_NAMES) if self.flags >> c & 1)

    def best_leads(self) -> dict[str, list[str]]:
        """Card numbers (docs/spec.md §2: card k is the k-th lowest) of every best lead, per side."""
        west, east = self.deal.west_cards, self.deal.east_cards
        return {
            "west": [str(c) for c in mask_positions(self.move_masks[0], west)],
            "east": [str(c) for c in mask_positions(self.move_masks[1], east)],
        }

    def to_json(self) -> dict[str, Any]:
        """One ``search --json`` line."""
        return {
            "key": self.key,
            "label": self.label,
            "n": self.n,
            "value": self.value.to_json(),
            "outcome": outcome_json(self.outcome),
            "best_leads": self.best_leads(),
            "h_lower": self.h_lower,
            "h_upper": self.h_upper,
            "h": self.h,
            "greedy": outcome_json(self.greedy),
            "five_card": {"west_leads": self.five_card[0], "east_leads": self.five_card[1]},
            "ace": self.ace,
            "counterexamples": list(self.counterexamples),
        }


@dataclass(frozen=True, slots=True)
class LevelInfo:
    """The ``level`` row of one n (:class:`whist_catalogue.store.models.LevelRow`)."""

    n: int
    complete: bool
    row_count: int
    """Deals the level holds: C(2n, n) when complete."""
    checksum: str | None
    """SHA-256 of the level row (:func:`whist_catalogue.store.levels.level_row_checksum`), None until complete."""
    software_version: str | None
    built_at: datetime | None
    build_seconds: float | None
    stored_bytes: int | None = None
    """Bytes of the level's chunks."""
    chunk_deals: int | None = None
    value_table: bytes | None = None
    statistics: str | None = None
    problem: str | None = None
    """What a read of this complete level's row found wrong (its checksum differs, a cell no build wrote): a
    look-up, a search or ``stats`` that needs the level says so instead of answering."""

    def to_json(self) -> dict[str, Any]:
        return {
            "stored_bytes": self.stored_bytes,
            "n": self.n,
            "complete": self.complete,
            "row_count": self.row_count,
            "checksum": self.checksum,
            "software_version": self.software_version,
            "built_at": self.built_at.isoformat() if self.built_at else None,
            "build_seconds": self.build_seconds,
        }


Stage = Literal["repair", "plan", "compile", "load", "compute", "finish", "level", "games", "endings-repair",
                "endings-plan", "endings-load", "endings", "endings-level", "done"]


@dataclass(frozen=True, slots=True)
class BuildProgress:
    """One step of a build (:func:`whist_catalogue.store.build.build_steps`).

    ``stage`` is ``repair`` (level n was marked complete but is not all there: it
    is stored again; ``done`` = deals found), ``plan`` (once, ``total`` =
    levels to store, ``message`` the build's estimate: :meth:`~whist_catalogue.store.build.BuildEstimate.describe`),
    ``compile`` (the engine's kernels compiling, on a first run: said when it starts),
    ``load`` (level n read back from the catalogue to resume above it), ``compute``
    (``done`` of ``total`` deals of level n valued and their chunks committed),
    ``finish`` (level n's statistics and checksum), ``level`` (level n committed, or
    skipped if it was complete), ``games`` (``done`` of ``total`` solved games), the table
    of two-hand endings' ``endings-…`` stages (:func:`whist_catalogue.store.endings.build_endings`:
    ``endings`` is ``done`` of ``total`` positions of its level ``n`` = k) and ``done``
    (once, at the end).  Events come at least every
    second or so in every stage, so closing the generator cancels promptly.
    """

    stage: Stage
    n: int | None
    done: int
    total: int
    message: str = ""


def level_ranges(ns: Iterable[int]) -> str:
    """``1–10, 12`` for [1, …, 10, 12]: runs of levels with an en dash, as every text of the package writes a range
    of levels (the command line, the app, the engine's plan)."""
    parts: list[list[int]] = []
    for n in sorted(ns):
        if parts and n == parts[-1][-1] + 1:
            parts[-1].append(n)
        else:
            parts.append([n])
    return ", ".join(f"{r[0]}–{r[-1]}" if len(r) > 1 else str(r[0]) for r in parts)


def level_span(ns: Sequence[int]) -> str:
    """``level 15``, ``levels 1–14``, ``levels 1–3, 5``: levels in words."""
    return f"level {ns[0]}" if len(ns) == 1 else f"levels {level_ranges(ns)}"


@dataclass(frozen=True, slots=True)
class SearchCoverage:
    """The levels a search covered, and those it asks for that the catalogue lacks."""

    searched: list[int]
    missing: list[int]
    impossible: bool = False
    """No deal of any level can match (``value = 1/3``: no single-suit value is 1/3)."""

    def describe(self) -> str:
        """One line for a person: which levels were searched, which are missing and what ``build`` adds — and
        which lie beyond what a catalogue holds (n > :data:`~whist_catalogue.constants.MAX_BUILD_N`)."""
        if self.impossible:
            return "0 matched: no deal of any level can match this search"
        text = f"searched levels {level_ranges(self.searched)}" if self.searched else "searched no level"
        buildable = [n for n in self.missing if n <= MAX_BUILD_N]
        beyond = [n for n in self.missing if n > MAX_BUILD_N]
        if buildable:
            many = len(buildable) > 1
            text += (f"; level{'s' if many else ''} {level_ranges(buildable)} {'are' if many else 'is'} not in the"
                     f" catalogue (whist-catalogue build --max-n {max(buildable)} adds {'them' if many else 'it'})")
        if beyond:
            many = len(beyond) > 1
            text += (f"; level{'s' if many else ''} {level_ranges(beyond)} {'lie' if many else 'lies'} beyond every"
                     f" catalogue (build stores n ≤ {MAX_BUILD_N}; value and outcome compute such deals one at a time)")
        return text

    def to_json(self) -> dict[str, list[int]]:
        return {"levels": self.searched, "missing_levels": self.missing}
