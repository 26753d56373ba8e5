"""Typed, and readable by tools: after the README's install command a type checker resolves every
``whist_catalogue`` import, the editable install is a folder of links to the repository
(scripts/build_backend/linked_editable.py), the package ships ``py.typed``, and the sdist builds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYRIGHT = Path(sys.executable).parent / "pyright"
FOLDERS = {"catalogue": "whist_catalogue", "gui": "whist_catalogue.gui", "scripts": "whist_catalogue.scripts",
           "migrations": "whist_catalogue.migrations"}


def _modules() -> list[str]:
    found = []
    for folder, name in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT / folder).with_suffix("")
            if not all(part.isidentifier() for part in relative.parts) or relative.parts[0] == "build_backend":
                continue  # the build backend is no part of the package; migrations/versions/0001_… are not modules
            if (ROOT / folder / relative.parent / "__init__.py").is_file() or relative.parent == Path("."):
                found.append(".".join([name, *(p for p in relative.parts if p != "__init__")]))
    return found


def test_the_type_checker_resolves_every_import(tmp_path):
    """A file outside the repository, checked with this interpreter's environment, as an editor would."""
    modules = _modules()
    assert {"whist_catalogue.theory.values", "whist_catalogue.gui.app", "whist_catalogue.scripts.main",
            "whist_catalogue.migrations.env", "whist_catalogue.scripts.reports.games"} <= set(modules)
    source = tmp_path / "client.py"
    source.write_text("".join(f"import {m}\n" for m in modules)
                      + "from whist_catalogue.theory.values import Outcome\n"
                      + "reveal_type(Outcome)\nreveal_type(whist_catalogue.documentation)\n")
    done = subprocess.run([str(PYRIGHT), "--outputjson", "--pythonpath", sys.executable, str(source)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    report = json.loads(done.stdout)
    problems = [d for d in report["generalDiagnostics"] if d["severity"] == "error"]
    assert not problems, "\n".join(f"{d['range']['start']['line'] + 1}: {d['message']}" for d in problems)
    revealed = [d["message"] for d in report["generalDiagnostics"] if d["severity"] == "information"]
    # the real definitions, not Unknown: the checker read the modules themselves
    assert revealed == ['Type of "Outcome" is "type[Outcome]"',
                        'Type of "whist_catalogue.documentation" is "(name: str) -> str"']


def test_an_editable_install_links_the_repository_folders():
    """Installed with ``pip install -e``, each subpackage is the repository's folder itself (a link to it),
    so a module added there imports, and is seen by tools, without reinstalling."""
    # every copy of the metadata: a checkout's own whist_catalogue.egg-info may come first on the path
    if not any(json.loads(d.read_text("direct_url.json") or "{}").get("dir_info", {}).get("editable")
               for d in metadata.distributions(name="whist-catalogue")):
        pytest.skip("not an editable install")
    import whist_catalogue
    import whist_catalogue.gui
    import whist_catalogue.theory

    for package, folder in ((whist_catalogue.theory, "catalogue/theory"), (whist_catalogue.gui, "gui")):
        (path,) = package.__path__
        assert Path(path).resolve() == ROOT / folder
        assert Path(path).parent.parent != ROOT  # through the link folder, not a path that exposes `catalogue`
    assert Path(whist_catalogue.__file__).resolve() == ROOT / "catalogue" / "__init__.py"
    assert (Path(whist_catalogue.__file__).parent / "py.typed").is_file()


def test_the_sdist_carries_the_build_backend(tmp_path):
    """pyproject.toml names an in-tree backend, so the sdist must carry it for a wheel to build from it."""
    source = tmp_path / "whist-catalogue"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".venv", ".git", "build", "*.egg-info", "__pycache__",
                                                                ".pytest_cache", ".hypothesis", "img", "data"))
    program = ("import sys; sys.path.insert(0, 'scripts/build_backend'); import linked_editable\n"
               "print(linked_editable.build_sdist(sys.argv[1]))\n")
    done = subprocess.run([sys.executable, "-c", program, str(tmp_path / "dist")], capture_output=True, text=True,
                          cwd=source, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    with tarfile.open(tmp_path / "dist" / done.stdout.split()[-1]) as sdist:
        names = sdist.getnames()
    assert "whist_catalogue-0.1.0/scripts/build_backend/linked_editable.py" in names
    assert "whist_catalogue-0.1.0/catalogue/py.typed" in names
