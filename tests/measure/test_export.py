"""Exported SQL: the duckdb shell runs the script and prints the same tables as the API; the
PostgreSQL script (one whole golden file, which the PostgreSQL test runs on a server) and the
other dialects' statements (one snapshot per template and dialect, in tests/snapshots/) are
stable, lint-clean and parse in their dialect.

Refresh the golden file and the snapshots after an intended change with
DISCOSQL_UPDATE_GOLDEN=1 and review the diff: a change to one template shows as that template's
snapshots only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import sqlglot

import discosql as ds
from discosql.core.results import computed_tables
from discosql.sql.dialects import facts

from .. import engine_data
from ..helpers.compare import assert_value
from ..helpers.engines import Started, on_script_engines
from ..helpers.oracle import CALLS, call_kwargs, replay
from ..helpers.shell import run_datafusion, run_shell
from ..helpers.sql import assert_portable, strip_strings, untokened


def printed(ref: ds.DisclosureResult) -> list[str]:
    """The tables a script of ``ref``'s options prints, in order."""
    return [t.name for t in computed_tables(ref.spec)]


GOLDEN = Path(__file__).parents[1] / "golden"
SNAPSHOTS = Path(__file__).parents[1] / "snapshots"
SHELL_CASES = [
    "sd_depress_default",  # m = 5
    "sd_depress_m1_dataframe",  # m = 1
    "sd_workab_all_exclusions",  # every exclusion step, usekeysNA
    "sd_marital_exclude",  # key/target exclusions
    "sd_depress_ngroups_keys_and_target",  # grouping of keys and target
    "sd_income_ngroups20_cna",  # quantile grouping with a cont.na code
    "sd_ls_thresholds",  # both checks fire
]
CLI_CALLS = [c for c in CALLS if c[0] in SHELL_CASES]


@pytest.fixture(scope="module")
def parquet(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return engine_data.write_parquet(
        tmp_path_factory.mktemp("parquet"), engine_data.oracle_tables()
    )


def _shell_export(parquet: dict[str, str], tmp_path: Path, case_id: str, target: str) -> None:
    kw, syn = call_kwargs(case_id, target)
    script = ds.to_sql(parquet["sd2011"], [parquet[s] for s in syn], target=target, **kw)
    tables = run_shell(script, tmp_path)
    _check_rows(tables, replay(case_id, target))


def _check_rows(tables: list[list[dict[str, Any]]], ref: ds.DisclosureResult) -> None:
    """The rows the duckdb shell printed for each table are ``ref``'s."""
    assert len(tables) == len(printed(ref))
    for name, rows in zip(printed(ref), tables, strict=True):
        expected = getattr(ref, name).to_pylist()
        assert len(rows) == len(expected), name
        for got, want in zip(rows, expected, strict=True):
            assert list(got) == list(want), name
            for col in want:
                assert_value(got[col], want[col], f"{name}.{col}")


def _datafusion_export(parquet: dict[str, str], tmp_path: Path, case_id: str, target: str) -> None:
    """Apache DataFusion (in-process, not a discosql engine) runs the exported script: its
    numbers, division and integer types differ from DuckDB's, the results may not."""
    kw, syn = call_kwargs(case_id, target)
    names = {"original": "sd2011", "synthetic": syn}
    script = ds.to_sql(
        parquet["sd2011"],
        [parquet[s] for s in syn],
        target=target,
        dialect="datafusion",
        tables=names,
        **kw,
    )
    tables = run_datafusion(script, {n: parquet[n] for n in ["sd2011", *syn]})
    _check_results(tables, replay(case_id, target))


# how each script engine without a server runs an oracle call's export and checks its tables
EXPORT = {"duckdb_shell": _shell_export, "datafusion": _datafusion_export}


@on_script_engines("duckdb_shell", "datafusion")
@pytest.mark.parametrize(
    ("case_id", "target", "kwargs"), CLI_CALLS, ids=[f"{c}-{t}" for c, t, _ in CLI_CALLS]
)
def test_a_script_engine_runs_the_export(
    script_engine: Started,
    parquet: dict[str, str],
    tmp_path: Path,
    case_id: str,
    target: str,
    kwargs: Any,
) -> None:
    EXPORT[script_engine.name](parquet, tmp_path, case_id, target)


def test_the_script_cases_have_checks_and_exclusions() -> None:
    """The cases the script engines run include non-empty check and exclusion tables."""
    refs = [replay(c, t) for c, t, _ in CLI_CALLS]
    assert any(r.check_1way.num_rows for r in refs)
    assert any(r.check_2way.num_rows for r in refs)
    assert any(sum(r.exclusions.column("count").to_pylist()) for r in refs)


def _multi_target_tables(parquet: dict[str, str], tmp_path: Path, dialect: str) -> list[Any]:
    """The tables a two-target export prints, as lists of rows (the duckdb shell reads the
    files, DataFusion the tables registered under their names)."""
    keys = ["sex", "age", "region", "placesize"]
    syn = [parquet[f"syn_{i}"] for i in (1, 2)]
    kw: dict[str, Any] = {"keys": keys, "target": ["depress", "income"], "ngroups_target": 5}
    if dialect == "duckdb":
        return run_shell(ds.to_sql(parquet["sd2011"], syn, **kw), tmp_path)
    names = {"original": "sd2011", "synthetic": ["syn_1", "syn_2"]}
    script = ds.to_sql(parquet["sd2011"], syn, dialect=dialect, tables=names, **kw)
    tables = run_datafusion(script, {n: parquet[n] for n in ("sd2011", "syn_1", "syn_2")})
    return [t.to_pylist() for t in tables]


@on_script_engines("duckdb_shell", "datafusion")
def test_a_script_engine_runs_a_multi_target_export(
    script_engine: Started, parquet: dict[str, str], tmp_path: Path
) -> None:
    keys = ["sex", "age", "region", "placesize"]
    syn = [parquet[f"syn_{i}"] for i in (1, 2)]
    tables = _multi_target_tables(parquet, tmp_path, script_engine.dialect)
    # each target's tables follow a one-row table that names it
    refs = [
        ds.disclosure(parquet["sd2011"], syn, keys=keys, target=t, ngroups_target=5)
        for t in ("depress", "income")
    ]
    per_target = 1 + len(printed(refs[0]))
    assert len(tables) == 2 * per_target
    for i, (target, ref) in enumerate(zip(["depress", "income"], refs, strict=True)):
        assert tables[i * per_target] == [{"target": target}]
        got = tables[i * per_target + 1]
        assert [r["repU"] for r in got] == ref.ident.column("repU").to_pylist()


def test_scripts_print_the_certainty_curve(parquet: dict[str, str], tmp_path: Path) -> None:
    """With tau= the script prints disco_tau after disco_curve, in the duckdb shell and in
    DataFusion, with the API's numbers (exclusions on, so the curve keeps DiSCO's flags)."""
    keys = ["sex", "age", "region", "placesize"]
    kw: dict[str, Any] = {"keys": keys, "target": "ls", "tau": [0.25, 0.5, 1], "denom_lim": 3}
    kw["exclude_ov_denom_lim"] = True
    syn = ["syn_1", "syn_2"]
    ref = ds.disclosure(parquet["sd2011"], [parquet[s] for s in syn], **kw)
    assert [t.name for t in computed_tables(ref.spec)][-2:] == ["disco_curve", "disco_tau"]
    assert ref.disco_tau.num_rows == 2 * 3
    script = ds.to_sql(parquet["sd2011"], [parquet[s] for s in syn], **kw)
    assert "tau=[0.25, 0.5, 1.0]" in script  # the header's options
    _check_rows(run_shell(script, tmp_path), ref)
    names = {"original": "sd2011", "synthetic": syn}
    script = ds.to_sql(
        parquet["sd2011"], [parquet[s] for s in syn], dialect="datafusion", tables=names, **kw
    )
    _check_results(run_datafusion(script, {n: parquet[n] for n in ["sd2011", *syn]}), ref)


def test_export_names_each_stage_and_measure(parquet: dict[str, str]) -> None:
    script = ds.to_sql(
        parquet["sd2011"], parquet["syn_1"], keys=["sex", "age"], target="income", ngroups_target=4
    )
    for name in (
        "stages/010_codes.sql.j2",
        "stages/030_cells.sql.j2",
        "measures/identity.sql.j2",
        "DiSCO",
        "repU",
        "checks/check_2way.sql.j2",
        "decided at export time",
        "q packing",
    ):
        assert name in script
    assert "$" not in strip_strings(re.sub(r"--[^\n]*", "", script))  # values are literals


GOLDEN_DIALECTS = ["postgres", "spark", "databricks", "bigquery", "snowflake", "trino", "tsql"]


def _golden_script(dialect: str) -> str:
    data = Path(ds.__file__).parent / "data"
    return ds.to_sql(
        str(data / "sd2011.parquet"),
        [str(data / "syn_1.parquet"), str(data / "syn_2.parquet")],
        keys=["sex", "age", "region", "placesize"],
        target="income",
        ngroups_target=5,
        not_targetlev="[-8,600)",
        use_keys_na=[True, True, False, True],
        exclude_keys=["sex"],
        exclude_keylevs=["MALE"],
        exclude_targetlevs=["[1440,2000)"],
        dialect=dialect,
        tables={"original": "survey.sd2011", "synthetic": ["survey.syn_1", "survey.syn_2"]},
    )


def test_golden_export() -> None:
    """The whole PostgreSQL script, as the PostgreSQL test runs it."""
    script = _golden_script("postgres")
    path = GOLDEN / "postgres.sql"
    if os.environ.get("DISCOSQL_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(script)
    assert path.exists(), f"{path} missing: run with DISCOSQL_UPDATE_GOLDEN=1"
    assert script == path.read_text(), "postgres export changed; review and update the golden"


# a statement of the script: the comment naming its template, the template's header, the SQL
_STATEMENT = re.compile(r"^-- ([\w/]+\.sql\.j2)\n(?:--[^\n]*\n)*(.*?)(?=^-- |\Z)", re.M | re.S)


def _per_template(script: str) -> tuple[list[str], dict[str, str]]:
    """The templates in the order the script runs them, and each template's first statement
    (its header comment left out: the template file holds it)."""
    order, first = [], {}
    for m in _STATEMENT.finditer(script):
        order.append(m.group(1))
        first.setdefault(m.group(1), m.group(2).strip() + "\n")
    return order, first


# PostgreSQL's script is the golden file itself; Databricks's is Spark's (checked below)
SNAPSHOT_DIALECTS = [d for d in GOLDEN_DIALECTS if d not in ("postgres", "databricks")]


@pytest.mark.parametrize("dialect", SNAPSHOT_DIALECTS)
def test_each_templates_sql_per_dialect(dialect: str) -> None:
    """One snapshot per template and dialect (the template's first statement in the golden
    export) and the order of the templates: a change shows where it is."""
    order, first = _per_template(untokened(_golden_script(dialect)))
    folder = SNAPSHOTS / dialect
    if os.environ.get("DISCOSQL_UPDATE_GOLDEN"):
        for old in folder.glob("*.sql"):
            old.unlink()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "order.txt").write_text("\n".join(order) + "\n")
        for template, sql in first.items():
            (folder / (template.replace("/", "__").removesuffix(".j2"))).write_text(sql)
    assert (folder / "order.txt").read_text() == "\n".join(order) + "\n", "template order"
    kept = {p.name for p in folder.glob("*.sql")}
    assert kept == {t.replace("/", "__").removesuffix(".j2") for t in first}, "templates"
    for template, sql in first.items():
        path = folder / template.replace("/", "__").removesuffix(".j2")
        assert sql == path.read_text(), f"{dialect}: {template} changed; review the snapshot"


def test_the_databricks_script_is_the_spark_script() -> None:
    """sqlglot's Databricks writer gives the Spark SQL that CI executes, statement by
    statement (docs/engines.md: what that leaves unverified)."""
    assert _per_template(untokened(_golden_script("databricks"))) == _per_template(
        untokened(_golden_script("spark"))
    )


@pytest.mark.parametrize("dialect", GOLDEN_DIALECTS)
def test_golden_export_parses_and_is_portable(dialect: str) -> None:
    script = _golden_script(dialect)
    statements = [s for s in sqlglot.parse(script, read=dialect) if s is not None]
    # 5 level dictionaries (4 keys, the target), the export guard and 2 cell tables (stages 040
    # and 045: 040 reads the cells of stage 030 once, inlined), created and dropped; 7 results
    # (no tau asked: no disco_tau);
    # Spark's and Trino's work tables are tables of the schema, behind a lock table made
    # first and dropped last (tests/measure/test_export_collisions.py); PostgreSQL's are
    # ANALYZEd once made (Dialect.analyze)
    lock = 2 if facts(dialect).work_tables == "table" else 0
    made = 3 if facts(dialect).analyze else 2
    assert len(statements) == made * (5 + 1 + 2) + 7 + lock
    assert_portable(script, dialect)
    tables = {(t.db, t.name) for st in statements for t in st.find_all(sqlglot.exp.Table)}
    assert {("survey", "sd2011"), ("survey", "syn_1"), ("survey", "syn_2")} <= tables


def _demo_tables() -> dict[str, Any]:
    import pyarrow.parquet as pq

    data = Path(ds.__file__).parent / "data"
    return {n: pq.read_table(data / f"{n}.parquet") for n in ("sd2011", "syn_1", "syn_2")}


def _golden_reference() -> ds.DisclosureResult:
    """The API's result for the golden export's data and options, on DuckDB."""
    t = _demo_tables()
    return ds.disclosure(
        t["sd2011"],
        [t["syn_1"], t["syn_2"]],
        keys=["sex", "age", "region", "placesize"],
        target="income",
        ngroups_target=5,
        not_targetlev="[-8,600)",
        use_keys_na=[True, True, False, True],
        exclude_keys=["sex"],
        exclude_keylevs=["MALE"],
        exclude_targetlevs=["[1440,2000)"],
    )


def _check_results(tables: list[Any], ref: ds.DisclosureResult) -> None:
    assert len(tables) == len(printed(ref))
    for name, got in zip(printed(ref), tables, strict=True):
        want = getattr(ref, name)
        assert got.column_names == want.column_names, name
        for g, w in zip(got.to_pylist(), want.to_pylist(), strict=True):
            for col in w:
                assert_value(g[col], w[col], f"{name}.{col}")
        assert got.num_rows == want.num_rows, name


def _postgres_golden(pg_dsn: str) -> list[Any]:
    """The exported PostgreSQL script (the golden file), run statement by statement on the
    server."""
    import psycopg
    import pyarrow as pa

    tables = _demo_tables()
    with psycopg.connect(pg_dsn, autocommit=True) as con:
        con.execute("CREATE SCHEMA IF NOT EXISTS survey")
    engine_data.load_postgres(pg_dsn, {f"survey.{n}": t for n, t in tables.items()})
    script = (GOLDEN / "postgres.sql").read_text()
    results = []
    with psycopg.connect(pg_dsn, autocommit=True) as con:
        for statement in sqlglot.parse(script, read="postgres"):
            if statement is None:
                continue
            cur = con.execute(statement.sql("postgres"))
            if cur.description is not None and isinstance(statement, sqlglot.exp.Query):
                names = [d.name for d in cur.description]
                rows = cur.fetchall()
                results.append(
                    pa.table({n: [_plain(r[i]) for r in rows] for i, n in enumerate(names)})
                )
    return results


def _spark_golden(spark: Any) -> list[Any]:
    """The exported Spark SQL script, run statement by statement in the session."""
    spark.sql("CREATE DATABASE IF NOT EXISTS survey")
    for name, table in _demo_tables().items():
        spark.createDataFrame(table.to_pandas()).write.mode("overwrite").saveAsTable(
            f"survey.{name}"
        )
    script = _golden_script("spark")
    results = []
    for statement in sqlglot.parse(script, read="spark"):
        if statement is None:
            continue
        df = spark.sql(statement.sql("spark"))
        if isinstance(statement, sqlglot.exp.Query):
            results.append(df.toArrow())
    return results


GOLDEN_RUN = {"postgres": _postgres_golden, "spark": _spark_golden}


@on_script_engines("postgres", "spark")
def test_a_server_runs_the_golden_export(script_engine: Started) -> None:
    """The golden export's script, run on the server, gives the API's tables."""
    _check_results(GOLDEN_RUN[script_engine.name](script_engine.server), _golden_reference())


def _plain(v: Any) -> Any:
    from decimal import Decimal

    return float(v) if isinstance(v, Decimal) else v


def test_cli_sql_subcommand(
    parquet: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from discosql.cli.main import main

    out = tmp_path / "m.sql"
    argv = [
        "sql",
        parquet["sd2011"],
        parquet["syn_1"],
        "--keys",
        "sex,age",
        "--target",
        "depress",
        "--out",
        str(out),
    ]
    code = main(argv)
    assert code == 0, capsys.readouterr().err
    tables = run_shell(out.read_text(), tmp_path)
    ref = ds.disclosure(parquet["sd2011"], parquet["syn_1"], keys=["sex", "age"], target="depress")
    assert tables[0] == ref.ident.to_pylist()
    capsys.readouterr()
    bad = main([*argv[:-2], "--dialect", "tsql"])
    stderr = capsys.readouterr().err
    assert bad == 2
    assert "tables" in stderr
    assert "Traceback" not in stderr


def test_to_sql_bad_input(parquet: dict[str, str]) -> None:
    with pytest.raises(ds.InputError, match="dialect: 'oracle' is not one of"):
        ds.to_sql(
            parquet["sd2011"], parquet["syn_1"], keys=["sex"], target="depress", dialect="oracle"
        )
    with pytest.raises(ds.InputError, match="'synthetic' names 2 table"):
        ds.to_sql(
            parquet["sd2011"],
            parquet["syn_1"],
            keys=["sex"],
            target="depress",
            tables={"synthetic": ["a", "b"]},
        )
    for tables in ({"synthetic": ["a", "b"]}, {"original": 3}, {"orig": "x"}):  # before any read
        with pytest.raises(ds.InputError, match=r"^tables: "):
            ds.to_sql(
                "missing.parquet", "missing.parquet", keys=["sex"], target="depress", tables=tables
            )
