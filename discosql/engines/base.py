"""What discosql needs from a SQL engine (:class:`Engine`), what a data set is before an
engine reads it (:class:`Source`) and once it has (:class:`Registered`).

Every template renders DuckDB-dialect SQL with ``$name`` parameters. An engine runs it in its
own dialect (:meth:`Engine.translate`, through :mod:`discosql.sql.dialects`), binds the values,
and returns Arrow tables whose types do not depend on the engine (:func:`conform`). Temporary
relations go through :meth:`Engine.create_table` / :meth:`Engine.drop_table` because engines
make them differently. Nothing here knows a particular engine: each lives in its own module.
"""

from __future__ import annotations

import contextlib
import math
import re
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import EngineError, InputError, TemplateError
from ..sql.dialects import facts, is_template_dialect, placeholders, transpile
from ..sql.templates import ident, lit
from ..sql.types import column_kind


@dataclass
class Registered:
    """A registered input: ``sql`` is what goes after FROM, ``params`` what it needs bound."""

    source: Source
    sql: str
    params: dict[str, Any] = field(default_factory=dict)
    columns: dict[str, str] = field(default_factory=dict)  # name -> the engine's type name
    # name -> its kind (discosql.sql.types.column_kind: integer, float, text, ... or None)
    kinds: dict[str, str | None] = field(default_factory=dict)
    n_rows: int = 0
    dialect: str = ""  # the engine's, whose rule resolves the column names given (read_as)
    # columns read under the name an argument gave (name given -> name stored), and the
    # relation as registered, which ``sql`` then selects them from (read_as)
    renamed: dict[str, str] = field(default_factory=dict)
    table: str = ""

    def read_as(self, given: str, stored: str) -> None:
        """Read the column ``stored`` as ``given`` from now on (the name an argument gave,
        which the dialect resolves to it: ``engines.names.column_of``): every statement of
        the run names the column as the user did, and only ``sql`` reads the stored name."""
        if not self.renamed:
            self.table = self.sql
        self.renamed[given] = stored
        self.columns = {given if n == stored else n: t for n, t in self.columns.items()}
        self.kinds = {given if n == stored else n: k for n, k in self.kinds.items()}
        self.sql = f"(SELECT {self.select_list()} FROM {self.table})"

    def select_list(self) -> str:
        """The columns of the relation as registered (``table``) under their names in the run:
        ``*``, or each one with the columns read as another name aliased."""
        if not self.renamed:
            return "*"
        return ", ".join(
            f"{ident(self.renamed[c])} AS {ident(c)}" if c in self.renamed else ident(c)
            for c in self.columns
        )

    def relation(self) -> str:
        """The relation as registered: before any column was read as another name."""
        return self.table or self.sql


@dataclass
class Work:
    """The work tables of one call on ``engine`` (:meth:`Engine.work`): ``tables`` in the
    order made, dropped together at the end of the block (an exported script's cleanup is
    part of its text, so each caller keeps its order)."""

    engine: Engine
    tables: list[str] = field(default_factory=list)
    newest_first: bool = False

    def create(self, name: str, sql: str, params: dict[str, Any], stage: str) -> None:
        """Materialise ``sql`` as the work table ``name`` (replacing it)."""
        self.hold(name)
        self.engine.create_table(name, sql, params, stage)

    def hold(self, name: str) -> None:
        """Drop ``name`` with the others (a table made by a helper that takes the engine)."""
        if name not in self.tables:
            self.tables.append(name)

    def drop(self, name: str) -> None:
        """Drop ``name`` now (a stage whose table the next stages no longer read)."""
        if name in self.tables:
            self.tables.remove(name)
        self.engine.drop_table(name)

    def release(self, name: str) -> None:
        """Keep ``name`` past the block: the caller drops it (dictionaries handed on)."""
        if name in self.tables:
            self.tables.remove(name)

    def drop_all(self) -> None:
        while self.tables:
            self.engine.drop_table(self.tables.pop(-1 if self.newest_first else 0))


# discosql's own relations: work tables, registered inputs (user columns may not start so)
WORK_PREFIX = "__disco_"
# what a statement's text is scanned as when work tables are renamed: a string, a quoted
# identifier or a comment (only a quoted identifier can be renamed)
_TOKENS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/", re.DOTALL)

# an output table is made under its name + STAGING (+ the run's token on a live engine), then
# renamed (Engine.write_table)
STAGING = "__discosql_staging"


class Engine:
    """What discosql needs from a SQL engine; subclasses set ``dialect`` and ``name`` and
    implement ``classify`` and the ``_`` methods."""

    dialect: str  # sqlglot's name of the engine's SQL dialect
    name: str  # for messages
    # Whether stage 040 reads a target's cells as stage 030's query inlined as a CTE (True) or
    # from a stored table. A stored table works everywhere; inlining pays only where the engine
    # pipelines a CTE instead of evaluating it at each use.
    inline_cells: bool = False
    # Whether the per-synthesis measure families run as one query (measures/per_synthesis):
    # an engine returns their rows at once; a script prints each family as its own table.
    one_measure_query: bool = True
    # Stacked targets (discosql.stacked): a summary measures its targets together while
    # (records read per target) x (targets) stays within this; 0: one target at a time.
    stack_budget: int = 0
    # Whether the statements are written into a script that runs elsewhere, on data the run
    # does not see (decisions are made ahead and checked where the script runs)
    exporting: bool = False

    def __init__(self) -> None:
        self._n = 0
        # this run's own token: its work tables, views and output staging tables are named
        # with it (:meth:`own`), so two runs in one schema or session never share one
        self.run_id = secrets.token_hex(4)
        self._own: dict[str, str] = {}  # a work table's quoted name -> this run's, quoted
        self._made: dict[str, None] = {}  # work tables made and not dropped, oldest first
        # relations with no stored position (a PostgreSQL view has no ctid): numbered in the
        # order the engine scans them
        self.scan_order: set[str] = set()

    # -- lifecycle ------------------------------------------------------------------------
    def close(self) -> None:
        """Release what this engine opened (never the user's own connection or session)."""

    def drop_leftovers(self) -> None:
        """Drop every work table this engine made and nothing dropped (a family that keeps its
        tables until its engine closes; a user's connection outlives the engine), newest
        first. An engine error here (a connection already broken) leaves the first error
        to be reported."""
        for name in reversed(list(self._made)):
            with contextlib.suppress(EngineError):
                self.drop_table(name)

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def about(self) -> dict[str, str | None]:
        """What ran the call, for the report's provenance: ``engine`` and its ``version``,
        ``driver`` (the client library and its version), ``database``, ``host`` and
        ``role`` (None where the engine has none: an embedded one)."""
        return {"engine": self.name, "version": None, "driver": None}

    # -- inputs ---------------------------------------------------------------------------
    def classify(self, obj: Any, label: str) -> Source:
        """What a data set argument is on this engine, or an InputError naming ``label``."""
        raise NotImplementedError

    def register(self, source: Source) -> Registered:
        """Make ``source`` readable by the templates; read its schema and row count."""
        return self.register_all([source])[0]

    def register_all(
        self, sources: list[Source], check: Callable[[list[Registered]], None] | None = None
    ) -> list[Registered]:
        """Register each of ``sources`` (its schema read), call ``check`` with them (what
        needs the schemas but no data: a misspelled column fails before anything is counted),
        then count their rows in one statement (a small disclosure() of 6 data sets: 4 ms in 6
        statements, 1.7 ms in one). If that fails, each is counted alone, so that the error
        names its data set."""
        regs = []
        for source in sources:
            i = self._n
            self._n += 1
            try:  # guarded: Ctrl-C while a schema is read is an interrupt, not an error
                reg = self._guarded("register", partial(self._registered, source, i))
            except EngineError as e:
                first = str(e).splitlines()[0] if str(e) else "?"
                raise InputError(f"{source.label}: cannot read the data: {first}") from e
            regs.append(reg)
        if check is not None:
            check(regs)
        counts = [
            f"SELECT {lit(i)} AS i, count(*) AS n FROM {reg.sql}"
            + (" AS __disco_c" if reg.renamed else "")  # a subquery (read_as): named
            for i, reg in enumerate(regs)
        ]
        params = {k: v for reg in regs for k, v in reg.params.items()}
        try:
            union = "\nUNION ALL\n".join(counts)
            rows = self.query(union, params, "register", small=True).to_pylist()
        except EngineError:
            rows = []
            for count, reg in zip(counts, regs, strict=True):
                try:
                    rows += self.query(count, reg.params, "register", small=True).to_pylist()
                except EngineError as e:
                    first = str(e).splitlines()[0] if str(e) else "?"
                    raise InputError(f"{reg.source.label}: cannot read the data: {first}") from e
        for r in rows:
            regs[int(r["i"])].n_rows = int(r["n"])
        return regs

    def _registered(self, source: Source, i: int) -> Registered:
        if source.kind == "work":  # a work table of this run, with the columns of ``like``
            name, like = source.obj
            assert isinstance(like, Registered)
            # its columns are named as the run names them (read_as)
            return replace(
                like, source=source, sql=ident(name), params={}, n_rows=0, renamed={}, table=""
            )
        reg = self._register(source, self.own(f"{WORK_PREFIX}src_{i}"), f"src_{i}")
        reg.dialect = self.dialect
        reg.columns = self._columns(reg)
        reg.kinds = {n: column_kind(t, self.dialect) for n, t in reg.columns.items()}
        return reg

    def _register(self, source: Source, name: str, param: str) -> Registered:
        raise NotImplementedError

    def _columns(self, reg: Registered) -> dict[str, str]:
        """The data set's columns in order, each with its type as this engine names it."""
        raise NotImplementedError

    # -- this run's names -----------------------------------------------------------------
    def own(self, name: str) -> str:
        """The name the work table ``name`` (``__disco_x``) has in this run:
        ``__disco_<run_id>_x``. Statements keep writing ``__disco_x``; :meth:`translate`
        renames it in their text (quoted identifiers only, never a string or a comment)."""
        if not name.startswith(WORK_PREFIX) or name.startswith(self._prefix()):
            return name
        physical = self._prefix() + name[len(WORK_PREFIX) :]
        self._own[ident(name)] = ident(physical)
        return physical

    def _prefix(self) -> str:
        return f"{WORK_PREFIX}{self.run_id}_"

    def owned(self, sql: str) -> str:
        """``sql`` with each work table this run has named (:meth:`own`) under its run name."""
        if not self._own or f'"{WORK_PREFIX}' not in sql:
            return sql
        return _TOKENS.sub(lambda m: self._own.get(m.group(0), m.group(0)), sql)

    # -- running SQL ----------------------------------------------------------------------
    def execute(self, sql: str, params: dict[str, Any], stage: str) -> None:
        """Run a statement (DuckDB dialect, ``$name`` parameters) for its effect."""
        self._guarded(stage, lambda: self._execute(*self.translate(sql, params)))

    def query(
        self,
        sql: str,
        params: dict[str, Any],
        stage: str,
        *,
        small: bool = False,
        schema: pa.Schema | None = None,
    ) -> pa.Table:
        """Run a query (DuckDB dialect, ``$name`` parameters); the result as an Arrow table.

        ``small``: the caller knows the result is a few rows (a measure, a check, facts about
        the dictionaries), which an engine may fetch in a way that costs less per statement
        and more per row (DuckDB: :meth:`_query_small`). ``schema``: the result table's
        declared columns, which the result is conformed to (:func:`conform`)."""
        run = self._query_small if small else self._query
        table = self._guarded(stage, lambda: run(*self.translate(sql, params)))
        return conform(table, schema, stage)

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
        self.own(name)
        self._made[name] = None
        self._create_table(name, sql, params, stage)

    def drop_table(self, name: str) -> None:
        self.own(name)
        self._made.pop(name, None)
        self._drop_table(name)

    def _create_table(self, name: str, sql: str, params: dict[str, Any], stage: str) -> None:
        self._drop_table(name)
        self.execute(f"CREATE TEMP TABLE {ident(name)} AS\n{sql}", params, stage)
        self.analyze(name, stage)

    def analyze(self, name: str, stage: str) -> None:
        """Gather the statistics of the work table ``name`` where the dialect needs it asked
        (``sql.dialects.Dialect.analyze``)."""
        if facts(self.dialect).analyze:
            self.execute(f"ANALYZE {ident(name)}", {}, stage)

    def _drop_table(self, name: str) -> None:
        self.execute(f"DROP TABLE IF EXISTS {ident(name)}", {}, "cleanup")

    @contextlib.contextmanager
    def work(self, newest_first: bool = False) -> Iterator[Work]:
        """The one way a call makes work tables: each is made through the :class:`Work` (or
        handed to it) and every one still held is dropped when the block ends, however it
        ends: in the order made, or ``newest_first``."""
        work = Work(self, newest_first=newest_first)
        try:
            yield work
        finally:
            work.drop_all()

    def copy_to(self, sql: str, params: dict[str, Any], path: str, stage: str) -> int:
        """Write the result of ``sql`` to the file ``path`` (Parquet or CSV by its ending)
        without bringing it into Python; returns the number of rows written."""
        raise EngineError(f"writing files from {self.name} is not available; use DuckDB")

    def output_table(self, name: str, database: str | None) -> str:
        """The quoted name of a table of results in the engine's own database (``database``:
        a DuckDB database file, for DuckDB only)."""
        raise EngineError(f"{self.name} cannot write tables here; write files with DuckDB")

    def output_schema(self, name: str) -> str | None:
        """The schema an output table ``name`` is created in: the one it names, else the
        engine's ``schema`` (None: the first of the search path)."""
        return name.split(".", 1)[0] if "." in name else getattr(self, "schema", None)

    def has_table(self, name: str, database: str | None) -> bool:
        """Whether the output table ``name`` exists (checked before any data is read)."""
        raise EngineError(f"{self.name} cannot write tables here; write files with DuckDB")

    @property
    def table_format(self) -> str:
        """What CREATE TABLE ... AS adds before AS for an output table: the dialect's
        ``table_format`` fact (Spark: `` USING parquet``), else nothing."""
        written = facts(self.dialect).table_format
        return f" USING {written}" if written else ""

    def write_table(
        self,
        name: str,
        database: str | None,
        sql: str,
        params: dict[str, Any],
        stage: str,
    ) -> int:
        """Create the output table ``name`` from the query (replacing it); returns its rows.
        The statements are written in the engine's own dialect around the translated query.
        The table is made under a staging name and renamed into place when complete (in one
        transaction with the drop of the table it replaces, where the engine has them), so a
        reader sees the old table or the new one, never part of one; on failure the staging
        table is dropped and an existing table stays as it was."""
        table = self.output_table(name, database)
        staging = self.output_table(f"{name}{STAGING}_{self.run_id}", database)
        query, used = self.translate(sql, params)

        def run() -> int:
            self._execute(f"DROP TABLE IF EXISTS {staging}", {})
            try:
                self._execute(f"CREATE TABLE {staging}{self.table_format} AS\n{query}", used)
                count = f"SELECT count(*) AS n FROM {staging}"
                n = int(self._query(count, {}).column(0)[0].as_py())
                for statement in self.replace_table(staging, table, name):
                    self._execute(statement, {})
            except BaseException:
                with contextlib.suppress(Exception):  # the staging table only: never the output
                    self._execute(f"DROP TABLE IF EXISTS {staging}", {})
                raise
            return n

        n: int = self._guarded(stage, run)
        return n

    def replace_table(self, staging: str, table: str, name: str) -> list[str]:
        """The statements that put the complete ``staging`` table in the place of ``table``
        (``name`` as given): one transaction (DuckDB, PostgreSQL, SQLite)."""
        leaf = ident(name.split(".")[-1])
        return [
            "BEGIN",
            f"DROP TABLE IF EXISTS {table}",
            f"ALTER TABLE {staging} RENAME TO {leaf}",
            "COMMIT",
        ]

    @property
    def position_order(self) -> str | None:
        """What orders a table's records as stored: the dialect's ``position_order`` fact
        (SQLite rowid, PostgreSQL ctid, Spark the partitions' order; None: no order). DuckDB's
        is "" there, as its order depends on what is read (``DuckDBEngine.positioned``): a
        table's rowid, which is what orders a DuckDB table read through a DB-API connection."""
        order = facts(self.dialect).position_order
        return "rowid" if order == "" else order

    # whether the engine's tables keep an order of their records, so that a per-record table
    # can say which record each row is (Snowflake, BigQuery, Trino: no)
    record_order: bool = True

    def positioned(self, reg: Registered) -> str:
        """A relation over the data set ``reg`` with its columns and ``__disco_pos``: each
        record's 1-based position in the input as stored (``position_order``)."""
        if self.position_order is None:
            raise EngineError(f"row positions are not available on {self.name}")
        # numbered on the relation as registered, where the positions are
        selected, relation = reg.select_list(), reg.relation()
        if relation in self.scan_order:
            return f"(SELECT {selected}, row_number() OVER () AS __disco_pos FROM {relation})"
        return (
            f"(SELECT {selected}, row_number() OVER (ORDER BY {self.position_order}) AS "
            f"__disco_pos FROM {relation})"
        )

    def translate(self, sql: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The statement in this engine's dialect and the parameters it uses."""
        sql = self.owned(sql)
        names = placeholders(sql)
        used = {k: v for k, v in params.items() if k in names}
        if is_template_dialect(self.dialect):
            return sql, used
        return transpile(sql, self.dialect), used

    def _guarded(self, stage: str, run: Callable[[], Any]) -> Any:
        try:
            return run()
        except (EngineError, InputError):
            raise
        except Exception as e:
            if self._is_interrupt(e):  # Ctrl-C reached the engine, which stopped the query
                raise KeyboardInterrupt from e
            if not self._is_engine_error(e):
                raise
            raise EngineError(f"stage {stage} failed on {self.name}: {engine_message(e)}") from e

    def _is_engine_error(self, e: Exception) -> bool:
        raise NotImplementedError

    def _is_interrupt(self, e: Exception) -> bool:
        """Whether ``e`` is the engine's report of a query stopped by Ctrl-C: here, an error
        raised from a KeyboardInterrupt (ADBC cancels the query on SIGINT and raises its
        CANCELLED error from the interrupt)."""
        return isinstance(e.__cause__, KeyboardInterrupt)

    def _execute(self, sql: str, params: dict[str, Any]) -> None:
        raise NotImplementedError

    def _query(self, sql: str, params: dict[str, Any]) -> pa.Table:
        raise NotImplementedError

    def _query_small(self, sql: str, params: dict[str, Any]) -> pa.Table:
        return self._query(sql, params)


def conform(table: pa.Table, schema: pa.Schema | None = None, where: str = "") -> pa.Table:
    """Engine-independent result types.

    Without ``schema``: decimals (PostgreSQL's SUM, Spark's exact sums) become BIGINT when
    their scale is 0 and DOUBLE otherwise; small integers become INTEGER; every column is
    nullable (Spark marks some not null).

    With ``schema`` (a result table's declared columns, the one place results are conformed):
    the columns must be the schema's, in its order, and are cast to its types; a NULL double
    is NaN, because SQLite has no NaN and no measure is NULL on purpose on any engine (a 0/0
    measure is NaN). A table with no columns is the script engine's (the statement was
    written, not run): the schema's empty table."""
    if schema is not None:
        return _to_schema(table, schema, where)
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


def _to_schema(table: pa.Table, schema: pa.Schema, where: str) -> pa.Table:
    if table.num_columns == 0:
        return schema.empty_table()
    if table.column_names != schema.names:
        raise TemplateError(f"{where}: columns {table.column_names} != {schema.names}")
    columns = []
    for f, col in zip(schema, table.columns, strict=True):
        col = col.cast(f.type)
        if pa.types.is_floating(f.type) and col.null_count:
            col = pc.fill_null(col, pa.scalar(math.nan, f.type))
        columns.append(col)
    return pa.table(columns, schema=schema)


PARQUET_SUFFIXES = (".parquet", ".parq", ".pq")


CSV_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".csv.zst")


# a driver's quote of the statement that failed (ADBC: "Failed to execute query '...'"), and
# the lines that point into it (PostgreSQL's "LINE 3: ..." and its caret)
_QUOTED_QUERY = re.compile(r"(?s)(query) '.*?'(?=: |\s*$)")
# ... and ADBC's "Query was: <the statement>" after the message, to the end
_QUERY_WAS = re.compile(r"(?s)\n\s*Query was:.*$")
_POINTER = re.compile(r"^(LINE \d+:|\s*\^\s*$|QUERY:|CONTEXT:)")


def engine_message(e: BaseException) -> str:
    """An engine's error message without discosql's own SQL: no statement quoted, no line
    pointing into it (the SQL of a stage is in its template, named with the error)."""
    text = _QUOTED_QUERY.sub(r"\1", _QUERY_WAS.sub("", str(e).strip()))
    lines = [line for line in text.splitlines() if line.strip() and not _POINTER.match(line)]
    return "\n".join(lines) or type(e).__name__


def described(obj: Any, limit: int = 80) -> str:
    """``obj`` named for a message in one short line: a name's repr (cut at ``limit``), else its
    type and size, never a whole table's repr."""
    if isinstance(obj, str | tuple | int | float | bool) or obj is None:
        text = repr(obj)
        return text if len(text) <= limit else f"{text[: limit - 3]}..."
    rows = getattr(obj, "num_rows", None)
    if rows is None and hasattr(obj, "shape"):
        rows = getattr(obj, "shape", (None,))[0]
    size = f" of {rows} rows" if isinstance(rows, int) else ""
    return f"a {type(obj).__module__.split('.')[0]}.{type(obj).__name__}{size}"


@dataclass(frozen=True)
class Source:
    """A classified input. ``kind`` is the engine's own (DuckDB: parquet, csv, arrow, reader,
    pandas, relation, duckdb_table; PostgreSQL: pg_table; ...), or ``work`` on every engine:
    ``obj`` is (a work table of this run, the Registered whose columns it has)."""

    kind: str
    obj: Any
    label: str  # "original" or "synthetic 2": where it is, for messages
    # a table or view of the engine's database, which an exported script run there reads as is
    named_table: bool = False
