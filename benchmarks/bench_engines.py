"""discosql against the plain-query floor on each engine: DuckDB, PostgreSQL, Spark.

For each engine and N (bench_scale's seeded data, N original + N synthetic rows, datagen's 6
keys and 10 targets), in the same run:

  floor     10 x (``SELECT count(*) FROM (SELECT keys, target, count(*) ... GROUP BY keys,
            target)`` over the original and over the synthetic data), one per target
  discosql  ``ds.disclosure_summary(original, synthetic, KEYS, TARGETS, engine=...)``: every
            measure, check and exclusion table of every target

and the ratio discosql / floor. Per engine:

  duckdb    bench_scale's floor and summary workers, a fresh process each (seconds after the
            imports, peak RSS); --memory-limit from --limit-from rows on. --sweep / --sdc:
            bench_sweep's (key_sweep / summary) and bench_sdc's (sdc / COPY) workers, wall-time
            ratios as those scripts give them. --small: in this process, one warm-up and the
            median of 7, on the bundled SD2011 data (5 syntheses): disclosure_summary over the
            5 non-key columns (budget 0.25 s) and disclosure() of "depress" (budget 0.1 s).
  postgres  a throw-away server on loopback (tests/servers.py, then pg_settings() by ALTER
            SYSTEM and a restart), or --pg-dsn as it is; the files COPYed into UNLOGGED tables,
            VACUUM ANALYZE, pg_prewarm (load time apart); one warm-up of the floor, then each once.
  spark     a local[threads] session (spark_config()); the files as DataFrames (the floor reads
            temp views of them); each twice in one session, the floor first: the ratio is
            discosql's first run over the floor's second, and both first and both second
            runs are recorded too (the JVM compiles code at each side's first run).

PostgreSQL and Spark times are wall seconds in this process (the work runs in the server, the
JVM). The digest of discosql's results (bench_scale.digest) is compared across the engines'
JSON files; PostgreSQL's and Spark's results are also compared (untimed) with DuckDB's on the
same files: every table equal, floats up to a relative difference (summing in another order
can change a last bit). Writes <out>/engines_<engine>.json and .png (plot_engines.py), prints
the machine, versions, settings and Markdown tables; --tables prints them from the JSON only.

    python benchmarks/bench_engines.py --engines duckdb postgres spark \\
        --rows 1000000 10000000 --threads 2 [--memory-limit 4GB --limit-from 100000000] \\
        [--small] [--sweep] [--sdc] [--out benchmarks/results]
    python benchmarks/bench_engines.py --tables
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench_scale import _files, digest, measure, run_worker  # type: ignore[import-not-found]
from datagen import KEYS, TARGETS  # type: ignore[import-not-found]
from plot_engines import plot, print_tables  # type: ignore[import-not-found]

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))  # tests.servers
ENGINES = ("duckdb", "postgres", "spark")
SMALL_BUDGETS = {"disclosure_summary": 0.25, "disclosure": 0.1}  # seconds, warm
# --sweep / --sdc: (flag, script, (the base worker, the measured worker))
PAIRED = (
    ("sweep", "bench_sweep.py", ("summary", "sweep")),
    ("sdc", "bench_sdc.py", ("copy", "sdc")),
)
PG_TABLES = ("discosql_bench_original", "discosql_bench_synthetic")
PG_TYPES = {
    "string": "text",
    "large_string": "text",
    "int64": "bigint",
    "int32": "integer",
    "int16": "smallint",
    "double": "double precision",
    "float": "real",
    "bool": "boolean",
}


def floor_sql(table: str, target: str, q: str) -> str:
    cols = ", ".join(f"{q}{c}{q}" for c in [*KEYS, target])
    return f"SELECT count(*) FROM (SELECT {cols}, count(*) AS n FROM {table} GROUP BY {cols}) x"


def timed(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[float, Any]:
    """Wall seconds of ``fn(*args, **kwargs)``, and its result."""
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t0, out


def machine() -> dict[str, Any]:
    import discosql as ds

    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {
        "date": time.strftime("%Y-%m-%d"),
        "arch": platform.machine(),
        "cores": os.cpu_count(),
        "ram_gb": round(ram),
        "python": platform.python_version(),
        "discosql": ds.__version__,
    }


# --- DuckDB: bench_scale / bench_sweep / bench_sdc workers, one process per measurement ------


def run_duckdb(a: argparse.Namespace, report: dict[str, Any], save: Callable[[], None]) -> None:
    import duckdb

    report["info"]["duckdb"] = duckdb.__version__
    report["settings"] = {
        "threads": a.threads,
        "memory_limit": a.memory_limit,
        "limit_from": a.limit_from,
    }
    with tempfile.TemporaryDirectory(prefix="discosql-spill-", dir=a.temp_dir) as spill:
        a.temp_dir = spill  # run_worker passes it with the memory limit
        for rows in a.rows:
            _files(rows)  # generate (and cache) the data outside the timings
            limit = a.memory_limit if a.memory_limit and rows >= a.limit_from else None
            floor = run_worker("floor", rows, a)
            summary = run_worker("summary", rows, a, limit)
            run = {
                "rows": rows,
                "floor": floor,
                "discosql": summary,
                "memory_limit": limit,
                "digest": summary["digest"],
                "ratio": summary["seconds"] / floor["seconds"],
            }
            if limit:  # the same numbers without the limit
                free = run_worker("summary", rows, a)
                run["unlimited"] = free
                run["same_numbers_unlimited"] = free["digest"] == summary["digest"]
            report["runs"].append(run)
            for flag, script, pair in PAIRED:
                if getattr(a, flag):
                    report[flag].append(paired_workers(script, pair, rows, a.threads, limit))
            save()
    if a.small:
        report["small"] = small(a.threads)


def paired_workers(
    script: str, kinds: tuple[str, str], rows: int, threads: int, limit: str | None
) -> dict[str, Any]:
    """bench_sweep's or bench_sdc's two workers at ``rows``, and the ratio of their wall times."""
    run: dict[str, Any] = {"rows": rows, "memory_limit": limit}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            cmd = [
                sys.executable,
                str(HERE / script),
                "--threads",
                str(threads),
                "--worker",
                kind,
                str(rows),
            ]
            if script == "bench_sdc.py":
                cmd.append(str(Path(tmp) / f"{kind}.parquet"))
            if limit:
                cmd[2:2] = ["--memory-limit", limit]
            try:
                run[kind] = measure(cmd)
            except SystemExit as e:  # recorded, and the other measurements go on
                lines = str(e).strip().splitlines()
                error = [x for x in lines if "Error" in x] or lines  # the exception's own line
                run["failed"] = f"{kind}: {error[-1]}"
                print(f"  {kind} N={rows:>11,}: FAILED {run['failed']}", flush=True)
                return run
    run["ratio"] = run[kinds[1]]["wall"] / run[kinds[0]]["wall"]
    print(
        f"  {kinds[1]} / {kinds[0]} N={rows:>11,}: {run[kinds[1]]['wall']:.2f} / "
        f"{run[kinds[0]]['wall']:.2f} s = {run['ratio']:.2f}",
        flush=True,
    )
    return run


def small(threads: int, repeat: int = 7) -> dict[str, Any]:
    """Warm timings on the bundled SD2011 data (5 syntheses), in this process."""
    import pyarrow.parquet as pq

    import discosql as ds
    from discosql.cli.demo import KEYS as SD_KEYS
    from discosql.cli.demo import demo_paths

    o, syns = demo_paths()
    targets = [c for c in pq.read_schema(o).names if c not in SD_KEYS]
    engine = ds.duckdb(threads=threads)
    calls: dict[str, tuple[Callable[..., Any], Any]] = {
        "disclosure_summary": (ds.disclosure_summary, targets),
        "disclosure": (ds.disclosure, "depress"),
    }
    out: dict[str, Any] = {"keys": SD_KEYS, "targets": targets, "m": len(syns), "repeat": repeat}
    for name, (fn, target) in calls.items():
        args = (o, syns, SD_KEYS, target)
        fn(*args, engine=engine)  # warm-up
        times = [timed(fn, *args, engine=engine)[0] for _ in range(repeat)]
        out[name] = {
            "median": statistics.median(times),
            "fastest": min(times),
            "budget": SMALL_BUDGETS[name],
        }
        print(f"  small {name}: median {out[name]['median']:.3f} s", flush=True)
    return out


# --- PostgreSQL: a server on loopback, the data in UNLOGGED tables ---------------------------


def pg_settings(threads: int) -> dict[str, str]:
    """For a 24 GB, 2-core box: both 10M tables (~1.5 GB each) cached, aggregations in memory."""
    return {
        "shared_buffers": "6GB",  # a quarter of RAM
        "temp_buffers": "2GB",  # discosql's stages are TEMPORARY tables: session-local buffers
        "work_mem": "512MB",  # per sort / hash node (x hash_mem_multiplier 2)
        "maintenance_work_mem": "1GB",
        "effective_cache_size": "16GB",
        "random_page_cost": "1.1",
        "max_worker_processes": str(max(8, threads)),
        "max_parallel_workers": str(threads),
        # the leader also runs the plan: threads processes per query, as DuckDB's threads
        "max_parallel_workers_per_gather": str(threads - 1),
        "jit": "off",  # compiling ~20 statements per target costs more than it saves here
        "fsync": "off",
        "synchronous_commit": "off",
        "full_page_writes": "off",  # no durability
    }


@contextlib.contextmanager
def pg_server(a: argparse.Namespace) -> Iterator[str]:
    """``--pg-dsn`` as it is, or a throw-away server with pg_settings() (one restart)."""
    if a.pg_dsn:
        yield a.pg_dsn
        return
    import psycopg

    from tests.servers import _pg_bin, postgres_server

    with postgres_server() as dsn:
        if os.environ.get("DISCOSQL_TEST_PG_DSN"):  # an existing server: not ours to configure
            yield dsn
            return
        with psycopg.connect(dsn, autocommit=True) as con:
            data = con.execute("SHOW data_directory").fetchall()[0][0]
            for name, value in pg_settings(a.threads).items():
                con.execute(f"ALTER SYSTEM SET {name} = '{value}'")
        run_as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run(
            [
                *run_as,
                str(_pg_bin() / "pg_ctl"),
                "-D",
                data,
                "-m",
                "fast",
                "-w",
                "-t",
                "60",
                "-l",
                str(Path(data).parent / "log"),
                "restart",
            ],
            check=True,
            capture_output=True,
        )
        yield dsn


def pg_load(con: Any, files: tuple[str, str]) -> None:
    """The Parquet files into new UNLOGGED tables PG_TABLES by COPY (CSV from Arrow batches),
    then VACUUM ANALYZE and pg_prewarm."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    options = pacsv.WriteOptions(include_header=False)  # nulls: unquoted empty fields
    for table, path in zip(PG_TABLES, files, strict=True):
        pf = pq.ParquetFile(path)
        cols = ", ".join(f'"{f.name}" {PG_TYPES[str(f.type)]}' for f in pf.schema_arrow)
        con.execute(f"DROP TABLE IF EXISTS {table}")
        con.execute(f"CREATE UNLOGGED TABLE {table} ({cols})")
        with con.cursor().copy(f"COPY {table} FROM STDIN (FORMAT csv)") as copy:
            for batch in pf.iter_batches(batch_size=500_000):
                buf = io.BytesIO()
                pacsv.write_csv(batch, buf, options)
                copy.write(buf.getvalue())
        con.execute(f"VACUUM ANALYZE {table}")
        con.execute(f"SELECT pg_prewarm('{table}')")  # into shared_buffers (a scan uses a ring)


def run_postgres(a: argparse.Namespace, report: dict[str, Any], save: Callable[[], None]) -> None:
    import psycopg

    import discosql as ds

    with pg_server(a) as dsn, psycopg.connect(dsn, autocommit=True) as con:
        report["info"]["psycopg"] = psycopg.__version__
        con.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        names = [*pg_settings(a.threads), "hash_mem_multiplier", "parallel_leader_participation"]
        shown = {n: con.execute(f"SHOW {n}").fetchall()[0][0] for n in ["server_version", *names]}
        report["info"]["postgresql"] = shown.pop("server_version")
        report["settings"] = shown
        external = a.pg_dsn or os.environ.get("DISCOSQL_TEST_PG_DSN")
        report["settings"]["server"] = "existing, as configured" if external else "throw-away"
        print(json.dumps(report["settings"]), flush=True)

        def floor() -> None:
            for target in TARGETS:
                for table in PG_TABLES:
                    con.execute(floor_sql(table, target, '"')).fetchall()

        engine = ds.postgres(dsn)
        for rows in a.rows:
            load, _ = timed(pg_load, con, _files(rows))
            floor()  # warm-up: both tables in the cache
            f_s, _ = timed(floor)
            d_s, summary = timed(ds.disclosure_summary, *PG_TABLES, KEYS, TARGETS, engine=engine)
            record(report, a, rows, f_s, d_s, summary.results, load_seconds=load)
            save()
        con.execute(f"DROP TABLE IF EXISTS {', '.join(PG_TABLES)}")


# --- Spark: one local session, the data as DataFrames ----------------------------------------


def spark_config(a: argparse.Namespace) -> dict[str, str]:
    """tests/servers.py's spark_session() settings, with threads and --spark-memory."""
    return {
        "spark.master": f"local[{a.threads}]",
        "spark.driver.memory": a.spark_memory,
        "spark.sql.shuffle.partitions": str(a.threads),
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.session.timeZone": "UTC",
    }


def run_spark(a: argparse.Namespace, report: dict[str, Any], save: Callable[[], None]) -> None:
    import pyspark
    from pyspark.sql import SparkSession

    import discosql as ds

    builder = SparkSession.builder.appName("discosql-bench-engines")
    for k, v in spark_config(a).items():
        builder = builder.config(k, v)
    warehouse = tempfile.TemporaryDirectory(prefix="discosql-spark-")
    spark = builder.config("spark.sql.warehouse.dir", warehouse.name).getOrCreate()
    try:
        spark.sparkContext.setLogLevel("ERROR")
        java = spark.sparkContext._jvm.java.lang.System.getProperty("java.version")  # type: ignore[union-attr]
        report["info"].update(pyspark=pyspark.__version__, spark=spark.version, java=java)
        names = [*spark_config(a), "spark.sql.adaptive.enabled"]
        report["settings"] = {k: spark.conf.get(k) for k in names}
        print(json.dumps(report["settings"]), flush=True)
        engine = ds.spark(spark)
        for rows in a.rows:
            frames = [spark.read.parquet(p) for p in _files(rows)]
            for name, df in zip(("original", "synthetic"), frames, strict=True):
                df.createOrReplaceTempView(name)

            def floor() -> None:
                for target in TARGETS:
                    for view in ("original", "synthetic"):
                        spark.sql(floor_sql(view, target, "`")).collect()

            # each side twice: the first run compiles the JVM's code and caches the files,
            # the second is warm. The ratio is discosql's first run over the floor's second
            # (as before 2026-11-27); both first and both second runs are recorded too
            f_first, _ = timed(floor)
            f_s, _ = timed(floor)
            d_s, summary = timed(ds.disclosure_summary, *frames, KEYS, TARGETS, engine=engine)
            d_second, _ = timed(ds.disclosure_summary, *frames, KEYS, TARGETS, engine=engine)
            extra = {"floor_first_seconds": f_first, "discosql_second_seconds": d_second}
            record(report, a, rows, f_s, d_s, summary.results, **extra)
            save()
    finally:
        spark.stop()
        warehouse.cleanup()


def record(
    report: dict[str, Any],
    a: argparse.Namespace,
    rows: int,
    floor_s: float,
    disco_s: float,
    results: dict[str, Any],
    **extra: float,
) -> None:
    """One size of PostgreSQL or Spark, its results checked against DuckDB's (untimed)."""
    check = against(results, duckdb_results(rows, a))
    report["runs"].append(
        {
            "rows": rows,
            "floor": {"seconds": floor_s},
            "discosql": {"seconds": disco_s},
            "digest": digest(results),
            "vs_duckdb": check,
            "ratio": disco_s / floor_s,
            **extra,
        }
    )
    shown = "".join(f", {k} {v:.2f} s" for k, v in extra.items())
    print(
        f"  {report['engine']} N={rows:>11,}: floor {floor_s:.2f} s, discosql {disco_s:.2f} "
        f"s, ratio {disco_s / floor_s:.2f}{shown}, digest {report['runs'][-1]['digest']}, "
        f"against DuckDB {json.dumps(check)}",
        flush=True,
    )


_DUCKDB: dict[int, dict[str, Any]] = {}  # rows -> DuckDB's results, the reference


def duckdb_results(rows: int, a: argparse.Namespace) -> dict[str, Any]:
    import discosql as ds

    if rows not in _DUCKDB:
        limit = a.memory_limit if a.memory_limit and rows >= a.limit_from else None
        engine = ds.duckdb(threads=a.threads, memory_limit=limit)
        _DUCKDB[rows] = ds.disclosure_summary(*_files(rows), KEYS, TARGETS, engine=engine).results
    return _DUCKDB[rows]


def against(results: dict[str, Any], ref: dict[str, Any]) -> dict[str, Any]:
    """Every result table of every target against ``ref``'s: the same schemas, rows and values
    but floats, and the largest relative difference of a float (engines sum in other orders)."""
    from discosql.core.results import RESULT_TABLES

    same, worst = results.keys() == ref.keys(), 0.0
    for target, r in ref.items():
        for name in (t.name for t in RESULT_TABLES):
            x, y = getattr(results[target], name), getattr(r, name)
            same = same and x.schema == y.schema and x.num_rows == y.num_rows
            for u, v in zip(x.to_pylist(), y.to_pylist(), strict=False):
                for col, b in v.items():
                    c = u.get(col)
                    if isinstance(b, float) and isinstance(c, float) and c == c and b == b:
                        worst = max(worst, abs(c - b) / max(abs(c), abs(b), 1e-300))
                    else:  # NaN only equals NaN
                        same = same and (c == b or (c != c and b != b))
    return {"same_but_floats": same, "max_rel_diff": worst}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--engines", nargs="+", choices=ENGINES, default=list(ENGINES))
    p.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--memory-limit", default=None, help="DuckDB only, from --limit-from rows")
    p.add_argument("--limit-from", type=int, default=100_000_000)
    p.add_argument("--temp-dir", default=None, help="where DuckDB's spill directory goes")
    p.add_argument("--small", action="store_true", help="DuckDB: SD2011 warm timings")
    p.add_argument("--sweep", action="store_true", help="DuckDB: bench_sweep's ratio")
    p.add_argument("--sdc", action="store_true", help="DuckDB: bench_sdc's ratio")
    p.add_argument("--pg-dsn", default=None, help="an existing PostgreSQL server (as it is)")
    p.add_argument("--spark-memory", default="8g", help="spark.driver.memory")
    p.add_argument("--out", type=Path, default=HERE / "results")
    p.add_argument("--tables", action="store_true", help="print the saved tables; run nothing")
    a = p.parse_args()
    a.out = a.out.resolve()
    if a.tables:
        print_tables(a.out, a.engines)
        return
    a.out.mkdir(parents=True, exist_ok=True)
    runners = {"duckdb": run_duckdb, "postgres": run_postgres, "spark": run_spark}
    for engine in a.engines:
        info = {**machine(), "threads": a.threads}
        print(f"\n== {engine}: {json.dumps(info)}", flush=True)
        report: dict[str, Any] = {
            "engine": engine,
            "info": info,
            "settings": {},
            "runs": [],
            "sweep": [],
            "sdc": [],
        }
        path = a.out / f"engines_{engine}.json"
        kept = _other_sizes(path, a.rows)

        def save(
            report: dict[str, Any] = report,
            path: Path = path,
            kept: list[Any] = kept,
            day: str = info["date"],
        ) -> None:
            # this run's sizes, dated, beside the sizes measured on other days
            runs = [*kept, *({**r, "date": day} for r in report["runs"])]
            runs.sort(key=lambda r: r["rows"])
            path.write_text(json.dumps({**report, "runs": runs}, indent=1))

        runners[engine](a, report, save)
        save()
        plot(json.loads(path.read_text()), path.with_suffix(".png"))  # every size measured
    print_tables(a.out, list(ENGINES))


def _other_sizes(path: Path, rows: list[int]) -> list[dict[str, Any]]:
    """The runs of ``path`` (an earlier report) at sizes other than ``rows``, each with the
    date it was measured."""
    if not path.exists():
        return []
    before = json.loads(path.read_text())
    day = before["info"]["date"]
    return [{**r, "date": r.get("date", day)} for r in before["runs"] if r["rows"] not in rows]


if __name__ == "__main__":
    main()
