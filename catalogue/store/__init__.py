"""The catalogue: every single-suit deal up to a bound, in a database (docs/spec.md §5).

* :mod:`.settings` — where the catalogue lives;
* :mod:`.models` — SQLAlchemy 2 models (the schema; migrations in ``whist_catalogue.migrations``);
* :mod:`.database` — locations, engines, identity and migrations;
* :mod:`.build` — the build, resumable per level and per chunk;
* :mod:`.levels` — the level store: every level as chunks of value codes, what is derived from them, and
  their part of ``verify``;
* :mod:`.reader` — :func:`~.reader.open_catalogue`: look-ups, search, statistics, solved games;
* :mod:`.search` — the search language, parsed to SQL (and evaluated over chunks);
* :mod:`.export`, :mod:`.verify` — export and integrity checks;
* :mod:`.solvers` — where a deal's answer comes from: the catalogue, else the engine.

The only part of the package that imports SQLAlchemy.
"""
