"""The script engine: writes the statements of a run into a SQL script instead of running them
(for :func:`discosql.to_sql`), each under the header comment of its template.
"""

from __future__ import annotations

import re
from typing import Any

import pyarrow as pa
from sqlglot import exp

from ..errors import EngineError
from ..sql.dialects import ORDERED_DIALECTS, facts, inline_params
from ..sql.templates import ident, template_dir
from .base import STAGING, WORK_PREFIX, Engine, Registered

INPUT = "__disco_input"  # a CSV file parsed once by a duckdb script (record positions)
# the first table a script with work tables in the user's schema makes, and its last drop:
# while it exists another run of the same script stops at once
LOCK = "__disco_run"


class ScriptEngine(Engine):
    """Writes statements into a script instead of running them."""

    name = "script"
    one_measure_query = False  # the script prints synthpop's three tables
    exporting = True

    def __init__(self, dialect: str, overwrite: bool = False) -> None:
        super().__init__()
        self.dialect = dialect
        self.facts = facts(dialect)  # what the script may write, read off the dialect
        self.overwrite = overwrite  # output tables: dropped first
        # the script's stages take the shape they would take on the engine that runs it
        self.inline_cells = self.facts.reads_files
        self.parts: list[str] = []
        self.made: list[str] = []  # work tables of positioned(), dropped by drop_made()
        # Spark, Trino and DataFusion have no temporary tables: the work tables are tables of
        # the current schema, named with this export's token (Engine.own), behind a lock
        self.shared = self.facts.work_tables == "table"
        self.locked = False

    def comment(self, text: str) -> None:
        self.parts.append("\n".join(f"-- {line}".rstrip() for line in text.splitlines()))

    def label(self, column: str, value: str) -> None:
        """A one-row result naming what the next results are (the shell prints it before
        them): ``SELECT 'value' AS column``."""
        query = exp.select(exp.alias_(exp.Literal.string(value), column, quoted=True))
        self.parts.append(query.sql(self.facts.writer) + ";")

    def execute(self, sql: str, params: dict[str, Any], stage: str) -> None:
        if self.shared and not self.locked:
            self._lock()
        self.comment(_template_header(stage))
        self._statement(sql, params)

    def _statement(self, sql: str, params: dict[str, Any], file_format: str | None = None) -> None:
        if self.shared:
            if not self.locked:
                self._lock()
            sql = self.owned(sql)
        if self.facts.work_tables == "hash":
            # SQL Server's temporary tables are the ones named #...; discosql's own relations
            # are the only quoted identifiers that start with __disco_ (user columns may not).
            sql = sql.replace('"__disco_', '"#__disco_')
        self.parts.append(inline_params(sql, params, self.dialect, file_format) + ";")

    def _lock(self) -> None:
        """The script's first statement: a table named with the export's token, which another
        run of the same script (or one that stopped midway) already holds: the run stops
        before it reads or writes anything."""
        self.locked = True
        self.own(LOCK)
        self.comment(
            "lock: the run stops here ('already exists') while another run of this script is\n"
            "under way, or after one stopped midway (its tables: see the header)"
        )
        self._statement(f"CREATE TABLE {ident(LOCK)} AS SELECT 1 AS running", {})

    def text(self) -> str:
        """The script: its statements, and where work tables are tables of the user's schema,
        the lock released at the end and the statements that clear a stopped run's tables
        after the header."""
        parts = list(self.parts)
        if not self.facts.executed:
            parts.insert(
                1,
                f"-- {self.dialect}: discosql's tests parse and lint scripts in this dialect but "
                "have never run one\n-- on the system (docs/engines.md); run it on a copy of "
                "the data first.",
            )
        if self.shared and self.locked:
            lock = self.owned(ident(LOCK))
            names = [q for q in self._own.values() if q != lock] + [lock]  # the lock last
            drops = [inline_params(f"DROP TABLE IF EXISTS {q}", {}, self.dialect) for q in names]
            parts.append(drops[-1] + ";")
            note = [
                f"Work tables: tables of the current schema named {WORK_PREFIX}{self.run_id}_*,",
                "this export's own, dropped at the end. If the script stopped midway (an",
                "error, a data check, Ctrl-C) they stay, and the next run stops at its first",
                "statement; once no run is under way, clear them with:",
                *(f"  {d};" for d in drops),
            ]
            parts.insert(1, "\n".join(f"-- {line}" for line in note))
        return "\n\n".join(parts) + "\n"

    def query(
        self,
        sql: str,
        params: dict[str, Any],
        stage: str,
        *,
        small: bool = False,
        schema: pa.Schema | None = None,
    ) -> pa.Table:
        """The statement is written; its result is read where the script runs (here: the
        declared ``schema``'s empty table, else a table with no columns)."""
        self.execute(sql, params, stage)
        return pa.table({}) if schema is None else schema.empty_table()

    def copy_to(self, sql: str, params: dict[str, Any], path: str, stage: str) -> int:
        """DuckDB's COPY of the query to the file ``path`` (duckdb scripts only)."""
        if not self.facts.reads_files:
            raise EngineError(f"a {self.dialect} script cannot write files; name a table")
        fmt = "csv, header true" if path.lower().endswith(".csv") else "parquet"
        self.comment(_template_header(stage))
        target = exp.Literal.string(path).sql("duckdb")
        query = inline_params(sql, params, self.dialect)
        self.parts.append(f"COPY (\n{query}\n) TO {target} (FORMAT {fmt});")
        return 0

    def write_table(
        self, name: str, database: str | None, sql: str, params: dict[str, Any], stage: str
    ) -> int:
        """The query as a table (Spark: a Parquet table) made under a staging name, then renamed
        to ``name`` (after dropping the old table, only when overwriting; the rename fails on
        an existing table otherwise): a reader never sees part of a table. Where the dialect
        has transactional DDL (DuckDB, PostgreSQL) the drop and the rename are one
        transaction. DataFusion, which cannot rename, creates the table directly (its tables
        are the session's own)."""
        if database is not None:
            raise EngineError("a script writes tables in the database it runs on")
        table = self.output_table(name, None)
        # named per export: two scripts writing one output never share a staging table
        staging = self.output_table(f"{name}{STAGING}_{self.run_id}", None)
        self.comment(_template_header(stage))
        if self.facts.rename is None:  # DataFusion: its tables live in the session only
            if self.overwrite:
                self._statement(f"DROP TABLE IF EXISTS {table}", {})
            self._statement(f"CREATE TABLE {table} AS\n{sql}", params)
            return 0
        self._statement(f"DROP TABLE IF EXISTS {staging}", {})  # left by a stopped run
        self._statement(f"CREATE TABLE {staging} AS\n{sql}", params, self.facts.table_format)
        # the new name: unqualified where the dialect keeps the schema (and wants it so)
        same_schema = self.facts.rename == "unqualified"
        target = ident(name.split(".")[-1]) if same_schema else table
        transaction = self.overwrite and self.facts.transactional_ddl
        if transaction:
            self.parts.append("BEGIN;")
        if self.overwrite:
            self._statement(f"DROP TABLE IF EXISTS {table}", {})
        self._statement(f"ALTER TABLE {staging} RENAME TO {target}", {})
        if transaction:
            self.parts.append("COMMIT;")
        return 0

    def output_table(self, name: str, database: str | None) -> str:
        """``name`` or ``schema.name``, quoted (in the templates' dialect)."""
        return ".".join(ident(part) for part in name.split("."))

    def positioned(self, reg: Registered) -> str:
        """The data set ``reg`` (as the script reads it) with ``__disco_pos``, each record's
        1-based position, as the engine that runs the script numbers them: DuckDB a Parquet
        file's row numbers (files in the order of their names), a CSV file's lines (parsed
        into a work table first) or a table's rowid; PostgreSQL ctid; Spark the partitions'
        order. The other dialects' tables have no record order: an error."""
        order = self.facts.position_order
        if not self.facts.reads_files:
            if not order:
                raise EngineError(
                    f"a {self.dialect} table has no order of its records, so a per-record "
                    f"table cannot give their positions; export for one of "
                    f"{', '.join(ORDERED_DIALECTS)}"
                )
            return (
                f"(SELECT *, row_number() OVER (ORDER BY {order}) AS __disco_pos "
                f"FROM {reg.sql} AS __disco_f)"
            )
        if reg.params and reg.source.kind == "parquet":  # files the script reads itself
            return (
                "(SELECT *, row_number() OVER (ORDER BY file_index, file_row_number) AS "
                f"__disco_pos FROM {reg.sql} AS __disco_f)"
            )
        source = reg.sql
        if reg.params:  # CSV: parsed once, its lines kept in order as the table's rowid
            self.create_table(INPUT, f"SELECT * FROM {reg.sql}", reg.params, "input (CSV)")
            self.made.append(INPUT)
            source = ident(INPUT)
        return f"(SELECT *, rowid + 1 AS __disco_pos FROM {source})"

    def drop_made(self) -> None:
        """Drop the work tables :meth:`positioned` made."""
        for name in self.made:
            self.drop_table(name)
        self.made.clear()

    def create_table(self, name: str, sql: str, params: dict[str, Any], stage: str) -> None:
        temp = "TEMP "
        if self.facts.work_tables == "hash":
            temp = ""  # the # in the name says it
        elif self.shared:
            # Spark, Trino and DataFusion have no temporary tables. Spark's temporary views are
            # recomputed at every use, and CACHE TABLE keeps each stage's whole plan: later
            # stages re-plan ever larger trees until the driver runs out of memory (5,000
            # records, 2 GB driver). A work table cuts the lineage; it is named for this
            # export and never dropped first (a table of that name is another run's: the
            # lock stops a second run before it gets here)
            temp = ""
            self.own(name)
        self.execute(f"CREATE {temp}TABLE {ident(name)} AS\n{sql}", params, stage)
        if self.facts.analyze:
            self._statement(f"ANALYZE {ident(name)}", {})

    def drop_table(self, name: str) -> None:
        if self.shared:
            self.own(name)
        self._statement(f"DROP TABLE IF EXISTS {ident(name)}", {})


def _template_header(stage: str) -> str:
    """The header comment of the template behind ``stage`` (stages are named by their
    template), as the script's comment."""
    if not stage.endswith(".sql.j2"):
        return stage
    text = (template_dir() / stage).read_text()
    m = re.match(r"\s*\{#-?(.*?)-?#\}", text, re.DOTALL)
    body = m.group(1).strip("\n") if m else ""
    lines = [line[2:] if line.startswith("  ") else line for line in body.splitlines()]
    return f"{stage}\n" + "\n".join(lines)
