"""discosql.disclosure() against the floor: a plain DuckDB scan-and-group of both tables.

For each size N, generates (seeded) or reuses Parquet data, then reports with the same threads:
  floor     one ``COUNT(*) GROUP BY keys, target`` over the original and one over the synthetic
  discosql  ds.disclosure(...) for one target, all measures and checks (median of --repeat runs)
  join      the cells stage written as a FULL OUTER JOIN of the two count tables (the design
            alternative; discosql uses one aggregation over a tagged UNION ALL)
and the ratios to the floor. Results are printed as a Markdown table.

    python benchmarks/bench_disclosure.py --rows 100000 1000000 --threads 2
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
from datagen import KEYS, write  # type: ignore[import-not-found]

import discosql as ds

HERE = Path(__file__).parent


def timed(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm-up (file cache, plan cache)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def data(rows: int) -> Path:
    out = HERE / "data" / f"n{rows}"
    if not (out / "synthetic.parquet").exists():
        write(rows, out, seed=1)
    return out


def bench(rows: int, threads: int, repeat: int, target: str) -> tuple[float, float, float]:
    """Median seconds of (floor, discosql, full-join cells) at ``rows`` rows."""
    d = data(rows)
    o, s = str(d / "original.parquet"), str(d / "synthetic.parquet")
    cols = ", ".join(f'"{c}"' for c in [*KEYS, target])
    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")

    def floor() -> None:
        for path in (o, s):
            sql = (
                f"SELECT count(*) FROM "
                f"(SELECT {cols}, count(*) FROM read_parquet($p) GROUP BY {cols})"
            )
            con.execute(sql, {"p": path}).fetchall()

    def join() -> None:
        on = " AND ".join(
            f"coalesce(cast(a.\"{c}\" as varchar), 'Missing') = "
            f"coalesce(cast(b.\"{c}\" as varchar), 'Missing')"
            for c in [*KEYS, target]
        )
        con.execute(
            f"SELECT count(*), sum(coalesce(a.n, 0)), sum(coalesce(b.n, 0)) FROM "
            f"(SELECT {cols}, count(*) n FROM read_parquet($o) GROUP BY {cols}) a FULL JOIN "
            f"(SELECT {cols}, count(*) n FROM read_parquet($s) GROUP BY {cols}) b ON {on}",
            {"o": o, "s": s},
        ).fetchall()

    def disco() -> None:
        ds.disclosure(o, s, keys=KEYS, target=target, threads=threads)

    return timed(floor, repeat), timed(disco, repeat), timed(join, repeat)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--target", default="t_income")
    a = p.parse_args()
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}, "
        f"duckdb {duckdb.__version__}, discosql {ds.__version__}, threads {a.threads}, "
        f"keys {len(KEYS)}, target {a.target}\n"
    )
    print("| N | floor s | discosql s | ratio | full-join cells s | join/floor |")
    print("|---|---|---|---|---|---|")
    for rows in a.rows:
        t_floor, t_disco, t_join = bench(rows, a.threads, a.repeat, a.target)
        print(
            f"| {rows:,} | {t_floor:.3f} | {t_disco:.3f} | {t_disco / t_floor:.2f} | "
            f"{t_join:.3f} | {t_join / t_floor:.2f} |"
        )


if __name__ == "__main__":
    main()
