"""The warehouse analyst's day on PostgreSQL with the usual least-privilege grant.

The server the tests start gets a database ``stats`` with a schema ``survey`` (SD2011 and two
syntheses), a schema ``scratch`` nobody may create in, and two login roles: ``analyst`` (USAGE
on ``survey``, SELECT on its tables, TEMPORARY on the database, nothing else) and ``notemp``
(the same without TEMPORARY). Every call either gives DuckDB's numbers as ``analyst`` or
stops with one InputError naming the GRANT to ask for, before a row is counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import discosql as ds
from discosql.cli.main import main

from .. import engine_data, oracle
from ..helpers.compare import assert_same

KEYS = ["sex", "age", "region", "placesize"]
TABLES = ("sd2011", "syn_1", "syn_2")


def _conninfo(dsn: str, **given: str) -> str:
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    return make_conninfo(**{**conninfo_to_dict(dsn), **given})


@pytest.fixture(scope="module")
def roles(pg_dsn: str) -> Iterator[dict[str, str]]:
    """{role: its DSN} for analyst, notemp and the admin, on the database stats; removed
    afterwards."""
    import psycopg

    with psycopg.connect(pg_dsn, autocommit=True) as con:
        con.execute("DROP DATABASE IF EXISTS stats")
        con.execute("CREATE DATABASE stats")
        for role in ("analyst", "notemp"):
            con.execute(f"DROP ROLE IF EXISTS {role}")
            con.execute(f"CREATE ROLE {role} LOGIN")
    admin = _conninfo(pg_dsn, dbname="stats")
    tables = engine_data.oracle_tables()
    with psycopg.connect(admin, autocommit=True) as con:
        con.execute("CREATE SCHEMA survey")
        con.execute("CREATE SCHEMA scratch")
    engine_data.load_postgres(admin, {f"survey.{n}": tables[n] for n in TABLES})
    with psycopg.connect(admin, autocommit=True) as con:
        for sql in (
            "REVOKE ALL ON DATABASE stats FROM PUBLIC",
            "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
            "GRANT CONNECT, TEMPORARY ON DATABASE stats TO analyst",
            "GRANT CONNECT ON DATABASE stats TO notemp",
            "GRANT USAGE ON SCHEMA survey, scratch TO analyst, notemp",
            "GRANT SELECT ON ALL TABLES IN SCHEMA survey TO analyst, notemp",
        ):
            con.execute(sql)
    yield {r: _conninfo(pg_dsn, dbname="stats", user=r) for r in ("analyst", "notemp")} | {
        "admin": admin
    }
    with psycopg.connect(pg_dsn, autocommit=True) as con:
        con.execute("DROP DATABASE stats WITH (FORCE)")
        con.execute("DROP ROLE analyst")
        con.execute("DROP ROLE notemp")


def _left_in(dsn: str) -> list[str]:
    """discosql's relations in the database, seen by another session (temporary ones too)."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as con:
        rows = con.execute("SELECT relname FROM pg_class WHERE relname LIKE '\\_\\_disco%'")
        return [r[0] for r in rows.fetchall()]


def _files() -> dict[str, str]:
    return {n: str(oracle.ORACLE / f"{n}.csv") for n in TABLES}


SDC: dict[str, Any] = {
    "keys": KEYS,
    "rm_replicated_uniques": True,
    "measure": {"targets": ["depress", "income"], "ngroups_targets": 4},
}


def test_sdc_measured_as_a_role_with_only_temporary(roles: dict[str, str]) -> None:
    files = _files()
    ref = ds.sdc(files["sd2011"], [files["syn_1"], files["syn_2"]], **SDC)
    got = ds.sdc("survey.sd2011", ["survey.syn_1", "survey.syn_2"], engine=roles["analyst"], **SDC)
    assert got.removed.to_pylist() == ref.removed.to_pylist()
    assert got.after is not None
    assert ref.after is not None
    assert_same(got.after, ref.after, ("table",))
    assert _left_in(roles["analyst"]) == []


def test_the_readme_report_with_sdc_runs_as_that_role(
    roles: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's report command (with --sdc replicated) on the server's tables."""
    out = tmp_path / "report.html"
    argv = ["report", "survey.sd2011", "survey.syn_1", "survey.syn_2", "--keys", ",".join(KEYS)]
    argv += ["--ngroups-targets", "5", "--sweep", "--sdc", "replicated"]
    argv += ["--threshold", "repU=10", "--threshold", "DiSCO=20", "--out", str(out)]
    code = main([*argv, "--engine", roles["analyst"]])
    assert code == 0, capsys.readouterr().err
    html = out.read_text()
    assert "Protection (sdc)" in html
    assert _left_in(roles["analyst"]) == []
    # the report names its database and ships the PostgreSQL script of its tables
    rep = ds.report(
        "survey.sd2011", ["survey.syn_1"], keys=KEYS, engine=roles["analyst"], ngroups_targets=5
    )
    prov = rep.content["provenance"]
    ran = {r["read by"]: r["value"] for r in prov["ran"]}
    assert ran["engine"] == "PostgreSQL"
    assert ran["version"].startswith("PostgreSQL 15")
    assert ran["database"] == "stats"
    assert ran["role"] == "analyst"
    assert ran["driver"].startswith("psycopg ")
    assert "duckdb" not in {v["component"] for v in prov["versions"]}
    prints = [d["fingerprint"] for d in prov["inputs"]]
    assert all(len(p) == 16 for p in prints)
    assert rep.sql is not None
    assert rep.sql.startswith("-- The SQL script of a discosql report (postgres)")
    assert (tmp_path / "report.sql").read_text().startswith("-- The SQL script")
    # the same records in another order: the same fingerprint
    import psycopg

    with psycopg.connect(roles["admin"], autocommit=True) as con:
        con.execute("CREATE TABLE survey.shuffled AS SELECT * FROM survey.sd2011 ORDER BY random()")
        con.execute("GRANT SELECT ON survey.shuffled TO analyst")
    from discosql.core.fingerprint import fingerprints
    from discosql.core.inputs import open_inputs

    try:
        with open_inputs(roles["analyst"], None, "survey.shuffled", ["survey.syn_2"]) as inputs:
            again = fingerprints(inputs.engine, inputs.sources)
    finally:
        with psycopg.connect(roles["admin"], autocommit=True) as con:
            con.execute("DROP TABLE survey.shuffled")
    assert again[0].value == prints[0]
    assert again[1].value != prints[1]


def test_a_role_without_temporary_is_told_the_grant(
    roles: dict[str, str], registered: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ds.InputError, match="GRANT TEMPORARY ON DATABASE") as e:
        ds.risk("survey.sd2011", keys=KEYS, engine=roles["notemp"])
    assert "'notemp'" in str(e.value)
    assert len(str(e.value).splitlines()) == 1
    assert registered == []  # refused before any data set was read
    code = main(["risk", "survey.sd2011", "--keys", ",".join(KEYS), "--engine", roles["notemp"]])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert 'GRANT TEMPORARY ON DATABASE "stats" TO "notemp"' in err


def test_out_table_needs_create_on_its_schema(roles: dict[str, str]) -> None:
    import psycopg

    data = ("survey.sd2011", ["survey.syn_1", "survey.syn_2"])
    kw: dict[str, Any] = {"keys": KEYS, "rm_replicated_uniques": True}
    with pytest.raises(ds.InputError, match='GRANT CREATE ON SCHEMA "scratch" TO "analyst"'):
        ds.sdc(*data, out_table="scratch.safe_{synthesis}", engine=roles["analyst"], **kw)
    with pytest.raises(ds.InputError, match='GRANT CREATE ON SCHEMA "public" TO "analyst"'):
        ds.risk("survey.sd2011", keys=KEYS, out_table="risk_records", engine=roles["analyst"])
    with pytest.raises(ds.InputError, match='schema "nowhere" does not exist'):
        ds.sdc(*data, out_table="nowhere.safe_{synthesis}", engine=roles["analyst"], **kw)
    # pg_temp on discosql's own connection would be gone when the call returns
    with pytest.raises(ds.InputError, match="dropped when the call returns"):
        ds.sdc(*data, out_table="pg_temp.safe_{synthesis}", engine=roles["analyst"], **kw)
    # on the analyst's own connection they stay for the session
    with psycopg.connect(roles["analyst"], autocommit=True) as con:
        res = ds.sdc(*data, out_table="pg_temp.safe_{synthesis}", engine=con, **kw)
        assert res.out == ("pg_temp.safe_1", "pg_temp.safe_2")
        n = con.execute("SELECT count(*) FROM pg_temp.safe_1").fetchone()
        assert n is not None
        assert n[0] == 5000 - res.removed.to_pylist()[0]["rows"]
    assert _left_in(roles["analyst"]) == []


def _url(dsn: str) -> str:
    from psycopg.conninfo import conninfo_to_dict

    d = conninfo_to_dict(dsn)
    return f"postgresql://{d['user']}@{d['host']}:{d['port']}/{d['dbname']}"


@pytest.fixture(params=["dsn", "psycopg", "adbc", "dbapi"])
def analyst(request: pytest.FixtureRequest, roles: dict[str, str]) -> Iterator[Any]:
    """The analyst's engine= four ways: a DSN, a psycopg connection, ADBC, ds.dbapi."""
    import adbc_driver_postgresql.dbapi
    import psycopg

    dsn = roles["analyst"]
    if request.param == "dsn":
        yield dsn
        return
    if request.param == "adbc":
        con: Any = adbc_driver_postgresql.dbapi.connect(_url(dsn), autocommit=True)
        engine: Any = con
    else:
        con = psycopg.connect(dsn, autocommit=True)
        engine = con if request.param == "psycopg" else ds.dbapi(con, dialect="postgres")
    try:
        yield engine
    finally:
        con.close()


def test_one_naming_rule_on_every_way_in(analyst: Any) -> None:
    """SURVEY.SD2011, "survey"."sd2011", stats.survey.sd2011 and ("survey", "sd2011") name
    one table; a file, a misspelling, another database and a schema fail in one line."""
    want = ds.risk(str(oracle.ORACLE / "sd2011.csv"), keys=KEYS)
    for name in ("SURVEY.SD2011", '"survey"."sd2011"', "stats.survey.sd2011", ("survey", "sd2011")):
        with pytest.warns(ds.DiscoSQLWarning, match="give id="):  # rows in ctid order
            got = ds.risk(name, keys=KEYS, engine=analyst)
        assert_same(got, want, ("summary", "riskiest"))
    refused = {
        "adult.csv": "is a file path",
        "survey.sd2012": "did you mean 'survey.sd2011'?",
        "other.survey.sd2011": "connect to 'other'",
        '"SURVEY"."SD2011"': "no table or view",
        "survey": "'survey' is a schema (its tables: sd2011, syn_1, syn_2)",
    }
    for name, message in refused.items():
        with pytest.raises(ds.InputError) as e:
            ds.risk(name, keys=KEYS, engine=analyst)
        text = str(e.value)
        assert message in text, text
        assert "\n" not in text
        assert "LINE" not in text
        assert "^" not in text
    # a (schema, table) tuple as the synthetic data is several syntheses: said so
    with pytest.raises(ds.InputError, match="'survey' is a schema"):
        ds.disclosure(
            "survey.sd2011", ("survey", "syn_1"), keys=KEYS, target="depress", engine=analyst
        )


def test_ctrl_c_through_adbc_is_an_interrupt(roles: dict[str, str]) -> None:
    """SIGINT while ADBC runs a statement: ADBC cancels it and raises its CANCELLED error
    from the interrupt, which discosql passes on as a KeyboardInterrupt (not an EngineError
    quoting the statement); nothing is left in the connection."""
    import os
    import signal
    import threading

    import adbc_driver_postgresql.dbapi
    import psycopg

    with psycopg.connect(roles["admin"], autocommit=True) as con:
        con.execute(
            "CREATE VIEW survey.slow AS SELECT g % 3 AS a FROM generate_series(1, 8000) AS g, "
            "LATERAL (SELECT pg_sleep(0.0005 * (1 + g % 2))) AS s"
        )
        con.execute("GRANT SELECT ON survey.slow TO analyst")
    timer = threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGINT))
    try:
        with adbc_driver_postgresql.dbapi.connect(_url(roles["analyst"]), autocommit=True) as con:
            timer.start()
            with pytest.raises(KeyboardInterrupt):
                ds.risk("survey.slow", keys=["a"], engine=con)
            with con.cursor() as cur:
                cur.execute("SELECT relname FROM pg_class WHERE relnamespace = pg_my_temp_schema()")
                assert [r[0] for r in cur.fetchall() if r[0].startswith("__disco")] == []
    finally:
        timer.cancel()
        with psycopg.connect(roles["admin"], autocommit=True) as con:
            con.execute("DROP VIEW survey.slow")


def test_a_view_has_per_record_tables(roles: dict[str, str]) -> None:
    """A view has no ctid: its records are numbered in the order PostgreSQL scans them (a
    plain view of a table: the table's), with the same warning."""
    import psycopg

    with psycopg.connect(roles["admin"], autocommit=True) as con:
        con.execute("CREATE VIEW survey.sd2011_v AS SELECT * FROM survey.sd2011")
        con.execute("GRANT SELECT ON survey.sd2011_v TO analyst")
    try:
        with pytest.warns(ds.DiscoSQLWarning, match="give id="):
            view = ds.risk("survey.sd2011_v", keys=KEYS, engine=roles["analyst"])
        with pytest.warns(ds.DiscoSQLWarning, match="give id="):
            table = ds.risk("survey.sd2011", keys=KEYS, engine=roles["analyst"])
        assert view.records is not None
        assert table.records is not None
        assert view.records.num_rows == 5000
        assert (
            view.records.drop_columns(["row"])
            .sort_by("risk")
            .equals(table.records.drop_columns(["row"]).sort_by("risk"))
        )
    finally:
        with psycopg.connect(roles["admin"], autocommit=True) as con:
            con.execute("DROP VIEW survey.sd2011_v")
