"""tqdm progress bars on stderr for the command line's long work (scan, build, verify).

A bar opens at the first report, and only when stderr is a terminal unless
told otherwise; a new description (the next level) starts a new bar.
"""

from __future__ import annotations

import sys

from tqdm import tqdm


class ProgressBar:
    """``show(done, total)`` drawing a bar with rate and time left; a context manager that closes it."""

    def __init__(self, desc: str, unit: str, *, enabled: bool | None = None, unit_scale: bool = False) -> None:
        self.desc = desc
        self.unit = unit
        self.unit_scale = unit_scale
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._bar: tqdm | None = None
        self._shown_desc: str | None = None

    def show(self, done: int, total: int, *, desc: str | None = None, postfix: str | None = None) -> None:
        if not self.enabled:
            return
        desc = desc or self.desc
        if self._bar is None or desc != self._shown_desc:
            self.close()
            self._shown_desc = desc
            self._bar = tqdm(total=total, desc=desc, unit=self.unit, unit_scale=self.unit_scale,
                             file=sys.stderr, leave=False, dynamic_ncols=True)
        if postfix is not None:
            self._bar.set_postfix_str(postfix)
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LevelProgress(ProgressBar):
    """``callback(n, done, total)`` for the level-by-level computations: one bar per level."""

    def __init__(self, verb: str = "valuing", *, enabled: bool | None = None) -> None:
        super().__init__(verb, " deals", enabled=enabled, unit_scale=True)

    def __call__(self, n: int, done: int, total: int) -> None:
        self.show(done, total, desc=f"{self.desc} n={n}")
