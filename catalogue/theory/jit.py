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

Numba alone discards a cached kernel only when the kernel's *own* file changes, not when a jitted function it
calls or a global it reads changes in another module — those are compiled into its machine code (Numba's
documentation, "Notes on caching"; numba/numba#1833).  So the cache of every kernel of the package is stamped
with a digest of every file kernels are compiled from (:data:`KERNEL_SOURCES`: the kernels' subpackages and
the constants): an edit to any of them recompiles every kernel once, and machine code of an older source is
never run.
"""

from __future__ import annotations

import hashlib
import threading
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

__all__ = ["kernel", "announcing", "PREPARING", "KERNEL_SOURCES", "cache_keyed_on"]

_PACKAGE = Path(__file__).resolve().parent.parent
KERNEL_SOURCES: tuple[Path, ...] = (
    _PACKAGE / "constants.py",
    *(path for folder in ("theory", "single_suit", "engine", "twohand")
      for path in sorted((_PACKAGE / folder).glob("*.py"))),
)
"""The files the package's kernels are compiled from: every module of the subpackages that have kernels (a
kernel calls jitted functions and reads globals of its own subpackage and of the theory below it), and the
constants they all read."""

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


def _digest(files: Iterable[Path]) -> str:
    """SHA-256 over the files' bytes, in the order given (a few hundred kB: about a millisecond)."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


_keyed: dict[str, tuple[Path, ...]] = {}
"""Module-name prefix → the files whose digest joins the cache stamp of its modules' kernels."""
_digests: dict[tuple[Path, ...], str] = {}


def _covering_locator() -> type:
    """Numba's own cache locator for a kernel (the same folder and file names), with a source stamp that also
    covers :data:`_keyed`'s files: a cache saved under another digest is stale, and the kernel is compiled."""
    from numba.core import caching

    base: Any = caching._CacheLocator  # the abstract locator of every Numba release since 0.4x (private: untyped)

    class Covering(base):
        def __init__(self, inner: Any, files: tuple[Path, ...]) -> None:
            self._inner, self._files = inner, files

        def ensure_cache_path(self) -> None:
            self._inner.ensure_cache_path()

        def get_cache_path(self) -> str:
            return self._inner.get_cache_path()

        def get_disambiguator(self) -> str:
            return self._inner.get_disambiguator()

        def get_source_stamp(self) -> object:
            digest = _digests.get(self._files)
            if digest is None:
                digest = _digests[self._files] = _digest(self._files)
            return self._inner.get_source_stamp(), digest

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            module = py_func.__module__ or ""
            files = next((f for prefix, f in _keyed.items() if module == prefix or module.startswith(prefix + ".")),
                         None)
            if files is None:
                return None  # not a keyed module's: Numba's own locators decide
            for locator in _locators():
                if locator is not cls:
                    inner = locator.from_function(py_func, py_file)
                    if inner is not None:
                        return cls(inner, files)
            return None

    return Covering


def _locators() -> list[Any]:
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")  # renamed in Numba 0.61
    return impl._locator_classes


def cache_keyed_on(prefix: str, files: Iterable[Path]) -> None:
    """From now on the cache of every kernel defined in the modules named ``prefix`` or ``prefix.…`` is stale
    whenever any of ``files`` changes (before those modules define their kernels)."""
    with _lock:
        _keyed[prefix] = tuple(files)
        locators = _locators()
        if not any(getattr(locator, "__name__", "") == "Covering" for locator in locators):
            locators.insert(0, _covering_locator())


def kernel(function: Callable[..., Any] | str | None = None, /, **options: Any) -> Any:
    """``@kernel``, ``@kernel(parallel=True)`` or ``@kernel("int64(int64)", …)``: Numba's ``njit(cache=True,
    …)``, its cache stamped with the kernels' sources (:func:`cache_keyed_on`), made harmless
    (:class:`_SafeCache`), and its compiles announced (:func:`announcing`)."""
    signature = function if isinstance(function, str) else None

    def make(f: Callable[..., Any]) -> Any:
        from numba import njit

        _forward_compiles()
        if "whist_catalogue" not in _keyed:
            cache_keyed_on("whist_catalogue", KERNEL_SOURCES)
        try:
            dispatcher = (njit(cache=True, **options) if signature is None else njit(signature, cache=True, **options))(f)
        except RuntimeError:  # "no locator available": neither the package's folder nor a cache folder is writable
            return (njit(**options) if signature is None else njit(signature, **options))(f)
        cache = getattr(dispatcher, "_cache", None)  # absent with NUMBA_DISABLE_JIT=1: a plain function
        if cache is not None:
            setattr(dispatcher, "_cache", _SafeCache(cache))  # Numba's own attribute, which it reads at each compile
        return dispatcher

    if function is None or isinstance(function, str):
        return make
    return make(function)
