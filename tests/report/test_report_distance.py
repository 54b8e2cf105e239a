"""The report's section "Distance to the closest record": its numbers are the API's (dcr and
membership on the same data), the board's thresholds on the DCR share and the attack's AUC are
judged and reach the verdict, the arguments are checked before any data is read, and the CLI
asks for it. External mode's output check on the section: tests/report/test_report_leaks.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import discosql as ds

DATA = Path(ds.__file__).parent / "data"
KEYS = ["sex", "age", "region"]
TARGETS = ["depress", "income"]
ORIG, S1, S2, S3 = (str(DATA / f"{n}.parquet") for n in ("sd2011", "syn_1", "syn_2", "syn_3"))


@pytest.fixture(scope="module")
def few(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The first 1,500 records of the original and of three syntheses (the last a control)."""
    import pyarrow.parquet as pq

    tmp = tmp_path_factory.mktemp("distance")
    paths = []
    for path in (ORIG, S1, S2, S3):
        paths.append(str(tmp / Path(path).name))
        pq.write_table(pq.read_table(path).slice(0, 1500), paths[-1])
    return paths


def _n(text: str) -> int:
    return int(text.replace(",", ""))


@pytest.fixture(scope="module")
def rep(few: list[str]) -> ds.Report:
    orig, s1, s2, s3 = few
    return ds.report(
        orig,
        [s1, s2],
        KEYS,
        TARGETS,
        control=s3,
        distance=True,
        thresholds={"dcr_share": 0.5, "membership_auc": 0.99},
    )


def test_the_numbers_are_the_apis(rep: ds.Report, few: list[str]) -> None:
    orig, s1, s2, s3 = few
    d = rep.content["distance"]
    columns = [*KEYS, *TARGETS]
    assert (d["columns"], d["numeric"], d["control"]) == (
        columns,
        ["age", "depress", "income"],
        True,
    )
    got = ds.dcr(orig, [s1, s2], columns, control=s3)
    mi = ds.membership(orig, [s1, s2], s3, columns)
    for j, (row, attack) in enumerate(zip(d["dcr"], d["membership"], strict=True), start=1):
        n = int(got.value("records", j))
        assert _n(row["records"]) == n
        assert _n(row["identical"]) == round(got.value("identical_share", j) * n)
        assert row["identical (%)"] == f"{100 * got.value('identical_share', j):.2f}"
        assert row["median DCR"] == f"{got.value('median_dcr', j):.4f}"
        assert row["DCR 5% quantile"] == f"{got.value('dcr_q05', j):.4f}"
        assert row["closer to training (%)"] == f"{100 * got.value('closer_to_training', j):.2f}"
        assert row["DCR share"] == f"{got.value('dcr_share', j):.4f}"
        protection = got.value("DCROverfittingProtection", j)
        assert row["DCROverfittingProtection"] == f"{protection:.4f}"
        assert _n(attack["members"]) == mi.value("members", j)
        assert _n(attack["non-members"]) == mi.value("non_members", j)
        assert attack["AUC"] == f"{mi.value('auc', j):.4f}"
        assert attack["TPR at FPR 0.01 (%)"] == f"{100 * mi.value('tpr_at_fpr_0.01', j):.2f}"
        assert attack["members copied (%)"] == f"{100 * mi.value('members_copied', j):.2f}"
    assert "Distance to the closest record" in rep.html
    assert "Membership inference by distance, every member" in rep.html
    assert "DCR Delusion" in rep.html
    defined = [x["measure"] for x in rep.content["definitions"]]
    assert {"DCR", "DCR share, DCROverfittingProtection", "membership AUC, TPR at FPR"} <= set(
        defined
    )
    plain = ds.report(orig, s1, KEYS, TARGETS)  # without the section: not defined either
    assert "DCR" not in [x["measure"] for x in plain.content["definitions"]]
    assert plain.content["distance"] is None


def test_the_thresholds_are_judged_and_reach_the_verdict(rep: ds.Report) -> None:
    d = rep.content["distance"]
    shares = {r["synthesis"]: float(r["DCR share"]) for r in d["dcr"]}
    judged = {(t["measure"], t["synthesis"]): t for t in d["thresholds"]}
    assert len(judged) == 4
    for j, share in shares.items():
        t = judged[("dcr_share", j)]
        assert t["result"] == ("pass" if t["value"] <= 0.5 else "fail")
        assert f"{t['value']:.4f}" == f"{share:.4f}"
        assert judged[("membership_auc", j)]["result"] == "pass"
    flags = [f for f in rep.content["verdict"]["flags"] if f["measure"] == "dcr_share"]
    assert len(flags) == sum(share > 0.5 for share in shares.values())
    finding = rep.content["verdict"]["findings"][-1]
    assert finding.startswith("Distance to the closest record (over 5 columns")
    note = rep.content["verdict"]["notes"][0]
    assert "membership inference by classifier or density attacks" in note


def test_without_a_control_no_attack_and_no_threshold() -> None:
    rep = ds.report(ORIG, S1, KEYS, TARGETS, distance={"columns": ["sex", "age"]})
    d = rep.content["distance"]
    assert (d["columns"], d["membership"], d["control"]) == (["sex", "age"], [], False)
    assert "DCR share" not in d["dcr"][0]
    assert "Not measured: membership inference," in rep.content["verdict"]["notes"][0]
    with pytest.raises(ds.InputError, match="dcr_share judge the distance measures against a"):
        ds.report(ORIG, S1, KEYS, distance=True, thresholds={"dcr_share": 0.55})


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"distance": "yes"}, "distance: expected True or a mapping of columns, categorical"),
        ({"distance": {"column": ["sex"]}}, "distance: 'column' is not one of columns"),
        ({"distance": {"max_pairs": 0}}, "max_pairs: a positive integer, got 0"),
        (
            {"distance": True, "control": S3, "thresholds": {"dcr_share": 55}},
            r"thresholds: 'dcr_share' is the DCR share \(a fraction.*0 to 1; got 55",
        ),
        ({"thresholds": {"dcr_shar": 0.5}}, "did you mean 'dcr_share'"),
    ],
)
def test_bad_arguments_are_refused_before_any_data_is_read(kw: dict, message: str) -> None:
    said: list[str] = []
    with pytest.raises(ds.InputError, match=message):
        ds.report(ORIG, S1, KEYS, progress=said.append, **kw)
    assert said == []


def test_the_columns_are_checked_before_any_data_is_counted() -> None:
    said: list[str] = []
    with pytest.raises(ds.SchemaError, match="column 'nope': not a column of the original"):
        ds.report(ORIG, S1, KEYS, distance={"columns": ["sex", "nope"]}, progress=said.append)
    assert said == []  # not even "reading the data"


def test_cli_report_distance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], few: list[str]
) -> None:
    from discosql.cli.main import main

    orig, s1, _, s3 = few

    out, js = tmp_path / "r.html", tmp_path / "r.json"
    argv = ["report", orig, s1, "--keys", ",".join(KEYS), "--targets", ",".join(TARGETS)]
    more = ["--control", s3, "--distance", "--distance-columns", "sex,age,income"]
    threshold = ["--threshold", "dcr_share=0.55"]
    assert main([*argv, *more, *threshold, "--out", str(out), "--json", str(js)]) == 0
    d = json.loads(js.read_text())["distance"]
    assert d["columns"] == ["sex", "age", "income"]
    assert [t["measure"] for t in d["thresholds"]] == ["dcr_share"]
    capsys.readouterr()
    assert main([*argv, "--distance-columns", "sex", "--out", str(out), "--overwrite"]) == 2
    err = capsys.readouterr().err
    assert "--distance-columns: only with --distance" in err
    assert "Traceback" not in err
