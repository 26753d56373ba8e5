"""A kernel's Numba cache is stale whenever any file compiled into it changes (theory/jit.py).

Numba alone discards a cached kernel only when the kernel's own file changes; a helper changed in another module
would run as its old machine code.  Checked end to end on a small package of two modules (a kernel calling a
helper), in fresh processes sharing one cache directory, and on the package's own kernel modules by reading their
imports.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from whist_catalogue.theory.jit import KERNEL_SOURCES

HELPER = textwrap.dedent("""
    from numba import njit

    @njit(cache=True)
    def helper():
        return {value}
""")

KERNEL = textwrap.dedent("""
    from pathlib import Path
    {keying}
    from numba import njit
    from toy.helper import helper

    @njit(cache=True)
    def kernel():
        return helper() + 0
""")

KEYED = ("from whist_catalogue.theory.jit import cache_keyed_on\n"
         "cache_keyed_on('toy', [Path(__file__).with_name('helper.py'), Path(__file__)])")


def _run(root: Path, cache: Path) -> str:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(root))
    done = subprocess.run([sys.executable, "-c", "from toy.kernel import kernel; print(kernel())"], env=env,
                          capture_output=True, text=True, check=True, timeout=120)
    return done.stdout.strip()


@pytest.mark.parametrize("keyed", [True, False])
def test_a_changed_helper_in_another_module_recompiles_the_kernel(tmp_path, keyed):
    """Keyed on both files, the kernel sees the helper's edit; left to Numba (the control), it runs the old code."""
    package = tmp_path / "toy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kernel.py").write_text(KERNEL.format(keying=KEYED if keyed else ""))
    (package / "helper.py").write_text(HELPER.format(value=1))
    cache = tmp_path / "cache"
    assert _run(tmp_path, cache) == "1"
    assert _run(tmp_path, cache) == "1"  # from the cache
    (package / "helper.py").write_text(HELPER.format(value=2))
    # Numba ≥ 0.59 keeps a kernel's cache while only its own file is unchanged: the control shows the hazard
    # (if it ever reads 2, Numba tracks dependencies itself and theory/jit.py's digest can go).
    assert _run(tmp_path, cache) == ("2" if keyed else "1")


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names]
    return found


def test_the_stamp_covers_every_module_the_kernels_are_compiled_from():
    """Every module of the package with kernels makes them with theory.jit's ``kernel`` (whose cache is stamped
    with KERNEL_SOURCES), never with Numba's ``njit`` directly, lies in KERNEL_SOURCES, and imports, of the
    package, only modules of KERNEL_SOURCES: a kernel reads globals and calls functions of what it imports."""
    package = Path(KERNEL_SOURCES[0]).parent
    covered = {path.resolve() for path in KERNEL_SOURCES}
    with_kernels = [path for path in package.rglob("*.py") if "@kernel" in path.read_text() and path.name != "jit.py"]
    assert {p.parent.name for p in with_kernels} == {"theory", "single_suit", "engine", "twohand"}
    for path in package.rglob("*.py"):
        if path.name == "jit.py":
            continue  # the one place that calls njit
        assert not any(m.startswith("numba") and "njit" in names for m, names in _imports(path)), path
    for path in with_kernels:
        assert path.resolve() in covered, path
        imports = _imports(path)
        assert ("whist_catalogue.theory.jit", ["kernel"]) in imports, path
        for module, _ in imports:
            if module.startswith("whist_catalogue"):
                target = package.joinpath(*module.split(".")[1:])
                assert target.with_suffix(".py").resolve() in covered or (target / "__init__.py").resolve() in covered, \
                    f"{path.name} imports {module}, whose file is not in KERNEL_SOURCES"
