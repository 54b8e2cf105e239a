"""singling_out_to_sql, exact_matches_to_sql and linkability_to_sql: the exported scripts, run
by the duckdb shell (and by PostgreSQL and Spark), print the API's numbers, on the bundled
SD2011 data and on hypothesis data (NULLs, quotes and unicode in names and values). Run on
data changed after the export they stop (a column with more levels than its q packing was
fixed for; for linkability a record farther from the synthesis than the export's levels, a
pair of distances the export did not plan for) or give the API's result for the new data."""

from __future__ import annotations

import json
import re
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import discosql as ds

from .. import engine_data
from ..helpers.compare import assert_script_row
from ..helpers.engines import Started, on_script_engines
from ..helpers.profiles import SCRIPT_EXAMPLES
from ..helpers.shell import shell_result
from ..helpers.sql import assert_portable
from .strategies import data_sets

DATA = Path(ds.__file__).parent / "data"
ORIGINAL = str(DATA / "sd2011.parquet")
SYN = [str(DATA / f"syn_{j}.parquet") for j in (1, 2, 3)]
SIDES = (["sex", "age", "region", "placesize"], ["income", "marital", "ls"])
SO_COLUMNS = ["sex", "age", "region", "placesize", "income"]
BY_VALUE = ["--numeric", "values"]  # the attacks with a script: numbers compared by value


def _rates(res: Any) -> dict[str, Any]:
    """The rates and intervals of an attack result, named as the script prints them."""
    return {
        "rate": res.rate,
        "control_rate": res.control_rate,
        "risk": res.risk,
        "ci_low": res.ci[0],
        "ci_high": res.ci[1],
        "rate_ci_low": res.rate_ci[0],
        "rate_ci_high": res.rate_ci[1],
    }


def check_singling_out(tables: list[Any], res: ds.SinglingOutResult) -> None:
    """The script's two tables (summary, by_columns) are the result's numbers."""
    summary, by_columns = tables
    want = {k: getattr(res, k) for k in ("mode", "n_cols", "queries", "successes")}
    assert_script_row(
        summary[0], {**want, "control_successes": res.control_successes, **_rates(res)}
    )
    rows = res.by_columns.to_pylist()
    assert [r["cid"] for r in by_columns] == list(range(len(rows)))
    for got, r in zip(by_columns, rows, strict=True):
        assert json.loads(got["columns"]) == r["columns"]
        assert_script_row(got, {"queries": r["queries"], "successes": r["successes"]})


def check_matches(tables: list[Any], res: ds.ExactMatches) -> None:
    summary, distances = tables
    assert len(summary) == res.summary.num_rows
    for got, want in zip(summary, res.summary.to_pylist(), strict=True):
        assert_script_row(got, want)
    assert len(distances) == res.distances.num_rows
    for got, want in zip(distances, res.distances.to_pylist(), strict=True):
        assert_script_row(got, want)


def check_linkability(tables: list[Any], res: ds.LinkabilityResult) -> None:
    summary, by_distance = tables
    numbers = {k: v for k, v in res.summary().items() if k not in ("aux_cols", "ci", "rate_ci")}
    numbers.pop("confidence_level")
    assert_script_row(summary[0], {**numbers, **_rates(res)})
    assert len(by_distance) == res.by_distance.num_rows
    for got, want in zip(by_distance, res.by_distance.to_pylist(), strict=True):
        assert_script_row(got, want)


def _run(script: str, cwd: Path | str) -> list[Any]:
    tables, err, code = shell_result(script, Path(cwd))
    assert code == 0, err
    return tables


# --- the bundled data -----------------------------------------------------------------------
@pytest.mark.parametrize("control", [None, SYN[1]], ids=["no-control", "control"])
@pytest.mark.parametrize("mode", ["multivariate", "univariate"])
def test_the_singling_out_script_prints_the_api_numbers(
    mode: str, control: str | None, tmp_path: Path
) -> None:
    """Univariate mode with numeric columns: the half-lines are added up in SQL too."""
    columns = SO_COLUMNS if mode == "multivariate" else ["sex", "age", "income", "ls"]
    res = ds.singling_out(ORIGINAL, SYN[0], columns, mode, 3, control, numeric="values")
    script = ds.singling_out_to_sql(ORIGINAL, SYN[0], columns, mode, 3, control, numeric="values")
    check_singling_out(_run(script, tmp_path), res)
    assert res.queries > 0
    assert res.successes > 0


@pytest.mark.parametrize("control", [None, SYN[2]], ids=["no-control", "control"])
def test_the_matches_script_prints_the_api_numbers(control: str | None, tmp_path: Path) -> None:
    res = ds.exact_matches(ORIGINAL, SYN[:2], control=control)
    check_matches(_run(ds.exact_matches_to_sql(ORIGINAL, SYN[:2], control=control), tmp_path), res)
    assert res.summary["identical_records"][0].as_py() > 0


@pytest.mark.parametrize("control", [None, SYN[1]], ids=["no-control", "control"])
def test_the_linkability_script_prints_the_api_numbers(control: str | None, tmp_path: Path) -> None:
    res = ds.linkability(ORIGINAL, SYN[0], SIDES, control, numeric="values")
    script = ds.linkability_to_sql(ORIGINAL, SYN[0], SIDES, control, numeric="values")
    check_linkability(_run(script, tmp_path), res)
    assert (res.linked, res.linked_unique) == (1210, 5)  # numpy over all 25M pairs agrees


def test_a_csv_file_is_read_as_the_api_reads_it(tmp_path: Path) -> None:
    csv = tmp_path / "original.csv"
    import pyarrow.csv as pcsv

    pcsv.write_csv(pq.read_table(ORIGINAL), csv)
    res = ds.linkability(str(csv), SYN[0], SIDES, numeric="values")
    check_linkability(
        _run(ds.linkability_to_sql(str(csv), SYN[0], SIDES, numeric="values"), tmp_path), res
    )


# --- hypothesis data ------------------------------------------------------------------------
@settings(max_examples=SCRIPT_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), data_sets(), st.booleans(), st.sampled_from(["so", "mt", "lk"]))
def test_scripts_agree_with_the_api_on_any_data(
    draw: st.DataObject,
    data: tuple[pa.Table, list[pa.Table], pa.Table],
    with_control: bool,
    test: str,
) -> None:
    original, syntheses, control = data
    names = original.column_names
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, t in enumerate([original, *syntheses, control]):
            paths.append(f"{tmp}/d{i}.parquet")
            pq.write_table(t, paths[-1])
        orig, syn, ctrl = paths[0], paths[1 : 1 + len(syntheses)], paths[-1]
        if test == "so":
            mode = draw.draw(st.sampled_from(["univariate", "multivariate"]))
            n_cols = draw.draw(st.integers(1, len(names)))
            kw: dict[str, Any] = {"mode": mode, "n_cols": n_cols}
            if with_control and control.num_rows != original.num_rows:
                ctrl_t = original.slice(0, original.num_rows)  # the original's size
                pq.write_table(ctrl_t, ctrl)
            c = ctrl if with_control else None
            res = ds.singling_out(orig, syn[0], control=c, **kw, numeric="values")
            check_singling_out(
                _run(ds.singling_out_to_sql(orig, syn[0], control=c, **kw, numeric="values"), tmp),
                res,
            )
        elif test == "mt":
            c = ctrl if with_control else None
            with warnings.catch_warnings():  # uem NaN: no unique original record
                warnings.simplefilter("ignore", ds.DiscoSQLWarning)
                res_m = ds.exact_matches(orig, syn, control=c)
            check_matches(_run(ds.exact_matches_to_sql(orig, syn, control=c), tmp), res_m)
        else:
            a = draw.draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
            b = draw.draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
            c = ctrl if with_control else None
            res_l = ds.linkability(orig, syn[0], (a, b), c, numeric="values")
            check_linkability(
                _run(ds.linkability_to_sql(orig, syn[0], (a, b), c, numeric="values"), tmp), res_l
            )


# --- data changed after the export ----------------------------------------------------------
def _table(**columns: list[Any]) -> pa.Table:
    return pa.table({k: pa.array(v) for k, v in columns.items()})


# the synthesis: every original record of BASE matches one exactly on (a1, a2) and on b
SYNTHESIS = _table(a1=["x", "y", "z"], a2=[1, 2, 3], b=["p", "q", "r"])
BASE = _table(a1=["x", "y", "y"], a2=[1, 2, 2], b=["p", "q", "q"])
CHANGES = [
    # (id, the original after the export, what the stop names; None: the decisions still hold)
    ("new_level", _table(a1=["x", "w", "y"], a2=[1, 2, 2], b=["p", "q", "q"]), "column 'a1'"),
    (
        "farther_on_a",
        _table(a1=["x", "y", "y"], a2=[1, 3, 2], b=["p", "q", "q"]),
        "farther from the synthesis on A than the 1 distance level(s) computed at export time",
    ),
    (
        "new_pair",
        _table(a1=["x", "y", "y"], a2=[1, 2, 2], b=["p", None, "q"]),  # NA: no new level
        "at a pair of distances the export did not plan for",
    ),
    ("fewer_records", BASE.slice(0, 2), None),
]


@pytest.mark.parametrize(("case", "changed", "stop"), CHANGES, ids=[c[0] for c in CHANGES])
def test_the_linkability_script_stops_or_gives_the_api_result(
    case: str, changed: pa.Table, stop: str | None, tmp_path: Path
) -> None:
    orig, syn = tmp_path / "original.parquet", tmp_path / "synthetic.parquet"
    pq.write_table(BASE, orig)
    pq.write_table(SYNTHESIS, syn)
    sides = (["a1", "a2"], ["b"])
    script = ds.linkability_to_sql(str(orig), str(syn), sides, numeric="values")
    assert "distance levels computed per side: A 1, B 1" in script
    pq.write_table(changed, orig)
    tables, err, code = shell_result(script, tmp_path)
    if stop is None:
        assert code == 0, err
        check_linkability(tables, ds.linkability(changed, SYNTHESIS, sides, numeric="values"))
        return
    assert code != 0
    assert tables == []  # nothing printed: the counts read every check
    assert "discosql: the data differ" in err
    assert stop.replace("column", "key") in err


@pytest.mark.parametrize("test", ["so", "mt"])
def test_the_other_scripts_stop_on_a_new_level(test: str, tmp_path: Path) -> None:
    orig = tmp_path / "original.parquet"
    pq.write_table(BASE, orig)
    syn = str(tmp_path / "synthetic.parquet")
    pq.write_table(SYNTHESIS, syn)
    if test == "so":
        script = ds.singling_out_to_sql(str(orig), syn, n_cols=2, numeric="values")
    else:
        script = ds.exact_matches_to_sql(str(orig), syn)
    pq.write_table(CHANGES[0][1], orig)
    tables, err, code = shell_result(script, tmp_path)
    assert code != 0
    assert tables == []
    assert "key 'a1' has more than the" in err


# --- other dialects, arguments, the command line --------------------------------------------
def test_scripts_parse_and_are_portable() -> None:
    tables = {"original": "s.persons", "synthetic": "s.syn1", "control": "s.holdout"}
    for dialect in ("postgres", "spark", "databricks", "bigquery", "snowflake", "trino", "tsql"):
        for script in (
            ds.singling_out_to_sql(
                ORIGINAL,
                SYN[0],
                SO_COLUMNS,
                "univariate",
                1,
                SYN[1],
                dialect=dialect,
                tables=tables,
                numeric="values",
            ),
            ds.exact_matches_to_sql(
                ORIGINAL, SYN[0], SO_COLUMNS, SYN[1], dialect=dialect, tables=tables
            ),
            ds.linkability_to_sql(
                ORIGINAL, SYN[0], SIDES, SYN[1], dialect=dialect, tables=tables, numeric="values"
            ),
        ):
            assert len(assert_portable(script, dialect)) > 10
            assert (
                '"s"."holdout"' in script or "`s`.`holdout`" in script or "[s].[holdout]" in script
            )


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"dialect": "oracle"}, "dialect: 'oracle' is not one of"),
        ({"tables": "s.persons"}, "tables: expected a dict, got str"),
        ({"tables": {"holdout": "s.h"}}, "tables: keys must be 'original', 'synthetic' and"),
        ({"tables": {"control": "s.h"}}, "names a control table, but no control= is given"),
        ({"tables": {"synthetic": ["a", "b"]}}, "'synthetic' names 2 table(s) for 1"),
        ({"tables": {"original": ""}}, "tables: expected table names (text), got ''"),
    ],
)
def test_arguments_are_checked_before_any_data_is_read(kw: dict[str, Any], message: str) -> None:
    missing = "missing.parquet"
    for export in (
        lambda: ds.singling_out_to_sql(missing, missing, **kw),
        lambda: ds.exact_matches_to_sql(missing, missing, **kw),
        lambda: ds.linkability_to_sql(missing, missing, (["a"], ["b"]), **kw, numeric="values"),
    ):
        with pytest.raises(ds.InputError, match=re.escape(message)):
            export()
    with pytest.raises(ds.InputError, match="n_cols"):
        ds.singling_out_to_sql(missing, missing, n_cols=0)
    with pytest.raises(ds.InputError, match=re.escape("give its table name, e.g. tables=")):
        ds.singling_out_to_sql(
            pq.read_table(ORIGINAL), SYN[0], numeric="values"
        )  # Arrow: no name to read


def test_cli_writes_the_scripts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from discosql.cli.main import main

    runs = [
        (
            [
                "singling-out",
                ORIGINAL,
                SYN[0],
                "--columns",
                ",".join(SO_COLUMNS),
                "--numeric",
                "values",
            ],
            "so",
        ),
        (["matches", ORIGINAL, SYN[0], SYN[1], "--control", SYN[2]], "mt"),
        (
            [
                "linkability",
                ORIGINAL,
                SYN[0],
                "--a",
                ",".join(SIDES[0]),
                "--b",
                ",".join(SIDES[1]),
                "--numeric",
                "values",
            ],
            "lk",
        ),
    ]
    for argv, test in runs:
        out = tmp_path / f"{test}.sql"
        assert main([*argv, "--sql", str(out)]) == 0
        tables = _run(out.read_text(), tmp_path)
        if test == "so":
            check_singling_out(
                tables, ds.singling_out(ORIGINAL, SYN[0], SO_COLUMNS, numeric="values")
            )
        elif test == "mt":
            check_matches(tables, ds.exact_matches(ORIGINAL, SYN[:2], control=SYN[2]))
        else:
            check_linkability(tables, ds.linkability(ORIGINAL, SYN[0], SIDES, numeric="values"))
    argv = ["matches", ORIGINAL, SYN[0], "--sql", str(tmp_path / "x.sql"), "--out", "y.csv"]
    assert main(argv) != 0
    assert "--out: not with --sql" in capsys.readouterr().err
    z = tmp_path / "z.sql"
    argv = ["linkability", ORIGINAL, SYN[0], "--a", "sex", "--b", "age", "--sql", str(z)]
    argv += ["--numeric", "values"]
    argv += ["--dialect", "postgres", "--original-table", "s.p", "--synthetic-tables", "s.q"]
    assert main([*argv, "--control-table", "s.h", "--control", SYN[1]]) == 0
    assert '"s"."h"' in z.read_text()


def _postgres_exports(pg_dsn: str) -> None:
    """The three exports, run on the server."""
    import psycopg

    paths = zip(("p", "s", "h"), [ORIGINAL, *SYN[:2]], strict=True)
    data = {name: pq.read_table(path) for name, path in paths}
    with psycopg.connect(pg_dsn, autocommit=True) as con:
        con.execute("CREATE SCHEMA IF NOT EXISTS anonx")
    engine_data.load_postgres(pg_dsn, {f"anonx.{k}": v for k, v in data.items()})
    tables = {"original": "anonx.p", "synthetic": "anonx.s", "control": "anonx.h"}
    kw: dict[str, Any] = {"dialect": "postgres", "tables": tables}
    p, s, h = data["p"], data["s"], data["h"]
    script = ds.singling_out_to_sql(p, s, SO_COLUMNS, control=h, **kw, numeric="values")
    check_singling_out(
        engine_data.run_postgres_script(pg_dsn, script),
        ds.singling_out(p, s, SO_COLUMNS, control=h, numeric="values"),
    )
    script = ds.exact_matches_to_sql(p, s, control=h, **kw)
    check_matches(
        engine_data.run_postgres_script(pg_dsn, script), ds.exact_matches(p, s, control=h)
    )
    script = ds.linkability_to_sql(p, s, SIDES, h, **kw, numeric="values")
    check_linkability(
        engine_data.run_postgres_script(pg_dsn, script),
        ds.linkability(p, s, SIDES, h, numeric="values"),
    )


def _spark_exports(spark: Any) -> None:
    """The linkability export, run in the session."""
    for name, path in zip(("p", "s", "h"), [ORIGINAL, *SYN[:2]], strict=True):
        spark.sql("CREATE DATABASE IF NOT EXISTS anonx")
        spark.read.parquet(path).write.mode("overwrite").saveAsTable(f"anonx.{name}")
    tables = {"original": "anonx.p", "synthetic": "anonx.s", "control": "anonx.h"}
    sides = (["sex", "age"], ["income", "ls"])
    script = ds.linkability_to_sql(
        ORIGINAL, SYN[0], sides, SYN[1], dialect="spark", tables=tables, numeric="values"
    )
    check_linkability(
        engine_data.run_spark_script(spark, script),
        ds.linkability(ORIGINAL, SYN[0], sides, SYN[1], numeric="values"),
    )


@on_script_engines("postgres", "spark")
def test_a_server_runs_the_exports(script_engine: Started) -> None:
    exports = {"postgres": _postgres_exports, "spark": _spark_exports}
    exports[script_engine.name](script_engine.server)


def test_the_gower_attack_has_no_script_and_says_why() -> None:
    with pytest.raises(ds.InputError, match="numeric='values'"):
        ds.linkability_to_sql(ORIGINAL, SYN[0], SIDES)  # age and income are numbers


def test_the_half_lines_have_no_script_and_say_why() -> None:
    """Multivariate singling out over a numeric column (age) is refused with the way out;
    numeric='values' exports, and so does univariate mode (its min/max half-lines)."""
    columns = ["sex", "age", "region"]
    with pytest.raises(
        ds.InputError, match=r"no script of the half-line queries.*numeric='values'"
    ):
        ds.singling_out_to_sql(ORIGINAL, SYN[0], columns, "multivariate", 2)
    assert "singling_out()" in ds.singling_out_to_sql(
        ORIGINAL, SYN[0], columns, "multivariate", 2, numeric="values"
    )
    assert "singling_out()" in ds.singling_out_to_sql(ORIGINAL, SYN[0], columns, "univariate", 1)
