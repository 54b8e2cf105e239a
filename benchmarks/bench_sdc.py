"""sdc() with removal against the time to copy the synthetic Parquet file, at 1M, 10M, 100M rows.

For each N (seeded admin-style data from datagen.py, N original + N synthetic rows, cached in
benchmarks/data/), each measurement runs in a fresh process; wall time and peak RSS (of that
process, from os.wait4) are reported:

  copy      DuckDB ``COPY (SELECT * FROM read_parquet(synthetic)) TO 'x.parquet'``, same threads:
            the floor, as writing the protected file must read and write every record once
  sdc       ``ds.sdc(original, synthetic, keys=6 keys, rm_replicated_uniques=True,
            rm_disclosive={"target": "t_income"}, out='x.parquet')`` with
            ``engine=ds.duckdb(threads, memory_limit)`` (--memory-limit from --limit-from rows)

and the ratio sdc / copy, with the records removed by each step.

    python benchmarks/bench_sdc.py --rows 1000000 10000000 --threads 2 --memory-limit 4GB
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_scale import _files, measure, pyarrow_pandas_import  # type: ignore[import-not-found]

HERE = Path(__file__).parent
RESULTS = HERE / "results" / "sdc.json"


def worker(kind: str, rows: int, threads: int, memory_limit: str | None, out: str) -> dict:
    from datagen import KEYS  # type: ignore[import-not-found]

    o, s = _files(rows)
    result: dict[str, Any] = {"pyarrow_pandas_import_seconds": pyarrow_pandas_import()}
    t0 = time.perf_counter()
    if kind == "copy":
        import duckdb

        con = duckdb.connect()
        con.execute(f"SET threads = {threads}")
        if memory_limit:
            con.execute("SET memory_limit = $m", {"m": memory_limit})
        con.execute(
            "COPY (SELECT * FROM read_parquet($p)) TO $o (FORMAT parquet)", {"p": s, "o": out}
        )
    elif kind == "sdc":
        import discosql as ds

        engine = ds.duckdb(threads=threads, memory_limit=memory_limit)
        res = ds.sdc(
            o,
            s,
            keys=KEYS,
            rm_replicated_uniques=True,
            rm_disclosive={"target": "t_income"},
            out=out,
            overwrite=True,
            engine=engine,
        )
        result["removed"] = {r["reason"]: r["rows"] for r in res.removed.to_pylist()}
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
    parser.add_argument(
        "--worker", nargs=3, metavar=("KIND", "ROWS", "OUT"), help=argparse.SUPPRESS
    )
    a = parser.parse_args()
    if a.worker:
        kind, rows, out = a.worker
        print(json.dumps(worker(kind, int(rows), a.threads, a.memory_limit, out)))
        return
    report: dict[str, Any] = {"threads": a.threads, "memory_limit": a.memory_limit, "runs": []}
    print("| rows | copy s | sdc s | sdc / copy | sdc peak RSS MB | removed |")
    print("|---:|---:|---:|---:|---:|---|")
    for rows in a.rows:
        _files(rows)  # generate (and cache) the data outside the timings
        limit = a.memory_limit if rows >= a.limit_from else None
        run: dict[str, Any] = {"rows": rows, "memory_limit": limit}
        with tempfile.TemporaryDirectory() as tmp:
            for kind in ("copy", "sdc"):
                cmd = [
                    sys.executable,
                    __file__,
                    "--threads",
                    str(a.threads),
                    "--worker",
                    kind,
                    str(rows),
                    str(Path(tmp) / f"{kind}.parquet"),
                ]
                if limit:
                    cmd[2:2] = ["--memory-limit", limit]
                run[kind] = measure(cmd, timeout=a.timeout)
        report["runs"].append(run)
        copy, sdc = run["copy"], run["sdc"]
        ratio = sdc["wall"] / copy["wall"]
        print(
            f"| {rows:,} | {copy['wall']:.1f} | {sdc['wall']:.1f} | {ratio:.2f} | "
            f"{sdc['rss_mb']:.0f} | {sdc.get('removed')} |",
            flush=True,
        )
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
