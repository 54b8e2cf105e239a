"""Exported scripts that run at the same time in one schema never read each other's tables.

Two analysts export the same measures on different data and run the scripts at once in one
schema: each gets its own numbers. The statements are interleaved one by one (the closest two
runs can be), on two PostgreSQL sessions and in one Spark session, whose work tables are
tables of the schema. The same script run twice at once stops the second run at its first
statement, and a run that stopped midway is cleared by the statements its header gives.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import sqlglot

import discosql as ds
from discosql.sql.dialects import facts

from .. import engine_data
from ..helpers.compare import assert_script_tables
from ..helpers.engines import Started, on_script_engines

KW: dict[str, Any] = {"keys": ["sex", "age", "region"], "target": "depress"}
# a run: the statements of one script, one at a time; each query's rows as a table
Run = Iterator[pa.Table | None]


def _tables() -> dict[str, pa.Table]:
    data = Path(ds.__file__).parent / "data"
    return {n: pq.read_table(data / f"{n}.parquet") for n in ("sd2011", "syn_1", "syn_2")}


def _exports(dialect: str, schema: str) -> tuple[list[str], list[ds.DisclosureResult]]:
    """Two exports of one call on different syntheses, and the API's numbers for each."""
    t = _tables()
    scripts, refs = [], []
    for syn in ("syn_1", "syn_2"):
        names = {"original": f"{schema}.sd2011", "synthetic": [f"{schema}.{syn}"]}
        scripts.append(ds.to_sql(t["sd2011"], t[syn], dialect=dialect, tables=names, **KW))
        refs.append(ds.disclosure(t["sd2011"], t[syn], **KW))
    return scripts, refs


def _statements(script: str, dialect: str) -> list[Any]:
    return [s for s in sqlglot.parse(script, read=dialect) if s is not None]


def _interleave(runs: list[Run]) -> list[list[pa.Table] | BaseException]:
    """Each run's query results, its statements run in turn with the others' (A1 B1 A2 B2
    ...); a run that raises stops there and its error is its result."""
    results: list[list[pa.Table] | BaseException] = [[] for _ in runs]
    live = set(range(len(runs)))
    while live:
        for i in sorted(live):
            try:
                table = next(runs[i])
            except StopIteration:
                live.discard(i)
                continue
            except Exception as e:
                results[i] = e
                live.discard(i)
                continue
            out = results[i]
            if table is not None and isinstance(out, list):
                out.append(table)
    return results


def _check(tables: list[pa.Table] | BaseException, ref: ds.DisclosureResult) -> None:
    assert isinstance(tables, list), f"the run stopped: {tables}"
    assert_script_tables(tables, ref)


def _plain(v: Any) -> Any:
    from decimal import Decimal

    return float(v) if isinstance(v, Decimal) else v


def _postgres_run(dsn: str, script: str) -> Run:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as con:  # one analyst's session
        for statement in _statements(script, "postgres"):
            cur = con.execute(statement.sql("postgres"))
            if cur.description is not None and isinstance(statement, sqlglot.exp.Query):
                names = [d.name for d in cur.description]
                rows = cur.fetchall()
                yield pa.table({n: [_plain(r[i]) for r in rows] for i, n in enumerate(names)})
            else:
                yield None


def _spark_run(spark: Any, script: str) -> Run:
    for statement in _statements(script, "spark"):
        df = spark.sql(statement.sql("spark"))
        yield df.toArrow() if isinstance(statement, sqlglot.exp.Query) else None


def _left_in_spark(spark: Any, schema: str) -> list[str]:
    rows = spark.sql(f"SHOW TABLES IN {schema}").collect()
    current = spark.sql("SHOW TABLES").collect()
    return [r.tableName for r in [*rows, *current] if r.tableName.startswith("__disco")]


def _load_postgres(dsn: str) -> None:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as con:
        con.execute("CREATE SCHEMA IF NOT EXISTS clash")
    engine_data.load_postgres(dsn, {f"clash.{n}": t for n, t in _tables().items()})


def _left_in_postgres(dsn: str) -> list[str]:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as con:
        left = con.execute("SELECT relname FROM pg_class WHERE relname LIKE '\\_\\_disco%'")
        return [r[0] for r in left.fetchall()]


def _load_spark(spark: Any) -> None:
    spark.sql("CREATE DATABASE IF NOT EXISTS clash")
    for name, table in _tables().items():
        spark.createDataFrame(table.to_pandas()).write.mode("overwrite").saveAsTable(
            f"clash.{name}"
        )


# per script engine: how the schema clash gets the data, a run of a script, what is left
LOAD = {"postgres": _load_postgres, "spark": _load_spark}
RUN = {"postgres": _postgres_run, "spark": _spark_run}
LEFT = {"postgres": _left_in_postgres, "spark": lambda spark: _left_in_spark(spark, "clash")}


@on_script_engines("postgres", "spark")
def test_two_exports_at_once(script_engine: Started) -> None:
    """Two exports: each its own numbers (two PostgreSQL sessions; one Spark session). Where
    work tables are tables of the schema (Spark), one script twice at once: the second stops
    at its lock, the first gives its numbers; and a run stopped midway: the next run stops at
    the lock until the header's statements clear its tables, then gives the numbers."""
    name, server = script_engine.name, script_engine.server
    LOAD[name](server)
    scripts, refs = _exports(script_engine.dialect, "clash")
    results = _interleave([RUN[name](server, s) for s in scripts])
    for got, ref in zip(results, refs, strict=True):
        _check(got, ref)
    assert LEFT[name](server) == []
    if facts(script_engine.dialect).work_tables == "table":
        _the_lock(server, scripts, refs)


def _the_lock(spark: Any, scripts: list[str], refs: list[ds.DisclosureResult]) -> None:
    first, second = _interleave([_spark_run(spark, scripts[0]) for _ in range(2)])
    _check(first, refs[0])
    assert isinstance(second, Exception)
    assert "already exists" in str(second).lower()
    assert "__disco_" in str(second)
    assert "_run" in str(second)
    assert _left_in_spark(spark, "clash") == []

    stopped = _spark_run(spark, scripts[1])
    for _ in range(len(_statements(scripts[1], "spark")) // 2):
        next(stopped)
    stopped.close()  # stopped midway: its tables stay
    assert _left_in_spark(spark, "clash")
    (again,) = _interleave([_spark_run(spark, scripts[1])])
    assert isinstance(again, Exception)
    assert "already exists" in str(again).lower()
    clear = re.findall(r"^--   (DROP TABLE IF EXISTS .*);$", scripts[1], re.M)
    assert clear
    for statement in clear:
        spark.sql(statement).collect()
    assert _left_in_spark(spark, "clash") == []
    (cleared,) = _interleave([_spark_run(spark, scripts[1])])
    _check(cleared, refs[1])
    assert _left_in_spark(spark, "clash") == []
