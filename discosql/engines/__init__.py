"""Engines: where the SQL runs.

:func:`open_engine` turns the ``engine=`` argument of the public functions into an engine:
``None``/``"duckdb"`` (in-process DuckDB, :mod:`.duckdb`), a PostgreSQL DSN or :func:`postgres`
(:mod:`.postgres`), a SparkSession or :func:`spark` (:mod:`.spark`), ``"sqlite:///file"`` or
:func:`sqlite` (:mod:`.sqlite`), a user's DuckDB, psycopg or sqlite3 connection, an ADBC
connection or :func:`dbapi` (any DB-API connection, :mod:`.dbapi`). Exported scripts are
written by :mod:`.script`. The generic interface is :mod:`.base` (dialect helpers:
:mod:`discosql.sql.dialects`); only the factory imports the engine modules (:mod:`.factory`),
and those other than DuckDB only when asked for (their drivers are optional).
"""

from .factory import (
    DBAPISpec,
    DuckDBSpec,
    EngineSpec,
    PostgresSpec,
    SparkSpec,
    SQLiteSpec,
    check_threads,
    duckdb_engine,
    engine_spec,
    open_engine,
)

# dbapi(), postgres(), spark() and sqlite() are in .factory only: here the names are the submodules.
__all__ = [
    "DBAPISpec",
    "DuckDBSpec",
    "EngineSpec",
    "PostgresSpec",
    "SQLiteSpec",
    "SparkSpec",
    "check_threads",
    "duckdb_engine",
    "engine_spec",
    "open_engine",
]
