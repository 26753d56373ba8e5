"""Numba's compiled kernels: cached on disk, harmless when the cache fails, and announced when compiled.

Not a section of the papers: the machinery behind every Numba kernel of the package (the ranking here, the
single-suit paper's formulas, the engine).  Each is made by :func:`kernel` — Numba's ``njit`` with
``cache=True`` — so that a process loads what an earlier one compiled: the engine's first level takes about a
second to load instead of seconds to a minute to compile (docs/benchmarks.md, "First use").  Numba keeps its
cache beside the sources, in ``__pycache__`` (an editable install: the repository's own folders), or where
that is read-only (a system-wide install) under the user's cache folder (``~/.cache/numba``);
``NUMBA_CACHE_DIR`` overrides both.  A cache that cannot be placed, read or written costs time only: the
kernel is compiled in memory, as without a cache, and nothing fails.

A compile does happen on a first use after an install or an update of the package or of Numba (and on every
use with no usable cache).  Whoever starts work that may compile installs a listener with
:func:`announcing`; it is told :data:`PREPARING` once, when the first compile of that work starts, so that
no one watches a bar stuck at 0 % for half a minute without a word.  The command line writes it on stderr;
the app shows it in the view that started the work.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator

__all__ = ["kernel", "announcing", "PREPARING"]

PREPARING = "preparing the engine (Numba compiles it on its first use here: up to a minute; later runs load it" \
            " from its cache)"
"""What a listener is told before a compile: the same words ``build`` says (its ``compile`` stage)."""

Listener = Callable[[str], None]


class _Heard:
    """A listener and whether it has been told (once per :func:`announcing` block)."""

    __slots__ = ("listener", "told")

    def __init__(self, listener: Listener | None) -> None:
        self.listener, self.told = listener, False


_listening: ContextVar[_Heard | None] = ContextVar("jit_listener", default=None)
_lock = threading.Lock()
_forwarding = False


@contextmanager
def announcing(listener: Listener | None) -> Iterator[None]:
    """Tell ``listener`` (once) when the work this thread starts inside the block begins compiling a kernel;
    None: tell no one (work that announces its preparation itself, as ``build`` does).  A listener that
    raises stops the work, as a cancel does."""
    token = _listening.set(_Heard(listener))
    try:
        yield
    finally:
        _listening.reset(token)


def _forward_compiles() -> None:
    """Numba's "numba:compile" event starts a compile that no cache could spare (a cache hit raises none);
    it is passed to the listener of the thread that compiles.  Installed once, with the first kernel."""
    global _forwarding
    with _lock:
        if _forwarding:
            return
        from numba.core import event

        class Forward(event.Listener):
            def on_start(self, event: Any) -> None:
                heard = _listening.get()
                if heard is not None and heard.listener is not None and not heard.told:
                    heard.told = True
                    heard.listener(PREPARING)

            def on_end(self, event: Any) -> None:
                pass

        event.register("numba:compile", Forward())
        _forwarding = True


class _SafeCache:
    """Numba's cache of one kernel, whose failures cost a compile instead of an exception: a cache file
    unreadable or damaged is a miss; one that cannot be written (a full disk, a folder made read-only) is
    skipped.  Everything else is Numba's own."""

    def __init__(self, cache: Any) -> None:
        self._cache = cache

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cache, name)

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        try:
            return self._cache.load_overload(sig, target_context)
        except Exception:  # noqa: BLE001 - any damage to a cache file is a miss
            return None

    def save_overload(self, sig: Any, data: Any) -> None:
        try:
            self._cache.save_overload(sig, data)
        except Exception:  # noqa: BLE001 - the kernel is compiled and in memory; only the next run pays
            pass


def kernel(function: Callable[..., Any] | None = None, /, **options: Any) -> Any:
    """``@kernel`` or ``@kernel(parallel=True)``: Numba's ``njit(cache=True, …)``, its cache made harmless
    (:class:`_SafeCache`) and its compiles announced (:func:`announcing`)."""

    def make(f: Callable[..., Any]) -> Any:
        from numba import njit

        _forward_compiles()
        try:
            dispatcher = njit(cache=True, **options)(f)
        except RuntimeError:  # "no locator available": neither the package's folder nor a cache folder is writable
            return njit(**options)(f)
        cache = getattr(dispatcher, "_cache", None)  # absent with NUMBA_DISABLE_JIT=1: a plain function
        if cache is not None:
            setattr(dispatcher, "_cache", _SafeCache(cache))  # Numba's own attribute, which it reads at each compile
        return dispatcher

    return make if function is None else make(function)
