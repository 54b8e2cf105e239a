"""The brute-force sdcMicro reference (risk_reference.py) against sdcMicro 5.8.0's own outputs
and 5.8.2's ldiversity.

tests/data/sdcmicro holds the oracle's cases.json, expected_scalars.csv and records/<case>.csv
(fc = freqCalc, mr = measure_risk, ld = ldiversity), made by R 4.2.2 with sdcMicro 5.8.0, and the
data they were run on; tests/data/sdcmicro-5.8.2 the ldiversity cases lx01-lx07 of sdcMicro 5.8.2
(GitHub cf32510), on the same data and its own data/tiny_na.csv. Every number must agree to a
relative 1e-9.
"""

from __future__ import annotations

import csv
import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from ..helpers.compare import close_rel
from .reference import (
    _global_threshold,
    _recursive,
    freq_reference,
    ldiversity_reference,
    risk_reference,
)

SDC = Path(__file__).parents[1] / "data" / "sdcmicro"
SDC_582 = Path(__file__).parents[1] / "data" / "sdcmicro-5.8.2"
TOL = 1e-9


def _value(s: str) -> Any:
    if s == "":
        return None
    try:
        return int(s)
    except ValueError:
        pass
    try:
        return float(s)
    except ValueError:
        return s


@cache
def _data(name: str) -> tuple[list[str], list[dict[str, Any]]]:
    path = SDC / "data" / name
    with open(path if path.exists() else SDC_582 / "data" / name, newline="") as fh:
        rd = csv.reader(fh)
        header = next(rd)
        return header, [dict(zip(header, map(_value, r), strict=True)) for r in rd]


@cache
def _cases(oracle: Path = SDC) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in json.loads((oracle / "cases.json").read_text())}


@cache
def _scalars() -> dict[tuple[str, str], float]:
    with open(SDC / "expected_scalars.csv", newline="") as fh:
        return {
            (r["case"], r["name"]): (math.nan if r["value"] == "NA" else float(r["value"]))
            for r in csv.DictReader(fh)
        }


def _records(cid: str, oracle: Path = SDC) -> list[dict[str, float]]:
    with open(oracle / "records" / f"{cid}.csv", newline="") as fh:
        return [
            {k: (math.nan if v == "NA" else float(v)) for k, v in r.items()}
            for r in csv.DictReader(fh)
        ]


def _check_records(
    cid: str, got: list[dict[str, Any]], columns: list[str], oracle: Path = SDC
) -> None:
    want = _records(cid, oracle)
    assert len(got) == len(want)
    assert set(columns) == set(want[0])
    bad = [
        (i, c, g[c], w[c])
        for i, (g, w) in enumerate(zip(got, want, strict=True))
        for c in columns
        if not close_rel(float(g[c]), w[c])
    ]
    assert not bad, f"{cid}: {len(bad)} mismatches, first {bad[:5]}"


def _ids(fn: str, oracle: Path = SDC) -> list[str]:
    return [cid for cid, c in _cases(oracle).items() if c["fn"] == fn]


def _inputs(case: dict[str, Any]) -> tuple[list[dict[str, Any]], list[tuple], list[float] | None]:
    _, data = _data(case["data"])
    rows = [tuple(r[k] for k in case["keys"]) for r in data]
    w = [float(r[case["w"]]) for r in data] if case.get("w") else None
    return data, rows, w


@pytest.mark.parametrize("cid", _ids("freqCalc"))
def test_freqcalc_matches_sdcmicro(cid: str) -> None:
    case = _cases()[cid]
    _, rows, w = _inputs(case)
    fk, Fk = freq_reference(rows, w, case.get("alpha", 1.0))
    got = [{"fk": a, "Fk": b} for a, b in zip(fk, Fk, strict=True)]
    _check_records(cid, got, ["fk", "Fk"])
    sc = _scalars()
    assert sum(1 for x in fk if x == 1) == sc[(cid, "n1")]
    assert sum(1 for x in fk if x == 2) == sc[(cid, "n2")]


@pytest.mark.parametrize("cid", _ids("measure_risk"))
def test_measure_risk_matches_sdcmicro(cid: str) -> None:
    case = _cases()[cid]
    data, rows, w = _inputs(case)
    hh = [r[case["hid"]] for r in data] if case.get("hid") else None
    res = risk_reference(rows, w, hh, max_global_risk=case.get("max_global_risk", 0.01))
    cols = ["risk", "fk", "Fk"] + (["hier_risk"] if hh else [])
    _check_records(cid, res["records"], cols)
    names = ["global_risk_ER", "global_risk", "global_risk_pct", "global_threshold"]
    if hh:
        names += ["hier_risk_ER", "hier_risk", "hier_risk_pct"]
    else:
        assert math.isnan(res["hier_risk"])
    for name in names:
        assert close_rel(res[name], _scalars()[(cid, name)]), (cid, name, res[name])


@pytest.mark.parametrize("cid", _ids("ldiversity"))
def test_ldiversity_matches_sdcmicro(cid: str) -> None:
    """5.8.0: a record with a missing key is a group of its own, each NA a category."""
    case = _cases()[cid]
    data, rows, _ = _inputs(case)
    sens = case["sensitive"]
    got = ldiversity_reference(
        rows,
        [tuple(r[s] for s in sens) for r in data],
        names=sens,
        l_recurs_c=case.get("l_recurs_c", 2),
        multi="sdcmicro",
        missing_keys="apart",
        missing_sensitive="distinct",
    )
    _check_records(cid, got, list(got[0]))


@pytest.mark.parametrize("cid", _ids("ldiversity", SDC_582))
def test_ldiversity_matches_sdcmicro_582(cid: str) -> None:
    """5.8.2: keys compared with NA equal to NA (the default), each NA sensitive value still a
    category of its own."""
    case = _cases(SDC_582)[cid]
    data, rows, _ = _inputs(case)
    sens = case["sensitive"]
    got = ldiversity_reference(
        rows,
        [tuple(r[s] for s in sens) for r in data],
        names=sens,
        l_recurs_c=case.get("l_recurs_c", 2),
        multi="sdcmicro",
        missing_sensitive="distinct",
    )
    _check_records(cid, got, list(got[0]), SDC_582)


# ---- hand-computed examples ----------------------------------------------------------------


def test_freq_wildcards_by_hand() -> None:
    # cells: (1,1) x2, (1,2), (1,None), (None,2), (None,None)
    rows = [(1, 1), (1, 1), (1, 2), (1, None), (None, 2), (None, None)]
    fk, Fk = freq_reference(rows, [1, 2, 3, 4, 5, 6], alpha=0.5)
    # (1,1): 2 + .5*f(1,None); (1,2): 1 + .5*(f(1,None) + f(None,2)); the all-NA cell never counts
    assert fk[:3] == [2.5, 2.5, 2.0]
    assert Fk[:3] == [3 + 0.5 * 4, 3 + 0.5 * 4, 3 + 0.5 * (4 + 5)]
    # (1,None): 1 + .5*(f(None,2) + f(None,None)) + f(1,1) + f(1,2), complete matches unweighed
    assert fk[3] == 1 + 0.5 * 2 + 3
    assert Fk[3] == 4 + 0.5 * (5 + 6) + 3 + 3
    assert fk[4] == 1 + 0.5 * 2 + 1
    assert Fk[4] == 5 + 0.5 * (4 + 6) + 3
    assert (fk[5], Fk[5]) == (6, 21)  # all-NA records: n and the total weight
    one = freq_reference([(1,), (1,), (2,), (None,)], alpha=0.25)[0]
    assert one == [2.25, 2.25, 1.25, 4.0]


def test_fractional_fk_between_1_and_2_has_weighted_risk_zero() -> None:
    res = risk_reference([(1, 1), (1, None), (2, 2)], [10, 10, 10], alpha=0.5)
    assert [r["fk"] for r in res["records"]] == [1.5, 2.0, 1.0]
    assert res["records"][0]["risk"] == 0.0
    assert (res["n1"], res["n2"]) == (1, 1)


def test_global_threshold_na_rules() -> None:
    assert math.isnan(_global_threshold([0.001] * 10, 0.01))  # already safe: NA
    assert _global_threshold([1.0, 0.5, 0.5, 0.1], 0.2) == 0.1  # 0.7 + 0.1*3 >= .8? no: .1
    assert _global_threshold([1.0, 1.0, 0.5], 0.1) == 0.0  # no level suffices, smallest > 0
    assert _global_threshold([1.0, 1.0, 0.0], 0.1) == 0.0  # level 0 passes (0 < ER*)
    assert math.isnan(_global_threshold([0.0, 0.0], 0.1))  # all 0: already safe, NA


def test_hier_risk_with_na_household() -> None:
    rows = [(1,), (1,), (2,), (3,), (3,)]
    hh = [7, 7, None, 5, 5]
    res = risk_reference(rows, household=hh)
    risk = [r["risk"] for r in res["records"]]
    assert risk == [0.5, 0.5, 1.0, 0.5, 0.5]
    assert [r["hier_risk"] for r in res["records"]] == [0.75, 0.75, 0.75, 0.75, 0.75]
    own = risk_reference(rows, household=hh, na_household="own")
    assert own["records"][2]["hier_risk"] == 1.0
    assert own["hier_risk_ER"] == pytest.approx(4 * 0.75 + 1.0)


def test_recursive_in_float() -> None:
    assert _recursive([5], 2.0) == 1
    assert _recursive([2, 2], 2.0) == 2  # 2*2 > 2, then 0 <= 2
    assert _recursive([3, 1], 2.0) == 1  # 2*1 <= 3
    assert _recursive([4, 2, 2, 1], 1.5) == 3  # 7.5 > 4; 4.5 > 4; 1.5 <= 4
    assert _recursive([4, 2, 2], 1.0) == 1  # 1*(2+2) <= 4 already


def _ld(rows, sens, c=2, multi="intent", keys="apart", missing="distinct"):
    return ldiversity_reference(
        rows,
        sens,
        names=["a", "b"][: len(sens[0])],
        l_recurs_c=c,
        multi=multi,
        missing_keys=keys,
        missing_sensitive=missing,
    )


def test_ldiversity_per_variable_by_hand() -> None:
    rows = [(1, 1)] * 4 + [(1, None), (1, None)]
    sens = [(1, "x"), (1, "y"), (2, "x"), (None, "x"), (1, "x"), (1, "x")]
    out = _ld(rows, sens)
    a = out[0]
    # group of 4: a = {1:2, 2:1, NA:1} -> 3 categories; b = {x:3, y:1}
    assert a["a_Distinct_Ldiversity"] == 3
    assert a["a_Entropy_Ldiversity"] == pytest.approx(
        math.exp(-(0.5 * math.log(0.5) + 0.5 * math.log(0.25)))
    )
    assert a["a_Recursive_Ldiversity"] == 2  # 2*(1+1) > 2, 2*1 <= 2
    assert (a["b_Distinct_Ldiversity"], a["b_Recursive_Ldiversity"]) == (2, 1)
    # a record with an NA key is a group of its own, even beside an identical one
    for r in out[4:]:
        assert (r["a_Distinct_Ldiversity"], r["a_Entropy_Ldiversity"]) == (1, 1.0)


def test_multi_intent_by_hand() -> None:
    rows = [(1,)] * 6
    sens = [(1, "x"), (1, "y"), (1, "x"), (1, "y"), (2, "x"), (2, "y")]
    # a in subgroups of b: x -> {1:2, 2:1}, y -> the same; b in subgroups of a: 1 -> {x:2, y:2},
    # 2 -> {x:1, y:1}
    e = 3 * 2 ** (-2 / 3)  # exp(-(2/3 ln 2/3 + 1/3 ln 1/3))
    out = _ld(rows, sens, c=3)[0]
    assert out["MultiEntropy_Ldiversity"] == pytest.approx(e, rel=1e-12)
    assert out["MultiRecursive_Ldiversity"] == 2  # {2,1}: 3*1 > 2, then 0
    assert _ld(rows, sens, c=2)[0]["MultiRecursive_Ldiversity"] == 1  # 2*1 <= 2
    # sdcMicro leaves the columns 0 when there are at least as many keys as sensitive variables
    sd = _ld([(1, 1, 1)] * 6, sens, c=3, multi="sdcmicro")[0]
    assert (sd["MultiEntropy_Ldiversity"], sd["MultiRecursive_Ldiversity"]) == (0.0, 0)


def test_multi_intent_missing_values_equal_for_the_split() -> None:
    rows = [(1,)] * 4
    sens = [(1, None), (2, None), (1, "x"), (2, "x")]
    out = _ld(rows, sens)[0]
    # a within b=NA: {1,2}; within b=x: {1,2}; b within a=1: {NA, x}; within a=2: {NA, x}
    assert out["MultiEntropy_Ldiversity"] == pytest.approx(2.0)
    assert out["MultiRecursive_Ldiversity"] == 2


def test_multi_intent_one_variable_is_its_own_value() -> None:
    rows = [(1,)] * 3 + [(2,)]
    out = ldiversity_reference(rows, [(1,), (1,), (2,), (3,)], names=["s"])
    for r in out:
        assert r["MultiEntropy_Ldiversity"] == r["s_Entropy_Ldiversity"]
        assert r["MultiRecursive_Ldiversity"] == r["s_Recursive_Ldiversity"]
    sdcmicro = ldiversity_reference(
        rows, [(1,), (1,), (2,), (3,)], names=["s"], multi="sdcmicro", missing_sensitive="distinct"
    )
    assert sdcmicro[0]["MultiEntropy_Ldiversity"] == 0.0


# ---- sdcMicro's multi l-diversity slot bug when there are fewer keys than sensitive variables ----
# Values from a local build of sdcMicro 5.8.0 (the oracle's tools/build_sdcmicro.sh), each call the
# first ldiversity() of a fresh R session.


def test_multi_sdcmicro_runs_only_slots_at_or_past_n_keys() -> None:
    # 1 key, 2 sensitive: only the 2nd variable (slot 1 >= 1 key) is computed
    rows = [(1,), (1,), (1,), (2,)]
    sens = [(1, "x"), (1, "x"), (1, "y"), (5, "x")]
    sd = ldiversity_reference(
        rows, sens, names=["a", "b"], multi="sdcmicro", missing_sensitive="distinct"
    )
    # b within a=1: {x:2, y:1}, entropy 3 * 2^(-2/3) stored as a C float
    assert [r["MultiEntropy_Ldiversity"] for r in sd] == [1.8898816108703613] * 3 + [1.0]
    assert [r["MultiRecursive_Ldiversity"] for r in sd] == [1, 1, 1, 1]
    it = ldiversity_reference(rows, sens, names=["a", "b"])
    assert it[0]["MultiEntropy_Ldiversity"] == 1.0  # a within b=x: {1, 1}

    rows6 = [(1,)] * 6
    sens6 = [(1, "x"), (1, "y"), (1, "x"), (1, "y"), (2, "x"), (2, "y")]
    sd6 = ldiversity_reference(
        rows6, sens6, names=["a", "b"], l_recurs_c=3, multi="sdcmicro", missing_sensitive="distinct"
    )
    assert (sd6[0]["MultiEntropy_Ldiversity"], sd6[0]["MultiRecursive_Ldiversity"]) == (2.0, 2)
    it6 = ldiversity_reference(rows6, sens6, names=["a", "b"], l_recurs_c=3)
    assert it6[0]["MultiEntropy_Ldiversity"] == pytest.approx(3 * 2 ** (-2 / 3), rel=1e-12)


# ---- the rules for missing keys and missing sensitive values ------------------------------------


def _distinct(out: list[dict[str, Any]]) -> list[Any]:
    return [r["a_Distinct_Ldiversity"] for r in out]


def test_missing_rules_by_hand() -> None:
    rows = [(1, None), (1, None), (1, None), (2, 1), (2, 1)]
    sens = [(1,), (None,), (None,), (None,), (None,)]
    # equal: the three (1, NA) records are one cell {1, NA, NA}; (2, 1) is {NA, NA}
    assert _distinct(_ld(rows, sens, keys="equal", missing="category")) == [2, 2, 2, 1, 1]
    assert _distinct(_ld(rows, sens, keys="equal", missing="distinct")) == [3, 3, 3, 2, 2]
    assert _distinct(_ld(rows, sens, keys="equal", missing="ignore")) == [1, 1, 1, None, None]
    # apart: each (1, NA) record alone
    assert _distinct(_ld(rows, sens, keys="apart", missing="category")) == [1, 1, 1, 1, 1]
    assert _distinct(_ld(rows, sens, keys="apart", missing="distinct")) == [1, 1, 1, 2, 2]
    assert _distinct(_ld(rows, sens, keys="apart", missing="ignore")) == [1, None, None, None, None]
    cat = _ld(rows, sens, keys="equal", missing="category")[0]
    assert cat["a_Entropy_Ldiversity"] == pytest.approx(3 / 2 ** (2 / 3))  # {2, 1} of 3
    assert cat["a_Recursive_Ldiversity"] == 1  # 2 * 1 <= 2
    gone = _ld(rows, sens, keys="equal", missing="ignore")[3]
    assert set(gone.values()) == {None}  # no known value: no l, the multi columns too


def test_ignore_leaves_the_missing_values_out_of_the_multi_groups() -> None:
    rows = [(1,)] * 4
    sens = [(1, None), (2, None), (None, "x"), (1, "x")]
    out = _ld(rows, sens, missing="ignore")[0]
    # a: {1, 2} (2 known); b: {x, x} -> 1
    assert (out["a_Distinct_Ldiversity"], out["b_Distinct_Ldiversity"]) == (2, 1)
    # a within b=NA: {1, 2}; within b=x: {1} (NA left out); b within a=1: {x}; a=2: no known
    # b (takes no part); a=NA: {x}. Smallest: 1
    assert (out["MultiEntropy_Ldiversity"], out["MultiRecursive_Ldiversity"]) == (1.0, 1)
    cat = _ld(rows, sens, missing="category")[0]
    # b within a=1: {NA, x} -> 2; a within b=x: {NA, 1} -> 2; a within b=NA: {1, 2}; b
    # within a=2: {NA} -> 1
    assert cat["MultiEntropy_Ldiversity"] == 1.0


def test_nan_is_missing() -> None:
    nan = float("nan")
    rows = [(1,), (1,), (nan,), (nan,)]
    sens = [(nan,), (None,), (3,), (3,)]
    assert _distinct(_ld(rows, sens, keys="equal", missing="category")) == [1, 1, 1, 1]
    assert _distinct(_ld(rows, sens, keys="equal", missing="distinct")) == [2, 2, 1, 1]
