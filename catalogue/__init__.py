"""Exact values and optimal play of two-person trick-taking games.

The math core (``values``, ``deals``, ``definition``, ``referee``, ``multisuit``,
``single_suit``, ``linear_time``), the level-by-level ``engine`` and its kernels,
the database (``store``) and the solved matrix games.  Nothing in this package
imports Qt; only ``store`` and its helpers import SQLAlchemy.
"""

__version__ = "0.1.0"
