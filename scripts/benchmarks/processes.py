"""Wall time of whole command-line processes, interleaved, for figures a short process drifts on.

Usage: ``python -m whist_catalogue.scripts.benchmarks.processes [--runs 15] [--stdin FILE] COMMAND…``
(each COMMAND one shell-quoted string, e.g. ``".venv/bin/python -c pass"``
``".venv/bin/whist-catalogue outcome --json -"``).

A 0.1-second process is at the mercy of the machine's moment (docs/benchmarks.md), so the commands
are run in rounds — one of each per round, in turn — and each gets its fastest and median time; the
same input goes to each on stdin.  ``env NAME=VALUE …`` in a command sets its environment, which is
how two source trees are compared on one interpreter (``env PYTHONPATH=…``).
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import time
from pathlib import Path
from typing import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Interleaved wall times of command-line processes.")
    parser.add_argument("commands", nargs="+", metavar="COMMAND", help="a command line, quoted as one argument")
    parser.add_argument("--runs", type=int, default=15, help="rounds: each command runs once a round")
    parser.add_argument("--stdin", type=Path, help="a file given to every command on stdin")
    args = parser.parse_args(argv)

    data = args.stdin.read_bytes() if args.stdin else b""
    commands = [shlex.split(c) for c in args.commands]
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(args.runs):
        for command, spent in zip(commands, times):
            started = time.perf_counter()
            subprocess.run(command, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            spent.append(time.perf_counter() - started)
    for text, spent in zip(args.commands, times):
        print(f"fastest {min(spent) * 1e3:6.1f} ms   median {statistics.median(spent) * 1e3:6.1f} ms   {text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
