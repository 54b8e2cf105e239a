"""dcr(): the distance to the closest record, against the brute-force reference (every pair
compared in Python) on hypothesis data and against SDMetrics 0.32's own calculate_dcr and
DCROverfittingProtection, bit for bit."""

from __future__ import annotations

import datetime as dt
import math
import warnings
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import discosql as ds
from discosql.anonymity import distance

from ..helpers.compare import assert_rows_identical, assert_value
from ..helpers.engines import Loaded, on_engines
from .dcr_reference import dcr_reference, membership_reference

NAMES = ["k", "é 1", 'say "hi"', "it's", "select"]
EPOCH = dt.datetime(1970, 1, 1)


@st.composite
def data_sets(draw: Any) -> tuple[list[str], dict[str, str], list[pa.Table]]:
    """An original, a synthesis, a control: 1-4 columns of text, integers, doubles (with
    NaN), booleans or timestamps, each with missing values; often few distinct values, so
    that ties and copies are common; sometimes a column of one value (range 0)."""
    n_cols = draw(st.integers(1, 4))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=n_cols, max_size=n_cols, unique=True))
    kinds = {c: draw(st.sampled_from(["text", "int", "float", "bool", "time"])) for c in names}

    def value(kind: str) -> Any:
        if kind == "text":
            return draw(st.sampled_from(["a", "b", "日本", "it's", "", None]))
        if kind == "int":
            return draw(st.one_of(st.none(), st.integers(-3, 3), st.integers(-(10**6), 10**6)))
        if kind == "float":
            return draw(
                st.one_of(
                    st.none(),
                    st.just(math.nan),
                    st.sampled_from([0.0, 0.5, 1.0, -2.25]),
                    st.floats(-1e3, 1e3, allow_nan=False),
                )
            )
        if kind == "bool":
            return draw(st.one_of(st.none(), st.booleans()))
        seconds = draw(st.one_of(st.none(), st.integers(0, 10**9)))
        return None if seconds is None else EPOCH + dt.timedelta(seconds=seconds)

    types = {"text": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}
    tables = []
    sizes = [draw(st.integers(1, 12)), draw(st.integers(0, 12)), draw(st.integers(1, 12))]
    for size in [*sizes, draw(st.integers(1, 12))]:  # a fourth: membership's reference
        cols = {c: [value(kinds[c]) for _ in range(size)] for c in names}
        schema = pa.schema([(c, types.get(kinds[c], pa.timestamp("us"))) for c in names])
        tables.append(pa.table(cols, schema=schema))
    return names, kinds, tables


def _plain(table: pa.Table, kinds: dict[str, str]) -> list[dict[str, Any]]:
    """The records as the reference reads them: NaN missing, timestamps in seconds."""
    out = []
    for rec in table.to_pylist():
        row = {}
        for c, v in rec.items():
            if isinstance(v, float) and math.isnan(v):
                v = None
            elif isinstance(v, dt.datetime):
                v = (v - EPOCH).total_seconds()
            row[c] = v
        out.append(row)
    return out


@pytest.mark.slow
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data_sets(), st.booleans(), st.booleans())
def test_dcr_agrees_with_the_reference(data: Any, with_control: bool, rounds: bool) -> None:
    """``rounds``: the search in its rounds (boxes, blocks, levels) even on small data, where
    it would otherwise compare every pair at once."""
    names, kinds, (original, synthetic, control, _) = data
    numeric = {c for c, k in kinds.items() if k in ("int", "float", "time")}
    mp = pytest.MonkeyPatch()
    if rounds:
        mp.setattr(distance, "SMALL_PAIRS", 0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ds.DiscoSQLWarning)
            res = ds.dcr(
                original, synthetic, control=control if with_control else None, within=0.25
            )
    finally:
        mp.undo()
    ref = dcr_reference(
        _plain(original, kinds),
        [_plain(synthetic, kinds)],
        names,
        numeric,
        _plain(control, kinds) if with_control else None,
        within=0.25,
    )
    assert_rows_identical(res.records.to_pylist(), ref["records"])
    got = {(r["synthesis"], r["measure"]): r for r in res.summary.to_pylist()}
    assert_rows_identical(
        [got[(r["synthesis"], r["measure"])] for r in ref["summary"]], ref["summary"]
    )


def test_dcr_is_sdmetrics_bit_for_bit() -> None:
    """SDMetrics 0.32's calculate_dcr and DCROverfittingProtection on mixed data with missing
    values: every distance and the score equal to the last bit."""
    import random

    import numpy as np
    from sdmetrics.single_table import DCROverfittingProtection
    from sdmetrics.single_table.privacy.dcr_utils import calculate_dcr

    rng = random.Random(7)

    def table(n: int) -> pa.Table:
        return pa.table(
            {
                "a": [rng.choice(["x", "y", "z", None]) for _ in range(n)],
                "b": [rng.choice([True, False]) for _ in range(n)],
                "n": [rng.choice([None, rng.random() * 100]) for _ in range(n)],
                "i": [rng.randint(0, 50) for _ in range(n)],
            }
        )

    meta = {
        "columns": {
            "a": {"sdtype": "categorical"},
            "b": {"sdtype": "boolean"},
            "n": {"sdtype": "numerical"},
            "i": {"sdtype": "numerical"},
        }
    }
    for size in (1, 7, 40, 300):
        o, s, c = table(size), table(size + 3), table(size // 2 + 1)
        res = ds.dcr(o, s, control=c)
        with warnings.catch_warnings():  # numpy's NaN warnings inside SDMetrics
            warnings.simplefilter("ignore")
            want = calculate_dcr(s.to_pandas(), o.to_pandas(), meta).to_numpy()
            b = DCROverfittingProtection.compute_breakdown(
                o.to_pandas(), s.to_pandas(), c.to_pandas(), meta, None
            )
        assert np.array_equal(np.array(res.records.column("dcr").to_pylist()), want)
        assert res.value("DCROverfittingProtection") == b["score"]
        shares = b["synthetic_data_percentages"]
        assert res.value("closer_to_training") == shares["closer_to_training"]
        assert res.value("closer_to_holdout") == shares["closer_to_holdout"]


def test_a_round_past_max_pairs_is_refused() -> None:
    """One numeric column and nothing categorical: every record is one block, and the whole
    block is refused past max_pairs with the count and what to do."""
    o = pa.table({"x": [float(i % 3) for i in range(50)]})
    with pytest.raises(ds.InputError, match=r"pairs of records in one round .* max_pairs=10"):
        ds.dcr(o, o, max_pairs=10)
    assert ds.dcr(o, o).value("identical_share") == 1.0


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"within": 2}, "within: a distance from 0 to 1, got 2"),
        ({"max_pairs": 0}, "max_pairs: a positive integer, got 0"),
        ({"columns": ["a"], "categorical": ["b"]}, r"categorical: \['b'\] are not among"),
        ({"columns": ["__disco_x"]}, "reserved"),
    ],
)
def test_bad_arguments_are_refused_before_any_data_is_read(
    kw: dict[str, Any], message: str
) -> None:
    with pytest.raises(ds.InputError, match=message):
        ds.dcr("no such file.parquet", "nor this.parquet", **kw)


@pytest.mark.slow
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data_sets(), st.booleans(), st.booleans())
def test_membership_agrees_with_the_reference(data: Any, rounds: bool, with_ref: bool) -> None:
    """The original's records are the members, the control's the non-members; their distance
    to the synthesis (with the synthesis's ranges) scores them; with auxiliary data the
    DCR-difference attack too."""
    names, kinds, (original, synthetic, control, auxiliary) = data
    numeric = {c for c, k in kinds.items() if k in ("int", "float", "time")}
    mp = pytest.MonkeyPatch()
    if rounds:
        mp.setattr(distance, "SMALL_PAIRS", 0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ds.DiscoSQLWarning)
            res = ds.membership(
                original, synthetic, control, auxiliary=auxiliary if with_ref else None
            )
    finally:
        mp.undo()
    ref = membership_reference(
        _plain(original, kinds),
        [_plain(synthetic, kinds)],
        _plain(control, kinds),
        names,
        numeric,
        _plain(auxiliary, kinds) if with_ref else None,
    )
    assert_rows_identical(res.records.to_pylist(), ref["records"])
    got = {(r["synthesis"], r["measure"]): r for r in res.summary.to_pylist()}
    mine = [got[(r["synthesis"], r["measure"])] for r in ref["summary"]]
    assert_rows_identical(mine, ref["summary"])


def _mixed(n: int, seed: int) -> pa.Table:
    """Text, integers, doubles with NaN and NULL, booleans and timestamps, seeded."""
    import random

    rng = random.Random(seed)
    return pa.table(
        {
            "sex": [rng.choice(["F", "M", None]) for _ in range(n)],
            "région": [rng.choice(["a", "b", "it's", "日本"]) for _ in range(n)],
            "age": [rng.choice([None, rng.randint(0, 90)]) for _ in range(n)],
            "income": [
                rng.choice([None, math.nan, round(rng.random() * 1000, 2)]) for _ in range(n)
            ],
            "ok": [rng.choice([True, False, None]) for _ in range(n)],
            "seen": [
                None if rng.random() < 0.1 else EPOCH + dt.timedelta(seconds=rng.randint(0, 10**8))
                for _ in range(n)
            ],
        },
        schema=pa.schema(
            [
                ("sex", pa.string()),
                ("région", pa.string()),
                ("age", pa.int64()),
                ("income", pa.float64()),
                ("ok", pa.bool_()),
                ("seen", pa.timestamp("us")),
            ]
        ),
    )


@on_engines(exclude={"duckdb": "the reference"})
def test_dcr_and_membership_on_every_engine(engine_case: Loaded) -> None:
    """The same distances, bit for bit, and the same summaries as DuckDB. On SQLite and
    PostgreSQL the search runs in its rounds (boxes, blocks, levels); elsewhere (Spark, where
    each round is several statements of a second or more, and a user's own connections to the
    same engines) in the one round of every pair: the rounds' SQL is the same templates,
    transpiled."""
    tables = {"orig": _mixed(60, 1), "syn": _mixed(50, 2), "two": _mixed(20, 3)}
    tables["ctrl"] = _mixed(40, 4)
    sqlite = "sqlite" in engine_case.case.name
    if sqlite:  # SQLite stores dates as text, which is compared as text (docs/distance.md)
        tables = {k: t.drop_columns(["seen"]) for k, t in tables.items()}
    engine, names = engine_case.load(tables)
    mp = pytest.MonkeyPatch()
    if engine_case.case.name in ("sqlite", "postgres"):  # the rounds, two boxes a level
        mp.setattr(distance, "SMALL_PAIRS", 0)
        mp.setattr(distance, "FIRST_RADIUS", 0.25)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ds.DiscoSQLWarning)
            syn = [names["syn"], names["two"]]
            got = ds.dcr(names["orig"], syn, control=names["ctrl"], engine=engine, within=0.2)
            got_m = ds.membership(
                names["orig"], syn, names["ctrl"], auxiliary=names["two"], engine=engine
            )
            want = ds.dcr(
                tables["orig"], [tables["syn"], tables["two"]], control=tables["ctrl"], within=0.2
            )
            want_m = ds.membership(
                tables["orig"],
                [tables["syn"], tables["two"]],
                tables["ctrl"],
                auxiliary=tables["two"],
            )
    finally:
        mp.undo()
    # SQLite's booleans are integers 0/1, numeric there: the same terms (|a - b| over a range
    # of 1, or 0/1 for a range of 0)
    assert got.numeric == (("age", "income", "ok") if sqlite else ("age", "income", "seen"))
    assert_rows_identical(got.records.to_pylist(), want.records.to_pylist())
    # a mean adds doubles in the engine's order (DuckDB's fsum, elsewhere sum): to 1e-12
    mean = [r for r in got.summary.to_pylist() if r["measure"] == "nndr_mean"]
    rest = [r for r in got.summary.to_pylist() if r["measure"] != "nndr_mean"]
    wanted = want.summary.to_pylist()
    assert_rows_identical(rest, [r for r in wanted if r["measure"] != "nndr_mean"])
    for g, w in zip(mean, [r for r in wanted if r["measure"] == "nndr_mean"], strict=True):
        assert_value(g["value"], w["value"], f"nndr_mean of synthesis {w['synthesis']}")
    assert_rows_identical(got_m.records.to_pylist(), want_m.records.to_pylist())
    assert_rows_identical(got_m.summary.to_pylist(), want_m.summary.to_pylist())
