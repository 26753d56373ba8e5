"""Catalogue status: what the database holds, and building or extending it in a worker.

The levels and their metadata come from :meth:`whist_catalogue.store.reader.Catalogue.levels`, the table of two-hand
endings' from :meth:`whist_catalogue.store.endings.CatalogueEndings.levels` (docs/two-hand.md),
the size from :func:`whist_catalogue.store.build.file_size`; the build is
:func:`whist_catalogue.store.build.build_steps`, the same generator of progress events the
command line's progress bar consumes.  It runs in a worker: the window stays
responsive, a progress bar follows the events, and Cancel closes the generator,
which rolls back the level in progress (every finished level stays valid).
"""

from __future__ import annotations


import time

from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QGroupBox,
    QLabel,
    QProgressBar,
    QSpinBox,
    QVBoxLayout,
)

from whist_catalogue.engine.plan import duration
from whist_catalogue.errors import WhistError
from whist_catalogue.gui.context import AppContext
from whist_catalogue.gui.models import EndingLevelsModel, LevelStatusModel, human_size
from whist_catalogue.gui.widgets import (ValueLabel, WorkerView, button, error_text, fitted_table, heading, row,
                                         wrapped)
from whist_catalogue.constants import MAX_BUILD_N
from whist_catalogue.store.build import (SOLVED_GAMES, BuildProgress, BuildSummary, build_steps, estimate_build,
                                         file_size)
from whist_catalogue.store.database import parse_location
from whist_catalogue.store.endings import MAX_STORED_K, CatalogueEndings, EndingInfo, estimate_endings
from whist_catalogue.store.records import level_span
from whist_catalogue.store.settings import DEFAULT_MAX_N, is_default_location

__all__ = ["StatusView", "describe_progress", "human_size"]


def describe_progress(event: BuildProgress) -> str:
    """One line for a build event."""
    if event.stage == "plan":
        return f"Planning: {event.message}"
    if event.stage == "repair":
        return f"Repairing: {event.message}"
    if event.stage == "compute":
        return f"Valuing level {event.n}: {event.done:,} of {event.total:,} deals"
    if event.stage == "level" or (event.stage in ("compile", "load", "finish") and event.n is not None):
        return f"Level {event.n}: {event.message}"
    if event.stage == "games":
        return f"Solved games: {event.done} of {event.total} ({event.message})"
    if event.stage == "endings":
        return f"Table of endings, k = {event.n}: {event.done:,} of {event.total:,} positions"
    if event.stage == "endings-level":
        return f"Table of endings, k = {event.n}: {event.message}"
    if event.stage in ("compile", "load", "finish", "endings-plan", "endings-load", "endings-repair"):
        return event.message[:1].upper() + event.message[1:]
    return "Done"


class StatusView(WorkerView):
    """View 5: levels complete, counts, size; build or extend the catalogue with progress and cancel."""

    TITLE = "Catalogue"

    def __init__(self, context: AppContext) -> None:
        super().__init__(context, self._progress, self._aborted)
        self.last_summary: BuildSummary | None = None
        self._max_n_seen = 0
        self._levels: list = []
        """The open catalogue's levels: their recorded sizes make the build's estimate of disk."""
        self._ending_levels: list[EndingInfo] = []
        """… and its table of endings' levels, which make that table's estimate."""
        self._games_stored = 0
        self._stage: BuildProgress | None = None
        self._stage_started = 0.0
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self.location_label = wrapped()
        self.location_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.choose_button = button("Ch&oose file…", "open another catalogue, or name a new file to build",
                                    self.choose_file)
        self.refresh_button = button("&Refresh", "read the catalogue again", self.refresh)
        layout = QVBoxLayout(self)
        layout.addLayout(row(QLabel("Catalogue:"), self.location_label, self.choose_button, self.refresh_button,
                             stretch=self.location_label))
        layout.addWidget(self.message)
        layout.addWidget(self._contents_box(), 1)
        layout.addWidget(self._build_box())
        self.context.catalogue_changed.connect(self.refresh)
        self.refresh()

    def _contents_box(self) -> QGroupBox:
        self.headline = ValueLabel("", 18)
        self.details = wrapped()
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.levels_model = LevelStatusModel(self)
        self.levels_view = fitted_table(self.levels_model, stretch_last=True)
        box = QGroupBox("What the catalogue holds")
        self.endings_heading = heading("The table of two-hand endings (docs/two-hand.md): every position of k cards"
                                       " a hand, West's tricks, for the search and the Multi-suit view")
        self.endings_model = EndingLevelsModel(self)
        self.endings_view = fitted_table(self.endings_model, stretch_last=True)
        self.tables = QVBoxLayout(box)
        for widget in (self.headline, self.details, self.levels_view, self.endings_heading, self.endings_view):
            self.tables.addWidget(widget)
        return box

    def _build_box(self) -> QGroupBox:
        self.max_n = QSpinBox()
        self.max_n.setRange(1, MAX_BUILD_N)
        self.max_n.setValue(DEFAULT_MAX_N)
        self.max_n.setToolTip(f"every deal with 1 … n cards a hand (n ≤ {MAX_BUILD_N}); levels already complete are kept")
        self.max_n.valueChanged.connect(self._describe_plan)
        max_label = QLabel("Build or extend up to &n =")
        max_label.setBuddy(self.max_n)
        self.games = QCheckBox("with the solved games")
        self.games.setChecked(True)
        self.games.setToolTip("also store chemin-de-fer and Le Her (N = 3 … 52)")
        self.games.toggled.connect(self._describe_plan)
        self.endings = QSpinBox()
        self.endings.setRange(0, MAX_STORED_K)
        self.endings.setSpecialValueText("none")
        self.endings.setToolTip("also store the table of two-hand endings, every position of 1 … k cards a hand "
                                "(build --endings K; levels already complete are kept)")
        self.endings.valueChanged.connect(self._describe_plan)
        endings_label = QLabel("endings up to &k =")
        endings_label.setBuddy(self.endings)
        self.build_button = button("&Build", "value and store every deal up to n", self.start_build)
        self.cancel_button = button("&Cancel", "stop: the level in progress is rolled back, finished ones kept",
                                    self.cancel_build)
        self.cancel_button.setEnabled(False)
        # The bar shows only while a build runs: after one, a full bar with no words said nothing.
        self.progress, self.progress_label, self.plan_label = QProgressBar(), QLabel(), wrapped()
        self.progress.hide()
        self.progress_label.hide()
        box = QGroupBox("Build or extend (in the background: keep using the other views)")
        column = QVBoxLayout(box)
        column.addLayout(row(max_label, self.max_n, self.games, 12, endings_label, self.endings, 12, self.build_button,
                             self.cancel_button))
        for widget in (self.plan_label, self.progress, self.progress_label):
            column.addWidget(widget)
        return box

    # -- contents ----------------------------------------------------------------------------------
    @Slot()
    def refresh(self) -> None:
        location = self.context.location
        self.location_label.setText(location)
        catalogue = self.context.catalogue()
        if catalogue is None:
            self.levels_model.set_rows([])
            self.levels_view.hide()  # no catalogue: no empty table that looks broken
            self._max_n_seen = 0
            self._levels = []
            self._ending_levels = []
            self._show_endings()
            self._games_stored = 0
            if not self.busy:
                self.progress_label.setText("")
            self.headline.setText("No catalogue")
            problem = self.context.catalogue_problem or ""
            if "no catalogue at" in problem:
                self.message.show_info(
                    "There is no catalogue here yet: values are computed as they are needed. "
                    "Build one below to look deals up at once and to search."
                )
            else:
                self.message.show_error(problem)
            self.details.setText("")
            self._describe_plan()
            return
        try:
            levels = catalogue.levels()
            games = catalogue.solved_games()
            self._ending_levels = CatalogueEndings(catalogue).levels()
        except WhistError as exc:
            self.message.show_error(str(exc))
            return
        if not self.busy:
            self.message.clear_message()
            self.progress_label.setText("")  # a finished or cancelled build's last line is history
        self.levels_model.set_rows(levels)
        self.levels_view.show()
        self._show_endings()
        complete = [i.n for i in levels if i.complete]
        self._max_n_seen = catalogue.max_n
        deals = sum(i.row_count for i in levels if i.complete)
        size = file_size(catalogue.location)
        if complete:
            self.headline.setText(f"Every deal with n ≤ {catalogue.max_n} cards a hand" if catalogue.max_n else "Partial")
        else:
            self.headline.setText("Empty catalogue")
        self._levels = list(levels)
        self._games_stored = len(games)
        incomplete = [i.n for i in levels if not i.complete]
        lines = [
            f"{len(complete)} complete level{'s' if len(complete) != 1 else ''}"
            + (f" ({', '.join(map(str, complete))})" if complete else "")
            + f" · {deals:,} deals · {human_size(size)}"
            + (f" · {size / deals:.2g} bytes a deal" if size and deals >= 1_000_000 else ""),
            f"Solved games stored: {len(games)}",
        ]
        if complete:  # every level is stored as chunks (docs/level-store.md)
            chunk_bytes = sum(i.stored_bytes or 0 for i in levels if i.complete)
            lines.append(f"{level_span(complete).capitalize()}: chunks {human_size(chunk_bytes)}")
        if incomplete:
            lines.append(f"Not complete (an interrupted or planned build; Build resumes it): {', '.join(map(str, incomplete))}")
        self.details.setText("\n".join(lines))
        self._describe_plan()

    def _show_endings(self) -> None:
        """The table's levels, when the catalogue lists any (else no empty table that looks broken); the two tables
        share the height by their rows."""
        self.endings_model.set_rows(self._ending_levels)
        for widget in (self.endings_heading, self.endings_view):
            widget.setVisible(bool(self._ending_levels))
        self.tables.setStretchFactor(self.levels_view, max(1, self.levels_model.rowCount()))
        self.tables.setStretchFactor(self.endings_view, max(1, len(self._ending_levels)))

    @Slot()
    def _describe_plan(self) -> None:
        target = self.max_n.value()
        have = self._max_n_seen
        endings = ""
        if self.endings.value():
            # The core's words, as build --endings says them before it starts.
            endings = f" Then {estimate_endings(self._ending_levels, self.endings.value()).describe()}."
        if target <= have:
            self.plan_label.setText(f"Levels 1 … {target} are already complete; Build only checks the solved games."
                                    + endings)
            return
        games = self.games.isChecked() and self._games_stored < len(SOLVED_GAMES)
        plan = estimate_build(self._levels, target, games=games)
        # The core's words, as the command line's build says them before it starts.
        self.plan_label.setText(f"Build: {plan.describe()} on this machine ({plan.basis()}; more while other "
                                "programs keep the processor busy). Cancel keeps every finished level." + endings)

    @Slot()
    def choose_file(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Catalogue file (an existing one, or a new one to build)", self.context.location,
            "SQLite catalogue (*.sqlite *.db);;All files (*)", options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if path:
            self.context.set_database(path)

    # -- build ---------------------------------------------------------------------------------------
    @Slot()
    def start_build(self) -> None:
        if self.busy:
            return
        try:
            location = parse_location(self.context.location)
        except WhistError as exc:
            self.message.show_error(str(exc))
            return
        self.last_summary = None
        self._show_building(True)
        self.progress.setRange(0, 0)
        self.progress.setFormat("starting …")
        self._stage = None
        self._ticker.start()
        self.message.show_info(f"Building {location} up to n = {self.max_n.value()} …")
        self.task.run(build_steps, str(location), self.max_n.value(), games=self.games.isChecked(),
                      create_parent=is_default_location(self.context.db), endings=self.endings.value())

    @Slot()
    def cancel_build(self) -> None:
        if self.busy:
            self.task.stop()
            self.cancel_button.setEnabled(False)
            self._ticker.stop()
            stage = self._stage
            if stage is not None and stage.stage == "compute":
                # The engine values a level in one call: the cancel takes effect when that call returns.
                self.progress_label.setText(
                    f"Cancelling: the engine is finishing level {stage.n} (it cannot stop inside a level); "
                    "then nothing of it is stored, and every finished level is kept …"
                )
            else:
                self.progress_label.setText("Cancelling: the level in progress is rolled back …")

    @Slot()
    def _tick(self) -> None:
        """Elapsed time and an estimate of what is left, so no phase sits still (valuing a level has no steps)."""
        stage = self._stage
        if stage is None or not self.busy:
            return
        elapsed = time.monotonic() - self._stage_started
        text = describe_progress(stage) + f"  {duration(elapsed)} so far"
        if stage.stage == "compute" and stage.n is not None:
            expected = estimate_build([i for i in self._levels if i.n != stage.n], stage.n).seconds
            text += f" of about {duration(expected)} for the whole level"
        self.progress_label.setText(text)

    def _progress(self, event: BuildProgress) -> None:
        if self._stage is None or (event.stage, event.n) != (self._stage.stage, self._stage.n):
            self._stage_started = time.monotonic()
        self._stage = event
        text = describe_progress(event)
        self.progress_label.setText(text)
        if event.stage in ("compute", "games", "endings") and event.total:
            # A level of endings counts billions of positions: the bar counts in thousandths (Qt's range is int32).
            scale = max(1, event.total // 1000) if event.stage == "endings" else 1
            self.progress.setRange(0, event.total // scale)
            self.progress.setValue(event.done // scale)
            self.progress.setFormat({"compute": f"valuing level {event.n}: %p %", "games": "solved games: %p %",
                                     "endings": f"endings k = {event.n}: %p %"}[event.stage])
        elif event.stage in ("compile", "load", "finish", "endings-load"):
            self.progress.setRange(0, 0)  # busy, and the label says with what
            self.progress.setFormat(text)
        elif event.stage in ("level", "endings-level"):
            self.context.reset()  # the new level is readable now

    def _loaded(self, summary: BuildSummary) -> None:
        self.last_summary = summary
        self._finished(f"Built: {summary.text()}.")  # the command line's line

    def _failed(self, exc: Exception) -> None:
        self._finished(error_text(exc, "the build failed"), error=True)

    def _aborted(self) -> None:
        self._finished("Build cancelled: the level in progress was rolled back; finished levels are kept.")

    def _finished(self, said: str, error: bool = False) -> None:
        self._ticker.stop()
        self._stage = None
        self._show_building(False)
        self.context.reset()  # reopen: the solver and the other views see the new levels
        (self.message.show_error if error else self.message.show_info)(said)  # after the reset's refresh
        self.loaded.emit()

    def _show_building(self, on: bool) -> None:
        """While a build runs, Cancel instead of the build's controls, and the bar with its line (empty at first)."""
        for widget in (self.build_button, self.max_n, self.endings, self.choose_button):
            widget.setEnabled(not on)
        self.cancel_button.setEnabled(on)
        self.progress.setVisible(on)
        self.progress_label.setVisible(on)
        self.progress_label.setText("")

    def stop(self) -> None:
        self.cancel_build()

    # -- screenshots ---------------------------------------------------------------------------------
    def load_example(self) -> None:
        self.refresh()
