"""alembic environment for the catalogue (mealie style).

``target_metadata`` is the models' metadata, imported through the one module that
declares every model (:mod:`whist_catalogue.store.models`).  The connection comes from the
caller when migrations run programmatically (:func:`whist_catalogue.store.database.upgrade`
puts it in ``config.attributes["connection"]``); otherwise the URL is the
application's setting (:func:`whist_catalogue.store.settings.database_location`).
SQLite gets ``render_as_batch=True`` so that column changes work there.
"""

from __future__ import annotations

from alembic import context

from whist_catalogue.store import models
from whist_catalogue.store.settings import database_location

config = context.config
target_metadata = models.Base.metadata
VERSION_TABLE = config.get_main_option("version_table") or models.SCHEMA_VERSION_TABLE


def _configure(connection) -> None:  # noqa: ANN001
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        version_table=VERSION_TABLE,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )


def run_migrations_offline() -> None:
    from whist_catalogue.store.database import parse_location

    url = parse_location(database_location()).url
    context.configure(
        url=url,
        target_metadata=target_metadata,
        version_table=VERSION_TABLE,
        literal_binds=True,
        render_as_batch=url.get_backend_name() == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    import sqlalchemy as sa

    from whist_catalogue.store.database import parse_location

    engine = sa.create_engine(parse_location(database_location()).url)
    try:
        with engine.begin() as connection:
            _configure(connection)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
