"""Every disclosure() that synthpop ran for the oracle, replayed and compared to 1e-9 relative."""

from __future__ import annotations

import math
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
    assert len(got) == 18 * res.m  # synthpop's 17 and TCAP_little (test below)
    bad = [
        (syn, name, got[syn, name], value)
        for syn, values in expected.items()
        for name, value in values.items()
        if not close(got[syn, name], value)
    ]
    assert not bad, f"{len(bad)} measures differ (synthesis, measure, got, synthpop): {bad[:8]}"


@pytest.mark.parametrize(("case_id", "target", "kwargs"), CALLS, ids=IDS)
def test_tcap_little_is_disco_over_dis(case_id: str, target: str, kwargs: dict[str, Any]) -> None:
    """The vignette's TCAP (synthpop 1.9-3, Little et al.) = DiSCO / DiS x 100 from synthpop's
    own DiSCO and DiS; NaN where DiS is 0 (no key cell disclosive in the synthesis)."""
    res = replay(case_id, target)
    expected = oracle.expected_measures()[_expected_key(case_id, target)]
    for syn, values in expected.items():
        dis, disco = values["DiS"], values["DiSCO"]
        want = math.nan if dis == 0 else 100 * disco / dis
        assert close(res.value("TCAP_little", syn), want), (syn, dis, disco)


def _area(curve: list[dict[str, Any]]) -> float:
    """The area under the step function DiSCO(tau) from 0 to 1 (its value at tau in
    (ps_(i-1), ps_i] is DiSCO(ps_i))."""
    area, previous = 0.0, 0.0
    for row in curve:
        area += (row["ps"] - previous) * row["DiSCO"]
        previous = row["ps"]
    return area


@pytest.mark.parametrize(("case_id", "target", "kwargs"), CALLS, ids=IDS)
def test_disco_curve_ends_at_disco_and_has_dcap_as_area(
    case_id: str, target: str, kwargs: dict[str, Any]
) -> None:
    """DiSCO(1) = DiSCO on every case; where synthpop excluded nothing, the area under the
    DiSCO(tau) curve is synthpop's DCAP (a mean of probabilities is the integral of its tail)."""
    res = replay(case_id, target)
    key = _expected_key(case_id, target)
    expected = oracle.expected_measures()[key]
    removed = sum(
        n for (_, _, why), n in oracle.expected_exclusions()[key].items() if why != "remaining"
    )
    curve = res.disco_curve.to_pylist()
    for syn, values in expected.items():
        own = [r for r in curve if r["synthesis"] == syn]
        assert [r["ps"] for r in own] == sorted({r["ps"] for r in own})
        at_one = own[-1]["DiSCO"] if own and own[-1]["ps"] == 1 else 0.0
        assert close(at_one, values["DiSCO"]), (syn, at_one, values["DiSCO"])
        if not removed:
            assert math.isclose(_area(own), values["DCAP"], rel_tol=1e-9, abs_tol=1e-12), syn


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
