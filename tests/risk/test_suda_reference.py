"""suda_reference (tests/risk/suda_reference.py) against sdcMicro 5.8.0's own suda2() outputs.

The oracle (tests/data/sdcmicro, copied from shared/oracle/sdcmicro; made by its tools/runner.R)
has 8 suda2 cases, su01..su08: per record ``<key>_contribution``, ``suda_score``,
``dis_suda_score``; per key the attribute contribution; per key level the level contribution.
sdcMicro worked on factor codes of the text columns; only equality matters, except the order of
the level rows (sorted codes = sorted text). su06 has 2 keys, where sdcMicro pads with a constant
dummy key: it is checked with ``pad_dummies=True`` (it has no sample uniques at all, so the intent
gives the same zeros; the padding effect is checked on data with uniques below).

The smaller cases at the end were checked with sdcMicro 5.8.0 built in this sandbox (not part of
the oracle files), or are small enough to work out by hand.
"""

from __future__ import annotations

import csv
from functools import cache

import pytest

from ..helpers.compare import close
from ..helpers.oracle import SDCMICRO, SUDA_CASES, number, read_csv
from .suda_reference import suda_reference


def parse(text: str) -> int | str | None:
    """A CSV field: empty = missing, integers as int, anything else as text."""
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        return text


@cache
def data_rows(name: str) -> tuple[list[str], list[dict]]:
    with open(SDCMICRO / "data" / name, newline="") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), [{k: parse(v) for k, v in r.items()} for r in reader]


@cache
def result(case_id: str) -> dict:
    case = next(c for c in SUDA_CASES if c["id"] == case_id)
    keys = case["keys"]
    _, records = data_rows(case["data"])
    rows = [tuple(r[k] for k in keys) for r in records]
    return suda_reference(
        rows,
        keys,
        dis_fraction=case.get("DisFraction", 0.01),
        original_scores=case.get("original_scores", True),
        pad_dummies=len(keys) < 3,  # sdcMicro's behaviour, to compare with its outputs
    )


def test_all_eight_cases_present() -> None:
    assert [c["id"] for c in SUDA_CASES] == [f"su0{i}" for i in range(1, 9)]


@pytest.mark.parametrize("case_id", [c["id"] for c in SUDA_CASES])
def test_records(case_id: str) -> None:
    want = read_csv(SDCMICRO / "records" / f"{case_id}.csv")
    got = result(case_id)["records"]
    assert len(got) == len(want)
    bad = [
        (i, col, got[i][col], text)
        for i, row in enumerate(want)
        for col, text in row.items()
        if not close(got[i][col], number(text))
    ]
    assert not bad, f"{len(bad)} cells differ, first: {bad[:5]}"
    assert any(r["suda_score"] > 0 for r in got) or case_id == "su06"


@pytest.mark.parametrize("case_id", [c["id"] for c in SUDA_CASES])
def test_attributes(case_id: str) -> None:
    want = [
        (r["variable"], number(r["contribution"]))
        for r in read_csv(SDCMICRO / "expected_suda_attributes.csv")
        if r["case"] == case_id
    ]
    got = result(case_id)["attributes"]
    assert [v for v, _ in got] == [v for v, _ in want]
    assert all(close(g, w) for (_, g), (_, w) in zip(got, want, strict=True)), (got, want)


@pytest.mark.parametrize("case_id", [c["id"] for c in SUDA_CASES])
def test_levels(case_id: str) -> None:
    want = [
        (r["variable"], r["attribute"], number(r["contribution"]))
        for r in read_csv(SDCMICRO / "expected_suda_levels.csv")
        if r["case"] == case_id
    ]
    got = result(case_id)["levels"]
    assert [(v, str(a)) for v, a, _ in got] == [(v, a) for v, a, _ in want]  # same rows, same order
    bad = [(g, w) for g, w in zip(got, want, strict=True) if not close(g[2], w[2])]
    assert not bad, bad[:5]


def test_msu_counts_are_consistent() -> None:
    res = result("su04")
    with_msu = sum(1 for r in res["records"] if r["suda_score"] > 0)
    counts = dict(res["msu_counts"])
    assert list(counts) == list(range(1, 7))
    assert max(counts.values()) <= with_msu <= sum(counts.values())


def test_exact_dis_is_within_float32_rounding_of_sdcmicro() -> None:
    """float32_dis=False (the exact formula in doubles) is off only by sdcMicro's float32 steps."""
    case = next(c for c in SUDA_CASES if c["id"] == "su08")
    keys = case["keys"]
    rows = [tuple(r[k] for k in keys) for r in data_rows(case["data"])[1]]
    exact = suda_reference(rows, keys, dis_fraction=case["DisFraction"], float32_dis=False)
    want = [number(r["dis_suda_score"]) for r in read_csv(SDCMICRO / "records" / "su08.csv")]
    got = [r["dis_suda_score"] for r in exact["records"]]
    worst = max(abs(g - w) / w for g, w in zip(got, want, strict=True) if w)
    assert 1e-9 < worst < 1e-6


# --- hand-made cases -----------------------------------------------------------------------


def test_missing_value_matches_nothing_and_is_never_in_an_msu() -> None:
    rows = [(1, 1, 1), (1, None, 1), (2, 1, 1), (2, 1, 1)]
    res = suda_reference(rows, ["a", "b", "c"], float32_dis=False)
    # r0 is unique on {a, b}: r1's missing b does not agree with r0's b = 1 (no wildcard)
    assert [r["suda_score"] for r in res["records"]] == [1.0, 0.0, 0.0, 0.0]
    assert [res["records"][0][f"{k}_contribution"] for k in "abc"] == [1.0, 1.0, 0.0]
    # r1 is unique on all keys (as -999) but can only be unique through b: no MSU, score 0
    assert res["msu_counts"] == [(1, 0), (2, 1), (3, 0)]
    # pairs: r2/r3 (P = 2); DIS = 1 / (1 + P (1 - f) / (f s^Q A)), A = s^-Q, s = 1
    assert res["records"][0]["dis_suda_score"] == pytest.approx(1 / (1 + 2 * 0.99 / 0.01))


def test_two_keys_intent_versus_sdcmicro_padding() -> None:
    rows = [(1, "a"), (1, "b"), (1, "b"), (2, "a"), (2, "a"), (3, "a")]
    keys = ["k1", "k2"]
    # r0: 2-MSU {k1, k2}; r5: 1-MSU {k1}; the rest are pairs (P = 4)
    intent = suda_reference(rows, keys, float32_dis=False)
    padded = suda_reference(rows, keys, float32_dis=False, pad_dummies=True)
    assert [r["suda_score"] for r in intent["records"]] == [1, 0, 0, 0, 0, 1]  # M = 2: (2-k)!
    assert [r["suda_score"] for r in padded["records"]] == [1, 0, 0, 0, 0, 2]  # M = 3: (3-k)!
    odds = 4 * 0.99 / 0.01
    assert intent["records"][0]["dis_suda_score"] == pytest.approx(1 / (1 + odds / 2))  # Q = 1.3
    a = 1 + 2**-1.25  # Q = 1.25
    assert padded["records"][0]["dis_suda_score"] == pytest.approx(1 / (1 + odds / a))
    assert padded["records"][5]["dis_suda_score"] == pytest.approx(1 / (1 + odds / (2**1.25 * a)))
    assert intent["attributes"] == [("k1", 100.0), ("k2", 50.0)]
    assert padded["attributes"] == [("k1", 100.0), ("k2", 100 / 3)]


def test_two_keys_padding_matches_sdcmicro_on_testdata() -> None:
    """suda2(testdata, c("roof", "age"), DisFraction = 0.05) by sdcMicro 5.8.0 (sandbox run)."""
    rows = [(r["roof"], r["age"]) for r in data_rows("testdata.csv")[1]]
    padded = suda_reference(rows, ["roof", "age"], dis_fraction=0.05, pad_dummies=True)
    attr = dict(padded["attributes"])
    assert close(attr["roof"], 78.181818181818187)
    assert close(attr["age"], 100.0)
    scores = [r["suda_score"] for r in padded["records"]]
    assert sum(scores) == 55
    assert sorted(set(scores)) == [0, 1, 2]
    assert close(sum(r["dis_suda_score"] for r in padded["records"]), 3.5031874972557189)
    assert close(max(r["dis_suda_score"] for r in padded["records"]), 0.13665993193915957)
    intent = suda_reference(rows, ["roof", "age"], dis_fraction=0.05)
    assert sum(r["suda_score"] for r in intent["records"]) == 49  # the six 1-MSUs weigh 1, not 2
    assert not close(dict(intent["attributes"])["roof"], attr["roof"])


# b is a recoding of a, d of c (sdcMicro's "correlated items"); e random. Expected: sdcMicro 5.8.0
# suda2(data.frame(a, b = a + 10, c, d = c + 10, e)) run in the sandbox; records with a score.
TWIN_A = "132244111411231324423334312144"
TWIN_C = "321244124231341122232343134113"
TWIN_E = "122212212212112212222121222211"
HALF = (0.5, 0.25, 0.5, 0.25, 0.0, 24.0)
ONES = (1.0, 0.0, 1.0, 0.0, 1.0, 8.0)
TWIN_SDCMICRO = {
    2: HALF,
    3: ONES,
    4: ONES,
    5: ONES,
    7: HALF,
    8: HALF,
    12: ONES,
    13: ONES,
    16: ONES,
    19: ONES,
    21: HALF,
    22: ONES,
    25: ONES,
    26: HALF,
    28: (1 / 3, 1 / 6, 0.5, 1 / 3, 1 / 3, 36.0),
}


def test_key_twins_sdcmicro_contributions() -> None:
    rows = [
        (int(a), int(a) + 10, int(c), int(c) + 10, int(e))
        for a, c, e in zip(TWIN_A, TWIN_C, TWIN_E, strict=True)
    ]
    keys = list("abcde")
    cols = [f"{k}_contribution" for k in keys] + ["suda_score"]
    sdc = suda_reference(rows, keys, sdcmicro_twin_contributions=True)
    for i, rec in enumerate(sdc["records"]):
        want = TWIN_SDCMICRO.get(i, (0.0,) * 6)
        assert all(close(rec[c], w) for c, w in zip(cols, want, strict=True)), (i, rec, want)
    # the intent: a twin's MSUs count for its own key, so a/b and c/d get the same shares
    intent = suda_reference(rows, keys)
    assert [r["suda_score"] for r in intent["records"]] == [r["suda_score"] for r in sdc["records"]]
    rec = intent["records"][3]
    assert rec["a_contribution"] == rec["b_contribution"] == 0.5
    assert dict(intent["attributes"])["a"] == dict(intent["attributes"])["b"]
