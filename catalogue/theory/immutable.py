"""Immutable value objects: the base of the theory's :class:`~.deals.Deal`, :class:`~.deals.Suit`,
:class:`~.values.Value`, :class:`~.values.Infinitesimal` and :class:`~.labeled.LabeledValue`.

It gives them what ``@dataclass(frozen=True, slots=True)`` would — equality and hashing by their fields,
a repr, read-only attributes, pickling — without importing :mod:`dataclasses`, which imports
:mod:`inspect` and cost every command-line look-up about 15 ms of its 100 (docs/benchmarks.md,
"Start-up").  A subclass names its fields in ``__slots__`` and sets them in ``__init__`` with
``object.__setattr__``; a field whose name starts with ``_`` is a cache, left out of equality, hashing
and the repr.  The theory's objects that Jupyter draws take :func:`notebook_html` as their ``_repr_html_``.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, ClassVar


class Immutable:
    """A slotted, read-only object compared, hashed and shown by its public fields."""

    __slots__: tuple[str, ...] = ()
    _public: ClassVar[tuple[str, ...]]
    _compared: ClassVar[Callable[[Any], tuple]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        public = [name for name in cls.__slots__ if not name.startswith("_")]
        cls._public = tuple(public)
        getter = attrgetter(*public)
        cls._compared = getter if len(public) > 1 else lambda obj: (getter(obj),)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        # through the class: a one-field class's lambda would bind to the instance
        compared = type(self)._compared
        return compared(self) == compared(other)

    def __hash__(self) -> int:
        return hash(type(self)._compared(self))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._public)
        return f"{type(self).__name__}({fields})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: a {type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: a {type(self).__name__} is immutable")

    def __getstate__(self) -> tuple:
        return tuple(getattr(self, name, None) for name in self.__slots__)

    def __setstate__(self, state: tuple) -> None:
        for name, value in zip(self.__slots__, state):
            object.__setattr__(self, name, value)


def notebook_html(shown: object) -> str:
    """The ``_repr_html_`` of the theory's objects that Jupyter draws: :func:`~.display.html_of`, imported when
    first drawn (the display imports the classes that use this)."""
    from whist_catalogue.theory.display import html_of

    return html_of(shown)
