"""A level of the catalogue as columns: whole-array steps over its chunks (docs/dataset.md).

Every complete level keeps its values as chunks of value codes (docs/level-store.md); everything
else a deal has is a function of its value or of its cards, and is computed here for a whole chunk
at once, never one deal at a time:

* from the **value** (the multi-suit paper's §6: q + x, x an infinitesimal ±ε_k) — the reduced
  fraction, the infinitesimal, and the outcome ρ(val) of Corollary 8.9 — once per distinct value of
  the level's table, then read off the codes (:func:`whist_catalogue.store.levels.value_columns`);
* from the **cards** — the key and label of docs/spec.md §2, and the single-suit paper's H̲, H̄
  (end of §5), H (Theorem 9.1), Greedy Whist (§6, Theorem 6.1), Five-card (§7.1, Theorem 7.2) and the
  ace — by its linear-time kernels over the masks of the chunk, computing only what is asked for; these and
  the value's numbers are the search's own columns (:func:`whist_catalogue.store.levels.chunk_columns`), so
  an export and a search can never disagree on a deal;
* the **counterexample flags** of the engine's checks, from the chunk's check bits;
* **best leads** on request, from α of §7.2 whose entries are level n − 1's values (the costly one:
  n² look-ups a deal).

:func:`chunk_columns` is the one entry point: a decoded chunk (and optionally the indexes of the
deals wanted within it) in, a dict of equal-length NumPy arrays out.  Text columns with few distinct
values (the value, the infinitesimal, W/E) come as :class:`Dictionary` — codes into a short list of
texts — so that Arrow, Parquet and pandas keep them dictionary-encoded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np

from whist_catalogue.engine.chunks import Chunk
from whist_catalogue.engine.codes import ValueTable, remap
from whist_catalogue.engine.levels import CHECK_NAMES
from whist_catalogue.store import levels

__all__ = [
    "Column",
    "Dictionary",
    "COLUMNS",
    "DEFAULT_COLUMNS",
    "GROUPS",
    "resolve_columns",
    "chunk_columns",
    "labels",
    "ValuesAt",
]

ValuesAt = Callable[[int, np.ndarray], tuple[np.ndarray, np.ndarray]]
"""(n, ranks) → (numerator, infinitesimal) engine arrays of level n's deals at those ranks:
:meth:`whist_catalogue.store.reader.Catalogue.values_at`, needed for best leads only."""


@dataclass(frozen=True, slots=True)
class Column:
    """One column of the dataset: its name, its type (a NumPy dtype name, ``text`` for one string a deal,
    ``category`` for a text with few distinct values), what it means and where the papers define it."""

    name: str
    kind: str
    meaning: str
    source: str


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


_FLAG_COLUMNS = tuple(f"counterexample_{name}" for name in CHECK_NAMES)

COLUMNS: dict[str, Column] = {c.name: c for c in (
    Column("rank", "int64", "the deal's colex rank in its level: its row number within the level (0-based)",
           "docs/level-store.md"),
    Column("key", "int64", "West's cards as a mask (bit k−1 for card k) plus the sentinel bit 2n: unique over all "
           "levels, e.g. EWEW → 26", "docs/spec.md §2"),
    Column("label", "text", "who holds each card, lowest card first: W or E, 2n letters", "docs/spec.md §2"),
    Column("n", "int8", "cards a hand", "docs/spec.md §2"),
    Column("value", "category", "val(D) in the paper's typography: 3/8, 1 + ε₁, 2 − ε₂", "multi-suit paper §6"),
    Column("numerator", "int32", "numerator of the number part q of val(D), reduced", "multi-suit paper §6"),
    Column("denominator", "int32", "denominator of q, reduced (a power of two)", "multi-suit paper §6"),
    Column("infinitesimal", "category", "the infinitesimal part: 0, e<k> for ε_k, -e<k> for −ε_k",
           "multi-suit paper §6.1"),
    Column("inf_sign", "int8", "sign of the infinitesimal part: −1, 0 or 1", "multi-suit paper §6.1"),
    Column("stoppers", "int8", "k of ±ε_k (0 when the infinitesimal part is 0)", "multi-suit paper §6.1"),
    Column("west_leads", "int8", "tricks West takes with best play, West on lead: the outcome ρ(val)",
           "multi-suit paper Corollary 8.9"),
    Column("east_leads", "int8", "tricks West takes with best play, East on lead", "multi-suit paper Corollary 8.9"),
    Column("h_lower", "int8", "H̲, where T_k changes sign", "single-suit paper, end of §5"),
    Column("h_upper", "int8", "H̄, where T_k changes sign", "single-suit paper, end of §5"),
    Column("h", "int8", "H: West takes ⌊(n+H)/2⌋ tricks on lead, ⌈(n+H)/2⌉ otherwise",
           "single-suit paper Theorems 8.1, 9.1"),
    Column("greedy_west_leads", "int8", "tricks West takes at Greedy Whist, West on lead",
           "single-suit paper §6, Theorem 6.1"),
    Column("greedy_east_leads", "int8", "tricks West takes at Greedy Whist, East on lead",
           "single-suit paper §6, Theorem 6.1"),
    Column("five_card_west_leads", "category", "who wins Five-card, West on lead: W or E",
           "single-suit paper §7.1, Theorem 7.2"),
    Column("five_card_east_leads", "category", "who wins Five-card, East on lead: W or E",
           "single-suit paper §7.1, Theorem 7.2"),
    Column("ace", "category", "who holds the highest card: W or E", "single-suit paper §9"),
    *(Column(f"counterexample_{name}", "bool", f"the deal is a counterexample to the engine's check {name}",
             "docs/search.md, counterexample(…)") for name in CHECK_NAMES),
    Column("best_leads_west", "uint32", "West's best leads as a mask of cards (bit k−1 for card k); costly: α of "
           "every deal", "multi-suit paper §7.2"),
    Column("best_leads_east", "uint32", "East's best leads as a mask of cards (bit k−1 for card k); costly",
           "multi-suit paper §7.2"),
)}
"""Every column :func:`chunk_columns` computes, in the dataset's order."""

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
    "counterexamples": _FLAG_COLUMNS,
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
        expanded = GROUPS.get(item, (item,))
        for name in expanded:
            if name not in COLUMNS:
                known = ", ".join([*COLUMNS, *GROUPS])
                raise ValueError(f"unknown column {name!r}; the columns are: {known}")
            if name not in resolved:
                resolved.append(name)
    if not resolved:
        raise ValueError("no columns asked for")
    return tuple(resolved)


# -- labels ---------------------------------------------------------------------------------------------------

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


# -- a chunk's columns -------------------------------------------------------------------------------------------

_VALUE_FIELDS = {"numerator", "denominator", "inf_sign", "stoppers", "west_leads", "east_leads"}
_DEAL_FIELDS = {"h_lower", "h_upper", "h", "greedy_west_leads", "greedy_east_leads", "five_card_west_leads",
                "five_card_east_leads", "ace"}
_PLAYERS = ("E", "W")


def _value_texts(table: ValueTable) -> tuple[tuple[str, ...], tuple[str, ...]]:
    values = table.values()
    return tuple(v.text() for v in values), tuple(v.infinitesimal.code for v in values)


def chunk_columns(chunk: Chunk, fields: Sequence[str], *, rows: np.ndarray | None = None,
                  table: ValueTable | None = None,
                  values_at: ValuesAt | None = None) -> dict[str, np.ndarray | Dictionary]:
    """The columns ``fields`` (names of :data:`COLUMNS`) of the deals of a decoded chunk, in rank order: all of
    them, or those at ``rows`` (indexes within the chunk, increasing).

    ``table`` — the level's value table (a superset of the chunk's): the value columns' dictionaries are then
    the same for every chunk of the level.  ``values_at`` — level n − 1's values, for best leads only.
    """
    n = chunk.n
    ranks = np.arange(chunk.start, chunk.stop, dtype=np.int64)
    codes = chunk.codes
    if rows is not None:
        ranks, codes = ranks[rows], codes[rows]
    if table is None:
        table = chunk.table
    else:
        codes = remap(codes, chunk.table, table)
    values: ValueTable = table
    out: dict[str, np.ndarray | Dictionary] = {}
    wanted = set(fields)
    masks = None  # West's masks of the whole chunk, computed once if a column needs them
    if wanted & (_DEAL_FIELDS - {"ace"} | {"key", "label", "best_leads_west", "best_leads_east"}):
        from whist_catalogue.theory.ranking import level_masks

        masks = level_masks(n, chunk.start, chunk.stop)
    # The numbers of a deal — of its value or of its cards — are the search's columns, computed by one function.
    computed = levels.chunk_columns(chunk, wanted & (_VALUE_FIELDS | _DEAL_FIELDS | {"key"}), masks=masks)
    if rows is not None:
        computed = {name: column[rows] for name, column in computed.items()}
        masks = masks[rows] if masks is not None else None
    texts = _value_texts(values) if wanted & {"value", "infinitesimal"} else None
    flags = None
    if wanted & set(_FLAG_COLUMNS):
        flags = chunk.flags if rows is None else chunk.flags[rows]
    leads = _best_leads(n, masks, values_at) if masks is not None and wanted & set(GROUPS["best_leads"]) else None

    for name in fields:
        if name == "rank":
            out[name] = ranks
        elif name == "label":
            assert masks is not None
            out[name] = labels(n, masks)
        elif name == "n":
            out[name] = np.full(ranks.shape, n, np.int8)
        elif name == "value":
            assert texts is not None
            out[name] = Dictionary(codes, texts[0])
        elif name == "infinitesimal":
            assert texts is not None
            distinct, inverse = np.unique(np.array(texts[1], dtype=object), return_inverse=True)
            out[name] = Dictionary(inverse.astype(np.int16)[codes], tuple(distinct.tolist()))
        elif name in computed:
            column = computed[name]
            if column.dtype == np.bool_:  # West (True) or East: W/E as codes into ("E", "W")
                out[name] = Dictionary(column.view(np.int8), _PLAYERS)
            else:
                out[name] = column.astype(COLUMNS[name].kind, copy=False)
        elif name in _FLAG_COLUMNS:
            assert flags is not None
            out[name] = (flags >> _FLAG_COLUMNS.index(name)) & 1 == 1
        elif name in ("best_leads_west", "best_leads_east"):
            assert leads is not None
            out[name] = leads[0] if name == "best_leads_west" else leads[1]
        else:
            raise ValueError(f"unknown column {name!r}")
    return out


_LEADS_BATCH = 4096
"""Deals whose α are held at once: n² int64 entries each, a few tens of MB at n = 16."""


def _best_leads(n: int, masks: np.ndarray, values_at: ValuesAt | None) -> tuple[np.ndarray, np.ndarray]:
    """Best leads of West and of East (docs/spec.md §3: the leads that attain max_i min_j α_ij,
    resp. min_j max_i α_ij) as card masks, from α of §7.2 over level n − 1's values, a batch of deals at a time."""
    from whist_catalogue.store.levels import alpha_keys, colex_ranks, reduction_masks

    if values_at is None:
        raise ValueError("best leads need level n − 1's values (values_at)")
    west_out = np.zeros(masks.shape[0], np.uint32)
    east_out = np.zeros(masks.shape[0], np.uint32)
    for start in range(0, masks.shape[0], _LEADS_BATCH):
        part = masks[start : start + _LEADS_BATCH]
        west_cards, east_cards, reductions = reduction_masks(n, part)
        numerator, infinitesimal = values_at(n - 1, colex_ranks(reductions, 2 * n - 2))
        alpha = alpha_keys(west_cards, east_cards, numerator, infinitesimal)
        row_min = alpha.min(axis=2)
        col_max = alpha.max(axis=1)
        west_best = row_min == row_min.max(axis=1)[:, None]
        east_best = col_max == col_max.min(axis=1)[:, None]
        card_bits_west = np.int64(1) << west_cards
        card_bits_east = np.int64(1) << east_cards
        west_out[start : start + part.shape[0]] = (west_best * card_bits_west).sum(axis=1)
        east_out[start : start + part.shape[0]] = (east_best * card_bits_east).sum(axis=1)
    return west_out, east_out
