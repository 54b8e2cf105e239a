"""Results as data: every result object's to_dict()/to_json() equals what the CLI's JSON writes,
scores are always floats, and every table has its documented, deterministic row order."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import discosql as ds
from discosql.cli.main import main
from discosql.core.results import TABLE_NAMES

KEYS = ["sex", "age", "region"]


@pytest.fixture(scope="module")
def data() -> tuple[str, list[str]]:
    root = Path(ds.__file__).parent / "data"
    return str(root / "sd2011.parquet"), [str(root / f"syn_{i}.parquet") for i in (1, 2)]


def _cli_json(tmp_path: Path, argv: list[str]) -> Any:
    out = tmp_path / "out.json"  # one file for the calls of a test: replaced each time
    assert main([*argv, "--format", "json", "--out", str(out), "--overwrite"]) == 0
    return json.loads(out.read_text())


def test_disclosure_to_dict_is_the_cli_json(data: tuple[str, list[str]], tmp_path: Path) -> None:
    original, syn = data
    kw: dict[str, Any] = {"keys": KEYS, "target": "workab", "thresh_2way": (0, 0)}
    res = ds.disclosure(original, syn, **kw)
    as_dict = res.to_dict()
    assert json.loads(res.to_json()) == as_dict
    assert (as_dict["target"], as_dict["keys"], as_dict["m"]) == ("workab", KEYS, 2)
    assert set(as_dict["tables"]) == set(TABLE_NAMES)
    assert as_dict["tables"]["check_2way"]  # a table with rows, compared below
    for name in TABLE_NAMES:
        argv = [
            "disclosure",
            original,
            *syn,
            "--keys",
            ",".join(KEYS),
            "--target",
            "workab",
            "--thresh-2way",
            "0,0",
            "--table",
            name,
        ]
        assert _cli_json(tmp_path, argv) == as_dict["tables"][name], name


def test_nan_is_null_in_json() -> None:
    o = pa.table({"k": ["a", "b"], "t": ["x", "y"]})
    s = pa.table({"k": ["c", "d"], "t": ["x", "y"]})  # no key matches: iS = 0, DiSCO/iS is NaN
    res = ds.disclosure(o, s, keys=["k"], target="t")
    assert math.isnan(res.value("TCAP"))
    row = res.to_dict()["tables"]["allcaps"][0]
    assert row["TCAP"] is None
    assert "NaN" not in res.to_json()


def test_summary_to_dict_is_the_cli_json(data: tuple[str, list[str]], tmp_path: Path) -> None:
    original, syn = data
    s = ds.disclosure_summary(original, syn, keys=KEYS, targets=["depress", "workab"])
    as_dict = s.to_dict()
    assert json.loads(s.to_json()) == as_dict
    assert set(as_dict["results"]) == {"depress", "workab"}
    assert as_dict["results"]["workab"] == s.results["workab"].to_dict()
    argv = ["summary", original, *syn, "--keys", ",".join(KEYS), "--targets", "depress,workab"]
    assert _cli_json(tmp_path, argv) == as_dict["table"]


def _float_fields(score: Any) -> list[str]:
    names = [f for f, v in vars(score).items() if isinstance(v, float | int)]
    return [n for n in names if not n.startswith("n_") and n != "majority_correct"]


def test_cap_scores_are_floats_and_plain_data(data: tuple[str, list[str]]) -> None:
    original, syn = data
    o = pa.table({"k": ["a", "a", "b"], "t": ["x", "x", "y"]})  # DisclosureProtection reaches 1
    results = [
        ds.disclosure_protection(o, o, ["k"], "t", control=o),
        ds.disclosure_protection(original, syn[0], KEYS, "workab", control=syn[1]),
        ds.taub_tcap(original, syn[0], KEYS, "workab", control=syn[1]),
        ds.cap_summary(original, syn[0], KEYS, "workab", control=syn[1]),
    ]
    for res in results:
        for score in (res, res.control):
            for name in _float_fields(score):
                assert type(getattr(score, name)) is float, (type(score).__name__, name)
        as_dict = res.to_dict()
        assert json.loads(res.to_json()) == as_dict
        assert as_dict["control"] == res.control.to_dict()
        assert "excess_risk" in as_dict


def test_cap_records_are_sorted_by_their_cell(data: tuple[str, list[str]]) -> None:
    original, syn = data
    a = ds.cap_records(original, syn[0], KEYS, "workab", threads=1)
    b = ds.cap_records(original, syn[0], KEYS, "workab", threads=2)
    assert a.equals(b)
    cells = [tuple(r[c] for c in [*KEYS, "workab"]) for r in a.to_pylist()]
    assert cells == sorted(cells, key=lambda cell: [v.encode() for v in cell])


@pytest.mark.parametrize("threads", [1, 2])
def test_result_tables_are_deterministic(data: tuple[str, list[str]], threads: int) -> None:
    original, syn = data
    kw: dict[str, Any] = {"keys": KEYS, "target": "workab", "thresh_2way": (0, 0)}
    ref = ds.disclosure(original, syn, threads=1, **kw)
    for _ in range(2):
        got = ds.disclosure(original, syn, threads=threads, **kw)
        assert got.to_dict() == ref.to_dict()


def test_disco_tau_ascending_and_checked(data: tuple[str, list[str]]) -> None:
    """tau= is checked before any data is read (every problem at once) and its table is in
    ascending tau whatever the order given; one number is a list of one."""
    original, syn = data
    kw: dict[str, Any] = {"keys": KEYS, "target": "depress"}
    res = ds.disclosure(original, syn, tau=[1, 0.5], **kw)
    assert res.disco_tau.column("tau").to_pylist() == [0.5, 1.0, 0.5, 1.0]
    one = ds.disclosure(original, syn[0], tau=1, **kw)
    assert one.disco_tau.to_pylist() == [{"synthesis": 1, "tau": 1.0, "DiSCO": one.value("DiSCO")}]
    for bad, says in [
        (1.5, "each in [0, 1]"),
        ([0.5, "x"], "each in [0, 1]"),
        (True, "each in [0, 1]"),
        ([], "each in [0, 1]"),
        ([0.5, 0.5], "given more than once"),
    ]:
        with pytest.raises(ds.InputError, match=r"tau: .*") as e:
            ds.disclosure("no-such-file.parquet", syn, tau=bad, **kw)
        assert says in str(e.value), bad
