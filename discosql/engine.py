"""Engines: where the SQL runs. This is the only module that talks to DuckDB.

Every template renders DuckDB-dialect SQL with ``$name`` parameters. An engine runs it as it is
(DuckDB) or transpiled by sqlglot to its own dialect with the parameters in its driver's style
(``%(name)s`` for psycopg, ``:name`` for Spark), binds the values, and returns Arrow tables whose
types do not depend on the engine (:func:`conform`). Temporary relations go through
:meth:`Engine.create_table` / :meth:`Engine.drop_table` because engines make them differently.

:func:`open_engine` turns the ``engine=`` argument of the public functions into an engine:
``None``/``"duckdb"`` (in-process DuckDB), a PostgreSQL DSN or :func:`postgres`, a SparkSession
or :func:`spark`.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import duckdb
import pyarrow as pa
import sqlglot
from sqlglot import exp

from .errors import EngineError, InputError
from .sources import Source, classify
from .templates import ident


@dataclass
class Registered:
    """A registered input: ``sql`` is what goes after FROM, ``params`` what it needs bound."""

    source: Source
    sql: str
    params: dict[str, Any] = field(default_factory=dict)
    columns: dict[str, str] = field(default_factory=dict)  # name -> DuckDB type name, in order
    n_rows: int = 0


class Engine:
    """What discosql needs from a SQL engine; subclasses implement the ``_`` methods."""

    dialect = "duckdb"
    name = "DuckDB"

    def __init__(self) -> None:
        self._n = 0

    @property
    def inline_cells(self) -> bool:
        """Whether stage 040 reads a target's cells as stage 030's query inlined as a CTE, or
        from a stored table. DuckDB pipelines the CTE (10M rows, 10 targets: 11.5 s -> 9.7 s);
        SQLite and Spark evaluate a CTE at each use, which made SQLite many times slower."""
        return self.dialect == "duckdb"

    # -- lifecycle ------------------------------------------------------------------------
    def close(self) -> None:
        """Release what this engine opened (never the user's own connection or session)."""

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- inputs ---------------------------------------------------------------------------
    def classify(self, obj: Any, label: str) -> Source:
        """What a data set argument is on this engine (paths and files for DuckDB)."""
        return classify(obj, label)

    def register(self, source: Source) -> Registered:
        """Make ``source`` readable by the templates; read its schema and row count."""
        i = self._n
        self._n += 1
        try:
            reg = self._register(source, f"__disco_src_{i}", f"src_{i}")
            reg.columns = self._columns(reg)
            count = self.query(f"SELECT count(*) AS n FROM {reg.sql}", reg.params, "register")
            reg.n_rows = int(count.column(0)[0].as_py())
        except EngineError as e:
            raise InputError(f"{source.label}: cannot read the data: {e}") from e
        return reg

    def _register(self, source: Source, name: str, param: str) -> Registered:
        raise NotImplementedError

    def _columns(self, reg: Registered) -> dict[str, str]:
        raise NotImplementedError

    # -- running SQL ----------------------------------------------------------------------
    def execute(self, sql: str, params: dict[str, Any], stage: str) -> None:
        """Run a statement (DuckDB dialect, ``$name`` parameters) for its effect."""
        self._guarded(stage, lambda: self._execute(*self.translate(sql, params)))

    def query(self, sql: str, params: dict[str, Any], stage: str) -> pa.Table:
        """Run a query (DuckDB dialect, ``$name`` parameters); the result as an Arrow table."""
        table = self._guarded(stage, lambda: self._query(*self.translate(sql, params)))
        return conform(table)

    def stream(
        self, sql: str, params: dict[str, Any], stage: str, batch_size: int
    ) -> pa.RecordBatchReader:
        """A query's result in batches of ``batch_size`` rows (for big per-record outputs).

        This default reads the whole result first; DuckDB streams it.
        """
        table = self.query(sql, params, stage)
        return pa.RecordBatchReader.from_batches(table.schema, table.to_batches(batch_size))

    def create_table(self, name: str, sql: str, params: dict[str, Any], stage: str) -> None:
        """Materialise the query ``sql`` as the temporary relation ``name`` (replacing it)."""
        self.drop_table(name)
        self.execute(f"CREATE TEMP TABLE {ident(name)} AS\n{sql}", params, stage)

    def drop_table(self, name: str) -> None:
        self.execute(f"DROP TABLE IF EXISTS {ident(name)}", {}, "cleanup")

    def translate(self, sql: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The statement in this engine's dialect and the parameters it uses."""
        names = placeholders(sql)
        used = {k: v for k, v in params.items() if k in names}
        if self.dialect == "duckdb":
            return sql, used
        return transpile(sql, self.dialect), used

    def _guarded(self, stage: str, run: Callable[[], Any]) -> Any:
        try:
            return run()
        except (EngineError, InputError):
            raise
        except Exception as e:
            if not self._is_engine_error(e):
                raise
            raise EngineError(f"stage {stage} failed on {self.name}: {e}") from e

    def _is_engine_error(self, e: Exception) -> bool:
        raise NotImplementedError

    def _execute(self, sql: str, params: dict[str, Any]) -> None:
        raise NotImplementedError

    def _query(self, sql: str, params: dict[str, Any]) -> pa.Table:
        raise NotImplementedError


# Dialects whose ``/`` divides integers exactly, where sqlglot would write DuckDB's ``//`` as a
# division of doubles (inexact above 2^53: q words reach 2^62).
NATIVE_INT_DIV = ("sqlite", "tsql", "trino")


def _int_div(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.IntDiv):
        return exp.Div(this=node.this, expression=node.expression, typed=True)
    return node


def _trees(sql: str, dialect: str) -> list[Any]:
    trees = [t for t in sqlglot.parse(sql, read="duckdb") if t is not None]
    if dialect in NATIVE_INT_DIV:
        return [t.transform(_int_div) for t in trees]
    return trees


@functools.lru_cache(maxsize=512)
def placeholders(sql: str) -> frozenset[str]:
    """The ``$name`` parameters a DuckDB-dialect statement uses, read from its parse tree: a
    ``$name`` inside a quoted identifier or a string literal is text, not a parameter."""
    return frozenset(
        node.name for t in _trees(sql, "duckdb") for node in t.find_all(exp.Placeholder)
    )


def literal(value: Any) -> exp.Expr:
    """A parameter value as a sqlglot literal of the type a bound parameter would have: a float
    is a DOUBLE (``CAST('0.1' AS DOUBLE)`` is the double Python holds; a bare ``0.1`` would be
    a decimal on PostgreSQL and DuckDB), everything else as sqlglot converts it (quoted and
    escaped there)."""
    if isinstance(value, float):
        text = (
            repr(value)
            if math.isfinite(value)
            else {"nan": "NaN", "inf": "Infinity"}.get(repr(value), "-Infinity")
        )
        return exp.Cast(this=exp.Literal.string(text), to=exp.DataType.build("double"))
    return exp.convert(value)


@functools.lru_cache(maxsize=512)
def transpile(sql: str, dialect: str) -> str:
    """DuckDB-dialect SQL in ``dialect`` (cached: the same statement recurs across targets)."""
    return ";\n".join(t.sql(dialect) for t in _trees(sql, dialect))


def inline_params(sql: str, params: dict[str, Any], dialect: str) -> str:
    """``sql`` with every ``$name`` parameter replaced by a literal, in ``dialect``.

    For exported scripts only, which must run without a driver. The literals are built by
    sqlglot from the values (quoted and escaped there), never by pasting text.
    """
    trees = _trees(sql, dialect)

    def replace(node: Any) -> Any:
        if isinstance(node, exp.Placeholder | exp.Parameter):
            name = node.name
            if name not in params:
                raise EngineError(f"parameter ${name} has no value")
            return literal(params[name])
        return node

    out = [t.transform(replace).sql(dialect, pretty=True) for t in trees]
    return ";\n".join(out)


def conform(table: pa.Table) -> pa.Table:
    """Engine-independent result types: decimals (PostgreSQL's SUM, Spark's exact sums) become
    BIGINT when their scale is 0 and DOUBLE otherwise; small integers become INTEGER; every
    column is nullable (Spark marks some not null)."""
    fields = []
    changed = False
    for f in table.schema:
        t = f.type
        if pa.types.is_decimal(t):
            t = pa.int64() if t.scale == 0 else pa.float64()
        elif pa.types.is_integer(t) and t.bit_width < 32:
            t = pa.int32()
        elif pa.types.is_large_string(t):
            t = pa.string()
        changed |= t != f.type or not f.nullable
        fields.append(pa.field(f.name, t))
    return table.cast(pa.schema(fields)) if changed else table


class DuckDBEngine(Engine):
    """An in-memory DuckDB connection of discosql's own (the default engine)."""

    def __init__(
        self,
        threads: int | None = None,
        memory_limit: str | None = None,
        temp_directory: str | None = None,
    ) -> None:
        super().__init__()
        self.con = duckdb.connect(":memory:")
        # Extensions cannot be downloaded in locked-down environments; never try.
        self.con.execute("SET autoinstall_known_extensions = false")
        self.con.execute("SET autoload_known_extensions = false")
        if threads is not None:
            self.con.execute(f"SET threads = {int(threads)}")
        for setting, value in (("memory_limit", memory_limit), ("temp_directory", temp_directory)):
            if value is None:
                continue
            try:
                self.con.execute(f"SET {setting} = $v", {"v": value})
            except duckdb.Error as e:
                self.con.close()
                raise InputError(f"duckdb: {setting} {value!r} is not accepted: {e}") from e

    def close(self) -> None:
        self.con.close()

    def _is_engine_error(self, e: Exception) -> bool:
        return isinstance(e, duckdb.Error)

    def _execute(self, sql: str, params: dict[str, Any]) -> None:
        self.con.execute(sql, params)

    def _query(self, sql: str, params: dict[str, Any]) -> pa.Table:
        return self.con.sql(sql, params=params).to_arrow_table()

    def stream(
        self, sql: str, params: dict[str, Any], stage: str, batch_size: int
    ) -> pa.RecordBatchReader:
        sql, used = self.translate(sql, params)
        reader: pa.RecordBatchReader = self._guarded(
            stage, lambda: self.con.sql(sql, params=used).to_arrow_reader(batch_size)
        )
        return reader

    def _columns(self, reg: Registered) -> dict[str, str]:
        desc = self.con.execute(f"DESCRIBE SELECT * FROM {reg.sql}", reg.params).fetchall()
        return {row[0]: str(row[1]) for row in desc}

    def _register(self, source: Source, name: str, param: str) -> Registered:
        try:
            return self._register_duckdb(source, name, param)
        except duckdb.Error as e:
            raise EngineError(str(e)) from e

    def _register_duckdb(self, source: Source, name: str, param: str) -> Registered:
        kind, obj = source.kind, source.obj
        if kind == "parquet":
            return Registered(source, f"read_parquet(${param})", {param: obj})
        if kind == "csv":
            # Parsed once into a temporary table (every stage reads it again). Only numbers and
            # text: the sniffer would otherwise turn YES/NO into booleans and change the levels.
            sql = f"read_csv(${param}, auto_type_candidates = ['BIGINT', 'DOUBLE', 'VARCHAR'])"
            self.con.execute(
                f"CREATE TEMP TABLE {ident(name)} AS SELECT * FROM {sql}", {param: obj}
            )
            return Registered(source, ident(name))
        if kind == "duckdb_table":
            db = f"__disco_db_{param}"
            self.con.execute(f"ATTACH ${param} AS {ident(db)} (READ_ONLY)", {param: obj.database})
            parts = [db] + ([obj.schema] if obj.schema else []) + [obj.table]
            return Registered(source, ".".join(ident(p) for p in parts))
        if kind in ("arrow", "pandas"):
            self.con.register(name, obj)
            return Registered(source, ident(name))
        if kind in ("reader", "relation"):
            # A reader can be consumed once and a relation belongs to another connection:
            # copy it into a temporary table so that every stage can read it.
            stream = obj if kind == "reader" else obj.to_arrow_reader()
            self.con.register(name + "_stream", stream)
            self.con.execute(
                f"CREATE TEMP TABLE {ident(name)} AS SELECT * FROM {ident(name + '_stream')}"
            )
            self.con.unregister(name + "_stream")
            return Registered(source, ident(name))
        raise EngineError(f"unknown source kind {kind!r}")


class EngineSpec:
    """Where to run: opened by the public functions for the length of one call."""

    def open(self) -> Engine:
        raise NotImplementedError


@dataclass(frozen=True)
class DuckDBSpec(EngineSpec):
    threads: int | None = None
    memory_limit: str | None = None
    temp_directory: str | None = None

    def open(self) -> Engine:
        return DuckDBEngine(self.threads, self.memory_limit, self.temp_directory)


@dataclass(frozen=True)
class PostgresSpec(EngineSpec):
    dsn: str
    schema: str | None = None

    def open(self) -> Engine:
        from .backends.postgres import PostgresEngine

        return PostgresEngine(self.dsn, self.schema)


@dataclass(frozen=True)
class SparkSpec(EngineSpec):
    session: Any

    def open(self) -> Engine:
        from .backends.spark import SparkEngine

        return SparkEngine(self.session)


@dataclass(frozen=True)
class SQLiteSpec(EngineSpec):
    database: str

    def open(self) -> Engine:
        from .backends.sqlite import SQLiteEngine

        return SQLiteEngine(self.database)


def check_threads(threads: Any, where: str = "") -> None:
    """The one check of a ``threads`` argument: None (all cores) or a positive int."""
    if threads is not None and (
        isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
    ):
        raise InputError(f"{where}threads must be a positive int, got {threads!r} (or None)")


def duckdb_engine(
    threads: int | None = None,
    memory_limit: str | None = None,
    temp_directory: str | os.PathLike[str] | None = None,
) -> DuckDBSpec:
    """The embedded DuckDB engine with limits: ``engine=ds.duckdb(memory_limit="4GB",
    temp_directory="/scratch/tmp")``. Above ``memory_limit`` DuckDB spills intermediate
    results (the shared records, large aggregations) to ``temp_directory`` (default: DuckDB's
    ``.tmp`` next to the working directory) and finishes with the same numbers."""
    check_threads(threads, "duckdb: ")
    if memory_limit is not None and not isinstance(memory_limit, str):
        raise InputError(
            f"duckdb: memory_limit must be a string such as '4GB', got {memory_limit!r}"
        )
    temp = os.fspath(temp_directory) if temp_directory is not None else None
    return DuckDBSpec(threads, memory_limit, temp)


def sqlite(database: str | os.PathLike[str]) -> SQLiteSpec:
    """Run on a SQLite database file (read-only; Python's built-in sqlite3).

    Data sets are then table or view names in that file; discosql's temporary tables go to
    SQLite's separate temporary database. For small data and for checking: SQLite is
    single-threaded and has no NaN (see ``discosql/backends/sqlite.py``).
    """
    return SQLiteSpec(os.fspath(database))


def postgres(dsn: str, schema: str | None = None) -> PostgresSpec:
    """Run on a PostgreSQL server: ``engine=ds.postgres("postgresql://user@host:5432/db")``.

    Data sets are then table or view names on that server (``"persons"``,
    ``"census.persons"``), read where they are; only the result tables come back. ``schema``
    is the default schema for unqualified names. discosql creates only temporary tables.
    """
    if not isinstance(dsn, str) or not dsn:
        raise InputError(f"postgres: dsn must be a connection string, got {dsn!r}")
    return PostgresSpec(dsn, schema)


def spark(session: Any) -> SparkSpec:
    """Run as Spark SQL in ``session`` (a ``pyspark.sql.SparkSession``).

    Data sets are then table or view names of the session's catalog, Parquet paths or
    directories, or Spark DataFrames. discosql creates only temporary views.
    """
    if type(session).__name__ != "SparkSession":
        raise InputError(f"spark: give a pyspark.sql.SparkSession, got {type(session).__name__}")
    return SparkSpec(session)


def open_engine(
    engine: Any = None, threads: int | None = None, memory_limit: str | None = None
) -> Engine:
    """The engine an ``engine=`` argument names (see the module docstring)."""
    if engine is None or (isinstance(engine, str) and engine.lower() == "duckdb"):
        return DuckDBEngine(threads=threads, memory_limit=memory_limit)
    if isinstance(engine, Engine):
        raise InputError(
            "engine: give 'duckdb', a PostgreSQL DSN, ds.postgres(dsn), a SparkSession or "
            "ds.spark(session), not an engine object"
        )
    if isinstance(engine, DuckDBSpec) and threads is not None and engine.threads is None:
        return DuckDBSpec(threads, engine.memory_limit, engine.temp_directory).open()
    if isinstance(engine, EngineSpec):
        return engine.open()
    if isinstance(engine, str) and engine.startswith(("postgresql://", "postgres://")):
        return postgres(engine).open()
    if isinstance(engine, str) and engine.startswith("sqlite:///"):
        return sqlite(engine[len("sqlite:///") :]).open()
    if type(engine).__name__ == "SparkSession":
        return spark(engine).open()
    raise InputError(
        f"engine: {engine!r} is not an engine; allowed: 'duckdb' (default), a PostgreSQL DSN "
        "('postgresql://user@host:port/db'), ds.postgres(dsn), a SparkSession or "
        "ds.spark(session), 'sqlite:///file.db' or ds.sqlite(file)"
    )
