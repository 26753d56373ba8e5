"""The per-deal fields: one registry from which the search language, the dataset's columns and the app's
result table all take their names (docs/architecture.md, "How to add a per-deal field").

The level store keeps one thing a deal, its value (docs/level-store.md); every field here is a function of
that value or of the deal's cards, computed for a whole chunk at once by the field's **array kernel**:

* from the **value** q + x (multi-suit paper §6; x an infinitesimal ±ε_k of §6.1): the reduced fraction, q·2^24,
  the infinitesimal's sign and stoppers, and the outcome ρ(val) of Corollary 8.9 — evaluated once per distinct
  value of the chunk's table and read off its codes (:attr:`Field.by_value`);
* from the **cards**: the key and label of docs/spec.md §2 and the single-suit paper's H̲, H̄ (end of §5),
  H (Theorem 9.1), Greedy Whist (§6, Theorem 6.1), Five-card (§7.1, Theorem 7.2) and the ace, by its
  linear-time kernels over the chunk's masks, computing only what is asked for;
* the **counterexample bits** of the engine's checks, from the chunk;
* **best leads** on request, from α of §7.2, whose entries are level n − 1's values (n² look-ups a deal).

A :class:`Field` says, besides its kernel, what it is called where: ``search`` (its kind in the search language,
:mod:`whist_catalogue.store.search`, and ``search_name`` when the language calls it otherwise), ``export`` (a
column of ``export`` and :meth:`~whist_catalogue.store.reader.Catalogue.level`, docs/dataset.md), ``header``
(a column of the app's search results, read off a :class:`~whist_catalogue.store.records.DealRecord` by
``of_record``).  :class:`DealColumns` computes any of them for a chunk.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

import numpy as np

from whist_catalogue.constants import CHECK_NAMES, SCALE, SCALE_BITS

if TYPE_CHECKING:
    from whist_catalogue.engine.chunks import Chunk
    from whist_catalogue.engine.codes import ValueTable
    from whist_catalogue.store.records import DealRecord

__all__ = [
    "Field",
    "FIELDS",
    "DEFAULT_COLUMNS",
    "GROUPS",
    "COLUMNS",
    "HEADERS",
    "Dictionary",
    "DealColumns",
    "ValuesAt",
    "labels",
    "resolve_columns",
]

ValuesAt = Callable[[int, np.ndarray], tuple[np.ndarray, np.ndarray]]
"""(n, ranks) → (numerator, infinitesimal) engine arrays of level n's deals at those ranks:
:meth:`whist_catalogue.store.reader.Catalogue.values_at`, needed for best leads only."""

_BIG = 1 << (SCALE_BITS + 5)
"""Bound of q·2^24 and of the numerator: values of deals lie in [0, n], n ≤ 31."""
_TRICKS = 32


@dataclass(frozen=True, slots=True)
class Field:
    """One per-deal field and every name it goes by."""

    name: str
    """Its name: the dataset's column, and the array the search's compiled conditions read."""
    kind: str
    """Its type in the dataset: a NumPy dtype name, ``text`` (a string a deal) or ``category`` (a text with few
    distinct values, dictionary-encoded); ``bool`` for a flag."""
    meaning: str
    source: str
    """Where the papers define it."""
    kernel: Callable[[DealColumns], np.ndarray] | None = None
    """The array for every deal of a chunk (fields of the value: see :attr:`by_value`)."""
    by_value: Callable[[np.ndarray, np.ndarray], Any] | None = None
    """For a field of the value alone: its array over a table of values (numerator, infinitesimal), read off the
    chunk's codes per deal — and evaluated per distinct value by the search."""
    search: str | None = None
    """Its kind in the search language: ``number``, ``value``, ``infinitesimal``, ``player``, ``pair`` or
    ``flag``; None: not searchable."""
    search_name: str | None = None
    """The search language's name when it is not :attr:`name` (``number`` for ``number_scaled``)."""
    aliases: tuple[str, ...] = ()
    """Other names the search language accepts."""
    scale: int = 0
    """The array holds the quantity times 2^scale (``number``: q·2^24)."""
    bound: int = 0
    """An upper bound of the array's absolute value (the search keeps its integers below 2^62)."""
    parts: tuple[str, ...] = ()
    """A pair's fields, by search name."""
    bit: int | None = None
    """A flag's bit in ``flags``."""
    export: bool = True
    """A column of the dataset (``export``, ``Catalogue.level``)."""
    header: str | None = None
    """Its column in the app's search results, if it has one."""
    of_record: Callable[[DealRecord], Any] | None = None
    """Its value for one :class:`~whist_catalogue.store.records.DealRecord` (the app's result table)."""

    @property
    def searched_as(self) -> str:
        return self.search_name or self.name


# -- the value's fields, over a table of values ----------------------------------------------------------


def _denominator(numerator: np.ndarray) -> np.ndarray:
    scaled = numerator.astype(np.int64)
    low_bit = scaled & -scaled
    # The reduced denominator is 2^24 / (lowest set bit of q·2^24), at least 1; 0 is 0/1.
    return np.where(low_bit == 0, 1, np.maximum(1, SCALE // np.maximum(low_bit, 1))).astype(np.int32)


def _reduced_numerator(numerator: np.ndarray) -> np.ndarray:
    return (numerator.astype(np.int64) * _denominator(numerator) // SCALE).astype(np.int32)


def _outcome(side: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def outcome(numerator: np.ndarray, infinitesimal: np.ndarray) -> np.ndarray:
        from whist_catalogue.engine.codes import ValueTable
        from whist_catalogue.engine.levels import table_outcomes  # ρ, elementwise (Corollary 8.9)

        return table_outcomes(ValueTable(numerator, infinitesimal))[side]

    return outcome


def _texts(numerator: np.ndarray, infinitesimal: np.ndarray) -> list[Any]:
    from whist_catalogue.engine.encoding import decode_value

    return [decode_value(int(a), int(b)) for a, b in zip(numerator.tolist(), infinitesimal.tolist())]


def _value_texts(numerator: np.ndarray, infinitesimal: np.ndarray) -> np.ndarray:
    return np.array([v.text() for v in _texts(numerator, infinitesimal)], dtype=object)


def _infinitesimal_codes(numerator: np.ndarray, infinitesimal: np.ndarray) -> np.ndarray:
    return np.array([v.infinitesimal.code for v in _texts(numerator, infinitesimal)], dtype=object)


# -- the cards' fields ----------------------------------------------------------------------------------------


def _counterexample(bit: int) -> Callable[[DealColumns], np.ndarray]:
    return lambda c: (c.flags >> bit) & 1 == 1


def _fields() -> dict[str, Field]:
    value = "multi-suit paper §6"
    infinitesimal = "multi-suit paper §6.1"
    outcome = "multi-suit paper Corollary 8.9"
    greedy = "single-suit paper §6, Theorem 6.1"
    five = "single-suit paper §7.1, Theorem 7.2"
    fields = [
        Field("rank", "int64", "the deal's colex rank in its level: its row number within the level (0-based)",
              "docs/level-store.md", kernel=lambda c: c.ranks),
        Field("key", "int64", "West's cards as a mask (bit k−1 for card k) plus the sentinel bit 2n: unique over "
              "all levels, e.g. EWEW → 26", "docs/spec.md §2", kernel=lambda c: c.masks | np.int64(1 << (2 * c.n)),
              search="number", bound=1 << 63),
        Field("label", "text", "who holds each card, lowest card first: W or E, 2n letters", "docs/spec.md §2",
              kernel=lambda c: labels(c.n, c.masks), header="Deal", of_record=lambda r: r.label),
        Field("n", "int8", "cards a hand", "docs/spec.md §2", kernel=lambda c: np.full(c.size, c.n, np.int8),
              search="number", bound=64, header="n", of_record=lambda r: r.n),
        Field("value", "category", "val(D) in the paper's typography: 3/8, 1 + ε₁, 2 − ε₂ (the search compares it"
              " with a constant: value = 3+3/8, value >= 2-e2)", value, by_value=_value_texts, search="value",
              header="Value", of_record=lambda r: r.value),
        Field("number_scaled", "int32", "the numerical part q", value,
              by_value=lambda num, inf: num.astype(np.int32), search="number", search_name="number",
              scale=SCALE_BITS, bound=_BIG, export=False),
        Field("fraction_scaled", "int32", "the fractional part q − ⌊q⌋", value,
              by_value=lambda num, inf: (num.astype(np.int64) & (SCALE - 1)).astype(np.int32), search="number",
              search_name="frac", aliases=("fraction", "fractional"), scale=SCALE_BITS, bound=1 << SCALE_BITS,
              export=False),
        Field("numerator", "int32", "numerator of the number part q of val(D), reduced", value,
              by_value=lambda num, inf: _reduced_numerator(num), search="number", bound=_BIG),
        Field("denominator", "int32", "denominator of q, reduced (a power of two)", value,
              by_value=lambda num, inf: _denominator(num), search="number", bound=1 << SCALE_BITS),
        Field("infinitesimal", "category", "the infinitesimal part x: 0, e<k> for ε_k, -e<k> for −ε_k, e0, -e0",
              infinitesimal, by_value=_infinitesimal_codes, search="infinitesimal", search_name="inf",
              aliases=("infinitesimal",)),
        Field("inf_sign", "int8", "sign of the infinitesimal part: −1, 0 or 1", infinitesimal,
              by_value=lambda num, inf: np.sign(inf).astype(np.int8)),
        Field("stoppers", "int8", "k of ±ε_k (0 when the infinitesimal part is 0)", infinitesimal,
              by_value=lambda num, inf: np.maximum(np.abs(inf.astype(np.int64)) - 1, 0).astype(np.int8),
              search="number", bound=64),
        Field("west_leads", "int8", "tricks West takes with best play, West on lead: the outcome ρ(val)", outcome,
              by_value=_outcome(0), search="number", bound=_TRICKS),
        Field("east_leads", "int8", "tricks West takes with best play, East on lead", outcome, by_value=_outcome(1),
              search="number", bound=_TRICKS),
        Field("outcome", "pair", "(west_leads, east_leads)", outcome, search="pair", aliases=("tricks",),
              parts=("west_leads", "east_leads"), export=False, header="Outcome",
              of_record=lambda r: (int(r.outcome.west_leads), int(r.outcome.east_leads))),
        Field("h_lower", "int8", "H̲, where T_k changes sign", "single-suit paper, end of §5",
              kernel=lambda c: c.quantities(1)[0], search="number", aliases=("hunder", "h_under"), bound=_TRICKS,
              header="H̲", of_record=lambda r: r.h_lower),
        Field("h_upper", "int8", "H̄, where T_k changes sign", "single-suit paper, end of §5",
              kernel=lambda c: c.quantities(1)[1], search="number", aliases=("hbar", "h_bar"), bound=_TRICKS,
              header="H̄", of_record=lambda r: r.h_upper),
        Field("h", "int8", "H: West takes ⌊(n+H)/2⌋ tricks on lead, ⌈(n+H)/2⌉ otherwise",
              "single-suit paper Theorems 8.1, 9.1", kernel=lambda c: c.quantities(2)[2], search="number",
              bound=_TRICKS, header="H", of_record=lambda r: r.h),
        Field("greedy_west_leads", "int8", "tricks West takes at Greedy Whist, West on lead", greedy,
              kernel=lambda c: c.greedy()[0], search="number", bound=_TRICKS),
        Field("greedy_east_leads", "int8", "tricks West takes at Greedy Whist, East on lead", greedy,
              kernel=lambda c: c.greedy()[1], search="number", bound=_TRICKS),
        Field("greedy", "pair", "(greedy_west_leads, greedy_east_leads)", greedy, search="pair",
              parts=("greedy_west_leads", "greedy_east_leads"), export=False),
        Field("five_card_west_leads", "category", "who wins Five-card, West on lead: W or E", five,
              kernel=lambda c: c.quantities(0)[3] >= 0, search="player"),  # Theorem 7.2: tr(A) = 0 goes to the leader
        Field("five_card_east_leads", "category", "who wins Five-card, East on lead: W or E", five,
              kernel=lambda c: c.quantities(0)[3] > 0, search="player"),
        Field("five_card", "pair", "(five_card_west_leads, five_card_east_leads)", five, search="pair",
              parts=("five_card_west_leads", "five_card_east_leads"), export=False),
        Field("ace", "category", "who holds the highest card: W or E", "single-suit paper §9",
              # Colex order is the masks' numeric order: the C(2n−1, n) deals without West's top card come first.
              kernel=lambda c: c.ranks >= comb(2 * c.n - 1, c.n), search="player", aliases=("ace_holder",),
              header="Ace", of_record=lambda r: r.ace),
        *(Field(f"counterexample_{name}", "bool", f"the deal is a counterexample to the engine's check {name}",
                "docs/search.md, counterexample(…)", kernel=_counterexample(bit))
          for bit, name in enumerate(CHECK_NAMES)),
        Field("holdup", "bool", "against some lead beatable below the ace, ducking is strictly better than winning"
              " cheaply in the order of labeled values (the engine's check conjecture_12_4_labeled; no counterexample to"
              " the paper's Conjecture 12.4, which is about outcomes)",
              "docs/conjectures.md", search="flag", bit=CHECK_NAMES.index("conjecture_12_4_labeled"), export=False),
        Field("best_leads_west", "uint32", "West's best leads as a mask of cards (bit k−1 for card k); costly: α of "
              "every deal", "multi-suit paper §7.2", kernel=lambda c: c.best_leads()[0], header="Best leads W",
              of_record=lambda r: r.solution.west_leads),
        Field("best_leads_east", "uint32", "East's best leads as a mask of cards (bit k−1 for card k); costly",
              "multi-suit paper §7.2", kernel=lambda c: c.best_leads()[1], header="Best leads E",
              of_record=lambda r: r.solution.east_leads),
        Field("flags", "int16", "the counterexample bits, in the order of the engine's checks", "docs/search.md",
              kernel=lambda c: c.flags, search="number", bound=1 << 16, export=False, header="Counterexample to",
              of_record=lambda r: r.counterexamples),
    ]
    return {f.name: f for f in fields}


FIELDS: dict[str, Field] = _fields()
"""Every per-deal field, in the dataset's column order."""

COLUMNS: dict[str, Field] = {name: f for name, f in FIELDS.items() if f.export}
"""The dataset's columns (``export --columns``, :meth:`~whist_catalogue.store.reader.Catalogue.level`)."""

HEADERS: tuple[Field, ...] = tuple(f for f in FIELDS.values() if f.header)
"""The app's result columns, in the registry's order."""

DEFAULT_COLUMNS: tuple[str, ...] = (
    "key", "label", "value", "numerator", "denominator", "infinitesimal", "west_leads", "east_leads", "h",
    "greedy_west_leads", "greedy_east_leads", "five_card_west_leads", "five_card_east_leads", "ace",
)
"""What ``export`` writes and :meth:`~whist_catalogue.store.reader.Catalogue.level` returns unless told."""

GROUPS: dict[str, tuple[str, ...]] = {
    "default": DEFAULT_COLUMNS,
    "all": tuple(name for name in COLUMNS if not name.startswith("best_leads")),
    "outcome": ("west_leads", "east_leads"),
    "greedy": ("greedy_west_leads", "greedy_east_leads"),
    "five_card": ("five_card_west_leads", "five_card_east_leads"),
    "counterexamples": tuple(f"counterexample_{name}" for name in CHECK_NAMES),
    "best_leads": ("best_leads_west", "best_leads_east"),
}
"""Names ``--columns`` accepts for several columns at once (``all`` leaves out the costly best leads)."""


def resolve_columns(names: str | Iterable[str] | None) -> tuple[str, ...]:
    """Column names (a comma-separated text or a list; groups of :data:`GROUPS` expanded; None: the default),
    without repeats, in the order given; ValueError names an unknown one."""
    if names is None:
        return DEFAULT_COLUMNS
    items = [part.strip() for part in names.split(",")] if isinstance(names, str) else list(names)
    resolved: list[str] = []
    for item in items:
        if not item:
            continue
        for name in GROUPS.get(item, (item,)):
            if name not in COLUMNS:
                raise ValueError(f"unknown column {name!r}; the columns are: {', '.join([*COLUMNS, *GROUPS])}")
            if name not in resolved:
                resolved.append(name)
    if not resolved:
        raise ValueError("no columns asked for")
    return tuple(resolved)


# -- a chunk's columns ---------------------------------------------------------------------------------------

_BYTE_LABELS = np.array([[ord("W") if b >> i & 1 else ord("E") for i in range(8)] for b in range(256)], np.uint8)
"""The label of each byte of a mask, lowest bit first: a byte at a time, not a bit."""


def labels(n: int, masks: np.ndarray) -> np.ndarray:
    """The labels of West's masks of level n as a (deals, 2n) uint8 array of ASCII W and E (each row is a label)."""
    width = 2 * n
    parts = -(-width // 8)
    out = np.empty((masks.shape[0], 8 * parts), np.uint8)
    for j in range(parts):
        out[:, 8 * j : 8 * j + 8] = _BYTE_LABELS[(masks >> (8 * j)) & 255]
    return np.ascontiguousarray(out[:, :width])


@dataclass(frozen=True, slots=True)
class Dictionary:
    """A text column as codes into a few distinct texts (Arrow's dictionary type, pandas' Categorical)."""

    codes: np.ndarray
    texts: tuple[str, ...]

    def decode(self) -> np.ndarray:
        """The texts themselves, one a deal (a NumPy unicode array)."""
        width = max((len(t) for t in self.texts), default=1)
        return np.array(self.texts, dtype=f"<U{width}")[self.codes] if self.texts else np.array([], "<U1")

    def __len__(self) -> int:
        return int(self.codes.shape[0])


class DealColumns:
    """The fields of the deals of a decoded chunk — all of them, or those at ``rows`` (indexes within the chunk,
    increasing) — each computed when first asked for, in whole-array steps, and kept.

    Players are bool arrays, True for West.  ``table``: the level's value table (a superset of the chunk's), so
    that a value's codes mean the same in every chunk of the level; ``values_at``: level n − 1's values, for the
    best leads only.  A chunk of level 16 (2^20 deals) takes tens of milliseconds a kernel pass.
    """

    def __init__(self, chunk: Chunk, rows: np.ndarray | None = None, *, table: ValueTable | None = None,
                 values_at: ValuesAt | None = None, masks: np.ndarray | None = None) -> None:
        """``masks``: West's masks of the deals at ``rows``, when the caller holds them (a look-up of a few deals
        then makes no masks of the whole chunk)."""
        from whist_catalogue.engine.codes import remap

        self.chunk, self.n, self.rows, self._values_at = chunk, chunk.n, rows, values_at
        codes = chunk.codes if rows is None else chunk.codes[rows]
        if table is not None:
            codes = remap(codes, chunk.table, table)
        self.table = table if table is not None else chunk.table
        self.codes = codes
        self.size = int(codes.shape[0])
        self._cache: dict[str, Any] = {} if masks is None else {"_masks": masks}

    def __getitem__(self, name: str) -> np.ndarray:
        found = self._cache.get(name)
        if found is None:
            field = FIELDS.get(name)
            if field is None or (field.kernel is None and field.by_value is None):
                raise ValueError(f"no per-deal array named {name!r}")
            if field.by_value is not None:
                found = np.asarray(field.by_value(self.table.numerator, self.table.infinitesimal))[self.codes]
            else:
                assert field.kernel is not None
                found = field.kernel(self)
            self._cache[name] = found
        return found

    def column(self, name: str) -> np.ndarray | Dictionary:
        """The dataset's column ``name``: typed arrays, categories as :class:`Dictionary`."""
        field = COLUMNS[name]
        if field.kind == "category":
            if field.by_value is not None:
                texts = field.by_value(self.table.numerator, self.table.infinitesimal).tolist()
                if len(set(texts)) == len(texts):  # the values themselves: kept in V's order
                    return Dictionary(self.codes, tuple(texts))
                distinct, inverse = np.unique(np.array(texts, dtype=object), return_inverse=True)
                return Dictionary(inverse.astype(np.int16)[self.codes], tuple(distinct.tolist()))
            return Dictionary(self[name].view(np.int8), ("E", "W"))  # West (True) or East
        if field.kind == "text":
            return self[name]
        return np.asarray(self[name]).astype(field.kind, copy=False)

    # -- what the kernels share ---------------------------------------------------------------------------
    def _kept(self, name: str, make: Callable[[], Any]) -> Any:
        if name not in self._cache:
            self._cache[name] = make()
        return self._cache[name]

    @property
    def ranks(self) -> np.ndarray:
        def make() -> np.ndarray:
            ranks = np.arange(self.chunk.start, self.chunk.stop, dtype=np.int64)
            return ranks if self.rows is None else ranks[self.rows]

        return self._kept("_ranks", make)

    @property
    def masks(self) -> np.ndarray:
        """West's masks of the deals (computed for the whole chunk, then the rows taken)."""
        def make() -> np.ndarray:
            from whist_catalogue.theory.ranking import level_masks

            masks = level_masks(self.n, self.chunk.start, self.chunk.stop)
            return masks if self.rows is None else masks[self.rows]

        return self._kept("_masks", make)

    @property
    def flags(self) -> np.ndarray:
        return self._kept("_flags", lambda: self.chunk.flags if self.rows is None else self.chunk.flags[self.rows])

    def quantities(self, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(H̲, H̄, H, T_0) of every deal, by one pass of the single-suit kernels: T_0 alone (``depth`` 0, the
        Five-card winners), with H̲ and H̄ (1) or with H too (2, Theorem 9.1's conditions); a deeper pass
        already made serves a shallower ask."""
        for have in range(2, depth - 1, -1):
            found = self._cache.get(f"_quantities{have}")
            if found is not None:
                return found
        from whist_catalogue.single_suit.formulas import chunk_quantities

        found = chunk_quantities(self.n, self.masks, depth)
        self._cache[f"_quantities{depth}"] = found
        return found

    def greedy(self) -> tuple[np.ndarray, np.ndarray]:
        """Greedy Whist's outcome (§8): H is H̄ when positive, H̲ when negative, else 0; West takes ⌊(n+H)/2⌋ on
        lead.  As H̲ ≥ H̄ − 1 that is max(H̄, 0) + min(H̲, 0): whole-array steps in int8 (0 ≤ n + H ≤ 2n)."""
        h_lower, h_upper, _, _ = self.quantities(1)
        total = np.maximum(h_upper, 0) + np.minimum(h_lower, 0) + np.int8(self.n)
        return total >> 1, (total + np.int8(1)) >> 1

    def best_leads(self) -> tuple[np.ndarray, np.ndarray]:
        """Best leads of West and of East (docs/spec.md §3: the leads that attain max_i min_j α_ij, resp.
        min_j max_i α_ij) as card masks, from α of §7.2 over level n − 1's values, a batch of deals at a time."""
        return self._kept("_best_leads", self._best_leads)

    def _best_leads(self) -> tuple[np.ndarray, np.ndarray]:
        from whist_catalogue.store.derived import ALPHA_BATCH, alphas

        if self._values_at is None:
            raise ValueError("best leads need level n − 1's values (values_at)")
        n, masks = self.n, self.masks
        west_out = np.zeros(masks.shape[0], np.uint32)
        east_out = np.zeros(masks.shape[0], np.uint32)
        for start in range(0, masks.shape[0], ALPHA_BATCH):
            part = masks[start : start + ALPHA_BATCH]
            west_cards, east_cards, alpha = alphas(n, part, self._values_at)
            row_min = alpha.min(axis=2)
            col_max = alpha.max(axis=1)
            west_best = row_min == row_min.max(axis=1)[:, None]
            east_best = col_max == col_max.min(axis=1)[:, None]
            west_out[start : start + part.shape[0]] = (west_best * (np.int64(1) << west_cards)).sum(axis=1)
            east_out[start : start + part.shape[0]] = (east_best * (np.int64(1) << east_cards)).sum(axis=1)
        return west_out, east_out


def columns_of_chunk(chunk: Chunk, fields: Sequence[str], *, rows: np.ndarray | None = None,
                     table: ValueTable | None = None,
                     values_at: ValuesAt | None = None) -> dict[str, np.ndarray | Dictionary]:
    """The dataset's columns ``fields`` of a chunk's deals (all, or those at ``rows``), as
    :meth:`DealColumns.column` gives them."""
    columns = DealColumns(chunk, rows, table=table, values_at=values_at)
    return {name: columns.column(name) for name in fields}
