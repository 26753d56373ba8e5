"""Helpers shared by the catalogue's tests: building small catalogues, running the CLI, a throw-away PostgreSQL.

PostgreSQL: :func:`postgres_server` starts a private server with the PostgreSQL
binaries found under ``/usr/lib/postgresql/*/bin`` (or on ``PATH``, or in
``$WHIST_PG_BIN``): ``initdb`` into a temporary directory, ``pg_ctl start``
listening only on a Unix socket in that directory, trust authentication,
``fsync=off``.  As root it runs them as the ``postgres`` user (``runuser``).  It
yields a SQLAlchemy URL and stops and deletes the server afterwards.  Tests
skip only when no PostgreSQL binaries exist.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from whist_catalogue.store.build import build

JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")
"""False in the CI run with NUMBA_DISABLE_JIT=1: the engine then runs as plain Python, and the
catalogue tests build smaller catalogues (n ≤ 7–8 instead of 9–10)."""


def build_catalogue(path: Path, max_n: int, **options) -> Path:
    build(path, max_n, **options)
    return path


def file_state(path: Path) -> tuple:
    """What must not change: the file's bytes and mtime, and the directory listing."""
    listing = tuple(sorted(p.name for p in path.parent.iterdir()))
    if not path.exists():
        return (None, None, listing)
    stat = path.stat()
    return (hashlib.sha256(path.read_bytes()).hexdigest(), stat.st_mtime_ns, listing)


def run_cli(*argv: str) -> tuple[int, str, str]:
    """Run ``whist-catalogue`` in-process: (exit status, stdout, stderr)."""
    from whist_catalogue.scripts.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse errors
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


# -- PostgreSQL ---------------------------------------------------------------------------------------


def _pg_bin() -> Path | None:
    env = os.environ.get("WHIST_PG_BIN")
    candidates = [Path(env)] if env else []
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    which = shutil.which("initdb")
    if which:
        candidates.append(Path(which).parent)
    for c in candidates:
        if (c / "initdb").is_file() and (c / "pg_ctl").is_file():
            return c
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """A private PostgreSQL server for one test; yields ``postgresql+psycopg://…`` (see the module docstring)."""
    pytest.importorskip("psycopg")
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found")
    prefix: list[str] = []
    root = os.geteuid() == 0
    if root:
        if shutil.which("runuser") is None:
            pytest.skip("running as root without runuser: cannot start PostgreSQL as another user")
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no 'postgres' user to run the server")
        prefix = ["runuser", "-u", "postgres", "--"]
    # A short path: Unix socket names are limited to ~100 bytes.
    base = Path(tempfile.mkdtemp(prefix="whistpg-", dir="/tmp"))
    if root:
        shutil.chown(base, "postgres")
    data, log = base / "data", base / "log"
    port = _free_port()
    subprocess.run(prefix + [str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
                             "-E", "UTF8", "--no-sync"], check=True, capture_output=True)
    options = f"-k {base} -c listen_addresses='' -p {port} -c fsync=off -c full_page_writes=off"
    subprocess.run(prefix + [str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(log), "-w",
                             "-t", "60", "start"], check=True, capture_output=True)
    try:
        yield f"postgresql+psycopg://postgres@/postgres?host={base}&port={port}"
    finally:
        subprocess.run(prefix + [str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                       capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


# -- an independent reference ------------------------------------------------------------------------


def reference_records(max_n: int) -> list:
    """Every deal with n ≤ ``max_n`` as a :class:`~whist_catalogue.store.records.DealRecord`, in key order,
    computed without the catalogue: values, best moves and check bits by the engine's own kernels (its moves
    kernel, not α over stored chunks), the single-suit quantities by the paper's direct formulas deal by deal."""
    from whist_catalogue.constants import CHECK_NAMES
    from whist_catalogue.engine.levels import levels
    from whist_catalogue.single_suit.formulas import quantities
    from whist_catalogue.store.records import DealRecord
    from whist_catalogue.theory.deals import Deal
    from whist_catalogue.theory.ranking import level_masks
    from whist_catalogue.theory.values import rho

    found = []
    for level in levels(max_n, moves=True, checks=True):
        n = level.n
        assert level.moves is not None and level.flags is not None
        for r, mask in enumerate(level_masks(n).tolist()):
            deal = Deal(n, mask)
            q = quantities(deal)
            value = level.value(r)
            assert deal.ace_holder is not None
            found.append(DealRecord(
                deal=deal, value=value, outcome=rho(value), move_masks=tuple(int(m) for m in level.moves[r]),
                h_lower=q.h_lower, h_upper=q.h_upper, h=q.h, greedy=q.greedy_whist_outcome,
                five_card=(q.five_card_west_leads, q.five_card_east_leads), ace=deal.ace_holder,
                flags=int(level.flags[r]) & ((1 << len(CHECK_NAMES)) - 1)))
    return found
