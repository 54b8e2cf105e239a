"""Where ``sdc()`` puts the protected syntheses: returned as Arrow tables, streamed by the
engine to Parquet/CSV files, or created as tables (in a DuckDB database file, or in the
PostgreSQL/Spark database the engine runs on). Everything is checked before any data is read;
nothing existing is replaced unless asked, and the inputs are never changed."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa

from ..engines.base import Engine
from ..engines.duckdb import duckdb_table
from ..engines.privileges import check_privileges
from ..errors import InputError
from .files import atomic_paths

DATABASE_SUFFIXES = (".duckdb", ".ddb")


@dataclass(frozen=True)
class Destination:
    """Files (one per synthesis), or tables (one per synthesis) in ``database`` (a DuckDB
    database file) or in the engine's own database; neither: Arrow tables in memory."""

    files: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    database: str | None = None
    preview: bool = False  # a dry run: the records kept are counted, nothing is written
    discard: bool = False  # the per-record table is not wanted (a report reads the measures)

    @property
    def written(self) -> tuple[str, ...]:
        return self.files or self.tables

    def read_back(self) -> list[Any]:
        """The written syntheses as inputs of another call on the same kind of engine."""
        if self.database is not None:
            return [duckdb_table(self.database, t) for t in self.tables]
        return list(self.written)

    @contextlib.contextmanager
    def staged(self) -> Iterator[Destination]:
        """Where to write while writing: the files under temporary names, renamed into place
        together when the block ends normally, removed when it does not (core/files.py);
        tables are made complete by the engine (Engine.write_table)."""
        if not self.files:
            yield self
            return
        with atomic_paths(self.files) as temps:
            yield replace(self, files=tuple(str(t) for t in temps))

    def write(self, engine: Engine, j: int, sql: str, params: dict[str, Any]) -> int | pa.Table:
        """Synthesis ``j`` (1-based) written where it goes (the rows written), or returned."""
        if self.preview:
            counted = engine.query(
                f"SELECT count(*) AS n FROM ({sql}) AS kept", params, "sdc/kept", small=True
            )
            return int(counted.column(0)[0].as_py())
        if self.files:
            return engine.copy_to(sql, params, self.files[j - 1], "sdc/kept")
        if self.tables:
            return engine.write_table(self.tables[j - 1], self.database, sql, params, "sdc/kept")
        return engine.query(sql, params, "sdc/kept")

    def check_tables(self, engine: Engine, overwrite: bool) -> None:
        """The output tables must not exist unless ``overwrite`` (before any data is read)."""
        where = f" in {self.database!r}" if self.database else ""
        if self.tables and self.database is None:  # the role may create them there
            check_privileges(engine, [engine.output_schema(t) for t in self.tables])
        existing = [t for t in self.tables if engine.has_table(t, self.database)]
        if existing and not overwrite:
            message = "out_table: {!r} exists{}; pass overwrite=True to replace it"
            raise InputError([message.format(t, where) for t in existing])


def destination(
    out: Any, out_table: Any, m: int, overwrite: bool, problems: list[str]
) -> Destination:
    """Where the m protected syntheses go, from ``out`` (a directory, FILE.parquet/.csv with
    ``{synthesis}`` when m > 1, or FILE.duckdb) and ``out_table`` (a table name, with
    ``{synthesis}`` when m > 1); files are checked here, tables by ``check_tables``."""
    if out_table is not None and (not isinstance(out_table, str) or not out_table.strip()):
        problems.append(f"out_table: expected a table name, got {out_table!r}")
        return Destination()
    if out is None:
        if out_table is None:
            return Destination()
        return Destination(tables=_names(out_table, m, problems))
    if not isinstance(out, str | os.PathLike):
        problems.append(f"out: expected a path, got {out!r}")
        return Destination()
    text = os.fspath(out)
    if text.lower().endswith(DATABASE_SUFFIXES):
        if not os.path.isdir(os.path.dirname(os.path.abspath(text))):
            problems.append(f"out: the directory of {text!r} does not exist")
        pattern = out_table or ("synthetic_{synthesis}" if m > 1 else "synthetic")
        return Destination(tables=_names(pattern, m, problems), database=text)
    if out_table is not None:
        problems.append(
            "out_table: tables go to a DuckDB database file (out='FILE.duckdb') or to the "
            f"database of a PostgreSQL/Spark engine, not next to the files of out={text!r}"
        )
        return Destination()
    return Destination(files=_files(text, m, overwrite, problems))


def _names(pattern: str, m: int, problems: list[str]) -> tuple[str, ...]:
    if m > 1 and "{synthesis}" not in pattern:
        problems.append(
            f"out_table: {pattern!r} names one table for {m} syntheses; put {{synthesis}} in it"
        )
        return ()
    return tuple(pattern.replace("{synthesis}", str(j)) for j in range(1, m + 1))


def _files(text: str, m: int, overwrite: bool, problems: list[str]) -> tuple[str, ...]:
    if os.path.isdir(text):
        paths = [os.path.join(text, f"synthetic_{j}.parquet") for j in range(1, m + 1)]
    elif not text.lower().endswith((".parquet", ".csv")):
        problems.append(f"out: {text!r} must be a directory or end in .parquet, .csv or .duckdb")
        return ()
    elif m > 1 and "{synthesis}" not in text:
        problems.append(f"out: {text!r} names one file for {m} syntheses; put {{synthesis}} in it")
        return ()
    else:
        paths = [text.replace("{synthesis}", str(j)) for j in range(1, m + 1)]
    for p in paths:
        parent = os.path.dirname(os.path.abspath(p))
        if not os.path.isdir(parent):
            problems.append(f"out: the directory {parent!r} does not exist")
            break
        if os.path.exists(p) and not overwrite:
            problems.append(f"out: {p!r} exists; pass overwrite=True to replace it")
    return tuple(paths)


def write_stream(reader: pa.RecordBatchReader, path: str) -> int:
    """Write a stream of record batches to ``path`` (Parquet, or CSV by its ending) as they
    come; returns the rows written. For results whose column names differ only in case (fk
    and Fk), which DuckDB's COPY would rename."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    writer: Any
    if path.lower().endswith(".csv"):
        writer = pcsv.CSVWriter(path, reader.schema)
    else:
        # dictionary encoding only for text: on per-record numbers (positions, risks) it
        # doubles the time to write 10M rows (1.7 s against 0.76 s) for a larger file
        text = [f.name for f in reader.schema if pa.types.is_string(f.type)]
        writer = pq.ParquetWriter(path, reader.schema, use_dictionary=text or False)
    rows = 0
    with writer:
        for batch in reader:
            writer.write_batch(batch)
            rows += batch.num_rows
    return rows
