"""GeneralizedCAP (and the other CAP measures) at scale against the plain DuckDB floor.

For each size N, generates (seeded, datagen.py) or reuses the Parquet data of
bench_disclosure.py and reports with the same threads (median and fastest of --repeat runs
after a warm-up):
  floor        one ``COUNT(*) GROUP BY keys, target`` over the original and one over the synthetic
  generalized  ds.categorical_generalized_cap(original, synthetic, 6 keys, target)
  cap          ds.categorical_cap (exact-match CAP; the same cell table)
  tcap         ds.taub_tcap
and the rounds GeneralizedCAP needed. SDMetrics' CategoricalGeneralizedCAP takes 89.5 s at 10k
rows and more than 600 s at 100k on this machine (shared/peers.md).

    python benchmarks/bench_cap.py --rows 1000000 --threads 2
"""

from __future__ import annotations

import argparse
import functools
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
from bench_disclosure import data  # type: ignore[import-not-found]
from datagen import KEYS  # type: ignore[import-not-found]

import discosql as ds
from discosql.measure import cap


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(median, fastest) seconds of ``repeat`` runs after a warm-up; the fastest is reported too
    because the 2-core machine is shared and a busy neighbour inflates single runs."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def floor_fn(o: str, s: str, target: str, threads: int) -> Callable[[], None]:
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

    return floor


def rounds(o: str, s: str, target: str, threads: int) -> int:
    """How many rounds d = 0, 1, .. GeneralizedCAP ran (counted by a spy on the renderer)."""
    seen = []
    original = cap.render

    def spy(template: str, *args: object, **context: object) -> str:
        if context.get("statement") == "round":
            seen.append(1)
        return original(template, *args, **context)

    cap.render = spy  # type: ignore[assignment]
    try:
        ds.categorical_generalized_cap(o, s, KEYS, target, threads=threads)
    finally:
        cap.render = original  # type: ignore[assignment]
    return len(seen)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--target", default="t_income")
    a = p.parse_args()
    print(
        f"{platform.machine()}, {platform.python_version()}, DuckDB {duckdb.__version__}, "
        f"discosql {ds.__version__}, threads = {a.threads}, keys = {len(KEYS)}, "
        f"target = {a.target}, median of {a.repeat}\n"
    )
    print(
        "| N (each side) | floor s (fastest) | generalized_cap s (fastest) | ratio | rounds "
        "| cap s | taub_tcap s |"
    )
    print("|---|---|---|---|---|---|---|")
    for n in a.rows:
        d: Path = data(n)
        o, s = str(d / "original.parquet"), str(d / "synthetic.parquet")
        t = a.target
        floor, floor_min = timed(floor_fn(o, s, t, a.threads), a.repeat)
        t0 = time.perf_counter()
        value = ds.categorical_generalized_cap(o, s, KEYS, t, threads=a.threads).score
        first = time.perf_counter() - t0
        call = functools.partial(ds.categorical_generalized_cap, o, s, KEYS, t, threads=a.threads)
        gen, gen_min = timed(call, a.repeat)
        exact, _ = timed(
            functools.partial(ds.categorical_cap, o, s, KEYS, t, threads=a.threads), a.repeat
        )
        tcap, _ = timed(functools.partial(ds.taub_tcap, o, s, KEYS, t, threads=a.threads), a.repeat)
        print(
            f"| {n:,} | {floor:.3f} ({floor_min:.3f}) | {gen:.3f} ({gen_min:.3f}) | "
            f"{gen / floor:.1f} | {rounds(o, s, t, a.threads)} | {exact:.3f} | {tcap:.3f} |"
        )
        print(f"<!-- GeneralizedCAP score {value:.12f}; first (cold) run {first:.3f} s -->")


if __name__ == "__main__":
    main()
