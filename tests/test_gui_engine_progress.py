"""The app's bar while the engine values a deal beyond the catalogue: busy when there is nothing to count."""

from math import comb

from whist_catalogue.engine.plan import plan_levels
from whist_catalogue.gui.widgets import BusyBar
from whist_catalogue.gui.workers import EngineStep, _EngineWatch


def test_reading_the_seed_level_and_assembling_the_answer_are_busy_not_0_or_100_percent(qtbot):
    steps: list[EngineStep] = []
    watch = _EngineWatch(lambda: False, steps.append)
    plan = plan_levels(15, frozenset(), seed=14)  # level 14 read from the catalogue, then level 15
    watch.planned(plan)
    watch.progress(15, comb(30, 15) // 2, comb(30, 15))
    watch.progress(15, comb(30, 15), comb(30, 15))
    assert [(s.done, s.total) for s in steps] == [(0, 0), (comb(30, 15) // 2, comb(30, 15)), (comb(30, 15), 0)]
    bar = BusyBar()
    qtbot.addWidget(bar)
    bar.start("Valuing")
    for step, (low, high) in zip(steps, [(0, 0), (0, 1000), (0, 0)]):
        bar.set_progress(step.done, step.total)
        assert (bar.bar.minimum(), bar.bar.maximum()) == (low, high)  # (0, 0): Qt's busy bar
    bar.set_progress(1, 2)
    assert bar.bar.value() == 500
