"""replicated_uniques(): synthpop's replicated.uniques() res_tab on its own SD2011 outputs
(tests/data/oracle/sdc), the intended numbers where synthpop's key strings go wrong, and a
brute-force reference on hypothesis data."""

from __future__ import annotations

import csv
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import discosql as ds

from .. import engine_data, oracle
from ..helpers.engines import Loaded, on_engines
from ..helpers.profiles import fixed

SDC = oracle.ORACLE / "sdc"
CASES = {c["case_id"]: c for c in json.loads((SDC / "cases.json").read_text())["cases"]}
RU_CASES = sorted(c for c, case in CASES.items() if case["function"] == "replicated.uniques")


def _expected(case_id: str) -> list[dict[str, Any]]:
    with (SDC / "expected_ru_restab.csv").open() as f:
        return [r for r in csv.DictReader(f) if r["case_id"] == case_id]


def _inputs(case_id: str) -> tuple[str, list[str], list[str] | None]:
    case = CASES[case_id]
    files = json.loads((SDC / "cases.json").read_text())["synthetic"][case["synthetic"]]["files"]
    return (
        str(oracle.ORACLE / "sd2011.csv"),
        [str(oracle.ORACLE / f) for f in files],
        case["args"].get("keys"),
    )


# --- a brute-force reference ------------------------------------------------------------------
NA = object()  # NA (and NaN): one category, distinct from any text


def _value(v: Any) -> Any:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return NA
    if isinstance(v, int | float) and not isinstance(v, bool):
        return float(v)  # 57 and 57.0 are one value
    return v


def reference(
    original: list[dict[str, Any]],
    syntheses: list[list[dict[str, Any]]],
    keys: list[str],
    synthpop: str = "1.9-2",
) -> list[tuple[int, str, int, int]]:
    """(synthesis, measure, number, from_total) from Python counters over key tuples; rows 3-4
    are of the synthesis's k records in synthpop 1.9-2 and of the original's n in 1.9-3
    (R/IO.r: res_tab[,2] <- c(object$n, object$k, rep(object$n,2)))."""

    def counts(rows: list[dict[str, Any]]) -> Counter[tuple[Any, ...]]:
        return Counter(tuple(_value(r[k]) for k in keys) for r in rows)

    o = counts(original)
    out = []
    for j, syn in enumerate(syntheses, start=1):
        s = counts(syn)
        uniques = [q for q, n in s.items() if n == 1]
        of = {"1.9-2": len(syn), "1.9-3": len(original)}[synthpop]
        out += [
            (j, "Original", sum(1 for n in o.values() if n == 1), len(original)),
            (j, "Synthetic", len(uniques), len(syn)),
            (j, "Synthetic uniques in original", sum(1 for q in uniques if o[q] >= 1), of),
            (j, "Replicated uniques", sum(1 for q in uniques if o[q] == 1), of),
        ]
    return out


def _rows(res: ds.ReplicatedUniques) -> list[tuple[int, str, int, int]]:
    return [
        (r["synthesis"], r["measure"], r["number"], r["from_total"]) for r in res.table.to_pylist()
    ]


@pytest.fixture(scope="module")
def tables() -> dict[str, list[dict[str, Any]]]:
    return {name: t.to_pylist() for name, t in engine_data.oracle_tables().items()}


# --- synthpop's fixtures ----------------------------------------------------------------------
@pytest.mark.parametrize("case_id", RU_CASES)
def test_replicated_uniques_fixture(case_id: str, tables: dict[str, Any]) -> None:
    original, syn, keys = _inputs(case_id)
    res = ds.replicated_uniques(original, syn, keys=keys)
    expected = _expected(case_id)
    got = res.table.to_pylist()
    assert len(got) == len(expected) == 4 * len(syn)
    names = keys or list(tables["sd2011"][0])
    ref = reference(tables["sd2011"], [tables[Path(f).stem] for f in syn], names)
    assert _rows(res) == ref  # the intended numbers, computed independently
    for g, e in zip(got, expected, strict=True):
        assert (g["synthesis"], g["measure"]) == (int(e["synthesis"]), e["measure"])
        if len(names) == 1 and e["measure"] == "Synthetic uniques in original":
            # synthpop quirk 2: with one key its keys stay one-column data frames and
            # `%in%` is always FALSE, so synthpop reports 0; a single key behaves like several
            # here (the reference above gives the intended count)
            assert int(e["number"]) == 0
            continue
        assert g["number"] == int(e["number"]), (case_id, g)
        assert g["from_total"] == int(e["from_total"])
        assert g["pct"] == float(e["pct"])  # number / from_total * 100, as R computes it
    # k = n in every fixture, where synthpop 1.9-3's denominators are 1.9-2's
    assert ds.replicated_uniques(original, syn, keys=keys, synthpop="1.9-3").table.equals(res.table)


def test_the_vignette_numbers() -> None:
    """Synthesis 1 with the vignette's keys: UiO 48.38, UiS 37.34, repU 14.86 (disclosure())."""
    original, syn, keys = _inputs("sd_ru_s1_vkeys")
    res = ds.replicated_uniques(original, syn, keys=keys)
    pct = {r["measure"]: round(r["pct"], 2) for r in res.table.to_pylist()}
    assert (pct["Original"], pct["Synthetic"], pct["Replicated uniques"]) == (48.38, 37.34, 14.86)
    d = ds.disclosure(original, syn, keys=keys, target="depress")
    assert res.table.column("pct")[3].as_py() == pytest.approx(d.value("repU"), abs=1e-12)


# --- hypothesis data against the reference ----------------------------------------------------
TEXT = [None, "a", "b", "NA", "Missing", "x|y", "x", "y|", "", "é"]
NUMBERS = [None, 1, 2, 57, float("nan")]


@st.composite
def data_sets(draw: Any) -> tuple[pa.Table, list[pa.Table], list[str]]:
    nkeys = draw(st.integers(1, 3))
    keys = [f"k{i}" for i in range(nkeys)]
    numeric = draw(st.sampled_from([None, *keys]))  # int64 in the original, double in syntheses

    def table(n: int, double: bool) -> pa.Table:
        cols = {}
        for k in keys:
            if k == numeric:
                values = draw(st.lists(st.sampled_from(NUMBERS), min_size=n, max_size=n))
                if double:
                    cols[k] = pa.array([None if v is None else float(v) for v in values])
                else:
                    ints = [None if v is None or v != v else int(v) for v in values]
                    cols[k] = pa.array(ints, pa.int64())
            else:
                cols[k] = pa.array(
                    draw(st.lists(st.sampled_from(TEXT), min_size=n, max_size=n)), pa.string()
                )
        return pa.table(cols)

    original = table(draw(st.integers(1, 30)), double=False)
    m = draw(st.integers(1, 3))
    syntheses = [table(draw(st.integers(0, 30)), double=True) for _ in range(m)]
    return original, syntheses, keys


@pytest.mark.filterwarnings("ignore:synthetic:discosql.errors.DiscoSQLWarning")  # 0-row syntheses
@settings(max_examples=fixed(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data_sets(), st.sampled_from(["1.9-2", "1.9-3"]))
def test_replicated_uniques_agree_with_the_reference(
    data: tuple[pa.Table, list[pa.Table], list[str]], synthpop: str
) -> None:
    original, syntheses, keys = data
    res = ds.replicated_uniques(original, syntheses, keys=keys, synthpop=synthpop)
    ref = reference(original.to_pylist(), [s.to_pylist() for s in syntheses], keys, synthpop)
    assert _rows(res) == ref
    assert res.synthpop == synthpop


# --- synthpop 1.9-3's denominators --------------------------------------------------------------
VKEYS = ["sex", "age", "region", "placesize"]  # the vignette's keys


def _k_not_n() -> dict[str, pa.Table]:
    """The original (n = 5000) and two syntheses of other sizes: 3000 and 6000 records."""
    t = engine_data.oracle_tables()
    longer = pa.concat_tables([t["syn_2"], t["syn_3"].slice(0, 1000)])
    return {"sd2011": t["sd2011"], "shorter": t["syn_1"].slice(0, 3000), "longer": longer}


def _by_release(tables: dict[str, Any], engine: Any = None) -> dict[str, list[dict[str, Any]]]:
    syn = [tables["shorter"], tables["longer"]]
    return {
        v: ds.replicated_uniques(
            tables["sd2011"], syn, keys=VKEYS, synthpop=v, engine=engine
        ).table.to_pylist()
        for v in ("1.9-2", "1.9-3")
    }


def _check_releases(got: dict[str, list[dict[str, Any]]], tables: dict[str, pa.Table]) -> None:
    """Rows 1-2 the same in both releases; rows 3-4 of k (1.9-2) and of n (1.9-3), with
    pct = number / from_total * 100; every row as the brute-force reference counts it."""
    rows = {n: t.to_pylist() for n, t in tables.items()}
    n = len(rows["sd2011"])
    for v, table in got.items():
        ref = reference(rows["sd2011"], [rows["shorter"], rows["longer"]], VKEYS, v)
        assert [(r["synthesis"], r["measure"], r["number"], r["from_total"]) for r in table] == ref
        for r in table:
            assert r["pct"] == pytest.approx(r["number"] / r["from_total"] * 100, rel=1e-12)
    old, new = got["1.9-2"], got["1.9-3"]
    for a, b in zip(old, new, strict=True):
        assert (a["synthesis"], a["measure"], a["number"]) == (
            b["synthesis"],
            b["measure"],
            b["number"],
        )
        if a["measure"] in ("Original", "Synthetic"):
            assert a == b
        else:
            k = (3000, 6000)[a["synthesis"] - 1]
            assert (a["from_total"], b["from_total"]) == (k, n)
            assert b["pct"] == pytest.approx(b["number"] / n * 100, rel=1e-12)
            assert b["pct"] != a["pct"]  # k != n: the releases differ


def test_synthpop_1_9_3_divides_rows_3_and_4_by_n() -> None:
    tables = _k_not_n()
    got = _by_release(tables)
    _check_releases(got, tables)
    # 1.9-3's "Replicated uniques" is disclosure()'s repU (of the original's records)
    shorter = got["1.9-3"][3]
    d = ds.disclosure(tables["sd2011"], tables["shorter"], keys=VKEYS, target="depress")
    assert shorter["pct"] == pytest.approx(d.value("repU"), abs=1e-12)
    res = ds.replicated_uniques(tables["sd2011"], tables["shorter"], VKEYS, synthpop="1.9-3")
    assert res.synthpop == "1.9-3"
    assert res.to_dict()["synthpop"] == json.loads(res.to_json())["synthpop"] == "1.9-3"
    assert "synthpop 1.9-3: synthetic uniques in original" in res._repr_html_()
    assert ds.replicated_uniques(tables["sd2011"], tables["shorter"], VKEYS).synthpop == "1.9-2"


@pytest.mark.filterwarnings("ignore:uniques/flags.sql.j2:discosql.errors.DiscoSQLWarning")
@on_engines(exclude={"duckdb": "the reference"})
def test_synthpop_releases_on_every_engine(engine_case: Loaded) -> None:
    tables = _k_not_n()
    engine, names = engine_case.load(tables)
    got = _by_release(names, engine)
    _check_releases(got, tables)
    assert got == _by_release(tables)


def test_the_template_takes_the_release() -> None:
    """The release is a context variable of uniques/replicated: rows 3-4 divide by k (1.9-2)
    or n (1.9-3); a value Python did not check does not render."""
    from discosql.sql.templates import render

    ctx: dict[str, Any] = {"cells": "c", "n_words": 1, "syntheses": [1]}
    for release, of in (("1.9-2", "k"), ("1.9-3", "n")):
        sql = render("uniques/replicated.sql.j2", synthpop=release, **ctx)
        assert f"'Replicated uniques', replicated, {of} from counts" in sql
        assert f"'Synthetic uniques in original', in_original, {of} from counts" in sql
        assert "'Synthetic', syn_uniques, k from counts" in sql
    with pytest.raises(ds.TemplateError, match=r"uniques/replicated\.sql\.j2"):
        render("uniques/replicated.sql.j2", synthpop="1.9", **ctx)


def test_synthpop_is_checked_before_any_data_is_read() -> None:
    missing = "no/such/file.parquet"  # never read: the argument fails first
    for bad in ("1.9.3", 1.93, None):
        with pytest.raises(ds.InputError) as e:
            ds.replicated_uniques(missing, missing, keys=["k"], synthpop=bad)  # type: ignore[arg-type]
        assert str(e.value) == (
            "synthpop: expected the release whose replicated.uniques() denominators to follow, "
            f"one of '1.9-2', '1.9-3', got {bad!r}"
            + ("; did you mean '1.9-3'?" if bad == "1.9.3" else "")
        )


# --- every engine -----------------------------------------------------------------------------
ENGINE_CASES = ["sd_ru_s5_nanum", "sd_ru_s1_single_income"]  # NA in numbers and text; one key


def _on(engine: Any, names: dict[str, str]) -> list[Any]:
    out: list[Any] = []
    for case_id in ENGINE_CASES:
        _, syn, keys = _inputs(case_id)
        res = ds.replicated_uniques(
            names["sd2011"], [names[Path(f).stem] for f in syn], keys=keys, engine=engine
        )
        out += [_rows(res), res.flags.to_pylist()]  # rows in load order: the CSV's order
    return out


def _duckdb_reference() -> list[Any]:
    out: list[Any] = []
    for case_id in ENGINE_CASES:
        original, syn, keys = _inputs(case_id)
        res = ds.replicated_uniques(original, syn, keys=keys)
        out += [_rows(res), res.flags.to_pylist()]
    return out


def _names() -> dict[str, str]:
    return {n: n for n in ["sd2011", *(f"syn_{i}" for i in range(1, 6))]}


def _flag_counts(results: list[Any]) -> list[Any]:
    """Tables as they are, flags as counts per (synthesis, replicated_unique)."""
    return [
        Counter((r["synthesis"], r["replicated_unique"]) for r in x) if i % 2 else x
        for i, x in enumerate(results)
    ]


@on_engines("sqlite", "postgres", "spark")
def test_replicated_uniques_on_an_engine(engine_case: Loaded) -> None:
    """PostgreSQL's positions are the table's physical (ctid) order, which COPY need not keep
    (a row can land on an earlier page): there the flags are compared as counts."""
    tables = engine_data.oracle_tables()
    engine, names = engine_case.load({n: tables[n] for n in _names()})
    if engine_case.case.keeps_row_order:
        assert _on(engine, names) == _duckdb_reference()
    else:
        assert _flag_counts(_on(engine, names)) == _flag_counts(_duckdb_reference())


def test_cli_uniques(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from discosql.cli.main import main

    original, syn, keys = _inputs("sd_ru_s5_vkeys")
    assert keys is not None
    out = tmp_path / "ru.json"
    argv = ["uniques", original, *syn, "--keys", ",".join(keys)]
    assert main([*argv, "--format", "json", "--out", str(out)]) == 0
    assert (
        json.loads(out.read_text()) == ds.replicated_uniques(original, syn, keys).to_dict()["table"]
    )
    assert main(argv) == 0
    assert "Replicated uniques" in capsys.readouterr().out
    out = tmp_path / "ru_1_9_3.json"
    assert main([*argv, "--synthpop", "1.9-3", "--format", "json", "--out", str(out)]) == 0
    assert (
        json.loads(out.read_text())
        == (ds.replicated_uniques(original, syn, keys, synthpop="1.9-3").to_dict()["table"])
    )
    with pytest.raises(SystemExit) as exited:  # argparse: a value outside the choices
        main([*argv, "--synthpop", "1.9"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--synthpop: invalid choice: '1.9'" in err
    assert "Traceback" not in err
    assert main(["uniques", original, *syn, "--keys", "sex,nope"]) == 2
    err = capsys.readouterr().err
    assert "key 'nope': not a column of the original data" in err
    assert "Traceback" not in err


def _expected_flags(case_id: str) -> dict[tuple[int, str], list[int]]:
    with (SDC / "expected_ru_flags.csv").open() as f:
        return {
            (int(r["synthesis"]), r["flag"]): [int(x) for x in r["rows"].split()]
            for r in csv.DictReader(f)
            if r["case_id"] == case_id
        }


def _flag_rows(res: ds.ReplicatedUniques) -> dict[tuple[int, str], list[int]]:
    out: dict[tuple[int, str], list[int]] = {}
    for r in res.flags.to_pylist():
        out.setdefault((r["synthesis"], "synU.rm"), []).append(r["row"])
        if r["replicated_unique"]:
            out.setdefault((r["synthesis"], "repU.rm"), []).append(r["row"])
    return out


@pytest.mark.parametrize("case_id", RU_CASES)
def test_replicated_uniques_flags_fixture(case_id: str, tables: dict[str, Any]) -> None:
    original, syn, keys = _inputs(case_id)
    res = ds.replicated_uniques(original, syn, keys=keys)
    got = _flag_rows(res)
    names = keys or list(tables["sd2011"][0])
    for (j, flag), rows in _expected_flags(case_id).items():
        if len(names) == 1 and (flag == "synU.rm" or len(syn) == 1):
            # synthpop quirk 2: with one key synU.rm (and, for m = 1, repU.rm) is all FALSE;
            # here the flags follow the counts of the table (checked against the reference)
            counts = {
                r["measure"]: r["number"] for r in res.table.to_pylist() if r["synthesis"] == j
            }
            name = "Synthetic uniques in original" if flag == "synU.rm" else "Replicated uniques"
            assert len(got.get((j, flag), [])) == counts[name]
            continue
        assert got.get((j, flag), []) == rows, (case_id, j, flag)


def test_flags_positions_for_every_input_kind(tmp_path: Path) -> None:
    """A flagged record's row is its position in the synthetic input, whatever its kind."""
    import pyarrow.parquet as pq

    o = pa.table({"k": ["a", "b", "c", "c"]})
    s = pa.table({"k": ["c", "z", "b", "y", "a"]})  # b (row 3) and a (row 5) replicate
    pq.write_table(s.slice(0, 2), tmp_path / "part-0.parquet")
    pq.write_table(s.slice(0, 0), tmp_path / "part-1.parquet")  # a file with no rows
    pq.write_table(s.slice(2, 1), tmp_path / "part-2.parquet")
    pq.write_table(s.slice(3), tmp_path / "part-3.parquet")
    s.to_pandas().to_csv(tmp_path / "s.csv", index=False)
    inputs = [
        s,
        s.to_pandas(),
        str(tmp_path / "part-*.parquet"),
        str(tmp_path / "s.csv"),
        s.to_reader(),
    ]
    for syn in inputs:
        res = ds.replicated_uniques(o, syn, keys="k")
        rows = [(r["row"], r["replicated_unique"]) for r in res.flags.to_pylist()]
        assert rows == [(1, False), (3, True), (5, True)], type(syn)
