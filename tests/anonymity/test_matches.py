"""exact_matches(): UEM, the identical share and the distance to the nearest original record,
against a brute-force reference (tests/anonymity/matches_reference.py: every synthetic record
against every original record) on hypothesis data, hand-worked cases, the argument checks,
another engine and the command line."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import discosql as ds
from discosql.anonymity.matches import BATCH, DISTANCE_SCHEMA, SUMMARY_SCHEMA, branches

from ..helpers.compare import assert_rows_identical
from ..helpers.engines import Loaded, on_engines
from ..helpers.profiles import REFERENCE_EXAMPLES
from .matches_reference import reference
from .strategies import data_sets

DATA = Path(ds.__file__).parent / "data"
ORIGINAL, SYNTHETIC = str(DATA / "sd2011.parquet"), str(DATA / "syn_1.parquet")


def _check(
    original: pa.Table,
    syntheses: list[pa.Table],
    columns: list[str] | None = None,
    control: pa.Table | None = None,
    **kw: Any,
) -> ds.ExactMatches:
    """The result equals the reference in every row of both tables."""
    syn: Any = syntheses[0] if len(syntheses) == 1 else syntheses
    res = ds.exact_matches(original, syn, columns, control, **kw)
    cols = columns or original.column_names
    ref = reference(
        original.to_pylist(),
        [s.to_pylist() for s in syntheses],
        cols,
        None if control is None else control.to_pylist(),
    )
    assert_rows_identical(res.summary.to_pylist(), ref["summary"])
    assert_rows_identical(res.distances.to_pylist(), ref["distances"])
    assert res.summary.schema == SUMMARY_SCHEMA
    assert res.distances.schema == DISTANCE_SCHEMA
    assert res.distances.num_rows == 4 * len(syntheses) * (1 if control is None else 2)
    return res


# --- hypothesis data against the reference ----------------------------------------------------
@pytest.mark.filterwarnings("ignore:exact_matches:discosql.errors.DiscoSQLWarning")
@settings(
    max_examples=REFERENCE_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(data_sets(), st.booleans())
def test_exact_matches_agree_with_the_reference(
    data: tuple[pa.Table, list[pa.Table], pa.Table], with_control: bool
) -> None:
    original, syntheses, control = data
    res = _check(original, syntheses, control=control if with_control else None)
    n = len(original.column_names)
    if n <= 2:  # no record is more than n columns away
        assert all(
            r["records"] == 0
            for r in res.distances.to_pylist()
            if r["distance"] in DISTANCES_ABOVE[n]
        )


DISTANCES_ABOVE = {1: ("2", "3+"), 2: ("3+",)}


# --- hand-worked cases ------------------------------------------------------------------------
def test_a_hand_worked_case() -> None:
    """Original (a, b, c): (1, x, 1.0), (2, y, 2.0), (3, "NA", 3.0), (NULL, NULL, 4.0),
    (5, z, 5.0), all unique. Synthesis: (1.0, x, 1.0) identical (1 = 1.0); (2.0, q, 2.0) one
    column off; (9.0, "NA", 3.0) one off (the text "NA" is not NULL); (NULL, NULL, 4.0)
    identical (NULL = NULL); (7.0, w, 6.0) three off. UEM 2/5, identical 2/5."""
    o = pa.table(
        {"a": [1, 2, 3, None, 5], "b": ["x", "y", "NA", None, "z"], "c": [1.0, 2, 3, 4, 5]}
    )
    s = pa.table(
        {"a": [1.0, 2.0, 9.0, None, 7.0], "b": ["x", "q", "NA", None, "w"], "c": [1.0, 2, 3, 4, 6]}
    )
    res = _check(o, [s])
    assert (res.uem, res.identical) == (40.0, 40.0)
    assert res.distance.to_pylist() == [
        {"distance": "0", "records": 2, "percent": 40.0},
        {"distance": "1", "records": 2, "percent": 40.0},
        {"distance": "2", "records": 0, "percent": 0.0},
        {"distance": "3+", "records": 1, "percent": 20.0},
    ]
    assert res.control_identical is None
    assert res.control_distance is None
    na_text = pa.table({"a": [3], "b": [None], "c": [3.0]})  # NULL is not the text "NA"
    assert _check(o, [na_text]).distance["records"].to_pylist() == [0, 1, 0, 0]


def test_two_differing_columns_and_a_control() -> None:
    """(p, 1, u) is two columns from (p, 2, v) and identical to a control record; (q, 3, w) is
    one column from the control's (q, 3, x)."""
    o = pa.table({"k": ["p", "p", "r"], "v": [2, 2, 9], "w": ["v", "v", "z"]})
    s = pa.table({"k": ["p", "q"], "v": [1, 3], "w": ["u", "w"]})
    control = pa.table({"k": ["p", "q"], "v": [1, 3], "w": ["u", "x"]})
    res = _check(o, [s], control=control)
    assert res.summary.to_pylist()[0] | {"uem": 0.0} == {
        "synthesis": 1,
        "records": 2,
        "original_uniques": 1,  # (r, 9, z); (p, 2, v) is there twice
        "in_synthesis": 0,
        "uem": 0.0,
        "identical_records": 0,
        "identical": 0.0,
        "control_identical_records": 1,
        "control_identical": 50.0,
    }
    assert res.distance["records"].to_pylist() == [0, 0, 1, 1]  # (q, 3, w): 3 off everything
    assert res.control_distance is not None
    assert res.control_distance["records"].to_pylist() == [1, 1, 0, 0]
    assert res.control_identical == 50.0


@pytest.mark.parametrize("n", [1, 2])
def test_one_or_two_columns_are_never_more_than_n_away(n: int) -> None:
    cols = {"a": ["x", "y"], "b": [1, 2]}
    o = pa.table({c: v for c, v in list(cols.items())[:n]})
    s = pa.table(
        {c: [v[0] + v[0] if isinstance(v[0], str) else 7] for c, v in list(cols.items())[:n]}
    )
    res = _check(o, [s])
    assert res.distance["records"].to_pylist() == ([0, 1, 0, 0] if n == 1 else [0, 0, 1, 0])


def test_duplicates_only_one_row_and_all_unique() -> None:
    t = pa.table({"a": ["p", "q", "r"], "b": [1, 2, 3]})
    twice = pa.concat_tables([t, t])
    with pytest.warns(ds.DiscoSQLWarning, match=re.escape("exact_matches: uem is NaN")):
        res = _check(twice, [twice])
    assert math.isnan(res.uem)
    assert res.identical == 100.0
    assert "UEM is NaN: the original has no record unique on the columns" in str(res)
    res = _check(t, [t])
    assert (res.uem, res.identical) == (100.0, 100.0)
    res = _check(t.slice(0, 1), [t.slice(2, 1)])
    assert (res.uem, res.identical) == (0.0, 0.0)
    assert res.distance["records"].to_pylist() == [0, 0, 1, 0]


@pytest.mark.filterwarnings("ignore:synthetic:discosql.errors.DiscoSQLWarning")
def test_several_syntheses_and_an_empty_one() -> None:
    t = pa.table({"a": ["p", "q", "r"], "b": [1, 2, 3]})
    res = _check(t, [t, t.slice(0, 0), t.slice(1, 1)])
    assert res.m == 3
    assert res.summary["uem"].to_pylist() == [100.0, 0.0, 1 / 3 * 100]
    assert math.isnan(res.summary["identical"][1].as_py())
    assert res.of(3).identical == 100.0
    assert res.of(3).distance["records"].to_pylist() == [1, 0, 0, 0]
    with pytest.raises(ds.InputError, match=re.escape("uem: 3 syntheses were measured")):
        _ = res.uem
    with pytest.raises(ds.InputError, match=re.escape("synthesis: 4 is not one of")):
        res.of(4)


def test_the_branches_of_step_2() -> None:
    """One per set of 0, 1 or 2 columns left out (never more than n)."""
    assert branches(1) == [[], [0]]
    assert branches(2) == [[], [0], [1], [0, 1]]
    assert len(branches(8)) == 1 + 8 + 28 <= BATCH  # one statement (and one for a control)


def test_many_columns_take_several_statements(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past BATCH branches step 2 is split over statements; the numbers do not change."""
    t = pq.read_table(ORIGINAL).slice(0, 300)
    s = pq.read_table(SYNTHETIC).slice(0, 300)
    want = ds.exact_matches(t, s)
    assert len(branches(len(t.column_names))) == 46
    monkeypatch.setattr("discosql.anonymity.matches.BATCH", 7)
    assert ds.exact_matches(t, s).to_dict() == want.to_dict()
    control = pq.read_table(ORIGINAL).slice(300, 300)
    _check(t, [s], control=control)


# --- the result -------------------------------------------------------------------------------
def test_the_result_as_data_text_and_html() -> None:
    res = ds.exact_matches(ORIGINAL, SYNTHETIC, ["sex", "age", "region", "income"])
    data = json.loads(res.to_json())
    assert data == res.to_dict()
    assert data["columns"] == ["sex", "age", "region", "income"]
    assert data["summary"][0]["uem"] == res.uem
    assert [r["distance"] for r in data["distances"]] == ["0", "1", "2", "3+"]
    text = str(res)
    assert text.startswith("Exact matches over 4 columns: sex, age, region, income")
    assert f"UEM {res.uem:.2f}%" in text
    html = res._repr_html_()
    assert "exact_matches(): columns sex, age, region, income" in html
    assert "Pilgram et al. 2025" in html


# --- arguments --------------------------------------------------------------------------------
MISSING = "no/such/file.parquet"  # never read: the arguments fail first


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ([], "columns: expected a non-empty list of column names, got []"),
        (["a", "a"], "columns: duplicated column(s) ['a']; each may appear once"),
        ([1], "columns: every entry must be a column name (str), got [1]"),
        (["__disco_x"], "columns: names starting with '__disco_' are reserved: ['__disco_x']"),
    ],
)
def test_arguments_are_checked_before_any_data_is_read(columns: Any, message: str) -> None:
    with pytest.raises(ds.InputError, match=re.escape(message)):
        ds.exact_matches(MISSING, MISSING, columns)


def test_columns_are_checked_against_every_data_set() -> None:
    t = pa.table({"age": [1, 2], "sex": ["a", "b"]})
    with pytest.raises(
        ds.SchemaError,
        match=re.escape("column 'agee': not a column of the original data; did you mean 'age'?"),
    ):
        ds.exact_matches(t, t, ["agee", "sex"])
    with pytest.raises(
        ds.SchemaError, match=re.escape("column 'sex': not a column of the synthetic data")
    ):
        ds.exact_matches(t, t.select(["age"]))
    with pytest.raises(
        ds.SchemaError, match=re.escape("column 'sex': not a column of the control data")
    ):
        ds.exact_matches(t, t, control=t.select(["age"]))
    text = pa.table({"age": ["1", "2"], "sex": ["a", "b"]})
    with pytest.raises(ds.SchemaError, match=re.escape("column 'age' has clashing types")):
        ds.exact_matches(t, text)
    with pytest.raises(ds.InputError, match=re.escape("control: the data set has no rows")):
        ds.exact_matches(t, t, control=t.slice(0, 0))
    with pytest.raises(ds.InputError, match=re.escape("synthetic: the list of synthetic")):
        ds.exact_matches(t, [])


# --- the bundled data, another engine, the command line -----------------------------------------
def test_the_bundled_data() -> None:
    """Checked once against the brute-force reference (5000 x 5000 records, 9 columns)."""
    res = ds.exact_matches(ORIGINAL, SYNTHETIC)
    assert res.summary.to_pylist()[0] | {"uem": 0, "identical": 0} == {
        "synthesis": 1,
        "records": 5000,
        "original_uniques": 4965,
        "in_synthesis": 126,
        "uem": 0,
        "identical_records": 142,
        "identical": 0,
        "control_identical_records": None,
        "control_identical": None,
    }
    assert res.uem == 126 / 4965 * 100
    assert res.distance["records"].to_pylist() == [142, 1061, 2689, 1108]


@on_engines(exclude={"duckdb": "the reference"})
def test_exact_matches_on_every_engine(engine_case: Loaded) -> None:
    o = pq.read_table(ORIGINAL)
    s = pq.read_table(SYNTHETIC)
    tables = {"orig": o.slice(0, 300), "syn": s.slice(0, 300), "two": s.slice(300, 100)}
    tables["control"] = o.slice(2500, 300)
    engine, names = engine_case.load(tables)
    # 4 columns: 1 + 4 + 6 groupings a data set (the hypothesis comparison goes to 6 columns)
    cols = ["sex", "age", "income", "marital"]
    got = ds.exact_matches(
        names["orig"], [names["syn"], names["two"]], cols, names["control"], engine=engine
    )
    want = _check(tables["orig"], [tables["syn"], tables["two"]], cols, tables["control"])
    assert got.to_dict() == want.to_dict()


def test_cli_matches(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from discosql.cli.main import main

    control = tmp_path / "control.parquet"
    pq.write_table(pq.read_table(ORIGINAL).slice(0, 1000), control)
    out = tmp_path / "m.json"
    argv = ["matches", ORIGINAL, SYNTHETIC, "--columns", "sex,age,region"]
    assert main([*argv, "--control", str(control), "--format", "json", "--out", str(out)]) == 0
    want = ds.exact_matches(ORIGINAL, SYNTHETIC, ["sex", "age", "region"], str(control))
    assert json.loads(out.read_text()) == want.to_dict()
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Exact matches over 3 columns: sex, age, region")
    header = ["synthesis", "against", "distance", "records", "percent"]
    assert header in [line.split() for line in printed.splitlines()]
    csv_out = tmp_path / "m.csv"
    assert (
        main(["matches", ORIGINAL, SYNTHETIC, SYNTHETIC, "--out", str(csv_out), "--format", "csv"])
        == 0
    )
    lines = csv_out.read_text().splitlines()
    assert lines[0] == '"synthesis","against","distance","records","percent"'
    assert len(lines) == 1 + 8
    assert main([*argv[:3], "--columns", "sex,nope"]) == 2
    assert "column 'nope': not a column of the original data" in capsys.readouterr().err
