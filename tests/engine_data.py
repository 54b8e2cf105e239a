"""The oracle data sets loaded into the engines under test (PostgreSQL tables, Parquet for Spark
and the duckdb shell), with DuckDB's reading of the CSV files as the common starting point."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from discosql.engines.duckdb import file_reader

from . import oracle

PG_TYPES = {
    "int64": "bigint",
    "int32": "integer",
    "double": "double precision",
    "string": "text",
    "bool": "boolean",
    "timestamp[us]": "timestamp",
}


def quoted(name: str) -> str:
    """A double-quoted SQL identifier (any name: quotes are doubled)."""
    return '"' + name.replace('"', '""') + '"'


def oracle_tables() -> dict[str, pa.Table]:
    """sd2011 and every synthesis, as discosql's DuckDB engine reads the CSV files."""
    synthetic = {f for s in oracle.cases()["synthetic"].values() for f in s["files"]}
    files = ["sd2011.csv", *sorted(synthetic)]
    out = {}
    for f in files:
        read = f"SELECT * FROM {file_reader('csv', 'p')}"  # as discosql's DuckDB engine reads CSV
        out[Path(f).stem] = duckdb.sql(read, params={"p": str(oracle.ORACLE / f)}).to_arrow_table()
    return out


def load_postgres(dsn: str, tables: dict[str, pa.Table]) -> None:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as con:
        for name, table in tables.items():
            cols = ", ".join(f"{quoted(f.name)} {PG_TYPES[str(f.type)]}" for f in table.schema)
            qname = ".".join(quoted(part) for part in name.split("."))
            con.execute(f"DROP TABLE IF EXISTS {qname}")
            con.execute(f"CREATE TABLE {qname} ({cols})")
            with con.cursor().copy(f"COPY {qname} FROM STDIN") as copy:
                for row in table.to_pylist():
                    copy.write_row(list(row.values()))


# SQLite has no booleans (INTEGER 0/1) and no dates (text, which discosql reads as text)
SQLITE_TYPES = {
    "int64": "INTEGER",
    "int32": "INTEGER",
    "double": "REAL",
    "string": "TEXT",
    "bool": "INTEGER",
}


def write_sqlite(path: Path, tables: dict[str, pa.Table]) -> str:
    import sqlite3

    with sqlite3.connect(path) as con:
        for name, table in tables.items():
            cols = ", ".join(f"{quoted(f.name)} {SQLITE_TYPES[str(f.type)]}" for f in table.schema)
            con.execute(f"CREATE TABLE {quoted(name)} ({cols})")
            marks = ", ".join("?" for _ in table.schema)
            rows = [tuple(r.values()) for r in table.to_pylist()]
            con.executemany(f"INSERT INTO {quoted(name)} VALUES ({marks})", rows)
    return str(path)


def write_parquet(directory: Path, tables: dict[str, pa.Table]) -> dict[str, str]:
    paths = {}
    for name, table in tables.items():
        path = directory / f"{name}.parquet"
        pq.write_table(table, path)
        paths[name] = str(path)
    return paths


def run_postgres_script(dsn: str, script: str) -> list[list[dict[str, Any]]]:
    """Run an exported PostgreSQL script statement by statement; each query's rows."""
    import psycopg
    import sqlglot

    results = []
    with psycopg.connect(dsn, autocommit=True) as con:
        for statement in sqlglot.parse(script, read="postgres"):
            if statement is None:
                continue
            cur = con.execute(statement.sql("postgres"))
            if isinstance(statement, sqlglot.exp.Query) and cur.description is not None:
                cols = [d.name for d in cur.description]
                results.append([dict(zip(cols, r, strict=True)) for r in cur.fetchall()])
    return results


def run_spark_script(spark: Any, script: str) -> list[list[dict[str, Any]]]:
    """Run an exported Spark SQL script statement by statement; each query's rows."""
    import sqlglot

    results = []
    for statement in sqlglot.parse(script, read="spark"):
        if statement is None:
            continue
        df = spark.sql(statement.sql("spark"))
        if isinstance(statement, sqlglot.exp.Query):
            results.append(df.toArrow().to_pylist())
    return results


def write_fakesnow(con: Any, database: str, tables: dict[str, pa.Table]) -> None:
    """Tables in fakesnow's schema ``database``.survey, each named as Snowflake stores an
    unquoted name (``SD2011``), its columns keeping their quoted lower-case names. Written into
    fakesnow's DuckDB database directly: its write_pandas upper-cases every column and goes
    through pandas, where an integer column with NULLs becomes floats."""
    duck = con._duck_conn
    for name, table in tables.items():
        duck.register("incoming", table)
        duck.execute(f'CREATE TABLE {database}.survey."{name.upper()}" AS SELECT * FROM incoming')
        duck.unregister("incoming")
