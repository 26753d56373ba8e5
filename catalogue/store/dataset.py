"""The catalogue as a dataset: a level's deals as NumPy, pandas or Arrow columns, and the one export to a file —
Parquet, CSV or JSON Lines at array speed — that the command line and the app both call (docs/dataset.md).

A level is read a chunk at a time (2^20 deals, docs/level-store.md) and each chunk's columns are
computed in whole-array steps by :class:`whist_catalogue.store.fields.DealColumns`; a search
expression filters a chunk with :class:`whist_catalogue.store.search.ChunkQuery`, the same
condition ``search`` evaluates.  Memory stays bounded by one chunk's columns whatever the level.

:func:`export_to_file` writes as ``cp`` does: through a symlink, into a device or a pipe, and to a regular file
atomically (``FILE.partial``, renamed once complete); it refuses a directory, a missing directory, a file
system without room for the estimate, and the catalogue it reads or a side file of it, under any name
(:class:`~whist_catalogue.errors.ExportTargetError`, nothing written).

Arrow (``pyarrow``) is an optional extra (``pip install 'whist-catalogue[dataset]'``): NumPy and
pandas batches do without it; Arrow batches and every export need it, and
:func:`require_pyarrow` says so in one line.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Generator, Iterator, Sequence

import numpy as np

from whist_catalogue.engine.plan import amount, duration
from whist_catalogue.errors import ExportTargetError, MissingDependency
from whist_catalogue.store.fields import COLUMNS, Dictionary, columns_of_chunk, resolve_columns
from whist_catalogue.store.records import SearchCoverage, level_span

if TYPE_CHECKING:
    from whist_catalogue.store.levels import LevelSource

__all__ = [
    "OUTPUTS",
    "FORMATS",
    "format_of",
    "require_pyarrow",
    "level_batches",
    "read_level",
    "export_levels",
    "export_plan",
    "export_to_file",
    "check_export_target",
    "ExportPlan",
    "BYTES_PER_DEAL",
]

OUTPUTS = ("numpy", "pandas", "arrow")
FORMATS = ("parquet", "csv", "jsonl")


def require_pyarrow() -> Any:
    """pyarrow, or :class:`MissingDependency` with the one line that installs it."""
    try:
        import pyarrow
    except ImportError:
        raise MissingDependency("this needs pyarrow: pip install 'whist-catalogue[dataset]'") from None
    return pyarrow


# -- batches ---------------------------------------------------------------------------------------------


def level_batches(catalogue: LevelSource, n: int, columns: str | Sequence[str] | None = None, *,
                  where: str | None = None, to: str = "numpy") -> Iterator[Any]:
    """Level n's deals in rank order as batches of columns, one chunk (≤ 2^20 deals) each: a dict of NumPy
    arrays (``to="numpy"``), a pandas DataFrame, or a ``pyarrow.RecordBatch``.  ``where``: only the deals
    matching a search expression (docs/search.md).  Raises :class:`~whist_catalogue.store.reader.NotInCatalogue`
    when the level is not in the level store."""
    if to not in OUTPUTS:
        raise ValueError(f"unknown output {to!r}: one of {', '.join(OUTPUTS)}")
    fields = resolve_columns(columns)
    if to == "arrow":
        require_pyarrow()
    for raw in _raw_batches(catalogue, [n], fields, where):
        yield _convert(raw, fields, to)


def read_level(catalogue: LevelSource, n: int, columns: str | Sequence[str] | None = None, *,
               where: str | None = None, to: str = "numpy") -> Any:
    """The whole of :func:`level_batches`, concatenated: a dict of arrays, a DataFrame or a ``pyarrow.Table``."""
    fields = resolve_columns(columns)
    batches = list(level_batches(catalogue, n, fields, where=where, to=to))
    if to == "numpy":
        if not batches:
            return _convert({}, fields, "numpy")
        return {name: np.concatenate([b[name] for b in batches]) for name in fields}
    if to == "pandas":
        import pandas as pd

        if not batches:
            return pd.DataFrame(_convert({}, fields, "numpy"))
        return pd.concat(batches, ignore_index=True) if len(batches) > 1 else batches[0]
    pa = require_pyarrow()
    return pa.Table.from_batches(batches, schema=arrow_schema(fields))


def _raw_batches(catalogue: LevelSource, levels: Sequence[int], fields: Sequence[str],
                 where: str | None) -> Iterator[dict[str, np.ndarray | Dictionary]]:
    from whist_catalogue.store.search import ChunkQuery

    query = ChunkQuery(where) if where is not None else None
    best_leads = any(name.startswith("best_leads") for name in fields)
    for n in levels:
        table, _ = catalogue.level_table(n)  # not complete, or damaged: raised before anything is read
        if query is not None and n not in query.asked():
            continue
        for chunk in catalogue.scan_chunks(n):
            rows = None
            if query is not None:
                matches = query.on_chunk(chunk)
                if not matches.any():
                    continue
                if not matches.all():
                    rows = np.flatnonzero(matches)
            yield columns_of_chunk(chunk, fields, rows=rows, table=table,
                                   values_at=catalogue.values_at if best_leads else None)


def _label_strings(array: np.ndarray) -> np.ndarray:
    width = array.shape[1]
    return array.view(f"S{width}").ravel().astype(f"<U{width}") if width else np.zeros(array.shape[0], "<U1")


def _convert(raw: dict[str, Any], fields: Sequence[str], to: str) -> Any:
    if to == "numpy":
        out: dict[str, np.ndarray] = {}
        for name in fields:
            column = raw.get(name)
            if column is None:  # an empty level's columns: typed, no rows
                kind = COLUMNS[name].kind
                column = np.zeros(0, "<U1" if kind in ("text", "category") else kind)
            elif isinstance(column, Dictionary):
                column = column.decode()
            elif name == "label":
                column = _label_strings(column)
            out[name] = column
        return out
    if to == "pandas":
        import pandas as pd

        frame: dict[str, Any] = {}
        for name in fields:
            column = raw[name]
            if isinstance(column, Dictionary):
                frame[name] = pd.Categorical.from_codes(column.codes.astype(np.int16), categories=list(column.texts))
            elif name == "label":
                frame[name] = _label_strings(column)
            else:
                frame[name] = column
        return pd.DataFrame(frame)
    return arrow_batch(raw, fields)


def arrow_schema(fields: Sequence[str]) -> Any:
    """The Arrow schema of a batch of these columns: small integers, dictionary-encoded texts."""
    pa = require_pyarrow()
    types = {"int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(), "int64": pa.int64(),
             "uint32": pa.uint32(), "bool": pa.bool_(), "text": pa.string(),
             "category": pa.dictionary(pa.int16(), pa.string())}
    return pa.schema([pa.field(name, types[COLUMNS[name].kind], nullable=False,
                               metadata={"meaning": COLUMNS[name].meaning, "source": COLUMNS[name].source})
                      for name in fields])


def arrow_batch(raw: dict[str, Any], fields: Sequence[str]) -> Any:
    """A ``pyarrow.RecordBatch`` of :func:`~whist_catalogue.store.fields.columns_of_chunk`'s output (no copy of the
    numeric columns)."""
    pa = require_pyarrow()
    arrays = []
    for name in fields:
        column = raw[name]
        if isinstance(column, Dictionary):
            arrays.append(pa.DictionaryArray.from_arrays(pa.array(column.codes.astype(np.int16)),
                                                         pa.array(list(column.texts), pa.string())))
        elif name == "label":
            size, width = column.shape
            offsets = np.arange(0, (size + 1) * width, width, dtype=np.int32) if size else np.zeros(1, np.int32)
            arrays.append(pa.StringArray.from_buffers(size, pa.py_buffer(offsets), pa.py_buffer(column)))
        else:
            arrays.append(pa.array(column))
    return pa.RecordBatch.from_arrays(arrays, schema=arrow_schema(fields))


# -- export --------------------------------------------------------------------------------------------------

BYTES_PER_DEAL: dict[str, float] = {
    # Parquet (zstd level 3), measured on level 14 (docs/benchmarks.md): the key is delta-encoded; the label
    # (LABEL_BYTES_PER_CARD a card a hand) compresses because neighbours in rank order share their high cards.
    "rank": 0.18, "key": 0.18, "n": 0.0, "value": 0.05, "numerator": 0.06, "denominator": 0.04,
    "infinitesimal": 0.01, "inf_sign": 0.01, "stoppers": 0.01, "west_leads": 0.02, "east_leads": 0.02,
    "h_lower": 0.04, "h_upper": 0.04, "h": 0.04, "greedy_west_leads": 0.025, "greedy_east_leads": 0.025,
    "five_card_west_leads": 0.01, "five_card_east_leads": 0.01, "ace": 0.005, "best_leads_west": 0.5,
    "best_leads_east": 0.5,
}
"""Estimated bytes a deal of each column in a Parquet file (a counterexample flag: 0.005); CSV and JSON Lines
are estimated from the columns' printed widths."""
LABEL_BYTES_PER_CARD = 0.09

SECONDS_PER_MILLION: dict[str, float] = {"parquet": 0.3, "csv": 0.6, "jsonl": 0.9}
"""Estimated wall seconds a million deals with the default columns (14) on the 2-core machine: Parquet 0.26 at
level 16 and 0.30 at level 14, CSV 0.58 at level 14 (docs/benchmarks.md), JSON Lines scaled from CSV by the
ratio of their CPU times; best leads add :data:`BEST_LEADS_SECONDS_PER_MILLION_N3` n³."""
BEST_LEADS_SECONDS_PER_MILLION_N3 = 0.075
"""Best leads: α's n² reductions ranked over 2n − 2 bits each — 73 s a million deals of CPU measured at n = 10."""


class ExportPlan:
    """What an export will write: its levels, its deals (or a bound), and estimates of size and time; and
    (:attr:`coverage`) the levels it asks for that the catalogue lacks, which a search would name."""

    def __init__(self, levels: list[int], deals: int, exact: bool, size: int, seconds: float,
                 coverage: SearchCoverage) -> None:
        self.levels, self.deals, self.exact, self.size, self.seconds = levels, deals, exact, size, seconds
        self.coverage = coverage

    def describe(self) -> str:
        count = f"{self.deals:,} deals" if self.exact else f"at most {self.deals:,} deals"
        return f"exporting {count} of {level_span(self.levels)}: about {amount(self.size)}, about {duration(self.seconds)}"


def _text_width(name: str, n: int, fmt: str) -> float:
    kind = COLUMNS[name].kind
    width = {"rank": len(str(math.comb(2 * n, n))), "key": len(str(1 << (2 * n))), "label": 2 * n + 2,
             "value": 8, "infinitesimal": 3, "numerator": 3, "denominator": 2, "bool": 5,
             "best_leads_west": 6, "best_leads_east": 6}.get(name, 5 if kind == "bool" else 2)
    return width + 1 + (len(name) + 3 if fmt == "jsonl" else 0)


def export_plan(catalogue: LevelSource, fmt: str, fields: Sequence[str], *, expression: str | None = None,
                level: int | None = None, limit: int | None = None) -> ExportPlan:
    """The levels an export covers and its estimated size and time, before any work: the number of deals is
    exact when the search decides on the value alone (counted from the statistics), else an upper bound."""
    from math import comb

    from whist_catalogue.store.search import ChunkQuery, count, coverage

    query = ChunkQuery(expression, level=level)
    complete = catalogue.complete_levels()
    levels = [n for n in query.asked() if n in complete]
    if expression is None or not query.per_deal:
        deals, exact = count(catalogue, expression, level=level), True
    else:
        deals, exact = sum(comb(2 * n, n) for n in levels), False
    if limit is not None:
        deals = min(deals, limit)
    top = max(levels, default=1)
    if fmt == "parquet":
        per_deal = sum(LABEL_BYTES_PER_CARD * top if name == "label" else BYTES_PER_DEAL.get(name, 0.005)
                       for name in fields)
    else:
        per_deal = sum(_text_width(name, top, fmt) for name in fields) + (2 if fmt == "jsonl" else 0)
    seconds = deals / 1e6 * SECONDS_PER_MILLION[fmt] * len(fields) / 14
    if any(name.startswith("best_leads") for name in fields):
        seconds += deals / 1e6 * BEST_LEADS_SECONDS_PER_MILLION_N3 * top**3
    return ExportPlan(levels, deals, exact, int(deals * per_deal) + 4096, seconds,
                      coverage(complete, expression, level=level))


def export_levels(catalogue: LevelSource, out: BinaryIO, *, fmt: str = "csv", columns: str | Sequence[str] | None = None,
                  expression: str | None = None, level: int | None = None, limit: int | None = None,
                  progress: Callable[[int, int], None] | None = None, plan: ExportPlan | None = None) -> int:
    """Write the deals matching ``expression`` (None: every deal) in ``level`` (None: every complete level) to
    ``out`` (a binary file) as Parquet, CSV or JSON Lines, in key order; return how many.  ``progress(done,
    total)`` is called after each chunk (total: the plan's deals, an upper bound for a per-deal search)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}: one of {', '.join(FORMATS)}")
    fields = resolve_columns(columns)
    pa = require_pyarrow()
    if plan is None:
        plan = export_plan(catalogue, fmt, fields, expression=expression, level=level, limit=limit)
    writer = _writer(pa, fmt, out, fields)
    count = 0
    batches = _prefetch(_arrow_batches(catalogue, plan.levels, fields, expression, limit))
    try:
        for batch in batches:
            writer.write(batch)
            count += batch.num_rows
            if progress is not None:
                progress(count, max(plan.deals, count))
    finally:
        batches.close()
        writer.close()
    return count


def format_of(path: str | os.PathLike[str]) -> str:
    """The format a file name asks for: Parquet for ``.parquet``, JSON Lines for ``.jsonl``, else CSV (the app's
    rule; the command line says ``--format``)."""
    return {".parquet": "parquet", ".jsonl": "jsonl"}.get(os.path.splitext(os.fspath(path))[1].lower(), "csv")


def export_to_file(catalogue: LevelSource, path: str | os.PathLike[str], **options: Any) -> int:
    """:func:`export_levels` into the file ``path`` (module docstring: as ``cp`` writes, never over the catalogue,
    nothing written when refused or interrupted); ``options`` as :func:`export_levels` takes them.  Returns how
    many deals were written."""
    text = os.fspath(path)  # as given: Path() would drop a trailing "/"
    target = check_export_target(text)
    _refuse_the_catalogue(catalogue, text, target)
    plan = options.get("plan")
    if plan is not None:
        _check_free_space(target, text, plan.size)
    try:
        if target.exists() and not target.is_file():  # a device or a pipe: written straight into
            with target.open("wb") as out:
                return export_levels(catalogue, out, **options)
        partial = target.with_name(target.name + ".partial")
        try:
            with partial.open("wb") as out:
                count = export_levels(catalogue, out, **options)
            os.replace(partial, target)
        finally:
            if partial.exists():
                partial.unlink()
    except OSError as exc:
        raise ExportTargetError(f"cannot write {text}: {exc.strerror}") from None
    return count


def check_export_target(path: str | os.PathLike[str]) -> Path:
    """The file ``path`` names (through a symlink: it is written through, never replaced), if it can be one —
    else :class:`~whist_catalogue.errors.ExportTargetError`, before any work."""
    text = os.fspath(path)
    target = Path(os.path.realpath(text))
    if target.is_dir():
        raise ExportTargetError(f"cannot write {text}: it is a directory")
    if text.endswith(("/", os.sep)):  # "out.csv/" names a directory (as cp and the shell read it), not out.csv
        raise ExportTargetError(f"cannot write {text}: not a directory")
    if not target.parent.is_dir():
        raise ExportTargetError(f"cannot write {text}: no directory {target.parent}")
    return target


def _check_free_space(target: Path, text: str, size: int) -> None:
    """Refuse a target whose file system cannot hold the estimated size."""
    if target.exists() and not target.is_file():
        return  # a device or a pipe: no space to check
    try:
        free = shutil.disk_usage(target.parent).free
    except OSError:
        return
    if target.is_file():
        free += target.stat().st_size  # replaced once the export is complete
    if size > free:
        raise ExportTargetError(f"cannot write {text}: the export needs about {size / 1e9:,.2f} GB and "
                                f"{target.parent} has {free / 1e9:,.2f} GB free")


def _refuse_the_catalogue(catalogue: LevelSource, text: str, target: Path) -> None:
    """The export would overwrite the catalogue it reads, or one of its side files (under any name: a symlink, a
    hard link): refused, as ``cp`` refuses to copy a file onto itself."""
    path = catalogue.location.path
    if path is None or not target.exists():
        return
    for suffix in ("", "-wal", "-shm", "-journal", ".build-lock"):
        own = path.with_name(path.name + suffix)
        try:
            same = os.path.samefile(own, target)
        except OSError:
            continue
        if same:
            what = "the catalogue" if not suffix else f"the catalogue's {suffix.lstrip('-.')} file"
            raise ExportTargetError(f"cannot write {text}: it is {what} being exported ({own})")


def _arrow_batches(catalogue: LevelSource, levels: Sequence[int], fields: Sequence[str], expression: str | None,
                   limit: int | None) -> Iterator[Any]:
    count = 0
    for raw in _raw_batches(catalogue, levels, fields, expression):
        if limit is not None and count + len(next(iter(raw.values()))) > limit:
            keep = limit - count
            raw = {name: _head(c, keep) for name, c in raw.items()}
        batch = arrow_batch(raw, fields)
        count += batch.num_rows
        yield batch
        if limit is not None and count >= limit:
            return


def _head(column: np.ndarray | Dictionary, size: int) -> np.ndarray | Dictionary:
    return Dictionary(column.codes[:size], column.texts) if isinstance(column, Dictionary) else column[:size]


def _prefetch(batches: Iterator[Any]) -> Generator[Any, None, None]:
    """The batches, computed in a thread two chunks ahead of the writer: the kernels and the compression both
    release the GIL, so the two overlap on two cores.  Memory: three batches.  Closed early, it waits for the
    batch in the making alone."""
    end = object()
    pool = ThreadPoolExecutor(1, thread_name_prefix="export-batches")
    try:
        ahead = deque(pool.submit(next, batches, end) for _ in range(2))
        while (batch := ahead.popleft().result()) is not end:
            ahead.append(pool.submit(next, batches, end))
            yield batch
    finally:
        pool.shutdown(cancel_futures=True)


class _ParquetWriter:
    def __init__(self, pa: Any, out: BinaryIO, fields: Sequence[str]) -> None:
        import pyarrow.parquet as pq

        plain = [name for name in fields if name in ("rank", "key", "label")]
        self._writer = pq.ParquetWriter(
            out, arrow_schema(fields), compression="zstd", compression_level=3,
            use_dictionary=[name for name in fields if name not in plain],  # pyright: ignore[reportArgumentType]  # pyarrow takes a list of columns; its stubs say bool
            # Keys and ranks increase: their differences are small, a few bits a deal.
            column_encoding={name: "DELTA_BINARY_PACKED" for name in plain if name != "label"} or None,
            write_statistics=True,
        )

    def write(self, batch: Any) -> None:
        self._writer.write_batch(batch)

    def close(self) -> None:
        self._writer.close()


class _CsvWriter:
    def __init__(self, pa: Any, out: BinaryIO, fields: Sequence[str]) -> None:
        import pyarrow.csv as csv

        self._pa = pa
        schema = pa.schema([pa.field(f.name, f.type.value_type if pa.types.is_dictionary(f.type) else f.type)
                            for f in arrow_schema(fields)])
        # Nothing the catalogue writes needs quotes (labels, values like `1 + ε₁`, codes, W/E, ASCII names), and
        # unquoted is what every reader expects; Arrow raises rather than write a value that would need them.
        out.write((",".join(fields) + "\n").encode())  # Arrow would quote the names
        self._writer = csv.CSVWriter(out, schema, write_options=csv.WriteOptions(quoting_style="none",
                                                                                 include_header=False))
        self._schema = schema

    def write(self, batch: Any) -> None:
        columns = [c.dictionary_decode() if self._pa.types.is_dictionary(c.type) else c for c in batch.columns]
        self._writer.write_batch(self._pa.RecordBatch.from_arrays(columns, schema=self._schema))

    def close(self) -> None:
        self._writer.close()


class _JsonLinesWriter:
    """One JSON object a deal, built column-wise by Arrow's string kernels (no Python object per deal)."""

    def __init__(self, pa: Any, out: BinaryIO, fields: Sequence[str]) -> None:
        self._pa = pa
        self._out = out
        self._fields = list(fields)

    def write(self, batch: Any) -> None:
        import pyarrow.compute as pc

        pa = self._pa
        parts: list[Any] = []
        for i, name in enumerate(self._fields):
            column = batch.column(i)
            if pa.types.is_dictionary(column.type):
                texts = [json.dumps(t, ensure_ascii=False) for t in column.dictionary.to_pylist()]
                text = pa.array(texts, pa.string()).take(column.indices)
            elif name == "label":
                text = pc.binary_join_element_wise(  # pyright: ignore[reportAttributeAccessIssue]  # generated at import; not in pyarrow's stubs
                '"', column, '"', "")
            else:
                text = pc.cast(column, pa.string())
            parts.append(("{" if i == 0 else ",") + json.dumps(name) + ":")
            parts.append(text)
        parts.append("}\n")
        lines = pc.binary_join_element_wise(*parts, "")  # pyright: ignore[reportAttributeAccessIssue]  # as above
        if len(lines) == 0:
            return
        offsets = np.frombuffer(lines.buffers()[1], np.int32, len(lines) + 1, lines.offset * 4)
        data = lines.buffers()[2]
        self._out.write(memoryview(data)[int(offsets[0]) : int(offsets[-1])])

    def close(self) -> None:
        pass


def _writer(pa: Any, fmt: str, out: BinaryIO, fields: Sequence[str]) -> Any:
    return {"parquet": _ParquetWriter, "csv": _CsvWriter, "jsonl": _JsonLinesWriter}[fmt](pa, out, fields)
