"""The report's section "The three tests of anonymisation": its numbers are the API's
(singling_out, linkability, inference, exact_matches on the same data), the control enters
where its size allows, the columns are checked before any data is counted, and the CLI asks
for it. External mode's output check on the section: tests/report/test_report_leaks.py."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import discosql as ds

DATA = Path(ds.__file__).parent / "data"
KEYS = ["sex", "age", "region"]
TARGETS = ["depress", "ls"]
ORIG, S1, S2, S3 = (str(DATA / f"{n}.parquet") for n in ("sd2011", "syn_1", "syn_2", "syn_3"))


def _n(text: str) -> int:
    return int(text.replace(",", ""))


def test_the_numbers_are_the_apis() -> None:
    rep = ds.report(ORIG, [S1, S2], KEYS, TARGETS, control=S3, anonymity={"n_cols": 2})
    a = rep.content["anonymity"]
    columns = [*KEYS, *TARGETS]
    assert (a["columns"], a["n_cols"], a["aux_cols"]) == (columns, 2, [KEYS, TARGETS])
    for j, syn in enumerate((S1, S2)):
        so = ds.singling_out(ORIG, syn, columns, n_cols=2, control=S3)
        row = a["singling_out"][j]
        assert (_n(row["queries"]), _n(row["successes"])) == (so.queries, so.successes)
        assert _n(row["control successes"]) == so.control_successes
        assert row["rate (%)"] == f"{100 * so.rate:.2f}"
        assert row["excess risk (%)"] == f"{100 * so.risk:.2f}"
        lk = ds.linkability(ORIG, syn, (KEYS, TARGETS), control=S3)
        row = a["linkability"][j]
        assert (_n(row["linked"]), _n(row["linked uniquely"])) == (lk.linked, lk.linked_unique)
        assert row["control rate (%)"] == f"{100 * lk.control_rate:.2f}"
    assert a["inference_aux"] == KEYS
    rows = iter(a["inference"])  # a row per synthesis and target, the targets from the keys
    for j, syn in enumerate((S1, S2), start=1):
        for target in TARGETS:
            inf, row = ds.inference(ORIG, syn, KEYS, target, control=S3), next(rows)
            assert (row["synthesis"], row["secret"], _n(row["records"])) == (j, target, 5000)
            assert row["guessed"] == ("within 5%" if inf.regression else "exactly")
            for col, want in (
                ("rate", inf.rate),
                ("rate_min", inf.rate_min),
                ("rate_max", inf.rate_max),
                ("baseline", inf.baseline_rate),
                ("control rate", inf.control_rate),
                ("excess risk", inf.risk),
            ):
                assert row[f"{col} (%)"] == f"{100 * want:.2f}", (target, col)
    assert next(rows, None) is None
    m = ds.exact_matches(ORIG, [S1, S2], columns, control=S3)
    for row, want in zip(a["matches"], m.summary.to_pylist(), strict=True):
        assert _n(row["reproduced"]) == want["in_synthesis"]
        assert row["UEM (%)"] == f"{want['uem']:.2f}"
        assert row["identical to control (%)"] == f"{want['control_identical']:.2f}"
    assert [r["0 columns (%)"] for r in a["distance"]] == [
        f"{m.of(j).distance['percent'][0].as_py():.2f}" for j in (1, 2)
    ]
    top = a["riskiest"][0]  # internal mode: the combination with the most successes
    by = [ds.singling_out(ORIG, s, columns, n_cols=2).by_columns.to_pylist() for s in (S1, S2)]
    most = max(zip(*by, strict=True), key=lambda rows: sum(r["successes"] for r in rows))
    assert top["columns"] == ", ".join(most[0]["columns"])
    assert "The three tests of anonymisation" in rep.html
    assert "Singling out, every query" in rep.html
    defined = [d["measure"] for d in rep.content["definitions"]]
    tests = {"singling out rate", "linkability rate, rate_unique", "UEM, identical"}
    assert tests | {"inference rate, rate_min, rate_max"} <= set(defined)
    assert "Inference, every original record" in rep.html
    plain = ds.report(ORIG, S1, KEYS, TARGETS)  # without the section: not defined either
    assert "singling out rate" not in [d["measure"] for d in plain.content["definitions"]]


def test_without_a_side_of_at_most_ten_columns_linkability_is_not_run(tmp_path: Path) -> None:
    """Twelve targets: B would be too wide; and a control of another size stays out of
    singling out."""
    t = pq.read_table(ORIG)
    for i in range(3):  # twelve targets: the six non-key columns and copies
        for c in ("placesize", "depress"):
            t = t.append_column(f"{c}_{i}", t.column(c))
    wide = str(tmp_path / "wide.parquet")
    pq.write_table(t, wide)
    small = str(tmp_path / "small.parquet")
    pq.write_table(t.slice(0, 100), small)
    rep = ds.report(wide, wide, KEYS, control=small, anonymity={"columns": KEYS, "secrets": []})
    a = rep.content["anonymity"]
    assert a["linkability"] is None
    assert a["notes"][0].startswith("Linkability was not run: by default A is the keys")
    assert a["notes"][1].startswith("Singling out was run without the control: it has 100")
    assert "control successes" not in a["singling_out"][0]
    assert a["inference"] == []  # "secrets": [] runs none


def test_the_columns_are_checked_before_any_data_is_counted() -> None:
    said: list[str] = []
    with pytest.raises(ds.SchemaError, match="column 'nope': not a column of the original"):
        ds.report(ORIG, S1, KEYS, anonymity={"aux_cols": (["sex"], ["nope"])}, progress=said.append)
    assert said == []  # not even "reading the data"


def test_cli_report_anonymity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from discosql.cli.main import main

    out, js = tmp_path / "r.html", tmp_path / "r.json"
    argv = ["report", ORIG, S1, "--keys", ",".join(KEYS), "--targets", ",".join(TARGETS)]
    more = ["--anonymity", "--n-cols", "2", "--link-a", "sex,age", "--link-b", "region,ls"]
    more += ["--secrets", "ls", "--inference-aux", "sex,depress"]
    assert main([*argv, *more, "--out", str(out), "--json", str(js)]) == 0
    a = json.loads(js.read_text())["anonymity"]
    assert (a["n_cols"], a["aux_cols"]) == (2, [["sex", "age"], ["region", "ls"]])
    assert a["inference_aux"] == ["sex", "depress"]
    assert [r["secret"] for r in a["inference"]] == ["ls"]
    capsys.readouterr()
    assert main([*argv, "--link-a", "sex", "--out", str(out), "--overwrite"]) == 2
    assert "only with --anonymity" in capsys.readouterr().err
    assert main([*argv, "--secrets", "ls", "--out", str(out), "--overwrite"]) == 2
    assert "only with --anonymity" in capsys.readouterr().err
    assert main([*argv, "--anonymity", "--link-a", "sex", "--out", str(out), "--overwrite"]) == 2
    err = capsys.readouterr().err
    assert "--link-a and --link-b: give both" in err
    assert "Traceback" not in err
