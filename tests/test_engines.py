"""The same measures on every engine: PostgreSQL and Spark must equal DuckDB (the reference,
itself checked against synthpop in test_oracle.py) on the SD2011 fixture cases.

PostgreSQL runs every case; Spark (slower to start a query) a representative subset with
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
