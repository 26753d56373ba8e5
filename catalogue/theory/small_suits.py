"""Every suit a pack can deal two players, preloaded: values and first leads for n ≤ 8 (docs/spec.md §7).

A 52-card pack deals a symmetric whist suit of at most 6 cards a hand; the table
goes to n = 8 — all 17,576 nonempty deals, 35 kB shipped with the package
(``small_suits.bin``), far cheaper than computing level 8 at first use.  The
1,274 deals a pack can deal (n ≤ 6) are loaded at once, in about a millisecond;
levels 7 and 8 (16,302 deals, about 10 ms) when a deal first needs them.  Each
deal, by its integer key (docs/spec.md §2), has its value packed as in :mod:`.packed`
and the lowest best lead of each side (docs/spec.md §3), which is what Theorem 9.1 and
the lead rule of §10.4 need of a suit.

:class:`SuitTable` answers for any deal: from the preloaded table when it is
there, from a solver (the catalogue, the engine) beyond, memoised.
``whist_catalogue.scripts.reports.small_suits`` regenerates the file with the
engine, and the tests check it against the engine and the recursive definition.
"""

from __future__ import annotations

import os
import struct
import zlib
from array import array
from bisect import bisect_left
from functools import cache
from operator import index
from typing import Callable, Iterable, Sequence, SupportsIndex

from whist_catalogue.errors import DealTooLargeError, InvalidDealError
from whist_catalogue.theory.deals import Deal, DealKey
from whist_catalogue.theory.labeled import labeled_matrix
from whist_catalogue.theory.packed import pack, unpack
from whist_catalogue.theory.solution import PRELOADED, Solver, SolverBase, SuitSolution, solution_from_labeled
from whist_catalogue.theory.values import Value

__all__ = ["TABLE_MAX_N", "PACK_MAX_N", "SuitTable", "preloaded", "table_arrays", "encode_table", "TABLE_FILE"]

TABLE_MAX_N = 8
PACK_MAX_N = 6
"""A 52-card pack deals two players at most 6 cards a hand of a suit: the levels loaded at once."""
TABLE_FILE = "small_suits.bin"
_MAGIC = b"WHIST-SMALL-SUITS-1\n"


def encode_table(solutions: Iterable[SuitSolution]) -> bytes:
    """The file's bytes: magic, count, then keys, packed values and lowest best leads, zlib-compressed."""
    rows = sorted((s.deal.key, pack(s.value), s.west_leads[0], s.east_leads[0]) for s in solutions if s.deal.n)
    keys = array("I", (r[0] for r in rows))
    codes = array("q", (r[1] for r in rows))
    leads = array("B", (x for r in rows for x in r[2:]))
    body = struct.pack("<I", len(rows)) + keys.tobytes() + codes.tobytes() + leads.tobytes()
    return _MAGIC + zlib.compress(body, 9)


@cache
def table_arrays() -> tuple[array, array, array]:
    """The shipped table as read: (keys ascending, packed values, lowest best leads two a deal), every deal with
    1 ≤ n ≤ :data:`TABLE_MAX_N` — whole arrays, for the two-hand search's leaves."""
    # A plain file beside this module (the package is installed unzipped); importlib.resources
    # would cost more start-up than reading the table does.
    with open(os.path.join(os.path.dirname(__file__), TABLE_FILE), "rb") as f:
        raw = f.read()
    if not raw.startswith(_MAGIC):
        raise RuntimeError(f"{TABLE_FILE} is not a small-suit table")
    body = zlib.decompress(raw[len(_MAGIC) :])
    (count,) = struct.unpack_from("<I", body)
    keys, codes, leads = array("I"), array("q"), array("B")
    start = 4
    for arr, size in ((keys, 4), (codes, 8), (leads, 2)):
        arr.frombytes(body[start : start + count * size])
        start += count * size
    return keys, codes, leads


@cache
def preloaded(max_n: int = TABLE_MAX_N) -> tuple[dict[DealKey, int], dict[DealKey, tuple[int, int]]]:
    """(packed value by key, (West's, East's) lowest best lead by key) for every deal with 1 ≤ n ≤ max_n."""
    keys, codes, leads = table_arrays()
    count = bisect_left(keys, 1 << (2 * max_n + 1))  # keys grow with n: level max_n ends here
    return dict(zip(keys[:count], codes[:count])), dict(zip(keys[:count], zip(leads[: 2 * count : 2],
                                                                                   leads[1 : 2 * count : 2])))


def _key(key: object) -> int:
    if isinstance(key, bool) or not isinstance(key, int):
        if not isinstance(key, SupportsIndex):
            raise InvalidDealError(f"not a deal key: {key!r}")
        return index(key)  # NumPy integers
    return key


class SuitTable(SolverBase):
    """Packed values and lowest best leads of single-suit deals: preloaded for n ≤ 8, else from ``solver``.

    Memoises what the solver answers, so a batch of deals asks it once per distinct suit.
    Itself a :class:`~.solution.Solver`: best moves of a preloaded deal come from the
    labeled values α_ij (docs/spec.md §3), whose deals are preloaded too.
    """

    source = PRELOADED

    def __init__(self, solver: Solver | None = None, *, preload: bool = True,
                 opener: Callable[[], Solver] | None = None) -> None:
        """``preload=False``: every deal from ``solver`` (memoised) — e.g. a catalogue the user named.
        ``opener``: makes the solver the first time a deal beyond the table needs one (the command line opens
        the catalogue, and loads SQLAlchemy, only then)."""
        self.solver = solver
        self._opener = opener
        self._preload = preload
        self._loaded_n = 0
        self._codes: dict[DealKey, int] = {}
        self._leads: dict[DealKey, tuple[int, int]] = {}
        if preload:
            self._load(PACK_MAX_N)

    def _load(self, max_n: int) -> None:
        codes, leads = preloaded(max_n)
        self._codes.update(codes)
        self._leads.update(leads)
        self._loaded_n = max_n

    def _preloads(self, n: int) -> bool:
        """Whether the table holds the deals with n cards a hand; levels 7 and 8 are loaded when first asked."""
        if 0 < n <= self._loaded_n:
            return True
        if self._preload and self._loaded_n < n <= TABLE_MAX_N:
            self._load(TABLE_MAX_N)
            return True
        return False

    def code(self, deal: Deal) -> int:
        """The packed value of a deal (0 for the empty deal)."""
        key = deal.key
        try:
            return self._codes[key]
        except KeyError:
            pass
        if deal.n == 0:
            return 0
        if self._preloads(deal.n):
            return self._codes[key]
        self._codes[key] = code = pack(self._solver(deal).value(deal))
        return code

    def code_of_key(self, key: DealKey) -> int:
        """:meth:`code` by integer key (docs/spec.md §2), without building a :class:`Deal` when preloaded."""
        try:
            return self._codes[key]
        except (KeyError, TypeError):
            return self.code(Deal.from_key(_key(key)))

    def leads_of_key(self, key: DealKey) -> tuple[int, int]:
        """:meth:`leads` by integer key."""
        try:
            return self._leads[key]
        except (KeyError, TypeError):
            return self.leads(Deal.from_key(_key(key)))

    def leads(self, deal: Deal) -> tuple[int, int]:
        """West's and East's lowest best lead (canonical cards) of a nonempty deal."""
        key = deal.key
        try:
            return self._leads[key]
        except KeyError:
            pass
        if self._preloads(deal.n):
            return self._leads[key]
        solution = self._solver(deal).solve(deal)
        self._codes[key] = pack(solution.value)
        self._leads[key] = found = (solution.west_leads[0], solution.east_leads[0])
        return found

    # -- the Solver protocol: the table first, the solver beyond it --------------------------
    def value(self, deal: Deal) -> Value:
        return unpack(self.code(deal))

    def solve(self, deal: Deal) -> SuitSolution:
        """Value and every best move; from the table alone when it holds the deal (α_ij are values of level n−1)."""
        if self._preloads(deal.n):
            return solution_from_labeled(deal, self.value(deal), labeled_matrix(deal, self.value))
        return self._solver(deal).solve(deal)

    def solve_many(self, deals: Sequence[Deal]) -> list[SuitSolution | None]:
        """:meth:`solve` of each deal; those beyond the table asked of the solver as one batch."""
        return [s for s, _ in self.solve_many_sourced(deals)]

    def solve_sourced(self, deal: Deal) -> tuple[SuitSolution, str]:
        if self._preloads(deal.n):
            return self.solve(deal), PRELOADED
        return self._solver(deal).solve_sourced(deal)

    def solve_many_sourced(self, deals: Sequence[Deal]) -> list[tuple[SuitSolution | None, str]]:
        """Each deal's solution and source: the table's, those beyond it asked of the solver as one batch."""
        beyond = [d for d in deals if not self._preloads(d.n)]
        found = dict(zip((d.key for d in beyond), self._solver(beyond[0]).solve_many_sourced(beyond))) \
            if beyond else {}
        return [(self.solve(d), PRELOADED) if self._preloads(d.n) else found[d.key] for d in deals]

    def close(self) -> None:
        """Close the solver if one was opened (a catalogue's connections: SQLite removes its side files)."""
        if self.solver is not None:
            self.solver.close()

    def _solver(self, deal: Deal) -> Solver:
        if self.solver is None and self._opener is not None:
            self.solver = self._opener()
        if self.solver is None:
            raise DealTooLargeError(
                f"a deal with {deal.n} cards a hand is beyond the preloaded table (n ≤ {TABLE_MAX_N}) and no solver"
                " was given"
            )
        return self.solver
