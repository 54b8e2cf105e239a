"""risk_to_sql and ldiversity_to_sql: the exported scripts, run by the duckdb shell (and by
PostgreSQL and Spark), print the API's summary and riskiest cells and give its per-record
table, on sdcMicro's test data with missing keys, a weight and households. Run on data changed
after the export they stop (a key with more levels than its q packing was fixed for, a bad
weight) or give the API's result for the new data, never other numbers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import discosql as ds

from .. import engine_data
from ..helpers.compare import script_value
from ..helpers.engines import Started, on_script_engines_each
from ..helpers.oracle import load
from ..helpers.shell import shell_result
from ..helpers.sql import assert_portable

KEYS = ["urbrur", "roof", "walls", "water", "sex"]
WEIGHT = "sampling_weight"
RISK_KW: dict[str, Any] = {"weight": WEIGHT, "household": "ori_hid", "alpha": 0.5}
SENSITIVE = ["relat", "hhcivil"]


def _data() -> pa.Table:
    """sdcMicro's test data with missing key values (the wildcard rule has work to do)."""
    return load("testdata_na.csv")


def _shell(script: str, cwd: Path) -> tuple[list[list[dict[str, Any]]], str, int]:
    return shell_result(script, cwd)


def _assert_rows(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert list(g) == list(w)
        assert all(script_value(g[k], w[k]) for k in w), (g, w)


def _fk(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A script's per-record rows with Fk_population named Fk, as the API's."""
    return [{("Fk" if k == "Fk_population" else k): v for k, v in r.items()} for r in rows]


def _summary_rows(table: pa.Table) -> list[dict[str, Any]]:
    return table.to_pylist()


def _shell_risk(server: None, tmp_path: Path, kind: str) -> None:
    """The script reads the data file (Parquet or CSV) itself."""
    data = _data()
    path = tmp_path / f"data.{kind}"
    if kind == "parquet":
        pq.write_table(data, path)
    else:
        import pyarrow.csv as pcsv

        pcsv.write_csv(data, path)
    api = ds.risk(str(path), KEYS, **RISK_KW)
    tables, err, code = _shell(ds.risk_to_sql(str(path), KEYS, **RISK_KW), tmp_path)
    assert code == 0, err
    summary, riskiest, records = tables
    _assert_rows(summary, _summary_rows(api.summary))
    _assert_rows(riskiest, api.riskiest.to_pylist())
    assert api.records is not None
    assert records[0]["row"] == 1
    assert list(records[0]) == ["row", "fk", "Fk_population", "risk", "hier_risk"]
    _assert_rows(_fk(records), api.records.to_pylist())
    # the script's numbers are sdcMicro's: some records have missing keys, the risk is not 1/fk
    assert pc.sum(pc.is_null(data.column("roof"))).as_py() > 0
    assert api.value("hier_risk_ER") > api.value("global_risk_ER") > 0


def _shell_ldiversity(server: None, tmp_path: Path, rules: dict[str, str]) -> None:
    path = tmp_path / "data.parquet"
    pq.write_table(_data(), path)
    api = ds.ldiversity(str(path), KEYS, SENSITIVE, l_recurs_c=3, **rules)
    script = ds.ldiversity_to_sql(str(path), KEYS, SENSITIVE, l_recurs_c=3, **rules)
    named = "missing keys {}, missing sensitive values {}".format(
        rules.get("missing_keys", "equal"), rules.get("missing_sensitive", "category")
    )
    assert named in script  # the header says which rules the script computes
    tables, err, code = _shell(script, tmp_path)
    assert code == 0, err
    summary, records = tables
    _assert_rows(summary, api.summary.to_pylist())
    assert api.records is not None
    _assert_rows(records, api.records.to_pylist())


def test_the_suda_export_prints_the_api_suda(tmp_path: Path) -> None:
    path = tmp_path / "data.parquet"
    pq.write_table(_data(), path)
    api = ds.suda(str(path), KEYS, dis_fraction=0.05)
    tables, err, code = _shell(ds.suda_to_sql(str(path), KEYS, dis_fraction=0.05), tmp_path)
    assert code == 0, err
    attributes, levels, msu_counts, dis_table, records = tables
    _assert_rows(attributes, api.attributes.to_pylist())
    _assert_rows(levels, api.levels.to_pylist())
    _assert_rows(msu_counts, api.msu_counts.to_pylist())
    _assert_rows(dis_table, api.dis_table.to_pylist())
    assert api.records is not None
    _assert_rows(records, api.records.to_pylist())
    assert sum(api.msu_counts.column("records").to_pylist()) > 0  # the checks are not vacuous


def test_cli_suda_sql(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from discosql.cli.main import main

    path = tmp_path / "data.parquet"
    pq.write_table(_data(), path)
    script = tmp_path / "suda.sql"
    argv = ["suda", str(path), "--keys", ",".join(KEYS), "--max-size", "3"]
    assert main([*argv, "--sql", str(script), "--out", str(tmp_path / "s.parquet")]) == 0
    tables, err, code = _shell(script.read_text(), tmp_path)
    assert code == 0, err
    api = ds.suda(str(path), KEYS, max_size=3)
    _assert_rows(tables[0], api.attributes.to_pylist())
    assert len(tables) == 4  # the records went to the file
    written = pq.read_table(tmp_path / "s.parquet")
    assert api.records is not None
    _assert_rows(written.to_pylist(), api.records.to_pylist())
    capsys.readouterr()
    for extra, message in [
        (["--table", "t"], "--dialect/--table: only with --sql"),
        (["--sql", str(script), "--format", "json", "--overwrite"], "not with --sql"),
    ]:
        assert main([*argv, *extra]) == 2
        assert message in capsys.readouterr().err


def test_script_writes_the_file_or_table(tmp_path: Path) -> None:
    path = tmp_path / "data.parquet"
    pq.write_table(_data(), path)
    api = ds.risk(str(path), KEYS, **RISK_KW).records
    assert api is not None
    out = tmp_path / "risk.parquet"
    script = ds.risk_to_sql(str(path), KEYS, out=str(out), **RISK_KW)
    tables, err, code = _shell(script, tmp_path)
    assert code == 0, err
    assert len(tables) == 2  # the summary and the riskiest cells; the records went to the file
    written = pq.read_table(out)  # Fk is Fk_population: DuckDB's COPY would rename it
    assert written.column_names == ["row", "fk", "Fk_population", "risk", "hier_risk"]
    assert written.rename_columns(api.column_names).equals(api)
    script = ds.risk_to_sql(str(path), KEYS, out_table="risk_out", **RISK_KW)
    script += '\nSELECT * FROM risk_out ORDER BY "row";\n'
    tables, err, code = _shell(script, tmp_path)
    assert code == 0, err
    assert list(tables[-1][0]) == ["row", "fk", "Fk_population", "risk", "hier_risk"]
    _assert_rows(_fk(tables[-1]), api.to_pylist())


# (id, the change made to the data after the export, what the stop names; None: still holds)
CHANGES = [
    ("new_key_level", lambda t: _set(t, "roof", 7, 99), "key 'roof' has more than the"),
    (
        "bad_weights",
        lambda t: _set(_set(t, WEIGHT, 3, 0.0), WEIGHT, 5, -1.0),
        "found 0 missing, 1 zero, 1 negative, 0 infinite weight(s)",
    ),
    (
        "infinite_weight",
        lambda t: _set(_set(_as_float(t), WEIGHT, 3, float("inf")), WEIGHT, 5, float("-inf")),
        "found 0 missing, 0 zero, 0 negative, 2 infinite weight(s)",
    ),
    ("fewer_levels", lambda t: t.slice(0, 2000), None),
]


def _as_float(table: pa.Table) -> pa.Table:
    """The weights as doubles (the test data's are integers, which hold no Infinity)."""
    i = table.schema.get_field_index(WEIGHT)
    return table.set_column(i, WEIGHT, table.column(WEIGHT).cast(pa.float64()))


def _set(table: pa.Table, column: str, row: int, value: Any) -> pa.Table:
    values = table.column(column).to_pylist()
    values[row] = value
    i = table.schema.get_field_index(column)
    return table.set_column(i, column, pa.array(values, table.schema.field(column).type))


@pytest.mark.parametrize(("case", "change", "stop"), CHANGES, ids=[c[0] for c in CHANGES])
def test_the_risk_script_stops_or_gives_the_api_result(
    case: str, change: Any, stop: str | None, tmp_path: Path
) -> None:
    path = tmp_path / "data.parquet"
    pq.write_table(_data(), path)
    script = ds.risk_to_sql(str(path), KEYS, **RISK_KW)
    changed = change(_data())
    pq.write_table(changed, path)
    tables, err, code = _shell(script, tmp_path)
    if stop is None:
        assert code == 0, err
        api = ds.risk(changed, KEYS, **RISK_KW)
        _assert_rows(tables[0], _summary_rows(api.summary))
        return
    assert code != 0
    assert tables == []  # nothing printed: the check runs before anything is counted
    assert "discosql" in err
    assert stop in err


def test_risk_scripts_parse_and_are_portable() -> None:
    data = _data()
    for dialect in ("postgres", "spark", "databricks"):
        script = ds.risk_to_sql(data, KEYS, dialect=dialect, table="s.persons", **RISK_KW)
        assert len(assert_portable(script, dialect)) > 10
        script = ds.ldiversity_to_sql(data, KEYS, SENSITIVE, dialect=dialect, table="s.persons")
        assert len(assert_portable(script, dialect)) > 10
        script = ds.suda_to_sql(data, KEYS, dialect=dialect, table="s.persons", max_size=3)
        assert len(assert_portable(script, dialect)) > 10


def test_risk_to_sql_checks_its_arguments_first() -> None:
    missing = "missing.parquet"
    cases = [
        ({"dialect": "bigquery"}, "dialect: 'bigquery' is not one of"),
        ({"dialect": "postgres", "out": "x.parquet"}, "cannot write files"),
        ({"out": "x.json"}, "must end in .parquet or .csv"),
        ({"table": ""}, "table: expected a table name"),
        ({"overwrite": "yes", "out_table": "t"}, "overwrite: expected True or False"),
        ({"alpha": 2}, "alpha: expected a number in [0, 1]"),
    ]
    for kw, message in cases:
        with pytest.raises(ds.InputError, match=re.escape(message)):
            ds.risk_to_sql(missing, KEYS, **kw)
    with pytest.raises(ds.InputError, match="l_recurs_c"):
        ds.ldiversity_to_sql(missing, KEYS, SENSITIVE, l_recurs_c=0)
    with pytest.raises(ds.InputError, match=re.escape("give its table name, e.g. table='db.")):
        ds.risk_to_sql(_data(), KEYS)  # Arrow data: the script cannot read them


def _postgres_risk(pg_dsn: str, tmp_path: Path) -> None:
    import psycopg

    data = _data()
    with psycopg.connect(pg_dsn, autocommit=True) as con:
        con.execute("CREATE SCHEMA IF NOT EXISTS riskx")
    engine_data.load_postgres(pg_dsn, {"riskx.persons": data})
    script = ds.risk_to_sql(data, KEYS, dialect="postgres", table="riskx.persons", **RISK_KW)
    summary, riskiest, records = engine_data.run_postgres_script(pg_dsn, script)
    api = ds.risk(data, KEYS, **RISK_KW)
    _assert_rows(summary, _summary_rows(api.summary))
    _assert_rows(riskiest, api.riskiest.to_pylist())
    # PostgreSQL numbers the records in ctid order, which its COPY need not keep: as multisets
    assert api.records is not None
    key = ("fk", "Fk", "risk", "hier_risk")

    def rounded(rows: list[dict[str, Any]]) -> list[tuple[float, ...]]:
        return sorted(tuple(float(f"{r[k]:.10g}") for k in key) for r in rows)

    assert rounded(_fk(records)) == rounded(api.records.to_pylist())


def _spark_ldiversity(spark: Any, tmp_path: Path) -> None:
    """l-diversity's script, and risk's summary."""
    data = _data()
    pq.write_table(data, tmp_path / "persons.parquet")
    spark.sql("CREATE DATABASE IF NOT EXISTS riskx")
    frame = spark.read.parquet(str(tmp_path / "persons.parquet"))
    frame.write.mode("overwrite").saveAsTable("riskx.persons")
    script = ds.ldiversity_to_sql(data, KEYS, SENSITIVE, dialect="spark", table="riskx.persons")
    summary, records = engine_data.run_spark_script(spark, script)
    api = ds.ldiversity(data, KEYS, SENSITIVE)
    _assert_rows(summary, api.summary.to_pylist())
    assert api.records is not None
    assert len(records) == api.records.num_rows
    script = ds.risk_to_sql(data, KEYS, dialect="spark", table="riskx.persons", **RISK_KW)
    summary, _, _ = engine_data.run_spark_script(spark, script)
    _assert_rows(summary, _summary_rows(ds.risk(data, KEYS, **RISK_KW).summary))


@on_script_engines_each(
    ("kind",),
    {"duckdb_shell": [("parquet",), ("csv",)], "postgres": [pytest.param(None, id="table")]},
)
def test_a_script_prints_the_api_risk(script_engine: Started, tmp_path: Path, kind: Any) -> None:
    if script_engine.name == "duckdb_shell":
        _shell_risk(None, tmp_path, kind)
    else:
        _postgres_risk(script_engine.server, tmp_path)


RULES = [
    pytest.param({}, id="rules0"),
    pytest.param({"missing_keys": "apart", "missing_sensitive": "distinct"}, id="rules1"),
    pytest.param({"missing_keys": "equal", "missing_sensitive": "ignore"}, id="rules2"),
]


@on_script_engines_each(
    ("rules",), {"duckdb_shell": RULES, "spark": [pytest.param({}, id="table")]}
)
def test_a_script_prints_the_api_ldiversity(
    script_engine: Started, tmp_path: Path, rules: dict[str, str]
) -> None:
    if script_engine.name == "duckdb_shell":
        _shell_ldiversity(None, tmp_path, rules)
    else:
        _spark_ldiversity(script_engine.server, tmp_path)


def test_cli_risk_sql_and_out_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """discosql risk ... --sql FILE writes the risk and l-diversity scripts; the shell runs
    them to the API's numbers. --out-table (live) makes the per-record tables in --out
    FILE.duckdb and prints the summary."""
    import duckdb

    from discosql.cli.main import main

    path = tmp_path / "data.parquet"
    pq.write_table(_data(), path)
    argv = [
        "risk",
        str(path),
        "--keys",
        ",".join(KEYS),
        "--weight",
        WEIGHT,
        "--ldiversity",
        ",".join(SENSITIVE),
    ]
    script = tmp_path / "risk.sql"
    assert main([*argv, "--sql", str(script), "--out-table", "r"]) == 0, capsys.readouterr().err
    tables, err, code = _shell(
        script.read_text() + "SELECT count(*) AS n FROM r_ldiversity;\n", tmp_path
    )
    assert code == 0, err
    summary, _, l_summary, count = tables
    _assert_rows(summary, _summary_rows(ds.risk(str(path), KEYS, weight=WEIGHT).summary))
    _assert_rows(l_summary, ds.ldiversity(str(path), KEYS, SENSITIVE).summary.to_pylist())
    assert count == [{"n": 4580}]
    db = tmp_path / "out.duckdb"
    capsys.readouterr()
    assert main([*argv, "--out", str(db), "--out-table", "rec"]) == 0
    assert "expected re-identifications" in capsys.readouterr().out
    con = duckdb.connect(str(db))
    try:
        names = {r[0] for r in con.sql("SELECT table_name FROM duckdb_tables()").fetchall()}
    finally:
        con.close()
    assert names == {"rec", "rec_ldiversity"}
    bad = [
        (["--table", "t"], "--dialect/--table: only with --sql"),
        (["--sql", str(script), "--format", "json", "--overwrite"], "not with --sql"),
        (["--out-table", "t", "--format", "csv"], "--out-table: the per-record table"),
    ]
    for extra, message in bad:
        assert main([*argv, *extra]) == 2
        err = capsys.readouterr().err
        assert message in err
        assert "Traceback" not in err
