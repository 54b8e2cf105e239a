"""One :class:`EngineCase` per engine the tests run on, and :func:`on_engines`, which runs a
test once per engine (as Splink's ``TestHelper`` and ibis's ``TestConf``).

A test that compares an engine with DuckDB takes the ``engine_case`` fixture (conftest.py),
loads its tables and calls the API with the engine it is given::

    @on_engines("sqlite", "postgres", "spark")
    def test_summary(engine_case: Loaded) -> None:
        engine, names = engine_case.load(tables)
        ds.disclosure_summary(names["sd2011"], ..., engine=engine)

``exclude=`` says why for each engine it leaves out (``{"duckdb": "the reference"}``);
:func:`on_engines_each` gives each engine its own subset of calls.

A case owns what the tests need of its engine: its data writer (``loader``), its pytest marker
(deselected by default; tests/conftest.py reads the markers from here), the session fixture
that starts its server, the query that lists a user's connection's relations; a new engine is
one more entry in ``CASES``. An exported script's tests run once per script engine through
:func:`on_script_engines` (``SCRIPT_CASES``: the duckdb shell, DataFusion, PostgreSQL, Spark),
each loading the data and running the script its own way::

    @on_script_engines()
    def test_the_export(script_engine: Started) -> None:
        RUN[script_engine.name](script_engine.server, ...)
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import discosql as ds

from .. import engine_data

Tables = dict[str, pa.Table]
# (engine= argument, how the engine names each table)
Engine = tuple[Any, dict[str, Any]]


def _duckdb(tables: Tables, server: Any, tmp_path: Path) -> Engine:
    return None, dict(tables)  # the Arrow tables themselves


def _sqlite(tables: Tables, server: Any, tmp_path: Path) -> Engine:
    db = engine_data.write_sqlite(tmp_path / "tables.db", tables)
    return ds.sqlite(db), {n: n for n in tables}


def _postgres(tables: Tables, server: Any, tmp_path: Path) -> Engine:
    engine_data.load_postgres(server, tables)
    return ds.postgres(server), {n: n for n in tables}


def _spark(tables: Tables, server: Any, tmp_path: Path) -> Engine:
    return ds.spark(server), engine_data.write_parquet(tmp_path, tables)


# The user's own connections (engine=<connection>): opened by the loader, closed by the
# engine_case fixture after the test, which first checks that discosql left nothing in them.


def _duckdb_connection(tables: Tables, server: Any, tmp_path: Path) -> Engine:
    import duckdb

    con = duckdb.connect(str(tmp_path / "analyst.duckdb"))
    for name, table in tables.items():
        con.register("incoming", table)
        con.execute(f"CREATE OR REPLACE TABLE {engine_data.quoted(name)} AS FROM incoming")
        con.unregister("incoming")
    return con, {n: n for n in tables}


def _sqlite3_connection(tables: Tables, server: Any, tmp_path: Path) -> Engine:
    import sqlite3

    db = engine_data.write_sqlite(tmp_path / "tables.db", tables)
    return sqlite3.connect(db), {n: n for n in tables}


def _psycopg_connection(tables: Tables, server: Any, tmp_path: Path) -> Engine:
    import psycopg

    engine_data.load_postgres(server, tables)
    return psycopg.connect(server, autocommit=True), {n: n for n in tables}


def _adbc_sqlite(tables: Tables, server: Any, tmp_path: Path) -> Engine:
    import adbc_driver_sqlite.dbapi

    db = engine_data.write_sqlite(tmp_path / "tables.db", tables)
    return adbc_driver_sqlite.dbapi.connect(db, autocommit=True), {n: n for n in tables}


def _adbc_postgres(tables: Tables, server: Any, tmp_path: Path) -> Engine:
    import adbc_driver_postgresql.dbapi

    engine_data.load_postgres(server, tables)
    con = adbc_driver_postgresql.dbapi.connect(server, autocommit=True)
    return con, {n: n for n in tables}


def _snowflake(tables: Tables, server: Any, tmp_path: Path) -> Engine:
    """fakesnow's Snowflake (its own environment, .ci/run; ``server`` is fakesnow's patch),
    the tables written by engine_data.write_fakesnow (``"sd2011"`` finds ``SD2011``)."""
    import snowflake.connector

    database = "db_" + "".join(c for c in tmp_path.name if c.isalnum())
    con = snowflake.connector.connect(database=database, schema="survey")
    engine_data.write_fakesnow(con, database, tables)
    return ds.dbapi(con, dialect="snowflake"), {n: n for n in tables}


def _left_behind(engine: Any, relations: str) -> list[str]:
    """discosql's objects (``__disco*``) still in a user's connection after a call, which
    the query ``relations`` lists with every other relation."""
    cur = engine.cursor()
    cur.execute(relations)
    names = [r[0] for r in cur.fetchall()]
    cur.close()
    return [n for n in names if n.startswith("__disco")]


# what lists every relation of a user's connection (the engine_case fixture checks that
# discosql left none of its own in it)
_DUCKDB_RELATIONS = (
    "SELECT table_name FROM duckdb_tables() UNION ALL SELECT view_name FROM duckdb_views()"
)
_SQLITE_RELATIONS = "SELECT name FROM sqlite_temp_master UNION ALL SELECT name FROM sqlite_master"
_PG_RELATIONS = "SELECT relname FROM pg_class"


@dataclass(frozen=True)
class EngineCase:
    """An engine the tests run on. ``loader``: its data writer, which puts Arrow tables into
    it; ``server``: the session fixture that starts it, and ``marker`` the pytest marker of
    its tests (deselected by default; tests/conftest.py marks every test that uses
    ``server``); ``relations``: the query that lists every relation of a user's connection
    (``connection=True``); ``keeps_row_order``: records are numbered in input order
    (PostgreSQL numbers them in physical order, which COPY does not always keep);
    ``has_nan``: a float NaN is stored as NaN (SQLite stores NULL)."""

    name: str
    loader: Callable[[Tables, Any, Path], Engine]
    server: str | None = None
    marker: str | None = None
    keeps_row_order: bool = True
    has_nan: bool = True
    connection: bool = False  # engine= is the user's own connection (checked, then closed)
    relations: str | None = None
    # the engine's tables keep a record order: per-record tables are given (else a warning)
    record_order: bool = True
    # in every @on_engines() test; else only where a test names it (also=): Spark Connect
    # sends the Spark SQL the spark case runs, at about 40 s a test (docs/testing.md)
    every: bool = True

    def __post_init__(self) -> None:
        assert not self.connection or self.relations, f"{self.name}: a connection needs relations"

    def per_record(self) -> Any:
        """Where a per-record table is asked for: nothing, or the warning that says there is
        none (no record order), or that its rows are numbered in physical order (PostgreSQL,
        without id=)."""
        if not self.record_order:
            return pytest.warns(ds.DiscoSQLWarning, match="keep no record order")
        if not self.keeps_row_order:  # PostgreSQL: rows numbered in physical order
            return pytest.warns(ds.DiscoSQLWarning, match="give id=")
        return contextlib.nullcontext()

    def marks(self) -> list[pytest.MarkDecorator]:
        """The case's pytest marker, if it has one."""
        return [getattr(pytest.mark, self.marker)] if self.marker else []

    def param(self, *values: Any, id: str | None = None) -> Any:
        return pytest.param(self, *values, id=id or self.name, marks=self.marks())


CASES = {
    c.name: c
    for c in (
        EngineCase("duckdb", _duckdb),
        EngineCase("sqlite", _sqlite, has_nan=False),
        EngineCase("postgres", _postgres, "pg_dsn", "postgres", keeps_row_order=False),
        EngineCase("spark", _spark, "spark", "spark"),
        EngineCase("spark_connect", _spark, "spark_connect", "spark", every=False),
        EngineCase(
            "duckdb_connection", _duckdb_connection, connection=True, relations=_DUCKDB_RELATIONS
        ),
        EngineCase(
            "snowflake",
            _snowflake,
            "fakesnow",
            "snowflake",
            keeps_row_order=False,
            connection=True,
            relations="SELECT table_name FROM information_schema.tables",  # fakesnow's
            record_order=False,
        ),
        EngineCase(
            "sqlite3_connection",
            _sqlite3_connection,
            has_nan=False,
            connection=True,
            relations=_SQLITE_RELATIONS,
        ),
        EngineCase(
            "adbc_sqlite",
            _adbc_sqlite,
            has_nan=False,
            connection=True,
            relations=_SQLITE_RELATIONS,
        ),
        EngineCase(
            "psycopg_connection",
            _psycopg_connection,
            "pg_dsn",
            "postgres",
            keeps_row_order=False,
            connection=True,
            relations=_PG_RELATIONS,
        ),
        EngineCase(
            "adbc_postgres",
            _adbc_postgres,
            "pg_dsn",
            "postgres",
            keeps_row_order=False,
            connection=True,
            relations=_PG_RELATIONS,
        ),
    )
}


@dataclass(frozen=True)
class ScriptCase:
    """Where an exported script runs outside discosql: the duckdb shell, DataFusion
    (in-process), a PostgreSQL server, a Spark session, fakesnow. ``dialect``: the script's;
    ``server`` and ``marker`` as an :class:`EngineCase`'s. How a test loads the data and runs
    the script on it is the test's own (each script kind reads its data its own way)."""

    name: str
    dialect: str
    server: str | None = None
    marker: str | None = None

    def marks(self) -> list[pytest.MarkDecorator]:
        return [getattr(pytest.mark, self.marker)] if self.marker else []


SCRIPT_CASES = {
    c.name: c
    for c in (
        ScriptCase("duckdb_shell", "duckdb"),
        ScriptCase("datafusion", "datafusion"),
        ScriptCase("postgres", "postgres", "pg_dsn", "postgres"),
        ScriptCase("spark", "spark", "spark", "spark"),
        ScriptCase("snowflake", "snowflake", "fakesnow", "snowflake"),
    )
}


def server_markers() -> dict[str, tuple[str, ...]]:
    """Each engine marker and the session fixtures that start its engines (of every engine
    and script case): tests/conftest.py marks each test that uses one of them."""
    out: dict[str, tuple[str, ...]] = {}
    for case in (*CASES.values(), *SCRIPT_CASES.values()):
        if case.marker and case.server and case.server not in out.get(case.marker, ()):
            out[case.marker] = (*out.get(case.marker, ()), case.server)
    return out


@dataclass
class Loaded:
    """An engine case with its server started: :meth:`load` puts tables into it."""

    case: EngineCase
    server: Any
    tmp_path: Path

    opened: list[Any] = field(default_factory=list)

    def load(self, tables: Tables) -> Engine:
        """The ``engine=`` argument and how it names each table (a table name, a Parquet
        path, or the Arrow table itself on DuckDB)."""
        engine, names = self.case.loader(tables, self.server, self.tmp_path)
        if self.case.connection:  # the connection itself, or ds.dbapi(connection)
            self.opened.append(getattr(engine, "connection", engine))
        return engine, names

    def close(self) -> None:
        """After the test: each connection given is still open, holds no object of
        discosql's, and is closed."""
        while self.opened:
            con = self.opened.pop()
            try:
                assert _left_behind(con, self.case.relations or "") == [], (
                    f"{self.case.name}: left in the connection"
                )
            finally:
                con.close()


def _kept(names: tuple[str, ...], exclude: Mapping[str, str]) -> list[str]:
    assert all(why.strip() for why in exclude.values()), "each exclude= needs its reason"
    assert not (set(exclude) - set(names)), f"excluded but not run: {set(exclude) - set(names)}"
    return [n for n in names if n not in exclude]


def on_engines(
    *names: str, exclude: Mapping[str, str] | None = None, also: tuple[str, ...] = ()
) -> pytest.MarkDecorator:
    """Run the test once per engine named (if none is: every engine case marked ``every``,
    and those in ``also``), but those excluded: ``exclude`` maps each to the reason
    (``{"duckdb": "the reference"}``)."""
    everywhere = tuple(n for n, c in CASES.items() if c.every or n in also)
    chosen = [CASES[n] for n in _kept(names or everywhere, exclude or {})]
    return pytest.mark.parametrize("engine_case", [c.param() for c in chosen], indirect=True)


def _each(
    fixture: str, cases: Mapping[str, Any], argnames: tuple[str, ...], values: Mapping[str, Any]
) -> pytest.MarkDecorator:
    params = []
    for name, per_case in values.items():
        case = cases[name]
        for value in per_case:
            if not isinstance(value, type(pytest.param())):
                value = pytest.param(*value, id="-".join(map(str, value)))
            marks = [*case.marks(), *value.marks]
            params.append(pytest.param(case, *value.values, id=f"{name}-{value.id}", marks=marks))
    return pytest.mark.parametrize((fixture, *argnames), params, indirect=[fixture])


def on_engines_each(
    argnames: tuple[str, ...], values: Mapping[str, list[Any]]
) -> pytest.MarkDecorator:
    """Run the test on each engine of ``values`` once per value of its own (a
    ``pytest.param`` of ``argnames``, or a tuple): each engine its own subset of calls."""
    return _each("engine_case", CASES, argnames, values)


# the script engines of the export tests, in order
SCRIPT_ENGINES = ("duckdb_shell", "datafusion", "postgres", "spark")


def on_script_engines(
    *names: str, exclude: Mapping[str, str] | None = None
) -> pytest.MarkDecorator:
    """Run the test once per script engine named (if none is: the duckdb shell, DataFusion,
    PostgreSQL and Spark), but those excluded (each with its reason): the test takes the
    ``script_engine`` fixture (tests/conftest.py), a :class:`Started` case."""
    chosen = [SCRIPT_CASES[n] for n in _kept(names or SCRIPT_ENGINES, exclude or {})]
    params = [pytest.param(c, id=c.name, marks=c.marks()) for c in chosen]
    return pytest.mark.parametrize("script_engine", params, indirect=True)


def on_script_engines_each(
    argnames: tuple[str, ...], values: Mapping[str, list[Any]]
) -> pytest.MarkDecorator:
    """As :func:`on_engines_each`, for script engines (the ``script_engine`` fixture)."""
    return _each("script_engine", SCRIPT_CASES, argnames, values)


@dataclass(frozen=True)
class Started:
    """A script case with its server started (``server``: the DSN, the SparkSession, ...)."""

    case: ScriptCase
    server: Any

    @property
    def name(self) -> str:
        return self.case.name

    @property
    def dialect(self) -> str:
        return self.case.dialect
