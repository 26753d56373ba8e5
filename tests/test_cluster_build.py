"""``build --cluster``: the level store's chunks valued on a Dask cluster are the chunks of the in-process build."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest
from catalogue_testing import run_cli
from distributed import Client, LocalCluster

from whist_catalogue.engine import chunks
from whist_catalogue.engine.cluster import chunk_computer
from whist_catalogue.store import build as store_build
from whist_catalogue.store.build import build


def _stored(path) -> tuple[list, list]:
    with sqlite3.connect(path) as db:
        return (db.execute("SELECT n, chunk, start, stop, data, checksum FROM level_chunk ORDER BY n, chunk").fetchall(),
                db.execute("SELECT n, complete, row_count, value_table, statistics FROM level ORDER BY n").fetchall())


def test_build_on_a_cluster_stores_the_same_chunks(tmp_path, monkeypatch):
    # Small chunks, so that a level is many tasks on the cluster.
    monkeypatch.setattr(chunks, "CHUNK_DEALS", 1 << 12)
    monkeypatch.setattr(store_build, "CHUNK_DEALS", 1 << 12)
    build(tmp_path / "here.sqlite", 9, games=False)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      memory_limit=0) as cluster, Client(cluster) as client:
        build(tmp_path / "there.sqlite", 9, games=False, compute_chunks=chunk_computer(client, tmp_path / "work"))
    here, there = _stored(tmp_path / "here.sqlite"), _stored(tmp_path / "there.sqlite")
    assert len(here[0]) == sum(-(-n // (1 << 12)) for n in (2, 6, 20, 70, 252, 924, 3432, 12870, 48620))
    assert here == there
    assert not list((tmp_path / "work").iterdir())  # level n − 1's file is removed after each level


def test_build_cli_with_cluster(tmp_path):
    db = tmp_path / "c.sqlite"
    argv = ["build", "--max-n", "6", "--no-games", "--no-progress", "--json", "--db"]
    result = subprocess.run([sys.executable, "-m", "whist_catalogue", *argv, str(db), "--cluster", "local:2"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["max_n"] == 6
    # The in-process build through the same command line, in this process: no second interpreter to start.
    reference = tmp_path / "r.sqlite"
    code, _, err = run_cli(*argv, str(reference))
    assert code == 0, err
    assert _stored(db)[0] == _stored(reference)[0]


@pytest.mark.parametrize("extra, words", [(["--cluster", "frob"], "tcp://HOST:PORT"), (["--workdir", "w"], "--cluster")])
def test_build_bad_cluster_options_change_nothing(tmp_path, extra, words):
    db = tmp_path / "c.sqlite"
    result = subprocess.run([sys.executable, "-m", "whist_catalogue", "build", "--max-n", "3", "--db", str(db), *extra],
                            capture_output=True, text=True, cwd=tmp_path)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and words in lines[0], result.stderr
    assert not db.exists() and not (tmp_path / "w").exists()
