"""The embedded DuckDB engine (the default) and what it accepts as a data set: a path or glob to
Parquet or CSV files, a ``pyarrow.Table`` / ``RecordBatchReader`` / dataset, a pandas or
polars DataFrame, a polars LazyFrame, any object with ``__arrow_c_stream__``, a DuckDB
relation, or a table in a DuckDB database file (:func:`duckdb_table`).
Inputs are only read, never modified.
"""

from __future__ import annotations

import functools
import glob
import itertools
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from sqlglot import exp

from ..errors import EngineError, InputError
from ..sql.templates import ident, lit
from .base import CSV_SUFFIXES, PARQUET_SUFFIXES, Engine, Registered, Source

_DATABASES: dict[tuple[int | None, str | None, str | None], duckdb.DuckDBPyConnection] = {}
_LOCK = threading.Lock()
_TAGS = itertools.count()
SMALL_RESULT = "__disco_small_result"  # DuckDBEngine._query_small's table


# DuckDB's memory_limit bounds its buffer manager, not the process: some of its allocations, the
# allocator's retained pages and the Python process itself come on top. discosql's memory_limit
# is the whole process's, so DuckDB's buffer manager gets this share of it (with all of it,
# a summary of 100M + 100M rows under "4GB" peaked at 4.7 GB of RSS; docs/performance.md).
BUFFER_SHARE = 0.8
_NO_LIMIT = ("none", "null")


@functools.cache
def buffer_limit(memory_limit: str) -> str:
    """DuckDB's ``memory_limit`` setting for a process limit of ``memory_limit`` (a size as
    DuckDB reads it, '4GB', '512 MiB'; a percentage of the machine's memory, '50%'; or 'none'):
    ``BUFFER_SHARE`` of it. InputError when DuckDB cannot read the size."""
    text = memory_limit.strip().lower()
    if text in _NO_LIMIT or text.startswith("-"):  # DuckDB's spellings of "no limit"
        return memory_limit
    percent = re.fullmatch(r"(\d+(?:\.\d*)?)\s*%", text)
    if percent:
        return f"{float(percent[1]) * BUFFER_SHARE:.6g}%"
    try:
        with duckdb.connect() as con:  # DuckDB's own parser of sizes
            size = con.execute("SELECT parse_formatted_bytes($v)", {"v": memory_limit}).fetchall()
    except duckdb.Error as e:
        raise InputError(
            f"duckdb: memory_limit {memory_limit!r} is not accepted: {e}; a size such as "
            "'4GB' or '512MiB', a percentage of the machine's memory such as '50%', or 'none'"
        ) from e
    return f"{int(size[0][0] * BUFFER_SHARE)} bytes"


# The threads of a database made without ``threads=``: None is DuckDB's own default, one per
# core. A process that shares the machine with others of its kind (a test worker of
# pytest-xdist: tests/conftest.py) sets its share.
DEFAULT_THREADS: int | None = None


def _database(
    threads: int | None, memory_limit: str | None, temp_directory: str | None
) -> duckdb.DuckDBPyConnection:
    """The in-memory database of these settings (made on first use, kept for the process:
    the settings are the database's, so each set of them has its own)."""
    if threads is None:
        threads = DEFAULT_THREADS
    key = (threads, memory_limit, temp_directory)
    with _LOCK:
        db = _DATABASES.get(key)
        if db is not None:
            return db
        db = duckdb.connect(":memory:")
        # Extensions cannot be downloaded in locked-down environments; never try.
        db.execute("SET autoinstall_known_extensions = false")
        db.execute("SET autoload_known_extensions = false")
        if threads is not None:
            db.execute(f"SET threads = {int(threads)}")
        limit = buffer_limit(memory_limit) if memory_limit is not None else None
        for setting, value in (("memory_limit", limit), ("temp_directory", temp_directory)):
            if value is None:
                continue
            try:
                db.execute(f"SET {setting} = $v", {"v": value})
            except duckdb.Error as e:
                db.close()
                raise InputError(f"duckdb: {setting} {value!r} is not accepted: {e}") from e
        _DATABASES[key] = db
        return db


class DuckDBEngine(Engine):
    """An in-memory DuckDB connection of discosql's own (the default engine)."""

    dialect = "duckdb"
    name = "DuckDB"
    # DuckDB pipelines the CTE (10M rows, 10 targets: 11.5 s -> 9.7 s); SQLite and Spark
    # evaluate a CTE at each use, which made SQLite many times slower.
    inline_cells = True
    # stacked targets up to 2^21 records x targets (SD2011, 6 data sets of 5,000 records: 69
    # targets together; 1M + 1M rows: one at a time). Above it a stacked stage 045 costs more
    # than the statements it saves: its hash table outgrows the caches (1M + 1M rows, 10
    # targets stacked: 045 0.81 s instead of 0.56 s, the summary 2.58 s instead of 2.31 s)
    stack_budget = 2**21

    def __init__(
        self,
        threads: int | None = None,
        memory_limit: str | None = None,
        temp_directory: str | None = None,
        connection: duckdb.DuckDBPyConnection | None = None,
    ) -> None:
        super().__init__()
        # a connection of its own (temporary tables and registered data are the connection's)
        # to an in-memory database shared by the calls with the same settings: opening and
        # closing a database takes 20 ms, a tenth of a small disclosure(). Given the user's
        # connection: a cursor of it, a connection of discosql's own to the same database
        # (its tables and attached catalogs), whose temporary tables and registrations go
        # when it closes; the user's connection is never closed nor reconfigured.
        self.given = connection is not None
        database = connection if connection is not None else None
        if database is None:
            database = _database(threads, memory_limit, temp_directory)
        self.con = database.cursor()
        self._tag = next(_TAGS)  # attached databases are the database's: named per engine
        self._attached: list[str] = []

    def close(self) -> None:
        # the cursor is a connection of discosql's own: its temporary tables go with it
        try:
            for alias in self._attached:  # releases the files' locks
                self.con.execute(f"DETACH DATABASE IF EXISTS {ident(alias)}")
        finally:
            self.con.close()

    def about(self) -> dict[str, str | None]:
        database = self.con.execute("SELECT current_database()").fetchall()  # read to the end
        return {
            "engine": self.name,
            "version": duckdb.__version__,
            "driver": f"duckdb (Python) {duckdb.__version__}",
            "database": str(database[0][0]) if database else None,
        }

    def classify(self, obj: Any, label: str) -> Source:
        if self.given and isinstance(obj, str) and _table_name(obj):
            # in the user's database a name is its table or view ("db.schema.table")
            return Source("db_table", obj, label, named_table=True)
        return classify(obj, label)

    def _is_engine_error(self, e: Exception) -> bool:
        return isinstance(e, duckdb.Error)

    def _is_interrupt(self, e: Exception) -> bool:
        # DuckDB stops a query on SIGINT; its client reports it as InterruptException, or
        # while streaming a result as a RuntimeError with this message (DuckDB 2.0.1)
        interrupted = isinstance(e, RuntimeError) and str(e) == "Query interrupted"
        return isinstance(e, duckdb.InterruptException) or interrupted

    def _execute(self, sql: str, params: dict[str, Any]) -> None:
        self.con.execute(sql, params)

    def _create_table(self, name: str, sql: str, params: dict[str, Any], stage: str) -> None:
        """One statement, not a DROP and a CREATE (a small disclosure() makes seven tables)."""
        self.execute(f"CREATE OR REPLACE TEMP TABLE {ident(name)} AS\n{sql}", params, stage)

    def _query(self, sql: str, params: dict[str, Any]) -> pa.Table:
        return self.con.sql(sql, params=params).to_arrow_table()

    def _query_small(self, sql: str, params: dict[str, Any]) -> pa.Table:
        """The result stored in a temporary table of the connection's, then read whole.

        ``con.sql()`` binds a query to describe it and binds it again to run it; a statement
        run by ``execute()`` binds once (SD2011's per-synthesis measures: 15.1 ms -> 12.8 ms).
        Its Arrow output warns that the rows are copied (a UserWarning, which would reach a
        caller's warning filters), a table's does not. The rows are written once more, which
        only a small result affords. The table stays until the next small query replaces it:
        it goes with the connection. The rows keep the query's order: the database keeps
        insertion order (DuckDB's default, which discosql never changes).
        """
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE {ident(SMALL_RESULT)} AS\n{sql}", params)
        return self.con.table(ident(SMALL_RESULT)).to_arrow_table()

    def copy_to(self, sql: str, params: dict[str, Any], path: str, stage: str) -> int:
        """DuckDB's COPY: streamed from the query to the file, within memory_limit."""
        fmt = "csv, header true" if path.lower().endswith(".csv") else "parquet"
        target = exp.Literal.string(path).sql("duckdb")  # quoted and escaped by sqlglot
        query, used = self.translate(sql, params)
        copy = f"COPY ({query}) TO {target} (FORMAT {fmt})"
        rows = self._guarded(stage, lambda: self.con.execute(copy, used).fetchall())
        return int(rows[0][0]) if rows else 0

    def output_table(self, name: str, database: str | None) -> str:
        """A table of the DuckDB database file ``database``, attached for writing (created if
        missing): the engine's own database is in memory and ends with the call. Run in the
        user's connection, a table of its database (``name`` may be "schema.table")."""
        if database is None and self.given:
            return ".".join(ident(p) for p in name.split("."))
        if database is None:
            raise InputError(NO_DATABASE)
        alias = f"__disco_out_{self._tag}"
        sql = "SELECT path FROM duckdb_databases() WHERE database_name = $a"
        attached = self.query(sql, {"a": alias}, "out").column("path").to_pylist()
        if not attached:
            self.execute(f"ATTACH $p AS {ident(alias)}", {"p": database}, "out")
            self._attached.append(alias)
        elif attached[0] != database:
            raise EngineError(f"{alias} is attached to {attached[0]!r}, not {database!r}")
        return f"{ident(alias)}.{ident(name)}"

    def has_table(self, name: str, database: str | None) -> bool:
        """Read without attaching (which would create the file)."""
        if database is None and self.given:  # a table or view of the user's database
            *schema, table = name.split(".")
            sql = (
                "SELECT count(*) AS n FROM (SELECT schema_name, table_name AS t FROM "
                "duckdb_tables() UNION ALL SELECT schema_name, view_name FROM duckdb_views()) "
                "WHERE t = $t AND schema_name = coalesce($s, current_schema())"
            )
            found = self.query(sql, {"t": table, "s": schema[-1] if schema else None}, "out")
            return bool(found.column(0)[0].as_py())
        if database is None:
            raise InputError(NO_DATABASE)
        if not Path(database).exists():
            return False
        try:
            with duckdb.connect(database, read_only=True) as con:
                rows = con.execute(
                    "SELECT 1 FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = $t "
                    "UNION ALL SELECT 1 FROM duckdb_views() WHERE schema_name = 'main' "
                    "AND view_name = $t",
                    {"t": name},
                ).fetchall()
        except duckdb.Error as e:
            raise InputError(f"out: {database!r} is not a DuckDB database file ({e})") from e
        return bool(rows)

    def stream(
        self, sql: str, params: dict[str, Any], stage: str, batch_size: int
    ) -> pa.RecordBatchReader:
        sql, used = self.translate(sql, params)
        reader: pa.RecordBatchReader = self._guarded(
            stage, lambda: self.con.sql(sql, params=used).to_arrow_reader(batch_size)
        )
        return reader

    def positioned(self, reg: Registered) -> str:
        """Parquet: DuckDB's file_index and file_row_number (files in the order DuckDB reads
        a glob: sorted by name); tables DuckDB holds (CSV, readers, relations, database
        tables): rowid, their insertion order; Arrow and pandas: an index column added to a
        second registration (the input is not changed)."""
        kind = reg.source.kind
        if kind == "parquet":
            # Each file's first position is counted here, once, and enters the relation as a
            # list of integers: joined to the per-file counts in SQL, DuckDB 2.0.1 built the
            # join's hash table on the records (sdc at 100M rows ran out of a 4 GB limit).
            counts = self.query(
                f"SELECT file_index, count(*) AS n FROM {reg.sql} GROUP BY file_index",
                reg.params,
                "positions",
            ).to_pylist()
            rows = {int(r["file_index"]): int(r["n"]) for r in counts}
            starts = list(
                itertools.accumulate(
                    (rows.get(i, 0) for i in range(max(rows, default=0))), initial=0
                )
            )
            first = (
                "0"
                if len(starts) == 1
                else f"cast([{', '.join(lit(s) for s in starts)}] as bigint[])"
                "[cast(__disco_f.file_index as bigint) + 1]"
            )
            return (
                f"(SELECT __disco_f.*, cast(__disco_f.file_row_number as bigint) + cast({first} "
                f"as bigint) + 1 AS __disco_pos FROM {reg.sql} AS __disco_f)"
            )
        if kind in ("arrow", "pandas"):
            obj = reg.source.obj
            table = pa.Table.from_pandas(obj, preserve_index=False) if kind == "pandas" else obj
            if isinstance(table, pa.RecordBatch):
                table = pa.Table.from_batches([table])
            if not isinstance(table, pa.Table):  # a pyarrow Dataset: its own order
                table = table.to_table()
            name = f"{reg.sql.strip(chr(34))}_positioned"
            # 1..n by a cumulative sum in Arrow: a Python range made element by element took
            # 0.11-0.44 s at 1M rows (the whole of ds.risk is 0.65 s there)
            ones = pa.repeat(pa.scalar(1, pa.int64()), table.num_rows)
            positions = pc.cumulative_sum(ones)
            self.con.register(name, table.append_column("__disco_pos", positions))
            return ident(name)
        return f"(SELECT *, rowid + 1 AS __disco_pos FROM {reg.sql})"

    def _columns(self, reg: Registered) -> dict[str, str]:
        try:
            desc = self.con.execute(f"DESCRIBE SELECT * FROM {reg.sql}", reg.params).fetchall()
        except duckdb.Error as e:  # a corrupt file, say: register() names the data set
            raise EngineError(str(e)) from e
        names = [str(row[0]) for row in desc]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise EngineError(f"columns {twice!r} appear more than once; names must be unique")
        self._check_file_header(reg, names)
        return {row[0]: str(row[1]) for row in desc}

    def _check_file_header(self, reg: Registered, names: list[str]) -> None:
        """A file may repeat a column name; DuckDB reads the copies as name_1, name_2, ... and
        a key would silently mean the first. Read the file's own names when DuckDB's look like
        such a renaming (x and x_<n> both present)."""
        src = reg.source
        renamed = [
            n for n in names if (m := re.fullmatch(r"(.*)_\d+", n, re.DOTALL)) and m[1] in names
        ]
        if src.kind not in ("csv", "parquet") or not renamed:
            return
        first = (sorted(glob.glob(src.obj, recursive=True)) or [src.obj])[0]
        if src.kind == "parquet":
            own = pq.read_schema(first).names
        else:
            # fetchall(): a result left unfinished would block the connection
            delim = self.con.execute("SELECT Delimiter FROM sniff_csv($p)", {"p": first})
            rows = self.con.execute(
                "SELECT * FROM read_csv($p, header = false, all_varchar = true, delim = $d) "
                "LIMIT 1",
                {"p": first, "d": delim.fetchall()[0][0]},
            ).fetchall()
            own = [str(v) for v in rows[0]] if rows else []
        twice = sorted({n for n in own if own.count(n) > 1})
        if twice:
            raise InputError(
                f"{src.label}: columns {twice!r} appear more than once in {src.obj!r}; column "
                f"names must be unique (DuckDB reads the copies as {renamed!r})"
            )

    def _register(self, source: Source, name: str, param: str) -> Registered:
        try:
            return self._register_duckdb(source, name, param)
        except duckdb.Error as e:
            raise EngineError(str(e)) from e

    def _register_duckdb(self, source: Source, name: str, param: str) -> Registered:
        kind, obj = source.kind, source.obj
        # Parquet and database tables are scanned in place by every stage: DuckDB reads only the
        # columns a stage needs, faster than a copy (measured); CSV is parsed once, here.
        if kind == "parquet":
            return Registered(source, file_reader(kind, param), {param: obj})
        if kind == "csv":
            # Parsed once into a temporary table (every stage reads it again).
            sql = file_reader(kind, param)
            self.con.execute(
                f"CREATE TEMP TABLE {ident(name)} AS SELECT * FROM {sql}", {param: obj}
            )
            return Registered(source, ident(name))
        if kind == "duckdb_table":
            # a database file this engine already holds (sdc's output tables, measured after
            # writing) is read where it is attached: a second ATTACH of one file is refused
            sql = "SELECT database_name FROM duckdb_databases() WHERE path = $p"
            held = self.con.execute(sql, {"p": obj.database}).fetchall()
            db = held[0][0] if held else f"__disco_db_{self._tag}_{param}"
            if not held:
                attach = f"ATTACH ${param} AS {ident(db)} (READ_ONLY)"
                self.con.execute(attach, {param: obj.database})
                self._attached.append(db)
            parts = [db] + ([obj.schema] if obj.schema else []) + [obj.table]
            return Registered(source, ".".join(ident(p) for p in parts))
        if kind == "db_table":
            return Registered(source, ".".join(ident(p) for p in obj.split(".")))
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


NO_DATABASE = (
    "out_table: DuckDB runs in memory here; give out='FILE.duckdb' for a table in a DuckDB "
    "database file"
)
# CSV columns are read as numbers or text only: the sniffer would otherwise turn YES/NO into
# booleans and dates into DATE, and change the level names.
CSV_TYPES = ("BIGINT", "DOUBLE", "VARCHAR")


def file_reader(kind: str, param: str) -> str:
    """The DuckDB table function that reads the Parquet or CSV files bound to ``$param``: the
    one spelling for the engine, the exported scripts and the tests."""
    if kind == "parquet":
        return f"read_parquet(${param})"
    if kind == "csv":
        types = ", ".join(f"'{t}'" for t in CSV_TYPES)
        return f"read_csv(${param}, auto_type_candidates = [{types}])"
    raise EngineError(f"no DuckDB file reader for data of kind {kind!r}")


@dataclass(frozen=True)
class DuckDBTable:
    """A table (or view) in a DuckDB database file, attached read-only."""

    database: str
    table: str
    schema: str | None = None


def duckdb_table(
    database: str | os.PathLike[str], table: str, schema: str | None = None
) -> DuckDBTable:
    """A table in a DuckDB database file as input: ``duckdb_table("census.duckdb", "persons")``."""
    return DuckDBTable(str(database), table, schema)


def _is_empty(path: Path) -> bool:
    """0 bytes, or only white space (no header line)."""
    with path.open("rb") as f:
        return not f.read(4096).strip()


def _check_unique_names(obj: Any, label: str) -> None:
    """In-memory data (Arrow, pandas) may repeat a column name; DuckDB would rename the copies
    and a key would silently mean the first one. (polars refuses repeated names itself.)"""
    if (type(obj).__module__ or "").startswith("polars"):
        return  # and reading a LazyFrame's schema would resolve its plan
    schema = getattr(obj, "schema", None)
    names = getattr(schema, "names", None)
    if (
        names is None
        and hasattr(obj, "columns")
        and (type(obj).__module__ or "").startswith("pandas")
    ):
        names = [str(c) for c in obj.columns]
    if isinstance(names, list):
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise InputError(
                f"{label}: columns {twice!r} appear more than once; column names must be unique"
            )


def _table_name(text: str) -> bool:
    """Whether ``text`` reads as a table name rather than a file: no path separator, no glob,
    no file suffix, and no such file."""
    lower = text.lower()
    return not (
        any(ch in text for ch in "/\\*?[")
        or lower.endswith(PARQUET_SUFFIXES + CSV_SUFFIXES)
        or Path(text).exists()
    )


def classify(obj: Any, label: str) -> Source:
    """Classify one data set argument, or raise an InputError naming it."""
    if isinstance(obj, DuckDBTable):
        if not Path(obj.database).is_file():
            raise InputError(f"{label}: DuckDB database file {obj.database!r} does not exist")
        return Source("duckdb_table", obj, label)
    if isinstance(obj, str | os.PathLike):
        path = os.fspath(obj)
        lower = path.lower()
        has_glob = any(ch in path for ch in "*?[")
        if not has_glob and not Path(path).exists():
            raise InputError(f"{label}: file {path!r} does not exist")
        if not has_glob and Path(path).is_file() and _is_empty(Path(path)):
            raise InputError(f"{label}: empty file {path!r} (no header, no rows)")
        if lower.endswith(PARQUET_SUFFIXES) or (not has_glob and Path(path).is_dir()):
            if not has_glob and Path(path).is_dir():
                path = str(Path(path) / "**" / "*.parquet")
                if not glob.glob(path, recursive=True):
                    raise InputError(
                        f"{label}: the directory {os.fspath(obj)!r} has no Parquet file"
                    )
            elif has_glob and not glob.glob(path, recursive=True):
                raise InputError(f"{label}: no file matches {path!r}")
            return Source("parquet", path, label)
        if lower.endswith(CSV_SUFFIXES):
            if has_glob and not glob.glob(path, recursive=True):
                raise InputError(f"{label}: no file matches {path!r}")
            return Source("csv", path, label)
        raise InputError(
            f"{label}: cannot tell the format of {path!r}; allowed: a path or glob ending in "
            f"{', '.join(PARQUET_SUFFIXES + CSV_SUFFIXES)}, a directory of Parquet files, a "
            "pyarrow "
            "Table, a pandas DataFrame, a DuckDB relation or ds.duckdb_table(file, table)"
        )
    _check_unique_names(obj, label)
    module = type(obj).__module__ or ""
    name = type(obj).__name__
    if module.startswith("pyarrow"):
        if name == "RecordBatchReader":
            return Source("reader", obj, label)
        if name in ("Table", "RecordBatch") or "Dataset" in name:
            return Source("arrow", obj, label)
    if module.startswith("pandas") and name == "DataFrame":
        return Source("pandas", obj, label)
    if (module.startswith("duckdb") or module.startswith("_duckdb")) and "Relation" in name:
        return Source("relation", obj, label)
    if module.startswith("polars") and name in ("DataFrame", "LazyFrame"):
        # polars' frames are Arrow inside: to_arrow() shares the buffers, DuckDB scans them
        frame = obj.collect() if name == "LazyFrame" else obj
        return Source("arrow", frame.to_arrow(), label)
    if hasattr(obj, "__arrow_c_stream__"):
        # any other Arrow producer (the Arrow PyCapsule interface): one stream, copied once
        reader = pa.RecordBatchReader.from_stream(obj)
        _check_unique_names(reader, label)
        return Source("reader", reader, label)
    raise InputError(
        f"{label}: unsupported data of type {module}.{name}; allowed: a path or glob to "
        "Parquet/CSV files, a pyarrow Table or RecordBatchReader, a pandas or polars "
        "DataFrame, a polars LazyFrame, any object with __arrow_c_stream__, a DuckDB relation, "
        "or ds.duckdb_table(file, table)"
    )
