"""The README's first screen: the two fresh-machine commands, and CI running the second verbatim."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def commands() -> list[str]:
    first_screen = "\n".join(ROOT.joinpath("README.md").read_text().splitlines()[:30])
    return re.findall(r"^    (python3 -m venv .*)$", first_screen, flags=re.M)


def test_first_screen_has_the_two_commands():
    main_job, tests = commands()
    assert "whist-catalogue build" in main_job and main_job.endswith("whist-catalogue gui")
    assert "pytest" in tests


def test_ci_runs_the_readme_test_command():
    ci = ROOT.joinpath(".ci", "run").read_text().splitlines()
    assert commands()[1] in ci


def test_module_table_matches_the_tree():
    """Every module the README's table names exists, and every module of the package is named there."""
    readme = ROOT.joinpath("README.md").read_text()
    rows = [line for line in readme.splitlines() if line.startswith("| `catalogue/")]
    named = set()
    for row in rows:
        cell = row.split("|")[1]
        paths = re.findall(r"`([\w/]+\.py)`", cell)
        folder = Path(paths[0]).parent
        for path in paths:
            named.add(path if "/" in path else str(folder / path))
    missing = sorted(path for path in named if not ROOT.joinpath(path).is_file())
    assert not missing, f"the README names modules that do not exist: {missing}"
    modules = {str(p.relative_to(ROOT)) for p in ROOT.joinpath("catalogue").rglob("*.py") if p.name != "__init__.py"}
    modules -= {"catalogue/errors.py", "catalogue/__main__.py"}
    assert not sorted(modules - named), f"modules the README's table does not name: {sorted(modules - named)}"


def _console_examples() -> list[tuple[str, str]]:
    """Each ``$ whist-catalogue value|outcome|moves …`` of the README's console blocks, with the lines after it."""
    readme = ROOT.joinpath("README.md").read_text()
    found = []
    for block in re.findall(r"```console\n(.*?)```", readme, flags=re.S):
        for command in re.split(r"^(?=\$ )", block, flags=re.M):
            head, _, output = command.partition("\n")
            if re.match(r"\$ whist-catalogue (value|outcome|moves) ", head):
                found.append((head[2:], output))
    return found


@pytest.mark.parametrize("command, output", _console_examples())
def test_the_readme_s_answers_are_what_the_command_prints(command, output):
    """What "What it answers" shows is what the command prints (the preloaded suits answer it, no catalogue)."""
    import shlex

    done = subprocess.run([sys.executable, "-m", "whist_catalogue", *shlex.split(command)[1:]], capture_output=True,
                          text=True, env=dict(os.environ, WHIST_CATALOGUE_DB="/nonexistent/readme.sqlite"), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == output.rstrip("\n") + "\n"


def test_the_readme_shows_each_kind_of_answer():
    commands = " ".join(command for command, _ in _console_examples())
    assert all(word in commands for word in ("value", "outcome", "moves", "--cards"))
