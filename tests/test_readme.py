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
