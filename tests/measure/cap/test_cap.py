"""The CAP family against the brute-force reference (hypothesis) and the papers' worked examples."""

from __future__ import annotations

import math
import re
import warnings

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import discosql as ds

from ...helpers.compare import within
from ...helpers.profiles import fixed
from . import reference as ref

NAMES = ['sex "quoted"', "select", "日本 語", "x'); drop table t; --", "a|b", "Missing", "k"]
TEXT = st.sampled_from(["a", "b", "c'", 'd"', "é ü", "Missing", None])
INTS = st.sampled_from([1, 2, 3, None])


@st.composite
def datasets(draw, min_syn: int = 0):
    """(original rows, synthetic rows, control rows, keys, targets, schema) with odd names."""
    names = draw(st.permutations(NAMES))
    n_keys = draw(st.integers(1, 3))
    n_targets = draw(st.integers(1, 2))
    cols = names[: n_keys + n_targets]
    kinds = {c: draw(st.sampled_from(["text", "int"])) for c in cols}

    def rows(lo: int, hi: int) -> list[dict]:
        n = draw(st.integers(lo, hi))
        return [{c: draw(TEXT if kinds[c] == "text" else INTS) for c in cols} for _ in range(n)]

    schema = pa.schema([(c, pa.string() if kinds[c] == "text" else pa.int64()) for c in cols])
    return rows(1, 25), rows(min_syn, 25), rows(1, 15), cols[:n_keys], cols[n_keys:], schema


def table(rows: list[dict], schema: pa.Schema) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=schema)


def call(fn, o, s, keys, targets, **kw):
    with warnings.catch_warnings():
        # an empty synthetic data set warns (DiscoSQLWarning); the measures are still defined
        warnings.simplefilter("ignore", ds.DiscoSQLWarning)
        return fn(o, s, keys, targets, **kw)


FAST = settings(max_examples=fixed(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@FAST
@given(datasets())
def test_sdmetrics_scores_match_the_reference(data) -> None:
    o_rows, s_rows, c_rows, keys, targets, schema = data
    o, s, c = table(o_rows, schema), table(s_rows, schema), table(c_rows, schema)
    want = ref.cap_scores(o_rows, s_rows, keys, targets)
    want_c = ref.cap_scores(o_rows, c_rows, keys, targets)
    for name, fn in [
        ("categorical_cap", ds.categorical_cap),
        ("categorical_zero_cap", ds.categorical_zero_cap),
        ("categorical_generalized_cap", ds.categorical_generalized_cap),
    ]:
        got = call(fn, o, s, keys, targets, control=c)
        assert within(got.score, want[name]), (name, got, want)
        assert within(got.control.score, want_c[name]), (name, got, want_c)
        assert got.n_original == len(o_rows)
        if not math.isnan(want[name]) and not math.isnan(want_c[name]) and want_c[name] > 0:
            expected = ref.excess(1 - want[name], 1 - want_c[name])
            assert within(got.excess_risk, expected, 1e-9)


@FAST
@given(datasets(), st.sampled_from([1.0, 0.5, 0.3, 2 / 3]))
def test_taub_tcap_matches_the_reference(data, tau) -> None:
    o_rows, s_rows, c_rows, keys, targets, schema = data
    o, s, c = table(o_rows, schema), table(s_rows, schema), table(c_rows, schema)
    got = call(ds.taub_tcap, o, s, keys, targets, tau=tau, control=c)
    want = ref.taub_tcap(o_rows, s_rows, keys, targets, tau)
    assert within(got.tcap, want["tcap"])
    assert within(got.tcap_zero, want["tcap_zero"])
    assert (got.n_kept, got.n_undefined) == (want["n_kept"], want["n_undefined"])
    assert got.n_synthetic == len(s_rows)
    want_c = ref.taub_tcap(o_rows, c_rows, keys, targets, tau)
    assert within(got.control.tcap, want_c["tcap"])
    assert got.control.n_undefined == want_c["n_undefined"]


@FAST
@given(datasets())
def test_per_record_caps_and_summary_match_the_reference(data) -> None:
    o_rows, s_rows, c_rows, keys, targets, schema = data
    o, s, c = table(o_rows, schema), table(s_rows, schema), table(c_rows, schema)
    want = ref.record_caps(o_rows, s_rows, keys, targets)
    records = call(ds.cap_records, o, s, keys, targets, control=c).to_pylist()
    # expand the cells to records: each original record gets its cell's CAP
    got_caps = sorted(r["cap_synthetic"] for r in records for _ in range(r["n_original"]))
    assert got_caps == pytest.approx(sorted(want["caps"]), abs=1e-15)
    assert sum(r["n_original"] for r in records) == len(o_rows)
    assert sum(r["n_synthetic"] for r in records) == len(s_rows)
    assert sum(r["n_control"] for r in records) == len(c_rows)
    summary = call(ds.cap_summary, o, s, keys, targets, control=c)
    for name in (
        "mean_cap",
        "mean_cap_matched",
        "mean_cap_original",
        "min_cap",
        "min_cap_matched",
        "share_cap_ge_half",
        "share_cap_ge_08",
        "share_cap_eq_1",
        "majority_correct",
    ):
        assert within(getattr(summary, name), want[name]), name
    for p, v in summary.quantiles.items():
        assert v == want["quantile"](p), p
    want_c = ref.record_caps(o_rows, c_rows, keys, targets)
    assert within(summary.control.mean_cap, want_c["mean_cap"])
    assert within(summary.excess_risk, ref.excess(want["mean_cap"], want_c["mean_cap"]))


# -- hand-worked examples of the papers -------------------------------------------------------
def expand(cells: dict[tuple[str, str], int], key: str = "key", target: str = "target") -> pa.Table:
    rows = {key: [], target: []}
    for (k, t), n in cells.items():
        rows[key] += [k] * n
        rows[target] += [t] * n
    return pa.table(rows)


def matrix(columns: dict[str, tuple[int, int, int]]) -> pa.Table:
    """A table of Baillargeon & Charest: {key: (count of T1, T2, T3)}."""
    return expand({(k, f"T{i + 1}"): n for k, ns in columns.items() for i, n in enumerate(ns)})


SMOKER_O = expand(
    {("smoker", "sick"): 20, ("smoker", "healthy"): 30, ("non", "sick"): 5, ("non", "healthy"): 45}
)
SMOKER_S = expand(
    {("smoker", "sick"): 8, ("smoker", "healthy"): 25, ("non", "sick"): 7, ("non", "healthy"): 60}
)


def test_smoker_example_of_baillargeon_and_charest() -> None:
    """Section 2.3: a sick smoker has CAP 20/50 = 0.4 in O and 8/33 = 0.2424 in S."""
    rows = ds.cap_records(SMOKER_O, SMOKER_S, ["key"], "target").to_pylist()
    cell = {(r["key"], r["target"]): r for r in rows}
    assert cell["smoker", "sick"]["cap_original"] == 0.4
    assert round(cell["smoker", "sick"]["cap_synthetic"], 4) == 0.2424
    assert cell["smoker", "healthy"]["cap_original"] == 0.6  # x_1: 30/50 and 25/33 = 0.7576
    assert round(cell["smoker", "healthy"]["cap_synthetic"], 4) == 0.7576
    summary = ds.cap_summary(SMOKER_O, SMOKER_S, ["key"], "target")
    assert summary.min_cap == 0.05  # Theorem 2: o_min / n = 5 / 100
    assert summary.min_cap_matched == 0.1  # Theorem 3: min o_ij / o_.j = 5 / 50
    assert summary.mean_cap_original == pytest.approx(0.67)  # (20*.4 + 30*.6 + 5*.1 + 45*.9)/100


O3 = matrix({"K1": (0, 0, 127), "K2": (176, 78, 163), "K3": (204, 93, 59)})
O4 = matrix({"K1": (0, 197, 74), "K2": (0, 136, 99), "K3": (62, 134, 198)})


@pytest.mark.parametrize(
    ("original", "synthetic", "mean_cap"),
    [
        pytest.param(
            O3,
            matrix({"K1": (24, 226, 216), "K2": (36, 113, 54), "K3": (15, 213, 3)}),
            0.31,
            id="O3-Sb",
        ),
        pytest.param(
            O3,
            matrix({"K1": (129, 2, 91), "K2": (137, 131, 111), "K3": (99, 147, 53)}),
            0.35,
            id="O3-Sg",
        ),
        pytest.param(
            O4,
            matrix({"K1": (114, 104, 105), "K2": (118, 44, 86), "K3": (77, 134, 118)}),
            0.318,
            id="O4-Sa",
        ),
        pytest.param(
            O4,
            matrix({"K1": (67, 37, 169), "K2": (97, 114, 14), "K3": (153, 101, 148)}),
            0.309,
            id="O4-Se",
        ),
    ],
)
def test_average_cap_of_baillargeon_and_charest(original, synthetic, mean_cap) -> None:
    """Section 4: CAP_O3(S_b) ~ 0.31, CAP_O3(S_g) ~ 0.35, CAP_O4(S_a) ~ 0.318, CAP_O4(S_e) ~ 0.309.

    The paper rounds; the digits given are compared.
    """
    summary = ds.cap_summary(original, synthetic, ["key"], "target")
    digits = len(str(mean_cap).split(".")[1])
    assert round(summary.mean_cap, digits) == mean_cap
    assert summary.mean_cap == summary.mean_cap_matched  # every key occurs in S


def test_majority_vote_attacker_of_baillargeon_and_charest() -> None:
    """Section 4: with O4, 134 records are predicted correctly with S_a and 272 with S_e."""
    s_a = matrix({"K1": (114, 104, 105), "K2": (118, 44, 86), "K3": (77, 134, 118)})
    s_e = matrix({"K1": (67, 37, 169), "K2": (97, 114, 14), "K3": (153, 101, 148)})
    assert ds.cap_summary(O4, s_a, ["key"], "target").majority_correct == 134
    assert ds.cap_summary(O4, s_e, ["key"], "target").majority_correct == 272


def test_taub_tcap_by_hand() -> None:
    """Taub et al.: WEAP on the synthetic side, TCAP = o_qt / o_q, undefined for unseen keys."""
    o = expand({("a", "x"): 3, ("a", "y"): 1, ("b", "x"): 2})
    # WEAP: (a, x) 2/2 = 1 kept; (b, y) 1/3 and (b, x) 2/3 not kept at tau 1;
    # (c, x) 1/1 kept but undefined (no original c)
    s = expand({("a", "x"): 2, ("b", "y"): 1, ("b", "x"): 2, ("c", "x"): 1})
    res = ds.taub_tcap(o, s, ["key"], "target")
    assert (res.n_kept, res.n_undefined) == (3, 1)
    assert res.tcap == 0.75  # both kept (a, x) records: 3 of the 4 original a's have x
    assert res.tcap_zero == 0.5  # (0.75 + 0.75 + 0) / 3
    res = ds.taub_tcap(o, s, ["key"], "target", tau=0.6)  # (b, x) joins: WEAP 2/3, TCAP 2/2
    assert (res.n_kept, res.n_undefined) == (5, 1)
    assert res.tcap == pytest.approx((0.75 * 2 + 1 * 2) / 4)


def test_generalized_cap_by_hand() -> None:
    """An original key without an exact match pools the synthetic keys at the least distance."""
    o = pa.table({"k1": ["a", "a"], "k2": ["x", "z"], "t": ["1", "1"]})
    # (a, x): exact match, 1 of 2 records has t = 1. (a, z): no exact match; at distance 1 are
    # (a, x) [t 1, 2] and (b, z) [t 1]: 2 of 3 pooled records have t = 1. (b, w) is at distance 2.
    s = pa.table(
        {"k1": ["a", "a", "b", "b"], "k2": ["x", "x", "z", "w"], "t": ["1", "2", "1", "1"]}
    )
    res = ds.categorical_generalized_cap(o, s, ["k1", "k2"], "t")
    assert res.score == pytest.approx(1 - (1 / 2 + 2 / 3) / 2, abs=1e-15)
    assert ds.categorical_cap(o, s, ["k1", "k2"], "t").score == 0.5  # (a, z) skipped
    assert ds.categorical_zero_cap(o, s, ["k1", "k2"], "t").score == 0.75  # (a, z) scores 0


def test_replicated_unique_and_disco_flags() -> None:
    o = pa.table({"k": ["u", "v", "v"], "t": ["1", "1", "2"]})
    s = pa.table({"k": ["u", "v", "v", "w"], "t": ["2", "2", "2", "1"]})
    rows = {(r["k"], r["t"]): r for r in ds.cap_records(o, s, ["k"], "t").to_pylist()}
    assert rows["u", "1"]["replicated_unique"]  # unique in both, target need not match
    assert rows["u", "1"]["disclosive_original"]
    assert not rows["u", "1"]["disco"]
    assert rows["v", "2"]["disco"]
    assert rows["v", "2"]["cap_synthetic"] == 1.0
    assert not rows["v", "1"]["disclosive_original"]
    assert rows["v", "1"]["cap_synthetic"] == 0
    assert rows["w", "1"]["cap_original"] is None
    assert rows["w", "1"]["n_original"] == 0
    assert sum(r["replicated_unique"] for r in rows.values()) == 1


def test_records_stream_in_batches() -> None:
    reader = ds.cap_records(SMOKER_O, SMOKER_S, ["key"], "target", stream=True, batch_size=1)
    assert isinstance(reader, pa.RecordBatchReader)
    got = reader.read_all()
    want = ds.cap_records(SMOKER_O, SMOKER_S, ["key"], "target")
    assert got.sort_by("cap_synthetic").equals(want.sort_by("cap_synthetic"))


def test_control_equal_to_synthetic_has_no_excess_risk() -> None:
    res = ds.categorical_zero_cap(SMOKER_O, SMOKER_S, ["key"], "target", control=SMOKER_S)
    assert res.control is not None
    assert res.excess_risk == 0
    dp = ds.disclosure_protection(SMOKER_O, SMOKER_S, ["key"], "target", control=SMOKER_O)
    assert dp.control is not None
    # the original as control is the most an attacker can learn from the real data itself
    assert dp.excess_risk == pytest.approx((0.6839665309814563 - 0.67) / (1 - 0.67))
    assert ds.categorical_cap(SMOKER_O, SMOKER_S, ["key"], "target").excess_risk is None


def test_one_row_and_empty_synthetic() -> None:
    o = pa.table({"k": ["a"], "t": ["x"]})
    empty = o.slice(0, 0)
    with pytest.warns(ds.DiscoSQLWarning, match="synthetic: the data set has no rows"):
        res = ds.categorical_generalized_cap(o, empty, ["k"], "t")
    assert math.isnan(res.score)
    with pytest.warns(ds.DiscoSQLWarning):
        assert math.isnan(ds.categorical_cap(o, empty, ["k"], "t").score)
    with pytest.warns(ds.DiscoSQLWarning):
        assert ds.categorical_zero_cap(o, empty, ["k"], "t").score == 1
    assert ds.categorical_cap(o, o, ["k"], "t").score == 0
    assert math.isnan(ds.disclosure_protection(o, o, ["k"], "t").score)  # baseline 0


# -- validation: every problem named before any measure SQL runs ------------------------------
P1 = pa.table({"sex": ["F", "M"], "age": [30, 40], "smoke": ["y", "n"]})


@pytest.mark.parametrize(
    ("call_", "error", "message"),
    [
        (
            lambda: ds.categorical_cap(P1, P1, ["sexx"], "smoke"),
            ds.SchemaError,
            "key 'sexx': not a column of the original data; did you mean 'sex'?",
        ),
        (
            lambda: ds.categorical_cap(
                P1, P1.rename_columns(["sex", "age", "smok"]), ["sex"], "smoke"
            ),
            ds.SchemaError,
            "sensitive 'smoke': not a column of the synthetic data; did you mean 'smok'?",
        ),
        (
            lambda: ds.categorical_cap(P1, P1, ["sex"], "smoke", control=P1.drop_columns(["sex"])),
            ds.SchemaError,
            "key 'sex': not a column of the control data",
        ),
        (
            lambda: ds.categorical_cap(
                P1, P1.set_column(0, "sex", pa.array([1, 2])), ["sex"], "smoke"
            ),
            ds.SchemaError,
            "key 'sex' has clashing types (original: VARCHAR, synthetic: BIGINT)",
        ),
        (
            lambda: ds.categorical_cap(P1, P1, ["sex"], "sex"),
            ds.InputError,
            "sensitive: ['sex'] are also keys",
        ),
        (
            lambda: ds.categorical_cap(P1, P1, [], "smoke"),
            ds.InputError,
            "keys: expected a non-empty list of column names, got []",
        ),
        (
            lambda: ds.categorical_cap(P1, P1, ["sex", "sex"], "smoke"),
            ds.InputError,
            "keys: duplicated column(s) ['sex']; each may appear once",
        ),
        (
            lambda: ds.categorical_cap(P1, [P1, P1], ["sex"], "smoke"),
            ds.InputError,
            "synthetic: give one data set, got a list of 2",
        ),
        (
            lambda: ds.taub_tcap(P1, P1, ["sex"], "smoke", tau=0),
            ds.InputError,
            "tau: the WEAP threshold must be a number in (0, 1], got 0",
        ),
        (
            lambda: ds.disclosure_protection(P1, P1, ["sex"], "smoke", computation_method="caps"),
            ds.InputError,
            "computation_method: 'caps' is not allowed; allowed: cap, zero_cap, "
            "generalized_cap; did you mean 'cap'?",
        ),
        (
            lambda: ds.disclosure_protection(P1, P1, ["sex"], "smoke", continuous_columns=["sex"]),
            ds.SchemaError,
            "continuous_columns: 'sex' is not numeric in the original data (text)",
        ),
        (
            lambda: ds.disclosure_protection(P1, P1, ["sex"], "smoke", continuous_columns=["agee"]),
            ds.SchemaError,
            "continuous_columns: 'agee' is neither a key nor a sensitive column",
        ),
        (
            lambda: ds.disclosure_protection(P1, P1, ["sex"], "smoke", num_discrete_bins=0),
            ds.InputError,
            "num_discrete_bins: expected an int >= 1, got 0",
        ),
        (
            lambda: ds.cap_records(
                P1.rename_columns(["sex", "matched", "smoke"]),
                P1.rename_columns(["sex", "matched", "smoke"]),
                ["sex", "matched"],
                "smoke",
            ),
            ds.InputError,
            "keys/sensitive: ['matched'] are names of output columns",
        ),
        (
            lambda: ds.cap_summary(P1, P1, ["sex"], "smoke", probs=[1.5]),
            ds.InputError,
            "probs: expected a non-empty list of numbers in [0, 1], got [1.5]",
        ),
        (
            lambda: ds.categorical_cap(P1.slice(0, 0), P1, ["sex"], "smoke"),
            ds.InputError,
            "original: the data set has no rows",
        ),
    ],
)
def test_validation_errors(call_, error, message) -> None:
    with pytest.raises(error, match=re.escape(message)):
        call_()
