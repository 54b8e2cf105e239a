"""sdc(): synthpop's sdc() on its own SD2011 outputs (tests/data/oracle/sdc): rows removed and
which, recode counts and the recoded columns digit for digit (md5 of synthpop's columns), names
after suffix/label; the intended numbers where synthpop's key strings go wrong."""

from __future__ import annotations

import csv
import hashlib
import json
import math
from typing import Any

import pyarrow as pa
import pytest

import discosql as ds
from discosql.protect import sdc

from . import oracle

SDC = oracle.ORACLE / "sdc"
ALL = json.loads((SDC / "cases.json").read_text())
CASES = {c["case_id"]: c for c in ALL["cases"] if c["function"] == "sdc"}
ARGS = {"keys": "keys", "rm.replicated.uniques": "rm_replicated_uniques",
        "rm.uniques.in.orig": "rm_uniques_in_orig", "recode.vars": "recode_vars",
        "bottom.top.coding": "bottom_top_coding", "recode.exclude": "recode_exclude",
        "suffix": "suffix", "label": "label", "prefix": "prefix"}  # fmt: skip
# synthpop's quirks, and the intended rows removed (README of the fixtures: quirks 2 and 5)
INTENDED_REMOVED = {
    # one key, m = 1: synthpop removes nothing although it reports 84 replicated uniques
    "sd_sdc_s1_single_income_rmrepU": [84],
    # format() padding: keys without padding remove these (synthpop: only rows with NA income)
    "sd_sdc_s5_recode_income_rmrepU_pad": [608, 593, 607, 581, 602],
}


def _rows(name: str) -> list[dict[str, str]]:
    with (SDC / name).open() as f:
        return list(csv.DictReader(f))


def _call(case_id: str) -> tuple[Any, list[pa.Table]]:
    case = CASES[case_id]
    files = ALL["synthetic"][case["synthetic"]]["files"]
    syn = [str(oracle.ORACLE / f) for f in files]
    kwargs = {ARGS[k]: v for k, v in case["args"].items()}
    original = str(oracle.ORACLE / "sd2011.csv")
    if kwargs.get("rm_replicated_uniques") and kwargs.get("rm_uniques_in_orig"):
        with pytest.warns(ds.DiscoSQLWarning, match="only the uniques in the original"):
            return sdc(original, syn, **kwargs), [_read(p) for p in syn]
    return sdc(original, syn, **kwargs), [_read(p) for p in syn]


def _read(path: str) -> pa.Table:
    import duckdb

    from discosql.engines.duckdb import file_reader

    sql = f"SELECT * FROM {file_reader('csv', 'p')}"
    return duckdb.sql(sql, params={"p": path}).to_arrow_table()


def _md5(values: list[Any]) -> str:
    text = "\n".join("NA" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.0f}"
                     for v in values)  # fmt: skip
    return hashlib.md5(text.encode()).hexdigest()


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_sdc_fixture(case_id: str) -> None:
    res, inputs = _call(case_id)
    summary = [r for r in _rows("expected_sdc_summary.csv") if r["case_id"] == case_id]
    assert len(summary) == len(res.synthetic)
    removed = res.removed.column("rows").to_pylist()
    for j, row in enumerate(summary):
        table = res.synthetic[j]
        assert table.column_names == row["names_after"].split("|")
        want = int(row["rows_removed"])
        if case_id in INTENDED_REMOVED:
            want = INTENDED_REMOVED[case_id][j]
        assert removed[j] == want, (case_id, j + 1)
        assert table.num_rows == int(row["rows_before"]) - want
    # which rows: the kept records are the input's others, in input order
    for row in _rows("expected_sdc_removed_rows.csv"):
        if row["case_id"] != case_id or case_id in INTENDED_REMOVED:
            continue
        j = int(row["synthesis"]) - 1
        gone = {int(x) - 1 for x in row["rows"].split()}
        keep = [i for i in range(inputs[j].num_rows) if i not in gone]
        recoded = {
            r["variable"] for r in _rows("expected_sdc_recode.csv") if r["case_id"] == case_id
        }
        got = res.synthetic[j]
        for name in inputs[j].column_names:
            if name in recoded:
                continue
            args = CASES[case_id]["args"]
            out_name = f"{args.get('prefix', '')}{name}{args.get('suffix', '')}"
            assert got.column(out_name).to_pylist() == inputs[j].column(name).take(keep).to_pylist()


@pytest.mark.parametrize(
    "case_id", sorted({r["case_id"] for r in _rows("expected_sdc_recode.csv")})
)
def test_sdc_recode_fixture(case_id: str) -> None:
    res, _ = _call(case_id)
    counts = {(r["synthesis"], r["variable"]): r for r in res.recoded.to_pylist()}
    for row in _rows("expected_sdc_recode.csv"):
        if row["case_id"] != case_id:
            continue
        j, var = int(row["synthesis"]), row["variable"]
        got = counts[(j, var)]
        assert (got["bottom_coded"], got["top_coded"]) == (
            int(row["n_bottom_coded"]),
            int(row["n_top_coded"]),
        )
        table = res.synthetic[j - 1]
        name = next(n for n in table.column_names if var in n and n != "flag")
        values = table.column(name).to_pylist()
        if case_id in INTENDED_REMOVED:
            continue  # other rows removed (see INTENDED_REMOVED)
        assert len(values) == int(row["n_final_col"])
        assert _md5(values) == row["md5_final_col"], (case_id, j, var)


def test_sdc_bad_input() -> None:
    o = pa.table({"k": ["a"], "x": [1]})
    with pytest.raises(
        ds.InputError, match="bottom_top_coding/recode_exclude: give recode_vars too"
    ):
        sdc(o, o, bottom_top_coding=(1, 2))
    with pytest.raises(ds.InputError, match="rm_replicated_uniques: expected True or False"):
        sdc(o, o, rm_replicated_uniques="yes")
    with pytest.raises(ds.SchemaError, match="recode_vars: 'k' is not numeric"):
        sdc(o, o, recode_vars="k", bottom_top_coding=(1, 2))


# --- every engine: the same removals and recodes as DuckDB ------------------------------------
ENGINE_KW: dict[str, Any] = {
    "keys": ["sex", "age", "region", "placesize"],
    "rm_replicated_uniques": True,
    "recode_vars": "age",
    "bottom_top_coding": (None, 80),
}


def _engine_result(engine: Any, names: dict[str, str]) -> tuple[Any, ...]:
    res = sdc(names["sd2011"], [names["syn_1"], names["syn_2"]], engine=engine, **ENGINE_KW)
    kept = [sorted(map(str, t.to_pylist())) for t in res.synthetic]  # order: see the README
    return res.removed.to_pylist(), res.recoded.to_pylist(), kept


def _duckdb_result() -> tuple[Any, ...]:
    names = {n: str(oracle.ORACLE / f"{n}.csv") for n in ("sd2011", "syn_1", "syn_2")}
    return _engine_result(None, names)


def test_sdc_on_sqlite(tmp_path: Any) -> None:
    from . import engine_data

    db = engine_data.write_sqlite(tmp_path / "sdc.db", engine_data.oracle_tables())
    names = {n: n for n in ("sd2011", "syn_1", "syn_2")}
    assert _engine_result(ds.sqlite(db), names) == _duckdb_result()


def test_sdc_on_postgres(pg_dsn: str) -> None:
    from . import engine_data

    engine_data.load_postgres(pg_dsn, engine_data.oracle_tables())
    names = {n: n for n in ("sd2011", "syn_1", "syn_2")}
    assert _engine_result(pg_dsn, names) == _duckdb_result()


def test_sdc_on_spark(spark: Any, tmp_path: Any) -> None:
    from . import engine_data

    paths = engine_data.write_parquet(tmp_path, engine_data.oracle_tables())
    assert _engine_result(ds.spark(spark), paths) == _duckdb_result()


def test_sdc_writes_files(tmp_path: Any) -> None:
    """out=: the engine writes each protected synthesis (Parquet, CSV or into a directory);
    the files hold what the in-memory result holds; existing files are refused."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    original = str(oracle.ORACLE / "sd2011.csv")
    syn = [str(oracle.ORACLE / f"syn_{i}.csv") for i in (1, 2)]
    kw: dict[str, Any] = {"keys": ["sex", "age"], "rm_uniques_in_orig": True, "suffix": "_s",
                          "label": "fake", "recode_vars": "age",
                          "bottom_top_coding": (20, 80)}  # fmt: skip
    ref = sdc(original, syn, **kw)
    pattern = str(tmp_path / "protected_{synthesis}.parquet")
    res = sdc(original, syn, out=pattern, **kw)
    assert res.synthetic == []
    assert res.removed.equals(ref.removed)
    for j, path in enumerate(res.out):
        assert path == pattern.replace("{synthesis}", str(j + 1))
        written = pq.read_table(path)  # the same values (Parquet keeps no NOT NULL here)
        assert written.column_names == ref.synthetic[j].column_names
        assert written.to_pylist() == ref.synthetic[j].to_pylist()
    with pytest.raises(ds.InputError, match="exists; pass overwrite=True"):
        sdc(original, syn, out=pattern, **kw)
    sdc(original, syn, out=pattern, overwrite=True, **kw)
    csv_out = sdc(original, syn[0], out=str(tmp_path / "one.csv"), **kw)
    assert pacsv.read_csv(csv_out.out[0]).num_rows == ref.synthetic[0].num_rows
    folder = tmp_path / "dir"
    folder.mkdir()
    in_dir = sdc(original, syn, out=folder, **kw)
    assert [p.rsplit("/", 1)[-1] for p in in_dir.out] == [
        "synthetic_1.parquet", "synthetic_2.parquet"]  # fmt: skip


def test_sdc_out_is_checked_before_reading() -> None:
    for out, message in (("x.txt", "must be a directory or end in"),
                         ("/no/such/dir/x_{synthesis}.parquet", "does not exist"),
                         ("x.parquet", "names one file for 2 syntheses")):  # fmt: skip
        with pytest.raises(ds.InputError, match=message):
            sdc("missing.parquet", ["missing.parquet", "missing.parquet"], out=out)


def test_cli_sdc(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import pyarrow.parquet as pq

    from discosql.cli import main

    original = str(oracle.ORACLE / "sd2011.csv")
    syn = [str(oracle.ORACLE / f"syn_{i}.csv") for i in (1, 2)]
    out = str(tmp_path / "p_{synthesis}.parquet")
    argv = ["sdc", original, *syn, "--keys", "sex,age,region,placesize",
            "--rm-replicated-uniques", "--recode", "age=,80", "--out", out]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "replicated uniques   707" in printed  # synthpop: sd_sdc_s5_recode_age80_rmrepU
    keys = ["sex", "age", "region", "placesize"]
    ref = sdc(original, syn, keys=keys, rm_replicated_uniques=True, recode_vars="age",
              bottom_top_coding=(None, 80))  # fmt: skip
    assert (
        pq.read_table(out.replace("{synthesis}", "2")).to_pylist() == ref.synthetic[1].to_pylist()
    )
    assert main(argv) == 2  # the files exist now
    assert "pass overwrite=True" in capsys.readouterr().err
    assert main([*argv[:-2], "--recode", "age=80", "--out", out]) == 2
    err = capsys.readouterr().err
    assert "--recode: expected VAR=BOTTOM,TOP" in err
    assert "Traceback" not in err


def test_sdc_measures_before_and_after(tmp_path: Any) -> None:
    """measure=: disclosure_summary before and after; removing the replicated uniques over the
    measure's keys leaves repU = 0 in every synthesis, and the protected data are measured
    under their own names (suffix and label undone), or read back from the files."""
    original = str(oracle.ORACLE / "sd2011.csv")
    syn = [str(oracle.ORACLE / f"syn_{i}.csv") for i in (1, 2)]
    keys = ["sex", "age", "region", "placesize"]
    kw: dict[str, Any] = {"keys": keys, "rm_replicated_uniques": True, "label": "fake",
                          "measure": {"targets": ["depress", "workab"]}}  # fmt: skip
    res = sdc(original, syn, suffix="_s", **kw)
    assert res.before is not None
    assert res.after is not None
    ref = ds.disclosure_summary(original, syn, keys, ["depress", "workab"])
    assert res.before.table.equals(ref.table)
    for target in ("depress", "workab"):
        assert res.after.results[target].ident.column("repU").to_pylist() == [0.0, 0.0]
        assert res.before.results[target].ident.column("repU").to_pylist() != [0.0, 0.0]
    on_files = sdc(original, syn, out=str(tmp_path / "p_{synthesis}.parquet"), **kw)
    assert on_files.after is not None
    assert on_files.after.table.equals(res.after.table)
    with pytest.raises(ds.InputError, match="renamed files"):
        sdc(original, syn, out=str(tmp_path / "q_{synthesis}.parquet"), suffix="_s", **kw)
