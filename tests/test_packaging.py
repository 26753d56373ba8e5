"""The wheel claims one import name, builds without deprecation warnings, and lives beside PyPI's `catalogue`."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("wheel")
    # From a copy: setuptools writes its build/ folder into the tree it builds.
    source = tmp_path_factory.mktemp("source") / "whist-catalogue"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".venv", ".git", "build", "*.egg-info", "__pycache__",
                                                                 ".pytest_cache", ".hypothesis", "img"))
    # No build isolation: the test extra brings a setuptools new enough for the SPDX license string.
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation",
                           "-w", str(out), str(source)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (built,) = out.glob("whist_catalogue-*.whl")
    return built, proc.stdout + proc.stderr


def test_one_top_level_name(wheel):
    built, _ = wheel
    names = zipfile.ZipFile(built).namelist()
    top = {name.split("/")[0] for name in names}
    assert top == {"whist_catalogue", f"{built.name.split('-')[0]}-{built.name.split('-')[1]}.dist-info"}
    for needed in ("whist_catalogue/scripts/main.py", "whist_catalogue/gui/app.py",
                   "whist_catalogue/migrations/env.py", "whist_catalogue/migrations/alembic.ini",
                   "whist_catalogue/docs/search.md", "whist_catalogue/theory/values.py",
                   "whist_catalogue/docs/data/scan.jsonl",  # `distribution` reads the shipped value counts
                   "whist_catalogue/twohand/endings.bin"):  # the two-hand search's solved endings
        assert needed in names
    assert any(n.startswith("whist_catalogue/migrations/versions/") and n.endswith(".py") for n in names)
    assert any(n.endswith("LICENSE") for n in names)


def test_no_deprecation_warning(wheel):
    _, log = wheel
    assert "Deprecat" not in log and "deprecat" not in log


def test_pypi_catalogue_lives_beside_ours(tmp_path):
    """PyPI's `catalogue` (a spaCy dependency) and ours import side by side, each intact."""
    target = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                           "catalogue>=2"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    program = (
        "import catalogue, whist_catalogue\n"
        "from whist_catalogue.scripts.main import main\n"
        "registry = catalogue.create('whist_test', 'things')\n"
        "registry.register('x', func=len)\n"
        "assert registry.get('x') is len\n"
        "raise SystemExit(main(['value', 'AQ/KJ', '--json']))\n"
    )
    # From a neutral directory, so the repository's own `catalogue/` folder is not on the path.
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300,
                         cwd=tmp_path, env={**__import__("os").environ, "PYTHONPATH": str(target)})
    assert run.returncode == 0, run.stderr[-2000:]
    assert '"deal": "AQ/KJ", "label": "EWEW"' in run.stdout
