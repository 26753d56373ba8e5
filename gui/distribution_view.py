"""The Distributions view: the exact outcome distribution over every deal with suits of given sizes.

Theorem 9.1 of the multi-suit paper over the per-level value counts
(:func:`whist_catalogue.store.distributions.distribution`; ``docs/distributions.md``), computed in a
worker (:class:`~whist_catalogue.gui.workers.LatestOnly`: only the latest request's answer is shown) and
shown as the command line shows it — :meth:`~whist_catalogue.theory.distribution.OutcomeDistribution.headline`
and :meth:`~whist_catalogue.theory.distribution.OutcomeDistribution.summary` — with every outcome's
probability, and drawn by :func:`whist_catalogue.theory.distribution.draw_distribution`.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_API", "pyside6")

from PySide6.QtCore import Qt, Slot  # noqa: E402
from PySide6.QtWidgets import QLabel, QLineEdit, QVBoxLayout  # noqa: E402

from whist_catalogue.gui.context import AppContext  # noqa: E402
from whist_catalogue.gui.solutions import PlotPanel, grid_view  # noqa: E402
from whist_catalogue.gui.widgets import (  # noqa: E402
    WorkerView, button, examples_button, fit_height, row, split, stacked, wrapped,
)
from whist_catalogue.store.distributions import distribution, parse_sizes, shipped_counts  # noqa: E402
from whist_catalogue.theory.distribution import OutcomeDistribution, draw_distribution  # noqa: E402

__all__ = ["DistributionView", "compute_distribution", "EXAMPLES"]

EXAMPLES = (
    ("4,4,3,2", "four short suits: 588,000 deals"),
    ("13,13,13,13", "four suits of 13 cards a hand"),
    ("16,16,16,16", "four suits of 16: 1.3 × 10³⁵ deals"),
    ("2,2,2,2,2,2,2,2", "eight suits of 2: the leader is favoured"),
    ("8,7,6,5,4,3,2,1", "eight suits of different sizes"),
)


def compute_distribution(text: str, location: str | None) -> OutcomeDistribution:
    """The distribution for suit sizes as typed; a catalogue at ``location`` supplies levels not shipped."""
    sizes = parse_sizes(text)
    if location is not None and any(shipped_counts(n) is None for n in set(sizes)) and os.path.exists(location):
        from whist_catalogue.store.reader import open_catalogue

        with open_catalogue(location) as catalogue:
            return distribution(sizes, "auto", catalogue)
    return distribution(sizes)


class DistributionView(WorkerView):
    """Suit sizes in, the exact probability of every outcome out: a table, a summary and a plot."""

    TITLE = "Distributions"

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.result: OutcomeDistribution | None = None
        self.input = QLineEdit("4,4,3,2")
        self.input.setToolTip("cards a hand of each suit, separated by commas (each suit dealt uniformly)")
        self.input.returnPressed.connect(self.compute)
        label = QLabel("&Suit sizes:")
        label.setBuddy(self.input)
        self.compute_button = button("&Compute", "", self.compute)
        self.summary = wrapped()
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # What follows from the counts, as the command line says it: exact fractions can be long, so a grid
        # (which scrolls) rather than a label (which would be clipped in a small window).
        self.findings, self.findings_view = grid_view(self)
        self.findings_view.setToolTip("expectations and probabilities over every deal, exact and to six decimals")
        self.table, self.table_view = grid_view(self)
        self.table_view.verticalHeader().hide()
        self.plot = PlotPanel(8, 4.5)
        controls = row(label, self.input, examples_button(EXAMPLES, self.set_sizes), self.compute_button,
                       stretch=self.input)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.message)
        right = stacked(self.summary, self.findings_view, self.table_view, stretch=self.table_view)
        layout.addWidget(split(self.plot, right, sizes=(680, 640)), 1)

    def showEvent(self, event) -> None:  # Qt override
        super().showEvent(event)
        if self.result is None and not self.busy:  # opened on its example: its answer, not two blank panes
            self.compute()

    def set_sizes(self, text: str) -> None:
        self.input.setText(text)
        self.compute()

    @Slot()
    def compute(self) -> None:
        self.message.show_info(f"Convolving the value counts of suits {self.input.text().strip()} …")
        # A newer request drops this one's answer.
        self.task.run(compute_distribution, self.input.text(), self.context.location)

    def _loaded(self, result: OutcomeDistribution) -> None:
        self.result = result
        self.message.clear_message()
        self.summary.setText(result.headline())
        findings = result.summary()
        self.findings.set_grid([[f"{float(q):.6f}", str(q)] for _, q in findings], [what for what, _ in findings],
                               ["≈", "exact"])
        fit_height(self.findings_view)
        cells = [[str(o.west_leads), str(o.east_leads), f"{c:,}", f"{float(p):.6g}", str(p)]
                 for (o, c), p in zip(result.counts.items(), result.probabilities().values())]
        self.table.set_grid(cells, column_headers=["West leads", "East leads", "deals", "probability", "exact"])
        self.table_view.resizeColumnsToContents()
        try:
            draw_distribution(self.plot.figure, result)
        except Exception as exc:  # noqa: BLE001 - a plotting failure is a message, not a crash
            self.message.show_error(f"could not draw the figure: {exc}")
        self.plot.redraw()
        self.loaded.emit()

    # -- screenshots -----------------------------------------------------------------------------
    def load_example(self) -> None:
        self.set_sizes("13,13,13,13")
