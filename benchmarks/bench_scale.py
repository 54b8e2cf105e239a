"""Scale: disclosure_summary over 10 targets against the floor, at 1M, 10M and 100M rows.

For each N (seeded admin-style data from datagen.py, N original + N synthetic rows, cached in
benchmarks/data/), each measurement runs in a fresh process, and wall time and peak RSS (of that
process, from os.wait4) are reported:

  floor     10 x (one ``COUNT(*) ... GROUP BY keys, target`` over the original Parquet file and
            one over the synthetic), DuckDB, same threads, no memory limit
  discosql  ``ds.disclosure_summary(original, synthetic, 6 keys, 10 targets)`` from the Parquet
            files: every measure, check and exclusion table of every target, with
            ``engine=ds.duckdb(threads, memory_limit)`` (--memory-limit applies from
            --limit-from rows on; DuckDB spills to --temp-dir above it)

and the ratio. Also:
  * at --compare-rows (default 1M): the summary's results (records shared by the targets)
    against one disclosure() per target (records read inline), all 10 targets, by digest;
  * with --same-numbers N: discosql at N again without the memory limit, digests compared;
  * GeneralizedCAP at 1M (``ds.categorical_generalized_cap``, t_income);
  * peers at 10k and 100k (--peers-python: a Python with sdmetrics and anonymeter; their
    dependencies clash with discosql's test environment): SDMetrics CategoricalCAP and anonymeter's
    InferenceEvaluator (500 attacks) for t_income, next to discosql's categorical_cap.

Writes benchmarks/results/scale.json (plot_scale.py draws it) and prints Markdown tables.

    python benchmarks/bench_scale.py --rows 1000000 10000000 100000000 --threads 2 \\
        --memory-limit 4GB --limit-from 100000000 --peers-python /path/to/peers/bin/python
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
RESULTS = HERE / "results" / "scale.json"


# --- workers (each runs in its own process) ----------------------------------------------------


def _files(rows: int) -> tuple[str, str]:
    from bench_disclosure import data  # type: ignore[import-not-found]

    d = data(rows)
    return str(d / "original.parquet"), str(d / "synthetic.parquet")


def digest(results: dict[str, Any]) -> str:
    """A digest of every result table of every target (NaN made comparable)."""
    from discosql.core.results import RESULT_TABLES  # the workers import discosql themselves

    h = hashlib.sha256()
    for target in sorted(results):
        r = results[target]
        for name in (t.name for t in RESULT_TABLES):
            rows = [
                {k: "NaN" if isinstance(v, float) and math.isnan(v) else v for k, v in x.items()}
                for x in getattr(r, name).to_pylist()
            ]
            h.update(repr((target, name, rows)).encode())
    return h.hexdigest()[:16]


def pyarrow_pandas_import() -> float:
    """Seconds of pyarrow's import of pandas (where installed), made now. pyarrow makes it at
    its first conversion of Python values, which discosql's result tables make and a floor's
    fetchall() does not: a library import like the others, which the workers make before the
    clock and report apart (0.2 s on the test machine)."""
    t0 = time.perf_counter()
    import pyarrow as pa

    pa.array([0])
    return time.perf_counter() - t0


def worker(kind: str, rows: int, threads: int, memory_limit: str | None, temp: str | None) -> dict:
    from datagen import KEYS, TARGETS  # type: ignore[import-not-found]

    o, s = _files(rows)
    # libraries are imported before the clock starts: the floor imports duckdb, discosql
    # (0.25 s: pyarrow, sqlglot, jinja2) would otherwise pay its import in the ratio
    import duckdb

    import discosql as ds

    out: dict[str, Any] = {"pyarrow_pandas_import_seconds": pyarrow_pandas_import()}
    t0 = time.perf_counter()
    if kind == "floor":
        con = duckdb.connect()
        con.execute(f"SET threads = {threads}")
        for target in TARGETS:
            cols = ", ".join(f'"{c}"' for c in [*KEYS, target])
            for path in (o, s):
                sql = (
                    f"SELECT count(*) FROM (SELECT {cols}, count(*) AS n "
                    f"FROM read_parquet($p) GROUP BY {cols})"
                )
                con.execute(sql, {"p": path}).fetchall()
    elif kind == "summary":
        engine = ds.duckdb(threads=threads, memory_limit=memory_limit, temp_directory=temp)
        summary = ds.disclosure_summary(o, s, KEYS, TARGETS, engine=engine)
        out["digest"] = digest(summary.results)
    elif kind == "separate":
        results = {t: ds.disclosure(o, s, KEYS, t, threads=threads) for t in TARGETS}
        out["digest"] = digest(results)
    elif kind == "gcap":
        out["score"] = ds.categorical_generalized_cap(o, s, KEYS, "t_income", threads=threads).score
    elif kind == "cap":
        out["score"] = ds.categorical_cap(o, s, KEYS, "t_income", threads=threads).score
    else:
        raise SystemExit(f"unknown worker {kind}")
    out["seconds"] = time.perf_counter() - t0
    return out


# --- the parent: one process per measurement ---------------------------------------------------


def measure(cmd: list[str], timeout: float | None = None) -> dict[str, Any]:
    """Run ``cmd``; its JSON output plus wall seconds and peak RSS (MB) of the process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=HERE)
    deadline = None if timeout is None else t0 + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if deadline is not None and time.perf_counter() > deadline:
            proc.kill()
            _, status, usage = os.wait4(proc.pid, 0)
            return {
                "timeout": timeout,
                "wall": time.perf_counter() - t0,
                "rss_mb": usage.ru_maxrss / 1024,
            }
        time.sleep(0.05)
    wall = time.perf_counter() - t0
    out, err = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err.decode()[-3000:]}")
    result = json.loads(out.decode().strip().splitlines()[-1])
    result.update(wall=wall, rss_mb=usage.ru_maxrss / 1024)
    return result


def run_worker(kind: str, rows: int, a: argparse.Namespace, limit: str | None = None) -> dict:
    cmd = [
        sys.executable,
        __file__,
        "--worker",
        kind,
        "--rows",
        str(rows),
        "--threads",
        str(a.threads),
    ]
    if limit:
        cmd += ["--memory-limit", limit, "--temp-dir", a.temp_dir]
    r = measure(cmd)
    print(
        f"  {kind:9} N={rows:>11,}: {r['seconds']:8.2f} s, peak RSS {r['rss_mb']:7.0f} MB"
        + (f", digest {r['digest']}" if "digest" in r else ""),
        flush=True,
    )
    return r


def peers(rows: int, a: argparse.Namespace) -> dict[str, Any]:
    _files(rows)  # generate the data with this Python
    cmd = [a.peers_python, str(HERE / "peers_worker.py"), "--rows", str(rows)]
    out = {}
    for peer in ("sdmetrics_cap", "anonymeter"):
        r = measure([*cmd, "--peer", peer], timeout=a.peer_timeout)
        out[peer] = r
        shown = f">{a.peer_timeout:.0f}" if "timeout" in r else f"{r['seconds']:.2f}"
        print(f"  {peer:13} N={rows:>8,}: {shown} s, peak RSS {r['rss_mb']:.0f} MB", flush=True)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--memory-limit", default=None)
    p.add_argument("--limit-from", type=int, default=100_000_000)
    p.add_argument("--temp-dir", default=None)
    p.add_argument("--compare-rows", type=int, default=1_000_000)
    p.add_argument("--same-numbers", type=int, nargs="*", default=[])
    p.add_argument("--peers-python", default=None)
    p.add_argument("--peer-rows", type=int, nargs="*", default=[10_000, 100_000])
    p.add_argument("--peer-timeout", type=float, default=600)
    p.add_argument("--worker", default=None)
    a = p.parse_args()
    if a.worker:
        print(json.dumps(worker(a.worker, a.rows[0], a.threads, a.memory_limit, a.temp_dir)))
        return
    if a.temp_dir is None:
        a.temp_dir = tempfile.mkdtemp(prefix="discosql-spill-")

    import duckdb

    import discosql as ds

    info = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GB RAM",
        "python": platform.python_version(),
        "duckdb": duckdb.__version__,
        "discosql": ds.__version__,
        "threads": a.threads,
        "memory_limit": a.memory_limit,
        "limit_from": a.limit_from,
    }
    print(json.dumps(info))
    report: dict[str, Any] = {"info": info, "scale": [], "checks": {}, "peers": {}}
    for rows in a.rows:
        limit = a.memory_limit if rows >= a.limit_from else None
        floor = run_worker("floor", rows, a)
        summary = run_worker("summary", rows, a, limit)
        report["scale"].append(
            {
                "rows": rows,
                "floor": floor,
                "discosql": summary,
                "memory_limit": limit,
                "ratio": summary["seconds"] / floor["seconds"],
            }
        )
        if rows == a.compare_rows:
            ref = run_worker("separate", rows, a)
            report["checks"]["separate"] = {
                "rows": rows,
                "summary": summary["digest"],
                "separate": ref["digest"],
                "separate_seconds": ref["seconds"],
                "identical": ref["digest"] == summary["digest"],
            }
        if rows in a.same_numbers and limit:
            free = run_worker("summary", rows, a)
            report["checks"]["memory_limit"] = {
                "rows": rows,
                "limited": summary["digest"],
                "unlimited": free["digest"],
                "unlimited_seconds": free["seconds"],
                "unlimited_rss_mb": free["rss_mb"],
                "identical": free["digest"] == summary["digest"],
            }
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(json.dumps(report, indent=1))
    report["gcap"] = run_worker("gcap", 1_000_000, a)
    if a.peers_python:
        for rows in a.peer_rows:
            report["peers"][str(rows)] = {
                **peers(rows, a),
                "discosql_cap": run_worker("cap", rows, a),
                "discosql_summary": run_worker("summary", rows, a),
            }
    RESULTS.write_text(json.dumps(report, indent=1))
    print_tables(report)


def print_tables(report: dict[str, Any]) -> None:
    print(
        "\n| N (each side) | floor s | discosql s | ratio | floor peak RSS | discosql peak RSS |"
        " memory limit |\n|---|---|---|---|---|---|---|"
    )
    for r in report["scale"]:
        print(
            f"| {r['rows']:,} | {r['floor']['seconds']:.2f} | {r['discosql']['seconds']:.2f} | "
            f"{r['ratio']:.2f} | {r['floor']['rss_mb']:.0f} MB | "
            f"{r['discosql']['rss_mb']:.0f} MB | {r['memory_limit'] or 'none'} |"
        )
    for name, c in report["checks"].items():
        print(f"\n{name}: {json.dumps(c)}")
    g = report.get("gcap")
    if g:
        print(f"\nGeneralizedCAP at 1M: {g['seconds']:.2f} s (score {g['score']:.12f})")
    if report["peers"]:
        print(
            "\n| N | SDMetrics CategoricalCAP s | anonymeter (500 attacks) s | discosql "
            "categorical_cap s | discosql summary, 10 targets s |\n|---|---|---|---|---|"
        )
        for rows, r in report["peers"].items():

            def show(x: dict[str, Any]) -> str:
                return f">{x['timeout']:.0f}" if "timeout" in x else f"{x['seconds']:.2f}"

            print(
                f"| {int(rows):,} | {show(r['sdmetrics_cap'])} | {show(r['anonymeter'])} | "
                f"{show(r['discosql_cap'])} | {show(r['discosql_summary'])} |"
            )


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
