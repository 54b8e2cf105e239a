"""singling_out(): anonymeter's singling-out attack counted exactly, against a brute-force
reference (tests/anonymity/singling_out_reference.py) on hypothesis data, hand-worked cases,
anonymeter's statistics, the argument checks, another engine and the command line."""

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

from ..helpers.engines import Loaded, on_engines
from ..helpers.profiles import REFERENCE_EXAMPLES
from .confidence_reference import bind_value, residual_success, success_rate
from .singling_out_reference import reference

DATA = Path(ds.__file__).parent / "data"
ORIGINAL, SYNTHETIC = str(DATA / "sd2011.parquet"), str(DATA / "syn_1.parquet")


def _check(
    original: pa.Table,
    synthetic: pa.Table,
    mode: str,
    n_cols: int = 3,
    control: pa.Table | None = None,
    columns: list[str] | None = None,
    **kw: Any,
) -> ds.SinglingOutResult:
    """The result equals the reference in every count and row."""
    res = ds.singling_out(original, synthetic, columns, mode, n_cols, control, **kw)
    cols = columns or original.column_names
    # numbers where every data set with values in the column has numbers (a column of NULLs
    # has no type to go by)
    types = {c: [t.schema.field(c).type for t in (original, synthetic)] for c in cols}
    typed = {c: [x for x in ts if not pa.types.is_null(x)] for c, ts in types.items()}
    numeric = {
        c
        for c, ts in typed.items()
        if ts and all(pa.types.is_integer(x) or pa.types.is_floating(x) for x in ts)
    }
    ref = reference(
        original.to_pylist(),
        synthetic.to_pylist(),
        cols,
        mode,
        n_cols,
        numeric,
        None if control is None else control.to_pylist(),
        half_lines=kw.get("numeric", "half-lines") == "half-lines",
    )
    assert res.by_columns.to_pylist() == ref["by_columns"]
    assert (res.queries, res.successes, res.control_successes) == (
        ref["queries"],
        ref["successes"],
        ref["control_successes"],
    )
    rate = res.successes / res.queries if res.queries else math.nan
    assert res.rate == rate or (math.isnan(res.rate) and math.isnan(rate))
    return res


# --- hypothesis data against the reference ----------------------------------------------------
NAMES = ["a", 'it\'s "q"', "é ü", "select * from t; --", "x|y", "NA"]
TEXT = [None, "a", "b", "NA", "Missing", "it's", 'say "hi"', "", "é", "'; drop table t; --"]
NUMBERS = [None, 1, 2, 57, -3, float("nan"), 2.5]


@st.composite
def data_sets(draw: Any) -> tuple[pa.Table, pa.Table, pa.Table, str, int]:
    d = draw(st.integers(1, 6))
    names = draw(st.permutations(NAMES))[:d]
    kinds = {c: draw(st.sampled_from(["text", "int", "double", "mixed"])) for c in names}
    shape = draw(st.sampled_from(["any", "duplicates", "unique"]))

    def table(n: int, syn: bool) -> pa.Table:
        cols = {}
        for c in names:
            kind = kinds[c]
            if kind == "text":
                values = draw(st.lists(st.sampled_from(TEXT), min_size=n, max_size=n))
                cols[c] = pa.array(values, pa.string())
                continue
            values = draw(st.lists(st.sampled_from(NUMBERS), min_size=n, max_size=n))
            if kind == "int" or (kind == "mixed" and not syn):  # int64 here, double there
                ints = [None if v is None or v != v else int(v) for v in values]
                cols[c] = pa.array(ints, pa.int64())
            else:
                cols[c] = pa.array([None if v is None else float(v) for v in values])
        t = pa.table(cols)
        if shape == "duplicates" and n > 1:  # every record twice
            t = pa.concat_tables([t.slice(0, (n + 1) // 2)] * 2)
        return t

    n = draw(st.integers(1, 12))
    original = table(n, False)
    synthetic = table(draw(st.integers(1, 12)), True)
    if shape == "unique":  # every record unique: the original's own records as the synthesis
        synthetic = original.slice(0, n)
    control = table(original.num_rows, False)
    mode = draw(st.sampled_from(["univariate", "multivariate"]))
    return original, synthetic, control, mode, draw(st.integers(1, d))


@settings(
    max_examples=REFERENCE_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(data_sets(), st.booleans(), st.sampled_from(["half-lines", "values"]))
def test_singling_out_agrees_with_the_reference(
    data: tuple[pa.Table, pa.Table, pa.Table, str, int], with_control: bool, numeric: str
) -> None:
    """Numbers as anonymeter's half-lines (the default) and by value."""
    original, synthetic, control, mode, n_cols = data
    ctrl = control if with_control else None
    res = _check(original, synthetic, mode, n_cols, ctrl, numeric=numeric)
    assert res.by_columns.num_rows == (
        len(original.column_names)
        if mode == "univariate"
        else math.comb(len(original.column_names), n_cols)
    )
    assert (res.control_rate is None) == (not with_control)


# --- hand-worked cases ------------------------------------------------------------------------
def test_a_hand_worked_multivariate_case() -> None:
    """Two columns, n_cols = 2: the cells (x, 1), (y, NA) hold one synthetic record each, (x, 2)
    two; in the original (x, 1) is held once and (y, NA) twice: 2 queries, 1 success; the
    control holds (y, NA) once and (x, 1) never: 1 control success."""
    syn = pa.table({"k": ["x", "y", "x", "x"], "v": [1, None, 2, 2]})
    orig = pa.table({"k": ["x", "y", "y", "z"], "v": [1, None, None, 1]})
    control = pa.table({"k": ["y", "x", "x", "z"], "v": [None, 3, 3, 3]})
    res = _check(orig, syn, "multivariate", 2, control)
    assert (res.queries, res.successes, res.control_successes) == (2, 1, 1)
    assert (res.rate, res.control_rate, res.risk) == (0.5, 0.5, 0.0)
    assert res.by_columns.to_pylist() == [{"columns": ["k", "v"], "queries": 2, "successes": 1}]


def test_a_hand_worked_univariate_case() -> None:
    """k: 'y' once in the synthesis (1 query, held once in the original: a success); v: the
    values 1 and 5 once, one missing (isna), the minimum 1 and maximum 5 each held once: 5
    queries. In the original v == 1 once, v == 5 never, isna twice (NaN and NULL are both
    missing), v <= 1 once, v >= 5 twice (9 and 5.5): 2 successes."""
    syn = pa.table({"k": ["x", "y", "x", "x", "x"], "v": [1.0, 3.0, 3.0, 5.0, None]})
    orig = pa.table({"k": ["y", "x", "x", "x", "z"], "v": [1.0, 9.0, float("nan"), 5.5, None]})
    res = _check(orig, syn, "univariate")
    assert res.by_columns.to_pylist() == [
        {"columns": ["k"], "queries": 1, "successes": 1},
        {"columns": ["v"], "queries": 5, "successes": 2},
    ]
    assert res.n_cols == 1


def test_duplicates_only_and_all_unique() -> None:
    t = pa.table({"a": ["p", "q", "r"], "b": [1, 2, 3]})
    twice = pa.concat_tables([t, t])
    res = _check(twice, twice, "multivariate", 2)
    assert (res.queries, res.successes) == (0, 0)
    assert math.isnan(res.rate)
    assert all(math.isnan(x) for x in res.ci)
    res = _check(t, t, "multivariate", 2, control=t)
    assert (res.queries, res.successes, res.rate) == (3, 3, 1.0)
    assert math.isnan(res.risk or 0.0)  # control_rate = 1: no residual risk
    res = _check(t.slice(0, 1), t.slice(0, 1), "univariate")  # one record: == , <= min, >= max
    assert res.by_columns.to_pylist()[1] == {"columns": ["b"], "queries": 3, "successes": 3}


@pytest.mark.filterwarnings("ignore:synthetic:discosql.errors.DiscoSQLWarning")
def test_an_empty_synthesis_has_no_query() -> None:
    t = pa.table({"a": ["p", "q"], "b": [1.0, 2.0]})
    for mode in ("univariate", "multivariate"):
        res = _check(t, t.slice(0, 0), mode, 1)
        assert res.queries == 0
        assert math.isnan(res.rate)


# --- anonymeter's statistics ------------------------------------------------------------------
def test_the_wilson_interval_is_anonymeters() -> None:
    """anonymeter's EvaluationResults(n_attacks=500, n_success=100).risk(): the Wilson centre
    (100 + z^2/2) / (500 + z^2) +- its error, z = 1.959963984540054 (scipy's norm.ppf(0.975))."""
    z = 1.959963984540054
    centre, err = success_rate(500, 100, 0.95)
    assert centre == pytest.approx((100 + z * z / 2) / (500 + z * z), rel=1e-15)
    assert err == pytest.approx(z / (500 + z * z) * math.sqrt(100 * 400 / 500 + z * z / 4))
    assert bind_value(centre, err) == (centre - err, centre + err)
    assert bind_value(0.01, 0.5) == (0.0, 0.51)
    control = success_rate(500, 50, 0.95)
    value, error = residual_success((centre, err), control)
    assert value == pytest.approx((centre - control[0]) / (1 - control[0]), rel=1e-15)
    d_attack, d_control = 1 / (1 - control[0]), (centre - 1) / (1 - control[0]) ** 2
    assert error == pytest.approx(math.hypot(err * d_attack, control[1] * d_control), rel=1e-15)


def test_ci_is_the_rate_s_without_control_and_the_risk_s_with_one() -> None:
    t = pa.table({"a": ["p", "q", "r", "r"], "b": ["u", "v", "w", "w"]})
    control = pa.table({"a": ["p", "s", "s", "s"], "b": ["u", "v", "w", "w"]})
    res = ds.singling_out(t, t, mode="univariate")
    assert res.ci == res.rate_ci == bind_value(*success_rate(4, 4, 0.95))
    assert (res.control_rate, res.risk) == (None, None)
    res = ds.singling_out(t, t, mode="univariate", control=control)
    assert (res.queries, res.successes, res.control_successes) == (4, 4, 3)
    assert res.risk == (1 - 0.75) / (1 - 0.75)
    attack, ctrl = success_rate(4, 4, 0.95), success_rate(4, 3, 0.95)
    assert res.ci == bind_value(*residual_success(attack, ctrl))
    assert res.rate_ci == bind_value(*attack)


# --- the result -------------------------------------------------------------------------------
def test_the_result_as_data_text_and_html() -> None:
    res = ds.singling_out(ORIGINAL, SYNTHETIC, ["sex", "age", "region", "income"], n_cols=2)
    data = json.loads(res.to_json())
    assert data == res.to_dict()
    assert data["queries"] == res.queries
    assert data["rate"] == res.rate
    assert data["risk"] is None
    assert data["control_rate"] is None
    assert [r["columns"] for r in data["by_columns"]][:2] == [["sex", "age"], ["sex", "region"]]
    assert len(data["by_columns"]) == 6
    assert res.by_columns.schema == pa.schema(
        [("columns", pa.list_(pa.string())), ("queries", pa.int64()), ("successes", pa.int64())]
    )
    text = str(res)
    assert text.startswith("Singling out (multivariate, n_cols=2) over 4 columns")
    assert f"queries: {res.queries}" in text
    assert "singling_out(): multivariate" in res._repr_html_()


# --- arguments --------------------------------------------------------------------------------
MISSING = "no/such/file.parquet"  # never read: the arguments fail first


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"mode": "univarite"},
            "mode: expected one of 'univariate', 'multivariate', got "
            "'univarite'; did you mean 'univariate'?",
        ),
        ({"mode": 1}, "mode: expected one of 'univariate', 'multivariate', got 1"),
        (
            {"n_cols": 0},
            "n_cols: expected the number of columns per predicate, a positive integer, got 0",
        ),
        (
            {"n_cols": True},
            "n_cols: expected the number of columns per predicate, a positive integer, got True",
        ),
        (
            {"columns": ["a", "b"], "n_cols": 3},
            "n_cols: 3 columns per predicate, but columns names 2; allowed: 1 to 2",
        ),
        ({"columns": []}, "columns: expected a non-empty list of column names, got []"),
        ({"columns": ["a", "a"]}, "columns: duplicated column(s) ['a']; each may appear once"),
    ],
)
def test_arguments_are_checked_before_any_data_is_read(
    kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ds.InputError, match=re.escape(message)):
        ds.singling_out(MISSING, MISSING, **kwargs)


def test_several_problems_at_once_and_one_synthesis() -> None:
    with pytest.raises(ds.InputError) as e:
        ds.singling_out(MISSING, [MISSING, MISSING], mode="x", n_cols=-1)
    assert len(e.value.problems) == 3
    assert (
        e.value.problems[0]
        == "synthetic: give one data set, got a list of 2; call once per synthesis"
    )


def test_columns_are_checked_against_every_data_set() -> None:
    t = pa.table({"age": [1, 2], "sex": ["a", "b"]})
    with pytest.raises(
        ds.SchemaError,
        match=re.escape("column 'agee': not a column of the original data; did you mean 'age'?"),
    ):
        ds.singling_out(t, t, ["agee", "sex"], n_cols=1)
    with pytest.raises(
        ds.SchemaError,
        match=re.escape(
            "n_cols: 3 columns per predicate, but the original data has 2 columns; allowed: 1 to 2"
        ),
    ):
        ds.singling_out(t, t)
    with pytest.raises(
        ds.SchemaError, match=re.escape("column 'sex': not a column of the control data")
    ):
        ds.singling_out(t, t, n_cols=2, control=t.select(["age"]))
    text = pa.table({"age": ["1", "2"], "sex": ["a", "b"]})
    with pytest.raises(ds.SchemaError, match=re.escape("column 'age' has clashing types")):
        ds.singling_out(t, text, n_cols=2)


def test_a_control_of_another_size_is_refused() -> None:
    t = pa.table({"a": ["p", "q", "r"]})
    with pytest.raises(
        ds.InputError,
        match=re.escape(
            "control: has 2 records and the original 3; give a control of the original's size"
        ),
    ):
        ds.singling_out(t, t, mode="univariate", control=t.slice(0, 2))


# --- the bundled data, another engine, the command line -----------------------------------------
def test_the_bundled_data() -> None:
    uni = ds.singling_out(ORIGINAL, SYNTHETIC, mode="univariate")
    multi = ds.singling_out(ORIGINAL, SYNTHETIC)
    by_value = ds.singling_out(ORIGINAL, SYNTHETIC, numeric="values")
    assert (uni.queries, uni.successes) == (101, 85)
    # age, depress and income as half-lines; the counts checked by an independent numpy pass
    # over every synthetic record and combination of 3 of the 9 columns
    assert (multi.queries, multi.successes) == (3972, 1186)
    assert (by_value.queries, by_value.successes) == (48258, 12660)
    assert multi.by_columns.num_rows == math.comb(9, 3)


@on_engines(exclude={"duckdb": "the reference"})
def test_singling_out_on_another_engine(engine_case: Loaded) -> None:
    # 6 of the 9 columns (20 combinations of 3, of one to three numeric columns): the server
    # engines run a statement per batch
    cols = ["sex", "age", "region", "income", "marital", "depress"]
    t = pq.read_table(ORIGINAL).select(cols)
    tables = {
        "orig": t.slice(0, 1000),
        "syn": pq.read_table(SYNTHETIC).select(cols).slice(0, 1000),
        "control": t.slice(2500, 1000),
    }
    engine, names = engine_case.load(tables)
    for mode in ("univariate", "multivariate"):
        got = ds.singling_out(
            names["orig"], names["syn"], mode=mode, control=names["control"], engine=engine
        )
        want = ds.singling_out(tables["orig"], tables["syn"], mode=mode, control=tables["control"])
        assert got.queries > 0
        assert got.to_dict() == want.to_dict()


def test_cli_singling_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from discosql.cli.main import main

    control = tmp_path / "control.parquet"
    pq.write_table(pq.read_table(SYNTHETIC), control)  # the size of the original
    out = tmp_path / "so.json"
    argv = ["singling-out", ORIGINAL, SYNTHETIC, "--columns", "sex,age,region", "--n-cols", "2"]
    assert main([*argv, "--control", str(control), "--format", "json", "--out", str(out)]) == 0
    want = ds.singling_out(
        ORIGINAL, SYNTHETIC, ["sex", "age", "region"], n_cols=2, control=str(control)
    )
    assert json.loads(out.read_text()) == want.to_dict()
    assert main([*argv, "--mode", "univariate"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Singling out (univariate) over 3 columns")
    csv_out = tmp_path / "so.csv"
    assert main([*argv, "--format", "csv", "--out", str(csv_out)]) == 0
    assert csv_out.read_text().splitlines()[1] == '"sex, age",' + ",".join(
        str(x) for x in want.by_columns.to_pylist()[0].values() if not isinstance(x, list)
    )
    assert main([*argv[:3], "--n-cols", "0"]) == 2
    err = capsys.readouterr().err
    assert "--n-cols: expected the number of columns per predicate" in err
    assert main([*argv[:3], "--columns", "sex,nope", "--n-cols", "1"]) == 2
    assert "column 'nope': not a column of the original data" in capsys.readouterr().err


def test_a_hand_worked_case_of_two_half_lines() -> None:
    """Two numeric columns, medians 2.5: (10, 10) asks a >= 10 & b >= 10 and (1, 1) asks
    a <= 1 & b <= 1; (2, 2) and (3, 3) share their half-lines with another synthetic record
    (no query). In the original, two records beyond (10, 10), neither behind the other (no
    success), and (0, 0) alone below (1, 1) (a success); in the control, one record beyond
    (10, 10) with another behind it (no success), and (0, 0) again."""
    synthetic = pa.table({"a": [1, 2, 3, 10], "b": [1, 2, 3, 10]})
    original = pa.table({"a": [11, 12, 0, 5], "b": [12, 11, 0, 1]})
    control = pa.table({"a": [11, 10, 0, 5], "b": [12, 11, 0, 5]})
    res = ds.singling_out(original, synthetic, n_cols=2, control=control)
    assert (res.queries, res.successes, res.control_successes) == (2, 1, 1)


@pytest.mark.parametrize("shape", ["independent", "together", "against"])
def test_three_numeric_columns_through_the_maxima(shape: str) -> None:
    """Three and four numeric columns and a category over 300 records, counted through the
    synthesis' maximal points (anonymity/singling_out_maxima.sql.j2): the strong points
    prune little where the numbers go against each other, much where they do not; the
    counts equal the reference's either way, and rounded numbers give ties."""
    import random

    rng = random.Random(7)

    def table(n: int) -> pa.Table:
        a = [rng.random() for _ in range(n)]
        b = [rng.random() for _ in range(n)]
        if shape == "together":
            b = [x + rng.random() / 4 for x in a]
        c = [rng.random() for _ in range(n)]
        if shape == "against":
            c = [2 - x - y + rng.random() / 20 for x, y in zip(a, b, strict=True)]
        d = [round(x * 6) for x in c]
        return pa.table(
            {
                "a": [round(x, 2) for x in a],
                "b": [None if i % 37 == 0 else round(x, 2) for i, x in enumerate(b)],
                "c": c,
                "d": d,
                "k": [rng.choice("xy") for _ in range(n)],
            }
        )

    original, synthetic, control = table(300), table(300), table(300)
    _check(original, synthetic, "multivariate", 3, control)
    _check(original, synthetic, "multivariate", 4, control, ["a", "b", "c", "d"])


def test_half_lines_past_max_pairs_are_refused() -> None:
    """Numbers that go against each other make most points maximal: the candidates' pairs
    are counted first and refused with the columns, the count and what to change."""
    n = 400  # half the records at 0 put the medians below the rest, where a + b = 3
    a = [0.0] * n + [1 + i / n for i in range(n)]
    b = [0.0] * n + [2 - i / n for i in range(n)]
    c = [0.0] * n + [1 + (i * 7919 % n) / n for i in range(n)]
    synthetic = pa.table({"a": a, "b": b, "c": c})
    with pytest.raises(ds.InputError, match=r"columns \['a', 'b', 'c'\] need .* max_pairs=1_000"):
        ds.singling_out(synthetic, synthetic, n_cols=3, max_pairs=1_000)
    res = ds.singling_out(synthetic, synthetic, n_cols=3)
    assert res.queries == res.successes > 0
