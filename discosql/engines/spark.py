"""Spark: the SQL runs as Spark SQL in the user's SparkSession (classic, or Spark Connect: a
Databricks cluster, SQL warehouse or serverless notebook); results come back as Arrow.

Statements are transpiled by sqlglot to Spark SQL with ``:name`` parameter markers and bound
through ``SparkSession.sql(args=...)``. Spark has no temporary tables: a stage's result is
materialised (so later stages do not recompute it) with ``localCheckpoint()`` and registered as
a temporary view, or, with ``materialize="table"`` (Databricks serverless, which has no
checkpoints), written as a Parquet table of ``schema`` (default: the current one) named for the
run; every one is dropped before the call returns. discosql never changes the session's
configuration.
"""

from __future__ import annotations

import os
from typing import Any

import pyarrow as pa
from sqlglot import exp

from ..errors import EngineError, InputError
from ..sql.templates import ident
from .base import PARQUET_SUFFIXES, Engine, Registered, Source, described


class SparkEngine(Engine):
    dialect = "spark"
    # every statement is a Spark job: stacked targets up to 2^28 records x targets (10M + 10M
    # rows: 13 targets together)
    stack_budget = 2**28
    name = "Spark"
    # row positions (position_order): the order of the partitions, and of the rows within
    # each; output tables (table_format): managed Parquet tables, no Hive support needed

    def __init__(
        self, session: Any, materialize: str = "checkpoint", schema: str | None = None
    ) -> None:
        super().__init__()
        self.spark = session
        self.materialize = materialize
        self.schema = schema
        self._views: list[str] = []

    def own(self, name: str) -> str:
        physical = super().own(name)
        if physical != name and self.materialize == "table" and self.schema:
            # schema: "scratch" or "catalog.scratch"
            parts = [*self.schema.split("."), physical]
            self._own[ident(name)] = ".".join(ident(p) for p in parts)
        return physical

    def _table(self, name: str) -> str:
        """The work table ``name`` of this run (materialize="table"), quoted for Spark."""
        parts = [*(self.schema.split(".") if self.schema else []), self.own(name)]
        return ".".join(exp.to_identifier(p, quoted=True).sql("spark") for p in parts)

    def close(self) -> None:
        self.drop_leftovers()  # tables of the user's schema (materialize="table")
        for view in self._views:
            self.spark.catalog.dropTempView(view)
        self._views.clear()

    def about(self) -> dict[str, str | None]:
        from importlib.metadata import version

        conf = self.spark.conf
        host = conf.get("spark.master", None) or conf.get("spark.remote", None)
        return {
            "engine": self.name,
            "version": f"Spark {self.spark.version}",
            "driver": f"pyspark {version('pyspark')}",
            "database": self.spark.catalog.currentDatabase(),
            "host": host,
        }

    def classify(self, obj: Any, label: str) -> Source:
        if type(obj).__name__ == "DataFrame" and type(obj).__module__.startswith("pyspark"):
            return Source("spark_df", obj, label)
        if isinstance(obj, str | os.PathLike):
            text = os.fspath(obj)
            if text.lower().endswith(PARQUET_SUFFIXES) or os.path.isdir(text) or "/" in text:
                return Source("spark_parquet", text, label)
            return Source("spark_table", text, label, named_table=True)
        raise InputError(
            f"{label}: on Spark a data set is a table or view name, a Parquet path or directory, "
            f"or a Spark DataFrame, got {described(obj)}"
        )

    def _register(self, source: Source, name: str, param: str) -> Registered:
        try:
            if source.kind == "spark_df":
                df = source.obj
            elif source.kind == "spark_parquet":
                df = self.spark.read.parquet(source.obj)
            else:
                df = self.spark.table(source.obj)
        except Exception as e:
            raise EngineError(str(e).splitlines()[0]) from e
        df.createOrReplaceTempView(name)
        self._views.append(name)
        return Registered(source, ident(name))

    def _columns(self, reg: Registered) -> dict[str, str]:
        df = self.spark.table(_view_name(reg.sql))
        return {f.name: f.dataType.simpleString() for f in df.schema.fields}

    def _is_engine_error(self, e: Exception) -> bool:
        module = type(e).__module__ or ""
        return module.startswith(("pyspark", "py4j"))

    def _create_table(self, name: str, sql: str, params: dict[str, Any], stage: str) -> None:
        if self.materialize == "table":  # a Parquet table; no view, no checkpoint
            self._drop_table(name)
            query, used = self.translate(sql, params)
            create = f"CREATE TABLE {self._table(name)}{self.table_format} AS\n{query}"
            self._guarded(stage, lambda: self._execute(create, used))
            return
        view = self.own(name)

        def run() -> None:
            df = self.spark.sql(*self.translate(sql, params))
            df.localCheckpoint(eager=True).createOrReplaceTempView(view)

        self._guarded(stage, run)
        if view not in self._views:
            self._views.append(view)

    def _drop_table(self, name: str) -> None:
        if self.materialize == "table":
            drop = f"DROP TABLE IF EXISTS {self._table(name)}"
            self._guarded("cleanup", lambda: self._execute(drop, {}))
            return
        self.spark.catalog.dropTempView(self.own(name))

    def output_table(self, name: str, database: str | None) -> str:
        """``name`` or ``database.name`` in the session's catalog, quoted for Spark."""
        if database is not None:
            raise InputError("out: a DuckDB database file needs the DuckDB engine")
        parts = name.split(".", 1)
        return ".".join(exp.to_identifier(p, quoted=True).sql("spark") for p in parts)

    def has_table(self, name: str, database: str | None) -> bool:
        return bool(self.spark.catalog.tableExists(name))

    def replace_table(self, staging: str, table: str, name: str) -> list[str]:
        """Spark has no transactions: the old table is dropped and the complete staging table
        renamed at once after it (a reader between the two finds no table, never part of
        one)."""
        return [f"DROP TABLE IF EXISTS {table}", f"ALTER TABLE {staging} RENAME TO {table}"]

    def _execute(self, sql: str, params: dict[str, Any]) -> None:
        self.spark.sql(sql, args=params or None).collect()

    def _query(self, sql: str, params: dict[str, Any]) -> pa.Table:
        df = self.spark.sql(sql, args=params or None)
        table: pa.Table = df.toArrow()
        return table


def _view_name(quoted: str) -> str:
    if not (quoted.startswith('"') and quoted.endswith('"')):
        raise EngineError(f"not a quoted view name: {quoted}")
    return quoted[1:-1].replace('""', '"')
