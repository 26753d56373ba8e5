"""The build backend: setuptools' own, except that an editable install is a folder of links.

pyproject.toml installs the repository's folders under one import name (catalogue/ →
``whist_catalogue``, gui/ → ``whist_catalogue.gui``, …). setuptools' default editable install
of such a renamed mapping is an import hook, which Python runs but which static tools (pyright,
mypy, an editor's jump-to-definition) cannot follow: for them no ``whist_catalogue`` import
resolves. Here an editable install is setuptools' "strict" one — a ``.pth`` naming a folder
under the gitignored ``build/``, which every tool reads — with that folder's
``whist_catalogue/`` made of links to the repository: one per entry of ``catalogue/`` and one
per mapped subpackage (``gui``, ``scripts``, ``migrations``, ``docs``). A module added inside
any of those folders is found at once; only a new entry directly in ``catalogue/`` asks for
``pip install -e .`` again. The wheel is setuptools' own, unchanged; the sdist is setuptools'
own plus this file, which building a wheel from it needs.

This folder is not a package: it is no part of the wheel (pyproject.toml lists the packages).
"""

from __future__ import annotations

import io
import shutil
import tarfile
import tomllib
import zipfile
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (
    build_wheel,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]

ROOT = Path(__file__).resolve().parents[2]  # the repository: scripts/build_backend/linked_editable.py


def build_editable(wheel_directory: str, config_settings: dict[str, str | list[str]] | None = None,
                   metadata_directory: str | None = None) -> str:
    settings = dict(config_settings or {})
    # An explicit ``--config-settings editable_mode=…`` is obeyed as setuptools would.
    mode = settings.get("editable_mode") or settings.get("editable-mode")
    if mode is None:
        settings["editable_mode"] = mode = "strict"
    name = _setuptools.build_editable(wheel_directory, settings, metadata_directory)
    if mode == "strict":
        link_tree(Path(wheel_directory, name))
    return name


def build_sdist(sdist_directory: str, config_settings: dict[str, str | list[str]] | None = None) -> str:
    name = _setuptools.build_sdist(sdist_directory, config_settings)
    archive = Path(sdist_directory, name)
    with tarfile.open(archive, "r:gz") as tar:
        members = [(member, tar.extractfile(member)) for member in tar.getmembers()]
        contents = [(member, io.BytesIO(f.read()) if f else None) for member, f in members]
    top = contents[0][0].name.split("/")[0]
    backend = Path(__file__).resolve()
    with tarfile.open(archive, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for member, data in contents:
            tar.addfile(member, data)
        tar.add(backend, arcname=f"{top}/{backend.relative_to(ROOT).as_posix()}")
    return name


def link_tree(wheel: Path) -> Path | None:
    """Remake the link tree the strict editable ``wheel`` points to; its folder, or None if left as built."""
    with zipfile.ZipFile(wheel) as archive:
        (pth,) = [n for n in archive.namelist() if n.startswith("__editable__") and n.endswith(".pth")]
        tree = Path(archive.read(pth).decode().splitlines()[0])
    mapping: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "tool"]["setuptools"]["package-dir"]
    (top,) = [name for name in mapping if "." not in name]
    probe = tree / ".probe"
    try:
        probe.symlink_to(ROOT / mapping[top], target_is_directory=True)
    except OSError:
        return None  # no symbolic links here (Windows without the right): setuptools' own hard links stay
    probe.unlink()
    shutil.rmtree(tree / top)
    package = tree / top
    package.mkdir()
    for name, folder in mapping.items():
        if name.count(".") == 1:
            (package / name.split(".")[1]).symlink_to(ROOT / folder, target_is_directory=True)
    for entry in sorted((ROOT / mapping[top]).iterdir()):
        if entry.name != "__pycache__" and not (package / entry.name).exists():
            entry_link = package / entry.name
            entry_link.symlink_to(entry, target_is_directory=entry.is_dir())
    return tree
