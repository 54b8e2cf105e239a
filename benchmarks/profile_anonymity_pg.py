"""Linkability and exact matches on UCI Adult, DuckDB against PostgreSQL with the server's
default settings (the trial of issue 56), each call's time by stage.

    python benchmarks/profile_anonymity_pg.py --adult path/to/adult.csv [--jit on]

A throw-away PostgreSQL cluster on loopback (tests/servers.py, its defaults: work_mem 4MB,
temp_buffers 8MB, jit on) holds Adult and two stand-in syntheses (bench_report.syntheses,
seed 1). ``--jit on`` runs discosql's own connection with PostgreSQL's JIT on, as before
discosql switched it off there. Prints, per engine and call, the time and the slowest
stages (Engine._guarded, which every statement passes).
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.csv as pacsv

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.servers
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_report import syntheses

import discosql as ds
from discosql.engines import base
from tests import engine_data, servers

KEYS = ["age", "sex", "race", "marital.status", "native.country"]
TARGETS = ["income", "occupation", "relationship", "education", "workclass"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--adult", type=Path, required=True, help="UCI Adult as CSV")
    p.add_argument("--jit", choices=("off", "on"), default="off")
    args = p.parse_args()
    adult = pacsv.read_csv(args.adult)
    syn = syntheses(adult, 2, seed=1)
    times: dict[str, float] = collections.defaultdict(float)
    real = base.Engine._guarded

    def guarded(self: base.Engine, stage: str, run: Any) -> Any:
        t = time.perf_counter()
        try:
            return real(self, stage, run)
        finally:
            times[stage] += time.perf_counter() - t

    base.Engine._guarded = guarded  # type: ignore[method-assign]
    if args.jit == "on":  # discosql's own session as before: JIT on again once opened
        from discosql.engines.postgres import PostgresEngine

        opened = PostgresEngine.__init__

        def with_jit(self: PostgresEngine, *a: Any, **kw: Any) -> None:
            opened(self, *a, **kw)
            self.con.execute("SET jit = on")

        PostgresEngine.__init__ = with_jit  # type: ignore[method-assign]
    with servers.postgres_server() as dsn:
        engine_data.load_postgres(dsn, {"adult": adult, "syn_1": syn[0], "syn_2": syn[1]})
        for eng, names in ((None, (adult, syn[0], syn[1])), (dsn, ("adult", "syn_1", "syn_2"))):
            calls = {
                "linkability": lambda e=eng, n=names: ds.linkability(
                    n[0], n[1], (KEYS, TARGETS), control=n[2], engine=e
                ),
                "exact_matches": lambda e=eng, n=names: ds.exact_matches(
                    n[0], [n[1], n[2]], engine=e
                ),
            }
            for name, call in calls.items():
                times.clear()
                t = time.perf_counter()
                call()
                total = time.perf_counter() - t
                print(f"{'duckdb' if eng is None else 'postgres'} {name}: {total:.2f} s")
                for stage, s in sorted(times.items(), key=lambda kv: -kv[1])[:4]:
                    print(f"   {s:7.2f}  {stage}")


if __name__ == "__main__":
    main()
