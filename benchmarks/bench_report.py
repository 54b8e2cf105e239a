"""The release report against `discosql summary` on the same files (UCI Adult, as CSV and as
Parquet), and its printed length.

Two seeded stand-in syntheses of Adult are made by resampling its records and redrawing each
non-key value from another record with probability 0.5 (enough structure for every section to
have work; not a real synthesiser). Each command runs in a fresh process, ``--repeat`` times;
the ratio is report / summary on the same files (the issue's budget: at most 2 without sweep
and sdc). With ``--pdf``, each report is printed to A4 by the system's Chromium and its pages
counted (with --sweep --sdc replicated; the browser test holds a 5,000-record Adult fixture
to at most 22 pages internal and 14 external, every per-target table printed).

    python benchmarks/bench_report.py --adult ../shared/data/adult.csv --pdf
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

KEYS = ["age", "occupation", "race", "sex"]
GROUPED = "fnlwgt=20"


def syntheses(original: pa.Table, m: int, seed: int) -> list[pa.Table]:
    """m stand-in syntheses: resampled records, each non-key value redrawn with p = 0.5."""
    rng = np.random.default_rng(seed)
    n = original.num_rows
    out = []
    for _ in range(m):
        rows = original.take(pa.array(rng.integers(0, n, n)))
        columns = []
        for name in rows.column_names:
            col = rows.column(name)
            if name not in KEYS:
                other = original.column(name).take(pa.array(rng.integers(0, n, n)))
                keep = pa.array(rng.random(n) < 0.5)
                col = pa.compute.if_else(keep, col, other)
            columns.append(col)
        out.append(pa.table(columns, names=rows.column_names))
    return out


def files(adult: Path, work: Path, m: int, seed: int) -> dict[str, list[str]]:
    """{format: [original, syn_1, ...]} written under ``work``."""
    original = pacsv.read_csv(adult)
    tables = [original, *syntheses(original, m, seed)]
    names = ["original", *(f"syn_{j}" for j in range(1, m + 1))]
    out: dict[str, list[str]] = {"csv": [], "parquet": []}
    for name, table in zip(names, tables, strict=True):
        pacsv.write_csv(table, work / f"{name}.csv")
        pq.write_table(table, work / f"{name}.parquet")
        out["csv"].append(str(work / f"{name}.csv"))
        out["parquet"].append(str(work / f"{name}.parquet"))
    return out


def timed(argv: list[str], repeat: int) -> float:
    """The median wall time of ``discosql argv`` in a fresh process."""
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "discosql", *argv],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if done.returncode:
            raise SystemExit(f"discosql {' '.join(argv)} failed:\n{done.stderr[-2000:]}")
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def pages(html: Path) -> int:
    """Pages of ``html`` printed to A4 by the system's Chromium."""
    from pypdf import PdfReader

    pdf = html.with_suffix(".pdf")
    chromium = shutil.which("chromium") or "chromium"
    subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-pdf-header-footer",
            f"--print-to-pdf={pdf}",
            html.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return len(PdfReader(str(pdf)).pages)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--adult", type=Path, required=True, help="UCI Adult as CSV")
    ap.add_argument("--m", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--pdf", action="store_true", help="count printed pages (Chromium)")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "report.json")
    args = ap.parse_args()
    results: dict[str, object] = {"keys": KEYS, "m": args.m, "repeat": args.repeat}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        data = files(args.adult, work, args.m, args.seed)
        common = ["--keys", ",".join(KEYS), "--ngroups-targets", GROUPED, "--threads", "2"]
        for fmt, paths in data.items():
            summary = timed(["summary", *paths, *common], args.repeat)
            report = timed(
                ["report", *paths, *common, "--out", str(work / "r.html"), "--overwrite"],
                args.repeat,
            )
            results[fmt] = {"summary_s": summary, "report_s": report, "ratio": report / summary}
            print(
                f"{fmt}: summary {summary:.2f} s, report {report:.2f} s, "
                f"ratio {report / summary:.2f}",
                flush=True,
            )
        full = ["report", *data["parquet"], *common, "--sweep", "--sdc", "replicated"]
        for mode in ("internal", "external"):
            html = work / f"{mode}.html"
            seconds = timed([*full, "--mode", mode, "--out", str(html)], 1)
            entry: dict[str, object] = {"seconds": seconds}
            if args.pdf:
                entry["pages"] = pages(html)
            results[f"full_{mode}"] = entry
            print(f"report --sweep --sdc replicated --mode {mode}: {entry}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
