"""The sizes and scales the parts of the package agree on, each defined here once.

Every part may import this module (it sits with :mod:`whist_catalogue.errors` at the
bottom of docs/architecture.md's one-way rule) and it imports nothing, so the command
line's start-up and the app's pay nothing for it: a view that shows the catalogue's
limit does not load the builder (SQLAlchemy, NumPy, Numba) to learn it.

Why each number is what it is comes from the multi-suit paper (``Value``s of §6, deal
keys of docs/spec.md) and from the storage formats of docs/level-store.md; the table of
the value's representations, and which of these constants each uses, is in
docs/architecture.md ("Representations of a value").
"""

from __future__ import annotations

__all__ = [
    "SCALE_BITS",
    "SCALE",
    "INF_OFFSET",
    "MAX_ENGINE_N",
    "MAX_BUILD_N",
    "MAX_MASKED_MOVES_N",
    "MAX_LEVEL_N",
    "MAX_RANKED_N",
    "MAX_HAND_SIZE",
    "MAX_SEARCH_N",
    "MAX_ENDING_N",
    "CHECK_NAMES",
]

# -- a value's number part as an integer --------------------------------------------------------
SCALE_BITS = 24
"""The number q of a single-suit value is held as the integer q·2^SCALE_BITS: exact because an n-card deal's
value has denominator at most 2^(n−1) (the simplest number between two values of denominator ≤ 2^(n−2)), so
every deal with n ≤ 25 fits.  The engine's arrays, the catalogue's columns and the packed values of
:mod:`whist_catalogue.theory.packed` all use this one scale."""
SCALE = 1 << SCALE_BITS
"""2^SCALE_BITS."""
INF_OFFSET = 64
"""Added to an infinitesimal's rank inside a labeled key (:func:`whist_catalogue.engine.encoding.labeled_key`)
to keep that field positive: ranks stay within ±(n + 1), far below 64, for every n the engine reaches."""

# -- how far each part reaches -------------------------------------------------------------------
MAX_ENGINE_N = 25
"""The largest hand the engine's encoding holds: denominators ≤ 2^SCALE_BITS and numerators < 2^31.  How far
it reaches on a given machine is smaller, what half the memory holds
(:func:`whist_catalogue.engine.plan.engine_bound`); beyond both, a single suit has its linear-time answer."""
MAX_BUILD_N = 18
"""The largest level ``build`` stores: level 18 (9.1 billion deals) took 1 h 34 min of both cores here and
holds level 17's codes (4.7 GB) while it is computed (docs/level-store.md).  The catalogue derives a deal's best
moves from α at look-up time, as Python integers of any width."""
MAX_MASKED_MOVES_N = 16
"""The largest hand whose best moves fit the engine's 16-bit position masks (its moves kernel)."""
MAX_LEVEL_N = 30
"""No catalogue level can be larger: the keys of its deals (below 2^(2n+1)) stay under 2^61, inside the
database's signed 64-bit integers with room for a search's arithmetic."""
MAX_RANKED_N = 31
"""The largest level that can be ranked and unranked (:mod:`whist_catalogue.theory.ranking`): West's mask of
2n ≤ 62 bits fits a signed 64-bit integer."""
MAX_HAND_SIZE = 10_000_000
"""The most cards a hand a deal may have: larger input is refused before any work (README, "Limits")."""
MAX_SEARCH_N = 16
"""The most cards a hand the exact two-hand search takes (:mod:`whist_catalogue.twohand`).  Its time grows about
threefold a card a hand: a 13-card deal takes under a millisecond, the slowest of 100 seeded 16-card deals with
trumps 30 ms, 20-card deals 0.2 s and up to 0.5 s (docs/benchmarks.md): 16 keeps every answer well under a
second.  The position's layout would hold 30 (its cards and a sentinel in 62 bits); a symmetric deal the theory
values has no such limit."""
MAX_ENDING_N = 8
"""The largest level of the table of two-hand endings shipped with the package
(:mod:`whist_catalogue.twohand.endings`: 2,411,194 positions of 8 cards a hand, 1.2 MB in memory); larger levels
are the catalogue's (``whist-catalogue build --endings K``).  Here so that the command line learns whether a
catalogue's table reaches further without loading the search (NumPy, Numba)."""

# -- names every part agrees on --------------------------------------------------------------------
CHECK_NAMES = (
    "conjecture_12_2",
    "conjecture_12_3",
    "conjecture_12_4",
    "theorem_8_10",
    "theorem_9_4",
    "conjecture_12_4_labeled",
)
"""The engine's checks of the papers' conjectures (``whist_catalogue.engine.levels.Checks``), in the order of
their counterexample bits: the kernels', the chunks' and the search's ``counterexample(…)``."""
