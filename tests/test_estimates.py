"""The engine's estimates of time and memory (engine.plan), the build's (store.build), the one text the command line
and the app say, and Numba's compiles: cached, harmless when the cache fails, announced (theory.jit).

The figures the model's constants come from, and the model against measured peaks, are in docs/benchmarks.md
("The engine's estimates"); here, the model's formulas on given sizes, what the engine really allocates, and the
texts.  No test here is timed.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tracemalloc
from math import comb

import pytest

from catalogue_testing import JIT, run_cli
from whist_catalogue.engine import plan as P
from whist_catalogue.engine.plan import (EnginePlan, build_memory, engine_bound, engine_memory, level_seconds,
                                         plan_levels, read_seconds)
from whist_catalogue.store.build import build, estimate_build
from whist_catalogue.store.reader import open_catalogue
from whist_catalogue.store.records import LevelInfo
from whist_catalogue.theory.jit import PREPARING

C = {n: comb(2 * n, n) for n in range(30)}
MB = 10**6
BUFFERS = (1 << 22) * 6 + (1 << 20) * 10  # a chunk of 4 million deals in hand, and a slice of codes remapped


# -- the model on given sizes -----------------------------------------------------------------------------------


def test_a_levels_time_is_its_deals_times_a_cost_that_grows_with_n_over_the_cores():
    # value: (96 + 7.4 n) ns of CPU a deal (207 at n = 15: 34.7 s measured); a second core adds 0.8 of one
    assert level_seconds(15, cores=1) == pytest.approx(C[15] * 207e-9)
    assert level_seconds(15, cores=2) == pytest.approx(C[15] * 207e-9 / 1.8)
    assert level_seconds(16, cores=4) == pytest.approx(C[16] * 214.4e-9 / 3.4)
    # build: (286 + 14.8 n) ns a deal, every deal with the checks, encoded, packed and committed
    assert level_seconds(15, build=True, cores=2) == pytest.approx(C[15] * 508e-9 / 1.8)
    assert read_seconds(14) == pytest.approx(C[14] * 20e-9)
    seeded = EnginePlan(15, (15,), 14, 2)
    assert seeded.seconds == pytest.approx(read_seconds(14) + level_seconds(15, cores=2))
    assert P.duration(seeded.seconds) == "19 s"  # 20.1 s in process, 24.1 s the whole command (docs/benchmarks.md)
    assert P.duration(level_seconds(15, build=True, cores=2)) == "44 s"  # the app built it in 53.7 s


def test_the_engines_memory_is_every_level_it_keeps_the_chunk_in_hand_and_the_process():
    # value of a level-15 deal from a catalogue to 14: levels 14 and 15 at 2 bytes a deal
    assert engine_memory((15,), (), 14) == 210 * MB + 2 * (C[14] + C[15]) + C[14] + BUFFERS  # 676 MB; 610 measured
    assert plan_levels(15, frozenset({0}), 14).memory == engine_memory((15,), (), 14)
    # from nothing, every level is kept; levels held already count too
    assert engine_memory((1, 2, 3), ()) == 210 * MB + 2 * (2 + 6 + 20) + 20 * 6 + 20 * 10  # no seed: nothing read
    assert engine_memory((14,), (1, 13)) == 210 * MB + 2 * (2 + C[13] + C[14]) + BUFFERS
    assert plan_levels(16, frozenset({0}), 15).describe() == (
        "reading level 15 from the catalogue, then computing level 16 (601 million deals): about 75 s and "
        "1.9 GB of memory")  # 1,837 MB measured


def test_the_builds_memory_peaks_where_a_level_is_assembled_from_its_chunks():
    # levels 1–16: level 15 ends holding level 14, its chunks' codes and the assembled level 15
    assert build_memory(tuple(range(1, 17))) == 210 * MB + 2 * C[14] + 4 * C[15] + (1 << 22) * 6  # 936 MB; 864 measured
    # level 16 alone, resumed: level 15 read back (5 bytes a deal at once), then held while 16 is valued
    assert build_memory((16,)) == 210 * MB + 5 * C[15]  # 986 MB; 1,020 MB measured
    assert build_memory((18,)) == 210 * MB + 5 * C[17]  # 11.9 GB; 11.7 GB measured (docs/level-store.md)
    assert build_memory((17, 18)) == 210 * MB + 2 * C[16] + 4 * C[17] + (1 << 22) * 6  # 10.8 GB; 11.7 measured


def test_the_engines_reach_is_the_largest_plan_from_nothing_within_half_the_memory():
    peak_17 = engine_memory(tuple(range(1, 18)))
    assert engine_bound(2 * peak_17) == 17 and engine_bound(2 * peak_17 - 2) == 16
    assert engine_bound(24 * 2**30) == 17  # the README's "n ≤ 17 on a 24 GiB machine"
    assert engine_bound(2 * 2**30) == 15 and engine_bound(2**70) == 25  # 25: the exact encoding's bound
    assert 6.2e9 < peak_17 < 7e9


# -- the engine allocates what the model says ---------------------------------------------------------------------


@pytest.mark.skipif(not JIT, reason="the kernels' own arrays are the same, but plain Python is too slow at n = 13")
def test_valuing_a_level_allocates_its_codes_and_the_chunk_in_hand_not_8_bytes_a_deal_more():
    """A level's provisional codes became final by np.take over the whole level, which widened every code to
    an 8-byte index first: 2.1 GB at n = 15 where the plan said 390 MB."""
    from whist_catalogue.engine.levels import Level, compute_level

    previous = Level.empty()
    for n in range(1, 13):
        previous = compute_level(n, previous, symmetry=True)
    tracemalloc.start()
    try:
        level = compute_level(13, previous, symmetry=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert level.codes.nbytes == 2 * C[13]
    model = engine_memory((13,), (12,)) - P.PROCESS_BYTES - 2 * C[12]  # what valuing level 13 adds
    assert 2 * C[13] < peak <= model, (peak, model)


# -- the build's estimate -----------------------------------------------------------------------------------------


RECORDED = {11: 24_915, 12: 83_058, 13: 285_826, 14: 1_005_721, 15: 3_555_796, 16: 12_705_511}
"""level.stored_bytes of a build to n = 16 (docs/benchmarks.md, "Per level")."""


def _recorded(n: int, seconds: float) -> LevelInfo:
    return LevelInfo(n, True, C[n], None, None, None, seconds, RECORDED.get(n, C[n] // 20))


def test_the_build_estimate_comes_from_the_model_not_from_a_recorded_time():
    """Level 14's record held a first run's compile on a loaded machine: extrapolated, it said "about 3 min" for
    level 15, built in 53.7 s."""
    slow = estimate_build([_recorded(n, 136.1 if n == 14 else 1.0) for n in range(1, 15)], 15)
    quick = estimate_build([_recorded(n, 9.0 if n == 14 else 0.1) for n in range(1, 15)], 15)
    assert slow.seconds == quick.seconds == pytest.approx(level_seconds(15, build=True) + 0.03)
    assert slow.levels == (15,) and slow.measured and 3_555_796 <= slow.bytes <= 1.15 * 3_555_796
    assert slow.memory == build_memory((15,))
    two = estimate_build([_recorded(n, 1.0) for n in range(1, 11)], 12, games=True)
    assert two.seconds == pytest.approx(2.0 + sum(level_seconds(n, build=True) + 0.03 for n in (11, 12)))
    fresh = estimate_build([], 10)
    assert fresh.seconds == pytest.approx(sum(level_seconds(n, build=True) + 0.03 for n in range(1, 11)))


def test_the_build_estimate_of_disk_is_the_top_levels_recorded_size_a_deal():
    to_14 = [_recorded(n, 1.0) for n in range(1, 15)]
    two = estimate_build(to_14, 16)
    real = RECORDED[15] + RECORDED[16]
    assert two.levels == (15, 16) and real <= two.bytes <= 1.25 * real  # recorded 16.3 MB
    empty = estimate_build([], 16)
    assert not empty.measured and empty.bytes == pytest.approx(0.035 * sum(C[n] for n in range(1, 17)))
    nothing = estimate_build(to_14, 14)
    assert nothing.levels == () and nothing.bytes == 0 and nothing.seconds == 0 and nothing.memory == 0


def test_the_build_estimate_in_words():
    one = estimate_build([_recorded(n, 1.0) for n in range(1, 15)], 15)
    assert one.describe() == (f"155,117,520 deals to value and store (level 15): about {P.duration(one.seconds)}, "
                              f"{P.amount(one.bytes)} of disk and {P.amount(one.memory)} of memory")
    assert "the sizes this catalogue records" in one.basis() and P.CALIBRATED_ON in one.basis()
    assert P.amount(3_555_796) == "3.6 MB" and P.amount(390e6) == "390 MB" and P.amount(1.62e9) == "1.6 GB"


def test_the_command_line_and_the_app_say_the_same_build_estimate(qtbot, tmp_path):
    from gui_support import make_window

    db = tmp_path / "c.sqlite"
    build(str(db), 8 if JIT else 5, games=False)
    target = 11 if JIT else 7
    with open_catalogue(str(db)) as catalogue:
        said = estimate_build(catalogue.levels(), target).describe()
    window = make_window(qtbot, db)
    status = window.show_view("status")
    status.games.setChecked(False)
    status.max_n.setValue(target)
    assert said in status.plan_label.text()
    window.close()
    code, _, err = run_cli("build", "--max-n", str(target), "--no-games", "--db", str(db))
    assert code == 0 and f"whist-catalogue: {said}; Ctrl+C stops it" in err, err


def test_the_command_line_and_the_app_say_the_same_engine_plan(tmp_path):
    from whist_catalogue.engine.levels import EngineSolver, Level
    from whist_catalogue.gui.workers import with_engine_progress
    from whist_catalogue.theory.deals import Deal

    db = tmp_path / "c.sqlite"
    build(str(db), 7, games=False)
    deal = "EW" * 9
    with open_catalogue(str(db)) as catalogue:
        said = plan_levels(9, frozenset({0}), 7).describe()
        seed = (lambda: Level(7, *catalogue.level_values(7)))
        steps: list = []
        with_engine_progress(EngineSolver(seed=seed, seed_n=7).value, Deal.from_label(deal),
                             abort_requested=lambda: False, report_progress=steps.append)
    assert steps[0].text == f"Not in the catalogue: {said}"  # the app's line (gui.workers)
    code, _, err = run_cli("value", deal, "--db", str(db))
    assert code == 0 and f"not in the catalogue: {said}. Ctrl+C cancels" in err, err


# -- Numba: cached, harmless, announced ----------------------------------------------------------------------------


def _cli(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "whist_catalogue", *argv], capture_output=True, text=True,
                          timeout=600, env={**os.environ, **env}, check=False)


@pytest.mark.skipif(not JIT, reason="with NUMBA_DISABLE_JIT=1 nothing compiles")
def test_a_cold_cache_is_announced_and_level_1_is_not_charged_with_the_compile(tmp_path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"), "WHIST_CATALOGUE_DB": str(tmp_path / "none.sqlite")}
    db = tmp_path / "c.sqlite"
    cold = _cli("build", "--max-n", "3", "--no-games", "--db", str(db), env=env)
    assert cold.returncode == 0, cold.stderr
    assert f"whist-catalogue: {PREPARING} …" in cold.stderr
    with sqlite3.connect(db) as connection:
        level_1 = connection.execute("select build_seconds from level where n = 1").fetchone()[0]
    ready = next(line for line in cold.stderr.splitlines() if line.startswith("engine ready in"))
    assert level_1 < 0.1 * max(1, int(ready.split()[3]))  # the compile went before level 1, not into it
    # a second process loads what the first compiled, the engine's mirror shortcut included: not a word
    warm = _cli("value", "EW" * 9, env=env)
    assert warm.returncode == 0 and "preparing" not in warm.stderr, warm.stderr
    assert any((tmp_path / "numba-cache").rglob("*.nbi"))


def test_a_listener_hears_a_compile_once_and_a_cache_that_cannot_be_placed_costs_nothing_else():
    """A kernel whose source is no file can be cached nowhere (Numba raises "no locator available"): it is
    compiled in memory, and every call in a new process compiles again."""
    from whist_catalogue.theory.jit import announcing, kernel

    namespace: dict = {}
    exec("def twice(x):\n    return 2 * x\n\ndef thrice(x):\n    return 3 * x\n", namespace)
    twice, thrice = kernel(namespace["twice"]), kernel(namespace["thrice"])
    heard: list[str] = []
    with announcing(heard.append):
        assert twice(21) == 42 and thrice(2) == 6  # two compiles, one announcement
        assert twice(4) == 8
    assert heard == ([PREPARING] if JIT else [])
    with announcing(None):
        assert twice(1.5) == 3.0  # a new signature compiles, and no one is told


@pytest.mark.skipif(not JIT, reason="with NUMBA_DISABLE_JIT=1 there is no cache")
def test_a_cache_that_cannot_be_read_or_written_costs_a_compile_not_a_failure(tmp_path):
    module = tmp_path / "kernels_here.py"
    module.write_text("from whist_catalogue.theory.jit import kernel\n\n@kernel\ndef twice(x):\n    return 2 * x\n")
    script = (
        "import os, shutil, sys\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "import kernels_here\n"
        "path = kernels_here.twice._cache.cache_path\n"
        "shutil.rmtree(path)\n"
        "open(path, 'w').close()  # the cache folder is now a file: neither read nor written\n"
        "print(kernels_here.twice(21))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0 and done.stdout == "42\n", done.stderr
    # no place for a cache at all: Numba refuses to decorate the kernel unless it is compiled uncached
    env = {**os.environ, "NUMBA_CACHE_DIR": "/proc/no-cache-here",
           "NUMBA_CACHE_LOCATOR_CLASSES": "UserProvidedCacheLocator"}
    done = subprocess.run([sys.executable, "-c", "from whist_catalogue.theory.ranking import level_masks;"
                           "print(len(level_masks(6)))"], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0 and done.stdout == "924\n", done.stderr
