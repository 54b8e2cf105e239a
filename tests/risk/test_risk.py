"""risk() and ldiversity() against sdcMicro 5.8.0's own outputs (tests/data/sdcmicro: every
freqCalc, measure_risk and ldiversity case of its oracle) and 5.8.2's ldiversity
(tests/data/sdcmicro-5.8.2), and their argument checks."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import discosql as ds

from ..helpers.compare import close_to_text
from ..helpers.oracle import SDCMICRO, SDCMICRO_582, load

CASES = json.loads((SDCMICRO / "cases.json").read_text())
CASES_582 = json.loads((SDCMICRO_582 / "cases.json").read_text())
# sdcMicro's multi-attribute l-diversity is always 0 (its C++ reads the wrong slots; README,
# differences from sdcMicro): discosql computes what that code means, checked against the
# brute-force reference instead
INTENDED = {"MultiEntropy_Ldiversity", "MultiRecursive_Ldiversity"}


def expected_scalars(case: str) -> dict[str, str]:
    with open(SDCMICRO / "expected_scalars.csv", newline="") as f:
        return {r["name"]: r["value"] for r in csv.DictReader(f) if r["case"] == case}


def expected_records(case: str, oracle: Path = SDCMICRO) -> list[dict[str, str]]:
    with open(oracle / "records" / f"{case}.csv", newline="") as f:
        return list(csv.DictReader(f))


def cases(*fns: str, oracle: list[dict[str, Any]] = CASES) -> list[Any]:
    return [pytest.param(c, id=c["id"]) for c in oracle if c["fn"] in fns]


@pytest.mark.parametrize("case", cases("freqCalc", "measure_risk"))
def test_risk_matches_sdcmicro(case: dict[str, Any]) -> None:
    r = ds.risk(
        load(case["data"]),
        case["keys"],
        weight=case.get("w"),
        household=case.get("hid"),
        alpha=case.get("alpha", 1.0),
        max_global_risk=case.get("max_global_risk", 0.01),
    )
    assert r.records is not None
    got = r.records.to_pylist()
    want = expected_records(case["id"])
    assert len(got) == len(want)
    assert [g["row"] for g in got] == list(range(1, len(want) + 1))
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        for name, value in w.items():
            assert close_to_text(g[name], value), (case["id"], i + 1, name, g[name], value)
    scalars = expected_scalars(case["id"])
    compared = [n for n in scalars if n not in ("seconds", "max_global_risk")]
    assert compared
    for name in compared:
        assert close_to_text(r.value(name), scalars[name]), (case["id"], name, r.value(name))
    if case.get("hid") is None:
        assert math.isnan(r.value("hier_risk_ER"))


def assert_ldiversity(r: ds.LDiversityResult, case: dict[str, Any], oracle: Path) -> None:
    """Every per-variable column as sdcMicro gives it; the multi ones as the code means them."""
    assert r.records is not None
    got = r.records.to_pylist()
    want = expected_records(case["id"], oracle)
    assert len(got) == len(want)
    checked = [c for c in want[0] if c not in INTENDED]
    assert len(checked) == 3 * len(case["sensitive"])
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g["row"] == i + 1
        for name in checked:
            assert close_to_text(g[name], w[name]), (case["id"], i + 1, name, g[name], w[name])
        assert all(float(w[n]) == 0 for n in INTENDED)  # what sdcMicro gives
        assert g["MultiEntropy_Ldiversity"] >= 1
        assert g["MultiRecursive_Ldiversity"] >= 1


@pytest.mark.parametrize("case", cases("ldiversity"))
def test_ldiversity_matches_sdcmicro(case: dict[str, Any]) -> None:
    """sdcMicro 5.8.0 (CRAN): a record with a missing key is a cell of its own."""
    r = ds.ldiversity(
        load(case["data"]),
        case["keys"],
        case["sensitive"],
        l_recurs_c=case.get("l_recurs_c", 2),
        missing_keys="apart",
        missing_sensitive="distinct",
    )
    assert (r.missing_keys, r.missing_sensitive) == ("apart", "distinct")
    assert_ldiversity(r, case, SDCMICRO)


@pytest.mark.parametrize("case", cases("ldiversity", oracle=CASES_582))
def test_ldiversity_matches_sdcmicro_582(case: dict[str, Any]) -> None:
    """sdcMicro 5.8.2 (GitHub cf32510, PR #364): missing keys equal each other, the default."""
    r = ds.ldiversity(
        load(case["data"]),
        case["keys"],
        case["sensitive"],
        l_recurs_c=case.get("l_recurs_c", 2),
        missing_sensitive="distinct",
    )
    assert (r.missing_keys, r.missing_sensitive) == ("equal", "distinct")
    assert_ldiversity(r, case, SDCMICRO_582)


def test_the_582_cases_differ_from_580_where_the_readme_says() -> None:
    """The 5.8.2 oracle is not vacuous: its cases with missing keys give other numbers under
    5.8.0's rule (lx07, sdcMicro's own new test: l = 3 where 5.8.0 gives 1)."""
    case = next(c for c in CASES_582 if c["id"] == "lx07")
    args = (load(case["data"]), case["keys"], case["sensitive"])
    new = ds.ldiversity(*args, missing_sensitive="distinct").records
    old = ds.ldiversity(*args, missing_keys="apart", missing_sensitive="distinct").records
    assert new is not None
    assert old is not None
    assert new.column("s_Distinct_Ldiversity").to_pylist()[:3] == [3, 3, 3]
    assert old.column("s_Distinct_Ldiversity").to_pylist()[:3] == [1, 1, 1]


TESTDATA = "testdata.csv"
KEYS = ["urbrur", "roof", "walls", "water", "sex"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"keys": []}, "keys: expected a non-empty list"),
        ({"keys": ["roof", "roof"]}, "duplicated column(s) ['roof']"),
        ({"weight": "roof"}, "weight: 'roof' is also one of the keys"),
        ({"household": "sex"}, "household: 'sex' is also one of the keys"),
        ({"alpha": 1.5}, "alpha: expected a number in [0, 1], got 1.5"),
        ({"alpha": -0.1}, "alpha: expected a number in [0, 1]"),
        ({"max_global_risk": 1}, "max_global_risk: expected a number in (0, 1), got 1"),
        ({"max_global_risk": 0}, "max_global_risk: expected a number in (0, 1), got 0"),
        ({"weight": 3}, "weight: expected one column name"),
    ],
)
def test_risk_arguments_checked_before_reading(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"keys": KEYS} | kwargs
    with pytest.raises(ds.InputError) as e:
        ds.risk("/nonexistent/never-read.parquet", **args)
    assert message in str(e.value)


def test_risk_unknown_key_and_non_numeric_weight() -> None:
    data = load(TESTDATA)
    with pytest.raises(ds.SchemaError, match="key 'nokey': not a column of the input data"):
        ds.risk(data, ["roof", "nokey"])
    text = data.append_column("wtext", pa.array(["a"] * data.num_rows))
    with pytest.raises(ds.SchemaError, match="a weight must be numeric"):
        ds.risk(text, KEYS, weight="wtext")


@pytest.mark.parametrize("as_file", [False, True])
def test_bad_weights_are_counted(as_file: bool, tmp_path: Path) -> None:
    """In memory and from a Parquet file written by pyarrow (whose statistics leave NaN out:
    an engine that trusted them would not see the NaN)."""
    import pyarrow.parquet as pq

    data = load(TESTDATA)
    w = data.column("sampling_weight").to_pylist()
    w[0], w[1], w[2], w[3] = None, 0.0, -2.0, float("nan")
    data = data.set_column(
        data.schema.get_field_index("sampling_weight"), "sampling_weight", pa.array(w, pa.float64())
    )
    source: Any = data
    if as_file:
        source = str(tmp_path / "w.parquet")
        pq.write_table(data, source)
    with pytest.raises(ds.InputError) as e:
        ds.risk(source, KEYS, weight="sampling_weight")
    assert "weight 'sampling_weight': 2 missing, 1 zero, 1 negative weight(s)" in str(e.value)


def test_infinite_weights_are_refused() -> None:
    """An infinite weight would make Fk infinite and the risk 0 (issue 36: 29 records got
    risk 0, exit 0, no warning): refused like a zero one, counted, -Infinity not also counted
    as negative."""
    data = load(TESTDATA)
    w = data.column("sampling_weight").to_pylist()
    w[0], w[1], w[2] = float("inf"), float("-inf"), 0.0
    data = data.set_column(
        data.schema.get_field_index("sampling_weight"), "sampling_weight", pa.array(w, pa.float64())
    )
    with pytest.raises(ds.InputError) as e:
        ds.risk(data, KEYS, weight="sampling_weight")
    assert "weight 'sampling_weight': 1 zero, 2 infinite weight(s)" in str(e.value)
    assert "positive finite number" in str(e.value)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sensitive": ["roof"]}, "sensitive: ['roof'] are also keys"),
        ({"l_recurs_c": 0}, "l_recurs_c: expected a positive number, got 0"),
        ({"l_recurs_c": -1.5}, "l_recurs_c: expected a positive number"),
        ({"sensitive": []}, "sensitive: expected a non-empty list"),
        (
            {"missing_keys": "eqaul"},
            "missing_keys: 'eqaul' is not one of ['equal', 'apart']; did you mean 'equal'?",
        ),
        (
            {"missing_sensitive": "Ignore"},
            "missing_sensitive: 'Ignore' is not one of ['category', 'distinct', 'ignore']; "
            "did you mean 'ignore'?",
        ),
        (
            {"missing_sensitive": None},
            "missing_sensitive: None is not one of ['category', 'distinct', 'ignore']",
        ),
    ],
)
def test_ldiversity_arguments(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"keys": KEYS, "sensitive": ["electcon"]} | kwargs
    with pytest.raises(ds.InputError) as e:
        ds.ldiversity("/nonexistent/never-read.parquet", **args)
    assert message in str(e.value)
    with pytest.raises(ds.InputError) as e:
        ds.ldiversity_to_sql("/nonexistent/never-read.parquet", **args)
    assert message in str(e.value)


def test_ldiversity_rules_for_missing_values() -> None:
    """The rules are in the result (fields, describe(), to_dict()), with the records whose
    sensitive value is missing; under ignore a cell without a known value has no l, left out
    of min, mean and max and counted; external mode's check covers every count of records."""
    from discosql.core.outputcheck import OutputCheck

    table = pa.table(
        {
            "k": ["a", "a", "a", "b", "b", None, None],
            "s": [1.0, 1.0, None, None, float("nan"), 2.0, 3.0],
        }
    )
    r = ds.ldiversity(table, ["k"], ["s"])
    assert (r.missing_keys, r.missing_sensitive, r.missing) == ("equal", "category", (3,))
    assert r.records is not None
    assert r.records.column("s_Distinct_Ldiversity").to_pylist() == [2, 2, 2, 1, 1, 2, 2]
    text = str(r)
    assert "missing keys: equal (records with the same missing keys share a cell" in text
    assert "missing sensitive values: category (one more value of the variable)" in text
    assert "records with a missing sensitive value: s 3" in text
    d = r.to_dict()
    assert (d["missing_keys"], d["missing_sensitive"]) == ("equal", "category")
    assert d["missing"] == {"s": 3}
    assert [row["missing"] for row in d["summary"]] == [3] * 5

    ig = ds.ldiversity(table, ["k"], ["s"], missing_keys="apart", missing_sensitive="ignore")
    assert ig.records is not None
    assert ig.records.column("s_Distinct_Ldiversity").to_pylist() == [1, 1, 1, None, None, 1, 1]
    assert ig.records.column("MultiEntropy_Ldiversity").to_pylist()[3:5] == [None, None]
    first = ig.summary.to_pylist()[0]
    assert (first["min"], first["max"], first["mean"]) == (1.0, 1.0, 1.0)
    assert (first["records_l1"], first["missing"], first["records_no_l"]) == (5, 3, 2)
    assert "; 2 without l (no known value in their cell)" in ig.describe()
    assert "missing sensitive values: ignore (left out" in ig.describe()

    check = OutputCheck(8, 5, 7)
    shown = ig.to_dict(check)
    assert shown["missing"] == {"s": "< 8"}
    assert {
        (row["records_l1"], row["missing"], row["records_no_l"]) for row in shown["summary"]
    } == {("< 8", "< 8", "< 8")}
    assert "s < 8" in ig.describe(check)
    assert "< 8 without l" in ig.describe(check)

    none = ds.ldiversity(
        pa.table(
            {"k": ["a", "a"], "s": [None, None]},
            schema=pa.schema([("k", pa.string()), ("s", pa.int64())]),
        ),
        ["k"],
        ["s"],
        missing_sensitive="ignore",
    )
    row = none.summary.to_pylist()[0]
    assert row["min"] is None or math.isnan(row["min"])
    assert row["records_no_l"] == 2
    assert "min none, mean none, max none" in str(none)


def test_ldiversity_many_sensitive_variables() -> None:
    """Beyond sdcMicro's limit of 5 sensitive variables."""
    sens = ["electcon", "relat", "hhcivil", "expend", "income", "savings", "age"]
    r = ds.ldiversity(load(TESTDATA), ["urbrur", "roof", "walls"], sens)
    assert r.records is not None
    assert r.records.num_columns == 1 + 3 * len(sens) + 2


def test_risk_out_file(tmp_path: Path) -> None:
    data = load(TESTDATA)
    out = tmp_path / "risk.parquet"
    r = ds.risk(data, KEYS, weight="sampling_weight", out=str(out))
    assert r.records is None
    assert r.written == (str(out),)
    import pyarrow.parquet as pq

    written = pq.read_table(out)
    again = ds.risk(data, KEYS, weight="sampling_weight").records
    assert again is not None
    assert written.equals(again)
    with pytest.raises(ds.InputError, match="exists; pass overwrite=True"):
        ds.risk(data, KEYS, out=str(out))


def test_out_database_tables(tmp_path: Path) -> None:
    """out=FILE.duckdb makes the per-record table there (risk_records, ldiversity_records or
    out_table), refuses to replace one without overwrite, and out_table alone needs an engine
    with a database of its own."""
    import duckdb

    data = load(TESTDATA)
    db = tmp_path / "risk.duckdb"
    r = ds.risk(data, KEYS, weight="sampling_weight", out=str(db))
    assert r.records is None
    assert r.written == ("risk_records",)
    lr = ds.ldiversity(data, KEYS, ["relat"], out=str(db), out_table="l_div")
    assert lr.written == ("l_div",)
    expected_r = ds.risk(data, KEYS, weight="sampling_weight").records
    expected_l = ds.ldiversity(data, KEYS, ["relat"]).records
    con = duckdb.connect(str(db))
    try:
        # a table's Fk is Fk_population: DuckDB compares column names without case
        got = con.sql('SELECT * FROM risk_records ORDER BY "row"').to_arrow_table()
        assert got.column_names == ["row", "fk", "Fk_population", "risk"]
        assert got.rename_columns(expected_r.column_names).equals(expected_r)
        got = con.sql('SELECT * FROM l_div ORDER BY "row"').to_arrow_table()
        assert got.equals(expected_l)
    finally:
        con.close()
    with pytest.raises(ds.InputError, match="'risk_records' exists"):
        ds.risk(data, KEYS, out=str(db))
    ds.risk(data, KEYS, out=str(db), overwrite=True)  # unweighted now
    with pytest.raises(ds.InputError, match="DuckDB runs in memory"):
        ds.ldiversity(data, KEYS, ["relat"], out_table="t")


def test_summary_and_describe() -> None:
    r = ds.risk(load(TESTDATA), KEYS, weight="sampling_weight")
    names = r.summary.column("measure").to_pylist()
    for n in ("n1", "n2", "k2_violations", "k3_violations", "k5_violations", "global_risk_ER"):
        assert n in names
    assert r.value("k2_violations") == r.value("n1")
    assert r.value("k3_violations") == r.value("n1") + r.value("n2")
    internal, external = r.describe(), r.describe(mode="external")
    top = r.riskiest.to_pylist()[0]
    level = f"roof={top['roof']}"
    assert level in internal
    assert level not in external
    assert "expected re-identifications" in external


def test_cli_risk(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from discosql.cli.main import main

    data = str(SDCMICRO / "data" / TESTDATA)
    keys = ",".join(KEYS)
    assert main(["risk", data, "--keys", keys, "--weight", "sampling_weight"]) == 0
    out = capsys.readouterr().out
    r = ds.risk(load(TESTDATA), KEYS, weight="sampling_weight")
    assert out == r.describe() + "\n"
    assert main(["risk", data, "--keys", keys, "--mode", "external", "--ldiversity", "relat"]) == 0
    out = capsys.readouterr().out
    assert "Riskiest" not in out
    assert "relat_Distinct_Ldiversity" in out
    target = tmp_path / "r.csv"
    args = ["risk", data, "--keys", keys, "--format", "csv", "--out", str(target)]
    assert main([*args, "--ldiversity", "relat"]) == 0
    with open(target, newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 4580
    assert list(rows[0]) == ["row", "fk", "Fk", "risk"]
    assert (tmp_path / "r_ldiversity.csv").exists()
    said = capsys.readouterr().err.splitlines()  # each command says what it wrote
    assert said == [f"discosql: wrote {target}", f"discosql: wrote {tmp_path / 'r_ldiversity.csv'}"]
    assert main([*args, "--ldiversity", "relat"]) == 2  # exists: refused
    assert "pass --overwrite" in capsys.readouterr().err
    assert main(["risk", data, "--keys", keys, "--alpha", "2"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "discosql: error: --alpha: expected a number in [0, 1], got 2.0"
    assert main(["risk", data, "--keys", "roof,nokey"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_cli_ldiversity_rules(capsys: pytest.CaptureFixture[str]) -> None:
    """--missing-keys and --missing-sensitive reach ldiversity(); the text, the JSON and
    external mode's check say which rules were used and how many values are missing."""
    from discosql.cli.main import main

    data = str(SDCMICRO / "data" / "testdata_na.csv")
    keys, sens = ["urbrur", "roof", "walls", "water"], ["relat", "electcon"]
    argv = ["risk", data, "--keys", ",".join(keys), "--ldiversity", ",".join(sens)]
    rules = ["--missing-keys", "apart", "--missing-sensitive", "ignore"]
    assert main([*argv, *rules]) == 0
    out = capsys.readouterr().out
    api = ds.ldiversity(
        load("testdata_na.csv"), keys, sens, missing_keys="apart", missing_sensitive="ignore"
    )
    assert out.endswith(api.describe() + "\n")
    assert "missing sensitive values: ignore" in out
    assert "records with a missing sensitive value: relat 148, electcon 3" in out
    assert main([*argv, "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)["ldiversity"]
    assert (payload["missing_keys"], payload["missing_sensitive"]) == ("equal", "category")
    assert payload["missing"] == {"relat": 148, "electcon": 3}
    assert main([*argv, *rules, "--format", "json", "--mode", "external"]) == 0
    payload = json.loads(capsys.readouterr().out)["ldiversity"]
    assert payload["missing"] == {"relat": 150, "electcon": "< 8"}  # through the check
    assert {r["records_no_l"] for r in payload["summary"]} <= {0, "< 8", 25}
    with pytest.raises(SystemExit) as e:
        main([*argv, "--missing-sensitive", "drop"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--missing-sensitive: invalid choice: 'drop'" in err
    assert "'category', 'distinct', 'ignore'" in err


def test_report_risk_section() -> None:
    data = Path(ds.__file__).parent / "data"
    original, syn = str(data / "sd2011.parquet"), str(data / "syn_1.parquet")
    keys = ["sex", "age", "region"]
    r = ds.risk(original, keys)
    internal = ds.report(original, syn, keys, ["depress"], risk=True)
    section = internal.content["risk"]
    numbers = {n["measure"]: n["value"] for n in section["numbers"]}
    assert numbers["records unique on the keys (fk = 1)"] == f"{int(r.value('n1')):,}"
    assert numbers["expected re-identifications"] == f"{r.value('global_risk_ER'):,.2f}"
    assert section["riskiest"] == json.loads(json.dumps(r.to_dict()["riskiest"]))
    assert "Risk of the original data" in internal.html
    special = ds.suda(original, keys)
    suda = section["suda"]
    assert [r["records"] for r in suda["dis"]] == [
        f"{n:,}" for n in special.dis_table.column("records").to_pylist()
    ]
    assert [r["key"] for r in suda["contributions"]] == keys
    assert "Records by DIS-SUDA score" in internal.html
    external = ds.report(original, syn, keys, ["depress"], risk=True, mode="external")
    assert external.content["risk"]["riskiest"] == []
    shown = {n["measure"]: n["value"] for n in external.content["risk"]["numbers"]}
    n1 = int(r.value("n1"))  # rounded to 5 by the output check
    assert shown["records unique on the keys (fk = 1)"] == f"{5 * round(n1 / 5):,}"
    assert n1 % 5  # so the rounding shows
    dis_external = [r["records"] for r in external.content["risk"]["suda"]["dis"]]
    for shown_n, n in zip(
        dis_external, special.dis_table.column("records").to_pylist(), strict=True
    ):
        want = "0" if n == 0 else "< 8" if n < 8 else f"{5 * math.floor(n / 5 + 0.5):,}"
        assert shown_n == want
    top = r.riskiest.to_pylist()[0]["region"]
    assert top in internal.html
    assert top not in external.content["risk"]["numbers"].__repr__()
    assert ds.report(original, syn, keys, ["depress"]).content["risk"] is None
    with pytest.raises(ds.InputError, match="weight: 'sex' is also one of the keys"):
        ds.report(original, syn, keys, ["depress"], weight="sex")


def test_the_same_bits_whatever_the_threads() -> None:
    """Sums of weights and risks are summed so that every run gives the same bits (a
    parallel sum adds the threads' partial sums in an order that varies): 400,000 records,
    several row groups, 1 and 2 threads."""
    import random

    rng = random.Random(7)
    n = 400_000
    data = pa.table(
        {
            "a": [rng.randrange(40) for _ in range(n)],
            "b": [rng.choice("xyz") for _ in range(n)],
            "c": [rng.randrange(30) if rng.random() > 0.01 else None for _ in range(n)],
            "w": [rng.uniform(1, 300) for _ in range(n)],
        }
    )
    runs = [ds.risk(data, ["a", "b", "c"], weight="w", threads=t) for t in (2, 1, 2)]
    first = runs[0].records
    assert first is not None
    for r in runs[1:]:
        assert r.records is not None
        assert r.records.equals(first)
        assert r.summary.to_pylist()[:9] == runs[0].summary.to_pylist()[:9]  # 10th: NaN
    suda = [ds.suda(data, ["a", "b", "c"], threads=t).records for t in (2, 1)]
    assert suda[0] is not None
    assert suda[0].equals(suda[1])


def test_the_riskiest_cells_are_chosen_in_one_order(tmp_path: Path) -> None:
    """Many cells tie at the highest risk: the riskiest are the first by risk, records, then
    each key's level in byte order, on every engine and thread count; not whichever the
    engine's LIMIT happened to meet first. (A missing key matches every level here, so no
    cell with one ties.)"""
    from .. import engine_data

    names = ["é", "Z", "a", "b", "B", "ab", "a b", "'x", "10", "9", "Missing?"]
    table = pa.table(
        {
            "k0": [n for n in names for _ in range(3)],
            "k1": [str(i) for _ in names for i in range(3)],
        }
    )  # 33 cells of one record each: all at risk 1
    want = [(n, str(i)) for n in sorted(names, key=str.encode) for i in range(3)][:10]
    db = engine_data.write_sqlite(tmp_path / "ties.db", {"t": table})
    for engine, data in (
        (ds.duckdb(threads=1), table),
        (ds.duckdb(threads=2), table),
        (ds.sqlite(db), "t"),
    ):
        got = ds.risk(data, ["k0", "k1"], engine=engine).riskiest.to_pylist()
        assert [(r["k0"], r["k1"]) for r in got] == want
