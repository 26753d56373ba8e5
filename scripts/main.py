"""``whist-catalogue``: the command line of docs/spec.md §4.

Each group of sub-commands lives in its own module with a ``register`` function;
this module builds the parser, reads deals from the arguments or stdin, and is
the one place where a problem becomes an exit status (:func:`main`):

* 0 — done;
* 1 — a check ran and failed (``verify``, or ``build`` finding its catalogue damaged);
* 2 — the user's input, options, environment, catalogue or output stream is at
  fault (a :class:`~whist_catalogue.errors.WhistError`, a full device, a closed
  pipe, text that is not UTF-8): one line on stderr, nothing changed on disk;
* 130 / 143 — interrupted by SIGINT / SIGTERM (one line; a build keeps every
  finished level);
* 70 — a bug: one line naming it (``WHIST_CATALOGUE_TRACEBACK=1`` shows the traceback).
"""

from __future__ import annotations

import argparse
import errno
import gc
import json
import os
import signal
import sys
from typing import Callable, Iterator, NoReturn, Sequence

from whist_catalogue import __version__
from whist_catalogue.errors import CatalogueDamagedError, InvalidDealError, WhistError

EXIT_OK = 0
EXIT_FAILED = 1
"""A check that ran and found a problem (``verify``; ``build`` on a damaged catalogue)."""
EXIT_USAGE = 2
"""Bad input of any kind: nothing was changed on disk."""
EXIT_SOFTWARE = 70
"""An internal error (sysexits' EX_SOFTWARE): a bug to report."""
EXIT_SIGINT = 128 + signal.SIGINT
EXIT_SIGTERM = 128 + signal.SIGTERM

MAX_LINE_BYTES = 400_000_000
"""The longest line read from stdin: a deal of :data:`whist_catalogue.theory.deals.MAX_HAND_SIZE` cards a hand
in number notation fits; a longer line is refused before it fills memory."""


class Terminated(SystemExit):
    """SIGTERM arrived: unwinds like KeyboardInterrupt, so ``finally`` blocks and rollbacks run.

    A :class:`SystemExit` (status 143 should it ever escape :func:`main`), because database drivers know
    what that is: psycopg cancels the query in progress on one, where another exception would leave the
    connection busy, and its cleanup would fail line after line."""

    def __init__(self) -> None:
        super().__init__(EXIT_SIGTERM)


class UsageError(WhistError):
    """A command-line usage problem found after parsing."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, exit status 2 (docs/spec.md §4)."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {one_line(message)}\n")
        raise SystemExit(EXIT_USAGE)


def whole_number(text: str) -> int:
    """An option's integer, in ASCII digits (with an optional sign): ``int()`` alone would also take
    ``１４`` (fullwidth), ``١٤`` (Arabic-Indic) or ``1_000`` — never what a user meant to type."""
    digits = text.strip()
    if digits[:1] in ("-", "+"):
        digits = digits[1:]
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 20:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r} (a whole number in ASCII digits)")
    return int(text)


def deal_arguments(items: Sequence[str]) -> Iterator[str]:
    """The deals to work on: the arguments, or one per line of stdin when the only argument is ``-``."""
    if list(items) == ["-"]:
        yield from _stdin_lines()
    else:
        if not items:
            raise UsageError("no deals given (pass deals as arguments, or - to read them from stdin)")
        yield from items


def _stdin_lines() -> Iterator[str]:
    """Non-blank lines of stdin, decoded strictly as UTF-8, each at most :data:`MAX_LINE_BYTES` long."""
    stream = getattr(sys.stdin, "buffer", None)
    number = 0
    while True:
        number += 1
        if stream is None:  # a text stream (tests' StringIO)
            raw = sys.stdin.readline(MAX_LINE_BYTES + 2).encode("utf-8", "surrogateescape")
        else:
            raw = stream.readline(MAX_LINE_BYTES + 2)
        if not raw:
            return
        if len(raw.rstrip(b"\r\n")) > MAX_LINE_BYTES:  # the line went on past the limit: refuse, read no more
            raise InvalidDealError(f"stdin line {number}: longer than {MAX_LINE_BYTES:,} bytes")
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidDealError(f"stdin line {number}: not UTF-8 text (byte {exc.start + 1})") from None
        if line.strip():
            yield line.strip()


def emit_json(obj: object) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def add_db_option(parser: argparse.ArgumentParser, help: str = "catalogue: a SQLite path or a SQLAlchemy URL") -> None:
    """``--db``, for the sub-commands that read a catalogue (the others do not list it)."""
    parser.add_argument("--db", metavar="URL_OR_PATH", help=help)


def add_json_option(parser: argparse.ArgumentParser,
                    help: str = "one JSON object per line (JSON Lines) on stdout") -> None:
    """``--json``, for the sub-commands that answer (the others do not list it)."""
    parser.add_argument("--json", action="store_true", help=help)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; given the ``command`` about to run, only the modules up to the one that registers it
    are imported (a batch of deals should not pay for the catalogue's or the games' imports).

    ``common`` — ``--db`` and ``--json`` — is the parent of the sub-commands where both mean something;
    the others add the one that does with :func:`add_db_option` / :func:`add_json_option`."""
    common = _Parser(add_help=False)
    add_db_option(common)
    add_json_option(common)

    parser = _Parser(
        prog="whist-catalogue",
        description="Exact values and optimal play of two-person whist (Wästlund), and solved card games.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
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
        try:
            module = __import__(f"whist_catalogue.scripts.{name}", fromlist=["register"])
        except ModuleNotFoundError as exc:
            if exc.name != f"whist_catalogue.scripts.{name}":
                raise
            continue
        yield module.register


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every way out is an exit status (module docstring) and at most one line on stderr."""
    previous = _handle_sigterm()
    _readable_output()
    try:
        return _run(argv)
    except (KeyboardInterrupt, Terminated, Exception) as exc:
        stopped = _signal_behind(exc)
        if isinstance(stopped, Terminated):
            return _fail("terminated", EXIT_SIGTERM)
        if stopped is not None:
            return _fail("interrupted", EXIT_SIGINT)
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
        argv = sys.argv[1:] if own_process else list(argv)
        # Only the command modules up to the one named are imported (start-up: docs/benchmarks.md).
        parser = build_parser(argv[0] if argv and not argv[0].startswith("-") else None)
        args = parser.parse_args(argv)
        if own_process:
            # What start-up built (modules, the parser) lives to the end: kept out of the collector's full
            # passes, which a batch of deals would otherwise trigger over and over (docs/benchmarks.md).
            gc.freeze()
        from whist_catalogue.theory.jit import announcing  # light: Numba loads only with a kernel

        with announcing(_preparing):
            code = int(args.func(args) or EXIT_OK)
        sys.stdout.flush()  # a full device or a closed pipe shows here, not at exit
        return code
    except CatalogueDamagedError as exc:
        if _signal_behind(exc) is not None:
            raise
        return _fail(f"check failed: {exc}", EXIT_FAILED)
    except WhistError as exc:
        if _signal_behind(exc) is not None:
            raise
        return _fail(str(exc), EXIT_USAGE)
    except OSError as exc:
        if _signal_behind(exc) is not None:
            raise
        return _fail(_os_error_text(exc), EXIT_USAGE)
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
    _silence_stdout()
    try:
        sys.stderr.write(f"whist-catalogue: error: {one_line(message)}\n")
        sys.stderr.flush()
    except OSError:
        pass  # stderr itself is gone: the exit status is all that is left
    return code


_LINE_BREAKS = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))}
_LINE_BREAKS.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", 0x2028: "\\u2028", 0x2029: "\\u2029"})


def one_line(message: str) -> str:
    """``message`` with every control character escaped as Python writes it (``\\n``, ``\\x1b``): a file name
    or a deal holding a line break still makes one line on stderr, and no text can pass itself off as a line of
    its own in a log (or move a terminal's cursor)."""
    return message.translate(_LINE_BREAKS)


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
