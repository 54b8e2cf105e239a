"""What a data set argument is, decided before the engine sees it.

A data set may be a path or glob to Parquet or CSV files, a ``pyarrow.Table`` /
``RecordBatchReader`` / dataset, a pandas DataFrame, a DuckDB relation, or a table in a DuckDB
database file (:func:`duckdb_table`). Inputs are only read, never modified.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import InputError

PARQUET_SUFFIXES = (".parquet", ".parq", ".pq")
CSV_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".csv.zst")


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


@dataclass(frozen=True)
class Source:
    """A classified input; ``kind``: parquet, csv, arrow, reader, pandas, relation, duckdb_table."""

    kind: str
    obj: Any
    label: str  # "original" or "synthetic 2": where it is, for messages


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
        if lower.endswith(PARQUET_SUFFIXES) or (not has_glob and Path(path).is_dir()):
            kind = "parquet"
            if not has_glob and Path(path).is_dir():
                path = str(Path(path) / "**" / "*.parquet")
            return Source(kind, path, label)
        if lower.endswith(CSV_SUFFIXES):
            return Source("csv", path, label)
        raise InputError(
            f"{label}: cannot tell the format of {path!r}; allowed: a path or glob ending in "
            f"{', '.join(PARQUET_SUFFIXES + CSV_SUFFIXES)}, a directory of Parquet files, a "
            "pyarrow "
            "Table, a pandas DataFrame, a DuckDB relation or ds.duckdb_table(file, table)"
        )
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
    raise InputError(
        f"{label}: unsupported data of type {module}.{name}; allowed: a path or glob to "
        "Parquet/CSV "
        "files, a pyarrow Table or RecordBatchReader, a pandas DataFrame, a DuckDB relation, or "
        "ds.duckdb_table(file, table)"
    )
