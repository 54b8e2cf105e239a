"""The distance family, timed: exact DCR with a control and membership inference, on seeded
mixed data, against the plain-query floor on the same engine and SDMetrics 0.32 side by side.

    python benchmarks/bench_distance.py --rows 10000 100000 1000000 --sdmetrics 5000 \
        --syntheval 5000 100000

Data (``make_data``, DuckDB's seeded random()): N original, N synthetic and N holdout
records of 4 categorical columns (2, 400, 8 and 50 levels) and 2 numeric ones (age 0-89, an
income of two decimals up to 51,770); the synthesis is 60 % copies of original records with
each value redrawn at 20 %, and 40 % fresh draws. Each measurement runs in a fresh process
(its peak RSS is its own), DuckDB with 2 threads and memory_limit 4GB:

  dcr          ds.dcr(original, synthetic, control=holdout): every synthetic record's exact
               DCR to both, and the summary
  membership   ds.membership(original, synthetic, holdout): 2N candidates' exact DCR to the
               synthesis, AUC and TPR at FPR
  floor        the one query every exact answer needs at least: each synthetic record joined
               to the original records equal on the 4 categorical columns, the smallest
               distance among them (it is not the DCR: records with no such block get none)
  sdmetrics    DCROverfittingProtection.compute_breakdown(original, synthetic, holdout) at
               the sizes given with --sdmetrics (its chunked cross merge), beside ds.dcr on
               the same files, the two scores compared
  mdcr         ds.dcr(original, synthetic, syntheval=True) at the sizes of --syntheval:
               SynthEval's mDCR and NNDR too (three more exact searches)
  syntheval    SynthEval 1.7's own dcr and nndr metrics (its full N x N distance matrices) on
               the same files, at the --syntheval sizes up to 20,000 rows

Each run appends JSON lines to benchmarks/results/distance.jsonl and prints a table.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "distance.jsonl"
DATA = Path("/tmp/discosql-bench-distance")
CATEGORIES = (("c1", 2), ("c2", 400), ("c3", 8), ("c4", 50))
LIMIT = "4GB"


def make_data(n: int) -> dict[str, str]:
    """The three Parquet files of size n (made once, kept under DATA)."""
    import duckdb

    DATA.mkdir(exist_ok=True)
    paths = {k: str(DATA / f"{k}_{n}.parquet") for k in ("original", "synthetic", "holdout")}
    if all(Path(p).exists() for p in paths.values()):
        return paths
    con = duckdb.connect()

    def fresh(rows: str) -> str:
        cats = ", ".join(f"(random() * {k})::int::varchar AS {c}" for c, k in CATEGORIES)
        return (
            f"SELECT {cats}, (random() * 90)::int AS age, round(random() * 51770, 2) AS "
            f"income FROM range({rows})"
        )

    for name, seed in (("original", 0.1), ("holdout", 0.2)):
        con.execute(f"SELECT setseed({seed})")
        con.execute(f"CREATE TABLE {name} AS {fresh(str(n))}")
    con.execute("SELECT setseed(0.3)")
    redraw = ", ".join(
        f"CASE WHEN random() < 0.2 THEN (random() * {k})::int::varchar ELSE {c} END AS {c}"
        for c, k in CATEGORIES
    )
    copies = int(n * 0.6)
    con.execute(
        f"CREATE TABLE synthetic AS SELECT {redraw}, "
        "CASE WHEN random() < 0.2 THEN (random() * 90)::int ELSE age END AS age, "
        "CASE WHEN random() < 0.2 THEN round(random() * 51770, 2) ELSE income END AS income "
        f"FROM (SELECT * FROM original USING SAMPLE {copies} ROWS (reservoir, 7)) "
        f"UNION ALL {fresh(str(n - copies))}"
    )
    for name, path in paths.items():
        con.execute(f"COPY {name} TO '{path}' (FORMAT parquet)")
    return paths


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


FLOOR = """
WITH o AS (SELECT *, max(age) OVER () - min(age) OVER () AS ra,
                  max(income) OVER () - min(income) OVER () AS ri FROM read_parquet($o)),
     s AS (SELECT row_number() OVER () AS rid, * FROM read_parquet($s))
SELECT count(*), sum(d) FROM (
    SELECT s.rid, min((least(abs(o.age - s.age) / o.ra, 1) + least(abs(o.income - s.income)
        / o.ri, 1)) / 6.0) AS d
    FROM s JOIN o USING (c1, c2, c3, c4) GROUP BY s.rid)
"""


def worker(what: str, n: int) -> dict[str, Any]:
    """One measurement in this process."""
    import discosql as ds

    paths = make_data(n)
    engine = ds.duckdb(threads=2, memory_limit=LIMIT)
    start = time.perf_counter()
    out: dict[str, Any] = {}
    if what == "dcr":
        res = ds.dcr(paths["original"], paths["synthetic"], control=paths["holdout"], engine=engine)
        out = {m: res.value(m) for m in ("median_dcr", "DCROverfittingProtection", "dcr_share")}
    elif what == "membership":
        res_m = ds.membership(
            paths["original"], paths["synthetic"], paths["holdout"], engine=engine
        )
        out = {m: res_m.value(m) for m in ("auc", "tpr_at_fpr_0.01", "members_copied")}
    elif what == "mdcr":
        res = ds.dcr(paths["original"], paths["synthetic"], engine=engine, syntheval=True)
        out = {m: res.value(m) for m in ("median_dcr", "mDCR", "syntheval_nndr")}
    elif what == "syntheval":
        import warnings

        import pandas as pd
        from syntheval import SynthEval

        real, syn = (pd.read_parquet(paths[k]) for k in ("original", "synthetic"))
        start = time.perf_counter()
        ev = SynthEval(
            real,
            cat_cols=[c for c, _ in CATEGORIES],
            verbose=False,
            console="off",
            enable_plots=False,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev.evaluate(syn[real.columns], dcr={}, nndr={})
        got = ev._raw_results
        out = {"mDCR": got["dcr"]["mDCR"], "syntheval_nndr": got["nndr"]["avg"]}
    elif what == "floor":
        import duckdb

        con = duckdb.connect()
        con.execute("SET threads = 2")
        con.execute(f"SET memory_limit = '{LIMIT}'")
        con.execute(FLOOR, {"o": paths["original"], "s": paths["synthetic"]}).fetchall()
    elif what == "sdmetrics":
        import warnings

        import pandas as pd
        from sdmetrics.single_table import DCROverfittingProtection

        frames = {k: pd.read_parquet(p) for k, p in paths.items()}
        meta = {
            "columns": {
                **{c: {"sdtype": "categorical"} for c, _ in CATEGORIES},
                "age": {"sdtype": "numerical"},
                "income": {"sdtype": "numerical"},
            }
        }
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            b = DCROverfittingProtection.compute_breakdown(
                frames["original"], frames["synthetic"], frames["holdout"], meta, None
            )
        out = {"DCROverfittingProtection": b["score"]}
    seconds = time.perf_counter() - start
    return {
        "what": what,
        "rows": n,
        "seconds": round(seconds, 3),
        "peak_mb": round(peak_mb()),
        **out,
    }


def run(what: str, n: int, timeout: float) -> dict[str, Any]:
    """``worker`` in a fresh process, with a time limit."""
    cmd = [sys.executable, __file__, "_worker", what, str(n)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return {"what": what, "rows": n, "seconds": None, "note": f"over {timeout:.0f} s"}
    except subprocess.CalledProcessError as e:
        return {"what": what, "rows": n, "seconds": None, "note": e.stderr.strip()[-300:]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_worker":
        print(json.dumps(worker(sys.argv[2], int(sys.argv[3]))))
        return
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    p.add_argument("--sdmetrics", type=int, nargs="*", default=[5_000])
    p.add_argument("--syntheval", type=int, nargs="*", default=[5_000])
    p.add_argument("--timeout", type=float, default=1800)
    a = p.parse_args()
    rows = []
    for n in a.sdmetrics:
        make_data(n)
        ours, theirs = run("dcr", n, a.timeout), run("sdmetrics", n, a.timeout)
        rows += [ours, theirs]
    for n in a.syntheval:
        make_data(n)
        rows.append(run("mdcr", n, a.timeout))
        if n <= 20_000:  # SynthEval's matrices: 8 n^2 bytes each
            rows.append(run("syntheval", n, a.timeout))
    for n in a.rows:
        make_data(n)
        rows += [run(w, n, a.timeout) for w in ("floor", "dcr", "membership")]
    RESULTS.parent.mkdir(exist_ok=True)
    with RESULTS.open("a") as f:
        for r in rows:
            f.write(json.dumps({"date": time.strftime("%Y-%m-%d"), **r}) + "\n")
    print("| N each | measurement | seconds | peak RSS MB | numbers |")
    print("|---|---|---|---|---|")
    for r in rows:
        extra = {k: v for k, v in r.items() if k not in ("what", "rows", "seconds", "peak_mb")}
        print(f"| {r['rows']:,} | {r['what']} | {r['seconds']} | {r.get('peak_mb')} | {extra} |")


if __name__ == "__main__":
    main()
