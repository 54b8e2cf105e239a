"""key_sweep over every subset of 6 keys (63) for 10 targets, against one disclosure_summary over
the full key set, at 1M, 10M, 100M rows.

For each N (seeded data from datagen.py, N original + N synthetic rows, cached in
benchmarks/data/), each measurement runs in a fresh process; wall time and peak RSS (of that
process) are reported:

  summary   ``ds.disclosure_summary(original, synthetic, KEYS, TARGETS)``: the 10 targets over
            the 6 keys, every result table
  sweep     ``ds.key_sweep(original, synthetic, KEYS, TARGETS)``: 63 subsets x 10 targets

with ``engine=ds.duckdb(threads, memory_limit)`` (--memory-limit from --limit-from rows), and
the ratio sweep / summary (the issue asks for <= 3 at 10M).

    python benchmarks/bench_sweep.py --rows 1000000 10000000 --threads 2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from bench_scale import _files, measure  # type: ignore[import-not-found]

HERE = Path(__file__).parent
RESULTS = HERE / "results" / "sweep.json"


def worker(kind: str, rows: int, threads: int, memory_limit: str | None) -> dict[str, Any]:
    from datagen import KEYS, TARGETS  # type: ignore[import-not-found]

    import discosql as ds

    o, s = _files(rows)
    engine = ds.duckdb(threads=threads, memory_limit=memory_limit)
    t0 = time.perf_counter()
    result: dict[str, Any] = {}
    if kind == "summary":
        summary = ds.disclosure_summary(o, s, KEYS, TARGETS, engine=engine)
        result["DiSCO_full"] = {t: r.value("DiSCO", 1) for t, r in summary.results.items()}
    elif kind == "sweep":
        sweep = ds.key_sweep(o, s, KEYS, TARGETS, engine=engine)
        full = [r for r in sweep.table.to_pylist() if len(r["keys"]) == len(KEYS)]
        result["DiSCO_full"] = {r["target"]: r["DiSCO"] for r in full}
        result["rows"] = sweep.table.num_rows
    else:
        raise SystemExit(f"unknown worker {kind}")
    result["seconds"] = time.perf_counter() - t0
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--memory-limit", default=None)
    parser.add_argument("--limit-from", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "ROWS"), help=argparse.SUPPRESS)
    a = parser.parse_args()
    if a.worker:
        kind, rows = a.worker
        print(json.dumps(worker(kind, int(rows), a.threads, a.memory_limit)))
        return
    report: dict[str, Any] = {"threads": a.threads, "memory_limit": a.memory_limit, "runs": []}
    print(
        "| rows | summary s | sweep s | sweep / summary | sweep peak RSS MB | same full-key DiSCO |"
    )
    print("|---:|---:|---:|---:|---:|---|")
    for rows in a.rows:
        _files(rows)  # generate (and cache) the data outside the timings
        limit = a.memory_limit if rows >= a.limit_from else None
        run: dict[str, Any] = {"rows": rows, "memory_limit": limit}
        for kind in ("summary", "sweep"):
            cmd = [
                sys.executable,
                __file__,
                "--threads",
                str(a.threads),
                "--worker",
                kind,
                str(rows),
            ]
            if limit:
                cmd[2:2] = ["--memory-limit", limit]
            run[kind] = measure(cmd, timeout=a.timeout)
        report["runs"].append(run)
        summary, sweep = run["summary"], run["sweep"]
        same = summary.get("DiSCO_full") == sweep.get("DiSCO_full")
        ratio = sweep["wall"] / summary["wall"]
        print(
            f"| {rows:,} | {summary['wall']:.1f} | {sweep['wall']:.1f} | {ratio:.2f} | "
            f"{sweep['rss_mb']:.0f} | {same} |",
            flush=True,
        )
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
