"""The same measures on every engine: PostgreSQL and Spark must equal DuckDB (the reference,
itself checked against synthpop in test_oracle.py) on the SD2011 fixture cases.

PostgreSQL and SQLite run every case; Spark (slower to start a query) a representative subset with
grouping, exclusions, m = 5 and a single synthesis. Nothing here is skipped: if an engine cannot
start, these tests fail.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import discosql as ds

from . import engine_data, oracle
from .test_oracle import CALLS, IDS
from .test_oracle import _run as duckdb_run

TABLES = ("ident", "attrib", "allcaps", "exclusions", "check_1way", "check_2way", "measures")
SPARK_CASES = [
    "sd_depress_default",  # m = 5
    "sd_depress_m1_dataframe",  # m = 1
    "sd_workab_all_exclusions",  # every exclusion step, usekeysNA
    "sd_marital_exclude",  # key/target exclusions
    "sd_depress_ngroups_keys_and_target",  # grouping of keys and target
    "sd_income_ngroups20_cna",  # quantile grouping with a cont.na code
    "sd_ls_thresholds",  # both checks fire
]


def _kwargs(case_id: str, target: str) -> tuple[dict[str, Any], list[str]]:
    case = next(c for c in oracle.cases()["cases"] if c["case_id"] == case_id)
    kwargs = dict(oracle.disclosure_calls(case))[target]
    if case_id == "sd_depress_keysNA_order_quirk":  # as test_oracle replays it
        kwargs = dict(kwargs, keys=["marital", "sex", "age"], use_keys_na=[False, True, True])
    names = [Path(f).stem for f in oracle.cases()["synthetic"][case["synthetic"]]["files"]]
    return kwargs, names


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return engine_data.oracle_tables()


@pytest.fixture(scope="module")
def pg(pg_dsn: str, data: dict[str, Any]) -> str:
    engine_data.load_postgres(pg_dsn, data)
    return pg_dsn


@pytest.fixture(scope="module")
def parquet(tmp_path_factory: pytest.TempPathFactory, data: dict[str, Any]) -> dict[str, str]:
    return engine_data.write_parquet(tmp_path_factory.mktemp("parquet"), data)


@pytest.mark.parametrize(("case_id", "target", "kwargs"), CALLS, ids=IDS)
def test_postgres_equals_duckdb(pg: str, case_id: str, target: str, kwargs: Any) -> None:
    kw, syn = _kwargs(case_id, target)
    got = ds.disclosure("sd2011", syn, target=target, engine=pg, **kw)
    engine_data.assert_same(got, duckdb_run(case_id, target), TABLES)


@pytest.fixture(scope="module")
def sqlite_db(tmp_path_factory: pytest.TempPathFactory, data: dict[str, Any]) -> str:
    return engine_data.write_sqlite(tmp_path_factory.mktemp("sqlite") / "oracle.db", data)


@pytest.mark.parametrize(("case_id", "target", "kwargs"), CALLS, ids=IDS)
def test_sqlite_equals_duckdb(sqlite_db: str, case_id: str, target: str, kwargs: Any) -> None:
    kw, syn = _kwargs(case_id, target)
    got = ds.disclosure("sd2011", syn, target=target, engine=ds.sqlite(sqlite_db), **kw)
    engine_data.assert_same(got, duckdb_run(case_id, target), TABLES)


SPARK_CALLS = [c for c in CALLS if c[0] in SPARK_CASES]


def test_spark_subset_is_representative() -> None:
    assert {c for c, _, _ in SPARK_CALLS} == set(SPARK_CASES)


@pytest.mark.parametrize(
    ("case_id", "target", "kwargs"), SPARK_CALLS, ids=[f"{c}-{t}" for c, t, _ in SPARK_CALLS]
)
def test_spark_equals_duckdb(
    spark: Any, parquet: dict[str, str], case_id: str, target: str, kwargs: Any
) -> None:
    kw, syn = _kwargs(case_id, target)
    got = ds.disclosure(
        parquet["sd2011"], [parquet[s] for s in syn], target=target, engine=spark, **kw
    )
    engine_data.assert_same(got, duckdb_run(case_id, target), TABLES)


def test_summary_on_postgres_and_spark(pg: str, spark: Any, parquet: dict[str, str]) -> None:
    """disclosure_summary on each engine equals DuckDB's (targets, grouping, per-target options)."""
    kw: dict[str, Any] = {
        "keys": ["sex", "age", "region", "placesize"],
        "targets": ["depress", "income", "workab"],
        "ngroups_targets": {"income": 10},
        "not_targetlevs": {"workab": "NO"},
    }
    syn = ["syn_1", "syn_2"]
    ref = ds.disclosure_summary(parquet["sd2011"], [parquet[s] for s in syn], **kw)
    on_pg = ds.disclosure_summary("sd2011", syn, engine=ds.postgres(pg), **kw)
    on_spark = ds.disclosure_summary(
        parquet["sd2011"], [parquet[s] for s in syn], engine=ds.spark(spark), **kw
    )
    for got in (on_pg, on_spark):
        assert got.table.column("target").to_pylist() == ref.table.column("target").to_pylist()
        for target, res in ref.results.items():
            engine_data.assert_same(got.results[target], res, TABLES)


def test_engine_argument_errors(pg: str) -> None:
    with pytest.raises(ds.InputError, match="engine: 'oracle' is not an engine"):
        ds.disclosure("a", "b", keys=["sex"], target="depress", engine="oracle")
    with pytest.raises(ds.InputError, match="cannot connect to PostgreSQL"):
        ds.disclosure("a", "b", keys=["sex"], target="depress",
                      engine="postgresql://nobody@127.0.0.1:1/none")  # fmt: skip
    with pytest.raises(ds.InputError, match="original: cannot read the data"):
        ds.disclosure("no_such_table", "syn_1", keys=["sex"], target="depress", engine=pg)
    with pytest.raises(ds.SchemaError, match="key 'sexx': not a column of the original"):
        ds.disclosure("sd2011", "syn_1", keys=["sexx"], target="depress", engine=pg)


def _cap_results(original: Any, synthetic: Any, control: Any, engine: Any) -> dict[str, Any]:
    """Every CAP function on one engine, as plain numbers and Arrow tables."""
    keys, kw = ["sex", "age", "region"], {"control": control, "engine": engine}
    out: dict[str, Any] = {}
    for fn in (ds.categorical_cap, ds.categorical_zero_cap, ds.categorical_generalized_cap):
        r = fn(original, synthetic, keys, ["depress", "marital"], **kw)
        out[fn.__name__] = (r.score, r.n_scored, r.control.score, r.excess_risk)
    dp = ds.disclosure_protection(original, synthetic, ["sex", "age"], "income",
                                  continuous_columns=["age", "income"], **kw)  # fmt: skip
    out["disclosure_protection"] = (dp.score, dp.cap_protection, dp.baseline_protection)
    t = ds.taub_tcap(original, synthetic, keys, "depress", tau=0.5, **kw)
    out["taub_tcap"] = (t.tcap, t.tcap_zero, t.n_kept, t.n_undefined, t.control.tcap)
    summ = ds.cap_summary(original, synthetic, keys, "depress", **kw)
    out["cap_summary"] = (summ.mean_cap, summ.mean_cap_matched, summ.majority_correct)
    records = ds.cap_records(original, synthetic, keys, "depress", **kw)
    out["cap_records"] = records.sort_by([(c, "ascending") for c in records.column_names[:4]])
    return out


def _assert_same_cap(got: dict[str, Any], ref: dict[str, Any]) -> None:
    for name, want in ref.items():
        if isinstance(want, tuple):
            for i, (u, v) in enumerate(zip(got[name], want, strict=True)):
                engine_data.assert_value(u, v, f"{name}[{i}]")
        else:
            assert got[name].schema == want.schema, name
            for a, b in zip(got[name].to_pylist(), want.to_pylist(), strict=True):
                for col in b:
                    engine_data.assert_value(a[col], b[col], f"{name}.{col}")


def test_cap_family_on_every_engine(
    pg: str, sqlite_db: str, spark: Any, parquet: dict[str, str]
) -> None:
    """The CAP functions (joint target, binning, control) give DuckDB's numbers everywhere."""
    ref = _cap_results(parquet["sd2011"], parquet["syn_1"], parquet["syn_2"], None)
    _assert_same_cap(_cap_results("sd2011", "syn_1", "syn_2", ds.postgres(pg)), ref)
    _assert_same_cap(_cap_results("sd2011", "syn_1", "syn_2", ds.sqlite(sqlite_db)), ref)
    _assert_same_cap(
        _cap_results(parquet["sd2011"], parquet["syn_1"], parquet["syn_2"], ds.spark(spark)), ref
    )


FLOATS = [0.5, 2.25, 1e-5, -1.5e-5, 0.00012345, 0.0012345, 12345678.9, 123456789012.5,
          1e15 + 0.5, 1e15, 1.5e16 + 2, 1.5e20, -0.25, -1e-7, 1 / 3, 2e-5 / 3, 57.0, -3.0,
          float("inf"), float("-inf"), None]  # fmt: skip


def test_float_level_names_agree(pg: str, spark: Any, tmp_path: Path) -> None:
    """Ungrouped float values become the same level names on every engine: Python's repr
    (shortest round-trip), integral values without decimals, NA as 'Missing'."""
    import pyarrow as pa

    n = len(FLOATS)
    table = pa.table({"k": ["a"] * n, "x": pa.array(FLOATS, pa.float64()), "i": list(range(n))})
    expected = sorted(
        "Missing" if v is None else str(int(v)) if abs(v) < 1e15 and v == int(v) else repr(v)
        for v in FLOATS
    )
    parquet = str(tmp_path / "floats.parquet")
    import pyarrow.parquet as pq

    pq.write_table(table, parquet)
    engine_data.load_postgres(pg, {"floats": table})

    def levels(original: Any, engine: Any) -> list[str]:
        rec = ds.cap_records(original, original, ["i"], "x", engine=engine)
        return sorted(rec.column("x").to_pylist())

    assert levels(parquet, None) == expected
    assert levels("floats", ds.postgres(pg)) == expected
    assert levels(parquet, ds.spark(spark)) == expected


def test_cli_and_export_on_postgres(pg: str, tmp_path: Path) -> None:
    """`discosql disclosure --engine DSN` runs on the server; to_sql reads PostgreSQL tables at
    export time and its script, run there, gives the same tables."""
    import json
    import subprocess
    import sys

    import psycopg

    ref = duckdb_run("sd_depress_default", "depress")
    out = tmp_path / "ident.json"
    cmd = [sys.executable, "-m", "discosql", "disclosure", "sd2011", "syn_1", "syn_2", "syn_3",
           "syn_4", "syn_5", "--keys", "sex,age,region,placesize", "--target", "depress",
           "--engine", pg, "--format", "json", "--table", "ident", "--out", str(out)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text()) == ref.ident.to_pylist()

    script = ds.to_sql(
        "sd2011", [f"syn_{i}" for i in range(1, 6)], keys=["sex", "age", "region", "placesize"],
        target="depress", dialect="postgres", engine=ds.postgres(pg),
    )  # fmt: skip
    assert '"sd2011"' in script
    with psycopg.connect(pg, autocommit=True) as con:
        rows = None
        for statement in script.split(";\n"):
            cur = con.execute(statement)
            if rows is None and cur.description is not None:
                rows = [dict(zip([d.name for d in cur.description], r, strict=True))
                        for r in cur.fetchall()]  # fmt: skip
    assert rows is not None
    for got, want in zip(rows, ref.ident.to_pylist(), strict=True):
        for col in want:
            engine_data.assert_value(float(got[col]), float(want[col]), col)
