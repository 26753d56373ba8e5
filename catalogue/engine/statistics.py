"""Per-level statistics of values: the counts shared by ``scan`` (engine) and ``stats`` (catalogue).

Both commands reduce a level to how many deals have each value, and this module
derives everything else from those counts (docs/spec.md §4): the fractional parts of
the numerical parts, the infinitesimals, the outcomes ρ(val) (Corollary 8.9)
and a coarse classification.  One code path, so the two commands cannot drift.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Mapping

from whist_catalogue.theory.values import Infinitesimal, Value, rho

__all__ = ["LevelStatistics", "value_class", "VALUE_CLASSES", "VALUE_CLASS_QUERIES"]

VALUE_CLASSES = ("integer", "half-integer", "dyadic", "positive infinitesimal", "negative infinitesimal", "fuzzy")

VALUE_CLASS_QUERIES = {
    "integer": "inf = 0 and denominator = 1",
    "half-integer": "inf = 0 and denominator = 2",
    "dyadic": "inf = 0 and denominator >= 4",
    "positive infinitesimal": "inf > 0",
    "negative infinitesimal": "inf < 0",
}
"""Each class of :func:`value_class` as a search expression (``whist_catalogue.store.search``); single-suit values are never
fuzzy.  The search language's ``class(…)`` and the app's statistics grid both use these."""


def value_class(v: Value) -> str:
    """A coarse class of a value: its place in the complexity hierarchy of §6.4."""
    x = v.infinitesimal
    if x.is_fuzzy:
        return "fuzzy"
    if x.sign > 0:
        return "positive infinitesimal"
    if x.sign < 0:
        return "negative infinitesimal"
    if v.denominator == 1:
        return "integer"
    return "half-integer" if v.denominator == 2 else "dyadic"


@dataclass(frozen=True)
class LevelStatistics:
    """How many deals with n cards a hand have each value, and what follows from it."""

    n: int
    value_counts: Mapping[Value, int]

    @property
    def deals(self) -> int:
        return sum(self.value_counts.values())

    @property
    def complete(self) -> bool:
        return self.deals == comb(2 * self.n, self.n)

    def _tally(self, key) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for v, c in self.value_counts.items():
            counts[key(v)] += c
        return dict(counts)

    def _sorted_values(self) -> list[Value]:
        return sorted(self.value_counts, key=lambda v: (v.number, v.infinitesimal.rank, v.infinitesimal.is_fuzzy))

    def to_json(self) -> dict:
        """The ``stats``/``scan`` object of docs/spec.md §4 for this level."""
        values = {f"{v.number_text}|{v.infinitesimal.code}": self.value_counts[v] for v in self._sorted_values()}
        fractional = self._tally(lambda v: str(v.number % 1))
        infinitesimals = self._tally(lambda v: v.infinitesimal.code)
        outcomes = self._tally(_outcome)
        return {
            "n": self.n,
            "deals": self.deals,
            "distinct_values": len(self.value_counts),
            "values": values,
            "fractional_parts": dict(sorted(fractional.items(), key=lambda kv: Fraction(kv[0]))),
            "infinitesimals": dict(sorted(infinitesimals.items(), key=lambda kv: _inf_order(kv[0]))),
            "outcomes": dict(sorted(outcomes.items(), key=lambda kv: tuple(map(int, kv[0].split("|"))))),
            "classes": {k: c for k, c in ((k, self._tally(value_class).get(k, 0)) for k in VALUE_CLASSES) if c},
        }


def _outcome(v: Value) -> str:
    o = rho(v)
    return f"{o.west_leads}|{o.east_leads}"


def _inf_order(code: str) -> tuple[int, int]:
    x = Infinitesimal.from_code(code)
    return (x.rank, int(x.is_fuzzy))
