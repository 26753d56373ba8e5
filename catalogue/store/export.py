"""Exporting deals of the catalogue to CSV or JSON Lines, streamed (``export``).

The first line names the columns: the CSV header row, or for JSON Lines a first
object ``{"columns": [...], "catalogue": ..., "query": ..., "software_version": ...}``;
every further JSON line is an object with exactly those keys.  Rows are read in
key order in batches and written as they come, so an export of any size runs
in constant memory.

Cards are numbered as in docs/spec.md §2 (card k is the k-th lowest of the suit).  In
CSV, lists of cards are space-separated, and replies are written
``lead:reply reply;lead:reply`` — e.g. ``2:1 3;4:3`` means: to a lead of card 2
the best replies are 1 and 3, to a lead of 4 it is 3.
"""

from __future__ import annotations

import csv
import json
import struct
from typing import Any, Callable, TextIO

import sqlalchemy as sa

from whist_catalogue import __version__
from whist_catalogue.engine.levels import CHECK_NAMES
from whist_catalogue.store.database import database_errors
from whist_catalogue.store.levels import moves_width
from whist_catalogue.store.models import DealRow
from whist_catalogue.store.reader import Catalogue, DealRecord, check_row_types, value_from_columns
from whist_catalogue.store.search import search_condition

__all__ = ["COLUMNS", "FORMATS", "export", "record_columns"]

FORMATS = ("csv", "jsonl")

COLUMNS: tuple[tuple[str, str], ...] = (
    ("key", "integer key of docs/spec.md §2"),
    ("label", "owner string, lowest card first"),
    ("n", "cards a hand"),
    ("number", "numerical part q, p/q reduced"),
    ("infinitesimal", "infinitesimal part: 0, e0, -e0, e<k>, -e<k>"),
    ("value_text", "the value in the paper's typography"),
    ("west_leads", "tricks for West, West on lead"),
    ("east_leads", "tricks for West, East on lead"),
    ("best_leads_west", "West's best leads"),
    ("best_leads_east", "East's best leads"),
    ("best_replies_east", "East's best replies to each West lead"),
    ("best_replies_west", "West's best replies to each East lead"),
    ("h_lower", "H̲"),
    ("h_upper", "H̄"),
    ("h", "H of Theorem 9.1"),
    ("greedy_west_leads", "Greedy Whist, West on lead"),
    ("greedy_east_leads", "Greedy Whist, East on lead"),
    ("five_card_west_leads", "Five-card winner, West on lead"),
    ("five_card_east_leads", "Five-card winner, East on lead"),
    ("ace", "holder of the highest card"),
    ("counterexamples", "checks the deal is a counterexample to"),
)
"""(name, meaning) of every exported column, in order."""


def record_columns(record: DealRecord, *, flat: bool) -> list[Any]:
    """The values of :data:`COLUMNS` for one record; ``flat`` joins lists into text (CSV)."""
    v = record.value
    leads = record.best_leads()
    replies = record.best_replies()

    def cards(items: list[str]) -> Any:
        return " ".join(items) if flat else items

    def answers(table: dict[str, list[str]]) -> Any:
        if flat:
            return ";".join(f"{lead}:{' '.join(r)}" for lead, r in table.items())
        return table

    names = list(record.counterexamples)
    return [
        record.key,
        record.label,
        record.n,
        v.number_text,
        v.infinitesimal.code,
        v.text(),
        int(record.outcome.west_leads),
        int(record.outcome.east_leads),
        cards(leads["west"]),
        cards(leads["east"]),
        answers(replies["east"]),
        answers(replies["west"]),
        record.h_lower,
        record.h_upper,
        record.h,
        int(record.greedy.west_leads),
        int(record.greedy.east_leads),
        record.five_card[0],
        record.five_card[1],
        record.ace,
        " ".join(names) if flat else names,
    ]


class _RowFormatter:
    """:func:`record_columns` for Core rows, fast: no domain objects per row, caches for what repeats.

    Values, flags and move masks take few distinct forms, so their texts are cached;
    only the cards of each deal are worked out per row.  A test checks it against
    :func:`record_columns` deal by deal.
    """

    def __init__(self, flat: bool) -> None:
        self.flat = flat
        self._values: dict[tuple[int, int, int], tuple[str, str, str]] = {}
        self._flags: dict[int, Any] = {}
        self._bits: dict[int, tuple[int, ...]] = {}

    def _value(self, number_scaled: int, inf_sign: int, stoppers: int) -> tuple[str, str, str]:
        key = (number_scaled, inf_sign, stoppers)
        texts = self._values.get(key)
        if texts is None:
            v = value_from_columns(number_scaled, inf_sign, stoppers)
            texts = self._values[key] = (v.number_text, v.infinitesimal.code, v.text())
        return texts

    def _positions(self, mask: int) -> tuple[int, ...]:
        bits = self._bits.get(mask)
        if bits is None:
            bits = self._bits[mask] = tuple(i for i in range(mask.bit_length()) if mask >> i & 1)
        return bits

    def _counterexamples(self, flags: int) -> Any:
        names = self._flags.get(flags)
        if names is None:
            found = [name for c, name in enumerate(CHECK_NAMES) if flags >> c & 1]
            names = self._flags[flags] = " ".join(found) if self.flat else found
        return list(names) if isinstance(names, list) else names

    def __call__(self, row: Any) -> list[Any]:
        check_row_types(row)  # a malformed cell is a corrupt catalogue, not a value to export
        n = row.n
        west = row.key ^ (1 << (2 * n))
        label = format(west, f"0{2 * n}b")[::-1].replace("1", "W").replace("0", "E")
        west_cards = [str(i + 1) for i, owner in enumerate(label) if owner == "W"]
        east_cards = [str(i + 1) for i, owner in enumerate(label) if owner == "E"]
        masks = struct.unpack(f"<{2 + 2 * n}{'H' if moves_width(n) == 2 else 'I'}", row.moves)
        bits, flat = self._positions, self.flat
        memo: dict[tuple[int, bool], Any] = {}  # replies repeat within a deal

        def cards(mask: int, west_hand: bool) -> Any:
            found = memo.get((mask, west_hand))
            if found is None:
                hand = west_cards if west_hand else east_cards
                chosen = [hand[i] for i in bits(mask)]
                found = memo[(mask, west_hand)] = " ".join(chosen) if flat else chosen
            return found

        east_replies = {w: cards(masks[2 + i], False) for i, w in enumerate(west_cards)}
        west_replies = {e: cards(masks[2 + n + j], True) for j, e in enumerate(east_cards)}
        if self.flat:
            east_replies = ";".join(f"{lead}:{r}" for lead, r in east_replies.items())  # type: ignore[assignment]
            west_replies = ";".join(f"{lead}:{r}" for lead, r in west_replies.items())  # type: ignore[assignment]
        number, infinitesimal, text = self._value(row.number_scaled, row.inf_sign, row.stoppers)
        return [
            row.key, label, n, number, infinitesimal, text, row.west_leads, row.east_leads,
            cards(masks[0], True), cards(masks[1], False), east_replies, west_replies,
            row.h_lower, row.h_upper, row.h, row.greedy_west_leads, row.greedy_east_leads,
            row.five_card_west_leads, row.five_card_east_leads, row.ace, self._counterexamples(row.flags),
        ]  # fmt: skip


def export(
    catalogue: Catalogue,
    expression: str | None,
    out: TextIO,
    *,
    level: int | None = None,
    fmt: str = "csv",
    limit: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Write the deals matching ``expression`` (a search, :mod:`whist_catalogue.store.search`; None: every deal) and lying
    in ``level`` (if given) to ``out``; return how many."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}")
    names = [name for name, _ in COLUMNS]
    statement = sa.select(*DealRow.__table__.columns).where(search_condition(expression, level=level))
    statement = statement.order_by(DealRow.key)  # the condition is parsed above: a bad one raises before writing
    if limit is not None:
        statement = statement.limit(limit)
    format_row = _RowFormatter(flat=fmt == "csv")
    rows = catalogue.stream_deals(statement, expression, level=level, limit=limit)  # chunk-only levels too
    try:
        with database_errors(catalogue.location):  # a malformed row: the catalogue is reported corrupt
            header = {"columns": names, "catalogue": str(catalogue.location), "query": expression, "level": level,
                      "software_version": __version__}
            count = _write(rows, out, fmt, names, format_row, progress, header)
    finally:
        rows.close()
    return count


def _write(rows, out: TextIO, fmt: str, names: list[str], format_row: _RowFormatter,  # noqa: ANN001
           progress: Callable[[int], None] | None, header: dict) -> int:
    count = 0
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(names)
        write: Callable[[list[Any]], object] = writer.writerow
    else:
        out.write(json.dumps(header, ensure_ascii=False) + "\n")

        def write_json(values: list[Any]) -> None:
            out.write(json.dumps(dict(zip(names, values)), ensure_ascii=False) + "\n")

        write = write_json

    for row in rows:
        write(format_row(row))
        count += 1
        if progress and count % 10_000 == 0:
            progress(count)
    return count
