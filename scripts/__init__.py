"""The command line, ``whist-catalogue`` (docs/spec.md §4): thin entry points over the package.

``main.py`` builds the parser and is the one place where a user's error
becomes one line and exit status 2; each group of sub-commands has its own module.
``reports/`` regenerates the documents in ``docs/``; ``benchmarks/`` measures the speed
targets recorded in ``docs/benchmarks.md``.
"""
