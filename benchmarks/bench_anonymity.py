"""The three tests of anonymisation, timed: discosql's exact singling out, linkability and
exact matches, side by side with anonymeter 1.1's sampled attacks on Adult, and on
benchmarks/datagen.py's data at 1M to 100M rows and with more and more columns.

    # Adult, 15 columns as categories, n_cols=3 (455 combinations) against anonymeter's
    # n_attacks=2000; in an environment with both (.ci/anonymeter's .venv-anonymeter):
    python benchmarks/bench_anonymity.py adult --adult path/to/adult.csv
    # Adult with its numeric columns as numbers: singling out's half-lines, linkability and
    # inference under anonymeter's Gower distance, against anonymeter's default attacks
    python benchmarks/bench_anonymity.py adult-numeric --adult path/to/adult.csv
    # 1M and 10M rows of 8 columns; 100M under memory_limit="4GB"
    python benchmarks/bench_anonymity.py scale --rows 1000000 10000000
    python benchmarks/bench_anonymity.py scale --rows 100000000 --memory-limit 4GB \
        --only singling_out
    # how the time grows with the number of columns (1M rows)
    python benchmarks/bench_anonymity.py columns --rows 1000000 --cols 4 6 8 10 12
    # with continuous numbers: two more columns of doubles (an income, a weight), nearly
    # every value distinct, in the original and the synthesis
    python benchmarks/bench_anonymity.py scale --rows 1000000 --continuous 2 \
        --memory-limit 4GB
    # the same beside anonymeter's default attacks on the same files (its environment)
    python benchmarks/bench_anonymity.py scale --rows 100000 1000000 --anonymeter

Each run appends its numbers as JSON lines to benchmarks/results/anonymity.jsonl. The floor
of singling out is the plain queries it cannot do without: one ``GROUP BY`` count per column
combination over the synthesis and one over the original, on the same engine and files.
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
import datagen
from bench_report import syntheses

import discosql as ds

RESULTS = Path(__file__).resolve().parent / "results" / "anonymity.jsonl"
# anonymeter's own Adult example (its notebook), in the UCI file's names
ADULT_SIDES = (
    ["workclass", "education", "hours.per.week", "capital.loss", "capital.gain"],
    ["race", "sex", "fnlwgt", "age", "native.country"],
)


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def record(entry: dict[str, Any]) -> None:
    entry = {"date": time.strftime("%Y-%m-%d"), **entry, "peak_rss_gb": round(peak_gb(), 2)}
    print(json.dumps(entry))
    RESULTS.parent.mkdir(exist_ok=True)
    with RESULTS.open("a") as f:
        f.write(json.dumps(entry) + "\n")


def timed(fn: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


# --- Adult against anonymeter ------------------------------------------------------------------


def adult(path: Path, attacks: int, seed: int) -> None:
    """Adult's 32,561 records split in halves (original, control), every column as text and
    each data set deduplicated (anonymeter's singling out sees distinct rows), a stand-in
    synthesis of the original (bench_report.syntheses)."""
    import numpy as np
    from anonymeter.evaluators import LinkabilityEvaluator, SinglingOutEvaluator

    table = pacsv.read_csv(path)
    table = table.cast(pa.schema([(c, pa.string()) for c in table.column_names]))
    order = np.random.default_rng(seed).permutation(table.num_rows)
    half = table.num_rows // 2
    original = table.take(pa.array(order[:half]))
    control = table.take(pa.array(order[half : 2 * half]))
    synthetic = syntheses(original, 1, seed)[0]
    frames = [
        t.to_pandas().drop_duplicates(ignore_index=True) for t in (original, synthetic, control)
    ]
    n = min(len(frames[0]), len(frames[2]))
    o, s, c = frames[0].iloc[:n], frames[1], frames[2].iloc[:n]
    arrow = [pa.Table.from_pandas(f, preserve_index=False) for f in (o, s, c)]
    base = {"bench": "adult", "records": n, "columns": table.num_columns}

    mine, seconds = timed(lambda: ds.singling_out(arrow[0], arrow[1], n_cols=3, control=arrow[2]))
    theirs = SinglingOutEvaluator(o, s, n_attacks=attacks, n_cols=3, control=c, seed=seed)
    res, their_seconds = timed(lambda: theirs.evaluate(mode="multivariate").results())
    record(
        base
        | {
            "test": "singling_out",
            "combinations": mine.by_columns.num_rows,
            "discosql_seconds": round(seconds, 2),
            "discosql_queries": mine.queries,
            "discosql_rate": mine.rate,
            "discosql_control_rate": mine.control_rate,
            "discosql_risk": mine.risk,
            "anonymeter_seconds": round(their_seconds, 2),
            "anonymeter_attacks": attacks,
            "anonymeter_rate": [res.attack_rate.value, res.attack_rate.error],
            "anonymeter_control_rate": [res.control_rate.value, res.control_rate.error],
            "anonymeter_risk_ci": list(theirs.risk().ci),
        }
    )
    sides = ADULT_SIDES
    mine_lk, seconds = timed(lambda: ds.linkability(arrow[0], arrow[1], sides, control=arrow[2]))
    lk = LinkabilityEvaluator(o, s, aux_cols=sides, n_attacks=attacks, control=c)
    res, their_seconds = timed(lambda: lk.evaluate(n_jobs=2).results())
    record(
        base
        | {
            "test": "linkability",
            "aux_cols": [list(x) for x in sides],
            "discosql_seconds": round(seconds, 2),
            "discosql_rate": mine_lk.rate,
            "discosql_rate_unique": mine_lk.rate_unique,
            "discosql_control_rate": mine_lk.control_rate,
            "anonymeter_seconds": round(their_seconds, 2),
            "anonymeter_attacks": attacks,
            "anonymeter_rate": [res.attack_rate.value, res.attack_rate.error],
        }
    )


def adult_numeric(path: Path, attacks: int, seed: int) -> None:
    """Adult's records split in halves (original, control), numeric columns as numbers, a
    stand-in synthesis; each test of discosql (every record, every query) beside
    anonymeter's attack with ``attacks`` queries or targets. Singling out sees each data
    set's distinct records, as anonymeter does."""
    import numpy as np
    from anonymeter.evaluators import (
        InferenceEvaluator,
        LinkabilityEvaluator,
        SinglingOutEvaluator,
    )

    table = pacsv.read_csv(path)
    order = np.random.default_rng(seed).permutation(table.num_rows)
    half = table.num_rows // 2
    original = table.take(pa.array(order[:half]))
    control = table.take(pa.array(order[half : 2 * half]))
    synthetic = syntheses(original, 1, seed)[0]
    o, s, c = (t.to_pandas() for t in (original, synthetic, control))
    base = {"bench": "adult-numeric", "records": half, "columns": table.num_columns}

    frames = [f.drop_duplicates(ignore_index=True) for f in (o, s, c)]
    n = min(len(frames[0]), len(frames[2]))
    do, ds_, dc = frames[0].iloc[:n], frames[1], frames[2].iloc[:n]
    arrow = [pa.Table.from_pandas(f, preserve_index=False) for f in (do, ds_, dc)]
    mine, seconds = timed(lambda: ds.singling_out(arrow[0], arrow[1], n_cols=3, control=arrow[2]))
    theirs = SinglingOutEvaluator(do, ds_, n_attacks=attacks, n_cols=3, control=dc, seed=seed)
    res, their_seconds = timed(lambda: theirs.evaluate(mode="multivariate").results())
    record(
        base
        | {
            "test": "singling_out (half-lines)",
            "discosql_seconds": round(seconds, 2),
            "discosql_queries": mine.queries,
            "discosql_rate": mine.rate,
            "discosql_control_rate": mine.control_rate,
            "anonymeter_seconds": round(their_seconds, 2),
            "anonymeter_attacks": attacks,
            "anonymeter_rate": [res.attack_rate.value, res.attack_rate.error],
        }
    )
    sides = ADULT_SIDES
    mine_lk, seconds = timed(lambda: ds.linkability(original, synthetic, sides, control=control))
    lk = LinkabilityEvaluator(o, s, aux_cols=sides, n_attacks=attacks, control=c)
    res, their_seconds = timed(lambda: lk.evaluate(n_jobs=2).results())
    record(
        base
        | {
            "test": "linkability (Gower)",
            "discosql_seconds": round(seconds, 2),
            "discosql_rate": mine_lk.rate,
            "discosql_rate_unique": mine_lk.rate_unique,
            "anonymeter_seconds": round(their_seconds, 2),
            "anonymeter_attacks": attacks,
            "anonymeter_rate": [res.attack_rate.value, res.attack_rate.error],
        }
    )
    aux, secret = ["age", "sex", "race", "education", "hours.per.week"], "capital.gain"
    mine_inf, seconds = timed(
        lambda: ds.inference(original, synthetic, aux, secret, control=control)
    )
    inf = InferenceEvaluator(
        o, s, aux_cols=aux, secret=secret, regression=True, n_attacks=attacks, control=c
    )
    res, their_seconds = timed(lambda: inf.evaluate(n_jobs=2).results())
    record(
        base
        | {
            "test": "inference (Gower)",
            "secret": secret,
            "discosql_seconds": round(seconds, 2),
            "discosql_rate": [mine_inf.rate_min, mine_inf.rate, mine_inf.rate_max],
            "anonymeter_seconds": round(their_seconds, 2),
            "anonymeter_attacks": attacks,
            "anonymeter_rate": [res.attack_rate.value, res.attack_rate.error],
        }
    )


# --- datagen's data at scale --------------------------------------------------------------------


CONTINUOUS = ("income", "weight", "balance", "height")  # --continuous: doubles, near unique


def files(rows: int, cols: int, work: Path, continuous: int = 0) -> tuple[str, str, list[str]]:
    """datagen's original and synthesis (seed 1), the first ``cols`` of its 16 columns, and
    ``continuous`` columns of doubles: an income-like lognormal that grows with age, then
    normals, in cents (nearly every value distinct; a synthetic record that copies an
    original one keeps its values, a fresh one draws its own)."""
    folder = work / f"{rows}"
    if not (folder / "synthetic.parquet").exists():
        datagen.write(rows, folder)
    names = pq.read_schema(folder / "original.parquet").names[:cols]
    if not continuous:
        return str(folder / "original.parquet"), str(folder / "synthetic.parquet"), names
    extra = CONTINUOUS[:continuous]
    wide = work / f"{rows}_c{continuous}"
    if not (wide / "synthetic.parquet").exists():
        wide.mkdir(parents=True, exist_ok=True)
        for j, name in enumerate(("original", "synthetic")):
            t = pq.read_table(folder / f"{name}.parquet")
            rng = np.random.default_rng(7 + j)
            age = t.column("age").to_numpy(zero_copy_only=False).astype(float)
            for i, col in enumerate(extra):
                noise = rng.normal(0, 0.6, t.num_rows)
                x = np.exp(9 + 0.02 * age + noise) if i == 0 else 50 + 10 * noise * (i + 1)
                t = t.append_column(col, pa.array(np.round(x, 2)))
            pq.write_table(t, wide / f"{name}.parquet")
    return str(wide / "original.parquet"), str(wide / "synthetic.parquet"), [*names, *extra]


def floor(original: str, synthetic: str, names: list[str], n_cols: int, threads: int) -> float:
    """One GROUP BY count per combination over the synthesis and over the original."""
    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    start = time.perf_counter()
    for combo in itertools.combinations(names, n_cols):
        cols = ", ".join(f'"{c}"' for c in combo)
        for path in (synthetic, original):
            con.execute(
                f"SELECT count(*) FROM (SELECT {cols}, count(*) AS n FROM read_parquet('{path}') "
                f"GROUP BY ALL HAVING count(*) = 1)"
            ).fetchall()
    return time.perf_counter() - start


def measure(
    rows: int,
    cols: int,
    work: Path,
    only: list[str],
    engine: Any,
    threads: int,
    bench: str,
    continuous: int = 0,
    attacks: int = 0,
) -> None:
    original, synthetic, names = files(rows, cols, work, continuous)
    half = len(names) // 2
    threads_arg = threads if engine is None else None  # the engine has its own
    runs = {
        "singling_out": lambda: ds.singling_out(
            original, synthetic, names, n_cols=3, engine=engine, threads=threads_arg
        ),
        "linkability": lambda: ds.linkability(
            original,
            synthetic,
            (names[:half], names[half:]),
            engine=engine,
            threads=threads_arg,
        ),
        "exact_matches": lambda: ds.exact_matches(
            original, synthetic, names, engine=engine, threads=threads_arg
        ),
        # the first half of the columns known, the last one guessed (anonymeter's Gower)
        "inference": lambda: ds.inference(
            original, synthetic, names[:half], names[-1], engine=engine, threads=threads_arg
        ),
    }
    theirs = _anonymeter_runs(original, synthetic, names, attacks) if attacks else {}
    for name in only:
        res, seconds = timed(runs[name])
        entry: dict[str, Any] = {
            "bench": bench,
            "test": name,
            "rows": rows,
            "columns": len(names),
            "continuous": continuous,
            "seconds": round(seconds, 2),
        }
        if name == "singling_out":  # datagen's integer columns are numbers: half-lines
            entry |= {"queries": res.queries, "rate": res.rate, "numeric": "half-lines"}
            if engine is None:
                entry["floor_seconds"] = round(floor(original, synthetic, names, 3, threads), 2)
                entry["ratio"] = round(seconds / entry["floor_seconds"], 2)
        elif name == "linkability":
            entry |= {"rate": res.rate, "rate_unique": res.rate_unique, "numeric": "gower"}
        elif name == "inference":
            entry |= {"rate": [res.rate_min, res.rate, res.rate_max], "secret": names[-1]}
        else:
            entry |= {"uem": res.uem, "identical": res.identical}
        if name in theirs:  # anonymeter's sampled attack on the same files, side by side
            got, their_seconds = timed(theirs[name])
            entry |= {
                "anonymeter_seconds": round(their_seconds, 2),
                "anonymeter_attacks": attacks,
                "anonymeter_rate": [got.attack_rate.value, got.attack_rate.error],
            }
        record(entry)


def _anonymeter_runs(
    original: str, synthetic: str, names: list[str], attacks: int
) -> dict[str, Any]:
    """anonymeter 1.1's attacks as :func:`measure` runs discosql's (the same columns, sides,
    auxiliary columns and secret), ``attacks`` queries or targets each; run in an
    environment with anonymeter (.ci/anonymeter's .venv-anonymeter)."""
    from anonymeter.evaluators import (
        InferenceEvaluator,
        LinkabilityEvaluator,
        SinglingOutEvaluator,
    )

    o, s = (pq.read_table(p, columns=names).to_pandas() for p in (original, synthetic))
    half = len(names) // 2
    sides = (names[:half], names[half:])
    return {
        "singling_out": lambda: (
            SinglingOutEvaluator(o, s, n_attacks=attacks, n_cols=3)
            .evaluate(mode="multivariate")
            .results()
        ),
        "linkability": lambda: (
            LinkabilityEvaluator(o, s, aux_cols=sides, n_attacks=attacks)
            .evaluate(n_jobs=2)
            .results()
        ),
        "inference": lambda: (
            InferenceEvaluator(
                o, s, aux_cols=names[:half], secret=names[-1], regression=True, n_attacks=attacks
            )
            .evaluate(n_jobs=2)
            .results()
        ),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("bench", choices=["adult", "adult-numeric", "scale", "columns"])
    p.add_argument("--adult", type=Path, help="UCI Adult as CSV (the adult bench)")
    p.add_argument("--attacks", type=int, default=2000, help="anonymeter's n_attacks")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    p.add_argument("--cols", type=int, nargs="+", default=[8])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--memory-limit", default=None)
    p.add_argument(
        "--anonymeter",
        action="store_true",
        help="scale, columns: anonymeter's attacks (--attacks each) side by side on the same files",
    )
    p.add_argument(
        "--continuous",
        type=int,
        default=0,
        choices=range(len(CONTINUOUS) + 1),
        help="scale, columns: add this many columns of doubles (nearly every value distinct)",
    )
    p.add_argument(
        "--work", type=Path, default=None, help="where the data go (default: a temp dir)"
    )
    p.add_argument(
        "--only",
        nargs="+",
        default=["singling_out", "linkability", "exact_matches", "inference"],
        choices=["singling_out", "linkability", "exact_matches", "inference"],
    )
    a = p.parse_args()
    if a.bench in ("adult", "adult-numeric"):
        if a.adult is None:
            p.error(f"{a.bench}: give --adult path/to/adult.csv")
        (adult if a.bench == "adult" else adult_numeric)(a.adult, a.attacks, a.seed)
        return
    them = a.attacks if a.anonymeter else 0
    engine = None
    if a.memory_limit is not None:
        engine = ds.duckdb(memory_limit=a.memory_limit, threads=a.threads)
    with tempfile.TemporaryDirectory() as tmp:
        work = a.work or Path(tmp)
        for rows in a.rows:
            for cols in a.cols:
                measure(rows, cols, work, a.only, engine, a.threads, a.bench, a.continuous, them)


if __name__ == "__main__":
    main()
