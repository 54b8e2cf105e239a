"""Exported scripts on changed data: the API's numbers for the new data, or a stop naming the
column, never other numbers (stage 015, the export guard).

A script is exported from SD2011 and one synthesis, then the data under the same file or
table names change and the script runs again: in the duckdb shell, on PostgreSQL and in Spark.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import sqlglot

import discosql as ds
from discosql.core.results import computed_tables

from .. import engine_data
from ..helpers.compare import assert_value
from ..helpers.data import changed, sd2011_pair
from ..helpers.engines import Started, on_script_engines
from ..helpers.shell import duckdb_cli, run_datafusion

KEYS = ["sex", "age", "region", "placesize"]
NAMES = ("orig", "syn")


# (id, export options, the change, what the stop message names; None: the script still holds)
SCENARIOS = [
    (
        "new_key_levels",
        {"target": "depress"},
        "case when n % 3 = 0 then age + 100 else age end as age",
        "key 'age' has more than the 79 levels",
    ),
    (
        "grouping_breaks",
        {"target": "income", "ngroups_target": 5},
        "case when n % 3 = 0 then income * 2 else income end as income",
        "grouping breaks of target 'income'",
    ),
    (
        "named_level",
        {"target": "marital", "not_targetlev": "WIDOWED"},
        "case when marital = 'WIDOWED' then 'DIVORCED' else marital end as marital",
        "not_targetlev: 'WIDOWED' is no longer a level of 'marital'",
    ),
    (
        "excluded_key_level",
        {
            "target": "workab",
            "exclude_keys": "sex",
            "exclude_keylevs": "MALE",
            "exclude_targetlevs": "NO",
        },
        "case when sex = 'MALE' then NULL else sex end as sex",
        "exclude_keylevs[0]: 'MALE' is no longer a level of 'sex'",
    ),
    (
        "still_valid",
        {"target": "depress"},  # fewer rows, no new levels: the API's numbers
        "case when n % 4 = 0 then NULL else age end as age",
        None,
    ),
]


def _rows(table: Any) -> list[dict[str, Any]]:
    return table if isinstance(table, list) else table.to_pylist()


def _assert_api_numbers(results: list[Any], tables: dict[str, pa.Table], kwargs: Any) -> None:
    ref = ds.disclosure(tables["orig"], tables["syn"], keys=KEYS, **kwargs)
    assert len(results) == len(computed_tables(ref.spec))
    for spec, got in zip(computed_tables(ref.spec), results, strict=True):
        want = getattr(ref, spec.name).to_pylist()
        rows = _rows(got)
        assert len(rows) == len(want), spec.name
        for g, w in zip(rows, want, strict=True):
            for col in w:
                assert_value(g[col], w[col], f"{spec.name}.{col}")


# Each runner takes the tables of the data at export time and after the change, and the
# export options; it exports, replaces the data, runs the script and returns (results, error).
Runner = Callable[[dict[str, pa.Table], dict[str, pa.Table], dict[str, Any]], tuple[list[Any], str]]


def _run_in_shell(tmp: Path) -> Runner:
    def run(before: dict[str, pa.Table], after: dict[str, pa.Table], kw: dict[str, Any]) -> Any:
        paths = {n: str(tmp / f"{n}.parquet") for n in NAMES}
        for n in NAMES:
            pq.write_table(before[n], paths[n])
        script = ds.to_sql(paths["orig"], paths["syn"], keys=KEYS, **kw)
        for n in NAMES:
            pq.write_table(after[n], paths[n])
        out = subprocess.run(
            [duckdb_cli(), "-json"],
            input=script,
            capture_output=True,
            text=True,
            cwd=tmp,
            check=False,
        )
        results, pos, decoder = [], 0, json.JSONDecoder()
        text = out.stdout
        while text[pos:].strip():
            while text[pos].isspace():
                pos += 1
            table, pos = decoder.raw_decode(text, pos)
            results.append(table)
        return results, out.stderr

    return run


def _statements(script: str, dialect: str) -> list[Any]:
    return [s for s in sqlglot.parse(script, read=dialect) if s is not None]


def _run_in_datafusion(tmp_path: Path) -> Runner:
    def run(before: dict[str, pa.Table], after: dict[str, pa.Table], kw: dict[str, Any]) -> Any:
        names = {"original": "guard_orig", "synthetic": "guard_syn"}
        script = ds.to_sql(
            before["orig"], before["syn"], keys=KEYS, dialect="datafusion", tables=names, **kw
        )
        paths = {f"guard_{n}": str(tmp_path / f"{n}.parquet") for n in NAMES}
        for n in NAMES:
            pq.write_table(after[n], paths[f"guard_{n}"])
        try:
            return run_datafusion(script, paths), ""
        except Exception as e:  # DataFusion stops at the first error: the guard's
            return [], str(e)

    return run


def _run_in_postgres(pg_dsn: str) -> Runner:
    import psycopg

    def run(before: dict[str, pa.Table], after: dict[str, pa.Table], kw: dict[str, Any]) -> Any:
        engine_data.load_postgres(pg_dsn, {f"guard_{n}": before[n] for n in NAMES})
        script = ds.to_sql(
            "guard_orig",
            "guard_syn",
            keys=KEYS,
            dialect="postgres",
            engine=ds.postgres(pg_dsn),
            **kw,
        )
        engine_data.load_postgres(pg_dsn, {f"guard_{n}": after[n] for n in NAMES})
        results = []
        with psycopg.connect(pg_dsn, autocommit=True) as con:
            for statement in _statements(script, "postgres"):
                try:
                    cur = con.execute(statement.sql("postgres"))
                except psycopg.Error as e:  # psycopg stops at the first error: the guard's
                    return results, str(e)
                if cur.description is not None and isinstance(statement, sqlglot.exp.Query):
                    names = [d.name for d in cur.description]
                    results.append(
                        [dict(zip(names, map(_plain, r), strict=True)) for r in cur.fetchall()]
                    )
        return results, ""

    return run


def _run_in_spark(spark: Any) -> Runner:
    def load(tables: dict[str, pa.Table]) -> None:
        for n in NAMES:
            spark.createDataFrame(tables[n].to_pandas()).write.mode("overwrite").saveAsTable(
                f"guard_{n}"
            )

    def run(before: dict[str, pa.Table], after: dict[str, pa.Table], kw: dict[str, Any]) -> Any:
        names = {"original": "guard_orig", "synthetic": "guard_syn"}
        script = ds.to_sql(
            before["orig"], before["syn"], keys=KEYS, dialect="spark", tables=names, **kw
        )
        load(after)
        results = []
        for statement in _statements(script, "spark"):
            try:
                df = spark.sql(statement.sql("spark"))
            except Exception as e:
                _drop_work_tables(spark)  # a stopped script leaves its work tables behind
                return results, str(e)
            if isinstance(statement, sqlglot.exp.Query):
                results.append(df.toArrow())
        return results, ""

    return run


def _drop_work_tables(spark: Any) -> None:
    """The __disco_ tables a stopped script left in the session's schema (Spark has no
    temporary tables: they would meet a later test's script)."""
    for row in spark.sql("SHOW TABLES").collect():
        if row.tableName.startswith("__disco_") and not row.isTemporary:
            spark.sql(f"DROP TABLE IF EXISTS `{row.tableName}`")


@on_script_engines()
def test_a_script_stops_or_gives_the_api_numbers(script_engine: Started, tmp_path: Path) -> None:
    runners = {
        "duckdb_shell": _run_in_shell,
        "datafusion": _run_in_datafusion,
        "postgres": _run_in_postgres,
        "spark": _run_in_spark,
    }
    server = tmp_path if script_engine.server is None else script_engine.server
    _check_scenarios(runners[script_engine.name](server))


def _plain(v: Any) -> Any:
    from decimal import Decimal

    return float(v) if isinstance(v, Decimal) else v


def _check_scenarios(run: Runner) -> None:
    before = sd2011_pair()
    for case, kwargs, change, stop in SCENARIOS:
        after = changed(before, change)
        results, error = run(before, after, kwargs)
        if stop is None:
            assert error == "" or "error" not in error.lower(), f"{case}: {error}"
            _assert_api_numbers(results, after, kwargs)
        else:
            assert results == [], f"{case}: numbers printed after a failed check"
            assert stop in error, f"{case}: {error}"
            assert "re-export the script" in error, case
