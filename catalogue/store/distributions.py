"""Where the per-level value counts of an outcome distribution come from (``docs/distributions.md``).

:func:`whist_catalogue.theory.distribution.outcome_distribution` needs, for each suit size n,
how many deals with n cards a hand have each value.  Three sources give exactly that:

* **shipped** — ``docs/data/scan.jsonl``, the per-level statistics of the published ``scan``
  (every level up to n = 18, value by value), installed with the package: every level it
  holds is there at once, with no catalogue and no computing;
* **catalogue** — a catalogue's counts of a complete level, stored at build time
  (:meth:`~whist_catalogue.store.reader.Catalogue.value_counts`);
* **a scan file** — the JSON Lines of ``scan --json`` (a longer run than the shipped one).

``auto`` takes the shipped counts, and a level they lack from the catalogue.  The tests check the
shipped counts against the engine and against a catalogue, level by level.
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from functools import cache
from itertools import islice
from math import comb
from typing import TYPE_CHECKING, Mapping, Sequence

from whist_catalogue import documentation
from whist_catalogue.errors import CatalogueError, DistributionError, InvalidValueError
from whist_catalogue.theory.distribution import MAX_SUITS, OutcomeDistribution, outcome_distribution
from whist_catalogue.theory.values import Infinitesimal, Value

if TYPE_CHECKING:
    from whist_catalogue.store.reader import Catalogue

__all__ = ["SOURCES", "SHIPPED_FILE", "read_scan_counts", "shipped_counts", "level_counts",
           "distribution", "parse_sizes"]

SOURCES = ("auto", "shipped", "catalogue")
SHIPPED_FILE = "data/scan.jsonl"
"""The shipped per-level statistics, relative to the documentation folder."""
MAX_SUIT_SIZE = 25
"""The largest suit a distribution takes: the scale of the values' numerical parts (2^24) holds its values."""


def parse_sizes(text: str) -> tuple[int, ...]:
    """``"4,4,3,2"`` (commas or spaces) → (4, 4, 3, 2)."""
    parts = [p for p in text.replace(",", " ").split() if p]
    if not parts:
        raise DistributionError("no suit sizes given (e.g. 4,4,3,2)")
    sizes = []
    for p in parts:
        if not p.isdigit() or len(p) > 3:
            raise DistributionError(f"not a suit size: {p!r} (sizes are cards a hand, e.g. 4,4,3,2)")
        sizes.append(int(p))
    if any(n < 1 for n in sizes):
        raise DistributionError("every suit needs at least one card a hand")
    if any(n > MAX_SUIT_SIZE for n in sizes):
        raise DistributionError(f"a suit of at most {MAX_SUIT_SIZE} cards a hand")
    if len(sizes) > MAX_SUITS:
        raise DistributionError(f"at most {MAX_SUITS} suits")
    return tuple(sizes)


def _counts_of_line(obj: Mapping[str, object], where: str) -> tuple[int, dict[Value, int]]:
    try:
        n = obj["n"]
        values = obj["values"]
        if not isinstance(n, int) or not isinstance(values, dict):
            raise TypeError
        counts: dict[Value, int] = {}
        for key, count in values.items():
            number, infinitesimal = key.split("|")
            if not isinstance(count, int) or count < 0:
                raise TypeError
            counts[Value(Fraction(number), Infinitesimal.from_code(infinitesimal))] = count
    except (KeyError, TypeError, ValueError, ZeroDivisionError, InvalidValueError):
        raise DistributionError(f"{where}: not a line of `scan --json` (n and values)") from None
    if sum(counts.values()) != comb(2 * n, n):
        raise DistributionError(f"{where}: level {n}'s counts add up to {sum(counts.values()):,}, "
                                f"not C({2 * n}, {n}) = {comb(2 * n, n):,}")
    return n, counts


def read_scan_counts(path: str | os.PathLike[str], wanted: frozenset[int] | None = None) -> dict[int, dict[Value, int]]:
    """The value counts of each level in a ``scan --json`` file (only the levels ``wanted``, if given)."""
    out: dict[int, dict[Value, int]] = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            # The level's number is near the start of its line: skip the values of levels not wanted.
            where = f"{os.fspath(path)} line {number}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                raise DistributionError(f"{where}: not JSON") from None
            if not isinstance(obj, dict):
                raise DistributionError(f"{where}: not a line of `scan --json` (n and values)")
            if wanted is not None and obj.get("n") not in wanted:
                continue
            n, counts = _counts_of_line(obj, where)
            out[n] = counts
    return out


@cache
def _shipped_levels() -> dict[int, int]:
    """Line number of each level in the shipped file."""
    out = {}
    with open(documentation(SHIPPED_FILE), encoding="utf-8") as f:
        for number, line in enumerate(f):
            head = line[:40]
            if head.startswith('{"n": '):
                out[int(head[6:].split(",")[0])] = number
    return out


@cache
def shipped_counts(n: int) -> dict[Value, int] | None:
    """Level n's value counts from the shipped ``scan`` statistics, or None if it does not hold level n."""
    line_number = _shipped_levels().get(n)
    if line_number is None:
        return None
    with open(documentation(SHIPPED_FILE), encoding="utf-8") as f:
        line = next(islice(f, line_number, None))
    return _counts_of_line(json.loads(line), documentation(SHIPPED_FILE))[1]


def shipped_max_n() -> int:
    """The largest level the shipped statistics hold."""
    return max(_shipped_levels(), default=0)


def level_counts(sizes: Sequence[int], source: str = "auto", catalogue: Catalogue | None = None,
                 scan_file: str | None = None) -> dict[int, dict[Value, int]]:
    """The value counts of every level among ``sizes``, from ``source`` (:data:`SOURCES`) or ``scan_file``.

    ``catalogue`` is an open :class:`~whist_catalogue.store.reader.Catalogue` (or None: no catalogue).
    """
    if source not in SOURCES:
        raise DistributionError(f"unknown source {source!r}: one of {', '.join(SOURCES)}")
    wanted = frozenset(sizes)
    if scan_file is not None:
        found = read_scan_counts(scan_file, wanted)
        missing = sorted(wanted - set(found))
        if missing:
            raise DistributionError(f"{scan_file} has no level {', '.join(map(str, missing))}")
        return found
    out: dict[int, dict[Value, int]] = {}
    for n in sorted(wanted):
        counts = shipped_counts(n) if source in ("auto", "shipped") else None
        if counts is None and source in ("auto", "catalogue") and catalogue is not None:
            if n in catalogue.complete_levels():
                counts = catalogue.value_counts(n)
        if counts is None:
            if source == "catalogue":
                raise CatalogueError(f"level n = {n} is not complete in the catalogue"
                                     + ("" if catalogue is not None else " (no catalogue found)"))
            raise DistributionError(
                f"no value counts for level {n}: the shipped statistics reach n = {shipped_max_n()}"
                + ("" if catalogue is None else ", and the catalogue lacks it")
                + "; `scan --max-n N --json > FILE` counts more levels for --counts FILE")
        out[n] = counts
    return out


def distribution(sizes: Sequence[int], source: str = "auto", catalogue: Catalogue | None = None,
                 scan_file: str | None = None) -> OutcomeDistribution:
    """The exact outcome distribution of the deals with suits of the given sizes (:func:`level_counts`'s sources)."""
    return outcome_distribution(sizes, level_counts(sizes, source, catalogue, scan_file))
