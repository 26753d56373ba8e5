"""Progress on stderr for the command line's long work (scan, build, verify, stats, gui --screenshot).

On a terminal, a tqdm bar (a new description — the next level — starts a new
bar).  Elsewhere (a pipe, a log file, CI) a bar's carriage returns would be
noise, yet silence for half a minute looks like a hang: then plain lines, one
when a stage starts and at most one every :data:`LINE_INTERVAL_S` seconds
after, each with the count, the percentage and the time so far.  The lines of
the first :data:`QUIET_S` seconds are held back: dropped when the work ends
within them (a quick command says nothing but its answer, and a command that
fails at once one line, its error: docs/spec.md §4), written once it runs longer.

A stage without a count (compiling, reading a level back) is :meth:`ProgressBar.stage`:
its name and the time so far, never a bar stuck at ``0.00/1.00``.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Self

from tqdm import tqdm

LINE_INTERVAL_S = 2.0
"""Seconds between two progress lines of the same stage when stderr is not a terminal."""
QUIET_S = 1.0
"""Progress lines of the first second are held back, and dropped if the work fails."""


class ProgressBar:
    """``show(done, total)`` drawing a bar with rate and time left; a context manager that closes it.

    ``enabled``: None (the default) shows a bar on a terminal and lines elsewhere; False shows nothing
    (``--no-progress``); True forces the bar.
    """

    def __init__(self, desc: str, unit: str, *, enabled: bool | None = None, unit_scale: bool = False) -> None:
        self.desc = desc
        self.unit = unit
        self.unit_scale = unit_scale
        self.lines = enabled is None and not sys.stderr.isatty()
        self.enabled = True if enabled is None else enabled
        self._bar: tqdm | None = None
        self._shown_desc: str | None = None
        self._started = 0.0
        self._last_line = 0.0
        self._created = time.monotonic()
        self._held: list[str] | None = []

    def show(self, done: int, total: int, *, desc: str | None = None, postfix: str | None = None) -> None:
        if not self.enabled:
            return
        desc = desc or self.desc
        if self.lines:
            self._line(done, total, desc, postfix)
            return
        bar = self._bar_for(desc, total=total, unit=self.unit, unit_scale=self.unit_scale)
        if postfix is not None:
            bar.set_postfix_str(postfix)
        bar.update(done - bar.n)

    def stage(self, desc: str) -> None:
        """A step with nothing to count: its name and, on a terminal, the time it has taken so far."""
        if not self.enabled:
            return
        if self.lines:
            if desc != self._shown_desc:
                self._shown_desc, self._started = desc, time.monotonic()
                self._emit(f"{desc} …\n")
            return
        self._bar_for(desc, total=None, bar_format="{desc} … {elapsed}").refresh()

    def _bar_for(self, desc: str, **options: Any) -> tqdm:
        """The terminal's bar of ``desc``: a new one, the last one closed, when the description changes."""
        if self._bar is None or desc != self._shown_desc:
            self.close()
            self._shown_desc = desc
            self._bar = tqdm(desc=desc, file=sys.stderr, leave=False, dynamic_ncols=True, **options)
        return self._bar

    def _emit(self, line: str) -> None:
        """A progress line written, or held back during the first :data:`QUIET_S` seconds."""
        if self._held is not None:
            self._held.append(line)
            if time.monotonic() - self._created < QUIET_S:
                return
            line, self._held = "".join(self._held), None
        sys.stderr.write(line)
        sys.stderr.flush()

    def _line(self, done: int, total: int, desc: str, postfix: str | None) -> None:
        now = time.monotonic()
        new_stage = desc != self._shown_desc
        if new_stage:
            self._shown_desc, self._started = desc, now
        elif now - self._last_line < LINE_INTERVAL_S and done < total:
            return
        self._last_line = now
        percent = f" ({100 * done / total:.0f} %)" if total else ""
        after = f", {now - self._started:.0f} s" if not new_stage else ""
        extra = f" — {postfix}" if postfix else ""
        self._emit(f"{desc}: {done:,} of {total:,}{self.unit}{percent}{after}{extra}\n")

    def close(self, *, failed: bool = False) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._held and not failed and time.monotonic() - self._created >= QUIET_S:
            sys.stderr.write("".join(self._held))  # held back, and the work turned out to take a while
            sys.stderr.flush()
        self._held = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        self.close(failed=kind is not None)


class LevelProgress(ProgressBar):
    """``callback(n, done, total)`` for the level-by-level computations: one bar per level."""

    def __init__(self, verb: str = "valuing", *, enabled: bool | None = None) -> None:
        super().__init__(verb, " deals", enabled=enabled, unit_scale=True)

    def __call__(self, n: int, done: int, total: int) -> None:
        """Level n's progress, under a label of its own."""
        self.show(done, total, desc=f"{self.desc} n={n}")
