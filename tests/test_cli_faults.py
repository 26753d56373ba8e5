"""Hostile input at the command line's edges (issue 21): the catalogue's name and identity, the output
stream's encoding, option values, and builds refused on storage that cannot take them — one clear line on
stderr, exit status 2, nothing changed on disk.

Real processes where the fault lives in the process (its environment, its encoding, a mount, a second build);
in-process runs elsewhere.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from catalogue_testing import file_state, run_cli

from whist_catalogue.engine.cluster import max_local_workers
from whist_catalogue.store.build import build
from whist_catalogue.store.database import parse_location
from whist_catalogue.store.lock import BuildLock
from whist_catalogue.store.reader import open_catalogue

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("faults") / "catalogue.sqlite"
    build(path, 5, games=False)
    return path


@pytest.fixture
def copy(built, tmp_path) -> Path:
    """A private copy of the catalogue, alone in its directory."""
    path = tmp_path / "c.sqlite"
    shutil.copy(built, path)
    return path


def _cli(*argv: str, env: dict | None = None, cwd: Path = REPO, timeout: float = 120) -> subprocess.CompletedProcess:
    environment = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "whist_catalogue", *argv], capture_output=True, text=True,
                          env=environment, cwd=cwd, timeout=timeout)


def _one_line(err: str, code: int, expected: int = 2) -> str:
    assert code == expected and err.count("\n") == 1 and err.startswith("whist-catalogue: error: "), (code, err)
    return err


def _listing(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


# -- the catalogue under another name -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["itself", "symlink", "hard link", "its lock file"])
def test_export_onto_the_catalogue_is_refused(copy, name):
    """As cp refuses to copy a file onto itself: under any name, the catalogue (or a side file) stays whole."""
    target = {"itself": copy, "symlink": copy.with_name("link.sqlite"), "hard link": copy.with_name("hard.sqlite"),
              "its lock file": copy.with_name("c.sqlite.build-lock")}[name]
    if name == "symlink":
        target.symlink_to(copy.name)
    elif name == "hard link":
        os.link(copy, target)
    elif name == "its lock file":
        target.write_bytes(b"12345\n")
    before = file_state(copy)
    code, out, err = run_cli("export", "--db", str(copy), "-o", str(target))
    assert "it is the catalogue" in _one_line(err, code) and out == ""
    assert file_state(copy) == before
    with open_catalogue(copy) as catalogue:
        assert catalogue.count("n = 5") == 252


def test_a_build_through_a_symlink_meets_the_lock_of_one_through_the_target(copy):
    """The lock is the file's, not the name's: a build through a symlink (or a symlink to the directory) is
    refused while one holds the target, naming its process."""
    link = copy.with_name("link.sqlite")
    link.symlink_to(copy.name)
    elsewhere = copy.parent / "elsewhere"
    elsewhere.symlink_to(".", target_is_directory=True)
    before = file_state(copy)
    with BuildLock(parse_location(copy)):
        for name in (link, elsewhere / "c.sqlite"):
            done = _cli("build", "--max-n", "6", "--db", str(name), "--no-progress", "--no-games")
            assert f"another build is running on {name} (pid {os.getpid()})" in _one_line(done.stderr,
                                                                                         done.returncode)
    assert file_state(copy)[:2] == before[:2]
    assert _listing(copy.parent) == ["c.sqlite", "elsewhere", "link.sqlite"]


def test_a_catalogue_with_two_names_is_not_built(copy):
    """Through a hard link SQLite keeps a second write-ahead log: two builds (or a build and a reader) through
    the two names damage the file, so no build writes a file with several names."""
    hard = copy.with_name("hard.sqlite")
    os.link(copy, hard)
    before = file_state(copy)
    for name in (copy, hard):
        code, _, err = run_cli("build", "--max-n", "6", "--db", str(name), "--no-progress", "--no-games")
        assert "the file has 2 names (hard links)" in _one_line(err, code)
    assert file_state(copy) == before
    hard.unlink()  # one name again: the build goes ahead
    code, _, err = run_cli("build", "--max-n", "6", "--db", str(copy), "--no-progress", "--no-games")
    assert code == 0, err
    with open_catalogue(copy) as catalogue:
        assert catalogue.complete_levels() == frozenset(range(1, 7))


# -- where the catalogue is ---------------------------------------------------------------------------------


def test_a_symlink_loop_as_the_catalogue(tmp_path, monkeypatch):
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    for argv in (["outcome", "AQ/KJ"], ["value", "AQ/KJ"], ["build", "--max-n", "1"], ["search", "n = 1"]):
        code, _, err = run_cli(*argv, "--db", str(tmp_path / "a"))
        assert "Too many levels of symbolic links" in _one_line(err, code), argv
    monkeypatch.setenv("WHIST_CATALOGUE_DB", str(tmp_path / "a"))  # named by the environment: the same
    code, _, err = run_cli("outcome", "AQ/KJ")
    assert "Too many levels of symbolic links" in _one_line(err, code)
    assert _listing(tmp_path) == ["a", "b"]


def test_the_home_of_an_unknown_user(tmp_path):
    for argv in (["outcome", "AQ/KJ"], ["build", "--max-n", "1"], ["stats"]):
        code, _, err = run_cli(*argv, "--db", "~nosuchuser-whist/x.sqlite")
        assert "cannot find the home directory of ~nosuchuser-whist" in _one_line(err, code), argv


def test_an_empty_db_is_refused_not_the_default_catalogue(tmp_path):
    """``--db ''`` names nothing: refused, never read as "the default catalogue" (which build would fill)."""
    data = tmp_path / "data"
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(data), "WHIST_CATALOGUE_DB": ""}
    for argv in (["build", "--max-n", "1", "--no-progress"], ["outcome", "AQ/KJ"], ["search", "n = 1"]):
        done = _cli(*argv, "--db", "", env=env)
        assert "empty catalogue location" in _one_line(done.stderr, done.returncode), argv
    assert not data.exists()


def test_a_line_break_in_a_name_stays_on_one_line(tmp_path):
    """A path with a line break (or any control character) is escaped: the error cannot forge a second line
    in a log."""
    name = str(tmp_path / "a\nwhist-catalogue: error: forged\x1b[2J")
    code, _, err = run_cli("outcome", "--db", name, "AQ/KJ")
    assert "a\\nwhist-catalogue: error: forged\\x1b[2J" in _one_line(err, code)
    code, _, err = run_cli("export", "--db", name, "--format", "c\nsv")  # argparse's own messages too
    assert code == 2 and err.count("\n") == 1 and "'c\\nsv'" in err, err


# -- the output stream's encoding ---------------------------------------------------------------------------


def test_an_ascii_output_stream_gets_ascii_stand_ins(built):
    """ε, −, ± and subscripts on a stream that cannot encode them: the search language's own spelling."""
    done = _cli("outcome", "--db", str(built), "KQT98/AJ765, AK9/QJT, AJ9753/KQT864, KQT86/AJ975",
                env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "  suit values  3 - e2  +  2 + e2  +  3  +  2 + 1/2\n  sum          10 + 1/2 +- e0\n" in done.stdout
    done = _cli("value", "--json", "--db", str(built), "EWWE", env={"PYTHONIOENCODING": "latin-1"})
    assert done.returncode == 0 and '"text": "1 - e1"' in done.stdout, done.stdout + done.stderr


# -- option values ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("argv, said", [
    (["moves", "--led", "１:T", "7/6, JT5/K83, 3/A"], "no suit '１'"),
    (["moves", "--led", "١:T", "7/6, JT5/K83, 3/A"], "no suit '١'"),
    (["build", "--max-n", "１４", "--no-progress"], "invalid int value: '１４' (a whole number in ASCII digits)"),
    (["search", "n = 1", "--limit", "1_000"], "invalid int value: '1_000'"),
    (["export", "--level", "٣"], "invalid int value"),
])
def test_digits_are_ascii_digits(built, argv, said):
    code, out, err = run_cli(*argv, "--db", str(built))
    assert code == 2 and err.count("\n") == 1 and said in err and out == "", err


def test_a_local_cluster_is_capped(built):
    """``local:100000`` would start a hundred thousand processes and never finish: refused at once."""
    cap = max_local_workers()
    before = file_state(built)
    started = time.monotonic()
    code, _, err = run_cli("build", "--cluster", f"local:{cap + 1}", "--db", str(built), "--no-progress")
    assert f"at most {cap} local worker processes" in _one_line(err, code)
    code, _, err = run_cli("scan", "--max-n", "2", "--cluster", "local:100000")
    assert f"at most {cap} local worker processes" in _one_line(err, code)
    assert time.monotonic() - started < 10 and file_state(built) == before


def test_export_to_a_name_ending_in_a_slash(copy):
    code, _, err = run_cli("export", "--db", str(copy), "-o", str(copy.parent / "out.csv") + "/")
    assert "out.csv/: not a directory" in _one_line(err, code)
    assert _listing(copy.parent) == ["c.sqlite"]


def test_gui_screenshots_into_a_directory_under_a_missing_one(tmp_path):
    """Like a build's catalogue, the directory named is taken as written: DIR may be new, its parent not."""
    code, _, err = run_cli("gui", "--screenshot", str(tmp_path / "no" / "shots"))
    assert f"no directory {tmp_path / 'no'}" in _one_line(err, code)
    assert _listing(tmp_path) == []


# -- builds refused on storage that cannot take them ---------------------------------------------------------


def test_a_build_on_an_immutable_file_leaves_nothing(copy):
    """SQLite would open the file read-only without a word, and leave -wal and -shm beside it."""
    if subprocess.run(["chattr", "+i", str(copy)], capture_output=True).returncode != 0:
        pytest.skip("no chattr +i here (needs root and a file system with the immutable flag)")
    try:
        before = file_state(copy)
        code, _, err = run_cli("build", "--max-n", "6", "--db", str(copy), "--no-progress")
        assert "the file is not writable (read-only or immutable)" in _one_line(err, code)
        assert file_state(copy) == before and _listing(copy.parent) == ["c.sqlite"]
    finally:
        subprocess.run(["chattr", "-i", str(copy)], check=True)


def test_a_build_on_a_full_file_system_leaves_nothing(built, tmp_path):
    """A tmpfs filled to the last block (in a private mount namespace): a new catalogue is not left behind, an
    existing one is unchanged, and neither leaves its lock file; with room for the lock but not for the
    catalogue, the new file goes again too."""
    if subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode != 0:
        pytest.skip("no private mount namespace here (unshare -rm)")
    mount = tmp_path / "full"
    mount.mkdir()
    build_ = f"{sys.executable} -m whist_catalogue build --max-n 6 --no-progress --no-games --db"
    script = f"""
        mount -t tmpfs -o size=256k tmpfs {mount} && cp {built} {mount}/old.sqlite || exit 99
        sum=$(sha256sum {mount}/old.sqlite)
        dd if=/dev/zero of={mount}/fill bs=4k 2>/dev/null
        {build_} {mount}/new.sqlite; echo "new: $?"
        {build_} {mount}/old.sqlite; echo "old: $?"
        [ "$sum" = "$(sha256sum {mount}/old.sqlite)" ] && echo unchanged
        ls {mount}
        rm {mount}/fill {mount}/old.sqlite && dd if=/dev/zero of={mount}/fill bs=1k count=220 2>/dev/null
        {build_} {mount}/new.sqlite; echo "new with room for the lock: $?"
        ls {mount}
    """
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, cwd=REPO,
                          timeout=300)
    assert proc.stdout.split("\n") == ["new: 2", "old: 2", "unchanged", "fill", "old.sqlite",
                                       "new with room for the lock: 2", "fill", ""], proc.stdout + proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 3 and all(line.startswith("whist-catalogue: error: ") for line in lines), proc.stderr
    assert "No space left on device" in lines[0] and "No space left on device" in lines[1]


def test_a_new_catalogue_that_fills_the_disk_part_way_keeps_its_finished_levels(tmp_path):
    """Issue 17: room for the catalogue and its first levels but not for the whole build fails with one line and
    exit 2; a catalogue that failed before its first level is gone with its -wal and -shm (it used to leave all
    three), and one that stored levels keeps them — a failed build loses no finished work — and they verify."""
    if subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode != 0:
        pytest.skip("no private mount namespace here (unshare -rm)")
    mount = tmp_path / "full"
    mount.mkdir()
    cli = f"{sys.executable} -m whist_catalogue"
    db = f"--db {mount}/new.sqlite"
    script = f"mount -t tmpfs -o size=512k tmpfs {mount} || exit 99\n" + "".join(f"""
        rm -f {mount}/*; dd if=/dev/zero of={mount}/fill bs=1k count={512 - free} 2>/dev/null
        {cli} build --max-n 6 --no-progress --no-games {db}; echo "{free}: $?"
        if [ -e {mount}/new.sqlite ]; then
            {cli} verify --json {db}; rm {mount}/fill
            {cli} build --max-n 6 --no-progress --no-games --json {db} && {cli} verify --json {db}
        fi; echo "{free}: done"
    """ for free in (64, 128, 192, 256))
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, cwd=REPO,
                          timeout=300)
    errors = proc.stderr.splitlines()
    assert len(errors) == 4 and all(e.startswith("whist-catalogue: error: ") and "full" in e for e in errors), proc.stderr
    kept = 0
    lines = iter(proc.stdout.splitlines())
    for free in (64, 128, 192, 256):
        assert next(lines) == f"{free}: 2", proc.stdout
        line = next(lines)
        if line != f"{free}: done":  # the catalogue stayed: the levels it stored verify, the rest resume
            stayed = json.loads(line)["levels"]
            stored = [level["n"] for level in stayed if level["complete"]]
            assert stored == list(range(1, len(stored) + 1)) and all(level["ok"] for level in stayed[:len(stored)])
            assert all("rerun build to finish it" in level["problems"][0] for level in stayed[len(stored):]), line
            resumed = json.loads(next(lines))
            assert resumed["levels_already_complete"] == stored and resumed["levels_complete"] == [1, 2, 3, 4, 5, 6]
            assert json.loads(next(lines))["ok"]
            kept += 1
            assert next(lines) == f"{free}: done"
    assert kept, "no size filled the disk after a level was stored: the sizes no longer test the case"


# -- the search language's nesting --------------------------------------------------------------------------


@pytest.mark.parametrize("nots", [57, 58, 59])
def test_nested_nots_up_to_the_limit(built, nots):
    """Sixty levels of nesting are documented; SQLite's parser stack overflowed at about 45 nested NOTs."""
    with open_catalogue(built) as catalogue:
        expected = catalogue.count("n = 3" if nots % 2 == 0 else "n != 3")
        assert catalogue.count("not " * nots + "n = 3") == expected == (20 if nots % 2 == 0 else 350 - 20)
        # 40 levels, NOT and OR in turn: false at n = 2, and twenty negations of n = 3 elsewhere.
        assert catalogue.count("not (n = 2 or " * 20 + "n = 3" + ")" * 20) == 20



# -- PostgreSQL: a signal during a build --------------------------------------------------------------------


def test_sigterm_during_a_build_on_postgresql_is_one_line(tmp_path):
    """SIGTERM to a build on PostgreSQL — also when the server ends the build's sessions at the same moment,
    as a shutdown of the whole process group does — stops it with status 143 and one line: the driver's
    cleanup of a lost connection neither prints nor replaces the reason the build stopped."""
    import sqlalchemy as sa
    from catalogue_testing import postgres_server

    with postgres_server() as url:
        for also_the_server in (False, True):
            proc = subprocess.Popen([sys.executable, "-m", "whist_catalogue", "build", "--max-n", "10", "--db", url,
                                     "--no-progress", "--no-games"], cwd=REPO, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            # One autocommit connection for the whole watch: a connection per poll left the previous poll's
            # backend still exiting, listed among the build's sessions and gone by the time it was signalled.
            engine = sa.create_engine(url, poolclass=sa.pool.NullPool, isolation_level="AUTOCOMMIT")
            sessions: list[int] = []
            deadline = time.monotonic() + 240
            try:
                with engine.connect() as conn:
                    while not sessions:
                        assert proc.poll() is None and time.monotonic() < deadline, \
                            proc.stderr.read() if proc.stderr else ""
                        if conn.execute(sa.text("SELECT to_regclass('level_chunk') IS NOT NULL")).scalar() and \
                                conn.execute(sa.text("SELECT count(*) FROM level_chunk")).scalar() > 3:
                            sessions = list(conn.execute(sa.text(
                                "SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
                                " AND backend_type = 'client backend'")).scalars())
                        time.sleep(0.02)
                if also_the_server:
                    for pid in sessions:
                        # as root the server runs as postgres: we may signal it; a session the build closed
                        # meanwhile needs no signal
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGTERM)
                proc.send_signal(signal.SIGTERM)
                out, err = proc.communicate(timeout=60)
            finally:
                engine.dispose()
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
            assert (proc.returncode, err, out) == (143, "whist-catalogue: terminated\n", ""), also_the_server


# -- the app without a display ------------------------------------------------------------------------------


def _unserved_display() -> int:
    """A display number no X server serves here (no socket, abstract or on disk, and no TCP port)."""
    import socket

    from whist_catalogue.scripts.gui_command import _x11_answers

    return next(n for n in range(99, 400) if not os.path.exists(f"/tmp/.X11-unix/X{n}") and not _x11_answers(f":{n}")
                and socket.socket().connect_ex(("127.0.0.1", 6000 + n)) != 0)


def test_gui_on_a_display_nobody_serves_is_one_line_not_a_qt_abort():
    """Qt would print lines of its own blaming a plugin (and a library that is installed) and abort with 134."""
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY", "DISPLAY")}
    n = _unserved_display()
    hint = "(set DISPLAY to a running X server, or QT_QPA_PLATFORM=offscreen; --screenshot DIR renders the views " \
           "without one)"
    for display, why in ((f":{n}", f"DISPLAY=:{n} does not answer"), (f"127.0.0.1:{n}.0", None), (None, None)):
        proc = subprocess.run([sys.executable, "-m", "whist_catalogue", "gui"], capture_output=True, text=True,
                              env=env if display is None else {**env, "DISPLAY": display}, cwd=REPO, timeout=120)
        err = _one_line(proc.stderr, proc.returncode)
        assert err.startswith("whist-catalogue: error: no display to open the app on: ") and err.endswith(hint + "\n")
        assert why is None or why in err
        assert proc.stdout == ""


def test_the_display_probe_finds_a_server_that_listens(tmp_path):
    """A real listening socket, where an X server's would be: in the abstract namespace, and on TCP 6000 + N."""
    import socket

    from whist_catalogue.scripts.gui_command import _x11_answers

    n = _unserved_display()
    assert not _x11_answers(f":{n}")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(f"\0/tmp/.X11-unix/X{n}")
        server.listen()
        assert _x11_answers(f":{n}") and _x11_answers(f":{n}.0") and _x11_answers(f"unix:{n}")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 6000 + n))
        server.listen()
        assert _x11_answers(f"127.0.0.1:{n}.0") and not _x11_answers(f"127.0.0.1:{n + 1}")
    path = tmp_path / "display"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        server.listen()
        assert _x11_answers(str(path))
    assert not _x11_answers("not a display")
