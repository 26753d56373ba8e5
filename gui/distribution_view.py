"""The Distributions view: the exact outcome distribution over every deal with suits of given sizes.

Theorem 9.1 of the multi-suit paper over the per-level value counts
(:func:`whist_catalogue.store.distributions.distribution`; ``docs/distributions.md``), computed in a
worker and drawn by :func:`whist_catalogue.theory.distribution.draw_distribution`.  A newer request
supersedes an older one: only the latest answer is shown.
"""

from __future__ import annotations

import os
from fractions import Fraction

os.environ.setdefault("QT_API", "pyside6")

from PySide6.QtCore import Qt, Signal, Slot  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from whist_catalogue.gui.context import AppContext  # noqa: E402
from whist_catalogue.gui.models import GridModel  # noqa: E402
from whist_catalogue.gui.solutions import PlotPanel  # noqa: E402
from whist_catalogue.gui.widgets import CopyTableView, MessageBar, error_text, examples_button, fit_table  # noqa: E402
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


def _fraction(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


class DistributionView(QWidget):
    """Suit sizes in, the exact probability of every outcome out: a table, a summary and a plot."""

    TITLE = "Distributions"
    computed = Signal()

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.result: OutcomeDistribution | None = None
        self.busy = False
        self._generation = 0
        self.input = QLineEdit("4,4,3,2")
        self.input.setToolTip("cards a hand of each suit, separated by commas (each suit dealt uniformly)")
        self.input.returnPressed.connect(self.compute)
        label = QLabel("&Suit sizes:")
        label.setBuddy(self.input)
        self.compute_button = QPushButton("&Compute")
        self.compute_button.clicked.connect(self.compute)
        examples = examples_button(EXAMPLES, self.set_sizes)
        self.message = MessageBar()
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = GridModel(self)
        self.table_view = CopyTableView()
        self.table_view.setModel(self.table)
        fit_table(self.table_view)
        self.table_view.verticalHeader().hide()
        self.plot = PlotPanel(8, 4.5)

        controls = QHBoxLayout()
        controls.addWidget(label)
        controls.addWidget(self.input, 1)
        controls.addWidget(examples)
        controls.addWidget(self.compute_button)
        right = QVBoxLayout()
        right.addWidget(self.summary)
        right.addWidget(self.table_view, 1)
        holder = QWidget()
        holder.setLayout(right)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.plot)
        split.addWidget(holder)
        split.setSizes([760, 560])
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.message)
        layout.addWidget(split, 1)

    def showEvent(self, event) -> None:  # Qt override
        super().showEvent(event)
        if self.result is None and not self.busy:  # opened on its example: its answer, not two blank panes
            self.compute()

    def set_sizes(self, text: str) -> None:
        self.input.setText(text)
        self.compute()

    @Slot()
    def compute(self) -> None:
        self._generation += 1
        generation = self._generation
        self.busy = True
        self.message.show_info(f"Convolving the value counts of suits {self.input.text().strip()} …")
        location = self.context.location
        self.context.run(
            compute_distribution,
            self.input.text(),
            location,
            returned=lambda result: self._shown(generation, result),
            errored=lambda exc: self._failed(generation, exc),
        )

    def _failed(self, generation: int, exc: Exception) -> None:
        if generation != self._generation:
            return
        self.busy = False
        self.message.show_error(error_text(exc))
        self.computed.emit()

    def _shown(self, generation: int, result: OutcomeDistribution) -> None:
        if generation != self._generation:
            return  # a newer request is on its way
        self.busy = False
        self.result = result
        self.message.clear_message()
        self.summary.setText(
            f"<b>Suits {','.join(map(str, result.sizes))}</b>: {result.tricks} tricks, {result.deals:,} deals<br>"
            f"E[West's tricks]: West leads {float(result.expected_tricks('W')):.6f}, "
            f"East leads {float(result.expected_tricks('E')):.6f}<br>"
            f"Dealer's advantage (E[non-leader's tricks] − N/2): <b>{float(result.dealer_advantage):.6f}</b> "
            f"= {_fraction(result.dealer_advantage)}<br>"
            f"The lead changes the outcome with probability <b>{float(result.lead_matters):.6f}</b> "
            f"(the leader gains {float(result.leader_gains):.6f}, the non-leader {float(result.dealer_gains):.6f})"
        )
        cells = []
        for o, c in result.counts.items():
            p = Fraction(c, result.deals)
            cells.append([str(o.west_leads), str(o.east_leads), f"{c:,}", f"{float(p):.6g}", _fraction(p)])
        self.table.set_grid(cells, column_headers=["West leads", "East leads", "deals", "probability", "exact"])
        self.table_view.resizeColumnsToContents()
        try:
            draw_distribution(self.plot.figure, result)
        except Exception as exc:  # noqa: BLE001 - a plotting failure is a message, not a crash
            self.message.show_error(f"could not draw the figure: {exc}")
        self.plot.redraw()
        self.computed.emit()

    # -- screenshots -----------------------------------------------------------------------------
    def load_example(self) -> None:
        self.set_sizes("13,13,13,13")
