"""``whist-catalogue gui``: open the desktop app, or render its views to PNG files (docs/spec.md §4).

``gui --screenshot DIR`` renders every main view to ``DIR/<view>.png`` and
exits; it sets ``QT_QPA_PLATFORM=offscreen`` when no platform was chosen, so
it works without a display.
"""

from __future__ import annotations

import argparse
import os
import sys

from whist_catalogue.scripts.cli import add_command, add_db_option, add_json_option

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    parser = add_command(
        subparsers, "gui", run,
        help="open the desktop app",
        description="Open the desktop app: deal explorer, multi-suit calculator, search and statistics, "
        "solved games, catalogue status.",
    )
    parser.add_argument("--screenshot", metavar="DIR", help="render every view to DIR/<view>.png and exit")
    add_db_option(parser)
    add_json_option(parser, help="with --screenshot: one JSON line per image written, on stdout")


def run(args: argparse.Namespace) -> int:
    from whist_catalogue.errors import WhistError

    if args.json and args.screenshot is None:
        raise WhistError("gui --json: the app writes no JSON; --json goes with --screenshot DIR "
                         "(one line per image written)")
    if args.screenshot is None:
        missing = _no_display()
        if missing:
            raise WhistError(f"no display to open the app on: {missing} (set DISPLAY to a running X server, or "
                             "QT_QPA_PLATFORM=offscreen; --screenshot DIR renders the views without one)")
    else:
        _check_directory(args.screenshot)
    if args.db is not None:
        # A catalogue named explicitly must exist and be ours (docs/spec.md §4: exit status 2 otherwise);
        # without --db the app also works with no catalogue at all, and can build one.
        from whist_catalogue.store.reader import open_catalogue

        open_catalogue(args.db).close()
    from whist_catalogue.gui.app import run as run_app  # Qt is imported only when the app is wanted

    if args.screenshot is None:
        return run_app(args.db)
    from whist_catalogue.scripts.cli import emit_json
    from whist_catalogue.scripts.progress import ProgressBar

    with ProgressBar("screenshots", " views") as bar:
        def wrote(path: str, done: int, total: int) -> None:
            bar.show(done, total, postfix=os.path.basename(path))
            if args.json:
                emit_json({"screenshot": path})

        return run_app(args.db, args.screenshot, progress=wrote)


def _check_directory(directory: str) -> None:
    """The screenshots' directory exists or can be made, and is writable — checked before the app starts.

    Like ``build``'s catalogue, a directory named is taken as written: DIR itself is made if missing, but not
    the directories above it — a typo must not put the images somewhere new."""
    import tempfile
    from pathlib import Path

    from whist_catalogue.errors import WhistError

    path = Path(directory)
    if not directory:
        raise WhistError("cannot write screenshots to '': name a directory")
    if not path.absolute().parent.is_dir() and not path.is_dir():
        raise WhistError(f"cannot write screenshots to {directory}: no directory {path.absolute().parent}")
    try:
        path.mkdir(exist_ok=True)
        # A probe file: permissions alone do not tell (root, read-only mounts, full devices).
        with tempfile.NamedTemporaryFile(dir=path, prefix=".whist-probe-"):
            pass
    except FileExistsError:
        raise WhistError(f"cannot write screenshots to {directory}: not a directory") from None
    except OSError as exc:
        raise WhistError(f"cannot write screenshots to {directory}: {exc.strerror}") from None


def _no_display() -> str:
    """Why Qt would find no display here ("" when one answers): on Linux without X11 or Wayland (and no Qt
    platform chosen) Qt aborts, after lines of its own that blame a plugin, so the display is probed first."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return ""
    x11, wayland = os.environ.get("DISPLAY"), os.environ.get("WAYLAND_DISPLAY")
    if not (x11 or wayland):
        return "neither DISPLAY nor WAYLAND_DISPLAY is set"
    if (x11 and _x11_answers(x11)) or (wayland and _wayland_answers(wayland)):
        return ""
    return " and ".join(f"{name}={value} does not answer" for name, value in
                        (("DISPLAY", x11), ("WAYLAND_DISPLAY", wayland)) if value)


PROBE_SECONDS = 3.0
"""How long a display's socket may take to accept a connection (a forwarded display crosses a network)."""


def _connects(family: int, address: str | tuple[str, int]) -> bool:
    import socket

    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.settimeout(PROBE_SECONDS)
        try:
            probe.connect(address)
        except OSError:
            return False
    return True


def _x11_answers(display: str) -> bool:
    """Whether an X server accepts connections at ``display`` (``:0``, ``:1.0``, ``unix:0``, ``host:10.0``, or the
    path of a socket): its Unix socket, in the abstract namespace or in /tmp/.X11-unix, else TCP port 6000 + N."""
    import socket

    if display.startswith("/"):
        return _connects(socket.AF_UNIX, display)
    host, _, rest = display.rpartition(":")
    number = rest.split(".")[0]
    if not number.isdigit():
        return False
    if host in ("", "unix"):
        path = f"/tmp/.X11-unix/X{number}"
        return _connects(socket.AF_UNIX, "\0" + path) or _connects(socket.AF_UNIX, path)
    return _connects(socket.AF_INET6 if ":" in host else socket.AF_INET, (host.strip("[]"), 6000 + int(number)))


def _wayland_answers(name: str) -> bool:
    """Whether a Wayland compositor accepts connections at ``name`` (a path, or a name in $XDG_RUNTIME_DIR)."""
    import socket

    path = name if name.startswith("/") else os.path.join(os.environ.get("XDG_RUNTIME_DIR", ""), name)
    return _connects(socket.AF_UNIX, path)
