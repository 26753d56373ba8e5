"""Errors a user can cause: bad input or a bad catalogue — every exception class of the package.

Every one a user can cause derives from :class:`WhistError`, so the command line and the
app can turn them into one clear line (exit status 2) in a single place. Where
it makes sense they also derive from the matching built-in, python-chess style,
so ``except ValueError`` keeps working for library users. Those that are not a
user's (:class:`ChunkError`, :class:`MalformedContentError`, :class:`CertificationError`) are
named here too, so that every exception class has one home (docs/architecture.md), grouped
by the layer that raises it; the modules that raise an error import it from here.
:func:`counted` says a count in a message ("1 card", "2 cards").
"""

from __future__ import annotations


class WhistError(Exception):
    """Base class of every error caused by the user's input or files."""


class InvalidDealError(WhistError, ValueError):
    """A deal that cannot be parsed or is not a legal deal."""


class AsymmetricSuitError(InvalidDealError):
    """A suit in which the two hands hold different numbers of cards."""


class DuplicateCardError(InvalidDealError):
    """The same card appears twice in a suit."""


class UnevenHandsError(InvalidDealError):
    """A two-hand deal whose hands hold different numbers of cards in all (its suits may be uneven, its hands not)."""


class TrumpSuitError(InvalidDealError):
    """A trump suit the deal does not have, or two different trump suits named for one deal."""


class InvalidValueError(WhistError, ValueError):
    """Text that is not a value of the semigroup V, or a value out of range."""


class DealTooLargeError(WhistError):
    """A deal beyond what the requested computation can handle here."""


class BeyondSearchError(DealTooLargeError):
    """A two-hand deal with more cards a hand than the exact search takes (its limit is in the message)."""


class IllegalMoveError(WhistError, ValueError):
    """A card that may not be played now: not in the hand, not following suit, or out of turn."""


class CatalogueError(WhistError):
    """A catalogue that is missing, foreign, corrupt or incomplete."""


class CatalogueDamagedError(CatalogueError):
    """A check found the catalogue physically damaged (a table gone, rows lost): exit status 1, "check failed"."""


class SearchSyntaxError(WhistError, ValueError):
    """A search expression that does not parse or names unknown fields."""


class GameArgumentError(WhistError, ValueError):
    """Invalid parameters for one of the solved matrix games."""


# -- the store: the catalogue database ------------------------------------------------------------------


class NotInCatalogue(CatalogueError, LookupError):
    """The deal's level is not (completely) in the catalogue: compute it instead.

    A :class:`LookupError`, so that a solver chain moves on to the next solver, and a :class:`CatalogueError`,
    so that the command line reports it as one line when nothing can move on.
    """


class CatalogueBusyError(CatalogueError):
    """Another build holds the catalogue's build lock."""


class CatalogueLinkedError(CatalogueError):
    """The catalogue file has several names (hard links): no build may write it."""


class MalformedContentError(ValueError):
    """Contents this software would not have written: a cell of the wrong type, a short blob, invalid JSON, a
    level row whose checksum differs.  Raised by the code that checks what it reads; the store's
    ``database_errors`` reports it as a damaged catalogue (:class:`CatalogueDamagedError`)."""


class MissingDependency(WhistError, ImportError):
    """An optional library this needs is not installed (the message says how to get it)."""


class ExportTargetError(WhistError, ValueError):
    """A file an export cannot or must not write: a directory, a missing directory, the catalogue itself, a
    file system without room for it."""


class DistributionError(WhistError, ValueError):
    """Suit sizes that are not a list of positive integers, or a level whose counts no source has."""


# -- the command line, the engine and the games ---------------------------------------------------------


class UsageError(WhistError, ValueError):
    """A command-line option, or a combination of options, that the command cannot take (found after parsing)."""


class ClusterError(WhistError):
    """A ``--cluster`` address that is malformed or does not answer, or the cluster extra missing."""


class InvalidMatrixError(GameArgumentError):
    """A pay-off matrix that is empty, ragged, or holds something that is not a number."""


class ChunkError(ValueError):
    """The bytes are not a well-formed chunk of value codes (damaged, truncated, or not a chunk at all).

    Not a :class:`WhistError`: the store reports it as a damaged catalogue (:class:`CatalogueDamagedError`)."""


class CertificationError(ValueError):
    """A claimed solution in which a strategy fails to guarantee the claimed value.

    Not a :class:`WhistError`: the games certify their own solutions, so a failure is a bug (exit status 70)."""


def counted(k: int, noun: str, nouns: str | None = None) -> str:
    """``1 card``, ``2 cards``, ``1 entry``, ``3 entries``: a count and its noun, singular only for 1."""
    return f"{k} {noun if k == 1 else nouns or noun + 's'}"
