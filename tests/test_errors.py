"""Bad input: one InputError before any measure is computed, naming argument, data set, value."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import discosql as ds

from . import oracle

KEYS = ["sex", "age", "region", "placesize"]

# synthpop's error cases (tests/data/oracle/expected_errors.csv) -> the discosql message fragment.
# discosql takes column names only (no column numbers), aligns per-key lists with the keys as
# given, and names the right key in exclude_keylevs errors (synthpop names keys[i]).
ORACLE_ERRORS: dict[str, str] = {
    "err_target_in_keys": "target: 'age' is also one of the keys",
    "err_key_not_in_data": "key 'agex': not a column of the original data; did you mean 'age'?",
    "err_target_not_in_data": "target 'nosuch': not a column of the original data",
    "err_duplicated_keys": "keys: duplicated column(s) ['sex']",
    "err_two_targets": "target: expected one column name (str), got ['depress', 'ls']",
    "err_numeric_keys_range": "keys: every entry must be a column name (str), got [1, 20]",
    "err_numeric_target_range": "target: expected one column name (str), got 99",
    "err_usetargetNA_len": "use_target_na: must be a single True or False, got [True, False]",
    "err_usekeysNA_len": "use_keys_na: must be True/False or a list of 4 booleans",
    "err_denom_lim_zero": "denom_lim: must be an integer > 0, got 0",
    "err_denom_lim_frac": "denom_lim: must be an integer > 0, got 2.5",
    "err_ngroups_target_1": "ngroups_target: cannot be 1",
    "err_ngroups_target_len": "ngroups_target: must be an integer >= 0 (0 = no grouping), "
    "got [5, 6]",
    "err_ngroups_keys_len": "ngroups_keys: must be one integer or a list of 4",
    "err_ngroups_keys_1": "ngroups_keys[1] ('age'): cannot be 1",
    "err_exclude_key_not_key": "exclude_keys[0]: 'ls' is not one of the keys",
    "err_exclude_targetlev_bad": "exclude_targetlevs[0]: 'NOTALEVEL' is not a level of the target",
    "err_exclude_keylev_bad": "exclude_keylevs[0]: '999' is not a level of the key 'age'",
    "err_cont_na_not_in_data": "cont_na: value -9 given for 'income' occurs in neither",
    # multi.disclosure's own errors; its target check is the same as disclosure()'s
    "err_multi_target_in_keys": "target: 'age' is also one of the keys",
}
# multi.disclosure argument errors (tested with disclosure_summary in test_summary.py), and
# synthpop bugs that discosql does not have (a list of syntheses works; exclusions work).
NOT_DISCLOSURE_ERRORS = {
    "err_multi_nottargetslev_len",
    "err_multi_meas",
    "err_multi_list_input",
    "err_multi_exclude_quirk",
}


def _error_cases() -> list[dict[str, Any]]:
    return [c for c in oracle.cases()["error_cases"] if c["case_id"] not in NOT_DISCLOSURE_ERRORS]


def test_every_oracle_error_case_is_mapped() -> None:
    assert set(oracle.expected_errors()) == set(ORACLE_ERRORS) | NOT_DISCLOSURE_ERRORS


@pytest.mark.parametrize("case", _error_cases(), ids=lambda c: c["case_id"])
def test_oracle_error_case(case: dict[str, Any]) -> None:
    args = dict(case["args"])
    if case["function"] == "multi.disclosure":
        args["target"] = next(t for t in args.pop("targets") if t in args["keys"])
    kwargs: dict[str, Any] = {"keys": args.pop("keys"), "target": args.pop("target")}
    for r_name, value in args.items():
        kwargs[oracle.R_TO_PY[r_name]] = value
    syn = oracle.synthetic_paths(case["synthetic"])
    with pytest.raises(ds.InputError, match=re.escape(ORACLE_ERRORS[case["case_id"]])):
        ds.disclosure(oracle.original_path(), syn, **kwargs)


def _t(**cols: list[Any]) -> pa.Table:
    return pa.table(cols)


ORIG = _t(a=["x", "y", "y"], b=[1, 2, 2], t=["p", "q", None])


@pytest.mark.parametrize(
    ("original", "synthetic", "kwargs", "message"),
    [
        pytest.param(
            ORIG.slice(0, 0), ORIG, {}, "original: the data set has no rows", id="empty-original"
        ),
        pytest.param(
            ORIG, [], {}, "synthetic: the list of synthetic data sets is empty", id="no-syn"
        ),
        pytest.param(
            ORIG,
            _t(a=["x"], b=["1"], t=["p"]),
            {},
            "key 'b' has clashing types (original: BIGINT, synthetic: VARCHAR)",
            id="text-vs-number-key",
        ),
        pytest.param(
            ORIG,
            _t(a=["x"], b=[1], t=[True]),
            {},
            "target 't' has clashing types (original: VARCHAR, synthetic: BOOLEAN)",
            id="text-vs-bool-target",
        ),
        pytest.param(
            ORIG,
            _t(a=["x"], t=["p"]),
            {},
            "key 'b': not a column of the synthetic data",
            id="missing-on-synthetic",
        ),
        pytest.param(
            ORIG,
            [ORIG, _t(a=["x"], b=[1])],
            {},
            "target 't': not a column of the synthetic 2 data",
            id="missing-in-synthesis-2",
        ),
        pytest.param(
            ORIG,
            ORIG,
            {"ngroups_target": 3},
            "ngroups_target: the target 't' is not numeric",
            id="group-text-target",
        ),
        pytest.param(
            ORIG,
            ORIG,
            {"ngroups_keys": [2, 0]},
            "ngroups_keys: key 'a' is not numeric",
            id="group-text-key",
        ),
        pytest.param(
            ORIG,
            ORIG,
            {"not_targetlev": "r"},
            "not_targetlev: 'r' is not a level",
            id="unknown-not-targetlev",
        ),
        pytest.param(
            ORIG,
            ORIG,
            {"thresh_1way": (50,)},
            "thresh_1way: must be two finite numbers",
            id="thresh",
        ),
        pytest.param(
            ORIG,
            ORIG,
            {"cont_na": {"zz": [1]}},
            "cont_na: 'zz' is not a column",
            id="cont-na-column",
        ),
        pytest.param(
            ORIG,
            ORIG,
            {"exclude_keys": ["a"]},
            "give all three (parallel lists) or none",
            id="exclude-partial",
        ),
        pytest.param(
            ORIG,
            ORIG,
            {"exclude_keys": ["a"], "exclude_keylevs": ["x", "y"], "exclude_targetlevs": ["p"]},
            "must have the same length",
            id="exclude-lengths",
        ),
        pytest.param(
            "/no/such/file.parquet",
            ORIG,
            {},
            "original: file '/no/such/file.parquet' does not exist",
            id="missing-file",
        ),
        pytest.param(
            ORIG, "data.xlsx", {}, "synthetic: file 'data.xlsx' does not exist", id="missing-file-2"
        ),
        pytest.param(
            ORIG, 42, {}, "synthetic: unsupported data of type builtins.int", id="bad-type"
        ),
    ],
)
def test_bad_input(original: Any, synthetic: Any, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ds.InputError, match=re.escape(message)):
        ds.disclosure(original, synthetic, keys=["a", "b"], target="t", **kwargs)


def test_all_problems_reported_together() -> None:
    with pytest.raises(ds.InputError) as err:
        ds.disclosure(ORIG, ORIG, keys=["a", "a"], target="t", denom_lim=-1, thresh_2way="x")
    assert len(err.value.problems) == 3
    assert str(err.value).startswith("3 problems:")


def test_grouping_errors() -> None:
    orig = _t(a=["x", "y"], v=[1.0, 1.0], w=[None, None], t=["p", "q"])
    syn = _t(a=["x", "y"], v=[1.0, 1.0], w=[None, 2.0], t=["p", "q"])
    with pytest.raises(ds.InputError, match="single distinct value"):
        ds.disclosure(orig, syn, keys=["a", "v"], target="t", ngroups_keys=[0, 3])
    no_w = orig.cast(
        pa.schema(
            [("a", pa.string()), ("v", pa.float64()), ("w", pa.float64()), ("t", pa.string())]
        )
    )
    with_w = _t(a=["x", "y"], v=[1.0, 1.0], w=[2.0, 5.0], t=["p", "q"])
    # synthpop stops only when the synthetic values are all missing (U:865): an original with
    # no values is grouped by the synthetic values, and all its records are 'Missing'
    res = ds.disclosure(no_w, with_w, keys=["a", "w"], target="t", ngroups_keys=[0, 3])
    assert len(res.groupings["w"].labels) == 2  # one a value: 2 and 5 (synthpop's unique breaks)
    assert res.ident.column("UiO").to_pylist() == [100.0]
    assert res.ident.column("repU").to_pylist() == [0.0]  # no synthetic w is 'Missing'
    with pytest.raises(ds.InputError, match="the synthetic data have only missing values"):
        ds.disclosure(with_w, no_w, keys=["a", "w"], target="t", ngroups_keys=[0, 3])
    inf = _t(a=["x", "y"], v=[1.0, float("inf")], t=["p", "q"])
    # the count names what to fix: one in the original, one in the synthesis
    with pytest.raises(ds.InputError, match=r"'v': has 2 infinite value\(s\) in the original"):
        ds.disclosure(inf, inf, keys=["a"], target="v", ngroups_target=2)


def test_errors_are_one_hierarchy() -> None:
    assert issubclass(ds.InputError, ds.DiscoSQLError)
    assert issubclass(ds.InputError, ValueError)
    assert issubclass(ds.SchemaError, ds.InputError)
    assert issubclass(ds.EngineError, ds.DiscoSQLError)
    assert issubclass(ds.TemplateError, ds.DiscoSQLError)


def test_duckdb_engine_arguments() -> None:
    with pytest.raises(ds.InputError, match=re.escape("duckdb: threads: must be a positive int")):
        ds.duckdb(threads=0)
    with pytest.raises(ds.InputError, match="memory_limit must be a string such as '4GB', got 4"):
        ds.duckdb(memory_limit=4)  # type: ignore[arg-type]
    # read when the engine is made, before any data: DuckDB's own reading of sizes
    with pytest.raises(ds.InputError, match="duckdb: memory_limit 'lots' is not accepted"):
        ds.duckdb(memory_limit="lots")
    with pytest.raises(ds.InputError, match="duckdb: memory_limit '4 parsecs' is not accepted"):
        ds.duckdb(memory_limit="4 parsecs")


def test_duckdb_memory_limit_is_the_process_limit() -> None:
    """DuckDB's buffer manager gets BUFFER_SHARE of the limit given (its own limit leaves out
    allocations outside it and the Python process); 'none' and percentages stay readable."""
    from discosql.engines.duckdb import BUFFER_SHARE, buffer_limit

    assert buffer_limit("4GB") == f"{int(4e9 * BUFFER_SHARE)} bytes"
    assert buffer_limit(" 2 GiB") == f"{int(2 * 2**30 * BUFFER_SHARE)} bytes"
    assert buffer_limit("50%") == f"{50 * BUFFER_SHARE:.6g}%"
    assert buffer_limit("none") == "none"
    assert buffer_limit("-1") == "-1"
    engine = ds.duckdb(threads=1, memory_limit="1GB").open()
    try:
        (set_to,) = engine.con.execute("SELECT current_setting('memory_limit')").fetchall()[0]
    finally:
        engine.close()
    expected = f"{1e9 * BUFFER_SHARE / 2**20:.1f} MiB"
    assert set_to == expected


def _entry_points(t: pa.Table, **kw: Any) -> dict[str, Any]:
    """Every public function that takes ``threads=``, called on the same small data."""
    return {
        "disclosure": lambda: ds.disclosure(t, t, keys=["a"], target="t", **kw),
        "disclosure_summary": lambda: ds.disclosure_summary(t, t, keys=["a"], **kw),
        "to_sql": lambda: ds.to_sql(
            t, t, keys=["a"], target="t", tables={"original": "o", "synthetic": ["s"]}, **kw
        ),
        "categorical_cap": lambda: ds.categorical_cap(t, t, ["a"], "t", **kw),
        "taub_tcap": lambda: ds.taub_tcap(t, t, ["a"], "t", **kw),
        "cap_records": lambda: ds.cap_records(t, t, ["a"], "t", **kw),
        "cap_summary": lambda: ds.cap_summary(t, t, ["a"], "t", **kw),
        "dcr": lambda: ds.dcr(t, t, **kw),
    }


@pytest.mark.parametrize("threads", [0, -1, "two", True, 1.5])
def test_threads_is_checked_on_every_entry_point(threads: Any) -> None:
    t = _t(a=["x", "y"], t=["p", "q"])
    message = f"threads: must be a positive int (or None for all cores), got {threads!r}"
    for name, call in _entry_points(t, threads=threads).items():
        with pytest.raises(ds.InputError, match=re.escape(message)):
            call()
        assert name  # the loop names the entry point in a failure's traceback


def test_threads_on_an_engine_without_that_setting_is_an_error(tmp_path: Any) -> None:
    import sqlite3

    db = tmp_path / "t.db"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE t (a TEXT, t TEXT)")
        con.execute("INSERT INTO t VALUES ('x', 'p'), ('y', 'q')")
    for engine in (ds.sqlite(db), f"sqlite:///{db}"):
        with pytest.raises(ds.InputError, match="threads: applies to the embedded DuckDB engine"):
            ds.disclosure("t", "t", keys=["a"], target="t", threads=2, engine=engine)
        with pytest.raises(ds.InputError, match="threads: applies to the embedded DuckDB engine"):
            ds.categorical_cap("t", "t", ["a"], "t", threads=2, engine=engine)
    # a positive int on DuckDB is taken
    t = _t(a=["x", "y"], t=["p", "q"])
    for call in _entry_points(t, threads=1).values():
        call()


def test_keys_as_one_string_mean_one_key_everywhere() -> None:
    t = _t(a=["x", "y", "x"], t=["p", "q", "p"])
    assert (
        ds.disclosure(t, t, keys="a", target="t").ident
        == ds.disclosure(t, t, keys=["a"], target="t").ident
    )
    assert ds.categorical_cap(t, t, "a", "t") == ds.categorical_cap(t, t, ["a"], "t")


def test_value_names_the_syntheses_there_are() -> None:
    t = _t(a=["x", "y"], t=["p", "q"])
    res = ds.disclosure(t, t, keys=["a"], target="t")
    assert res.value("DiSCO", 1) == res.attrib.column("DiSCO")[0].as_py()
    for bad in (0, 2, True, "1"):
        with pytest.raises(ds.InputError, match=re.escape(f"value: synthesis {bad!r} does not")):
            res.value("DiSCO", bad)  # type: ignore[arg-type]


def test_negative_threshold_counts_are_rejected() -> None:
    t = _t(a=["x", "y"], t=["p", "q"])
    for arg in ("thresh_1way", "thresh_2way"):
        with pytest.raises(ds.InputError, match=f"{arg}: the count must be >= 0, got -1"):
            ds.disclosure(t, t, keys=["a"], target="t", **{arg: (-1, 50)})


def test_comma_joined_keys_get_a_hint() -> None:
    t = _t(age=["x", "y"], sex=["m", "f"], t=["p", "q"])
    with pytest.raises(ds.SchemaError, match=re.escape("give a list: ['age', 'sex']")):
        ds.disclosure(t, t, keys="age,sex", target="t")


SD = Path(__file__).resolve().parents[1] / "discosql" / "data"
MISSPELLED = [
    ("disclosure", lambda o, s: ds.disclosure(o, s, keys=["sex", "agee"], target="depress")),
    ("summary", lambda o, s: ds.disclosure_summary(o, s, keys=["sex"], targets=["depres"])),
    ("sweep", lambda o, s: ds.key_sweep(o, s, keys=["sex", "agee"], targets=["depress"])),
    ("uniques", lambda o, s: ds.replicated_uniques(o, s, keys=["sex", "agee"])),
    ("sdc", lambda o, s: ds.sdc(o, s, keys=["sex", "agee"], rm_replicated_uniques=True)),
    ("risk", lambda o, s: ds.risk(o, ["sex", "agee"])),
    ("risk weight", lambda o, s: ds.risk(o, ["sex"], weight="marital")),
    ("ldiversity", lambda o, s: ds.ldiversity(o, ["sex"], ["depres"])),
    ("suda", lambda o, s: ds.suda(o, ["sex", "agee"])),
    ("dcr", lambda o, s: ds.dcr(o, s, ["sex", "agee"])),
    ("inference", lambda o, s: ds.inference(o, s, ["sex", "agee"], "income")),
    ("inference secret", lambda o, s: ds.inference(o, s, ["sex"], "incme")),
    ("linkability", lambda o, s: ds.linkability(o, s, (["sex"], ["agee"]), n_neighbors=2)),
]


@pytest.mark.parametrize("call", [c for _, c in MISSPELLED], ids=[n for n, _ in MISSPELLED])
def test_a_misspelled_column_fails_before_any_row_is_counted(
    call: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every capability checks the columns its arguments name on the schemas alone: no
    statement runs on the data (the row counts of registration are the first)."""
    from discosql.engines.base import Engine

    stages: list[str] = []
    query = Engine.query

    def spy(self: Engine, sql: str, params: dict[str, Any], stage: str, **kw: Any) -> Any:
        stages.append(stage)
        return query(self, sql, params, stage, **kw)

    monkeypatch.setattr(Engine, "query", spy)
    with pytest.raises(ds.InputError, match=r"not a column|must be numeric"):
        call(str(SD / "sd2011.parquet"), str(SD / "syn_1.parquet"))
    assert "register" not in stages, stages
