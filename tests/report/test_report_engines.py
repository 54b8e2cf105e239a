"""The release report on every engine: the same numbers as on DuckDB (all but the report's
provenance, which names the engine, its column types and the time)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import discosql as ds

from ..helpers.compare import assert_value
from ..helpers.engines import Loaded, on_engines

KW: dict[str, Any] = {"keys": ["sex", "age", "region"], "targets": ["depress", "income"]}


def _tables() -> dict[str, pa.Table]:
    data = Path(ds.__file__).parent / "data"
    return {n: pq.read_table(data / f"{n}.parquet") for n in ("sd2011", "syn_1", "syn_2")}


def _numbers(original: Any, synthetic: list[Any], engine: Any) -> dict[str, Any]:
    rep = ds.report(original, synthetic, risk=True, engine=engine, **KW).to_dict()
    _check_provenance(rep)
    for part in ("generated", "provenance", "sql", "no_script"):  # the engine's own
        del rep[part]
    return rep


def _check_provenance(rep: dict[str, Any]) -> None:
    """The report names what ran, fingerprints each input where the engine can (else says
    why), and has the script of its tables where the data are tables of the engine."""
    from discosql.sql.dialects import FACTS

    prov = rep["provenance"]
    ran = {r["read by"]: r["value"] for r in prov["ran"]}
    assert ran["engine"] == prov["engine"]
    assert ran["read at"].endswith("UTC")
    dialect = FACTS[prov["dialect"]]
    prints = [d["fingerprint"] for d in prov["inputs"]]
    if dialect.row_hash is None:
        assert prints == [None] * len(prints)
        assert "not computed" in prov["fingerprint"]
    else:
        assert all(isinstance(p, str) and len(p) == 16 for p in prints), prints
        assert len(set(prints)) == len(prints)  # three different data sets
    if rep["sql"] is None:  # data in memory, Spark's Parquet paths, SQLite: said why
        assert rep["no_script"]
    else:
        assert rep["sql"]["dialect"] == dialect.name
        assert rep["no_script"] is None
    if prov["inputs"][0]["source"] in ("Table", "DataFrame"):
        assert "in memory" in rep["no_script"]
    if dialect.name == "postgres":  # the server's tables: the script reads them there
        assert rep["sql"] is not None


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    t = _tables()
    rep = _numbers(t["sd2011"], [t["syn_1"], t["syn_2"]], None)
    assert rep["risk"]["riskiest"]  # not vacuous
    assert rep["targets"]["income"]["attrib"]
    return rep


def _assert_same(got: Any, want: Any, where: str) -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict), where
        assert list(got) == list(want), where
        for k in want:
            _assert_same(got[k], want[k], f"{where}/{k}")
    elif isinstance(want, list):
        assert isinstance(got, list), where
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _assert_same(g, w, f"{where}[{i}]")
    else:
        assert_value(got, want, where)


@on_engines(exclude={"duckdb": "the reference"})
def test_report_on_every_engine(engine_case: Loaded, reference: dict[str, Any]) -> None:
    engine, names = engine_case.load(_tables())
    got = _numbers(names["sd2011"], [names["syn_1"], names["syn_2"]], engine)
    _assert_same(got, reference, "report")
