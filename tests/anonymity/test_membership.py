"""membership(): the distance attack on members (the original) and non-members (a control),
against the brute-force reference on hypothesis data; dcr() and membership() on every engine
against DuckDB."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import discosql as ds

from ..helpers.compare import assert_rows_identical, assert_value
from ..helpers.engines import Loaded, on_engines
from ..helpers.profiles import fixed
from .dcr_reference import membership_reference
from .distance_data import RADII, data_sets, in_rounds, mixed, plain


@pytest.mark.slow
# 200 examples in CI: each one runs the search's rounds (about 0.6 s), the slowest of the
# property tests at the profile's 500 (docs/testing.md)
@settings(max_examples=fixed(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data_sets(), st.booleans(), st.booleans(), RADII)
def test_membership_agrees_with_the_reference(
    data: Any, rounds: bool, with_ref: bool, first_radius: float | None
) -> None:
    """The original's records are the members, the control's the non-members; their distance
    to the synthesis (with the synthesis's ranges) scores them; with auxiliary data the
    DCR-difference attack too."""
    names, kinds, (original, synthetic, control, auxiliary) = data
    numeric = {c for c, k in kinds.items() if k in ("int", "float", "time")}
    with in_rounds(rounds, first_radius), warnings.catch_warnings():
        warnings.simplefilter("ignore", ds.DiscoSQLWarning)
        res = ds.membership(original, synthetic, control, auxiliary=auxiliary if with_ref else None)
    ref = membership_reference(
        plain(original, kinds),
        [plain(synthetic, kinds)],
        plain(control, kinds),
        names,
        numeric,
        plain(auxiliary, kinds) if with_ref else None,
    )
    assert_rows_identical(res.records.to_pylist(), ref["records"])
    got = {(r["synthesis"], r["measure"]): r for r in res.summary.to_pylist()}
    mine = [got[(r["synthesis"], r["measure"])] for r in ref["summary"]]
    assert_rows_identical(mine, ref["summary"])


@on_engines(exclude={"duckdb": "the reference"})
def test_dcr_and_membership_on_every_engine(engine_case: Loaded) -> None:
    """The same distances, bit for bit, and the same summaries as DuckDB. On SQLite and
    PostgreSQL the search runs in its rounds (boxes, blocks, levels); elsewhere (Spark, where
    each round is several statements of a second or more, and a user's own connections to the
    same engines) in the one round of every pair: the rounds' SQL is the same templates,
    transpiled."""
    tables = {"orig": mixed(60, 1), "syn": mixed(50, 2), "two": mixed(20, 3)}
    tables["ctrl"] = mixed(40, 4)
    sqlite = "sqlite" in engine_case.case.name
    if sqlite:  # SQLite stores dates as text, which is compared as text (docs/distance.md)
        tables = {k: t.drop_columns(["seen"]) for k, t in tables.items()}
    engine, names = engine_case.load(tables)
    rounds = engine_case.case.name in ("sqlite", "postgres")  # the rounds, two boxes a level
    with in_rounds(rounds, 0.25), warnings.catch_warnings():
        warnings.simplefilter("ignore", ds.DiscoSQLWarning)
        syn = [names["syn"], names["two"]]
        got = ds.dcr(
            names["orig"], syn, control=names["ctrl"], engine=engine, within=0.2, syntheval=True
        )
        got_m = ds.membership(
            names["orig"], syn, names["ctrl"], auxiliary=names["two"], engine=engine
        )
        want = ds.dcr(
            tables["orig"],
            [tables["syn"], tables["two"]],
            control=tables["ctrl"],
            within=0.2,
            syntheval=True,
        )
        want_m = ds.membership(
            tables["orig"], [tables["syn"], tables["two"]], tables["ctrl"], auxiliary=tables["two"]
        )
    # SQLite's booleans are integers 0/1, numeric there: the same terms (|a - b| over a range
    # of 1, or 0/1 for a range of 0)
    assert got.numeric == (("age", "income", "ok") if sqlite else ("age", "income", "seen"))
    assert_rows_identical(got.records.to_pylist(), want.records.to_pylist())
    # a mean adds doubles in the engine's order (DuckDB's fsum, elsewhere sum): to 1e-12
    sums = ("nndr_mean", "syntheval_nndr", "syntheval_nndr_err")
    mean = [r for r in got.summary.to_pylist() if r["measure"] in sums]
    rest = [r for r in got.summary.to_pylist() if r["measure"] not in sums]
    wanted = want.summary.to_pylist()
    assert "mDCR" in {r["measure"] for r in rest}
    assert_rows_identical(rest, [r for r in wanted if r["measure"] not in sums])
    for g, w in zip(mean, [r for r in wanted if r["measure"] in sums], strict=True):
        assert_value(g["value"], w["value"], f"{w['measure']} of synthesis {w['synthesis']}")
    assert_rows_identical(got_m.records.to_pylist(), want_m.records.to_pylist())
    assert_rows_identical(got_m.summary.to_pylist(), want_m.summary.to_pylist())
