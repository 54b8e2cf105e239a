"""External mode leaks no count (issue 36, security): the trial's attack, repeated on every
number. For each number of an external report's JSON (and of its HTML, whose numbers must be
the JSON's, formatted), and for each denominator the report names (and each data set's exact
size, which an intruder may know), try to recover a whole number of records; fail if one comes
out that the output check would have suppressed (1 to 7) or rounded (off the grid of 5).
Means over syntheses and ratios are checked to be the mean and ratio of the numbers shown."""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import discosql as ds

DATA = Path(ds.__file__).parent / "data"
KEYS = ["sex", "age", "region", "placesize"]
MIN_COUNT, ROUND_TO = 8, 5

# not counts or shares of records (docs/report.md, "What external mode prints"): parameters,
# numbers of keys, syntheses, subsets and columns, counts of level pairs, risk thresholds and
# SUDA's key contributions
EXEMPT = {
    "synthesis",
    "threshold",
    "columns",
    "m",
    "n_keys",
    "subsets",
    "max_size",
    "keys in the MSU",
    "npairs",
    "contribution (%)",
    "version",
    "generated",
    "lines",
    "worst synthesis",
    "only_in_original",  # numbers of levels on one side only, not of records
    "only_in_synthetic",
    "tau",  # a certainty (the board's, or the grid of the DiSCO(tau) chart), not of records
    "n_cols",  # columns per singling-out predicate
    # distances and an AUC, not shares of records: rounded to two decimals
    # (test_the_distances_show_checked_counts_and_rounded_distances)
    "DCR 5% quantile",
    "median DCR",
    "AUC",
}
DISTANCE_JUDGED = ("dcr_share", "membership_auc")
# derived from the numbers shown: checked as such below, not as counts
DERIVED = re.compile(
    r"( mean$|^attrib_|^ident_|before$|after$|^TCAP|^DCAP/iS|excess|control|^DCR share$"
    r"|^DCROverfittingProtection$)"
)


@pytest.fixture(scope="module")
def external(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str, list[int]]:
    """An external report on data sets of sizes off the rounding grid (4,987 original records;
    syntheses of 4,993 and 4,999), with every section: control, sweep, sdc, risk and the
    three tests of anonymisation, and the distances with their thresholds."""
    tmp = tmp_path_factory.mktemp("leaks")
    sizes = [4987, 4993, 4999, 2501]
    paths = []
    for name, n in zip(("sd2011", "syn_1", "syn_2", "syn_3"), sizes, strict=True):
        t = pq.read_table(DATA / f"{name}.parquet").slice(0, n)
        if name == "sd2011":  # a positive sampling weight for the risk section
            t = t.append_column("w", pa.array([1.0 + (i % 7) for i in range(n)]))
        paths.append(str(tmp / f"{name}.parquet"))
        pq.write_table(t, paths[-1])
    rep = ds.report(
        paths[0],
        paths[1:3],
        KEYS,
        ["depress", "workab", "marital"],
        control=paths[3],
        sweep=True,
        sdc={"rm_replicated_uniques": True},
        weight="w",
        anonymity={"aux_cols": (KEYS[:2], KEYS[2:])},
        distance=True,
        thresholds={"repU": 5.0, "DiSCO": 20.0, "dcr_share": 0.55, "membership_auc": 0.6},
        mode="external",
        ngroups_targets=5,
        tau=[0.5, 0.8, 1],
    )
    content = json.loads(json.dumps(rep.content, default=str))
    return content, rep.html, sizes


def _numbers(obj: Any, key: str = "") -> list[tuple[str, Any]]:
    """Every (key, value) leaf that is a number or a number written as text."""
    if isinstance(obj, dict) and obj.get("measure") in DISTANCE_JUDGED:
        return []  # the value the distance table shows, judged (checked there)
    if isinstance(obj, dict):  # the options and versions are what the user and pip chose
        return [
            x
            for k, v in obj.items()
            if k not in ("options", "versions")
            for x in _numbers(v, str(k))
        ]
    if isinstance(obj, list):
        return [x for v in obj for x in _numbers(v, key)]
    if isinstance(obj, bool) or obj is None:
        return []
    if isinstance(obj, int | float):
        return [(key, obj)]
    if isinstance(obj, str) and re.fullmatch(r"-?[\d,]+(\.\d+)?", obj):
        return [(key, obj)]
    return []


def _decimals(content: dict[str, Any]) -> int:
    """The decimals external mode writes percentages with (docs/report.md): as few as make a
    step of the last stand for two records of the smallest data set, as shown."""
    smallest = min(int(r["rows"]) for r in content["provenance"]["inputs"])
    return next(d for d in range(4, -3, -1) if 10.0**-d * smallest / 100 >= 2)


def _recovered(value: float, decimals: int, denominator: int) -> int | None:
    """The one whole number of records ``value`` percent of ``denominator`` can be, at the
    precision of ``decimals`` (None: none, or more than one)."""
    half = 0.5 * 10.0**-decimals
    low, high = (value - half) * denominator / 100, (value + half) * denominator / 100
    ints = range(math.ceil(low - 1e-9), math.floor(high + 1e-9) + 1)
    return ints[0] if len(ints) == 1 else None


def _allowed(count: int) -> bool:
    return count == 0 or (count >= MIN_COUNT and count % ROUND_TO == 0)


def test_no_count_comes_back_from_the_json(external: tuple[dict[str, Any], str, list[int]]) -> None:
    content, _, sizes = external
    shown = [int(r["rows"]) for r in content["provenance"]["inputs"]]
    assert all(n % ROUND_TO == 0 for n in shown)  # the sizes themselves are rounded
    denominators = sorted({*shown, *sizes})
    decimals = _decimals(content)
    checked = 0
    for key, value in _numbers(content):
        if key in EXEMPT or key.endswith("worst synthesis") or DERIVED.search(key):
            continue
        number = float(str(value).replace(",", ""))
        is_count = isinstance(value, int) or (isinstance(value, str) and "." not in value)
        if not is_count:  # written to at most the declared decimals
            assert round(number, decimals) == number, (key, value, decimals)
        for n in [100] if is_count else denominators:  # a count is its own percentage of 100
            count = _recovered(number, 0 if is_count else decimals, n)
            assert count is None or _allowed(count), (key, value, n, count)
        checked += 1
    assert checked > 150


def test_the_trials_fraction_attack_gives_no_exact_count(
    external: tuple[dict[str, Any], str, list[int]],
) -> None:
    """Fraction(v / 100).limit_denominator(60000), as the trial did, never gives a count
    over a data set's exact size."""
    content, _, sizes = external
    for key, value in _numbers(content):
        if key in EXEMPT or not isinstance(value, float):
            continue
        f = Fraction(value / 100).limit_denominator(60000)
        for n in sizes:
            if f.denominator > 1 and n % f.denominator == 0:
                count = f.numerator * (n // f.denominator)
                assert _allowed(count), (key, value, n, f)
            assert f.denominator != n or _allowed(f.numerator), (key, value, f)


def test_means_ratios_and_totals_are_of_the_numbers_shown(
    external: tuple[dict[str, Any], str, list[int]],
) -> None:
    content, _, _ = external
    step = 0.5 * 10.0 ** -_decimals(content)  # each derived number is rounded to the decimals
    for target, t in content["targets"].items():
        attrib = {r["synthesis"]: r for r in t["attrib"]}
        for cap in t["allcaps"]:
            a = attrib[cap["synthesis"]]
            assert cap["TCAP"] == pytest.approx(100 * a["DiSCO"] / a["iS"], abs=step), target
        row = next(r for r in content["summary"]["per_target"] if r["target"] == target)
        for measure in ("DiSCO", "Dorig"):
            parts = [r[measure] for r in t["attrib"]]
            assert row[f"{measure} mean"] == pytest.approx(sum(parts) / len(parts), abs=step)
            assert row[f"{measure} worst"] == max(parts)
    for r in content["cap"]:
        a = {x["synthesis"]: x for x in content["targets"][r["target"]]["attrib"]}[r["synthesis"]]
        assert r["DCAP/iS"] == pytest.approx(100 * r["DCAP"] / a["iS"], abs=step)
    anonymity = content["anonymity"]
    for test, of, part in (
        ("singling_out", "queries", "successes"),
        ("linkability", "records", "linked"),
    ):
        for r in anonymity[test]:
            whole, k = (int(r[x].replace(",", "")) for x in (of, part))
            assert float(r["rate (%)"]) == pytest.approx(100 * k / whole, abs=step), test
            if test == "singling_out":  # the control's size is not the original's: none
                assert "control rate (%)" not in r
                continue
            rate, control = float(r["rate (%)"]), float(r["control rate (%)"])
            excess = 100 * (rate - control) / (100 - control)
            assert float(r["excess risk (%)"]) == pytest.approx(excess, abs=step), test
    assert len(anonymity["inference"]) == 2 * 3  # every synthesis, every target
    for r in anonymity["inference"]:  # the expected rate is of whole records: no control count
        rate, control = float(r["rate (%)"]), float(r["control rate (%)"])
        excess = 100 * (rate - control) / (100 - control)
        assert float(r["excess risk (%)"]) == pytest.approx(excess, abs=step), r
    assert anonymity["riskiest"] == []  # column combinations: internal mode only
    assert "Singling out was run without the control" in anonymity["notes"][0]
    sdc = content["sdc"]
    parts = [r["rows"] for r in sdc["removed"]]
    if all(isinstance(p, int) for p in parts):
        assert sdc["removed_total"] == sum(parts)
    else:
        assert sdc["total_rounded_apart"]


def test_the_html_shows_only_the_jsons_numbers_or_checked_shares(
    external: tuple[dict[str, Any], str, list[int]],
) -> None:
    """Every number with decimals in the HTML's text (the charts' labels included) is a
    number of the JSON, formatted, or (the sweep chart's means of other subsets) gives back
    no count the check would have suppressed or rounded, as the JSON's numbers."""
    content, html, sizes = external
    text = re.sub(r"<style\b.*?</style>", " ", html, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text).replace("&gt;", ">")
    # parameters: DIS-SUDA's score intervals, sdcMicro's global risk and the table's range
    text = re.sub(r"\(\d\.\d, \d\.\d\]|> 0\.7|up to 0\.7|global risk of 0\.01", " ", text)
    formatted: set[str] = set()
    for _, value in _numbers(content):
        if isinstance(value, str):
            formatted.add(value)
            continue
        for spec in (".0f", ".1f", ".2f", ".3g", ".4g", ",.0f", ",.2f"):
            formatted.add(format(value, spec))
    shown = [int(r["rows"]) for r in content["provenance"]["inputs"]]
    found = re.findall(r"(?<![\w.])-?\d[\d,]*\.\d+(?![\w.])", text)
    assert len(found) > 100
    stray = {n for n in found if n not in formatted and n.rstrip("0").rstrip(".") not in formatted}
    for n in sorted(stray):
        for d in sorted({*shown, *sizes}):
            count = _recovered(float(n.replace(",", "")), _decimals(content), d)
            assert count is None or _allowed(count), (n, d, count)


def test_risk_in_external_mode_prints_checked_counts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """discosql risk --mode external: the counts as the report's output check shows them
    (573, 1,539 and 3,437 exactly), the global risk as a share of the shown records."""
    from discosql.cli.main import main

    argv = [
        "risk",
        str(DATA / "sd2011.parquet"),
        "--keys",
        "sex,age,region",
        "--ldiversity",
        "depress",
        "--mode",
        "external",
    ]
    assert main([*argv, "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    summary = payload["summary"]
    assert (summary["n1"], summary["k3_violations"], summary["k5_violations"]) == (575, 1540, 3435)
    for name in ("records", "n1", "n2", "k2_violations", "global_risk_ER"):
        assert _allowed(summary[name]), (name, summary[name])
    assert summary["global_risk_pct"] == 100 * summary["global_risk_ER"] / summary["records"]
    ldiv = payload["ldiversity"]
    for name in ("records_l1", "missing", "records_no_l"):
        assert all(_allowed(r[name]) for r in ldiv["summary"]), name
    assert all(_allowed(n) for n in ldiv["missing"].values())
    assert ldiv["missing"]["depress"] == 90  # 89 records, rounded to 5
    assert "riskiest" not in payload
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "575" in text
    assert "573" not in text
    assert "1539" not in text


def test_the_distances_show_checked_counts_and_rounded_distances(
    external: tuple[dict[str, Any], str, list[int]],
) -> None:
    """The distance section: its counts through the check, its shares the ratios of the shown
    counts, the DCR share and SDMetrics' score of the shown shares, distances and the AUC to
    two decimals, and the thresholds judged on the values shown."""
    content, _, _ = external
    d = content["distance"]
    step = 10.0 ** -_decimals(content)
    shown = {}
    for r in d["dcr"]:
        n, identical = _n(r["records"]), _n(r["identical"])
        assert _allowed(n)
        assert _allowed(identical)
        assert float(r["identical (%)"]) == pytest.approx(100 * identical / n, abs=step)
        closer = float(r["closer to training (%)"])
        protection = min(2 * (1 - closer / 100), 1.0)
        assert float(r["DCROverfittingProtection"]) == pytest.approx(protection, abs=1e-4)
        tied = 200 * (float(r["DCR share"]) - closer / 100)  # % of records tied, as shown
        assert -step <= tied <= 100 - closer + step
        for key in ("DCR 5% quantile", "median DCR"):
            assert re.fullmatch(r"\d\.\d\d", r[key]), (key, r[key])
        shown[("dcr_share", r["synthesis"])] = float(r["DCR share"])
    for r in d["membership"]:
        assert _allowed(_n(r["members"]))
        assert _allowed(_n(r["non-members"]))
        assert re.fullmatch(r"\d\.\d\d", r["AUC"]), r["AUC"]
        shown[("membership_auc", r["synthesis"])] = float(r["AUC"])
    assert len(d["thresholds"]) == 4
    for t in d["thresholds"]:
        assert t["value"] == shown[(t["measure"], t["synthesis"])]
        assert t["result"] == ("pass" if t["value"] <= t["threshold"] else "fail")


def _n(text: str) -> int:
    return int(text.replace(",", ""))
