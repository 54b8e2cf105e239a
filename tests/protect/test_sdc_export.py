"""sdc_to_sql: the exported sdc() script, run by the duckdb shell, DataFusion, PostgreSQL and
Spark, creates the protected syntheses of the API (the same records, the same removals), on
data with recoding, both kinds of removal step and a grouped rm_disclosive target. Run on data
changed after the export, it stops (a key with more levels than its q packing was fixed for,
other grouping breaks) or gives the API's result for the new data, never other records."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import discosql as ds

from .. import engine_data
from ..helpers.data import changed, sd2011_pair
from ..helpers.engines import Started, on_script_engines
from ..helpers.shell import run_datafusion, shell_result
from ..helpers.sql import assert_portable, strip_strings

KW: dict[str, Any] = {
    "keys": ["sex", "age", "region", "placesize"],
    "rm_replicated_uniques": True,
    "recode_vars": "age",
    "bottom_top_coding": (None, 80),
    "rm_disclosive": [
        {"target": "depress", "keys": ["sex", "age", "region"]},
        {
            "target": "income",
            "keys": ["sex", "age", "placesize"],
            "ngroups_target": 5,
            "exclude_ov_denom_lim": True,
            "use_keys_na": False,
        },
    ],
}
NAMES = ("orig", "syn_1", "syn_2")


def _tables() -> dict[str, pa.Table]:
    data = Path(ds.__file__).parent / "data"
    return {
        n: pq.read_table(data / f"{f}.parquet")
        for n, f in zip(NAMES, ("sd2011", "syn_1", "syn_2"), strict=True)
    }


def _api(tables: dict[str, pa.Table], **kw: Any) -> ds.SdcResult:
    return ds.sdc(tables["orig"], [tables["syn_1"], tables["syn_2"]], **{**KW, **kw})


def _sorted(table: Any) -> list[str]:
    rows = table if isinstance(table, list) else table.to_pylist()
    return sorted(map(str, rows))


def _removed(rows: list[dict[str, Any]]) -> list[tuple[int, str, int]]:
    """(synthesis, reason, records) of the removed table, for the steps that removed any."""
    return [
        (int(r["synthesis"]), r["reason"], int(r.get("n", r.get("rows", 0))))
        for r in rows
        if int(r.get("n", r.get("rows", 0)))
    ]


def _shell(script: str, cwd: Path, *args: str) -> tuple[list[Any], str, int]:
    """The duckdb shell with ``args`` only (none: it goes on after an error)."""
    return shell_result(script, cwd, args)


def _files(tmp: Path, tables: dict[str, pa.Table]) -> dict[str, str]:
    paths = {n: str(tmp / f"{n}.parquet") for n in NAMES}
    for n in NAMES:
        pq.write_table(tables[n], paths[n])
    return paths


def test_a_file_export_writes_the_api_files(tmp_path: Path) -> None:
    """Files (COPY; the duckdb shell's script, the one dialect that writes files), with
    label and suffix: the API's records, recode counts and removals."""
    tables = _tables()
    paths = _files(tmp_path, tables)
    kw = {"label": "protected", "suffix": "_p"}
    script = ds.sdc_to_sql(
        paths["orig"],
        [paths["syn_1"], paths["syn_2"]],
        out=str(tmp_path / "p_{synthesis}.parquet"),
        **KW,
        **kw,
    )
    results, err, code = _shell(script, tmp_path, "-bail")
    assert code == 0, err
    ref = _api(tables, **kw)
    recoded, removed, check = results
    assert [(r["synthesis"], r["bottom_coded"], r["top_coded"]) for r in recoded] == [
        (r["synthesis"], r["bottom_coded"], r["top_coded"]) for r in ref.recoded.to_pylist()
    ]
    assert _removed(removed) == _removed(ref.removed.to_pylist())
    assert len({r["reason"] for r in removed}) == 3  # every step removed records
    assert check == [{"ok_1": None, "ok_2": None}]
    for j, want in enumerate(ref.synthetic, start=1):
        got = pq.read_table(tmp_path / f"p_{j}.parquet")
        assert got.column_names == want.column_names
        assert _sorted(got) == _sorted(want)  # a table has no order
    assert "$" not in strip_strings(re.sub(r"--[^\n]*", "", script))  # values are literals


def _shell_creates(server: None, tmp_path: Path) -> None:
    """The duckdb shell's tables, in its database file; a second run refuses to overwrite
    them, unless overwrite=True."""
    tables = _tables()
    paths = _files(tmp_path, tables)
    syn = [paths["syn_1"], paths["syn_2"]]
    script = ds.sdc_to_sql(paths["orig"], syn, out_table="main.safe_{synthesis}", **KW)
    _, err, code = _shell(script, tmp_path, "-bail", "out.duckdb")
    assert code == 0, err
    ref = _api(tables)
    for j, want in enumerate(ref.synthetic, start=1):
        got = duckdb.connect(str(tmp_path / "out.duckdb")).table(f"safe_{j}").to_arrow_table()
        assert _sorted(got) == _sorted(want)
    _, err, code = _shell(script, tmp_path, "-bail", "out.duckdb")
    assert code != 0
    assert "already exists" in err
    again = ds.sdc_to_sql(paths["orig"], syn, out_table="safe_{synthesis}", overwrite=True, **KW)
    _, err, code = _shell(again, tmp_path, "-bail", "out.duckdb")
    assert code == 0, err


def _datafusion_creates(server: None, tmp_path: Path) -> None:
    tables = _tables()
    paths = _files(tmp_path, tables)
    names = {"original": "orig", "synthetic": ["syn_1", "syn_2"]}
    script = ds.sdc_to_sql(
        tables["orig"],
        [tables["syn_1"], tables["syn_2"]],
        dialect="datafusion",
        tables=names,
        out_table="safe_{synthesis}",
        **KW,
    )
    import datafusion

    ctx = datafusion.SessionContext()
    results = run_datafusion(script, paths, ctx)
    ref = _api(tables)
    assert _removed(results[1].to_pylist()) == _removed(ref.removed.to_pylist())
    for j, want in enumerate(ref.synthetic, start=1):
        assert _sorted(ctx.table(f"safe_{j}").to_arrow_table()) == _sorted(want)


def _postgres_creates(pg_dsn: str, tmp_path: Path) -> None:
    import psycopg

    tables = _tables()
    with psycopg.connect(pg_dsn, autocommit=True) as con:
        con.execute("CREATE SCHEMA IF NOT EXISTS sdcx")
        con.execute("DROP TABLE IF EXISTS sdcx.safe_1, sdcx.safe_2")
    engine_data.load_postgres(pg_dsn, {f"sdcx.{n}": t for n, t in tables.items()})
    names = {"original": "sdcx.orig", "synthetic": ["sdcx.syn_1", "sdcx.syn_2"]}
    script = ds.sdc_to_sql(
        tables["orig"],
        [tables["syn_1"], tables["syn_2"]],
        dialect="postgres",
        tables=names,
        out_table="sdcx.safe_{synthesis}",
        **KW,
    )
    removed = next(r for r in engine_data.run_postgres_script(pg_dsn, script) if "reason" in r[0])
    with psycopg.connect(pg_dsn) as con:
        written = []
        for j in (1, 2):
            cur = con.execute(f"SELECT * FROM sdcx.safe_{j}")
            cols = [d.name for d in cur.description or []]
            written.append([dict(zip(cols, r, strict=True)) for r in cur.fetchall()])
    ref = _api(tables)
    assert _removed(removed) == _removed(ref.removed.to_pylist())
    for got, want in zip(written, ref.synthetic, strict=True):
        assert _sorted(got) == _sorted(want)


def _spark_creates(spark: Any, tmp_path: Path) -> None:
    tables = _tables()
    spark.sql("CREATE DATABASE IF NOT EXISTS sdcx")
    for name, path in _files(tmp_path, tables).items():  # Parquet keeps the integer types
        spark.read.parquet(path).write.mode("overwrite").saveAsTable(f"sdcx.{name}")
    for j in (1, 2):
        spark.sql(f"DROP TABLE IF EXISTS sdcx.safe_{j}").collect()
    names = {"original": "sdcx.orig", "synthetic": ["sdcx.syn_1", "sdcx.syn_2"]}
    script = ds.sdc_to_sql(
        tables["orig"],
        [tables["syn_1"], tables["syn_2"]],
        dialect="spark",
        tables=names,
        out_table="sdcx.safe_{synthesis}",
        **KW,
    )
    removed = next(r for r in engine_data.run_spark_script(spark, script) if "reason" in r[0])
    ref = _api(tables)
    assert _removed(removed) == _removed(ref.removed.to_pylist())
    for j, want in enumerate(ref.synthetic, start=1):
        assert _sorted(spark.table(f"sdcx.safe_{j}").toArrow()) == _sorted(want)


@on_script_engines()
def test_a_script_creates_the_api_tables(script_engine: Started, tmp_path: Path) -> None:
    """out_table=: the tables each script engine creates hold the API's records, and the
    removals it prints are the API's."""
    creates = {
        "duckdb_shell": _shell_creates,
        "datafusion": _datafusion_creates,
        "postgres": _postgres_creates,
        "spark": _spark_creates,
    }
    creates[script_engine.name](script_engine.server, tmp_path)


# (id, the change to every third record, what the stop message names; None: still holds)
# A grouped rm_disclosive target is grouped on the records the earlier steps kept, so any
# change of the data that changes which records are unique changes its grouping statistics:
# the change that keeps every decision is run without the grouped entry.
CHANGES = [
    (
        "new_key_levels",
        "case when n % 3 = 0 then region || ' (new)' else region end as region",
        "key 'region' has more than the",
        KW,
    ),
    (
        "grouping_breaks",
        "case when n % 3 = 0 then income * 2 else income end as income",
        "grouping breaks of target 'income'",
        KW,
    ),
    (
        "rows_changed",
        "case when n % 4 = 0 then NULL else age end as age",
        "grouping breaks of target 'income'",
        KW,
    ),
    (
        "still_valid",
        "case when n % 4 = 0 then NULL else age end as age",
        None,
        {**KW, "rm_disclosive": KW["rm_disclosive"][:1]},
    ),
]


@pytest.mark.parametrize(("case", "change", "stop", "kw"), CHANGES, ids=[c[0] for c in CHANGES])
def test_the_sdc_script_stops_or_gives_the_api_result(
    tmp_path: Path, case: str, change: str, stop: str | None, kw: dict[str, Any]
) -> None:
    """Exported from SD2011, run on data changed since: the stop message and no table, or the
    API's records for the new data."""
    before = sd2011_pair()
    before = {"orig": before["orig"], "syn_1": before["syn"], "syn_2": _tables()["syn_2"]}
    after = changed(before, change)
    paths = _files(tmp_path, before)
    script = ds.sdc_to_sql(
        paths["orig"],
        [paths["syn_1"], paths["syn_2"]],
        out=str(tmp_path / "p_{synthesis}.parquet"),
        **kw,
    )
    _files(tmp_path, after)
    results, err, code = _shell(script, tmp_path)  # no -bail: the shell goes on after errors
    if stop is None:
        assert code == 0, err
        ref = ds.sdc(after["orig"], [after["syn_1"], after["syn_2"]], **kw)
        assert _removed(results[1]) == _removed(ref.removed.to_pylist())
        for j, want in enumerate(ref.synthetic, start=1):
            assert _sorted(pq.read_table(tmp_path / f"p_{j}.parquet")) == _sorted(want)
    else:
        assert stop in err, f"{case}: {err}"
        assert "re-export the script" in err
        assert not list(tmp_path.glob("p_*.parquet")), "a protected file was written"


def test_the_last_check_stops_when_the_counts_do_not_add_up() -> None:
    """sdc/check_written on tables whose counts disagree: 10 given, 8 written, 1 removed."""
    from discosql.sql.templates import render

    con = duckdb.connect()
    con.execute("CREATE TABLE given AS SELECT range AS x FROM range(10)")
    con.execute("CREATE TABLE written AS SELECT range AS x FROM range(8)")
    con.execute("CREATE TABLE cells AS SELECT 1 AS synthesis, 1 AS n")
    outputs = [{"synthesis": 1, "given": "given", "written": "written", "message": "m"}]
    sql = render(
        "sdc/check_written.sql.j2", "duckdb", outputs=outputs, removed=[{"table": "cells"}]
    )
    with pytest.raises(duckdb.Error, match=r"do not add up \(8, 1, 10\)"):
        con.execute(sql, {"m": "do not add up ("}).fetchall()
    con.execute("INSERT INTO cells VALUES (1, 1)")
    assert con.execute(sql, {"m": "do not add up ("}).fetchall() == [(None,)]


@pytest.mark.parametrize(
    "dialect", ["postgres", "spark", "databricks", "bigquery", "snowflake", "trino", "tsql"]
)
def test_sdc_scripts_parse_and_are_portable(dialect: str) -> None:
    tables = _tables()
    names = {"original": "s.orig", "synthetic": ["s.syn_1", "s.syn_2"]}
    script = ds.sdc_to_sql(
        tables["orig"],
        [tables["syn_1"], tables["syn_2"]],
        dialect=dialect,
        tables=names,
        out_table="s.safe_{synthesis}",
        **KW,
    )
    assert len(assert_portable(script, dialect)) > 10


def test_sdc_to_sql_checks_its_arguments_first() -> None:
    missing = "missing.parquet"
    cases = [
        ({"dialect": "oracle", "out_table": "t"}, "dialect: 'oracle' is not one of"),
        ({}, "out_table: give the tables to create"),
        ({"out": "x.parquet", "out_table": "t"}, "out_table: give the tables to create"),
        ({"dialect": "postgres", "out": "x.parquet"}, "cannot write files"),
        ({"out": "x.json"}, "must end in .parquet or .csv"),
        ({"out_table": "t", "rm_replicated_uniques": "yes"}, "expected True or False"),
        ({"out_table": "t", "tables": {"synthetic": ["a", "b"]}}, "'synthetic' names 2 table"),
    ]
    for kw, message in cases:
        with pytest.raises(ds.InputError, match=re.escape(message)):
            ds.sdc_to_sql(missing, missing, **kw)
    with pytest.raises(ds.InputError, match="put \\{synthesis\\} in it"):
        ds.sdc_to_sql(missing, [missing, missing], out_table="t")


def test_cli_sdc_sql(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """discosql sdc ... --sql FILE writes the script; the shell runs it to the API's files."""
    from discosql.cli.main import main

    tables = _tables()
    paths = _files(tmp_path, tables)
    script = tmp_path / "sdc.sql"
    argv = [
        "sdc",
        paths["orig"],
        paths["syn_1"],
        paths["syn_2"],
        "--keys",
        "sex,age,region,placesize",
        "--rm-replicated-uniques",
        "--recode",
        "age=,80",
        "--rm-disclosive",
        "depress:sex,age,region",
        "--out",
        str(tmp_path / "p_{synthesis}.parquet"),
    ]
    assert main([*argv, "--sql", str(script)]) == 0, capsys.readouterr().err
    _, err, code = _shell(script.read_text(), tmp_path, "-bail")
    assert code == 0, err
    ref = _api(tables, rm_disclosive=KW["rm_disclosive"][:1])
    for j, want in enumerate(ref.synthetic, start=1):
        assert _sorted(pq.read_table(tmp_path / f"p_{j}.parquet")) == _sorted(want)
    capsys.readouterr()
    bad = [
        (["--sql", str(script), "--measure", "--overwrite"], "--measure: not with --sql"),
        (["--dialect", "postgres"], "only with --sql"),
        (["--sql", str(script), "--dialect", "postgres", "--overwrite"], "cannot write files"),
    ]
    for extra, message in bad:
        assert main([*argv, *extra]) == 2
        err = capsys.readouterr().err
        assert message in err
        assert "Traceback" not in err
