"""risk() (sdcMicro's measure_risk) against its DuckDB floor and against sdcMicro, at --rows rows.

Data (seeded, cached in benchmarks/data/risk_<rows>[_na]/): the original of datagen.generate
(chunks of datagen.CHUNK rows, as datagen.write), 8 keys (sex, age, region, marital, educ,
ethnic, t_health, t_tenure), a weight w = round(1 + 100 * lognormal(0, 1), 2) and the
sensitive variables t_income and t_religion (5% NA each); with --missing PCT, round(PCT % of
the records) of each chunk get one key, chosen among NA_KEYS, set to NULL (3.6 % is the
risk issue's "3.6 % of records have a missing key"). data.parquet, and data.csv for R when
sdcMicro runs.

Measured in one run, every repetition in a fresh process (imports before the clock; the
worker's seconds, median of --repeat, with the fastest and the peak RSS of the process):

  risk_out      ds.risk(data.parquet, 8 keys, weight="w", out=x.parquet)
  risk_mem      the same without out= (the per-record table returned), at rows <= 1M
                and with --sdcmicro
  floor         DuckDB ``COPY (SELECT row, n, w, 1/n FROM data r JOIN (SELECT keys, count(*) n,
                sum(w) w FROM data GROUP BY keys) c ON keys) TO x.parquet``: 4 columns per
                record, as risk's row, fk, Fk, risk (keys joined IS NOT DISTINCT FROM, so
                records with a missing key count in their own cell: no wildcards)
  floor_sorted  the floor ORDER BY row, as risk writes its records in input order (context)
  ldiversity    (--ldiversity) ds.ldiversity(data, 8 keys, [t_income, t_religion]), in memory
                at rows <= 1M, else out=
  sdcMicro      (--sdcmicro) Rscript sdcmicro_bench.R measure_risk (and ldiversity) on
                data.csv: the sdcMicro call only (R's proc.time); the numbers are checked
                against discosql's in-memory run (global_risk_ER, global_threshold, sum fk,
                sum Fk, sum risk; the l-diversity columns' sums and minima) to 1e-9 relative

Every DuckDB measurement uses the same threads (--threads) and memory limit (--memory-limit,
with a temp directory). ratio = risk_out / floor; speedup = sdcMicro s / discosql s (in
memory: both return the per-record table). --profile adds one in-process risk(out=) run timed
stage by stage (discosql's statements by template, and the Parquet writing of the stream).
Writes benchmarks/results/risk_<rows>[_na].json and prints a table.

    python benchmarks/bench_risk.py --rows 1000000 --sdcmicro --ldiversity
    python benchmarks/bench_risk.py --rows 1000000 --missing 3.6 --sdcmicro
    python benchmarks/bench_risk.py --rows 10000000 --profile
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_scale import measure, pyarrow_pandas_import  # type: ignore[import-not-found]

HERE = Path(__file__).parent
RESULTS = HERE / "results"
KEYS = ["sex", "age", "region", "marital", "educ", "ethnic", "t_health", "t_tenure"]
SENSITIVE = ["t_income", "t_religion"]
NA_KEYS = ["age", "region", "educ"]  # --missing: the key set to NULL is one of these
WEIGHT = "w"
IN_MEMORY_UP_TO = 1_000_000
REL = 1e-9


# --- data ------------------------------------------------------------------------------------


def data_dir(rows: int, missing: float) -> Path:
    return HERE / "data" / f"risk_{rows}{'_na' if missing else ''}"


def data(rows: int, missing: float, seed: int = 1, csv: bool = False) -> Path:
    """The cached Parquet file (and CSV with ``csv``); made only when missing or made with
    another --missing."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    from datagen import CHUNK, generate  # type: ignore[import-not-found]

    d = data_dir(rows, missing)
    meta = {"rows": rows, "missing_pct": missing, "seed": seed, "keys": KEYS, "na_keys": NA_KEYS}
    path = d / "data.parquet"
    stale = not (d / "meta.json").exists() or json.loads((d / "meta.json").read_text()) != meta
    if stale or not path.exists():
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        t0 = time.perf_counter()
        writer = None
        for i, start in enumerate(range(0, rows, CHUNK)):
            n = min(CHUNK, rows - start)
            chunk_seed = seed if rows <= CHUNK else np.random.SeedSequence([seed, i])
            table = generate(n, chunk_seed)[0].select([*KEYS, *SENSITIVE])
            rng = np.random.default_rng(np.random.SeedSequence([seed, 2026, i]))
            w = np.round(1 + 100 * rng.lognormal(0.0, 1.0, n), 2)
            table = table.append_column(WEIGHT, pa.array(w, pa.float64()))
            if missing:
                hit = rng.choice(n, size=round(n * missing / 100), replace=False)
                which = rng.integers(0, len(NA_KEYS), hit.size)
                for j, key in enumerate(NA_KEYS):
                    mask = np.zeros(n, dtype=bool)
                    mask[hit[which == j]] = True
                    col = table.column(key)
                    nulled = pc.if_else(pa.array(mask), pa.scalar(None, col.type), col)
                    table = table.set_column(table.schema.get_field_index(key), key, nulled)
            if writer is None:
                writer = pq.ParquetWriter(d / "data.parquet.tmp", table.schema)
            writer.write_table(table, row_group_size=1_000_000)
        if writer is not None:
            writer.close()
        (d / "data.parquet.tmp").replace(path)
        (d / "meta.json").write_text(json.dumps(meta))
        print(f"generated {path} in {time.perf_counter() - t0:.1f} s", flush=True)
    if csv and not (d / "data.csv").exists():
        import duckdb

        con = duckdb.connect()
        con.execute(
            "COPY (SELECT * FROM read_parquet($p)) TO $o (FORMAT csv, HEADER)",
            {"p": str(path), "o": str(d / "data.csv.tmp")},
        )
        (d / "data.csv.tmp").replace(d / "data.csv")
    return d


# --- workers (each in a fresh process) -------------------------------------------------------


def floor_sql(path: str, out: str, sort: bool) -> tuple[str, dict[str, Any]]:
    cols = ", ".join(f'"{k}"' for k in KEYS)
    on = " AND ".join(f'r."{k}" IS NOT DISTINCT FROM c."{k}"' for k in KEYS)
    sql = (
        f"COPY (SELECT r.row, c.n, c.w, 1.0 / c.n AS risk FROM "
        f"(SELECT file_row_number + 1 AS row, {cols} "
        f"FROM read_parquet($p, file_row_number = true)) r "
        f'JOIN (SELECT {cols}, count(*) AS n, sum("{WEIGHT}") AS w FROM read_parquet($p) '
        f"GROUP BY {cols}) c ON {on}{' ORDER BY r.row' if sort else ''}) "
        f"TO $o (FORMAT parquet)"
    )
    return sql, {"p": path, "o": out}


def engine(a: argparse.Namespace) -> Any:
    import discosql as ds

    return ds.duckdb(
        threads=a.threads,
        memory_limit=a.memory_limit,
        temp_directory=a.temp_dir if a.memory_limit else None,
    )


def _table(records: Any) -> Any:
    """The per-record table: returned, or read back from the written file (with pyarrow:
    DuckDB's identifiers ignore case, and the file has fk and Fk)."""
    import pyarrow.parquet as pq

    return pq.read_table(records) if isinstance(records, str) else records


def risk_numbers(res: Any, records: Any) -> dict[str, Any]:
    """The numbers compared with sdcMicro: summary values, sums over the per-record table (a
    written file summed by DuckDB as it reads it: read into Python, 100M records would make
    the worker's peak memory, not discosql's)."""
    import duckdb
    import pyarrow.compute as pc

    out = {m: res.value(m) for m in ("global_risk_ER", "global_threshold", "n1", "n2")}
    if isinstance(records, str):
        # by position: the file has fk and Fk, which DuckDB's names do not tell apart
        sql = "SELECT sum(#2), sum(#3), sum(#4), count(*) FROM read_parquet($p)"
        row = duckdb.connect().execute(sql, {"p": records}).fetchone()
        assert row is not None
        out.update(zip(("sum_fk", "sum_Fk", "sum_risk", "records"), row, strict=True))
    else:
        out.update({f"sum_{c}": pc.sum(records[c]).as_py() for c in ("fk", "Fk", "risk")})
        out["records"] = records.num_rows
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in out.items()}


def ldiversity_numbers(records: Any) -> dict[str, Any]:
    import pyarrow.compute as pc

    t = _table(records)
    return {
        c: {"sum": pc.sum(t[c]).as_py(), "min": pc.min(t[c]).as_py()}
        for c in t.column_names
        if c != "row"
    }


def worker(kind: str, path: str, out: str, a: argparse.Namespace) -> dict[str, Any]:
    import duckdb

    import discosql as ds

    result: dict[str, Any] = {"pyarrow_pandas_import_seconds": pyarrow_pandas_import()}
    t0 = time.perf_counter()
    if kind in ("floor", "floor_sorted"):
        con = duckdb.connect()
        con.execute(f"SET threads = {a.threads}")
        if a.memory_limit:
            con.execute("SET memory_limit = $m", {"m": a.memory_limit})
            con.execute("SET temp_directory = $t", {"t": a.temp_dir})
        con.execute(*floor_sql(path, out, kind == "floor_sorted"))
        result["seconds"] = time.perf_counter() - t0
    elif kind in ("risk_out", "risk_mem"):
        to = out if kind == "risk_out" else None
        res = ds.risk(path, KEYS, weight=WEIGHT, engine=engine(a), out=to, overwrite=True)
        result["seconds"] = time.perf_counter() - t0
        result["numbers"] = risk_numbers(res, out if to else res.records)
    elif kind in ("ldiv_out", "ldiv_mem"):
        to = out if kind == "ldiv_out" else None
        res = ds.ldiversity(path, KEYS, SENSITIVE, engine=engine(a), out=to, overwrite=True)
        result["seconds"] = time.perf_counter() - t0
        result["numbers"] = ldiversity_numbers(out if to else res.records)
    else:
        raise SystemExit(f"unknown worker {kind}")
    return result


def profile(path: str, out: str, a: argparse.Namespace) -> dict[str, Any]:
    """One risk(out=) in this process, its statements timed by stage (template) and the
    writing of the per-record stream (which runs the per_record query batch by batch)."""
    import importlib

    import discosql as ds
    from discosql.engines.base import Engine

    # discosql.risk is also the function: the module by its name
    individual = importlib.import_module("discosql.risk.individual")

    pyarrow_pandas_import()
    seconds: dict[str, float] = collections.defaultdict(float)
    count: collections.Counter[str] = collections.Counter()
    guarded, write_stream = Engine._guarded, individual.write_stream

    def timed(self: Engine, stage: str, run: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return guarded(self, stage, run)
        finally:
            seconds[stage] += time.perf_counter() - t0
            count[stage] += 1

    def timed_write(reader: Any, file: str) -> int:
        t0 = time.perf_counter()
        try:
            return write_stream(reader, file)
        finally:
            seconds["per_record stream -> Parquet (write_stream)"] += time.perf_counter() - t0
            count["per_record stream -> Parquet (write_stream)"] += 1

    Engine._guarded, individual.write_stream = timed, timed_write  # type: ignore[method-assign]
    try:
        t0 = time.perf_counter()
        ds.risk(path, KEYS, weight=WEIGHT, engine=engine(a), out=out, overwrite=True)
        total = time.perf_counter() - t0
    finally:
        Engine._guarded, individual.write_stream = guarded, write_stream  # type: ignore[method-assign]
    stages = [
        {"stage": s, "seconds": t, "statements": count[s]}
        for s, t in sorted(seconds.items(), key=lambda x: -x[1])
    ]
    return {"seconds": total, "stages": stages, "unaccounted": total - sum(seconds.values())}


# --- the parent ------------------------------------------------------------------------------


def repeat(kind: str, path: Path, tmp: Path, a: argparse.Namespace) -> dict[str, Any]:
    """--repeat fresh processes of the worker ``kind``; median and fastest seconds."""
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
            "--threads",
            str(a.threads),
            "--temp-dir",
            a.temp_dir,
        ]
        if a.memory_limit:
            cmd += ["--memory-limit", a.memory_limit]
        try:
            runs.append(measure(cmd, timeout=a.timeout))
        except SystemExit as e:  # recorded (an out-of-memory error, say), the others still run
            error = next((x for x in str(e).splitlines() if "Error" in x), str(e)[-300:])
            print(f"  {kind:13} failed: {error}", flush=True)
            return {"median": None, "fastest": None, "runs": [], "failed": error}
        if "timeout" in runs[-1]:
            break
    out.unlink(missing_ok=True)
    secs = [r["seconds"] for r in runs if "seconds" in r]
    r = {
        "median": statistics.median(secs) if secs else None,
        "fastest": min(secs, default=None),
        "runs": secs,
        "rss_mb": max(x["rss_mb"] for x in runs),
        "timed_out": any("timeout" in x for x in runs),
    }
    if runs and "numbers" in runs[0]:
        r["numbers"] = runs[0]["numbers"]
    median = float("nan") if r["median"] is None else r["median"]
    print(
        f"  {kind:13} {median:8.2f} s median (fastest {r['fastest'] or 0:.2f}, "
        f"{len(secs)} runs), peak RSS {r['rss_mb']:.0f} MB",
        flush=True,
    )
    return r


def sdcmicro(fn: str, csv: Path, tmp: Path, a: argparse.Namespace) -> dict[str, Any]:
    """Rscript sdcmicro_bench.R: --repeat runs (one when the first takes > --sdc-once s)."""
    args = (
        [",".join(KEYS), WEIGHT]
        if fn == "measure_risk"
        else [",".join(KEYS), "-", ",".join(SENSITIVE)]
    )
    runs: list[dict[str, Any]] = []
    for _ in range(a.repeat):
        out = tmp / f"sdc_{fn}.json"
        cmd = ["Rscript", str(HERE / "sdcmicro_bench.R"), fn, str(csv), str(out), *args]
        t0 = time.perf_counter()
        try:
            subprocess.run(cmd, check=True, capture_output=True, timeout=a.timeout)
        except subprocess.TimeoutExpired:
            print(f"  sdcMicro {fn}: > {a.timeout:.0f} s (stopped)", flush=True)
            return {"timed_out": a.timeout, "runs": [r["seconds"] for r in runs]}
        except subprocess.CalledProcessError as e:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{e.stderr.decode()[-3000:]}") from e
        r = json.loads(out.read_text())
        r["process_wall"] = time.perf_counter() - t0
        runs.append(r)
        if r["seconds"] > a.sdc_once:
            break
    secs = [r["seconds"] for r in runs]
    res = {
        "median": statistics.median(secs),
        "fastest": min(secs),
        "runs": secs,
        "rss_mb": max(r["rss_peak_mb"] for r in runs),
        "r_heap_peak_mb": max(r["r_heap_peak_mb"] for r in runs),
        "process_wall": [r["process_wall"] for r in runs],
        "numbers": runs[0]["results"],
        "sdcmicro": runs[0]["sdcmicro"],
    }
    print(
        f"  sdcMicro {fn:13} {res['median']:8.2f} s median ({len(secs)} runs), "
        f"peak RSS {res['rss_mb']:.0f} MB",
        flush=True,
    )
    return res


def close(x: Any, y: Any) -> bool:
    nan = (
        x is None or (isinstance(x, float) and math.isnan(x)),
        y is None or (isinstance(y, float) and math.isnan(y)),
    )
    if any(nan):
        return all(nan)
    return abs(x - y) <= REL * max(abs(x), abs(y), 1e-300) or x == y


def check_risk(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name in ("global_risk_ER", "global_threshold", "sum_fk", "sum_Fk", "sum_risk"):
        a, b = ours[name], theirs.get(name)
        out[name] = {"discosql": a, "sdcMicro": b, "agree": close(a, b)}
    out["all_agree"] = all(v["agree"] for v in out.values())
    return out


def check_ldiversity(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    """The per-variable columns (sdcMicro's Multi columns are always 0: a known difference)."""
    out: dict[str, Any] = {}
    for col, v in theirs.items():
        if col.startswith("Multi") or col not in ours:
            continue
        for stat in ("sum", "min"):
            a, b = ours[col][stat], v[stat]
            out[f"{col}.{stat}"] = {"discosql": a, "sdcMicro": b, "agree": close(a, b)}
    out["all_agree"] = bool(out) and all(v["agree"] for v in out.values())
    return out


def versions() -> dict[str, Any]:
    import duckdb
    import numpy
    import pyarrow

    import discosql as ds

    return {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "machine": platform.machine(),
        "cores": os.cpu_count(),
        "ram_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30),
        "python": platform.python_version(),
        "duckdb": duckdb.__version__,
        "pyarrow": pyarrow.__version__,
        "numpy": numpy.__version__,
        "discosql": ds.__version__,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--missing", type=float, default=0.0, metavar="PCT")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--memory-limit", default=None)
    p.add_argument("--temp-dir", default=None)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--timeout", type=float, default=1200, help="per process (s)")
    p.add_argument(
        "--sdc-once",
        type=float,
        default=120,
        help="sdcMicro runs once when its first run takes longer (s)",
    )
    p.add_argument("--ldiversity", action="store_true")
    p.add_argument("--sdcmicro", action="store_true")
    p.add_argument("--profile", action="store_true")
    p.add_argument("--worker", nargs=3, metavar=("KIND", "DATA", "OUT"), help=argparse.SUPPRESS)
    p.add_argument("--prepare", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.prepare:  # in a process of its own: a child's peak RSS includes its parent's at fork
        d = data(a.rows, a.missing, a.seed, csv=a.sdcmicro)
        print(json.dumps({"dir": str(d), "versions": versions()}))
        return
    if a.worker:
        kind, path, out = a.worker
        run = profile(path, out, a) if kind == "profile" else worker(kind, path, out, a)
        print(json.dumps(run))
        return
    if not 0 <= a.missing < 100:
        raise SystemExit("--missing: a percentage in [0, 100)")
    spill = tempfile.mkdtemp(prefix="discosql-risk-")
    a.temp_dir = a.temp_dir or spill
    cmd = [
        sys.executable,
        __file__,
        "--prepare",
        "--rows",
        str(a.rows),
        "--missing",
        str(a.missing),
        "--seed",
        str(a.seed),
    ]
    if a.sdcmicro:
        cmd.append("--sdcmicro")
    prepared = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=HERE)
    *said, last = prepared.stdout.strip().splitlines()
    if said:  # "generated ..."
        print(*said, sep="\n", flush=True)
    prepared_info = json.loads(last)
    d = Path(prepared_info["dir"])
    path = d / "data.parquet"
    info = {
        **prepared_info["versions"],
        "threads": a.threads,
        "memory_limit": a.memory_limit,
        "repeat": a.repeat,
    }
    print(json.dumps(info), flush=True)
    report: dict[str, Any] = {
        "info": info,
        "rows": a.rows,
        "missing_pct": a.missing,
        "keys": KEYS,
        "na_keys": NA_KEYS if a.missing else [],
        "weight": WEIGHT,
        "seconds": {},
        "rss_mb": {},
    }
    m: dict[str, dict[str, Any]] = {}
    name = f"risk_{a.rows}{'_na' if a.missing else ''}.json"
    try:
        with tempfile.TemporaryDirectory(prefix="bench-risk-") as t:
            tmp = Path(t)
            m["floor"] = repeat("floor", path, tmp, a)
            m["floor_sorted"] = repeat("floor_sorted", path, tmp, a)
            m["risk_out"] = repeat("risk_out", path, tmp, a)
            in_memory = a.rows <= IN_MEMORY_UP_TO
            if in_memory or a.sdcmicro:
                m["risk_mem"] = repeat("risk_mem", path, tmp, a)
            if a.ldiversity:
                kind = "ldiv_mem" if in_memory else "ldiv_out"
                m[kind] = repeat(kind, path, tmp, a)
            if a.sdcmicro:
                m["sdcmicro_measure_risk"] = sdcmicro("measure_risk", d / "data.csv", tmp, a)
                if a.ldiversity:
                    m["sdcmicro_ldiversity"] = sdcmicro("ldiversity", d / "data.csv", tmp, a)
            if a.profile:
                cmd = [
                    sys.executable,
                    __file__,
                    "--worker",
                    "profile",
                    str(path),
                    str(tmp / "profile.parquet"),
                    "--threads",
                    str(a.threads),
                    "--temp-dir",
                    a.temp_dir,
                ]
                if a.memory_limit:
                    cmd += ["--memory-limit", a.memory_limit]
                report["profile"] = measure(cmd, timeout=a.timeout)
    finally:
        shutil.rmtree(spill, ignore_errors=True)
    report["measurements"] = m
    report["seconds"] = {k: v.get("median") for k, v in m.items()}
    report["rss_mb"] = {k: v.get("rss_mb") for k, v in m.items()}
    report["failed"] = {k: v["failed"] for k, v in m.items() if "failed" in v}
    s = report["seconds"]
    ratios: dict[str, Any] = {}
    if s.get("floor") and s.get("risk_out"):
        ratios["risk_out / floor"] = s["risk_out"] / s["floor"]
        if s.get("floor_sorted"):
            ratios["risk_out / floor_sorted"] = s["risk_out"] / s["floor_sorted"]
    if s.get("floor") and s.get("risk_mem"):
        ratios["risk_mem / floor"] = s["risk_mem"] / s["floor"]
    checks: dict[str, Any] = {}
    if "sdcmicro_measure_risk" in m and s.get("sdcmicro_measure_risk"):
        report["info"]["sdcmicro"] = m["sdcmicro_measure_risk"]["sdcmicro"]
        ratios["speedup measure_risk (sdcMicro / risk_mem)"] = (
            s["sdcmicro_measure_risk"] / s["risk_mem"]
        )
        checks["measure_risk"] = check_risk(
            m["risk_mem"]["numbers"], m["sdcmicro_measure_risk"]["numbers"]
        )
    ldiv = s.get("ldiv_mem") or s.get("ldiv_out")
    if "sdcmicro_ldiversity" in m and s.get("sdcmicro_ldiversity") and ldiv:
        ratios["speedup ldiversity (sdcMicro / ldiversity)"] = s["sdcmicro_ldiversity"] / ldiv
        ours = (m.get("ldiv_mem") or m["ldiv_out"])["numbers"]
        checks["ldiversity"] = check_ldiversity(ours, m["sdcmicro_ldiversity"]["numbers"])
    report["ratios"] = ratios
    report["checks"] = checks
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / name).write_text(json.dumps(report, indent=1))
    print_table(report)


def print_table(report: dict[str, Any]) -> None:
    pct = report["missing_pct"]
    na = f", {pct:g} % of records with a missing key" if pct else ""
    print(
        f"\nrows {report['rows']:,}{na}; 8 keys, weight w; threads {report['info']['threads']}, "
        f"memory limit {report['info']['memory_limit'] or 'none'}"
    )
    print("| measurement | median s | fastest s | runs | peak RSS MB |\n|---|---:|---:|---:|---:|")
    for k, v in report["measurements"].items():
        if v.get("median") is None:
            print(f"| {k} | {'failed: ' + v['failed'] if 'failed' in v else 'timed out'} | | | |")
            continue
        print(
            f"| {k} | {v['median']:.2f} | {v['fastest']:.2f} | {len(v['runs'])} | "
            f"{v['rss_mb']:.0f} |"
        )
    for k, v in report["ratios"].items():
        print(f"{k}: {v:.2f}")
    for k, c in report["checks"].items():
        bad = [n for n, x in c.items() if n != "all_agree" and not x["agree"]]
        differ = f" (differ: {bad})" if bad else ""
        print(f"{k} agrees with sdcMicro to {REL:g}: {c['all_agree']}{differ}")
    if "profile" in report:
        pr = report["profile"]
        print(f"\nprofile of one risk(out=) in process: {pr['seconds']:.2f} s")
        for st in pr["stages"]:
            print(f"{st['seconds']:8.2f} s  {st['statements']:3d}  {st['stage']}")
        print(f"{pr['unaccounted']:8.2f} s       Python, rendering, reading the input's schema")


if __name__ == "__main__":
    main()
