"""suda() (sdcMicro's suda2) at --rows rows, against sdcMicro, and by the number of keys.

Data: bench_risk.py's (seeded, cached in benchmarks/data/risk_<rows>/): the admin-style
original with 8 keys (sex, age, region, marital, educ, ethnic, t_health, t_tenure); --keys N
takes the first N of them.

Measured in one run, every repetition in a fresh process (imports before the clock; the
worker's seconds, median of --repeat, with the peak RSS of the process):

  suda_out   ds.suda(data.parquet, keys, out=x.parquet): the per-record table streamed
  suda_mem   the same, the per-record table returned (with --sdcmicro: what sdcMicro returns)
  sdcMicro   (--sdcmicro) Rscript sdcmicro_bench.R suda2 on data.csv (DisFraction 0.01): the
             sdcMicro call only (R's proc.time); its numbers are checked against discosql's:
             the sum of the SUDA scores (1e-9), of DIS-SUDA (1e-6: sdcMicro computes it in
             single precision, docs/suda.md) and each key's attribute contribution (1e-9)

--profile adds one in-process suda(out=) timed by stage (template). --by-keys K1 K2 ... runs
suda_out for each number of keys instead (how the time grows with the subsets: 2^K - 1).
Writes benchmarks/results/suda_<rows>[_k<N>].json and prints a table.

    python benchmarks/bench_suda.py --rows 1000000 --sdcmicro --profile
    python benchmarks/bench_suda.py --rows 1000000 --by-keys 4 5 6 7 8
    python benchmarks/bench_suda.py --rows 100000000 --memory-limit 4GB --repeat 1
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_risk import KEYS, data, engine, versions  # type: ignore[import-not-found]
from bench_scale import measure, pyarrow_pandas_import  # type: ignore[import-not-found]

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def numbers(res: Any, records: Any) -> dict[str, Any]:
    """The numbers compared with sdcMicro. A written file is summed by DuckDB as it reads it
    (reading 100M records into Python would make the worker's peak memory, not discosql's)."""
    import duckdb

    if isinstance(records, str):
        sql = "SELECT sum(suda_score), sum(dis_suda_score), count(*) FROM read_parquet($p)"
        row = duckdb.connect().execute(sql, {"p": records}).fetchone()
        assert row is not None
        score, dis, n = row
    else:
        import pyarrow.compute as pc

        score = pc.sum(records["suda_score"]).as_py()
        dis = pc.sum(records["dis_suda_score"]).as_py()
        n = records.num_rows
    return {
        "sum_score": score,
        "sum_disScore": dis,
        "attribute_contributions": {
            r["variable"]: r["contribution"] for r in res.attributes.to_pylist()
        },
        "msu_counts": {r["size"]: r["records"] for r in res.msu_counts.to_pylist()},
        "records": n,
    }


def worker(kind: str, path: str, out: str, a: argparse.Namespace) -> dict[str, Any]:
    import discosql as ds

    result: dict[str, Any] = {"pyarrow_pandas_import_seconds": pyarrow_pandas_import()}
    keys = KEYS[: a.keys]
    t0 = time.perf_counter()
    to = out if kind == "suda_out" else None
    res = ds.suda(path, keys, max_size=a.max_size, engine=engine(a), out=to, overwrite=True)
    result["seconds"] = time.perf_counter() - t0
    result["numbers"] = numbers(res, out if to else res.records)
    return result


def profile(path: str, out: str, a: argparse.Namespace) -> dict[str, Any]:
    """One suda(out=) in this process, its statements timed by stage (template)."""
    import discosql as ds
    from discosql.engines.base import Engine

    pyarrow_pandas_import()
    seconds: dict[str, float] = collections.defaultdict(float)
    count: collections.Counter[str] = collections.Counter()
    guarded = Engine._guarded

    def timed(self: Engine, stage: str, run: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return guarded(self, stage, run)
        finally:
            seconds[stage] += time.perf_counter() - t0
            count[stage] += 1

    Engine._guarded = timed  # type: ignore[method-assign]
    try:
        t0 = time.perf_counter()
        ds.suda(
            path, KEYS[: a.keys], max_size=a.max_size, engine=engine(a), out=out, overwrite=True
        )
        total = time.perf_counter() - t0
    finally:
        Engine._guarded = guarded  # type: ignore[method-assign]
    stages = [
        {"stage": s, "seconds": t, "statements": count[s]}
        for s, t in sorted(seconds.items(), key=lambda x: -x[1])
    ]
    return {"seconds": total, "stages": stages, "unaccounted": total - sum(seconds.values())}


def repeat(kind: str, path: Path, tmp: Path, a: argparse.Namespace, keys: int) -> dict[str, Any]:
    """--repeat fresh processes of the worker ``kind``; median seconds, peak RSS."""
    runs = []
    out = tmp / f"{kind}.parquet"
    for _ in range(a.repeat):
        out.unlink(missing_ok=True)
        cmd = [
            sys.executable,
            __file__,
            "--worker",
            kind,
            str(path),
            str(out),
            "--keys",
            str(keys),
            "--threads",
            str(a.threads),
            "--temp-dir",
            a.temp_dir,
        ]
        cmd += ["--memory-limit", a.memory_limit] if a.memory_limit else []
        cmd += ["--max-size", str(a.max_size)] if a.max_size else []
        try:
            runs.append(measure(cmd, timeout=a.timeout))
        except SystemExit as e:  # recorded (an out-of-memory error, say); the others still run
            error = next((x for x in str(e).splitlines() if "Error" in x), str(e)[-300:])
            print(f"  {kind} ({keys} keys) failed: {error}", flush=True)
            return {"median": None, "runs": [], "failed": error}
        if "timeout" in runs[-1]:
            break
    out.unlink(missing_ok=True)
    secs = [r["seconds"] for r in runs if "seconds" in r]
    r = {
        "median": statistics.median(secs) if secs else None,
        "runs": secs,
        "rss_mb": max(x["rss_mb"] for x in runs),
        "timed_out": any("timeout" in x for x in runs),
    }
    if runs and "numbers" in runs[0]:
        r["numbers"] = runs[0]["numbers"]
    median = math.nan if r["median"] is None else r["median"]
    print(
        f"  {kind} ({keys} keys) {median:8.2f} s median ({len(secs)} runs), "
        f"peak RSS {r['rss_mb']:.0f} MB",
        flush=True,
    )
    return r


def sdcmicro(csv: Path, tmp: Path, a: argparse.Namespace) -> dict[str, Any]:
    """Rscript sdcmicro_bench.R suda2, once (its runs take minutes at 1M rows and more)."""
    out = tmp / "sdc_suda2.json"
    cmd = [
        "Rscript",
        str(HERE / "sdcmicro_bench.R"),
        "suda2",
        str(csv),
        str(out),
        ",".join(KEYS[: a.keys]),
    ]
    try:
        subprocess.run(cmd, check=True, capture_output=True, timeout=a.timeout)
    except subprocess.TimeoutExpired:
        print(f"  sdcMicro suda2: > {a.timeout:.0f} s (stopped)", flush=True)
        return {"timed_out": a.timeout}
    except subprocess.CalledProcessError as e:
        return {"failed": e.stderr.decode()[-500:]}
    r = json.loads(out.read_text())
    print(f"  sdcMicro suda2 {r['seconds']:8.2f} s, peak RSS {r['rss_peak_mb']:.0f} MB", flush=True)
    return {
        "median": r["seconds"],
        "rss_mb": r["rss_peak_mb"],
        "numbers": r["results"],
        "sdcmicro": r["sdcmicro"],
    }


def agree(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    def close(x: float, y: float, rel: float) -> bool:
        return abs(x - y) <= rel * max(abs(x), abs(y), 1e-300)

    attr = theirs.get("attribute_contributions", {})
    return {
        "sum_score": close(ours["sum_score"], theirs["sum_score"], 1e-9),
        "sum_disScore (1e-6)": close(ours["sum_disScore"], theirs["sum_disScore"], 1e-6),
        "attribute_contributions": all(
            close(v, attr[k], 1e-9) for k, v in ours["attribute_contributions"].items()
        ),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--keys", type=int, default=8, help="the first N of the 8 keys")
    p.add_argument("--by-keys", type=int, nargs="+", default=None, metavar="N")
    p.add_argument("--max-size", type=int, default=None)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--memory-limit", default=None)
    p.add_argument("--temp-dir", default=None)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--timeout", type=float, default=3600, help="per process (s)")
    p.add_argument("--sdcmicro", action="store_true")
    p.add_argument("--profile", action="store_true")
    p.add_argument("--worker", nargs=3, metavar=("KIND", "DATA", "OUT"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.worker:
        kind, path, out = a.worker
        print(
            json.dumps(profile(path, out, a) if kind == "profile" else worker(kind, path, out, a))
        )
        return
    spill = tempfile.mkdtemp(prefix="discosql-suda-")
    a.temp_dir = a.temp_dir or spill
    d = data(a.rows, 0.0, csv=a.sdcmicro)
    path = d / "data.parquet"
    info = {
        **versions(),
        "threads": a.threads,
        "memory_limit": a.memory_limit,
        "repeat": a.repeat,
        "max_size": a.max_size,
    }
    print(json.dumps(info), flush=True)
    m: dict[str, Any] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="bench-suda-") as t:
            tmp = Path(t)
            if a.by_keys:
                for k in a.by_keys:
                    m[f"suda_out_k{k}"] = repeat("suda_out", path, tmp, a, k)
            else:
                m["suda_out"] = repeat("suda_out", path, tmp, a, a.keys)
                if a.sdcmicro or a.rows <= 1_000_000:
                    m["suda_mem"] = repeat("suda_mem", path, tmp, a, a.keys)
                if a.sdcmicro:
                    m["sdcmicro_suda2"] = sdcmicro(d / "data.csv", tmp, a)
            if a.profile:
                cmd = [
                    sys.executable,
                    __file__,
                    "--worker",
                    "profile",
                    str(path),
                    str(tmp / "profile.parquet"),
                    "--keys",
                    str(a.keys),
                    "--threads",
                    str(a.threads),
                    "--temp-dir",
                    a.temp_dir,
                ]
                cmd += ["--memory-limit", a.memory_limit] if a.memory_limit else []
                m["profile"] = measure(cmd, timeout=a.timeout)
    finally:
        shutil.rmtree(spill, ignore_errors=True)
    report: dict[str, Any] = {
        "info": info,
        "rows": a.rows,
        "keys": KEYS[: a.keys],
        "measurements": m,
    }
    sdc, ours = m.get("sdcmicro_suda2", {}), m.get("suda_mem", {})
    if sdc.get("median") and ours.get("median"):
        report["speedup (sdcMicro / suda_mem)"] = sdc["median"] / ours["median"]
        report["agrees with sdcMicro"] = agree(ours["numbers"], sdc["numbers"])
    RESULTS.mkdir(exist_ok=True)
    suffix = "_by_keys" if a.by_keys else ("" if a.keys == 8 else f"_k{a.keys}")
    (RESULTS / f"suda_{a.rows}{suffix}.json").write_text(json.dumps(report, indent=1))
    for k, v in m.items():
        if k != "profile":
            print(f"| {k} | {v.get('median')} s | {v.get('rss_mb')} MB |")
    for k in ("speedup (sdcMicro / suda_mem)", "agrees with sdcMicro"):
        if k in report:
            print(f"{k}: {report[k]}")
    if "profile" in m:
        for s in m["profile"]["stages"][:12]:
            print(f"  {s['seconds']:7.2f} s  {s['statements']:3d}  {s['stage']}")


if __name__ == "__main__":
    main()
