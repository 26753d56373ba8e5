"""The catalogue: every single-suit deal up to a bound, in a database (docs/spec.md §5, docs/level-store.md).

* :mod:`.settings`, :mod:`.identity` — where the catalogue lives, and the quick check that a file is one;
* :mod:`.models` — SQLAlchemy 2 models (the schema; migrations in ``whist_catalogue.migrations``);
* :mod:`.database` — locations, engines, identity and migrations;
* :mod:`.lock` — one build at a time;
* :mod:`.build` — the build, resumable per level and per chunk;
* :mod:`.levels` — the level store: every level as checksummed chunks of value codes, each level row under a
  checksum, both checked as they are read, and their part of ``verify``;
* :mod:`.fields` — the registry of per-deal fields (the search's names, the dataset's columns, the app's
  headers) and their array kernels;
* :mod:`.derived`, :mod:`.records` — a deal's best moves from α (§7.2), and the records look-ups give;
* :mod:`.reader` — :func:`~.reader.open_catalogue`: look-ups, search, statistics, solved games;
* :mod:`.search` — the search language: syntax, its compiled conditions, and their evaluation over chunks;
* :mod:`.dataset` — levels as NumPy, pandas or Arrow columns, and the one export to a file;
* :mod:`.verify` — integrity checks;
* :mod:`.solvers` — where a deal's answer comes from: the catalogue, else the engine;
* :mod:`.distributions` — where a distribution's per-level value counts come from;
* :mod:`.endings` — the table of two-hand endings: built, read (the positions a batch needs), checked.

The only part of the package that imports SQLAlchemy.
"""
