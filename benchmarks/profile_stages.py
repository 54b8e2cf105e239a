"""Where disclosure_summary spends its time: seconds per stage (template), summed over targets.

    python benchmarks/profile_stages.py --rows 10000000 --threads 2
    python benchmarks/profile_stages.py --rows 1000000 --engine postgres
    python benchmarks/profile_stages.py --rows 1000000 --engine spark
    python benchmarks/profile_stages.py --rows 10000000 --parts

Uses the seeded data of bench_scale.py (benchmarks/data/, generated on first use) and times
every statement discosql runs, in-process, by its stage name, with how many statements each
stage ran. ``--engine postgres``: the server, settings and tables of bench_engines.py (a
throw-away server on loopback, the files COPYed into UNLOGGED tables, load time apart); the
floor (bench_engines.floor_sql, warm) is timed in the same session, and each target's cells
are counted (the rows every stage after 030 reads). ``--engine spark``: bench_engines.py's
local Spark session and DataFrames; the floor is warmed up and timed as there, and the summary
runs twice: the first call as bench_engines.py times it, then a second one in the same session;
then a third, whose statements' planning (Spark's own phases: parsing, analysis, optimization,
planning, from each query's planning tracker) is summed, to tell it from the jobs' running.
``--parts`` (DuckDB): what the records shared by the targets cost, written by hand (no
discosql): the data sets read, coded through one dictionary join per column, written to a
table, sorted by q; and the ten targets' cells grouped from the records unsorted and sorted.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--engine", choices=("duckdb", "postgres", "spark"), default="duckdb")
    p.add_argument("--parts", action="store_true", help="the shared records' parts, by hand")
    a = p.parse_args()
    sys.path.insert(0, str(HERE))
    if a.engine == "postgres":
        postgres(a)
        return
    if a.engine == "spark":
        spark(a)
        return
    from bench_disclosure import data  # type: ignore[import-not-found]

    d = data(a.rows)
    import discosql as ds

    files = (str(d / "original.parquet"), str(d / "synthetic.parquet"))
    if a.parts:
        parts(files, a.threads)
        return
    profile(ds.duckdb(threads=a.threads), files, a.rows)


def parts(files: tuple[str, str], threads: int) -> None:
    """Seconds of each part of the records that discosql's targets share, by hand on DuckDB:
    the union of the data sets scanned (every key and target hashed, so each is read), then
    coded through one dictionary join per column, written to a temp table, and sorted by q;
    then the floor, and each target's cells, a GROUP BY (q, t) of the records, unsorted and
    sorted."""
    import duckdb
    from bench_engines import floor_sql  # type: ignore[import-not-found]
    from datagen import KEYS, TARGETS

    con = duckdb.connect(config={"threads": threads})
    both = " union all ".join(
        f"select {i} as src, * from read_parquet('{f}')" for i, f in enumerate(files)
    )
    both = f"({both})"
    for c in KEYS + TARGETS:  # codes 1..n in the order of the values' text, as stage 010
        con.execute(
            f"create temp table d_{c} as select v, cast(row_number() over"
            f" (order by cast(v as varchar)) as bigint) as code"
            f" from (select distinct {c} as v from {both} where {c} is not null)"
        )
    place, q = 1, []
    for c in KEYS:
        q.append(f"coalesce(k_{c}.code, 0) * {place}")
        place *= con.execute(f"select count(*) + 1 from d_{c}").fetchall()[0][0]
    coded = (
        f"x.src, {' + '.join(q)} as q, "
        + ", ".join(f"cast(coalesce(k_{t}.code, 0) as smallint) as {t}" for t in TARGETS)
        + f" from {both} as x "
        + " ".join(f"left join d_{c} as k_{c} on k_{c}.v = x.{c}" for c in KEYS + TARGETS)
    )

    def timed(what: str, sql: str) -> None:
        t0 = time.perf_counter()
        con.execute(sql)
        print(f"{time.perf_counter() - t0:8.2f} s  {what}")

    timed(
        "scan (every column hashed)", f"select sum(hash({', '.join(KEYS + TARGETS)})) from {both}"
    )
    timed("scan, coded", f"select count(*), sum(q) from (select {coded})")
    timed("scan, coded, written", f"create temp table rec as select {coded}")
    timed(
        "written records sorted by q",
        "create temp table rec_sorted as select * from rec order by q",
    )
    timed(
        "scan, coded, written sorted by q", f"create temp table rec2 as select {coded} order by q"
    )
    t0 = time.perf_counter()
    for t in TARGETS:  # bench_scale.py's floor (bench_engines.floor_sql), in this process
        for f in files:
            con.execute(floor_sql(f"read_parquet('{f}')", t, '"')).fetchall()
    print(f"{time.perf_counter() - t0:8.2f} s  the floor (bench_scale.py's, in this process)")
    for table in ("rec", "rec_sorted"):
        t0 = time.perf_counter()
        for t in TARGETS:
            con.execute(
                f"create or replace temp table c as select q, {t} as t,"
                " count(*) filter (where src = 0) as d, count(*) filter (where src = 1) as s"
                f" from {table} group by q, {t}"
            )
        print(f"{time.perf_counter() - t0:8.2f} s  cells of {len(TARGETS)} targets from {table}")


@contextlib.contextmanager
def patched(owner: Any, name: str, value: Any) -> Iterator[None]:
    """``owner.name`` replaced by ``value`` while the block runs."""
    saved = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, saved)


def summary_seconds(engine: Any, data: tuple[Any, Any]) -> float:
    """The seconds of one disclosure_summary of the benchmark's keys and targets."""
    from datagen import KEYS, TARGETS  # type: ignore[import-not-found]

    import discosql as ds

    t0 = time.perf_counter()
    ds.disclosure_summary(*data, KEYS, TARGETS, engine=engine)
    return time.perf_counter() - t0


def profile(engine: Any, data: tuple[Any, Any], rows: int) -> None:
    """Print the seconds and statements of each stage of one disclosure_summary."""
    from datagen import TARGETS  # type: ignore[import-not-found]

    from discosql.engines.base import Engine

    seconds: dict[str, float] = collections.defaultdict(float)
    statements: collections.Counter[str] = collections.Counter()
    guarded = Engine._guarded

    def timed(self: Engine, stage: str, run: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        try:
            return guarded(self, stage, run)
        finally:
            seconds[stage] += time.perf_counter() - t0
            statements[stage] += 1

    with patched(Engine, "_guarded", timed):
        total = summary_seconds(engine, data)
    for stage, s in sorted(seconds.items(), key=lambda x: -x[1]):
        print(f"{s:8.2f} s  {statements[stage]:4d}  {stage}")
    n = sum(statements.values())
    print(f"{total:8.2f} s  {n:4d}  in all ({len(TARGETS)} targets, N = {rows:,})")


def postgres(a: argparse.Namespace) -> None:
    """The profile on bench_engines.py's PostgreSQL, with its floor and the cells per target."""
    import psycopg
    from bench_engines import PG_TABLES, floor_sql, pg_load, pg_server  # type: ignore[import-not-found]
    from bench_scale import _files  # type: ignore[import-not-found]
    from datagen import KEYS, TARGETS

    import discosql as ds

    a.pg_dsn = None
    with pg_server(a) as dsn, psycopg.connect(dsn, autocommit=True) as con:
        con.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        pg_load(con, _files(a.rows))
        for warm in (True, False):
            t0 = time.perf_counter()
            for target in TARGETS:
                for table in PG_TABLES:
                    con.execute(floor_sql(table, target, '"')).fetchall()
            if not warm:
                print(f"{time.perf_counter() - t0:8.2f} s  the floor (warm)")
        keys = ", ".join(f'"{k}"' for k in KEYS)
        for target in TARGETS:  # the cells: the (j, q, t) with records, as stage 030 counts them
            both = f"SELECT * FROM {PG_TABLES[0]} UNION ALL SELECT * FROM {PG_TABLES[1]}"
            sql = f'SELECT count(*) FROM (SELECT DISTINCT {keys}, "{target}" FROM ({both}) x) y'
            n = con.execute(sql).fetchall()[0][0]
            print(f"  {target}: {n:,} cells from {2 * a.rows:,} records")
        profile(ds.postgres(dsn), PG_TABLES, a.rows)


def spark(a: argparse.Namespace) -> None:
    """The profile on bench_engines.py's Spark session: the floor, then two summaries."""
    import tempfile

    from bench_engines import floor_sql, spark_config  # type: ignore[import-not-found]
    from bench_scale import _files  # type: ignore[import-not-found]
    from datagen import TARGETS
    from pyspark.sql import SparkSession

    import discosql as ds

    a.spark_memory = "8g"
    builder = SparkSession.builder.appName("discosql-profile-stages")
    for k, v in spark_config(a).items():
        builder = builder.config(k, v)
    with tempfile.TemporaryDirectory(prefix="discosql-spark-") as warehouse:
        session = builder.config("spark.sql.warehouse.dir", warehouse).getOrCreate()
        try:
            session.sparkContext.setLogLevel("ERROR")
            frames = [session.read.parquet(p) for p in _files(a.rows)]
            for name, df in zip(("original", "synthetic"), frames, strict=True):
                df.createOrReplaceTempView(name)
            for warm in (True, False):
                t0 = time.perf_counter()
                for target in TARGETS:
                    for view in ("original", "synthetic"):
                        session.sql(floor_sql(view, target, "`")).collect()
                if not warm:
                    print(f"{time.perf_counter() - t0:8.2f} s  the floor (warm)")
            for run in ("first", "second"):
                print(f"-- the {run} summary")
                profile(ds.spark(session), (frames[0], frames[1]), a.rows)
            spark_phases(ds.spark(session), (frames[0], frames[1]))
        finally:
            session.stop()


def spark_phases(engine: Any, data: tuple[Any, Any]) -> None:
    """One more disclosure_summary: Spark's planning phases summed over its statements."""
    from pyspark.sql import SparkSession

    frames: list[Any] = []
    sql = SparkSession.sql

    def recorded(session: Any, query: str, *args: Any, **kwargs: Any) -> Any:
        df = sql(session, query, *args, **kwargs)
        frames.append(df)
        return df

    with patched(SparkSession, "sql", recorded):
        total = summary_seconds(engine, data)
    ms: collections.Counter[str] = collections.Counter()
    for df in frames:
        phases = df._jdf.queryExecution().tracker().phases().iterator()
        while phases.hasNext():
            phase = phases.next()
            ms[phase._1()] += phase._2().durationMs()
    parts = ", ".join(f"{k} {v / 1000:.2f} s" for k, v in sorted(ms.items()))
    print(f"-- a third summary: {total:.2f} s; its {len(frames)} statements' planning: {parts}")
    print(f"{sum(ms.values()) / 1000:8.2f} s  planning in all; the rest is running the jobs")


if __name__ == "__main__":
    main()
