"""linkability(): the rates over every original (and control) record, against a brute-force
reference (tests/anonymity/linkability_reference.py: every record against every synthetic
record) on hypothesis data, hand-worked cases, the argument checks, every engine and the
command line."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any
from unittest import mock

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import discosql as ds
from discosql.anonymity.linkability import BY_DISTANCE_SCHEMA, MAX_SIDE

from ..helpers.engines import Loaded, on_engines
from ..helpers.profiles import REFERENCE_EXAMPLES, fixed
from .distance_data import RADII, in_rounds, mixed, plain
from .distance_data import data_sets as gower_data
from .inference_reference import linkability as gower_linkability
from .linkability_reference import reference
from .strategies import data_sets

DATA = Path(ds.__file__).parent / "data"
ORIGINAL, SYNTHETIC = str(DATA / "sd2011.parquet"), str(DATA / "syn_1.parquet")


def _check(
    original: pa.Table,
    synthetic: pa.Table,
    a: list[str],
    b: list[str],
    control: pa.Table | None = None,
    **kw: Any,
) -> ds.LinkabilityResult:
    """Every row of by_distance and every total equals the reference's (the Hamming attack:
    every column a category)."""
    kw.setdefault("numeric", "values")
    res = ds.linkability(original, synthetic, (a, b), control, **kw)
    want = reference(
        original.to_pylist(),
        synthetic.to_pylist(),
        a,
        b,
        None if control is None else control.to_pylist(),
    )
    assert res.by_distance.to_pylist() == want
    assert res.by_distance.schema == BY_DISTANCE_SCHEMA
    of = [r for r in want if r["data_set"] == "original"]
    assert res.records == original.num_rows == sum(r["records"] for r in of)
    assert res.linked == sum(r["linked"] for r in of)
    assert res.linked_unique == sum(r["linked_unique"] for r in of)
    if control is None:
        assert res.control_rate is None
        assert res.risk is None
    else:
        ctrl = [r for r in want if r["data_set"] == "control"]
        assert res.control_records == control.num_rows
        assert res.control_linked == sum(r["linked"] for r in ctrl)
        assert res.control_linked_unique == sum(r["linked_unique"] for r in ctrl)
    return res


# --- hypothesis data against the reference ----------------------------------------------------
@st.composite
def sides(draw: Any, names: list[str]) -> tuple[list[str], list[str]]:
    """A and B: non-empty; disjoint, overlapping or equal."""
    a = draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
    b = draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
    return a, b


@settings(
    max_examples=REFERENCE_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(st.data(), data_sets(), st.booleans())
def test_linkability_agrees_with_the_reference(
    draw: st.DataObject, data: tuple[pa.Table, list[pa.Table], pa.Table], with_control: bool
) -> None:
    """Both link checks: joint groupings (the default on small sides) and, in a third of the
    examples, the listing of the closest records (MAX_JOINT 0)."""
    original, syntheses, control = data
    a, b = draw.draw(sides(original.column_names))
    joint = draw.draw(st.sampled_from([128, 128, 0]))
    with mock.patch("discosql.anonymity.linkability_hamming.MAX_JOINT", joint):
        res = _check(original, syntheses[0], a, b, control if with_control else None)
    assert res.linked_unique <= res.linked <= res.records


# --- hand-worked cases ------------------------------------------------------------------------
def test_a_hand_worked_case() -> None:
    """A = (a), B = (b, c). Synthesis s1 (x, 1, p), s2 (y, 2, p), s3 (z, 2, r).
    (x, 1, p): closest on A {s1}, on B {s1}: linked uniquely.
    (y, 2, q): A {s2}; B {s2, s3} (one column off each): linked, not uniquely.
    (x, 1, r): A {s1}; B {s1, s3}: linked.
    (NULL, 3, p): A {s1, s2, s3} (NULL is one column off each); B {s1, s2}: linked.
    (w, 9, q): A {s1, s2, s3}; B: every record two columns off: linked."""
    o = pa.table(
        {
            "a": ["x", "y", "x", None, "w"],
            "b": [1, 2, 1, 3, 9],
            "c": ["p", "q", "r", "p", "q"],
        }
    )
    s = pa.table({"a": ["x", "y", "z"], "b": [1, 2, 2], "c": ["p", "p", "r"]})
    res = _check(o, s, ["a"], ["b", "c"])
    assert (res.records, res.linked, res.linked_unique) == (5, 5, 1)
    assert (res.rate, res.rate_unique) == (1.0, 0.2)
    split = pa.table({"a": ["x", "q"], "b": [7, 1], "c": ["p", "p"]})  # A says s1, B says s2
    res = _check(o.slice(0, 1), split, ["a"], ["b", "c"])
    assert (res.linked, res.linked_unique) == (0, 0)


def test_a_control_and_the_risk() -> None:
    o = pa.table({"a": ["x", "y", "z", "w"], "b": [1, 2, 3, 4]})
    s = o.slice(0, 3)  # reproduces three of the four originals
    control = pa.table({"a": ["x", "v"], "b": [2, 3]})  # A says s1, B says s2; v: A ties all
    res = _check(o, s, ["a"], ["b"], control)
    # (w, 4): both sides tie all three synthetic records: linked, not uniquely
    assert (res.linked, res.linked_unique) == (4, 3)
    assert res.by_distance.to_pylist()[1] | {"records": 1} == {
        "data_set": "original",
        "distance_a": 1,
        "distance_b": 1,
        "records": 1,
        "linked": 1,
        "linked_unique": 0,
    }
    assert res.control_rate == 0.5  # (v, 3): every record on A, s3 on B
    assert res.control_rate_unique == 0.0
    assert res.risk == (1.0 - 0.5) / 0.5
    assert res.ci[0] <= res.risk <= res.ci[1]
    same = _check(o, s, ["a"], ["b"], o)
    assert same.control_rate == 1.0
    assert math.isnan(same.risk)


def test_one_row_one_column_duplicates_and_an_empty_synthesis() -> None:
    t = pa.table({"k": ["a"]})
    res = _check(t, t, ["k"], ["k"])
    assert (res.rate, res.rate_unique) == (1.0, 1.0)
    twice = pa.concat_tables([t, t])
    res = _check(twice, twice, ["k"], ["k"])
    assert (res.rate, res.rate_unique) == (1.0, 0.0)  # two closest records, the same two
    with pytest.warns(ds.DiscoSQLWarning, match="synthetic: the data set has no rows"):
        res = _check(twice, t.slice(0, 0), ["k"], ["k"])
    assert (res.linked, res.by_distance["distance_a"].to_pylist()) == (0, [1])
    with pytest.raises(ds.InputError, match="original: the data set has no rows"):
        ds.linkability(t.slice(0, 0), t, (["k"], ["k"]))


def test_records_far_on_many_columns() -> None:
    """Every level of a side is tried until each record has its closest: here 4 columns off."""
    o = pa.table({c: ["a", "b"] for c in "pqrst"})
    s = pa.table({c: ["z", "b"] for c in "pqrst"}).slice(0, 1)
    res = _check(o, s, ["p", "q", "r", "s"], ["t"])
    assert res.by_distance["distance_a"].to_pylist() == [4]


# --- the result -------------------------------------------------------------------------------
def test_the_result_as_data_text_and_html() -> None:
    sides_ = (["sex", "age"], ["region", "placesize"])
    res = ds.linkability(ORIGINAL, SYNTHETIC, sides_, control=ORIGINAL)
    data = json.loads(res.to_json())
    assert data == res.to_dict()
    assert data["aux_cols"] == [["sex", "age"], ["region", "placesize"]]
    assert data["rate"] == res.rate
    assert data["risk"] == res.risk == 0.0
    text = str(res)
    assert text.startswith("Linkability of A (sex, age) and B (region, placesize)")
    assert f"rate: {res.rate:.4f}" in text
    assert "linkability(): A = sex, age; B = region, placesize" in res._repr_html_()


# --- arguments --------------------------------------------------------------------------------
MISSING = "no/such/file.parquet"  # never read: the arguments fail first
WIDE = [f"c{i}" for i in range(MAX_SIDE + 1)]


@pytest.mark.parametrize(
    ("aux_cols", "message"),
    [
        ("ab", "aux_cols: expected two sets of columns (A, B)"),
        ((["a"],), "aux_cols: expected two sets of columns (A, B)"),
        (([], ["b"]), "aux_cols[0] (A): expected a non-empty list of column names, got []"),
        ((["a", "a"], ["b"]), "aux_cols[0] (A): duplicated column(s) ['a']"),
        ((["a"], [1]), "aux_cols[1] (B): every entry must be a column name (str), got [1]"),
        ((["a"], ["__disco_x"]), "aux_cols[1] (B): names starting with '__disco_' are reserved"),
        ((WIDE, ["b"]), f"aux_cols[0] (A): {MAX_SIDE + 1} columns; at most {MAX_SIDE} a side"),
    ],
)
def test_arguments_are_checked_before_any_data_is_read(aux_cols: Any, message: str) -> None:
    with pytest.raises(ds.InputError, match=re.escape(message)):
        ds.linkability(MISSING, MISSING, aux_cols, numeric="values")


def test_one_synthesis_and_columns_of_every_data_set() -> None:
    t = pa.table({"age": [1, 2], "sex": ["a", "b"]})
    with pytest.raises(ds.InputError, match=re.escape("synthetic: give one data set, got a list")):
        ds.linkability(t, [t, t], (["age"], ["sex"]))
    with pytest.raises(
        ds.SchemaError,
        match=re.escape("column 'agee': not a column of the original data; did you mean 'age'?"),
    ):
        ds.linkability(t, t, (["agee"], ["sex"]))
    with pytest.raises(
        ds.SchemaError, match=re.escape("column 'sex': not a column of the control data")
    ):
        ds.linkability(t, t, (["age"], ["sex"]), control=t.select(["age"]))


def test_the_link_step_refuses_what_neither_check_can_do(monkeypatch: pytest.MonkeyPatch) -> None:
    t = pa.table({"a": ["x"] * 5, "b": ["y"] * 5})
    monkeypatch.setattr("discosql.anonymity.linkability_hamming.MAX_JOINT", 0)
    monkeypatch.setattr("discosql.anonymity.linkability_hamming.MAX_LISTED", 4)
    message = (
        "aux_cols: the records at distance 0 on A and 0 on B need 1 joint groupings (at most "
        "0) or a list of 5 closest synthetic records (at most 4)"
    )
    with pytest.raises(ds.InputError, match=re.escape(message)):
        ds.linkability(t, t, (["a"], ["b"]))


def test_joint_branches_with_a_column_on_both_sides() -> None:
    from discosql.anonymity.linkability_hamming import _joint

    everything = {0, 1, 2}
    # A = (0, 1), B = (1, 2), distances 1 and 1: the columns off (A - D_A) | (B - D_B);
    # D_A = {0}, D_B = {2} keeps {1} alone: drops 0 and 2
    assert _joint([[0, 1], [1, 2]], everything, 1, 1) == [[0], [0, 2], [1], [2]]
    assert _joint([[0, 1], [1, 2]], everything, 0, 0) == [[]]
    assert _joint([[0, 1], [1, 2]], everything, 2, 2) == [[0, 1, 2]]


def test_many_link_branches_take_several_statements(monkeypatch: pytest.MonkeyPatch) -> None:
    o = pq.read_table(ORIGINAL).slice(0, 200)
    s = pq.read_table(SYNTHETIC).slice(0, 200)
    a, b = ["sex", "age", "region"], ["placesize", "ls", "marital"]
    want = _check(o, s, a, b)
    monkeypatch.setattr("discosql.anonymity.linkability_hamming.MAX_JOINT", 0)  # listing
    assert ds.linkability(o, s, (a, b), numeric="values").to_dict() == want.to_dict()
    monkeypatch.setattr("discosql.anonymity.linkability_hamming.BATCH", 2)
    assert ds.linkability(o, s, (a, b), numeric="values").to_dict() == want.to_dict()


# --- the bundled data, every engine, the command line -------------------------------------------
@on_engines(exclude={"duckdb": "the reference"})
def test_linkability_on_every_engine(engine_case: Loaded) -> None:
    o = pq.read_table(ORIGINAL)
    s = pq.read_table(SYNTHETIC)
    tables = {"orig": o.slice(0, 300), "syn": s.slice(0, 300), "control": o.slice(2500, 200)}
    engine, names = engine_case.load(tables)
    a, b = ["sex", "age", "region"], ["placesize", "ls", "marital", "income"]
    got = ds.linkability(
        names["orig"], names["syn"], (a, b), names["control"], engine=engine, numeric="values"
    )
    want = _check(tables["orig"], tables["syn"], a, b, tables["control"])
    assert got.to_dict() == want.to_dict()


def test_cli_linkability(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from discosql.cli.main import main

    control = tmp_path / "control.parquet"
    pq.write_table(pq.read_table(ORIGINAL).slice(0, 1000), control)
    out = tmp_path / "lk.json"
    argv = ["linkability", ORIGINAL, SYNTHETIC, "--a", "sex,age", "--b", "region,marital"]
    assert main([*argv, "--control", str(control), "--format", "json", "--out", str(out)]) == 0
    sides_ = (["sex", "age"], ["region", "marital"])
    want = ds.linkability(ORIGINAL, SYNTHETIC, sides_, str(control))
    assert json.loads(out.read_text()) == want.to_dict()
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Linkability of A (sex, age) and B (region, marital)")
    header = ["data_set", "distance_a", "distance_b", "records", "linked", "linked_unique"]
    assert header in [line.split() for line in printed.splitlines()]
    csv_out = tmp_path / "lk.csv"
    assert main([*argv, "--out", str(csv_out), "--format", "csv"]) == 0
    assert csv_out.read_text().splitlines()[0] == ",".join(f'"{h}"' for h in header)
    assert main([*argv[:5], "--b", "sex,nope"]) == 2
    err = capsys.readouterr().err
    assert "column 'nope': not a column of the original data" in err
    assert "Traceback" not in err
    with pytest.raises(SystemExit) as exited:  # argparse: --b is required
        main(argv[:5])
    assert exited.value.code == 2


# --- the Gower attack: numeric columns, n neighbours, every tie -------------------------------
@pytest.mark.slow
# 150 examples in CI: each is a whole attack on every engine path (rounds, ties, control)
@settings(max_examples=fixed(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), gower_data(), st.integers(1, 3), st.booleans(), RADII)
def test_gower_linkability_agrees_with_the_reference(
    data: Any, sets: Any, k: int, rounds: bool, first_radius: float | None
) -> None:
    """Numeric, integer, float, boolean, datetime and text columns with missing values and
    ties; k closest records a side, every choice among the ties at the k-th enumerated by
    the reference; the search in its rounds."""
    names, kinds, (original, synthetic, control, _) = sets
    assume(synthetic.num_rows > 0)
    a, b = data.draw(sides(names))
    numeric = {c for c, kind in kinds.items() if kind in ("int", "float", "time")}
    with in_rounds(rounds, first_radius):
        res = ds.linkability(original, synthetic, (a, b), control, n_neighbors=k)
    syn = plain(synthetic, kinds)
    want = gower_linkability(plain(original, kinds), syn, a, b, numeric, k)
    assert (res.linked, res.linked_unique) == want
    assert res.records == original.num_rows
    want_c = gower_linkability(plain(control, kinds), syn, a, b, numeric, k)
    assert (res.control_linked, res.control_linked_unique) == want_c


@on_engines()
def test_gower_linkability_on_every_engine(engine_case: Loaded) -> None:
    """The reference's counts on every engine: numeric columns on both sides, two
    neighbours, a control; on SQLite and PostgreSQL the search in its rounds."""
    tables = {"orig": mixed(40, 1), "syn": mixed(30, 2), "ctrl": mixed(30, 4)}
    tables = {k: t.drop_columns(["seen", "ok"]) for k, t in tables.items()}
    engine, names = engine_case.load(tables)
    kinds = {"sex": "text", "région": "text", "age": "int", "income": "float"}
    a, b = ["sex", "age"], ["région", "income", "age"]
    rounds = engine_case.case.name in ("sqlite", "postgres")
    for k in (1, 2):
        with in_rounds(rounds, 0.25):
            got = ds.linkability(
                names["orig"], names["syn"], (a, b), names["ctrl"], n_neighbors=k, engine=engine
            )
        syn = plain(tables["syn"], kinds)
        want = gower_linkability(plain(tables["orig"], kinds), syn, a, b, {"age", "income"}, k)
        assert (got.linked, got.linked_unique) == want
        want = gower_linkability(plain(tables["ctrl"], kinds), syn, a, b, {"age", "income"}, k)
        assert (got.control_linked, got.control_linked_unique) == want


def test_k_neighbours_among_identical_records_are_not_forced() -> None:
    """Four identical synthetic records, two neighbours a side: some choice of two on A and
    two on B shares a record, but the other two leave them apart, so the link is not
    unique. (With only categorical columns the ranges of the two data sets together were
    once a row per record, which repeated every pair.)"""
    o, s = pa.table({"k": ["a"]}), pa.table({"k": ["a", "a", "a", "a"]})
    res = ds.linkability(o, s, (["k"], ["k"]), o, n_neighbors=2)
    assert (res.linked, res.linked_unique) == (1, 0)
    assert (res.control_linked, res.control_linked_unique) == (1, 0)
    res = ds.linkability(o, s.slice(0, 3), (["k"], ["k"]), n_neighbors=2)
    assert (res.linked, res.linked_unique) == (1, 1)  # two of three a side always meet
