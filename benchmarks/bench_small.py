"""Small data: ds.risk and ds.suda against sdcMicro's measure_risk and suda2, both warm and with
their data already in memory (issue 40).

    python benchmarks/bench_small.py --rows 10000 100000 [--data skewed|datagen] [--sdcmicro]
    python benchmarks/bench_small.py --sd2011 [--repeat 10]

Data: ``skewed`` (seeded): 8 text keys of 2, 4, 8, 12, 20, 35, 60 and 90 levels, each drawn
Zipf-like (P(level r) proportional to 1 / r^1.1), and a weight w = round(1 + 100 *
lognormal(0, 1), 2); ``datagen``: bench_risk.py's data (datagen's original, 8 keys, its
weight). discosql: one warm process, the data a pyarrow Table, DuckDB with --threads; each
call once to warm up, then --repeat times. sdcMicro (--sdcmicro; benchmarks/install_sdcmicro.sh
installs it): benchmarks/sdcmicro_small.R in one R process, the data a data.frame read before
the clock, each function once to warm up, then --repeat times. Best of --repeat on each side;
ratio = discosql / sdcMicro (below 1: discosql is faster). The two sides' numbers are checked
against each other (global_risk_ER, sum of risk, fk, Fk; sum of SUDA and DIS-SUDA scores) to
1e-9 relative (DIS-SUDA 1e-6, as tests/risk/test_suda_reference.py). With them, in the same
process and on the
same Table, the DuckDB floor of ds.risk (a plain GROUP BY of the keys joined back to the
records, in input order: risk_floor), which says how far any SQL on DuckDB can go, and the
fewest statements that give ds.risk's outputs, by hand (risk_few_statements), and its
complete outputs by hand over the raw keys, checked against ds.risk's
(risk_complete_by_hand). Appends
one JSON line per size to benchmarks/results/small.jsonl.

--sd2011: the bundled SD2011 (5,000 records, 5 syntheses; keys sex, age, region, placesize)
in one warm process: ds.disclosure (target depress), ds.disclosure_summary (depress, ls,
marital, workab, income) and ds.report (depress), against the floor of plain DuckDB count
queries over the same files on the same connection settings: one ``SELECT keys, target,
count(*) ... GROUP BY ALL`` per target and file (6 for disclosure, 30 for the summary). Each
call once to warm up, then --repeat times, interleaved; best and median; ratio = best /
best floor. One JSON line (data "sd2011").
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
RESULTS = HERE / "results"
KEYS = [f"k{i}" for i in range(8)]
LEVELS = [2, 4, 8, 12, 20, 35, 60, 90]


def skewed(rows: int, seed: int = 1) -> Any:
    """The skewed data as a pyarrow Table: keys k0..k7 (text), weight w."""
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    cols: dict[str, Any] = {}
    for key, levels in zip(KEYS, LEVELS, strict=True):
        p = 1 / np.arange(1, levels + 1) ** 1.1
        codes = rng.choice(levels, size=rows, p=p / p.sum())
        cols[key] = pa.array([f"L{c:02d}" for c in codes], pa.string())
    cols["w"] = pa.array(np.round(1 + 100 * rng.lognormal(0.0, 1.0, rows), 2), pa.float64())
    return pa.table(cols)


def datagen(rows: int) -> tuple[Any, list[str], str]:
    """bench_risk.py's data: the table, its 8 keys and its weight."""
    import pyarrow.parquet as pq
    from bench_risk import KEYS as RISK_KEYS  # type: ignore[import-not-found]
    from bench_risk import WEIGHT
    from bench_risk import data as risk_data

    table = pq.read_table(risk_data(rows, 0.0) / "data.parquet")
    return table.select([*RISK_KEYS, WEIGHT]), list(RISK_KEYS), WEIGHT


def best(call: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    result = call()  # warm-up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - t)
    return min(times), result


def discosql_side(
    table: Any, keys: list[str], weight: str, a: argparse.Namespace
) -> dict[str, Any]:
    import pyarrow.compute as pc

    import discosql as ds

    engine = ds.duckdb(threads=a.threads)
    t_risk, risk = best(lambda: ds.risk(table, keys, weight=weight, engine=engine), a.repeat)
    t_suda, suda = best(lambda: ds.suda(table, keys, engine=engine), a.repeat)
    rec, srec = risk.records, suda.records

    def total(t: Any, c: str) -> float:
        return float(pc.sum(t[c]).as_py())

    return {
        "risk_s": t_risk,
        "suda_s": t_suda,
        "global_risk_ER": risk.value("global_risk_ER"),
        "global_threshold": risk.value("global_threshold"),
        "riskiest_risk": risk.riskiest.column("risk").to_pylist(),
        "sum_risk": total(rec, "risk"),
        "sum_fk": total(rec, "fk"),
        "sum_Fk": total(rec, "Fk"),
        "sum_score": total(srec, "suda_score"),
        "sum_dis_score": total(srec, "dis_suda_score"),
    }


def _floor_connection(table: Any, threads: int) -> Any:
    """A DuckDB connection with ``table`` as the view ``data``, its records' 1-based
    positions appended as ``__row`` (before any clock starts)."""
    import duckdb
    import pyarrow as pa
    import pyarrow.compute as pc

    con = duckdb.connect()
    con.execute(f"SET threads = {int(threads)}")
    con.register("data", table.append_column("__row", pc.cumulative_sum(pa.repeat(1, len(table)))))
    return con


def risk_floor(table: Any, keys: list[str], weight: str, a: argparse.Namespace) -> float:
    """DuckDB's plain-query floor for ds.risk on the same in-memory table, best of --repeat:
    each record's cell count, weight sum and 1/n, in input order (bench_risk.py's
    floor_sorted, from the pyarrow Table; the records' positions appended before the clock)."""
    con = _floor_connection(table, a.threads)
    cols = ", ".join(f'"{k}"' for k in keys)
    on = " AND ".join(f'r."{k}" IS NOT DISTINCT FROM c."{k}"' for k in keys)
    sql = (
        f"SELECT r.__row AS row, c.n, c.w, 1.0 / c.n AS risk FROM data r JOIN (SELECT {cols}, "
        f'count(*) AS n, sum("{weight}") AS w FROM data GROUP BY {cols}) c ON {on} '
        "ORDER BY r.__row"
    )
    seconds, _ = best(lambda: con.sql(sql).to_arrow_table(), a.repeat)
    return seconds


def bf_risk(fk: str, fw: str) -> str:
    """sdcMicro's individual risk (Benedetti-Franconi, indivRisk "approx") of a cell with
    ``fk`` records and weight sum ``fw`` (DOUBLE columns), written out by hand for DuckDB: the
    by-hand risks below do not use discosql's templates."""
    pk = f"({fk} / {fw})"
    return (
        f"CASE WHEN {fk} = {fw} THEN 1 / {fk} WHEN {fk} > 2 THEN {pk} / ({fk} - (1 - {pk})) "
        f"WHEN {fk} = 2 THEN {pk} / (1 - {pk}) - power({pk} / (1 - {pk}), 2) * ln(1 / {pk}) "
        f"WHEN {fk} = 1 THEN {pk} / (1 - {pk}) * ln(1 / {pk}) ELSE 0 END"
    )


def risk_few_statements(table: Any, keys: list[str], weight: str, a: argparse.Namespace) -> float:
    """The fewest statements a risk() with ds.risk's outputs takes, written by hand on DuckDB,
    best of --repeat: the key cells (counts, weight sums, sdcMicro's individual risk) into a
    temporary table; the global measures (a row of sums); the 10 riskiest cells; each record's
    risk in input order; the table dropped. No validation, no dictionaries, no missing keys
    handled. How close a redesign of risk() for small inputs could come to sdcMicro."""
    con = _floor_connection(table, a.threads)
    cols = ", ".join(f'"{k}"' for k in keys)
    on = " AND ".join(f'r."{k}" IS NOT DISTINCT FROM c."{k}"' for k in keys)
    risk = bf_risk("fk", "fw")
    cells = (
        f"CREATE OR REPLACE TEMP TABLE cells AS SELECT *, {risk} AS risk FROM (SELECT {cols}, "
        f'count(*)::DOUBLE AS fk, sum("{weight}") AS fw FROM data GROUP BY {cols})'
    )
    totals = (
        "SELECT sum(fk), sum(CASE WHEN fk = 1 THEN 1 ELSE 0 END), sum(CASE WHEN fk = 2 THEN 2 "
        "ELSE 0 END), sum(CASE WHEN fk < 3 THEN fk ELSE 0 END), sum(fk * risk) FROM cells"
    )
    top = "SELECT * FROM cells ORDER BY risk DESC, fk DESC LIMIT 10"
    per_record = f"SELECT r.__row AS row, c.fk, c.fw, c.risk FROM data r JOIN cells c ON {on} "
    per_record += "ORDER BY r.__row"

    def call() -> None:
        con.execute(cells)
        for sql in (totals, top, per_record):
            con.sql(sql).to_arrow_table()
        con.execute("DROP TABLE cells")

    seconds, _ = best(call, a.repeat)
    return seconds


def risk_complete_by_hand(
    table: Any, keys: list[str], weight: str, a: argparse.Namespace, ours: dict[str, Any]
) -> float:
    """ds.risk's complete outputs, by hand on DuckDB, with its semantics where the data allow
    them (keys without NULLs, of types whose values group as their text: the check below
    stops otherwise), best of --repeat: the key cells with their weight checks, known-key
    pattern and risks into a temporary table; one row of checks (bad weights, cells with a
    missing key); the summary with the global threshold (one statement); the 10 riskiest
    cells with their level names in ds.risk's order; each record's risk in input order; the
    table dropped. The least a risk() over the raw keys could cost on DuckDB: its outputs are
    checked against ds.risk's (``ours``)."""
    con = _floor_connection(table, a.threads)
    q = [f'"{k}"' for k in keys]
    cols, w = ", ".join(q), f'CAST("{weight}" AS DOUBLE)'
    pattern = " + ".join(f"(CASE WHEN {k} IS NULL THEN 0 ELSE {2**i} END)" for i, k in enumerate(q))
    risk = bf_risk("fk", "fk_w")
    cells = f"""CREATE OR REPLACE TEMP TABLE cells AS
        SELECT *, CASE WHEN bad = 0 THEN {risk} END AS risk FROM (
            SELECT *, CAST(n AS DOUBLE) AS fk, w AS fk_w FROM (
                SELECT {cols}, count(*) AS n, sum({w}) AS w,
                    CAST({pattern} AS BIGINT) AS pattern,
                    sum(CASE WHEN {w} IS NULL OR isnan({w}) OR isinf({w}) OR {w} <= 0
                        THEN 1 ELSE 0 END) AS bad
                FROM data GROUP BY {cols}))"""
    checks = f"SELECT sum(bad), count(*) FILTER (WHERE pattern <> {2 ** len(keys) - 1}) FROM cells"
    summary = """WITH totals AS (
            SELECT sum(n) AS n_records, sum(CASE WHEN fk = 1 THEN n ELSE 0 END) AS n1,
                sum(CASE WHEN fk = 2 THEN n ELSE 0 END) AS n2,
                sum(CASE WHEN fk < 2 THEN n ELSE 0 END) AS k2,
                sum(CASE WHEN fk < 3 THEN n ELSE 0 END) AS k3,
                sum(CASE WHEN fk < 5 THEN n ELSE 0 END) AS k5,
                sum(n * risk) AS er, max(risk) AS top FROM cells),
        levels AS (SELECT risk, sum(CAST(n AS DOUBLE)) AS c, sum(n * risk) AS s
            FROM cells GROUP BY risk),
        running AS (SELECT risk,
            sum(c) OVER (ORDER BY risk ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS nb,
            sum(s) OVER (ORDER BY risk ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS sb
            FROM levels),
        found AS (SELECT max(r.risk) AS v FROM running AS r CROSS JOIN totals AS t
            WHERE r.risk < t.top AND r.sb + r.risk * (t.n_records - r.nb) < 0.01 * t.n_records)
        SELECT unnest(['records', 'n1', 'n2', 'k2', 'k3', 'k5', 'global_risk_ER',
                'global_risk', 'global_risk_pct', 'global_threshold']) AS measure,
            unnest([n_records, n1, n2, k2, k3, k5, er, er / n_records, 100 * er / n_records,
                CASE WHEN er < 0.01 * n_records THEN 'NaN'::DOUBLE ELSE coalesce(v, 0) END])
                AS value
        FROM totals CROSS JOIN found"""
    names = ", ".join(f"CAST({k} AS VARCHAR) AS {k}" for k in q)
    order = ", ".join(f"CAST({k} AS VARCHAR)" for k in q)
    top = (
        f"SELECT {names}, n, fk, fk_w, risk FROM cells ORDER BY risk DESC, n DESC, {order} LIMIT 10"
    )
    on = " AND ".join(f"r.{k} = c.{k}" for k in q)
    per_record = (
        f"SELECT r.__row AS row, c.fk, c.fk_w, c.risk FROM data AS r JOIN cells AS c ON {on}"
    )
    per_record += " ORDER BY r.__row"

    def call() -> tuple[Any, ...]:
        con.execute(cells)
        bad, incomplete = con.execute(checks).fetchall()[0]
        if bad or incomplete:
            raise SystemExit("risk_complete_by_hand: data with bad weights or missing keys")
        out = tuple(con.sql(sql).to_arrow_table() for sql in (summary, top, per_record))
        con.execute("DROP TABLE cells")
        return out

    seconds, (got, riskiest, records) = best(call, a.repeat)
    values = dict(zip(*got.to_pydict().values(), strict=True))
    for name, theirs in (
        ("global_risk_ER", values["global_risk_ER"]),
        ("global_threshold", values["global_threshold"]),
        ("sum_risk", sum(records.column("risk").to_pylist())),
    ):
        same = math.isclose(ours[name], theirs, rel_tol=1e-9) or ours[name] == theirs
        assert same or (math.isnan(ours[name]) and math.isnan(theirs)), (name, ours[name], theirs)
    top_risks = riskiest.column("risk").to_pylist()
    assert len(top_risks) == len(ours["riskiest_risk"]), "riskiest cells"
    for mine, theirs in zip(top_risks, ours["riskiest_risk"], strict=True):
        assert math.isclose(mine, theirs, rel_tol=1e-9), ("riskiest cells", mine, theirs)
    return seconds


def sdcmicro_side(table: Any, keys: list[str], weight: str, repeat: int) -> dict[str, Any]:
    import pyarrow.csv as pcsv

    with tempfile.TemporaryDirectory() as tmp:
        csv, out = Path(tmp) / "data.csv", Path(tmp) / "out.json"
        pcsv.write_csv(table, csv)
        args = [str(csv), str(out), ",".join(keys), weight, str(repeat)]
        subprocess.run(["Rscript", str(HERE / "sdcmicro_small.R"), *args], check=True)
        r = json.loads(out.read_text())
    return {**r, "risk_s": min(r["measure_risk"]), "suda_s": min(r["suda2"])}


CHECKED = ("global_risk_ER", "sum_risk", "sum_fk", "sum_Fk", "sum_score", "sum_dis_score")


SD_KEYS = ["sex", "age", "region", "placesize"]
SD_TARGETS = ["depress", "ls", "marital", "workab", "income"]
SD_DATA = HERE.parent / "discosql" / "data"
# the bundled SD2011, then its 5 syntheses
SD_FILES = [
    str(SD_DATA / "sd2011.parquet"),
    *(str(SD_DATA / f"syn_{j}.parquet") for j in range(1, 6)),
]


def sd_floor_sql(target: str) -> str:
    """The floor's count query of one target over one file (the file is ``$f``)."""
    return (
        f"SELECT {', '.join(SD_KEYS)}, {target}, count(*) AS n FROM read_parquet($f) GROUP BY ALL"
    )


def sd2011(threads: int, repeat: int) -> dict[str, Any]:
    """disclosure, disclosure_summary and report on the bundled SD2011, and their floors."""
    import statistics

    import duckdb

    import discosql as ds

    files = SD_FILES
    engine = ds.duckdb(threads=threads)
    con = duckdb.connect()
    con.execute(f"SET threads = {int(threads)}")

    def floor(targets: list[str]) -> None:
        for t in targets:
            for f in files:
                con.sql(sd_floor_sql(t), params={"f": f}).to_arrow_table()

    calls: dict[str, Callable[[], Any]] = {
        "disclosure": lambda: ds.disclosure(files[0], files[1:], SD_KEYS, "depress", engine=engine),
        "floor_disclosure": lambda: floor(["depress"]),
        "disclosure_summary": lambda: ds.disclosure_summary(
            files[0], files[1:], SD_KEYS, SD_TARGETS, engine=engine
        ),
        "floor_summary": lambda: floor(SD_TARGETS),
        "report": lambda: ds.report(files[0], files[1:], SD_KEYS, ["depress"], engine=engine),
    }
    times: dict[str, list[float]] = {name: [] for name in calls}
    for call in calls.values():
        call()  # warm-up
    for _ in range(repeat):  # interleaved: a slow moment of the machine hits every call
        for name, call in calls.items():
            t = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - t)
    out: dict[str, Any] = {
        name: {"best": min(ts), "median": statistics.median(ts)} for name, ts in times.items()
    }
    out["ratio_disclosure"] = out["disclosure"]["best"] / out["floor_disclosure"]["best"]
    out["ratio_summary"] = out["disclosure_summary"]["best"] / out["floor_summary"]["best"]
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000])
    p.add_argument("--data", choices=("skewed", "datagen"), default="skewed")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--sdcmicro", action="store_true")
    p.add_argument("--sd2011", action="store_true")
    a = p.parse_args()
    sys.path.insert(0, str(HERE))
    RESULTS.mkdir(exist_ok=True)
    if a.sd2011:
        r = sd2011(a.threads, a.repeat)
        line = {
            "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "machine": f"{platform.machine()}, {platform.python_version()}",
            "data": "sd2011",
            "threads": a.threads,
            "repeat": a.repeat,
            **r,
        }
        for name in ("disclosure", "floor_disclosure", "disclosure_summary", "floor_summary"):
            print(f"{name}: best {r[name]['best']:.3f} s, median {r[name]['median']:.3f} s")
        print(f"report: best {r['report']['best']:.3f} s, median {r['report']['median']:.3f} s")
        print(f"ratio disclosure {r['ratio_disclosure']:.2f}, summary {r['ratio_summary']:.2f}")
        with (RESULTS / "small.jsonl").open("a") as f:
            f.write(json.dumps(line) + "\n")
        return
    for rows in a.rows:
        if a.data == "skewed":
            table, keys, weight = skewed(rows), KEYS, "w"
        else:
            table, keys, weight = datagen(rows)
        ours = discosql_side(table, keys, weight, a)
        ours["floor_risk_s"] = risk_floor(table, keys, weight, a)
        ours["few_statements_risk_s"] = risk_few_statements(table, keys, weight, a)
        ours["complete_by_hand_risk_s"] = risk_complete_by_hand(table, keys, weight, a, ours)
        line: dict[str, Any] = {
            "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "machine": f"{platform.machine()}, {platform.python_version()}",
            "data": a.data,
            "rows": rows,
            "threads": a.threads,
            "repeat": a.repeat,
            "discosql": ours,
        }
        line["risk_over_floor"] = ours["risk_s"] / ours["floor_risk_s"]
        text = f"{a.data} {rows:,} rows: ds.risk {ours['risk_s']:.3f} s "
        text += f"(DuckDB floor {ours['floor_risk_s']:.3f} s: {line['risk_over_floor']:.2f}x; "
        text += f"the fewest statements by hand {ours['few_statements_risk_s']:.3f} s, "
        text += f"complete by hand {ours['complete_by_hand_risk_s']:.3f} s), "
        text += f"ds.suda {ours['suda_s']:.3f} s"
        if a.sdcmicro:
            theirs = sdcmicro_side(table, keys, weight, a.repeat)
            for k in CHECKED:
                # DIS-SUDA: sdcMicro's C++ sums its terms in another order (1e-6, as
                # tests/risk/test_suda_reference.py)
                tol = 1e-6 if k == "sum_dis_score" else 1e-9
                assert math.isclose(ours[k], theirs[k], rel_tol=tol), (k, ours[k], theirs[k])
            line["sdcmicro"] = theirs
            line["ratio_risk"] = ours["risk_s"] / theirs["risk_s"]
            line["ratio_suda"] = ours["suda_s"] / theirs["suda_s"]
            line["sdcmicro_risk_over_floor"] = theirs["risk_s"] / ours["floor_risk_s"]
            line["few_statements_over_sdcmicro"] = ours["few_statements_risk_s"] / theirs["risk_s"]
            line["complete_by_hand_over_sdcmicro"] = (
                ours["complete_by_hand_risk_s"] / theirs["risk_s"]
            )
            text += (
                f"; by hand / sdcMicro {line['few_statements_over_sdcmicro']:.2f}"
                f" (complete {line['complete_by_hand_over_sdcmicro']:.2f})"
                f"; sdcMicro measure_risk {theirs['risk_s']:.3f} s (ratio "
                f"{line['ratio_risk']:.2f}), suda2 {theirs['suda_s']:.3f} s (ratio "
                f"{line['ratio_suda']:.2f}); sdcMicro's measure_risk is "
                f"{line['sdcmicro_risk_over_floor']:.2f}x the DuckDB floor"
            )
        print(text, flush=True)
        with (RESULTS / "small.jsonl").open("a") as f:
            f.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
