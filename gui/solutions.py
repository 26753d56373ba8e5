"""The solved games: chemin-de-fer, Le Her, and the single-suit asymptotics of §11.

* Chemin-de-fer and Le Her are :class:`~whist_catalogue.games.solved_games.SolvedGame` s, read from the
  catalogue's solved-games table when it holds them and from
  :func:`whist_catalogue.games.solved_games.solve` otherwise — their summary as the command line says it
  (:meth:`~whist_catalogue.games.solved_games.SolvedGame.html`), a plot of the Banker's gain G(h),
  decision tables, payoff matrices and strategies.
* The asymptotics are :func:`whist_catalogue.single_suit.asymptotics.compute_data` (exact levels
  and samples of large deals) drawn by :func:`whist_catalogue.single_suit.asymptotics.draw_figure`
  onto the canvas's figure.

Each computation runs in a worker; the page shows a message while it runs.
"""

from __future__ import annotations

import os
from fractions import Fraction
from functools import partial
from typing import Literal

os.environ.setdefault("QT_API", "pyside6")

from matplotlib.backends.backend_qt import NavigationToolbar2QT  # noqa: E402  (where it is defined)
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from PySide6.QtCore import QItemSelectionModel, QSignalBlocker, Qt, Slot  # noqa: E402
from PySide6.QtGui import QColor  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from whist_catalogue.games import solved_games  # noqa: E402
from whist_catalogue.games.solved_games import CheminDeFer, LeHer, approx  # noqa: E402
from whist_catalogue.gui.context import AppContext  # noqa: E402
from whist_catalogue.gui.matrix_game import PALE, MatrixGamePage, save_nfg  # noqa: E402
from whist_catalogue.gui.models import AMBER, GREEN, GridModel  # noqa: E402
from whist_catalogue.gui.widgets import (  # noqa: E402
    CopyTableView,
    WorkerView,
    button,
    error_text,
    fit_height,
    fitted_table,
    row,
    scrolled,
    split,
    stacked,
    summary_label,
    wrapped,
)
from whist_catalogue.gui.workers import reporting  # noqa: E402
from whist_catalogue.single_suit import asymptotics  # noqa: E402

__all__ = ["SolutionsView", "CheminDeFerPage", "LeHerPage", "AsymptoticsPage", "MatrixGamePage", "QUICK_PLAN"]

QUICK_PLAN = ((100, 20_000), (1_000, 20_000), (10_000, 5_000))
"""Samples that take a few seconds: enough to see the limit law emerge."""
DEFAULT_EXACT_N = 12
"""Exact levels counted by default (about a second)."""

DRAW = QColor("#d1fae5")
STAND = QColor("#f3f4f6")


_Layout = Literal["constrained", "compressed", "tight"]
"""matplotlib's layout engines by name."""


class PlotPanel(QWidget):
    """A figure with matplotlib's usual navigation toolbar: zoom, pan, back/forward, save (``layout=None`` for
    figures whose drawer lays them out itself)."""

    def __init__(self, width: float = 6.4, height: float = 4.2, layout: _Layout | None = "constrained") -> None:
        super().__init__()
        self.canvas = FigureCanvasQTAgg(Figure(figsize=(width, height), dpi=100, layout=layout))
        # Small enough for a 1000×700 window: the figure's layout engine refits titles and labels on resize.
        self.canvas.setMinimumSize(320, 240)
        self.toolbar = NavigationToolbar2QT(self.canvas, self)
        self.toolbar.setIconSize(self.toolbar.iconSize() * 0.8)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        box.addWidget(self.toolbar)
        box.addWidget(self.canvas, 1)

    @property
    def figure(self) -> Figure:
        return self.canvas.figure

    def redraw(self) -> None:
        """Show the newly drawn figure, and make it the toolbar's home view (what the Home button returns to)."""
        self.toolbar.update()
        self.canvas.draw_idle()


def grid_view(parent: QWidget) -> tuple[GridModel, CopyTableView]:
    """A read-only grid and the view showing it, its columns sized to their contents."""
    model = GridModel(parent)
    return model, fitted_table(model)


class CheminDeFerPage(WorkerView):
    """Foster's chemin-de-fer: G(h) with its breakpoints and minimax point; the Banker's decision tables."""

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.solution: CheminDeFer | None = None
        self.plot = PlotPanel()
        self.canvas = self.plot.canvas
        self.summary = summary_label()
        self.table_box = QComboBox()
        self.table_box.setToolTip("the Banker's decisions in each range of h (Foster's Tables 4–7)")
        self.table_box.currentIndexChanged.connect(self._show_table)
        self.decisions, self.decisions_view = grid_view(self)
        self.table_note = wrapped(
            "Columns: the player's third card (or 'stood': he did not draw). "
            "Amber: changed from the previous range; green: the cell the optimal Banker randomises.")
        self.table3, self.table3_view = grid_view(self)
        self.table3_view.verticalHeader().hide()
        self.save_button = button(
            "Save as .nfg…", "write the game in Gambit's strategic-form format: the Banker's strategies that differ "
            "in the cells an optimal table changes, against the player's stand or call on 5",
            lambda: save_nfg(self, solved_games.strategic_form("chemin-de-fer"), "chemin-de-fer.nfg"))
        summary_row = QHBoxLayout()
        summary_row.addWidget(self.summary, 1)
        summary_row.addWidget(self.save_button, 0, Qt.AlignmentFlag.AlignTop)
        right = stacked(summary_row, row(QLabel("Banker's decisions:"), self.table_box, stretch=self.table_box),
                        self.decisions_view, self.table_note,
                        QLabel("Table 3: G(h) in per cent, exact and as Foster printed it"), self.table3_view,
                        stretch=self.table3_view)
        # The decision tables need ~560 px for their 11 columns: the plot yields first in a small window.
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(split(self.plot, scrolled(right), sizes=(560, 800)), 1)

    def load(self) -> None:
        if self.solution is not None or self.busy:
            return
        from whist_catalogue.store.reader import stored_or_solved  # SQLAlchemy loads with the page, not the app

        self.message.show_info("Solving chemin-de-fer …")
        self.task.run(stored_or_solved, self.context.catalogue(), "chemin-de-fer")

    def _loaded(self, solution: CheminDeFer) -> None:
        self.solution = solution
        self.message.clear_message()
        self.summary.setText(solution.html())
        with QSignalBlocker(self.table_box):
            self.table_box.clear()
            for t in solution.tables:
                self.table_box.addItem(f"{t.title}: {float(t.h_from):.4f} ≤ h ≤ {float(t.h_to):.4f}", t.name)
        self.table_box.setCurrentIndex(max(0, self.table_box.findData(solution.player1[0][0])))
        self._show_table()
        rows = [[str(h), g, printed] for h, g, printed in solution.table3]
        self.table3.set_grid(rows, [""] * len(rows), ["h", "G(h) % exact", "Foster"])
        self._plot()
        self.loaded.emit()

    @Slot()
    def _show_table(self) -> None:
        if self.solution is None or self.table_box.currentIndex() < 0:
            return
        table = self.solution.tables[self.table_box.currentIndex()]
        mixed_j, mixed_l, draw = self.solution.mixed_cell
        rows, headers, colours, bold, tips = [], [], {}, set(), {}
        for r, (j, decisions) in enumerate(table.decisions):
            headers.append(f"Banker {j}")
            rows.append(["draw" if d else "stand" for d in decisions])
            for l, d in enumerate(decisions):
                colours[(r, l)] = DRAW if d else STAND
                what = "the player stood" if l == 10 else f"the player's third card is {l}"
                tips[(r, l)] = f"Banker's score {j}, {what}: {'draw' if d else 'stand'}"
                if (j, l) in table.changed:
                    bold.add((r, l))
                    colours[(r, l)] = AMBER
                    tips[(r, l)] += "\n(changed from the previous table)"
                if (j, l) == (mixed_j, mixed_l):
                    colours[(r, l)] = GREEN
                    tips[(r, l)] += f"\nthe Banker's optimal mixture draws here with probability {draw}"
        self.decisions.set_grid(rows, headers, [str(l) for l in range(10)] + ["stood"], colours, tips, bold)
        fit_height(self.decisions_view)

    def _plot(self) -> None:
        s = self.solution
        if s is None:
            return  # nothing loaded yet
        fig = self.canvas.figure
        fig.clear()
        ax = fig.add_subplot(1, 1, 1)
        ax.plot([float(h) for h, *_ in s.curve], [float(g) * 100 for _, g, *_ in s.curve], color="#1d4ed8",
                linewidth=2, label="G(h), the Banker's best-response gain")
        for b in s.breakpoints:
            ax.axvline(float(b), color="#9ca3af", linestyle=":", linewidth=1)
        corners = [(float(h), float(g) * 100) for h, g, breakpoint, _ in s.curve if breakpoint]
        ax.plot(*zip(*corners), "o", color="#374151", markersize=4, label="breakpoints (a new decision table)")
        ax.plot([float(h) for h, *_ in s.table3], [float(printed) for *_, printed in s.table3], "x",
                color="#b45309", markersize=6, label="Foster's Table 3")
        hstar, value = float(s.h), float(s.value) * 100
        ax.plot([hstar], [value], "o", color="#b91c1c", markersize=8, label="minimax point")
        ax.annotate(f"h* = {s.h}\nG = {value:.4f} %", (hstar, value), textcoords="axes fraction",
                    xytext=(0.55, 0.62), arrowprops={"arrowstyle": "->", "color": "#b91c1c"}, color="#b91c1c")
        ax.set_xlabel("h: how often the player draws to 5")
        ax.set_ylabel("G(h), per cent of the stake")
        ax.set_title("The Banker's gain G(h)", fontsize="medium")
        ax.legend(fontsize="small", loc="upper right")
        ax.grid(True, alpha=0.3)
        self.plot.redraw()


# -- Le Her ---------------------------------------------------------------------------------------------
class LeHerPage(WorkerView):
    """N-card Le Her: the payoff matrix, both players' optimal mixed strategies, the 2×2 subgame."""

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.solution: LeHer | None = None
        self.optimal_cells: list[tuple[int, int]] = []
        """(row, column) of the matrix cells both optimal strategies use."""
        limits = solved_games.get_game("le-her").parameters[0]
        self.cards = QSpinBox()
        self.cards.setRange(limits.minimum, limits.maximum)
        self.cards.setValue(13)
        self.cards.setToolTip(f"N, the number of card values ({limits.minimum}–{limits.maximum}); "
                              "13 is the classic game")
        self.cards.setKeyboardTracking(False)
        self.cards.valueChanged.connect(self.solve)
        cards_label = QLabel("&N (cards):")
        cards_label.setBuddy(self.cards)
        self.solve_button = button("&Solve", "", self.solve)
        self.exact = QCheckBox("Exact fractions")
        self.exact.setToolTip("show the payoffs as exact fractions instead of decimals")
        self.exact.toggled.connect(self._fill_matrix)
        self.save_button = button("Save as .nfg…", "write this game, a(s, t) for the N shown, in Gambit's "
                                  "strategic-form format", self._save)
        self.summary = summary_label()
        self.subgame, self.subgame_view = grid_view(self)
        self.matrix, self.matrix_view = grid_view(self)
        self.optimal_button = button("&Go to the optimal cells", "scroll the matrix to the cells both optimal "
                                     "strategies use, and select them", self.show_optimal_cells)
        self.plot = PlotPanel(6.4, 5.0)
        self.right_tabs = QTabWidget()
        self.right_tabs.addTab(self._matrix_box(), "Payoff matrix a(s, t)")
        self.right_tabs.addTab(self.plot, "Plot")
        self.right_tabs.setTabToolTip(0, "player 1's probability of winning for each pair of strategies")
        subgame_title = wrapped("<b>The subgame</b>: player 1's rows s and player 2's columns t, each with the "
                                 "probability its optimal strategy plays it")
        controls = row(cards_label, self.cards, self.solve_button, self.exact)
        controls.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.message)
        layout.addWidget(split(scrolled(stacked(self.summary, subgame_title, self.subgame_view)), self.right_tabs,
                               sizes=(480, 840)), 1)

    def _matrix_box(self) -> QWidget:
        explain = wrapped("Row s: player 1 keeps exactly the cards ≥ s; column t: player 2, after a keep, "
                           "keeps exactly the cards ≥ t.")
        legend = wrapped(
            f"<span style='background:{GREEN.name()}'>&nbsp;green&nbsp;</span>: both players' optimal strategies "
            "use this s and t; pale: one of them does.  Hover a cell for the exact fraction."
        )
        under = row(legend, self.optimal_button, stretch=legend)
        return stacked(explain, self.matrix_view, under, stretch=self.matrix_view)

    def load(self) -> None:
        if self.solution is None and not self.busy:
            self.solve()

    @Slot()
    def solve(self) -> None:
        from whist_catalogue.store.reader import stored_or_solved  # SQLAlchemy loads with the page, not the app

        n = self.cards.value()
        self.message.show_info(f"Solving Le Her with N = {n} …")
        # Another N asked meanwhile drops this answer.
        self.task.run(stored_or_solved, self.context.catalogue(), "le-her", cards=n)

    def _save(self) -> None:
        n = self.cards.value()
        save_nfg(self, solved_games.strategic_form("le-her", cards=n), f"le-her-{n}.nfg")

    def _loaded(self, solution: LeHer) -> None:
        self.solution = solution
        self.message.clear_message()
        self.summary.setText(solution.html())
        self._fill_matrix()
        self.loaded.emit()

    def _entry(self, q: Fraction) -> str:
        return str(q) if self.exact.isChecked() else f"{float(q):.4f}"

    @Slot()
    def _fill_matrix(self) -> None:
        s = self.solution
        if s is None:
            return
        sub = s.subgame
        # Each strategy's probability in its header: the grid stays as narrow as the subgame.
        p1, p2 = dict(sub.player1), dict(sub.player2)
        self.subgame.set_grid([[self._entry(e) for e in entries] for entries in sub.matrix],
                              [f"s = {r}: {p1.get(str(r), 0)}" for r in sub.rows],
                              [f"t = {c}: {p2.get(str(c), 0)}" for c in sub.columns],
                              tooltips={(i, j): f"a({r}, {c}) = {approx(e)}" for i, (r, entries) in
                                        enumerate(zip(sub.rows, sub.matrix)) for j, (c, e) in
                                        enumerate(zip(sub.columns, entries))})
        fit_height(self.subgame_view)
        support_rows, support_cols = dict(s.player1), dict(s.player2)
        cells, colours, tips, bold = [], {}, {}, set()
        for i, (r, entries) in enumerate(zip(s.strategies, s.matrix)):
            cells.append([self._entry(e) for e in entries])
            for j, (c, e) in enumerate(zip(s.strategies, entries)):
                tips[(i, j)] = f"a({r}, {c}) = {e}"
                in_rows, in_cols = str(r) in support_rows, str(c) in support_cols
                if in_rows and in_cols:
                    colours[(i, j)] = GREEN
                    bold.add((i, j))
                elif in_rows or in_cols:
                    colours[(i, j)] = PALE
        self.matrix.set_grid(cells, [f"s = {r}" for r in s.strategies], [f"t = {c}" for c in s.strategies],
                             colours, tips, bold)
        self.matrix_view.resizeColumnsToContents()
        self.optimal_cells = sorted(bold)
        self.show_optimal_cells()
        self._plot()

    @Slot()
    def show_optimal_cells(self) -> None:
        """Select the cells both optimal strategies use and scroll the first into the middle of the view."""
        if not self.optimal_cells:
            return
        view, model = self.matrix_view, self.matrix
        selection = view.selectionModel()
        selection.clearSelection()
        for r, c in self.optimal_cells:
            selection.select(model.index(r, c), QItemSelectionModel.SelectionFlag.Select)
        first = model.index(*self.optimal_cells[0])
        view.setCurrentIndex(first)
        view.scrollTo(first, QAbstractItemView.ScrollHint.PositionAtCenter)

    def _plot(self) -> None:
        """a(s, t) as a heat map, the optimal strategies' rows and columns marked, the subgame outlined."""
        s = self.solution
        if s is None:
            return  # nothing loaded yet
        first, last = s.strategies[0], s.strategies[-1]
        fig = self.plot.figure
        fig.clear()
        ax = fig.add_subplot(1, 1, 1)
        image = ax.imshow([[float(e) for e in entries] for entries in s.matrix], cmap="RdBu_r", vmin=0, vmax=1,
                          extent=(first - 0.5, last + 0.5, last + 0.5, first - 0.5), aspect="auto",
                          interpolation="nearest")
        fig.colorbar(image, ax=ax, label="a(s, t): player 1's probability of winning")
        for k, _ in s.player1:
            ax.axhline(int(k), color="#15803d", linewidth=1.5, alpha=0.8)
        for k, _ in s.player2:
            ax.axvline(int(k), color="#15803d", linewidth=1.5, alpha=0.8)
        sr, sc = s.subgame.rows, s.subgame.columns
        ax.add_patch(Rectangle((min(sc) - 0.5, min(sr) - 0.5), max(sc) - min(sc) + 1, max(sr) - min(sr) + 1,
                               fill=False, edgecolor="black", linewidth=1.5, linestyle="--",
                               label=f"the {len(sr)}×{len(sc)} subgame ({s.subgame.reason})"))
        ax.plot([], [], color="#15803d", label="optimal strategies' s (rows) and t (columns)")
        ax.set_xlabel("t: player 2 keeps the cards ≥ t")
        ax.set_ylabel("s: player 1 keeps the cards ≥ s")
        ax.set_title(f"Le Her, N = {s.cards}: value {approx(s.value, 4)}", fontsize="medium")
        ax.legend(fontsize="x-small", loc="lower left")
        self.plot.redraw()


# -- asymptotics -----------------------------------------------------------------------------------------
def compute_asymptotics(max_exact_n: int, plan, report_progress=None, abort_requested=None):
    """:func:`whist_catalogue.single_suit.asymptotics.compute_data` with progress messages and cancellation (in a worker)."""
    progress = reporting(abort_requested, report_progress, lambda message: message)
    return asymptotics.compute_data(max_exact_n=max_exact_n, plan=plan, progress=progress)


class AsymptoticsPage(WorkerView):
    """§11 of the single-suit paper: Hₙ/√n against the limit law, the dealer's advantage, the ace."""

    def __init__(self, context: AppContext) -> None:
        super().__init__(context, self._progress, self._aborted)
        self.data: asymptotics.AsymptoticsData | None = None
        self.exact_n = QSpinBox()
        self.exact_n.setRange(2, 14)
        self.exact_n.setValue(DEFAULT_EXACT_N)
        self.exact_n.setToolTip("every deal with up to this many cards a hand is counted exactly")
        exact_label = QLabel("Exact levels up to &n =")
        exact_label.setBuddy(self.exact_n)
        self.plan = QComboBox()
        self.plan.addItem("quick: n = 100, 1 000, 10 000 (a few seconds)", QUICK_PLAN)
        self.plan.addItem("the report's: n = 100 … 100 000 (a minute or more)", asymptotics.SAMPLE_PLAN)
        self.plan.setToolTip("random deals valued by the linear-time algorithm (Theorem 10.1)")
        self.compute_button = button("&Compute", "", self.compute)
        self.cancel_button = button("Cancel", "", self.cancel)
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setVisible(False)
        self.figure_box = QComboBox()
        for name, title in asymptotics.FIGURES.items():
            self.figure_box.addItem(title, name)
        self.figure_box.currentIndexChanged.connect(self.draw)
        figure_label = QLabel("Fi&gure:")
        figure_label.setBuddy(self.figure_box)
        self.plot = PlotPanel(11, 5.5, layout=None)  # draw_figure applies tight_layout
        self.canvas = self.plot.canvas
        self.notes = wrapped()
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress.setMinimumWidth(180)
        layout = QVBoxLayout(self)
        layout.addLayout(row(exact_label, self.exact_n, 12, QLabel("Samples:"), self.plan, self.compute_button,
                             self.cancel_button, self.progress))
        layout.addWidget(self.message)
        layout.addLayout(row(figure_label, self.figure_box))
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.notes)

    def load(self) -> None:
        if self.data is None and not self.busy:
            self.compute()

    @Slot()
    def compute(self) -> None:
        if self.busy:
            return
        self.compute_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setVisible(True)
        self.progress.setFormat("starting …")
        self.message.show_info("Counting every deal of the exact levels, then sampling large deals …")
        self.task.run(compute_asymptotics, self.exact_n.value(), self.plan.currentData())

    @Slot()
    def cancel(self) -> None:
        if self.busy:
            self.task.stop()  # how it ends (cancelled, or done first) is still shown
            self.message.show_info("Cancelling …")

    def _progress(self, text: str) -> None:
        self.progress.setFormat(text)
        self.message.show_info(f"Computing: {text} …")

    def _finished(self) -> None:
        self.compute_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setVisible(False)
        self.loaded.emit()

    def _failed(self, exc: Exception) -> None:
        self.message.show_error(error_text(exc))
        self._finished()

    def _aborted(self) -> None:
        self.message.show_info("Cancelled." + (" The figures show the previous computation." if self.data else ""))
        self._finished()

    def _loaded(self, data: asymptotics.AsymptoticsData) -> None:
        self.data = data
        self.message.clear_message()
        self.draw()
        parts = [f"exact n = {e.n}: {e.ks_distance():.4f}" for e in data.exact[-2:]]
        parts += [f"n = {s.n:,} ({s.count:,} deals): {s.ks:.4f}" for s in data.samples]
        self.notes.setText(
            "Kolmogorov–Smirnov distance of Hₙ/√n to the limit law of Theorem 11.5:  " + ";  ".join(parts)
        )
        self._finished()

    @Slot()
    def draw(self) -> None:
        if self.data is None:
            return
        try:
            asymptotics.draw_figure(self.figure_box.currentData(), self.canvas.figure, self.data)
            # draw_figure lays the figure out once; keep doing it on every resize so titles never clip.
            self.canvas.figure.set_layout_engine("tight")
        except Exception as exc:  # noqa: BLE001 - a plotting failure is a message, not a crash
            self.message.show_error(f"could not draw the figure: {exc}")
        self.plot.redraw()


# -- the view ---------------------------------------------------------------------------------------------
class SolutionsView(QWidget):
    """View 4: chemin-de-fer, Le Her and the single-suit asymptotics, one tab each; loaded when first shown."""

    TITLE = "Solutions"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.chemin_de_fer = CheminDeFerPage(context)
        self.le_her = LeHerPage(context)
        self.asymptotics = AsymptoticsPage(context)
        self.matrix_game = MatrixGamePage(context)
        self.tabs = QTabWidget()
        for page, title in zip(self.pages, ("Chemin-de-fer", "Le Her", "Single-suit asymptotics", "Your game")):
            self.tabs.addTab(page, title)
        self.tabs.setTabToolTip(3, "any two-person zero-sum matrix game: typed, pasted, or from CSV or Gambit (.nfg)")
        self.tabs.currentChanged.connect(self._load_current)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.tabs)

    @property
    def pages(self) -> tuple[CheminDeFerPage, LeHerPage, AsymptoticsPage, MatrixGamePage]:
        return (self.chemin_de_fer, self.le_her, self.asymptotics, self.matrix_game)

    @property
    def busy(self) -> bool:
        return any(p.busy for p in self.pages)

    def showEvent(self, event) -> None:  # Qt override
        super().showEvent(event)
        self._load_current()

    @Slot()
    def _load_current(self) -> None:
        self.pages[self.tabs.currentIndex()].load()  # the tabs are the pages, in order

    def stop(self) -> None:
        self.asymptotics.cancel()

    # -- screenshots ---------------------------------------------------------------------------------
    def load_example(self) -> None:
        self.tabs.setCurrentWidget(self.chemin_de_fer)
        self.chemin_de_fer.load()

    def screenshot_pages(self):
        return [(suffix, partial(self.tabs.setCurrentWidget, page))
                for suffix, page in zip(("", "le-her", "asymptotics", "matrix-game"), self.pages)]
