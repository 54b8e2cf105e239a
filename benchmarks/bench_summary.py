"""disclosure_summary over all 10 targets against 10 separate disclosure() calls.

The summary registers each input once (CSV is parsed once; Parquet is scanned in place, which
measured faster than copying it), decides groupings once and runs every target on the same
connection; separate calls each register, read and validate again.

    python benchmarks/bench_summary.py --rows 1000000 --threads 2
"""

from __future__ import annotations

import argparse
import platform
import time

import duckdb
from bench_disclosure import data  # type: ignore[import-not-found]
from datagen import KEYS, TARGETS  # type: ignore[import-not-found]

import discosql as ds


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--format", choices=["parquet", "csv"], default="parquet")
    a = p.parse_args()
    d = data(a.rows)
    o, s = str(d / "original.parquet"), str(d / "synthetic.parquet")
    if a.format == "csv":  # the same data as CSV files
        for name in ("original", "synthetic"):
            csv = d / f"{name}.csv"
            if not csv.exists():
                duckdb.sql(f"COPY (SELECT * FROM '{d / name}.parquet') TO '{csv}' (HEADER)")
        o, s = str(d / "original.csv"), str(d / "synthetic.csv")
    ds.disclosure(o, s, keys=KEYS, target=TARGETS[0], threads=a.threads)  # warm-up

    t0 = time.perf_counter()
    separate = {t: ds.disclosure(o, s, keys=KEYS, target=t, threads=a.threads) for t in TARGETS}
    t_separate = time.perf_counter() - t0

    t0 = time.perf_counter()
    summary = ds.disclosure_summary(o, s, KEYS, TARGETS, threads=a.threads)
    t_summary = time.perf_counter() - t0

    same = all(summary.results[t].attrib.equals(separate[t].attrib) for t in TARGETS)
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}, "
        f"duckdb {duckdb.__version__}, threads {a.threads}, N = {a.rows:,}, "
        f"{len(TARGETS)} targets, {len(KEYS)} keys, {a.format} input"
    )
    print(f"10 separate disclosure() calls: {t_separate:.2f} s")
    print(f"disclosure_summary():          {t_summary:.2f} s  ({t_separate / t_summary:.2f}x)")
    print(f"identical results: {same}")


if __name__ == "__main__":
    main()
