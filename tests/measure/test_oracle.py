"""Every disclosure() that synthpop ran for the oracle, replayed and compared to 1e-9 relative."""

from __future__ import annotations

from typing import Any

import pytest

from .. import oracle
from ..helpers.compare import close
from ..helpers.oracle import CALLS, replay

# Cases whose synthpop output depends on a synthpop bug: the intended behaviour is asserted, and
# this maps such a case to the control case whose expected values are that intended behaviour.
QUIRK_CONTROLS = {
    # usekeysNA = c(FALSE, TRUE, TRUE) with keys c("marital", "sex", "age"): synthpop applies the
    # inverse permutation and puts FALSE on age (quirk Q1). discosql aligns use_keys_na with the
    # keys as given, so marital's NAs are excluded: exactly the control case with keys in data
    # order and usekeysNA = c(TRUE, TRUE, FALSE).
    "sd_depress_keysNA_order_quirk": "sd_depress_keys3_maritalNA_false",
}


IDS = [f"{c}-{t}" for c, t, _ in CALLS]


def _expected_key(case_id: str, target: str) -> tuple[str, str]:
    return (QUIRK_CONTROLS.get(case_id, case_id), target)


def test_every_case_is_replayed() -> None:
    expected = set(oracle.expected_measures())
    replayed = {(c, t) for c, t, _ in CALLS}
    assert expected == replayed
    assert len(replayed) >= 60


@pytest.mark.parametrize(("case_id", "target", "kwargs"), CALLS, ids=IDS)
def test_measures(case_id: str, target: str, kwargs: dict[str, Any]) -> None:
    res = replay(case_id, target)
    expected = oracle.expected_measures()[_expected_key(case_id, target)]
    assert res.m == len(expected)
    got = {(r["synthesis"], r["measure"]): r["value"] for r in res.measures.to_pylist()}
    assert len(got) == 17 * res.m
    bad = [
        (syn, name, got[syn, name], value)
        for syn, values in expected.items()
        for name, value in values.items()
        if not close(got[syn, name], value)
    ]
    assert not bad, f"{len(bad)} measures differ (synthesis, measure, got, synthpop): {bad[:8]}"


@pytest.mark.parametrize(("case_id", "target", "kwargs"), CALLS, ids=IDS)
def test_exclusions(case_id: str, target: str, kwargs: dict[str, Any]) -> None:
    res = replay(case_id, target)
    expected = oracle.expected_exclusions()[_expected_key(case_id, target)]
    got = {
        (r["synthesis"], r["table"], r["reason"]): r["count"] for r in res.exclusions.to_pylist()
    }
    assert got == expected


@pytest.mark.parametrize(("case_id", "target", "kwargs"), CALLS, ids=IDS)
def test_check_1way(case_id: str, target: str, kwargs: dict[str, Any]) -> None:
    res = replay(case_id, target)
    expected = oracle.expected_check_1way().get(_expected_key(case_id, target), {})
    got = {r["synthesis"]: r for r in res.check_1way.to_pylist()}
    assert set(got) == set(expected)
    for syn, exp in expected.items():
        row = got[syn]
        assert row["Level"] == exp["Level"]
        for col in ("All", "PctLevelAll", "totalDisclosive", "nLevelDis", "PctLevelDis"):
            assert close(float(row[col]), float(exp[col])), (syn, col, row[col], exp[col])


@pytest.mark.parametrize(("case_id", "target", "kwargs"), CALLS, ids=IDS)
def test_check_2way(case_id: str, target: str, kwargs: dict[str, Any]) -> None:
    res = replay(case_id, target)
    expected = oracle.expected_check_2way().get(_expected_key(case_id, target), {})
    got: dict[int, list[dict[str, Any]]] = {}
    for r in res.check_2way.to_pylist():
        got.setdefault(r["synthesis"], []).append(r)
    assert set(got) == set(expected)
    for syn, exp_rows in expected.items():
        rows = got[syn]
        # same npairs sequence (synthpop orders by -npairs; ties order-insensitive)
        assert [r["npairs"] for r in rows] == [int(e["npairs"]) for e in exp_rows]

        def key(r: dict[str, Any]) -> tuple[Any, ...]:
            return (int(r["npairs"]), r["key"], r["target_key_levs"])

        for r, e in zip(sorted(rows, key=key), sorted(exp_rows, key=key), strict=True):
            assert (r["target_key_levs"], r["key"]) == (e["target_key_levs"], e["key"])
            assert r["key_target_total"] == int(e["key_target_total"])
            assert r["key_total"] == int(e["key_total"])
            assert close(r["PctTargetKeyLevel"], float(e["PctTargetKeyLevel"]))


@pytest.mark.parametrize(("case_id", "target", "kwargs"), CALLS, ids=IDS)
def test_check_flag_strings(case_id: str, target: str, kwargs: dict[str, Any]) -> None:
    """synthpop's check1 / check2 strings (from the last synthesis where the check fired)."""
    res = replay(case_id, target)
    expected = oracle.expected_check_flags()[_expected_key(case_id, target)]
    assert (res.check1, res.check2) == expected


def test_published_vignette_values() -> None:
    """The 2-decimal numbers printed in the synthpop disclosure vignette for t5 (all syntheses)."""
    res = replay("sd_depress_default", "depress")
    published = [
        r
        for r in oracle._read("published_values.csv")
        if r["kind"] == "measure" and r["case_id"] == "sd_depress_default"
    ]
    assert published
    for r in published:
        assert round(res.value(r["measure"], int(r["synthesis"])), 2) == pytest.approx(
            float(r["published_value"]), abs=1e-9
        ), r
