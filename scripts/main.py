"""``whist-catalogue``: the command line of docs/spec.md §4.

Each group of sub-commands lives in its own module with a ``register`` function, and takes
what the commands share (options, deals from the arguments or stdin, the error line's form)
from :mod:`.cli`; this module builds the parser and is the one place where a problem
becomes an exit status (:func:`main`):

* 0 — done;
* 1 — a check ran and failed (``verify``, or ``build`` finding its catalogue damaged);
* 2 — the user's input, options, environment, catalogue or output stream is at
  fault (a :class:`~whist_catalogue.errors.WhistError`, a full device, a closed
  pipe, text that is not UTF-8): one line on stderr, nothing changed on disk;
* 130 / 143 — stopped by SIGINT / SIGTERM: one calm line, ``whist-catalogue: interrupted``
  (a stop asked for is not an error; a build keeps every finished level);
* 70 — a bug: one line naming it (``WHIST_CATALOGUE_TRACEBACK=1`` shows the traceback).
"""

from __future__ import annotations

import argparse
import errno
import gc
import os
import signal
import sys
from typing import Callable, Iterator, Sequence

from whist_catalogue import __version__
from whist_catalogue.errors import CatalogueDamagedError, WhistError
from whist_catalogue.scripts.cli import (
    ERROR,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_SIGINT,
    EXIT_SIGTERM,
    EXIT_SOFTWARE,
    EXIT_USAGE,
    OWN_PROCESS,
    PROGRAM,
    Parser,
    add_db_option,
    add_json_option,
    one_line,
)


class Terminated(SystemExit):
    """SIGTERM arrived: unwinds like KeyboardInterrupt, so ``finally`` blocks and rollbacks run.

    A :class:`SystemExit` (status 143 should it ever escape :func:`main`), because database drivers know
    what that is: psycopg cancels the query in progress on one, where another exception would leave the
    connection busy, and its cleanup would fail line after line."""

    def __init__(self) -> None:
        super().__init__(EXIT_SIGTERM)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; given the ``command`` about to run, only the modules up to the one that registers it
    are imported (a batch of deals should not pay for the catalogue's or the games' imports).

    ``common`` — ``--db`` and ``--json`` — is the parent of the sub-commands where both mean something;
    the others add the one that does with :func:`add_db_option` / :func:`add_json_option`."""
    common = Parser(add_help=False)
    add_db_option(common)
    add_json_option(common)

    parser = Parser(
        prog=PROGRAM,
        description="Exact values and optimal play of two-person whist (Wästlund), and solved card games.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for register in _registrars():
        register(sub, common)
        if command is not None and command in sub.choices:
            break
    return parser


def _registrars() -> Iterator[Callable[[argparse._SubParsersAction, argparse.ArgumentParser], None]]:
    from whist_catalogue.scripts import deal_commands

    yield deal_commands.register
    for name in ("scan_command", "catalogue_commands", "distribution_command", "solve_command", "gui_command"):
        yield __import__(f"whist_catalogue.scripts.{name}", fromlist=["register"]).register


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every way out is an exit status (module docstring) and at most one line on stderr."""
    previous = _handle_sigterm()
    _readable_output()
    try:
        return _run(argv)
    except (KeyboardInterrupt, Terminated, Exception) as exc:
        stopped = _signal_behind(exc)
        if stopped is not None:
            # A stop someone asked for is not an error: one calm line, and the signal's exit status.
            return _stopped("terminated", EXIT_SIGTERM) if isinstance(stopped, Terminated) \
                else _stopped("interrupted", EXIT_SIGINT)
        raise
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _signal_behind(exc: BaseException) -> BaseException | None:
    """The Ctrl-C or SIGTERM that ``exc`` is, or that it arose while handling: unwinding after a signal (a
    rollback, a lost connection's cleanup) may fail in turn, and the failure must not pass for the reason the
    command stopped."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, (KeyboardInterrupt, Terminated)):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _run(argv: Sequence[str] | None) -> int:
    """:func:`main` without the signals: every failure that is not one becomes its exit status here."""
    try:
        own_process = argv is None  # the console script, not a caller in a longer-lived process
        argv = sys.argv[1:] if argv is None else list(argv)
        # Only the command modules up to the one named are imported (start-up: docs/benchmarks.md).
        parser = build_parser(argv[0] if argv and not argv[0].startswith("-") else None)
        args = parser.parse_args(argv)
        OWN_PROCESS["console"] = own_process
        if own_process:
            # What start-up built (modules, the parser) lives to the end: kept out of the collector's full
            # passes, which a batch of deals would otherwise trigger over and over (docs/benchmarks.md).
            gc.freeze()
        from whist_catalogue.theory.jit import announcing  # light: Numba loads only with a kernel

        with announcing(_preparing):
            code = int(args.func(args) or EXIT_OK)
        sys.stdout.flush()  # a full device or a closed pipe shows here, not at exit
        return code
    except (WhistError, OSError) as exc:
        if _signal_behind(exc) is not None:
            raise
        if isinstance(exc, CatalogueDamagedError):
            return _fail(f"check failed: {exc}", EXIT_FAILED)
        return _fail(str(exc) if isinstance(exc, WhistError) else _os_error_text(exc), EXIT_USAGE)
    except MemoryError:
        return _fail("out of memory (the input is too large for this machine)", EXIT_USAGE)
    except Exception as exc:  # noqa: BLE001 - the last resort: a bug, still one line
        if os.environ.get("WHIST_CATALOGUE_TRACEBACK") or _signal_behind(exc) is not None:
            raise
        return _fail(f"internal error: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                     " (please report it; WHIST_CATALOGUE_TRACEBACK=1 shows the traceback)", EXIT_SOFTWARE)


def _preparing(text: str) -> None:
    """A command's first Numba compile (an empty or stale cache): said at once, since it can take a minute."""
    sys.stderr.write(f"whist-catalogue: {text} …\n")
    sys.stderr.flush()


def _fail(message: str, code: int) -> int:
    return _say(ERROR + one_line(message), code)


def _stopped(word: str, code: int) -> int:
    return _say(f"{PROGRAM}: {word}", code)


def _say(line: str, code: int) -> int:
    _silence_stdout()
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except OSError:
        pass  # stderr itself is gone: the exit status is all that is left
    return code


OUTPUT_FALLBACK = "whist-catalogue-ascii"
"""The codec error handler :func:`_readable_output` installs on a stream that cannot encode the answers."""
_ASCII_FALLBACKS = {
    "ε": "e", "−": "-", "±": "+-", "×": "x", "…": "...", "–": "-", "—": "--", "≤": "<=", "≥": ">=", "≠": "!=",
    "ρ": "rho", "α": "alpha", "·": ".", "→": "->", "≈": "~", "√": "sqrt", "’": "'", "‘": "'", "“": '"', "”": '"',
    **{chr(0x2080 + d): str(d) for d in range(10)}, **{chr(0x2070 + d): str(d) for d in (0, 4, 5, 6, 7, 8, 9)},
    "¹": "1", "²": "2", "³": "3", "\u0304": "", "\u0332": "", "\u00a0": " ",
}
"""What the answers write outside ASCII, in the ASCII the search language reads (``3 − ε₂`` → ``3 - e2``)."""


def _ascii_fallback(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    import unicodedata

    text = exc.object[exc.start:exc.end]
    out = []
    for char in text:
        known = _ASCII_FALLBACKS.get(char)
        if known is None:  # a letter with an accent loses it; anything else is escaped, readable and unambiguous
            bare = "".join(c for c in unicodedata.normalize("NFKD", char) if c.isascii())
            known = bare or char.encode("ascii", "backslashreplace").decode("ascii")
        out.append(known)
    return "".join(out), exc.end


def _readable_output() -> None:
    """On a stream whose encoding cannot write the answers (``PYTHONIOENCODING=ascii``, a C locale on an old
    system), write ASCII stand-ins for what it cannot encode, instead of failing on the first ε."""
    import codecs

    try:
        codecs.lookup_error(OUTPUT_FALLBACK)
    except LookupError:
        codecs.register_error(OUTPUT_FALLBACK, _ascii_fallback)
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        reconfigure = getattr(stream, "reconfigure", None)
        if not encoding or reconfigure is None:
            continue  # not a real text stream (tests' StringIO): it takes any text
        try:
            if codecs.lookup(encoding).name in ("utf-8", "utf-16", "utf-32", "gb18030"):
                continue
            reconfigure(errors=OUTPUT_FALLBACK)
        except (LookupError, ValueError, OSError):
            pass


def _os_error_text(exc: OSError) -> str:
    if isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE:
        return "output closed before the end (broken pipe)"
    reason = exc.strerror or str(exc) or type(exc).__name__
    # Without a file name it was a write to stdout (the only stream written without one).
    return f"{exc.filename}: {reason}" if exc.filename else f"cannot write the output: {reason}"


def _silence_stdout() -> None:
    """Drop what stdout still buffers: after a full device or a closed pipe, the interpreter's own flush
    at exit would fail again and print a traceback (the recipe of Python's signal documentation)."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass  # not a real file (tests' StringIO): nothing is flushed at exit


def _handle_sigterm():  # noqa: ANN202 - the previous handler, or None off the main thread
    def terminated(_signum, _frame) -> None:  # noqa: ANN001
        raise Terminated

    try:
        return signal.signal(signal.SIGTERM, terminated)
    except ValueError:  # not the main thread (the app's workers): leave signals alone
        return None


if __name__ == "__main__":
    raise SystemExit(main())
