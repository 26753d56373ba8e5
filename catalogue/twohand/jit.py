"""Numba's cache for the two-hand search, kept fresh by every file the search's machine code is compiled from.

Numba caches a jitted function's machine code beside its own source file and discards it when *that* file
changes — but not when a jitted function it calls, or a global it reads, changes in another module: those are
compiled into the cached code (Numba's documentation, "Notes on caching"; numba/numba#1833).  The search of
:mod:`.kernels` calls the bit operations of :mod:`.bits`, the look-up of :mod:`.endings` and ρ of :mod:`.leaves`,
and reads constants from :mod:`whist_catalogue.constants` and :mod:`whist_catalogue.theory.small_suits`: an edit
of any of them alone would leave the kernels running the old machine code.

So every jitted function of those modules gets a cache whose freshness stamp is Numba's own stamp of its file
*and* a digest of all of :data:`SOURCES` (:func:`key_cache_on`): a change to any of them recompiles every kernel
once.  The kernels' modules take ``njit`` from here (``tests/test_twohand_jit.py`` checks it, and that
:data:`SOURCES` holds every module they import from), so the cache is keyed this way before their first
function is decorated.  The machine code itself is the search's of docs/spec.md §2; nothing here changes it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Iterable

from numba import njit
from numba.core import caching

__all__ = ["njit", "SOURCES", "sources_digest", "key_cache_on"]

_PACKAGE = Path(__file__).resolve().parent.parent

SOURCES: dict[str, Path] = {
    "whist_catalogue.constants": _PACKAGE / "constants.py",
    "whist_catalogue.theory.small_suits": _PACKAGE / "theory" / "small_suits.py",
    "whist_catalogue.twohand.jit": _PACKAGE / "twohand" / "jit.py",
    "whist_catalogue.twohand.bits": _PACKAGE / "twohand" / "bits.py",
    "whist_catalogue.twohand.endings": _PACKAGE / "twohand" / "endings.py",
    "whist_catalogue.twohand.leaves": _PACKAGE / "twohand" / "leaves.py",
    "whist_catalogue.twohand.kernels": _PACKAGE / "twohand" / "kernels.py",
}
"""The modules whose jitted functions and globals the search's machine code is made of, and their files."""


def sources_digest(files: Iterable[Path]) -> str:
    """SHA-256 over the files' bytes, in the order given (a few dozen kB: well under a millisecond)."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


_covered: dict[str, tuple[Path, ...]] = {}
"""Module name → the files whose digest joins the cache stamp of that module's jitted functions."""
_digests: dict[tuple[Path, ...], str] = {}

_LocatorBase: Any = caching._CacheLocator  # the abstract locator every Numba release since 0.4x has
_Impl: Any = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")  # renamed in Numba 0.61


class _CoveringLocator(_LocatorBase):
    """Numba's own locator for a function (same cache directory, same file names), with a stamp that also
    covers the function's dependencies' files: a cache saved under another digest is stale, and recompiled."""

    def __init__(self, inner: Any, files: tuple[Path, ...]) -> None:
        self._inner = inner
        self._files = files

    def ensure_cache_path(self) -> None:
        self._inner.ensure_cache_path()

    def get_cache_path(self) -> str:
        return self._inner.get_cache_path()

    def get_disambiguator(self) -> str:
        return self._inner.get_disambiguator()

    def get_source_stamp(self) -> object:
        digest = _digests.get(self._files)
        if digest is None:
            digest = _digests[self._files] = sources_digest(self._files)
        return (self._inner.get_source_stamp(), digest)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> Any:
        files = _covered.get(getattr(py_func, "__module__", ""))
        if files is None:
            return None  # not ours: Numba's own locators decide
        for locator in _Impl._locator_classes:
            if locator is not cls:
                inner = locator.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner, files)
        return None


def key_cache_on(modules: Iterable[str], files: Iterable[Path]) -> None:
    """From now on, the Numba cache of every jitted function defined in ``modules`` is stale whenever any of
    ``files`` changes (call it before those modules decorate their functions)."""
    covered = tuple(files)
    for module in modules:
        _covered[module] = covered
    if _CoveringLocator not in _Impl._locator_classes:
        _Impl._locator_classes.insert(0, _CoveringLocator)


key_cache_on(SOURCES, SOURCES.values())
