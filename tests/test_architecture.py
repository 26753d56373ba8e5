"""The one-way import rule of docs/architecture.md, and the one import name of the installed package.

Every ``import`` statement of every module is read with :mod:`ast` — the lazy ones
inside functions included, since those are exactly how a layer violation would
creep in unseen.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Repository folder → the import name it is installed under (pyproject.toml's package-dir).
FOLDERS = {
    "catalogue": "whist_catalogue",
    "gui": "whist_catalogue.gui",
    "scripts": "whist_catalogue.scripts",
    "migrations": "whist_catalogue.migrations",
}

# The layers, lowest first: a part may import its own layer's modules of its own part, and any
# part of a lower layer; never a higher layer, never a sibling part of its own layer.
LAYERS: list[tuple[str, ...]] = [
    ("errors", "constants"),  # what a user can get wrong; the sizes and scales every part agrees on
    ("theory", "games"),
    ("single_suit", "twohand"),  # the single-suit paper; the exact search of every two-person deal
    ("engine",),
    ("store",),
    ("gui",),
    ("scripts",),  # the command line opens the app (``whist-catalogue gui``)
]
LAYER_OF = {part: depth for depth, parts in enumerate(LAYERS) for part in parts}

# What only the interfaces (Qt) or the store (SQL) may import.
QT = ("PySide6", "shiboken6", "superqt", "pytestqt", "matplotlib.backends.backend_qtagg")
SQL = ("sqlalchemy", "alembic", "psycopg", "sqlite3")
CORE = ("errors", "constants", "theory", "games", "single_suit", "twohand", "engine")


def _modules() -> list[tuple[str, Path]]:
    found = []
    for folder, name in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in relative.parts if p != "__init__"]
            found.append((".".join([name, *parts]), path))
    return found


MODULES = _modules()


def _part(module: str) -> str:
    """The architectural part a ``whist_catalogue`` module belongs to."""
    rest = module.split(".")[1:]
    if not rest:
        return "errors"  # the package root holds only __version__
    if rest[0] == "__main__":
        return "scripts"  # ``python -m whist_catalogue`` is the command line
    if rest[0] == "migrations":
        return "store"  # the store runs its migrations, and they read its models
    return rest[0]


def _imports(module: str, path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((target, node.lineno))
            # ``from whist_catalogue.theory import values`` imports the module theory.values
            found += [(f"{target}.{alias.name}", node.lineno) for alias in node.names
                      if f"{target}.{alias.name}" in dict(MODULES)]
    return found


def test_the_tree_is_read():
    names = {name for name, _ in MODULES}
    assert {"whist_catalogue.theory.values", "whist_catalogue.engine.levels", "whist_catalogue.store.reader",
            "whist_catalogue.gui.app", "whist_catalogue.scripts.main"} <= names
    # the rule below is not vacuous: a known upward import would be caught
    assert LAYER_OF["store"] > LAYER_OF["engine"] > LAYER_OF["single_suit"] > LAYER_OF["theory"]


@pytest.mark.parametrize("module,path", MODULES, ids=[name for name, _ in MODULES])
def test_imports_flow_one_way(module, path):
    here = _part(module)
    wrong = []
    for target, line in _imports(module, path):
        top = target.split(".")[0]
        if top in ("catalogue", "gui", "scripts", "migrations"):
            wrong.append(f"line {line}: {target} (the installed name is whist_catalogue.…)")
            continue
        if top == "whist_catalogue":
            there = _part(target)
            if there in ("errors", "constants") or there == here:
                continue
            if LAYER_OF[there] >= LAYER_OF[here]:
                wrong.append(f"line {line}: {here} imports {target} ({there} is not below {here})")
        if here in CORE and target.startswith(QT + SQL):
            wrong.append(f"line {line}: the core part {here} imports {target}")
        if here == "store" and target.startswith(QT):
            wrong.append(f"line {line}: the store imports Qt ({target})")
    assert not wrong, f"{path.relative_to(ROOT)}:\n" + "\n".join(wrong)


def test_a_look_up_loads_neither_numba_nor_qt():
    """A command-line look-up — the preloaded suits, the catalogue's read path and its chunks, the engine's plan,
    the linear-time algorithm for a huge suit — pays for no JIT compiler and no GUI toolkit: Numba loads only
    when the engine computes or a sample is drawn, Qt only in the app."""
    import subprocess
    import sys

    program = (
        "import sys\n"
        "import whist_catalogue.scripts.deal_commands, whist_catalogue.theory.multisuit, whist_catalogue.theory.moves\n"
        "import whist_catalogue.store.reader, whist_catalogue.store.solvers, whist_catalogue.engine.chunks\n"
        "import whist_catalogue.engine.codes, whist_catalogue.engine.plan, whist_catalogue.theory.ranking\n"
        "import whist_catalogue.single_suit.linear_time\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'llvmlite', 'PySide6')))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


@pytest.mark.parametrize("named", ["none", "environment", "--db"])
def test_a_batch_of_outcomes_imports_only_what_it_needs(named, small_catalogue):
    """``outcome -`` over a batch of small suits: no NumPy, no SQLAlchemy, and not ``dataclasses`` (it imports
    ``inspect``, a tenth of the start-up; theory/immutable.py) — with no catalogue, and with one named by
    ``WHIST_CATALOGUE_DB`` or by ``--db`` alike (checked as a catalogue all the same, by store/identity.py)."""
    import os
    import subprocess
    import sys

    option = f", '--db', {str(small_catalogue)!r}" if named == "--db" else ""
    program = (
        "import io, sys\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(b'AKJ853/QT9764, AKT/QJ9, AQ97/KJT8\\n7/6; JT5/K83; 3/A\\n'))\n"
        "from whist_catalogue.scripts.main import main\n"
        f"code = main(['outcome', '--json'{option}, '-'])\n"
        "heavy = ('numpy', 'sqlalchemy', 'dataclasses', 'inspect', 'numba', 'PySide6')\n"
        "print(code, sorted(m for m in sys.modules if m.split('.')[0] in heavy), file=sys.stderr)\n"
    )
    catalogue = str(small_catalogue) if named == "environment" else os.devnull + ".absent"
    env = dict(os.environ, WHIST_CATALOGUE_DB=catalogue)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True, env=env)
    assert done.stderr.strip() == "0 []"
    from whist_catalogue.theory.deals import parse_multisuit
    from whist_catalogue.theory.multisuit import evaluate
    from whist_catalogue.theory.small_suits import SuitTable

    table = SuitTable()
    for line, text in zip(done.stdout.splitlines(), ("AKJ853/QT9764, AKT/QJ9, AQ97/KJT8", "7/6; JT5/K83; 3/A")):
        outcome = evaluate([s.deal for s in parse_multisuit(text)], table).outcome
        assert f'"outcome": {{"west_leads": {outcome.west_leads}, "east_leads": {outcome.east_leads}}}' in line


def test_the_constants_import_nothing():
    """``whist_catalogue.constants`` is light enough for every start-up path: it imports no module at all."""
    path = ROOT / "catalogue" / "constants.py"
    assert [t for t, _ in _imports("whist_catalogue.constants", path) if t != "__future__"] == []


def test_each_constant_has_one_home():
    """No module but ``constants`` assigns a name it defines (a copy kept "to avoid an import" drifts)."""
    import whist_catalogue.constants as constants

    names = set(constants.__all__)
    found = []
    for module, path in MODULES:
        if module == "whist_catalogue.constants":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, ast.AnnAssign) else []
            found += [f"{path.relative_to(ROOT)}:{node.lineno} {t.id}" for t in targets
                      if isinstance(t, ast.Name) and t.id in names]
    assert not found


def test_the_deal_explorer_loads_no_builder_and_no_sql():
    """The app's first view (the deal explorer, built at start) reads its limits from ``constants``: importing it
    loads neither the catalogue's builder nor SQLAlchemy — the catalogue is opened when a deal needs it."""
    import subprocess
    import sys

    program = (
        "import sys\n"
        "import whist_catalogue.gui.explorer\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sqlalchemy', 'alembic')"
        " or m in ('whist_catalogue.store.build', 'whist_catalogue.store.reader')))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


VIEW_MODULES = sorted((ROOT / "gui").glob("*.py"))


@pytest.mark.parametrize("path", VIEW_MODULES, ids=lambda p: p.name)
def test_a_views_background_work_goes_through_latest_only(path):
    """One way for each thing: every background answer through ``workers.LatestOnly`` (the latest request's
    answer only, a cancel that drops it), never a worker started by hand."""
    if path.name in ("workers.py", "context.py"):
        return  # where LatestOnly and the pool live
    calls = [node for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run"
             and isinstance(node.func.value, ast.Attribute) and node.func.value.attr in ("context", "pool")]
    assert not calls, f"{path.name}:{calls[0].lineno} starts a worker by hand; use LatestOnly"


@pytest.mark.parametrize("path", VIEW_MODULES, ids=lambda p: p.name)
def test_a_constructor_is_at_most_60_lines(path):
    """A view's constructor says what it holds and lays it out; each panel is built by a method of its own."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            assert node.end_lineno is not None
            assert node.end_lineno - node.lineno + 1 <= 60, f"{path.name}:{node.lineno}"
