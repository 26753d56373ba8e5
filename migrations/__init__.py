"""The catalogue's alembic migrations.

Run programmatically by :func:`whist_catalogue.store.database.upgrade` (``whist-catalogue
build`` upgrades an older catalogue of ours); for development,
``alembic -c migrations/alembic.ini upgrade head`` works on the catalogue named
by ``$WHIST_CATALOGUE_DB`` (or the default file).  Migrations use ``op`` and
``sa`` only, never the current models.
"""
