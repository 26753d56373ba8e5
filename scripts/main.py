"""``whist-catalogue``: the command line of SPEC §4.

Each group of sub-commands lives in its own module with a ``register`` function;
this module builds the parser, reads deals from the arguments or stdin, and is
the one place where an error the user caused becomes one line on stderr and
exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, Iterator, NoReturn, Sequence

from whist_catalogue import __version__
from whist_catalogue.errors import WhistError

EXIT_OK = 0
EXIT_FAILED = 1
"""A check that ran and found a problem (``verify``)."""
EXIT_USAGE = 2
"""Bad input of any kind: nothing was changed on disk."""


class UsageError(WhistError):
    """A command-line usage problem found after parsing."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, exit status 2 (SPEC §4)."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_USAGE)


def deal_arguments(items: Sequence[str]) -> Iterator[str]:
    """The deals to work on: the arguments, or one per line of stdin when the only argument is ``-``."""
    if list(items) == ["-"]:
        for line in sys.stdin:
            if line.strip():
                yield line.strip()
    else:
        if not items:
            raise UsageError("no deals given (pass deals as arguments, or - to read them from stdin)")
        yield from items


def emit_json(obj: object) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; given the ``command`` about to run, only the modules up to the one that registers it
    are imported (a batch of deals should not pay for the catalogue's or the games' imports)."""
    common = _Parser(add_help=False)
    common.add_argument("--db", metavar="URL_OR_PATH", help="catalogue: a SQLite path or a SQLAlchemy URL")
    common.add_argument("--json", action="store_true", help="one JSON object per line (JSON Lines) on stdout")

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
    for name in ("scan_command", "catalogue_commands", "solve_command", "gui_command"):
        try:
            module = __import__(f"whist_catalogue.scripts.{name}", fromlist=["register"])
        except ModuleNotFoundError as exc:
            if exc.name != f"whist_catalogue.scripts.{name}":
                raise
            continue
        yield module.register


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv and not argv[0].startswith("-") else None)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or EXIT_OK)
    except WhistError as exc:
        sys.stderr.write(f"whist-catalogue: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("whist-catalogue: interrupted\n")
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
