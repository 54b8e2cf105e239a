"""risk(), ldiversity() and suda() give DuckDB's numbers on SQLite, PostgreSQL and Spark, on
sdcMicro's testdata with missing keys (so the wildcard matching, alpha and households all
run) and on SD2011 (text keys with NA). SQLite has no grouping sets: suda() there takes one
GROUP BY per subset. The PostgreSQL and Spark tests carry their markers (conftest)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pytest

import discosql as ds
from discosql.engines.duckdb import file_reader

from . import engine_data

DATA = Path(__file__).parent / "data" / "sdcmicro" / "data"
KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]
RISK: dict[str, Any] = {
    "weight": "sampling_weight",
    "household": "ori_hid",
    "alpha": 0.5,
    "max_global_risk": 0.0001,
}
SD_KEYS = ["sex", "age", "region", "marital", "workab"]


@pytest.fixture(scope="module")
def tables() -> dict[str, pa.Table]:
    read = f"SELECT * FROM {file_reader('csv', 'p')}"
    return {
        name: duckdb.sql(read, params={"p": str(DATA / f"{name}.csv")}).to_arrow_table()
        for name in ("testdata_na", "sd2011")
    }


def runs(tables: dict[str, pa.Table], engine: Any, names: dict[str, Any]) -> list[Any]:
    """The calls compared across engines; ``names``: how the engine names each data set."""
    return [
        ds.risk(names["testdata_na"], KEYS, engine=engine, **RISK),
        ds.risk(names["sd2011"], SD_KEYS, engine=engine),
        ds.ldiversity(names["testdata_na"], KEYS[:4], ["relat", "electcon"], engine=engine),
        ds.ldiversity(
            names["sd2011"], SD_KEYS[:3], ["depress", "ls"], l_recurs_c=1.5, engine=engine
        ),
        ds.suda(names["testdata_na"], KEYS[:6], engine=engine),
        ds.suda(
            names["sd2011"],
            SD_KEYS,
            original_scores=False,
            max_size=3,
            dis_fraction=0.1,
            engine=engine,
        ),
    ]


def assert_same(got: list[Any], ref: list[Any], positions: bool = True) -> None:
    """``positions``: the engine numbers records in input order. PostgreSQL numbers them in
    physical (ctid) order, which COPY does not always keep: there the records are compared as
    a multiset."""
    for g, r in zip(got, ref, strict=True):
        assert g.records.column_names == r.records.column_names
        names = r.records.column_names[0 if positions else 1 :]
        a_rows = [tuple(row[n] for n in names) for row in g.records.to_pylist()]
        b_rows = [tuple(row[n] for n in names) for row in r.records.to_pylist()]
        if not positions:
            a_rows, b_rows = sorted(a_rows), sorted(b_rows)
        assert len(a_rows) == len(b_rows)
        for a, b in zip(a_rows, b_rows, strict=True):
            for x, y in zip(a, b, strict=True):
                assert (x is None and y is None) or math.isclose(x, y, rel_tol=1e-12), (a, b)
        parts = ["summary"]
        if isinstance(r, ds.SudaResult):
            parts = ["attributes", "levels", "msu_counts", "dis_table"]
        for part in parts:
            for x, y in zip(
                getattr(g, part).to_pylist(), getattr(r, part).to_pylist(), strict=True
            ):
                for k in x:
                    if isinstance(x[k], float):
                        assert (math.isnan(x[k]) and math.isnan(y[k])) or math.isclose(
                            x[k], y[k], rel_tol=1e-12
                        ), (k, x, y)
                    else:
                        assert x[k] == y[k], (part, k, x, y)


@pytest.fixture(scope="module")
def reference(tables: dict[str, pa.Table]) -> list[Any]:
    got = runs(tables, None, tables)
    assert got[0].value("n1") > 0  # the checks are not vacuous
    assert not math.isnan(got[0].value("global_threshold"))
    assert got[0].value("hier_risk_ER") > got[0].value("global_risk_ER")
    assert all(r.msu_counts.column("records").to_pylist()[1] > 0 for r in got[4:])
    return got


def test_risk_on_sqlite(tmp_path: Path, tables: dict[str, pa.Table], reference: list[Any]) -> None:
    db = engine_data.write_sqlite(tmp_path / "risk.db", tables)
    assert_same(runs(tables, ds.sqlite(db), {n: n for n in tables}), reference)


def test_risk_on_postgres(pg_dsn: str, tables: dict[str, pa.Table], reference: list[Any]) -> None:
    engine_data.load_postgres(pg_dsn, tables)
    assert_same(runs(tables, ds.postgres(pg_dsn), {n: n for n in tables}), reference, False)


def test_risk_on_spark(
    spark: Any, tmp_path: Path, tables: dict[str, pa.Table], reference: list[Any]
) -> None:
    paths = engine_data.write_parquet(tmp_path, tables)
    assert_same(runs(tables, ds.spark(spark), paths), reference)
