"""risk(), ldiversity() and suda() give DuckDB's numbers on SQLite, PostgreSQL and Spark, on
sdcMicro's testdata with missing keys (so the wildcard matching, alpha and households all
run; l-diversity under each rule for missing values) and on SD2011 (text keys with NA).
SQLite has no grouping sets: suda() there takes one GROUP BY per subset. The PostgreSQL and
Spark tests carry their markers (conftest)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pytest

import discosql as ds
from discosql.engines.duckdb import file_reader

from .. import engine_data
from ..helpers.engines import Loaded, on_engines

DATA = Path(__file__).parents[1] / "data" / "sdcmicro" / "data"
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


# the calls compared over Spark Connect: risk with weight, alpha and households; l-diversity
# on SD2011's text keys with NA; suda on testdata's missing keys
CONNECT = (0, 3, 4)


def runs(
    tables: dict[str, pa.Table], engine: Any, names: dict[str, Any], only: Any = None
) -> list[Any]:
    """The calls compared across engines (``only``: those of these positions); ``names``: how
    the engine names each data set."""
    calls: list[Any] = [
        lambda: ds.risk(names["testdata_na"], KEYS, engine=engine, **RISK),
        lambda: ds.risk(names["sd2011"], SD_KEYS, engine=engine),
        lambda: ds.ldiversity(names["testdata_na"], KEYS[:4], ["relat", "electcon"], engine=engine),
        lambda: ds.ldiversity(
            names["sd2011"], SD_KEYS[:3], ["depress", "ls"], l_recurs_c=1.5, engine=engine
        ),
        lambda: ds.suda(names["testdata_na"], KEYS[:6], engine=engine),
        lambda: ds.suda(
            names["sd2011"],
            SD_KEYS,
            original_scores=False,
            max_size=3,
            dis_fraction=0.1,
            engine=engine,
        ),
        # the other rules for missing values (the calls above take the defaults)
        lambda: ds.ldiversity(
            names["testdata_na"],
            KEYS[:4],
            ["relat", "electcon"],
            missing_keys="apart",
            missing_sensitive="ignore",
            engine=engine,
        ),
        lambda: ds.ldiversity(
            names["sd2011"],
            SD_KEYS[:3],
            ["depress", "ls"],
            missing_sensitive="distinct",
            engine=engine,
        ),
    ]
    chosen = range(len(calls)) if only is None else only
    return [calls[i]() for i in chosen]


def assert_same(
    got: list[Any], ref: list[Any], positions: bool = True, records: bool = True
) -> None:
    """``positions``: the engine numbers records in input order. PostgreSQL numbers them in
    physical (ctid) order, which COPY does not always keep: there the records are compared as
    a multiset. ``records``: the engine gives per-record tables (not where its tables keep no
    record order: Snowflake)."""
    for g, r in zip(got, ref, strict=True):
        if not records:
            assert g.records is None
            g = dataclasses.replace(g, records=r.records)
        assert g.records.column_names == r.records.column_names
        names = r.records.column_names[0 if positions else 1 :]
        a_rows = [tuple(row[n] for n in names) for row in g.records.to_pylist()]
        b_rows = [tuple(row[n] for n in names) for row in r.records.to_pylist()]
        if not positions:  # NULL (no l under missing_sensitive="ignore") sorts last
            a_rows, b_rows = sorted(a_rows, key=_nulls_last), sorted(b_rows, key=_nulls_last)
        assert len(a_rows) == len(b_rows)
        for a, b in zip(a_rows, b_rows, strict=True):
            for x, y in zip(a, b, strict=True):
                assert (x is None and y is None) or math.isclose(x, y, rel_tol=1e-12), (a, b)
        parts = ["summary"]
        if isinstance(r, ds.SudaResult):
            parts = ["attributes", "levels", "msu_counts", "dis_table"]
        for part in parts:
            # every engine's table is conformed to the family's declared schema
            assert getattr(g, part).schema == getattr(r, part).schema, part
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


def _nulls_last(row: tuple[Any, ...]) -> tuple[tuple[bool, Any], ...]:
    return tuple((v is None, 0 if v is None else v) for v in row)


@pytest.fixture(scope="module")
def reference(tables: dict[str, pa.Table]) -> list[Any]:
    got = runs(tables, None, tables)
    assert got[0].value("n1") > 0  # the checks are not vacuous
    assert not math.isnan(got[0].value("global_threshold"))
    assert got[0].value("hier_risk_ER") > got[0].value("global_risk_ER")
    assert all(r.msu_counts.column("records").to_pylist()[1] > 0 for r in got[4:6])
    assert got[6].summary.column("records_no_l").to_pylist()[0] > 0  # ignore: cells without l
    return got


@on_engines(exclude={"duckdb": "the reference"}, also=("spark_connect",))
def test_risk_on_every_engine(
    engine_case: Loaded, tables: dict[str, pa.Table], reference: list[Any]
) -> None:
    engine, names = engine_case.load(tables)
    case = engine_case.case
    # classic Spark runs every call in Spark's SQL; over Connect (the same SQL, another
    # transport: each statement ~2 s) one call per family
    only = CONNECT if case.name == "spark_connect" else None
    with case.per_record():
        got = runs(tables, engine, names, only)
    if only is not None:
        reference = [reference[i] for i in only]
    assert_same(got, reference, case.keeps_row_order, case.record_order)


def test_a_measure_sqlite_gives_as_null_is_nan(tmp_path: Path) -> None:
    """SQLite has no NaN: a 0/0 contribution arrives as NULL and is NaN in the result, typed
    as on DuckDB (no record has an MSU, so every score is 0)."""
    table = pa.table({"a": ["x", "x", "y", "y"], "b": ["1", "1", "2", "2"]})
    db = engine_data.write_sqlite(tmp_path / "same.db", {"t": table})
    got = ds.suda("t", ["a", "b"], engine=ds.sqlite(db))
    ref = ds.suda(table, ["a", "b"])
    for part in ("attributes", "levels"):
        assert getattr(got, part).schema == getattr(ref, part).schema
        values = getattr(got, part).column("contribution").to_pylist()
        assert values
        assert all(isinstance(v, float) and math.isnan(v) for v in values), values


@on_engines("snowflake")
def test_no_record_order_no_per_record_table(
    engine_case: Loaded, tables: dict[str, pa.Table]
) -> None:
    """Where tables keep no record order (Snowflake): a per-record table asked for as a file or
    table is refused before any data is read; replicated_uniques gives its table, no flags."""
    engine, names = engine_case.load({"sd2011": tables["sd2011"]})
    with pytest.raises(ds.InputError, match="keep no record order"):
        ds.risk(names["sd2011"], SD_KEYS, engine=engine, out_table="risk_records")
    with pytest.warns(ds.DiscoSQLWarning, match="no per-record flags"):
        got = ds.replicated_uniques(names["sd2011"], names["sd2011"], SD_KEYS[:3], engine=engine)
    want = ds.replicated_uniques(tables["sd2011"], tables["sd2011"], SD_KEYS[:3])
    assert got.flags is None
    assert got.table.to_pylist() == want.table.to_pylist()
    assert "no per-record flags" in got._repr_html_()
    assert got.to_dict()["flags"] is None


@on_engines(exclude={"snowflake": "keeps no record order: no per-record table to join"})
def test_id_joins_the_records_back(engine_case: Loaded, tables: dict[str, pa.Table]) -> None:
    """id=: the per-record tables of risk and suda start with the id column, whose values
    name the same records as on DuckDB's Arrow input, whatever order the engine keeps; no
    warning then, even on PostgreSQL."""
    n = tables["sd2011"].num_rows
    # ids that do not follow the row order, so a join by row would fail the test
    with_id = tables["sd2011"].append_column("pid", pa.array([(i * 7919) % n for i in range(n)]))
    engine, names = engine_case.load({"sd2011": with_id})
    for family in (ds.risk, ds.suda):
        want = family(with_id, SD_KEYS[:4], id="pid").records
        got = family(names["sd2011"], SD_KEYS[:4], id="pid", engine=engine).records
        assert want is not None
        assert got is not None
        assert got.column_names[0] == "pid"
        a = sorted(got.drop_columns(["row"]).to_pylist(), key=lambda r: r["pid"])
        b = sorted(want.drop_columns(["row"]).to_pylist(), key=lambda r: r["pid"])
        assert len(a) == n
        for x, y in zip(a, b, strict=True):
            for k in y:
                assert math.isclose(x[k], y[k], rel_tol=1e-12), (k, x, y)
    with pytest.raises(ds.InputError, match="not unique"):
        ds.risk(names["sd2011"], SD_KEYS[:4], id=SD_KEYS[4], engine=engine)
