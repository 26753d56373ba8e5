"""The README's first screen: the two fresh-machine commands, and CI running the second verbatim."""

import re
from pathlib import Path

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
