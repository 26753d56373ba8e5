"""The desktop app (PySide6), started by ``whist-catalogue gui``: see ``docs/app.md``.

It reads the catalogue and calls the :mod:`whist_catalogue` package for everything it
shows; it computes nothing of its own.
"""
