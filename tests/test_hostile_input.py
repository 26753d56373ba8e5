"""Hostile input and faults (issue 15): one clear line on stderr, exit status 2, nothing changed on disk —
never a traceback, never a hang.

Real processes where the fault is the process's own (bytes on stdin, a full device, signals, two builds at
once); in-process runs elsewhere.  Every case hashes the catalogue before and after.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from math import comb
from pathlib import Path

import pytest
from catalogue_testing import file_state, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from whist_catalogue.errors import WhistError
from whist_catalogue.store.build import build
from whist_catalogue.store.reader import open_catalogue
from whist_catalogue.store.search import MAX_DEPTH, compile_search
from whist_catalogue.theory.deals import MAX_HAND_SIZE, parse_multisuit, parse_suit

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "catalogue.sqlite"
    build(path, 5, games=False)
    return path


def _cli(*argv: str, stdin: bytes | None = None, stdout=subprocess.PIPE, env: dict | None = None,  # noqa: ANN001
         timeout: float = 120) -> subprocess.CompletedProcess:
    environment = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "whist_catalogue", *argv], input=stdin, stdout=stdout,
                          stderr=subprocess.PIPE, env=environment, cwd=REPO, timeout=timeout)


def _one_line(err: str | bytes, code: int, expected: int = 2) -> str:
    text = err.decode() if isinstance(err, bytes) else err
    assert code == expected and text.count("\n") == 1 and text.startswith("whist-catalogue: error: "), (code, text)
    assert "Traceback" not in text
    return text


# -- stdin, deals, sizes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["value", "outcome"])
def test_a_bad_deal_in_a_batch_ends_it_after_the_answers_before_it(command, built):
    """Deals from a pipe are answered 512 at a time: a bad one still gets every earlier answer out first."""
    good = ["AQ/KJ", "KQT/AJ9", "EWEWWE"] * 100
    proc = _cli(command, "--json", "--db", str(built), "-", stdin="\n".join([*good, "AQ/K", "KQ/AJ"]).encode())
    text = _one_line(proc.stderr, proc.returncode)
    assert ("asymmetric" if command == "value" else "hands of different sizes") in text
    lines = proc.stdout.decode().splitlines()
    assert [json.loads(line)["deal"] for line in lines][-3:] == good[-3:] and len(lines) == len(good)
    if command == "value":
        assert [json.loads(line)["label"] for line in lines][-3:] == ["EWEW", "EWEWWE", "EWEWWE"]


@pytest.mark.parametrize("command", ["value", "outcome"])
def test_invalid_utf8_on_stdin(command, built):
    before = file_state(built)
    proc = _cli(command, "--db", str(built), "-", stdin=b"AQ/KJ\n\xff\xfeKQ/AJ\n")
    text = _one_line(proc.stderr, proc.returncode)
    assert "stdin line 2: not UTF-8 text" in text and proc.stdout.startswith(b"AQ/KJ")
    assert file_state(built) == before


@pytest.fixture(scope="module")
def numbers_above_the_bound() -> bytes:
    """10⁷ + 1 cards a hand in number notation: 170 MB that take seconds to write out, so written once for
    both commands."""
    n = MAX_HAND_SIZE + 1
    return (" ".join(map(str, range(1, n + 1))) + " / " + " ".join(map(str, range(n + 1, 2 * n + 1)))).encode()


@pytest.mark.parametrize("command", ["value", "outcome"])
@pytest.mark.parametrize("notation", ["owner", "numbers"])
def test_a_deal_above_the_size_bound_is_refused_at_once(command, notation, request):
    """10⁷ + 1 cards a hand on stdin: refused before any parsing, the bound in the message."""
    n = MAX_HAND_SIZE + 1
    if notation == "owner":
        line = b"W" * n + b"E" * n + b"\n"
    else:
        line = request.getfixturevalue("numbers_above_the_bound")
    started = time.monotonic()
    proc = _cli(command, "-", stdin=line, timeout=60)
    text = _one_line(proc.stderr, proc.returncode)
    assert f"deal too large: {2 * n:,} cards (at most {MAX_HAND_SIZE:,} cards a hand)" in text
    assert time.monotonic() - started < 60


def test_a_line_longer_than_the_bound_is_refused_without_reading_on(monkeypatch):
    import io

    from whist_catalogue.scripts import cli

    monkeypatch.setattr(cli, "MAX_LINE_BYTES", 100)
    monkeypatch.setattr(sys, "stdin", io.StringIO("EWEW\n" + "W" * 150 + "E" * 150 + "\nEW\n"))
    code, out, err = run_cli("value", "-")
    assert "stdin line 2: longer than 100 bytes" in _one_line(err, code) and out.startswith("EWEW")


def test_size_bound_counts_cards_not_characters():
    # A hand in rank notation longer than every rank is refused without walking it.
    with pytest.raises(WhistError, match="a hand holds at most 13 ranks"):
        parse_suit("A" * (2 * MAX_HAND_SIZE + 1) + "/K")
    with pytest.raises(WhistError, match="characters"):
        parse_multisuit("1" * (41 * MAX_HAND_SIZE))


# -- search -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["--offset", "--limit"])
def test_huge_offset_and_limit(built, option):
    before = file_state(built)
    code, out, err = run_cli("search", "--db", str(built), option, "99999999999999999999", "n = 1")
    assert "must be at most 1,000,000,000,000,000" in _one_line(err, code) and out == ""
    assert file_state(built) == before


@pytest.mark.parametrize("expression", [
    "n" + "+n" * 1500 + " = 1",
    "n = 1" + "-1" * 1900,
    "stoppers" + "+stoppers" * 400 + " > 0",
    "n" + "*1" * 1500 + " = 1",
    "-" * 1000 + "n = 1",
])
def test_long_arithmetic_chains_are_too_deep_not_a_recursion_error(built, expression):
    code, _, err = run_cli("search", "--db", str(built), "--count", expression)
    assert "nested too deeply" in _one_line(err, code) or "too long" in err
    with pytest.raises(WhistError):
        compile_search(expression)


def test_a_megabyte_expression_through_the_library():
    with pytest.raises(WhistError, match="too long"):
        compile_search("n" + "+n" * 500_000 + " = 1")
    # A chain as deep as allowed still compiles.
    compile_search("n" + "+n" * (MAX_DEPTH - 2) + " = 1")


def test_verify_sample_bound(built):
    code, _, err = run_cli("verify", "--db", str(built), "--sample", "99999999999999999999")
    assert "--sample must be at most 100,000" in _one_line(err, code)


# -- the catalogue's contents -----------------------------------------------------------------------------


# Not `value`: every suit with n ≤ 8 comes from the preloaded table however the catalogue is named (issue 21:
# `--db` costs what WHIST_CATALOGUE_DB costs).
CHUNK_READERS = (["search", "n = 3"], ["export", "--level", "3"])
LEVEL_READERS = (["stats"], ["export", "--level", "3"])


@pytest.mark.parametrize("statement, readers", [
    ("UPDATE level_chunk SET data = 'garbage' WHERE n = 3", CHUNK_READERS),
    ("UPDATE level_chunk SET checksum = 'garbage' WHERE n = 3", CHUNK_READERS),
    ("UPDATE level_chunk SET stop = stop - 1 WHERE n = 3", CHUNK_READERS),
    ("UPDATE level SET statistics = '{not json' WHERE n = 3", LEVEL_READERS + (["search", "n = 3"],)),
    ("UPDATE level SET software_version = x'00ff' WHERE n = 3", LEVEL_READERS),
    ("UPDATE level SET built_at = 'yesterday' WHERE n = 3", LEVEL_READERS),
    ("UPDATE level SET n = 0 WHERE n = 4", LEVEL_READERS),
    ("UPDATE level SET n = -1 WHERE n = 4", LEVEL_READERS),
    ("UPDATE level SET n = 9000000000 WHERE n = 4", LEVEL_READERS),
])
def test_malformed_contents_name_the_catalogue_as_corrupt(built, tmp_path, statement, readers):
    """Each command that reads the malformed part names the catalogue as corrupt (exit status 1); verify fails."""
    path = tmp_path / "corrupt.sqlite"
    shutil.copy(built, path)
    with sqlite3.connect(path) as conn:
        conn.execute(statement)
    conn.close()
    before = file_state(path)
    for argv in readers:
        code, _, err = run_cli(*argv, "--db", str(path))
        text = _one_line(err, code, 1)  # damage found while reading: exit status 1, as verify's
        assert (f"catalogue {path} is corrupt" in text or f"catalogue {path} is damaged" in text) \
            and "verify" in text, (argv, text)
    code, out, err = run_cli("verify", "--db", str(path), "--sample", "1")
    assert code == 1 and "verify FAILED" in out and "Traceback" not in out + err
    assert file_state(path) == before


# -- environment and database URLs ------------------------------------------------------------------------


@pytest.mark.parametrize("url, named", [
    ("postgresql+nosuchdriver://u@h/db", "unknown database driver 'postgresql+nosuchdriver'"),
    ("postgresql+psycopg2://u@h/db", "database driver 'psycopg2' is not installed"),
    ("postgresql+asyncpg://u@h/db", "database driver 'asyncpg' is asynchronous"),
    ("postgresql+pg8000://u@h/db", "database driver 'pg8000' is not installed"),
])
def test_unknown_or_missing_database_drivers(url, named):
    for argv in (["search", "n = 1"], ["value", "AQ/KJ"], ["build", "--max-n", "1"], ["verify"]):
        code, _, err = run_cli(*argv, "--db", url)
        assert named in _one_line(err, code), (argv, err)


@pytest.mark.parametrize("content", [b"hello, I am text\n", b"\x00" * 4096, b"SQLite format 3\x00garbage"])
def test_a_broken_catalogue_in_the_environment_is_reported(tmp_path, monkeypatch, content):
    path = tmp_path / "env.sqlite"
    path.write_bytes(content)
    monkeypatch.setenv("WHIST_CATALOGUE_DB", str(path))
    before = file_state(path)
    code, out, err = run_cli("value", "AQ/KJ")
    assert str(path) in _one_line(err, code) and out == ""
    assert file_state(path) == before


def test_a_named_missing_directory_is_refused_by_option_and_environment_alike(tmp_path, monkeypatch):
    target = tmp_path / "no" / "such" / "c.sqlite"
    code, _, err = run_cli("build", "--max-n", "1", "--db", str(target), "--no-progress")
    assert "no directory" in _one_line(err, code)
    monkeypatch.setenv("WHIST_CATALOGUE_DB", str(target))
    code, _, err = run_cli("build", "--max-n", "1", "--no-progress")
    assert "no directory" in _one_line(err, code)
    assert not (tmp_path / "no").exists()


# -- the output stream ------------------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [["export"], ["search", "n <= 3"], ["value", "AQ/KJ"], ["stats"],
                                  ["outcome", "AQ/KJ, KQ/AJ"]])
def test_writing_to_a_full_device(built, argv):
    before = file_state(built)
    with open("/dev/full", "wb") as full:
        proc = _cli(*argv, "--db", str(built), stdout=full)
    assert "cannot write the output: No space left on device" in _one_line(proc.stderr, proc.returncode)
    assert file_state(built) == before


def test_a_closed_pipe(built):
    proc = subprocess.run(f"{sys.executable} -m whist_catalogue export --db {built} --no-progress | head -n 2", shell=True,
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.stdout.count("\n") == 2
    assert proc.stderr in ("", "whist-catalogue: error: output closed before the end (broken pipe)\n")


@pytest.mark.parametrize("directory", ["/dev/full", "/proc/whist-catalogue-test/shots", "/etc/hostname/shots"])
def test_gui_screenshot_into_a_place_that_cannot_hold_it(directory):
    code, _, err = run_cli("gui", "--screenshot", directory)
    assert f"cannot write screenshots to {directory}" in _one_line(err, code)


def test_reading_on_a_full_file_system(built, tmp_path):
    """A tmpfs filled to the last block (in a private mount namespace): reading needs no space."""
    if subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode != 0:
        pytest.skip("no private mount namespace here (unshare -rm)")
    mount = tmp_path / "full"
    mount.mkdir()
    script = (
        f"mount -t tmpfs -o size=512k tmpfs {mount} && cp {built} {mount}/c.sqlite"
        f" && (dd if=/dev/zero of={mount}/fill bs=4k 2>/dev/null; true)"
        f" && {sys.executable} -m whist_catalogue value --db {mount}/c.sqlite AQ/KJ"
        f" && ls {mount}"
    )
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, cwd=REPO,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "value     1 + 1/2" in proc.stdout and proc.stdout.rstrip().endswith("c.sqlite\nfill")


# -- fuzzing: arbitrary text raises the project's own errors only -----------------------------------------

DEAL_ALPHABET = st.sampled_from(list("AKQJT98765432WEwe10/ ,;-+\t") + ["10", "\u00a0", "é", "\x00", "99999"])
SEARCH_ALPHABET = st.sampled_from(
    ["n", "value", "frac", "inf", "e0", "-e2", "stoppers", "outcome", "ace", "W", "counterexample", "class",
     "dyadic", "12.4", "(", ")", ",", "=", "!=", "<", ">=", "+", "-", "*", "/", "+-", "and", "or", "not", "in",
     " ", "3/8", "0.375", "99999999999999999", "±", "ε", "≤", "'", "\"", ";", "holdup", "key", "flags"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=60), st.lists(DEAL_ALPHABET, max_size=40).map("".join)))
def test_fuzz_the_deal_parser(text):
    for parse in (parse_suit, parse_multisuit):
        try:
            parse(text)
        except WhistError:
            pass


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=80), st.lists(SEARCH_ALPHABET, max_size=50).map("".join)))
def test_fuzz_the_search_language(text):
    try:
        compile_search(text)
    except WhistError:
        pass


# -- concurrency and signals (real processes) -------------------------------------------------------------


def _as_from_a_terminal() -> None:
    # A job started in the background by a non-interactive shell (as CI may run the suite) inherits SIGINT
    # ignored, and Python then rightly leaves it ignored; the build under test is run as a user at a
    # terminal runs it, where Ctrl+C delivers SIGINT.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_build(path: Path, max_n: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "whist_catalogue", "build", "--max-n", str(max_n), "--db",
                             str(path), "--no-progress", "--no-games"], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_as_from_a_terminal)


def _wait_for_level(path: Path, n: int, proc: subprocess.Popen, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while True:
        assert proc.poll() is None, f"the build ended early: {proc.stderr.read()!r}"
        assert time.monotonic() < deadline, f"level {n} never completed"
        try:
            with open_catalogue(path) as catalogue:
                if n in catalogue.complete_levels():
                    return
        except WhistError:
            pass
        time.sleep(0.05)


def test_readers_during_a_build_and_a_second_build(tmp_path):
    """While a build writes: readers see whole levels only and never "database is locked"; a second build
    is refused at once, naming the first; neither leaves side files behind."""
    path = tmp_path / "busy.sqlite"
    first = _start_build(path, 12)  # levels 9–12 leave seconds of work after level 6
    try:
        _wait_for_level(path, 6, first)
        second = _cli("build", "--max-n", "12", "--db", str(path), "--no-progress", "--no-games")
        text = _one_line(second.stderr, second.returncode)
        assert f"another build is running on {path} (pid {first.pid})" in text
        reads = 0
        while first.poll() is None:
            with open_catalogue(path) as catalogue:
                for n in catalogue.complete_levels():
                    assert catalogue.count(f"n = {n}") == comb(2 * n, n)
                reads += 1
        assert reads > 0
    finally:
        first.kill() if first.poll() is None else None
        out, err = first.communicate()
    assert first.returncode == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["busy.sqlite"]


@pytest.mark.parametrize("signum, status, word", [(signal.SIGTERM, 143, "terminated"),
                                                  (signal.SIGINT, 130, "interrupted")])
def test_a_signal_stops_a_build_cleanly(tmp_path, signum, status, word):
    path = tmp_path / "signalled.sqlite"
    proc = _start_build(path, 13)  # levels 9–13 leave seconds of work after level 8, however fast the machine
    try:
        _wait_for_level(path, 8, proc)
        sent = time.monotonic()
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
        waited = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == status and err == f"whist-catalogue: {word}\n" and out == "", (proc.returncode, err)
    assert waited < 10, f"took {waited:.1f} s to stop"  # generous: the machine is shared; typically under 1 s
    assert sorted(p.name for p in tmp_path.iterdir()) == ["signalled.sqlite"], "no -wal, -shm or lock left"
    with open_catalogue(path) as catalogue:
        assert set(range(1, 9)) <= catalogue.complete_levels()
    code, out, _ = run_cli("verify", "--db", str(path), "--sample", "0")
    assert "checksums match" in out


def test_sigterm_during_an_export_leaves_no_partial_file(tmp_path):
    path = tmp_path / "c.sqlite"
    build(path, 10, games=False)  # 250,000 deals: seconds of export
    target = tmp_path / "out.csv"
    proc = subprocess.Popen([sys.executable, "-m", "whist_catalogue", "export", "--db", str(path), "--no-progress",
                             "-o", str(target)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    partial = tmp_path / "out.csv.partial"
    deadline = time.monotonic() + 60
    while not (partial.exists() and partial.stat().st_size > 0):
        assert proc.poll() is None and time.monotonic() < deadline, "the export never started writing"
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and err == "whist-catalogue: terminated\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.sqlite"]
