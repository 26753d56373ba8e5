"""The catalogue as a dataset (docs/dataset.md): a level as columns, and exports to Parquet, CSV and JSON Lines
checked row by row against the catalogue's own look-ups, and read back by DuckDB and pandas."""

from __future__ import annotations

import io
import json
from math import comb
from pathlib import Path

import numpy as np
import pytest
from catalogue_testing import run_cli

from whist_catalogue.engine.levels import CHECK_NAMES
from whist_catalogue.store.fields import DEFAULT_COLUMNS, labels, resolve_columns
from whist_catalogue.store.reader import open_catalogue
from whist_catalogue.theory.deals import Deal

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

N = 10


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    from whist_catalogue.store.build import build

    path = tmp_path_factory.mktemp("dataset") / "catalogue.sqlite"
    build(str(path), N, games=False)
    return path


@pytest.fixture(scope="module")
def level_parquet(built, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("export") / f"level{N}.parquet"
    code, _, err = run_cli("export", "--level", str(N), "--format", "parquet", "--columns", "all", "--db", str(built),
                           "-o", str(target))
    assert code == 0, err
    assert "exported" in err
    return target


def test_level_10_parquet_equals_the_reference_row_by_row(built, level_parquet):
    """Every exported row is what the build's own kernels compute without the catalogue: level 10 by the engine
    (values and check bits) and by the single-suit paper's level kernel (the quantities), column by column (all
    184,756 deals); and the full record of every 499th deal through ``Catalogue.record``."""
    from whist_catalogue.engine.levels import levels
    from whist_catalogue.single_suit.formulas import level_quantities

    table = pq.read_table(level_parquet)
    assert table.num_rows == comb(2 * N, N)
    assert table.column_names == list(resolve_columns("all"))
    assert str(table.schema.field("value").type) == "dictionary<values=string, indices=int16, ordered=0>"
    assert table.schema.field("h").type == pa.int8()
    got = {name: table.column(name).to_numpy(zero_copy_only=False) for name in table.column_names}
    *_, level = levels(N, checks=True)
    q = level_quantities(N)
    values = level.table.values()
    value = [values[c] for c in level.codes.tolist()]
    player = lambda west: np.where(west, "W", "E")  # noqa: E731
    expected = {
        "rank": np.arange(comb(2 * N, N)), "key": q.masks | (1 << 2 * N), "n": np.full(comb(2 * N, N), N),
        "value": [v.text() for v in value], "infinitesimal": [v.infinitesimal.code for v in value],
        "numerator": [v.number.numerator for v in value], "denominator": [v.number.denominator for v in value],
        "inf_sign": [v.infinitesimal.sign for v in value], "stoppers": [abs(v.infinitesimal.index) for v in value],
        "west_leads": level.outcomes()[0], "east_leads": level.outcomes()[1], "h_lower": q.h_lower,
        "h_upper": q.h_upper, "h": q.h, "greedy_west_leads": q.greedy_west_leads, "greedy_east_leads": q.greedy_east_leads,
        "five_card_west_leads": player(q.five_card_west_wins_west_leads),
        "five_card_east_leads": player(q.five_card_west_wins_east_leads), "ace": player(q.ace_west),
        **{f"counterexample_{c}": level.flags >> k & 1 == 1 for k, c in enumerate(CHECK_NAMES)},
    }
    assert level.flags is not None and set(expected) == set(got) - {"label"}
    for name, column in expected.items():
        assert np.array_equal(got[name], np.asarray(column)), name
    assert list(got["label"][:3]) == [Deal(N, int(m)).label for m in q.masks[:3]]
    with open_catalogue(built) as cat:
        for i in range(0, comb(2 * N, N), 499):
            r = cat.record(Deal.from_label(got["label"][i]))
            assert (r.key, r.value.text(), r.h, r.ace, r.five_card[0]) == (
                got["key"][i], got["value"][i], got["h"][i], got["ace"][i], got["five_card_west_leads"][i])


def test_duckdb_answers_a_conjecture_query_as_search_count(built, level_parquet):
    """docs/dataset.md's DuckDB queries count what ``search --count`` counts (docs/search.md)."""
    duckdb = pytest.importorskip("duckdb")
    queries = {
        # Conjecture 12.3, docs/search.md: no counterexample.
        "inf = 0 and frac != 0 and not (frac * denominator = 1 or frac * denominator = denominator - 1"
        " or frac in (3/8, 5/8))":
        "infinitesimal = '0' AND denominator > 1 AND NOT (numerator % denominator IN (1, denominator - 1)"
        " OR (denominator = 8 AND numerator % 8 IN (3, 5)))",
        "greedy != outcome": "greedy_west_leads != west_leads OR greedy_east_leads != east_leads",
        "h != h_upper": "h != h_upper",
        "holdup": "counterexample_conjecture_12_4_labeled",
        "counterexample(any)": "counterexample_conjecture_12_2 OR counterexample_conjecture_12_3 OR "
        "counterexample_conjecture_12_4 OR counterexample_theorem_8_10 OR counterexample_theorem_9_4",
    }
    counts = []
    for search, sql in queries.items():
        code, out, err = run_cli("search", "--count", f"({search}) and n = {N}", "--db", str(built))
        assert code == 0, err
        found = duckdb.connect().execute(f"SELECT count(*) FROM '{level_parquet}' WHERE {sql}").fetchall()[0][0]
        assert found == int(out), search
        counts.append(found)
    assert counts[0] == 0 and counts[2] > 0 and counts[3] > 0  # not all trivially zero


def test_level_as_numpy_pandas_arrow_and_batches(built):
    with open_catalogue(built) as cat:
        arrays = cat.level(N)
        frame = cat.level(N, "key,label,value,h", to="pandas")
        table = cat.level(N, ["key", "ace", "counterexamples"], to="arrow")
        batches = list(cat.level_batches(9, "rank,key", where="ace = W"))
        held = cat.level(N, "key,value", where="frac = 3/8")
        assert len(held["key"]) == cat.count("frac = 3/8", level=N) > 0
        deal = Deal.from_label(str(arrays["label"][12345]))
        assert cat.value(deal).text() == arrays["value"][12345]
    assert tuple(arrays) == DEFAULT_COLUMNS and arrays["h"].dtype == np.int8 and len(arrays["key"]) == comb(20, 10)
    assert frame["value"].dtype == "category" and list(frame["key"]) == list(arrays["key"])
    assert table.num_rows == comb(20, 10) and table.column_names[2:] == [f"counterexample_{c}" for c in CHECK_NAMES]
    assert sum(len(b["key"]) for b in batches) == comb(18, 9) // 2  # West holds the ace in half the deals
    assert all(np.all(b["key"] >> 17 & 1) for b in batches)
    assert all(v.endswith("3/8") for v in held["value"])


def test_labels_and_best_leads_against_the_records(built):
    """The byte-table labels and the α-derived best leads (card masks) equal the records' own, deal by deal."""
    from whist_catalogue.theory.ranking import level_masks

    masks = level_masks(7)
    assert [bytes(row).decode() for row in labels(7, masks[:500])] == [Deal(7, int(m)).label for m in masks[:500]]
    with open_catalogue(built) as cat:
        got = cat.level(7, "label,best_leads")
        records = cat.search(level=7)
    for label, west, east, r in zip(got["label"], got["best_leads_west"], got["best_leads_east"], records):
        assert label == r.label
        leads = r.best_leads()
        assert int(west) == sum(1 << (int(c) - 1) for c in leads["west"]), label
        assert int(east) == sum(1 << (int(c) - 1) for c in leads["east"]), label


def test_jsonl_is_exactly_the_deals_and_csv_columns_are_numbers(built, tmp_path):
    pd = pytest.importorskip("pandas")
    code, out, err = run_cli("export", "--level", "6", "--json", "--db", str(built))
    assert code == 0, err
    frame = pd.read_json(io.StringIO(out), lines=True)
    assert len(frame) == comb(12, 6) and list(frame.columns) == list(DEFAULT_COLUMNS)
    assert json.loads(out.splitlines()[0])["label"] == "WWWWWWEEEEEE"
    target = tmp_path / "search.csv"
    code, _, err = run_cli("export", "h != h_upper", "--columns", "key,label,value,numerator,h,h_upper,ace",
                           "--db", str(built), "-o", str(target))
    assert code == 0, err
    frame = pd.read_csv(target)
    with open_catalogue(built) as cat:
        assert len(frame) == cat.count("h != h_upper")
    for name in ("key", "numerator", "h", "h_upper"):
        assert frame[name].dtype.kind == "i", name
    assert (frame["h"] != frame["h_upper"]).all()
    assert list(frame["key"]) == sorted(frame["key"])  # key order across levels


def test_export_plan_estimates_before_any_work(built):
    from whist_catalogue.store.dataset import export_plan

    with open_catalogue(built) as cat:
        plan = export_plan(cat, "parquet", DEFAULT_COLUMNS, level=N)
        assert (plan.levels, plan.deals, plan.exact) == ([N], comb(2 * N, N), True)
        assert plan.describe().startswith(f"exporting {comb(2 * N, N):,} deals of level {N}: about ")
        bound = export_plan(cat, "csv", DEFAULT_COLUMNS, expression="h != h_upper and n >= 9")
        assert (bound.levels, bound.deals, bound.exact) == ([9, 10], comb(18, 9) + comb(20, 10), False)
        assert "at most" in bound.describe() and bound.size > 50 * bound.deals  # CSV: tens of bytes a deal


def test_export_refuses_bad_requests_with_exit_2(built, tmp_path):
    from whist_catalogue.errors import ExportTargetError
    from whist_catalogue.store.dataset import export_plan, export_to_file

    target = tmp_path / "x.parquet"
    for argv, message in [(["--columns", "key,nope"], "unknown column 'nope'"),
                          (["--format", "parquet"], "needs --output"),
                          (["--level", "11", "-o", str(target)], "level 11 is not complete")]:
        code, out, err = run_cli("export", "--db", str(built), *argv)
        assert code == 2 and message in err and out == ""
    assert not target.exists()
    with open_catalogue(built) as cat:
        plan = export_plan(cat, "csv", DEFAULT_COLUMNS)
        plan.size = 1 << 62
        with pytest.raises(ExportTargetError, match="the export needs about"):
            export_to_file(cat, target, plan=plan)
    assert not target.exists()


def test_the_old_deal_table_from_an_export_and_duckdb(built, tmp_path):
    """docs/dataset.md's recipe for the dropped ``deal`` table, run as written on levels 1…4: every row equals
    what the rows held (the reference computed without the catalogue)."""
    import re
    import sqlite3

    pytest.importorskip("duckdb")
    from catalogue_testing import reference_records

    text = (Path(__file__).resolve().parents[1] / "docs" / "dataset.md").read_text()
    code = re.search(r"## The old `deal` table.*?```python\n(.*?)```", text, re.S).group(1)
    parquet = tmp_path / "deals.parquet"
    status, _, err = run_cli("export", "n <= 4", "--format", "parquet", "--columns", "all,best_leads",
                             "--db", str(built), "-o", str(parquet))
    assert status == 0, err
    exec(code.replace("'deals.parquet'", repr(str(parquet))).replace('"deals.sqlite"', repr(str(tmp_path / "d.sqlite"))),
         {})
    with sqlite3.connect(tmp_path / "d.sqlite") as db:
        rows = db.execute("SELECT key, number_scaled, fraction_scaled, inf_sign, stoppers, h, ace, flags,"
                          " best_leads_west FROM deal ORDER BY key").fetchall()
    db.close()
    expected = [(r.key, int(r.value.number * (1 << 24)), int(r.value.number % 1 * (1 << 24)), r.value.infinitesimal.sign,
                 abs(r.value.infinitesimal.index), r.h, r.ace, r.flags,
                 sum(1 << (c - 1) for c in r.solution.west_leads)) for r in reference_records(4)]
    assert rows == expected


def test_a_missing_folder_is_refused_before_any_estimate(built, tmp_path, capsys, monkeypatch):
    """``export -o /nonexistent/dir/x.csv``: the refusal is the one line, not an estimate of work that will not
    happen followed by it (every export here announces its estimate)."""
    from whist_catalogue.scripts import catalogue_commands
    from whist_catalogue.scripts.main import main

    monkeypatch.setattr(catalogue_commands, "ESTIMATE_SECONDS", 0.0)
    assert main(["export", "--db", str(built), "--level", "5", "-o", str(tmp_path / "out.csv"), "--no-progress"]) == 0
    assert capsys.readouterr().err.startswith("exporting ")  # the estimate, when the export goes ahead
    missing = tmp_path / "nowhere" / "x.csv"
    assert main(["export", "--db", str(built), "--level", "5", "-o", str(missing), "--no-progress"]) == 2
    assert capsys.readouterr().err == f"whist-catalogue: error: cannot write {missing}: no directory {missing.parent}\n"


def test_the_page_of_fields_is_the_registrys():
    """docs/fields.md lists every field as the registry has it (search names, export columns, types, meanings):
    a field added to catalogue/store/fields.py without regenerating the page fails here."""
    from whist_catalogue.scripts.reports.fields import COMMAND, PAGE, page

    written = PAGE.read_text()
    assert written == page(), f"docs/fields.md is stale: run {COMMAND}"
    assert "| `frac` (`fraction`, `fractional`) | number | — | — | the fractional part q − ⌊q⌋ |" in written
    assert "| — | — | `best_leads_west` | uint32 |" in written
