"""Every kind of input gives the same numbers, and inputs are only read."""

from __future__ import annotations

import math
import re
import shutil
import warnings
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import discosql as ds
from discosql.engines.duckdb import file_reader

from . import oracle
from .helpers.compare import assert_same_rows

KEYS = ["sex", "age", "region", "placesize"]


@pytest.fixture(scope="module")
def tables() -> tuple[pa.Table, list[pa.Table]]:
    con = duckdb.connect()
    read = f"select * from {file_reader('csv', 'p')}"  # as discosql's DuckDB engine reads CSV
    orig = con.sql(read, params={"p": oracle.original_path()}).to_arrow_table()
    syns = [
        con.sql(read, params={"p": p}).to_arrow_table() for p in oracle.synthetic_paths("s5")[:2]
    ]
    return orig, syns


@pytest.fixture(scope="module")
def reference(tables: tuple[pa.Table, list[pa.Table]]) -> ds.DisclosureResult:
    orig, syns = tables
    return ds.disclosure(orig, syns, keys=KEYS, target="depress")


RESULTS = ("ident", "attrib", "allcaps", "exclusions")  # compared exactly


def test_csv_paths(reference: ds.DisclosureResult) -> None:
    res = ds.disclosure(
        oracle.original_path(), oracle.synthetic_paths("s5")[:2], keys=KEYS, target="depress"
    )
    assert_same_rows(res, reference, RESULTS)


def test_parquet_file_glob_and_directory(
    tmp_path: Path, tables: tuple[pa.Table, list[pa.Table]], reference: ds.DisclosureResult
) -> None:
    orig, syns = tables
    pq.write_table(orig, tmp_path / "orig.parquet")
    parts = tmp_path / "syn1"
    parts.mkdir()
    half = syns[0].num_rows // 2
    pq.write_table(syns[0].slice(0, half), parts / "a.parquet")
    pq.write_table(syns[0].slice(half), parts / "b.parquet")
    pq.write_table(syns[1], tmp_path / "syn2.parquet")
    res = ds.disclosure(
        tmp_path / "orig.parquet",
        [str(parts / "*.parquet"), str(tmp_path / "syn2.parquet")],
        keys=KEYS,
        target="depress",
    )
    assert_same_rows(res, reference, RESULTS)
    res = ds.disclosure(
        str(tmp_path / "orig.parquet"),
        [str(parts), str(tmp_path / "syn2.parquet")],
        keys=KEYS,
        target="depress",
    )
    assert_same_rows(res, reference, RESULTS)


def test_pandas_reader_and_relation(
    tables: tuple[pa.Table, list[pa.Table]], reference: ds.DisclosureResult
) -> None:
    orig, syns = tables
    con = duckdb.connect()
    rel = con.from_arrow(syns[1])
    res = ds.disclosure(
        orig.to_pandas(),
        [pa.RecordBatchReader.from_batches(syns[0].schema, syns[0].to_batches()), rel],
        keys=KEYS,
        target="depress",
    )
    assert_same_rows(res, reference, RESULTS)


def test_duckdb_database_table(
    tmp_path: Path, tables: tuple[pa.Table, list[pa.Table]], reference: ds.DisclosureResult
) -> None:
    orig, syns = tables
    db = tmp_path / "census.duckdb"
    con = duckdb.connect(str(db))
    con.register("o", orig)
    con.execute('CREATE SCHEMA "my schema"')
    con.execute('CREATE TABLE "my schema"."original data" AS SELECT * FROM o')
    for i, s in enumerate(syns, start=1):
        con.register("s", s)
        con.execute(f"CREATE TABLE syn_{i} AS SELECT * FROM s")
    con.close()
    before = db.read_bytes()
    res = ds.disclosure(
        ds.duckdb_table(db, "original data", schema="my schema"),
        [ds.duckdb_table(db, "syn_1"), ds.duckdb_table(db, "syn_2")],
        keys=KEYS,
        target="depress",
    )
    assert_same_rows(res, reference, RESULTS)
    assert db.read_bytes() == before  # attached read-only, never modified


def test_column_order_and_widths_may_differ(
    tables: tuple[pa.Table, list[pa.Table]], reference: ds.DisclosureResult
) -> None:
    orig, syns = tables
    reordered = syns[0].select(list(reversed(syns[0].column_names)))
    widths = reordered.set_column(
        reordered.column_names.index("age"), "age", pc.cast(reordered["age"], pa.float64())
    )
    widths = widths.set_column(
        widths.column_names.index("depress"), "depress", pc.cast(widths["depress"], pa.int16())
    )
    res = ds.disclosure(orig, [widths, syns[1]], keys=KEYS, target="depress")
    assert_same_rows(res, reference, RESULTS)


def test_inputs_are_not_modified(tmp_path: Path, tables: tuple[pa.Table, list[pa.Table]]) -> None:
    orig, _ = tables
    df = orig.to_pandas()
    copy = df.copy()
    path = tmp_path / "syn.csv"
    shutil.copy(oracle.synthetic_paths("s5")[0], path)
    before = path.read_bytes()
    ds.disclosure(df, str(path), keys=KEYS, target="income", ngroups_target=5)
    assert df.equals(copy)
    assert path.read_bytes() == before


def test_empty_synthesis_gives_nan_with_a_warning(tables: tuple[pa.Table, list[pa.Table]]) -> None:
    orig, syns = tables
    with pytest.warns(ds.DiscoSQLWarning, match="synthetic 2: the data set has no rows"):
        res = ds.disclosure(orig, [syns[0], syns[0].slice(0, 0)], keys=KEYS, target="depress")
    assert math.isnan(res.value("UiS", 2))
    assert math.isnan(res.value("Dsyn", 2))
    assert math.isnan(res.value("CAPs", 2))
    assert math.isnan(res.value("TCAP", 2))
    assert math.isnan(res.value("mean_denom", 2))
    assert res.value("repU", 2) == 0.0
    assert res.value("UiO", 2) == res.value("UiO", 1)


def test_result_shapes(reference: ds.DisclosureResult) -> None:
    assert reference.ident.column_names == ["synthesis", "UiO", "UiS", "UiOiS", "repU"]
    assert reference.attrib.column_names == [
        "synthesis",
        "Dorig",
        "Dsyn",
        "iS",
        "DiS",
        "DiSCO",
        "DiSDiO",
        "max_denom",
        "mean_denom",
    ]
    assert reference.allcaps.column_names == [
        "synthesis",
        "baseCAPd",
        "CAPd",
        "CAPs",
        "DCAP",
        "TCAP",
        "TCAP_little",
    ]
    assert reference.measures.column_names == ["target", "synthesis", "group", "measure", "value"]
    assert reference.measures.num_rows == 18 * 2
    assert reference.disco_curve.column_names == ["synthesis", "ps", "DiSCO"]
    assert reference.disco_tau.column_names == ["synthesis", "tau", "DiSCO"]
    assert reference.exclusions.num_rows == 8 * 6 * 2
    assert reference.check_1way.column_names == [
        "synthesis",
        "Level",
        "All",
        "PctLevelAll",
        "totalDisclosive",
        "nLevelDis",
        "PctLevelDis",
    ]
    assert reference.check_2way.column_names == [
        "synthesis",
        "target_key_levs",
        "npairs",
        "key",
        "key_target_total",
        "key_total",
        "PctTargetKeyLevel",
    ]
    assert reference.ident.column("synthesis").to_pylist() == [1, 2]
    assert reference.exclusions.schema.field("count").type == pa.int64()
    assert reference.ident.schema.field("UiO").type == pa.float64()
    for table in (reference.ident, reference.attrib, reference.allcaps):
        assert all(t == pa.float64() for t in table.schema.types[1:])
    text = str(reference)
    assert "Synthetic 2" in text
    assert "48.38" in text


def test_labels_follow_synthpop(tmp_path: Path) -> None:
    """Integral numbers are levels without decimals, whatever the storage type."""
    orig = pa.table({"k": ["a", "a", "b", "c", "c"], "t": pa.array([57, 57, 3, 4, 4], pa.int64())})
    syn = pa.table({"k": ["a", "b", "b", "c"], "t": pa.array([57.0, 3.0, 3.0, 4.0], pa.float64())})
    res = ds.disclosure(orig, syn, keys=["k"], target="t", not_targetlev="57", thresh_1way=(0, 0))
    levels: Any = res.check_1way.column("Level").to_pylist()
    assert levels == ["4"]  # DiSCO records: "3" 1 (int 3 matches 3.0), "4" 2
    ex = {(r["table"], r["reason"]): r["count"] for r in res.exclusions.to_pylist()}
    assert ex["original", "excluded target"] == 2
    assert ex["synthetic", "excluded target"] == 1


def test_unreadable_inputs_are_input_errors(tmp_path: Path) -> None:
    """Each problem names the data set and what is wrong, before any measure runs."""
    good = tmp_path / "good.parquet"
    pq.write_table(pa.table({"a": ["x", "y"], "t": ["p", "q"]}), good)
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "blank.csv").write_text("\n\n")
    (tmp_path / "bad.parquet").write_text("not parquet")
    (tmp_path / "none").mkdir()
    twice = pa.Table.from_arrays(
        [pa.array(["x", "y"])] * 2 + [pa.array(["p", "q"])], names=["a", "a", "t"]
    )
    cases = {
        str(tmp_path / "empty.csv"): "original: empty file",
        str(tmp_path / "blank.csv"): "original: empty file",
        str(tmp_path / "bad.parquet"): "original: cannot read the data",
        str(tmp_path / "no*.parquet"): "original: no file matches",
        str(tmp_path / "none"): "has no Parquet file",
    }
    for path, message in cases.items():
        with pytest.raises(ds.InputError, match=re.escape(message)):
            ds.disclosure(path, str(good), keys=["a"], target="t")
    with pytest.raises(ds.InputError, match=re.escape("synthetic: columns ['a'] appear more")):
        ds.disclosure(str(good), twice, keys=["a"], target="t")
    with pytest.raises(ds.InputError, match=re.escape("original: columns ['a'] appear more")):
        ds.disclosure(twice.to_pandas(), str(good), keys=["a"], target="t")


def test_files_that_repeat_a_column_name(tmp_path: Path) -> None:
    """DuckDB reads a repeated name as a, a_1: the key 'a' would silently be the first copy."""
    twice = pa.Table.from_arrays(
        [pa.array([1, 2]), pa.array([3, 4]), pa.array(["x", "y"])], names=["a", "a", "t"]
    )
    pq.write_table(twice, tmp_path / "twice.parquet")
    (tmp_path / "twice.csv").write_text("a;a;t\n1;3;x\n2;4;y\n")
    (tmp_path / "fine.csv").write_text("a;a_1;t\n1;3;x\n2;4;y\n")  # a real column a_1
    for name in ("twice.parquet", "twice.csv"):
        path = str(tmp_path / name)
        message = f"synthetic: columns ['a'] appear more than once in {path!r}"
        with pytest.raises(ds.InputError, match=re.escape(message) + ".*reads the copies as"):
            ds.disclosure(str(tmp_path / "fine.csv"), path, keys=["a"], target="t")
    fine = str(tmp_path / "fine.csv")
    assert ds.disclosure(fine, fine, keys=["a", "a_1"], target="t").value("UiO") == 100.0


@pytest.mark.parametrize(
    "values",
    [[1.5, math.nan, math.nan], [1.0, math.nan], [1.0, 2.0, 3.0, 4.0, math.nan]],
    ids=["two-nans", "one-nan", "grouped"],
)
def test_nan_in_parquet_is_missing_as_in_arrow(tmp_path: Path, values: list[float]) -> None:
    """NaN is 'Missing' when the data come from Parquet too (DuckDB pruned `x = NaN` filters
    with Parquet statistics, which leave NaN out: NaN became a level 'nan')."""
    table = pa.table(
        {
            "k": values,
            "j": ["a", "b"] * (len(values) // 2) + ["a"] * (len(values) % 2),
            "t": ["p", "q", "p", "q", "p"][: len(values)],
        }
    )
    path = tmp_path / "nan.parquet"
    pq.write_table(table, path)
    grouped = {"ngroups_keys": [2, 0]} if len(values) == 5 else {}
    kw: dict[str, Any] = {"keys": ["k", "j"], "target": "t", "use_keys_na": False, **grouped}
    want = ds.disclosure(table, table, **kw)
    got = ds.disclosure(str(path), str(path), **kw)
    for name in ("ident", "attrib", "exclusions", "check_2way"):
        assert getattr(got, name).to_pylist() == getattr(want, name).to_pylist(), name
    excluded = {(r["table"], r["reason"]): r["count"] for r in got.exclusions.to_pylist()}
    assert excluded["original", "missing in keys"] == sum(v != v for v in values)
    if grouped:
        assert "nan" not in str(got.groupings["k"].labels).lower()


class _ArrowProducer:
    """Any library's data through the Arrow PyCapsule stream interface (as polars exposes it)."""

    def __init__(self, table: pa.Table) -> None:
        self.table = table

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self.table.__arrow_c_stream__(requested_schema)


def test_any_arrow_stream_producer(
    tables: tuple[pa.Table, list[pa.Table]], reference: ds.DisclosureResult
) -> None:
    orig, syns = tables
    res = ds.disclosure(
        _ArrowProducer(orig), [_ArrowProducer(s) for s in syns], keys=KEYS, target="depress"
    )
    assert_same_rows(res, reference, RESULTS)
    twice = pa.Table.from_arrays([pa.array(["x"])] * 3, names=["a", "a", "t"])
    with pytest.raises(ds.InputError, match=re.escape("original: columns ['a'] appear more")):
        ds.disclosure(_ArrowProducer(twice), orig, keys=["a"], target="t")


def test_polars_frames(
    tables: tuple[pa.Table, list[pa.Table]], reference: ds.DisclosureResult, tmp_path: Path
) -> None:
    """A polars DataFrame (scanned through Arrow) and LazyFrame give the Parquet numbers."""
    import polars as pl

    orig, syns = tables
    res = ds.disclosure(
        pl.from_arrow(orig), [pl.from_arrow(s).lazy() for s in syns], keys=KEYS, target="depress"
    )
    assert_same_rows(res, reference, RESULTS)
    paths = []
    for i, table in enumerate([orig, *syns]):
        paths.append(str(tmp_path / f"{i}.parquet"))
        pq.write_table(table, paths[-1])
    assert_same_rows(
        ds.disclosure(paths[0], paths[1:], keys=KEYS, target="depress"), reference, RESULTS
    )


def test_empty_strings_without_missing_values_warn(tmp_path: Path) -> None:
    """A CSV->Parquet conversion that wrote missing text as '' is a common trap: '' is a level
    of its own then. Warn when a text key or target has '' and no NULL; not when it has NULLs
    (then '' was meant), and not for a column without ''."""
    trap = pa.table(
        {"k": ["a", "", "b", "a"], "t": ["x", "y", "x", "x"], "u": ["x", "", None, "y"]}
    )
    path = str(tmp_path / "trap.parquet")
    pq.write_table(trap, path)
    with pytest.warns(ds.DiscoSQLWarning, match=r"column 'k': has empty strings \(''\)") as got:
        res = ds.disclosure(path, path, keys=["k"], target="t")
    assert len(got) == 1  # t has no '', so no warning for it
    assert res.value("UiO") == 50.0  # '' is one level: a, '', b, a has 2 uniques of 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds.disclosure(path, path, keys=["u"], target="t")  # u has '' and a NULL: no warning


def test_a_count_that_fails_names_its_data_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The data sets are counted in one statement; when that fails, each is counted alone, so
    the error names the data set that cannot be read."""
    from discosql.engines.duckdb import DuckDBEngine
    from discosql.errors import EngineError

    o = pa.table({"k": ["a", "b"], "t": ["x", "y"]})
    pq.write_table(o, tmp_path / "s2.parquet")
    query = DuckDBEngine._query_small
    seen: list[str] = []

    def failing(self: DuckDBEngine, sql: str, params: dict[str, Any]) -> pa.Table:
        if "count(*)" in sql:
            seen.append(sql)
            if any(str(v).endswith("s2.parquet") for v in params.values()):
                raise EngineError("unreadable")
        return query(self, sql, params)

    monkeypatch.setattr(DuckDBEngine, "_query_small", failing)
    with pytest.raises(ds.InputError, match=r"^synthetic 2: cannot read the data: .*unreadable"):
        ds.disclosure(o, [o, str(tmp_path / "s2.parquet"), o], "k", "t")
    assert "UNION ALL" in seen[0]  # one statement first, then one per data set
    assert len(seen) == 1 + 3


# Each engine's own type names (DuckDB's DESCRIBE, PostgreSQL's format_type, Spark's
# simpleString, SQLite's affinity) and the kind sqlglot's type parser sorts them into.
KINDS = [
    ("duckdb", "BIGINT", "integer"),
    ("duckdb", "UHUGEINT", "integer"),
    ("duckdb", "DECIMAL(18,3)", "float"),
    ("duckdb", "VARCHAR", "text"),
    ("duckdb", "ENUM('a', 'b')", "text"),
    ("duckdb", "VARCHAR COLLATE NOCASE", "text"),
    ("duckdb", "BOOLEAN", "boolean"),
    ("duckdb", "TIMESTAMP_NS", "other"),
    ("duckdb", "UUID", "other"),
    ("duckdb", '"NULL"', "null"),
    ("duckdb", "INTEGER[]", None),
    ("duckdb", "STRUCT(a INTEGER)", None),
    ("duckdb", "BIT", None),
    ("duckdb", "BLOB", None),
    ("postgres", "integer", "integer"),
    ("postgres", "double precision", "float"),
    ("postgres", "numeric", "float"),
    ("postgres", "character varying", "text"),
    ("postgres", "character", "text"),
    ("postgres", "name", "text"),
    ("postgres", "timestamp with time zone", "other"),
    ("postgres", "money", None),
    ("postgres", "jsonb", None),
    ("postgres", "mood", None),
    ("spark", "int", "integer"),
    ("spark", "decimal(10,2)", "float"),
    ("spark", "string", "text"),
    ("spark", "timestamp_ntz", "other"),
    ("spark", "void", "null"),
    ("spark", "array<int>", None),
    ("sqlite", "BIGINT", "integer"),
    ("sqlite", "DOUBLE", "float"),
    ("sqlite", "TEXT", "text"),
]


@pytest.mark.parametrize(("dialect", "native", "kind"), KINDS)
def test_column_kinds_from_each_engines_type_names(
    dialect: str, native: str, kind: str | None
) -> None:
    from discosql.sql.types import column_kind

    assert column_kind(native, dialect) == kind


def test_a_users_duckdb_connection(tmp_path: Path) -> None:
    """engine=<a DuckDB connection>: names are its tables (schema-qualified too), the numbers
    are the embedded engine's, and the connection is left as it was: open, its settings and
    its own temporary table kept, no discosql object in it."""
    keys, targets = ["sex", "age", "region"], ["depress", "marital"]
    bundled = Path(ds.__file__).parent / "data"
    orig, syn = str(bundled / "sd2011.parquet"), str(bundled / "syn_1.parquet")
    con = duckdb.connect(str(tmp_path / "survey.duckdb"))
    con.execute("CREATE TABLE persons AS SELECT * FROM read_parquet($p)", {"p": orig})
    con.execute("CREATE SCHEMA syn")
    con.execute("CREATE TABLE syn.s1 AS SELECT * FROM read_parquet($p)", {"p": syn})
    con.execute("CREATE TEMP TABLE mine AS SELECT 1 AS x")
    threads = con.execute("SELECT current_setting('threads')").fetchone()
    got = ds.disclosure_summary("persons", "syn.s1", keys, targets, engine=con)
    ref = ds.disclosure_summary(orig, syn, keys, targets)
    assert got.table.equals(ref.table)
    risk, risk_ref = ds.risk("persons", keys, engine=con), ds.risk(orig, keys)
    assert str(risk.summary.to_pylist()) == str(risk_ref.summary.to_pylist())  # NaN as text
    assert risk.records is not None
    assert risk.records.equals(risk_ref.records)  # in the table's own row order
    suda = ds.suda("persons", keys, engine=con)
    assert suda.dis_table.equals(ds.suda(orig, keys).dis_table)
    with pytest.raises(ds.InputError, match="cannot read the data"):
        ds.risk("nobody", keys, engine=con)
    with pytest.raises(ds.InputError, match="does not reconfigure a DuckDB connection"):
        ds.risk("persons", keys, engine=con, threads=2)
    left = con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE table_name LIKE '%disco%' "
        "UNION ALL SELECT view_name FROM duckdb_views() WHERE view_name LIKE '%disco%'"
    ).fetchall()
    assert left == []
    assert con.execute("SELECT x FROM mine").fetchall() == [(1,)]
    assert con.execute("SELECT current_setting('threads')").fetchone() == threads
    con.close()


def test_a_users_sqlite3_connection(tmp_path: Path) -> None:
    """engine=<a sqlite3 connection>: the embedded engine's numbers, the connection left
    open with no temporary table; one with a transaction open is refused, not ended."""
    import sqlite3

    from . import engine_data

    bundled = Path(ds.__file__).parent / "data"
    tables = {n: pq.read_table(bundled / f"{n}.parquet") for n in ("sd2011", "syn_1")}
    con = sqlite3.connect(engine_data.write_sqlite(tmp_path / "survey.db", tables))
    keys = ["sex", "age", "region"]
    got = ds.disclosure("sd2011", "syn_1", keys=keys, target="depress", engine=con)
    ref = ds.disclosure(tables["sd2011"], tables["syn_1"], keys=keys, target="depress")
    for name in ("ident", "attrib", "allcaps"):  # SQLite sums doubles: to 1e-12
        for a, b in zip(
            getattr(got, name).to_pylist(), getattr(ref, name).to_pylist(), strict=True
        ):
            assert a.keys() == b.keys()
            assert all(math.isclose(a[k], b[k], rel_tol=1e-12) for k in a), (name, a, b)
    assert con.execute("SELECT count(*) FROM sqlite_temp_master").fetchone() == (0,)
    con.execute("BEGIN")
    with pytest.raises(ds.InputError, match="transaction open"):
        ds.risk("sd2011", keys, engine=con)
    con.rollback()
    con.close()


def test_a_target_with_no_known_value_warns() -> None:
    """A target missing in every record of both sides ranks riskiest (Dorig 100) although an
    intruder learns nothing: a warning says so; a target with one known value does not warn."""
    keys = {"a": [1, 2, 3, 1, 2] * 4, "b": ["x", "y"] * 10}
    empty = pa.table({**keys, "e": pa.array([None] * 20, pa.string())})
    with pytest.warns(ds.DiscoSQLWarning, match="target 'e': every value is missing"):
        res = ds.disclosure(empty, empty, keys=["a", "b"], target="e")
    assert res.attrib.column("Dorig").to_pylist() == [100.0]
    one = pa.table({**keys, "e": pa.array(["v"] + [None] * 19, pa.string())})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds.disclosure(one, one, keys=["a", "b"], target="e")


def test_report_options_read_as_written() -> None:
    from discosql.report.sections.provenance import shown

    assert shown(None) == "none"
    assert shown((50, 90)) == "50, 90"
    assert shown(False) == "no"
    assert shown({"income": 5}) == "income: 5"
    assert shown([]) == "none"
