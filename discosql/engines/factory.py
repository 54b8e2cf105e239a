"""The engine factory: what an ``engine=`` argument names (:func:`engine_spec`), opened for one
call (:func:`open_engine`, the one check of ``threads=``), and the public constructors
``ds.duckdb()``, ``ds.postgres()``, ``ds.spark()``, ``ds.sqlite()``.

The engine modules other than DuckDB are imported only when opened (their drivers are
optional). These functions live here, not in the package's ``__init__``: importing the
submodule ``engines.postgres`` sets the package attribute ``postgres``, which would replace a
function of that name there.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..sql.dialects import FACTS, is_template_dialect, unknown_dialect
from .base import Engine
from .duckdb import DuckDBEngine, buffer_limit
from .privileges import check_privileges


class EngineSpec:
    """Where to run: opened by the public functions for the length of one call."""

    def open(self) -> Engine:
        raise NotImplementedError


@dataclass(frozen=True)
class DuckDBSpec(EngineSpec):
    threads: int | None = None
    memory_limit: str | None = None
    temp_directory: str | None = None
    connection: Any = None  # the user's own DuckDB connection: run in its database

    def open(self) -> Engine:
        return DuckDBEngine(
            self.threads, self.memory_limit, self.temp_directory, connection=self.connection
        )


@dataclass(frozen=True)
class PostgresSpec(EngineSpec):
    dsn: str | None
    schema: str | None = None
    connection: Any = None  # the user's own psycopg connection

    def open(self) -> Engine:
        from .postgres import PostgresEngine

        return PostgresEngine(self.dsn, self.schema, self.connection)


@dataclass(frozen=True)
class SparkSpec(EngineSpec):
    session: Any
    materialize: str = "checkpoint"
    schema: str | None = None

    def open(self) -> Engine:
        from .spark import SparkEngine

        return SparkEngine(self.session, self.materialize, self.schema)


@dataclass(frozen=True)
class SQLiteSpec(EngineSpec):
    database: str | None
    connection: Any = None  # the user's own sqlite3 connection

    def open(self) -> Engine:
        from .sqlite import SQLiteEngine

        return SQLiteEngine(self.database, self.connection)


@dataclass(frozen=True)
class DBAPISpec(EngineSpec):
    connection: Any  # the user's own DB-API connection
    dialect: str
    schema: str | None = None

    def open(self) -> Engine:
        from .dbapi import DBAPIEngine

        return DBAPIEngine(self.connection, self.dialect, self.schema)


def check_threads(threads: Any, where: str = "") -> None:
    """A ``threads`` argument: None (all cores) or a positive int (not a bool)."""
    if threads is not None and (
        isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
    ):
        raise InputError(
            f"{where}threads: must be a positive int (or None for all cores), got {threads!r}"
        )


def duckdb_engine(
    threads: int | None = None,
    memory_limit: str | None = None,
    temp_directory: str | os.PathLike[str] | None = None,
) -> DuckDBSpec:
    """The embedded DuckDB engine with limits: ``engine=ds.duckdb(memory_limit="4GB",
    temp_directory="/scratch/tmp")``. Above ``memory_limit`` DuckDB spills intermediate
    results (the shared records, large aggregations) to ``temp_directory`` (default: DuckDB's
    ``.tmp`` next to the working directory) and finishes with the same numbers.
    ``memory_limit`` is the process's: DuckDB's buffer manager gets ``BUFFER_SHARE`` of it
    (``engines.duckdb.buffer_limit``), as DuckDB allocates some memory outside it."""
    check_threads(threads, "duckdb: ")
    if memory_limit is not None and not isinstance(memory_limit, str):
        raise InputError(
            f"duckdb: memory_limit must be a string such as '4GB', got {memory_limit!r}"
        )
    if memory_limit is not None:
        buffer_limit(memory_limit)  # read now: an error before any data is
    temp = os.fspath(temp_directory) if temp_directory is not None else None
    return DuckDBSpec(threads, memory_limit, temp)


def sqlite(database: str | os.PathLike[str]) -> SQLiteSpec:
    """Run on a SQLite database file (read-only; Python's built-in sqlite3).

    Data sets are then table or view names in that file; discosql's temporary tables go to
    SQLite's separate temporary database. For small data and for checking: SQLite is
    single-threaded and has no NaN (see ``discosql/engines/sqlite.py``).
    """
    return SQLiteSpec(os.fspath(database))


def postgres(dsn: str, schema: str | None = None) -> PostgresSpec:
    """Run on a PostgreSQL server: ``engine=ds.postgres("postgresql://user@host:5432/db")``
    or a libpq key=value string (``"host=h dbname=db user=u"``). A password is best left to
    ``PGPASSWORD`` or ``~/.pgpass``; one in the string is masked in every message.

    Data sets are then table or view names on that server (``"persons"``,
    ``"census.persons"``), read where they are; only the result tables come back. ``schema``
    is the default schema for unqualified names. discosql creates only temporary tables.
    """
    if not isinstance(dsn, str) or not dsn:
        raise InputError(f"postgres: dsn must be a connection string, got {dsn!r}")
    return PostgresSpec(dsn, schema)


def spark(session: Any, materialize: str = "checkpoint", schema: str | None = None) -> SparkSpec:
    """Run as Spark SQL in ``session`` (a ``pyspark.sql.SparkSession``, classic or Spark
    Connect).

    Data sets are then table or view names of the session's catalog, Parquet paths or
    directories, or Spark DataFrames. Each stage is materialised with ``localCheckpoint()`` as
    a temporary view (``materialize="checkpoint"``), or, where checkpoints are not available
    (Databricks serverless), as a Parquet table of ``schema`` (default: the current schema)
    named for the run (``materialize="table"``); both are dropped before the call returns.
    """
    if type(session).__name__ != "SparkSession":
        raise InputError(f"spark: give a pyspark.sql.SparkSession, got {type(session).__name__}")
    if materialize not in ("checkpoint", "table"):
        raise InputError(f"spark: materialize must be 'checkpoint' or 'table', got {materialize!r}")
    if schema is not None and (not isinstance(schema, str) or not schema):
        raise InputError(f"spark: schema must be a schema name, got {schema!r}")
    if schema is not None and materialize != "table":
        raise InputError("spark: schema= is where materialize='table' puts its tables; give both")
    return SparkSpec(session, materialize, schema)


def dbapi(connection: Any, dialect: str | None = None, schema: str | None = None) -> DBAPISpec:
    """Run inside the user's own PEP 249 (DB-API) connection, whose SQL is ``dialect``:
    ``engine=ds.dbapi(snowflake.connector.connect(...), dialect="snowflake")``.

    Data sets are then table or view names there. An ADBC connection names its dialect
    (``dialect`` may be left out). Work tables are temporary where the dialect has temporary
    tables, else tables of ``schema`` (default: the current schema), named for the run and
    dropped before the call returns. The connection must be in autocommit mode; discosql
    never closes, commits or reconfigures it.
    """
    from .dbapi import adbc_dialect, is_adbc, refuse_manual_commit

    if not hasattr(connection, "cursor"):
        raise InputError(
            f"dbapi: give a PEP 249 connection (with .cursor()), got {type(connection).__name__}"
        )
    refuse_manual_commit(connection)  # before anything runs on it
    given = dialect
    if given is None:
        if not is_adbc(connection):
            raise InputError(
                f"dbapi: give dialect= for a {type(connection).__name__} connection (one of "
                f"{sorted(FACTS)}); only ADBC connections name their own"
            )
        given = adbc_dialect(connection)
    if problem := unknown_dialect(given, tuple(FACTS)):
        raise InputError(f"dbapi: {problem}")
    dialect = str(given)
    if schema is not None and (not isinstance(schema, str) or not schema):
        raise InputError(f"dbapi: schema must be a schema name, got {schema!r}")
    return DBAPISpec(connection, dialect, schema)


def open_engine(engine: Any = None, threads: Any = None) -> Engine:
    """The engine an ``engine=`` argument names (see the module docstring), opened.

    The one check of ``threads=`` for every entry point: a positive int, and only for DuckDB
    (the other engines have their own settings; a silently ignored argument would mislead).
    """
    check_threads(threads)
    spec = engine_spec(engine)
    if threads is not None:
        if not isinstance(spec, DuckDBSpec):
            raise InputError(
                f"threads: applies to the embedded DuckDB engine only, got threads={threads!r} "
                f"with engine={engine!r}; set the threads of that engine itself"
            )
        if spec.connection is not None:
            raise InputError(
                f"threads: discosql does not reconfigure a DuckDB connection it is given, got "
                f"threads={threads!r}; run SET threads = {threads!r} on it yourself"
            )
        if spec.threads is None:
            spec = DuckDBSpec(threads, spec.memory_limit, spec.temp_directory)
    opened = spec.open()
    try:  # the role may make the work tables (PostgreSQL): one InputError before any row
        check_privileges(opened)
    except BaseException:
        opened.close()
        raise
    return opened


# libpq's connection keywords: a string that starts with one of them, then "=", is a
# key=value connection string (https://www.postgresql.org/docs/current/libpq-connect.html)
LIBPQ_KEYWORDS = frozenset(
    (
        *("host", "hostaddr", "port", "dbname", "user", "password", "passfile", "service"),
        *("require_auth", "channel_binding", "connect_timeout", "client_encoding", "options"),
        *("application_name", "fallback_application_name", "replication", "gssencmode"),
        *("keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count"),
        *("tcp_user_timeout", "target_session_attrs", "load_balance_hosts", "requirepeer"),
        *("sslmode", "requiressl", "sslcompression", "sslcert", "sslkey", "sslpassword"),
        *("sslcertmode", "sslrootcert", "sslcrl", "sslcrldir", "sslsni", "krbsrvname"),
        *("ssl_min_protocol_version", "ssl_max_protocol_version", "gsslib", "gssdelegation"),
    )
)
_CONNINFO = re.compile(r"\s*([a-z_]+)\s*=")


def is_conninfo(text: str) -> bool:
    """Whether ``text`` is a libpq key=value connection string (``host=h dbname=d``)."""
    m = _CONNINFO.match(text)
    return m is not None and m.group(1) in LIBPQ_KEYWORDS


def engine_spec(engine: Any) -> EngineSpec:
    """What an ``engine=`` argument names, before anything is opened."""
    if engine is None or (isinstance(engine, str) and is_template_dialect(engine.lower())):
        return DuckDBSpec()
    if isinstance(engine, EngineSpec):
        return engine
    if isinstance(engine, str) and (
        engine.startswith(("postgresql://", "postgres://")) or is_conninfo(engine)
    ):
        return postgres(engine)
    if isinstance(engine, str) and engine.startswith("sqlite:///"):
        return sqlite(engine[len("sqlite:///") :])
    if type(engine).__name__ == "SparkSession":
        return spark(engine)
    if any(c.__module__.startswith("adbc_driver") for c in type(engine).__mro__):
        return dbapi(engine)
    if type(engine).__name__ == "DuckDBPyConnection":
        return DuckDBSpec(connection=engine)
    if type(engine).__module__ == "sqlite3" and type(engine).__name__ == "Connection":
        return SQLiteSpec(None, connection=engine)
    if (type(engine).__module__ or "").startswith("psycopg") and type(engine).__name__ == (
        "Connection"
    ):
        return PostgresSpec(None, connection=engine)
    if isinstance(engine, Engine):
        raise InputError(
            "engine: give 'duckdb', a PostgreSQL DSN, ds.postgres(dsn), a SparkSession or "
            "ds.spark(session), not an engine object"
        )
    raise InputError(
        f"engine: {engine!r} is not an engine; allowed: 'duckdb' (default), a DuckDB "
        "connection (duckdb.connect(...)), a PostgreSQL DSN or psycopg connection "
        "('postgresql://user@host:port/db' or 'host=... dbname=... user=...'), ds.postgres(dsn), "
        "a SparkSession or "
        "ds.spark(session), 'sqlite:///file.db', ds.sqlite(file), a sqlite3 or ADBC connection, "
        "or ds.dbapi(connection, dialect=...) for any DB-API connection"
    )
