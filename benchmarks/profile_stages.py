"""Where disclosure_summary spends its time: seconds per stage (template), summed over targets.

    python benchmarks/profile_stages.py --rows 10000000 --threads 2

Uses the seeded data of bench_scale.py (benchmarks/data/, generated on first use) and times
every statement discosql runs, in-process, by its stage name.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    sys.path.insert(0, str(HERE))
    from bench_disclosure import data  # type: ignore[import-not-found]
    from datagen import KEYS, TARGETS  # type: ignore[import-not-found]

    import discosql as ds
    from discosql.engines.base import Engine

    d = data(a.rows)
    seconds: dict[str, float] = collections.defaultdict(float)
    guarded = Engine._guarded

    def timed(self: Engine, stage: str, run: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        try:
            return guarded(self, stage, run)
        finally:
            seconds[stage] += time.perf_counter() - t0

    Engine._guarded = timed  # type: ignore[method-assign]
    t0 = time.perf_counter()
    ds.disclosure_summary(
        str(d / "original.parquet"), str(d / "synthetic.parquet"), KEYS, TARGETS,
        engine=ds.duckdb(threads=a.threads),
    )  # fmt: skip
    total = time.perf_counter() - t0
    for stage, s in sorted(seconds.items(), key=lambda x: -x[1]):
        print(f"{s:8.2f} s  {stage}")
    print(f"{total:8.2f} s  in all ({len(TARGETS)} targets, N = {a.rows:,})")


if __name__ == "__main__":
    main()
