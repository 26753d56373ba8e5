"""A tqdm progress bar on stderr for the level-by-level computations (engine scan, catalogue build)."""

from __future__ import annotations

import sys

from tqdm import tqdm


class LevelProgress:
    """``callback(n, done, total)`` drawing one bar per level, with rate and time left."""

    def __init__(self, verb: str = "valuing", *, enabled: bool | None = None) -> None:
        self.verb = verb
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._bar: tqdm | None = None
        self._n: int | None = None

    def __call__(self, n: int, done: int, total: int) -> None:
        if not self.enabled:
            return
        if n != self._n:
            self.close()
            self._n = n
            self._bar = tqdm(total=total, desc=f"{self.verb} n={n}", unit=" deals", unit_scale=True,
                             file=sys.stderr, leave=False, dynamic_ncols=True)
        assert self._bar is not None
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> "LevelProgress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
