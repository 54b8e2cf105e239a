"""sdc(): synthpop's sdc() on its own SD2011 outputs (tests/data/oracle/sdc): rows removed and
which, recode counts and the recoded columns digit for digit (md5 of synthpop's columns), names
after suffix/label; the intended numbers where synthpop's key strings go wrong."""

from __future__ import annotations

import csv
import hashlib
import json
import math
import re
from typing import Any

import pyarrow as pa
import pytest

import discosql as ds
from discosql.protect.sdc import sdc

from .. import oracle
from ..helpers.compare import assert_value
from ..helpers.engines import Loaded, on_engines

SDC = oracle.ORACLE / "sdc"
ALL = json.loads((SDC / "cases.json").read_text())
CASES = {c["case_id"]: c for c in ALL["cases"] if c["function"] == "sdc"}
ARGS = {
    "keys": "keys",
    "rm.replicated.uniques": "rm_replicated_uniques",
    "rm.uniques.in.orig": "rm_uniques_in_orig",
    "recode.vars": "recode_vars",
    "bottom.top.coding": "bottom_top_coding",
    "recode.exclude": "recode_exclude",
    "suffix": "suffix",
    "label": "label",
    "prefix": "prefix",
}
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
    text = "\n".join(
        "NA" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.0f}"
        for v in values
    )
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
    missing = "no/such/file.parquet"  # never read: the arguments fail first
    for call in (sdc, ds.sdc_to_sql):
        with pytest.raises(ds.InputError, match=r"synthpop: .* one of '1.9-2', '1.9-3', got '1.9'"):
            call(missing, missing, synthpop="1.9", out_table="t")


def test_sdc_synthpop_release_is_recorded_and_changes_no_number() -> None:
    """synthpop 1.9-3 changed only replicated.uniques()' denominators, which sdc() does not
    print: with k != n both releases remove and recode the same records, removed.pct is of
    the synthesis's records in both, and the result records the release asked for."""
    from .. import engine_data

    t = engine_data.oracle_tables()
    original, shorter = t["sd2011"], t["syn_1"].slice(0, 3000)  # n = 5000, k = 3000
    kw: dict[str, Any] = {
        "keys": ["sex", "age", "region", "placesize"],
        "rm_replicated_uniques": True,
        "recode_vars": "age",
        "bottom_top_coding": (None, 80),
    }
    old = sdc(original, [shorter, t["syn_2"]], **kw)
    new = sdc(original, [shorter, t["syn_2"]], synthpop="1.9-3", **kw)
    assert (old.synthpop, new.synthpop) == ("1.9-2", "1.9-3")
    assert new.removed.equals(old.removed)
    assert new.recoded.equals(old.recoded)
    assert [x.to_pylist() for x in new.synthetic] == [x.to_pylist() for x in old.synthetic]
    first = new.removed.to_pylist()[0]
    assert first["pct"] == pytest.approx(100 * first["rows"] / 3000)
    assert new.to_dict()["synthpop"] == json.loads(new.to_json())["synthpop"] == "1.9-3"
    assert "synthpop 1.9-3: the records removed are the same" in new._repr_html_()
    tables = {"original": "persons", "synthetic": ["syn"]}
    script = ds.sdc_to_sql(
        original, shorter, synthpop="1.9-3", out_table="safe", tables=tables, **kw
    )
    assert "-- synthpop 1.9-3 (its sdc() removes the same records in 1.9-2 and 1.9-3)" in script
    default = ds.sdc_to_sql(original, shorter, out_table="safe", tables=tables, **kw)
    assert "-- synthpop 1.9-2 (" in default

    def body(text: str) -> list[str]:  # the statements, each export's own token aside
        return [re.sub(r"_[0-9a-f]{8}\b", "_TOKEN", x) for x in text.splitlines() if x[:2] != "--"]

    assert body(script) == body(default)


# --- every engine: the same removals and recodes as DuckDB ------------------------------------
# marital's DiSCO cells with exclusions on both sides (over denom_lim, missing in keys)
MARITAL = {
    "target": "marital",
    "keys": ["sex", "age", "placesize"],
    "exclude_ov_denom_lim": True,
    "use_keys_na": False,
}
ENGINE_KW: dict[str, Any] = {
    "keys": ["sex", "age", "region", "placesize"],
    "rm_replicated_uniques": True,
    "recode_vars": "age",
    "bottom_top_coding": (None, 80),
    # a grouped target after the uniques: its grouping reads the kept records (a subquery,
    # which PostgreSQL wants aliased)
    "rm_disclosive": [
        {"target": "depress", "keys": ["sex", "age", "region"]},
        MARITAL,
        {"target": "income", "keys": ["sex", "region"], "ngroups_target": 4},
    ],
}


def _engine_result(engine: Any, names: dict[str, str]) -> tuple[Any, ...]:
    res = sdc(names["sd2011"], [names["syn_1"], names["syn_2"]], engine=engine, **ENGINE_KW)
    kept = [sorted(map(str, t.to_pylist())) for t in res.synthetic]  # order: see the README
    return res.removed.to_pylist(), res.recoded.to_pylist(), kept


def _duckdb_result() -> tuple[Any, ...]:
    names = {n: str(oracle.ORACLE / f"{n}.csv") for n in ("sd2011", "syn_1", "syn_2")}
    return _engine_result(None, names)


@on_engines(exclude={"duckdb": "the reference"})
def test_sdc_on_every_engine(engine_case: Loaded) -> None:
    from .. import engine_data

    engine, names = engine_case.load(engine_data.oracle_tables())
    assert _engine_result(engine, names) == _duckdb_result()


def test_sdc_writes_files(tmp_path: Any) -> None:
    """out=: the engine writes each protected synthesis (Parquet, CSV or into a directory);
    the files hold what the in-memory result holds; existing files are refused."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    original = str(oracle.ORACLE / "sd2011.csv")
    syn = [str(oracle.ORACLE / f"syn_{i}.csv") for i in (1, 2)]
    kw: dict[str, Any] = {
        "keys": ["sex", "age"],
        "rm_uniques_in_orig": True,
        "suffix": "_s",
        "label": "fake",
        "recode_vars": "age",
        "bottom_top_coding": (20, 80),
    }
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
        "synthetic_1.parquet",
        "synthetic_2.parquet",
    ]


def test_sdc_out_is_checked_before_reading() -> None:
    for out, message in (
        ("x.txt", "must be a directory or end in"),
        ("/no/such/dir/x_{synthesis}.parquet", "does not exist"),
        ("x.parquet", "names one file for 2 syntheses"),
    ):
        with pytest.raises(ds.InputError, match=message):
            sdc("missing.parquet", ["missing.parquet", "missing.parquet"], out=out)


def test_cli_sdc(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import pyarrow.parquet as pq

    from discosql.cli.main import main

    original = str(oracle.ORACLE / "sd2011.csv")
    syn = [str(oracle.ORACLE / f"syn_{i}.csv") for i in (1, 2)]
    out = str(tmp_path / "p_{synthesis}.parquet")
    argv = [
        "sdc",
        original,
        *syn,
        "--keys",
        "sex,age,region,placesize",
        "--rm-replicated-uniques",
        "--recode",
        "age=,80",
        "--out",
        out,
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "replicated uniques   707" in printed  # synthpop: sd_sdc_s5_recode_age80_rmrepU
    keys = ["sex", "age", "region", "placesize"]
    ref = sdc(
        original,
        syn,
        keys=keys,
        rm_replicated_uniques=True,
        recode_vars="age",
        bottom_top_coding=(None, 80),
    )
    assert (
        pq.read_table(out.replace("{synthesis}", "2")).to_pylist() == ref.synthetic[1].to_pylist()
    )
    assert main(argv) == 2  # the files exist now
    assert "pass --overwrite" in capsys.readouterr().err  # the CLI names its flag
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
    kw: dict[str, Any] = {
        "keys": keys,
        "rm_replicated_uniques": True,
        "label": "fake",
        "measure": {"targets": ["depress", "workab"]},
    }
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


# --- rm_disclosive (beyond synthpop) ------------------------------------------------------------
def test_rm_disclosive_by_hand() -> None:
    """Cells (a, b) of the synthesis: (x, 1) two records t = p, original has (x, 1, p): DiSCO;
    (y, 1) one record p, original (y, 1, p) twice: DiSCO; (y, 2) two records q, not in the
    original: kept; (NA, 3) one record r, original (NA, 3, r): DiSCO (NA is a level)."""
    o = pa.table(
        {"a": ["x", "x", "y", "y", None], "b": [1, 2, 1, 1, 3], "t": ["p", "q", "p", "p", "r"]}
    )
    s = pa.table(
        {
            "a": ["x", "x", "y", "y", "y", None],
            "b": [1.0, 1.0, 1.0, 2.0, 2.0, 3.0],
            "t": ["p", "p", "p", "q", "q", "r"],
        }
    )
    res = sdc(o, s, keys=["a", "b"], rm_disclosive={"target": "t"})
    reason = "DiSCO cells of 't' (keys 'a', 'b')"
    assert res.removed.to_pylist() == [
        {"synthesis": 1, "reason": reason, "rows": 4, "pct": 400 / 6}
    ]
    assert res.synthetic[0].to_pylist() == [{"a": "y", "b": 2.0, "t": "q"}] * 2
    # replicated uniques first: (NA, 3) (unique in both); then DiSCO on what is left: (x, 1)
    # and (y, 1); then by key a alone: y has only q left, the original only p: nothing
    res = sdc(
        o,
        s,
        keys=["a", "b"],
        rm_replicated_uniques=True,
        rm_disclosive=[{"target": "t"}, {"target": "t", "keys": ["a"]}],
    )
    assert res.removed.column("rows").to_pylist() == [1, 3, 0]
    assert res.removed.column("reason").to_pylist()[::2] == [
        "replicated uniques",
        "DiSCO cells of 't' (keys 'a')",
    ]


def test_rm_disclosive_leaves_no_disco() -> None:
    """After removal, disclosure() with the entry's keys and options finds DiSCO = 0 in every
    synthesis (its exclusions are not empty); the steps' rows add up to the records lost."""
    original = str(oracle.ORACLE / "sd2011.csv")
    syn = [str(oracle.ORACLE / f"syn_{i}.csv") for i in (1, 2)]
    options = {k: v for k, v in MARITAL.items() if k not in ("target", "keys")}
    before = ds.disclosure(original, syn, keys=MARITAL["keys"], target="marital", **options)
    excluded = [r for r in before.exclusions.to_pylist() if r["reason"] != "remaining"]
    assert any(r["count"] for r in excluded)
    assert all(before.value("DiSCO", synthesis=j) > 0 for j in (1, 2))
    res = sdc(original, syn, keys=["sex"], rm_uniques_in_orig=True, rm_disclosive=MARITAL)
    after = ds.disclosure(
        original, res.synthetic, keys=MARITAL["keys"], target="marital", **options
    )
    assert [after.value("DiSCO", synthesis=j) for j in (1, 2)] == [0.0, 0.0]
    for j, table in enumerate(res.synthetic, start=1):
        lost = sum(r["rows"] for r in res.removed.to_pylist() if r["synthesis"] == j)
        assert lost == 5000 - table.num_rows > 0


def test_rm_disclosive_bad_input() -> None:
    o = pa.table({"k": ["a"], "x": [1]})
    for value, message in (
        ({"keys": ["k"]}, "rm_disclosive: give the target"),
        ({"target": "x"}, "rm_disclosive: give its keys"),
        ({"target": "x", "keys": ["k"], "denom_limit": 3}, "did you mean 'denom_lim'"),
        ([{"target": "x", "keys": ["k"], "denom_lim": -1}], r"rm_disclosive\[0\]: denom_lim"),
        ("x", 'expected {"target"'),
    ):
        with pytest.raises(ds.InputError, match=message):
            sdc(o, o, rm_disclosive=value)
    with pytest.raises(ds.SchemaError, match="target 'y'"):
        sdc(o, o, rm_disclosive={"target": "y", "keys": ["k"]})


def test_cli_rm_disclosive_and_measure(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from discosql.cli.main import main

    original = str(oracle.ORACLE / "sd2011.csv")
    syn = str(oracle.ORACLE / "syn_1.csv")
    argv = [
        "sdc",
        original,
        syn,
        "--keys",
        "sex,age,region",
        "--rm-disclosive",
        "depress",
        "--rm-disclosive",
        "marital:sex,age",
        "--measure",
        "depress",
        "--out",
        str(tmp_path),
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    ref = sdc(
        original,
        syn,
        keys=["sex", "age", "region"],
        rm_disclosive=[{"target": "depress"}, {"target": "marital", "keys": ["sex", "age"]}],
        measure={"targets": ["depress"]},
    )
    for row in ref.removed.to_pylist():
        assert f"{row['reason']}  {row['rows']:>4}" in printed
    assert ref.after is not None
    assert f"After\n{ref.after}" in printed
    assert "depress     14.96      0.00" in printed  # DiSCO over the same keys is gone


# --- out= tables --------------------------------------------------------------------------------
def _writes_duckdb_tables(engine_case: Loaded, tmp_path: Any) -> None:
    """out=FILE.duckdb: one table per synthesis in that database file (created), holding what
    the in-memory result holds; existing tables are refused before any data is read."""
    import duckdb

    original = str(oracle.ORACLE / "sd2011.csv")
    syn = [str(oracle.ORACLE / f"syn_{i}.csv") for i in (1, 2)]
    ref = sdc(original, syn, **ENGINE_KW)
    db = str(tmp_path / "release.duckdb")
    res = sdc(original, syn, out=db, **ENGINE_KW)
    assert res.out == ("synthetic_1", "synthetic_2")
    assert res.removed.equals(ref.removed)
    with duckdb.connect(db, read_only=True) as con:
        for j, name in enumerate(res.out):
            got = con.sql(f'SELECT * FROM "{name}"').to_arrow_table()
            assert got.to_pylist() == ref.synthetic[j].to_pylist()
    with pytest.raises(ds.InputError, match=r"'synthetic_2' exists in .*overwrite=True"):
        sdc("missing.csv", ["missing.csv", "missing.csv"], out=db)
    mine = sdc(
        original, syn[0], out=db, out_table="mine", measure={"targets": ["depress"]}, **ENGINE_KW
    )
    assert mine.out == ("mine",)
    assert mine.after is not None
    measure = {"targets": ["depress"]}
    on_tables = sdc(original, syn, out=db, overwrite=True, measure=measure, **ENGINE_KW)
    in_memory = sdc(original, syn, measure=measure, **ENGINE_KW)
    assert on_tables.after is not None
    assert in_memory.after is not None
    assert on_tables.after.table.equals(in_memory.after.table)


def test_sdc_out_table_is_checked_first() -> None:
    for kw, message in (
        ({"out_table": "t_{synthesis}"}, "DuckDB runs in memory here"),
        ({"out": "x.parquet", "out_table": "t"}, "not next to the files"),
        ({"out": "x.duckdb", "out_table": "t"}, "names one table for 2 syntheses"),
        ({"out_table": ""}, "expected a table name"),
    ):
        with pytest.raises(ds.InputError, match=message):
            sdc("missing.csv", ["missing.csv", "missing.csv"], **kw)


def _written_rows(engine_result: tuple[Any, ...], tables: list[pa.Table]) -> None:
    """The tables written hold the kept records of the in-memory result (as sorted text)."""
    assert [sorted(map(str, t.to_pylist())) for t in tables] == engine_result[2]


def _writes_postgres_tables(engine_case: Loaded, tmp_path: Any) -> None:
    """PostgreSQL: new tables in the database; the inputs are unchanged; no overwrite unless
    asked."""
    import psycopg

    from .. import engine_data

    pg_dsn = engine_case.server
    engine_data.load_postgres(pg_dsn, engine_data.oracle_tables())
    with psycopg.connect(pg_dsn, autocommit=True) as con:
        con.execute('DROP TABLE IF EXISTS "sdc out 1", "sdc out 2"')
    kw = {**ENGINE_KW, "out_table": "sdc out {synthesis}"}
    res = sdc("sd2011", ["syn_1", "syn_2"], engine=pg_dsn, **kw)
    assert res.out == ("sdc out 1", "sdc out 2")
    tables = []
    with psycopg.connect(pg_dsn) as con:
        for name in res.out:
            cur = con.execute(f'SELECT * FROM "{name}"')
            names = [d.name for d in cur.description or []]
            tables.append(
                pa.Table.from_pylist([dict(zip(names, r, strict=True)) for r in cur.fetchall()])
            )
        n_syn = con.execute("SELECT count(*) FROM syn_1").fetchone()
    assert n_syn == (5000,)
    _written_rows(_duckdb_result(), tables)
    with pytest.raises(ds.InputError, match="'sdc out 1' exists"):
        sdc("sd2011", ["syn_1", "syn_2"], engine=pg_dsn, **kw)
    again = sdc("sd2011", ["syn_1", "syn_2"], engine=pg_dsn, overwrite=True, **kw)
    assert again.removed.equals(res.removed)


def _writes_spark_tables(engine_case: Loaded, tmp_path: Any) -> None:
    from .. import engine_data

    spark = engine_case.server

    paths = engine_data.write_parquet(tmp_path, engine_data.oracle_tables())
    spark.sql("DROP TABLE IF EXISTS sdc_out_1").collect()
    spark.sql("DROP TABLE IF EXISTS sdc_out_2").collect()
    kw = {**ENGINE_KW, "out_table": "sdc_out_{synthesis}"}
    syn = [paths["syn_1"], paths["syn_2"]]
    res = sdc(paths["sd2011"], syn, engine=ds.spark(spark), **kw)
    tables = [spark.table(name).toArrow() for name in res.out]
    _written_rows(_duckdb_result(), tables)
    with pytest.raises(ds.InputError, match="'sdc_out_1' exists"):
        sdc(paths["sd2011"], syn, engine=ds.spark(spark), **kw)
    # overwritten by a shorter run (a sdc run on Spark costs its statements): its records
    cheap = {"keys": ENGINE_KW["keys"], "rm_replicated_uniques": True}
    again = sdc(
        paths["sd2011"],
        syn,
        engine=ds.spark(spark),
        overwrite=True,
        out_table=kw["out_table"],
        **cheap,
    )
    want = sdc(paths["sd2011"], syn, **cheap)
    written = [sorted(map(str, spark.table(name).toArrow().to_pylist())) for name in again.out]
    assert written == [sorted(map(str, t.to_pylist())) for t in want.synthetic]


@on_engines("duckdb", "postgres", "spark")
def test_sdc_writes_an_engines_tables(engine_case: Loaded, tmp_path: Any) -> None:
    """out= (a DuckDB database file) or out_table= (a server's tables): one table per
    synthesis, holding the in-memory result's records; an existing table is refused unless
    overwrite=True."""
    writes = {
        "duckdb": _writes_duckdb_tables,
        "postgres": _writes_postgres_tables,
        "spark": _writes_spark_tables,
    }
    writes[engine_case.case.name](engine_case, tmp_path)


def test_sdc_streams_within_a_memory_limit(tmp_path: Any) -> None:
    """The streaming path: 300k synthetic records written to Parquet by an engine with a 128 MB
    memory limit and one thread give the file the unlimited engine writes (the records never
    come into Python). 128 MB, not less: DuckDB's grouping of these 537k cells needs about
    50 MiB of its buffer, and at 64 MB (48.8 MiB for DuckDB) it failed one run in two."""
    import duckdb
    import pyarrow.parquet as pq

    con = duckdb.connect()
    for name, seed in (("o", 1), ("s", 2)):
        con.execute(
            f"COPY (SELECT (hash(i * {seed}) % 90)::BIGINT AS age, (hash(i + {seed}) % 7)::BIGINT"
            f" AS region, (hash(i - {seed}) % 2000)::BIGINT AS zone,"
            f" (hash(i * 31 + {seed}) % 5)::VARCHAR AS t FROM range(300000) r(i))"
            " TO $p (FORMAT parquet)",
            {"p": str(tmp_path / f"{name}.parquet")},
        )
    o, s = str(tmp_path / "o.parquet"), str(tmp_path / "s.parquet")
    kw: dict[str, Any] = {
        "keys": ["age", "region", "zone"],
        "rm_replicated_uniques": True,
        "rm_disclosive": {"target": "t"},
    }
    small = ds.duckdb(threads=1, memory_limit="128MB", temp_directory=str(tmp_path / "spill"))
    limited = sdc(o, s, out=str(tmp_path / "limited.parquet"), engine=small, **kw)
    free = sdc(o, s, out=str(tmp_path / "free.parquet"), **kw)
    assert limited.removed.equals(free.removed)
    assert sum(limited.removed.column("rows").to_pylist()) > 0
    assert pq.read_table(limited.out[0]).equals(pq.read_table(free.out[0]))


MEASURE: dict[str, Any] = {"targets": ["depress", "income"], "ngroups_targets": {"income": 4}}


def _measured(engine: Any, names: dict[str, str], dry_run: bool) -> tuple[Any, ...]:
    res = sdc(
        names["sd2011"],
        [names["syn_1"], names["syn_2"]],
        engine=engine,
        measure=MEASURE,
        dry_run=dry_run,
        label="fake",  # the label is no target, and the protected data are measured without it
        **ENGINE_KW,
    )
    assert res.before is not None
    assert res.after is not None
    return res.removed.to_pylist(), res.before.table, res.after.table


@on_engines()
def test_sdc_measured_where_the_data_are(engine_case: Loaded) -> None:
    """measure=: the protected syntheses are measured on the engine that made them (work
    tables, dropped with the call), also in a dry run; the numbers are those of
    disclosure_summary on the protected data returned by DuckDB."""
    from .. import engine_data

    names = {n: str(oracle.ORACLE / f"{n}.csv") for n in ("sd2011", "syn_1", "syn_2")}
    ref = sdc(names["sd2011"], [names["syn_1"], names["syn_2"]], **ENGINE_KW)
    expected = ds.disclosure_summary(
        names["sd2011"], ref.synthetic, keys=ENGINE_KW["keys"], **MEASURE
    )
    engine, loaded = engine_case.load(engine_data.oracle_tables())
    # Spark runs the dry run alone: its SQL is the other run's but for the read-back of the
    # protected tables, which test_sdc_on_every_engine checks on Spark (each run of sdc with
    # its measures is some 130 s there)
    for dry_run in (True,) if engine_case.case.name == "spark" else (False, True):
        removed, before, after = _measured(engine, loaded, dry_run)
        assert removed == ref.removed.to_pylist()
        assert after.column_names == expected.table.column_names
        for got, want in zip(after.to_pylist(), expected.table.to_pylist(), strict=True):
            for col, value in want.items():
                assert_value(got[col], value, f"after {col}")
        assert before.num_rows == after.num_rows
