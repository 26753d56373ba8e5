"""What every command of ``whist-catalogue`` shares (docs/spec.md §4): exit statuses, the one form of an error
line, options, numbers, deals from the arguments or stdin, JSON Lines.

:mod:`.main` builds the parser from the command modules and turns every problem into an exit status; the
command modules import their shared parts from here, never from :mod:`.main` (which imports them).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from typing import Any, Callable, Iterator, NamedTuple, NoReturn, Sequence

from whist_catalogue.errors import InvalidDealError, UsageError, WhistError

EXIT_OK = 0
EXIT_FAILED = 1
"""A check that ran and found a problem (``verify``; ``build`` on a damaged catalogue)."""
EXIT_USAGE = 2
"""Bad input of any kind: nothing was changed on disk."""
EXIT_SOFTWARE = 70
"""An internal error (sysexits' EX_SOFTWARE): a bug to report."""
EXIT_SIGINT = 128 + signal.SIGINT
EXIT_SIGTERM = 128 + signal.SIGTERM

PROGRAM = "whist-catalogue"
ERROR = f"{PROGRAM}: error: "
"""How every error line begins, whichever command and whichever part found the problem."""

OWN_PROCESS = {"console": False}
"""``console`` is True while :func:`.main.main` runs as the console script in a process of its own (not a caller's
function in a longer-lived process): only then may a command change what the process's libraries do."""

MAX_LINE_BYTES = 400_000_000
"""The longest line read from stdin: a deal of :data:`whist_catalogue.theory.deals.MAX_HAND_SIZE` cards a hand
in number notation fits; a longer line is refused before it fills memory."""


_LINE_BREAKS = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))}
_LINE_BREAKS.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", 0x2028: "\\u2028", 0x2029: "\\u2029"})


def one_line(message: str) -> str:
    """``message`` with every control character escaped as Python writes it (``\\n``, ``\\x1b``): a file name
    or a deal holding a line break still makes one line on stderr, and no text can pass itself off as a line of
    its own in a log (or move a terminal's cursor)."""
    return message.translate(_LINE_BREAKS)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line in the one form (:data:`ERROR`), exit status 2: a
    sub-command's parser would otherwise begin its lines with its own name (``whist-catalogue export: error:``)."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(ERROR + one_line(message) + "\n")
        raise SystemExit(EXIT_USAGE)


def add_command(sub: argparse._SubParsersAction, name: str, run: Callable[[argparse.Namespace], int],
                *parents: argparse.ArgumentParser, help: str, description: str) -> argparse.ArgumentParser:
    """The parser of sub-command ``name``, which ``run`` carries out."""
    parser = sub.add_parser(name, parents=list(parents), help=help, description=description)
    parser.set_defaults(func=run)
    return parser


def whole_number(text: str) -> int:
    """An option's integer, in ASCII digits (with an optional sign): ``int()`` alone would also take
    ``１４`` (fullwidth), ``١٤`` (Arabic-Indic) or ``1_000`` — never what a user meant to type."""
    digits = text.strip()
    if digits[:1] in ("-", "+"):
        digits = digits[1:]
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 20:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r} (a whole number in ASCII digits)")
    return int(text)


def add_db_option(parser: argparse.ArgumentParser) -> None:
    """``--db``, for the sub-commands that read a catalogue (the others do not list it)."""
    parser.add_argument("--db", metavar="URL_OR_PATH", help="catalogue: a SQLite path or a SQLAlchemy URL")


def add_json_option(parser: argparse.ArgumentParser,
                    help: str = "one JSON object per line (JSON Lines) on stdout") -> None:
    """``--json``, for the sub-commands that answer (the others do not list it)."""
    parser.add_argument("--json", action="store_true", help=help)


def emit_json(obj: object) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def emit(result: Any, as_json: bool) -> None:
    """A result that renders itself (docs/architecture.md): its JSON line with ``--json``, else its text."""
    if as_json:
        emit_json(result.to_json())
    else:
        sys.stdout.write(result.text() + "\n")


class DealText(NamedTuple):
    """A deal as the user wrote it, and the line of stdin it came from (None for an argument)."""

    text: str
    line: int | None = None

    def located(self, exc: WhistError) -> WhistError:
        """``exc`` about this deal, naming its line of stdin: a batch of thousands stops at the one at fault."""
        if self.line is not None:
            exc.args = (f"stdin line {self.line}: {exc}",)
        return exc


def deal_arguments(items: Sequence[str]) -> Iterator[DealText]:
    """The deals to work on: the arguments, or one per line of stdin when the only argument is ``-``."""
    if list(items) == ["-"]:
        yield from _stdin_lines()
    else:
        if not items:
            raise UsageError("no deals given (pass deals as arguments, or - to read them from stdin)")
        yield from map(DealText, rejoined(items))


def rejoined(items: Sequence[str]) -> list[str]:
    """The arguments with each deal the shell split at its spaces put back together: ``outcome AK/-, 5/QJ4``
    unquoted arrives as ``AK/-,`` and ``5/QJ4``; a piece that ends in ``,`` or ``:``, or the word ``trumps``,
    goes on in the next argument (no whole deal ends so)."""
    deals: list[str] = []
    going_on = False
    for item in items:
        if going_on:
            deals[-1] += " " + item
        else:
            deals.append(item)
        piece = item.rstrip()
        going_on = piece.endswith((",", ":")) or piece.lower() == "trumps"
    return deals


def _stdin_lines() -> Iterator[DealText]:
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
            yield DealText(line.strip(), number)
