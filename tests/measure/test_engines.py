"""The same measures on every engine: PostgreSQL, SQLite and Spark must equal DuckDB (the
reference, itself checked against synthpop in test_oracle.py) on the SD2011 fixture cases.

SQLite (no server) runs every oracle case; PostgreSQL a representative subset of about ten
and Spark (slow to start a query) two calls; test_engine_subsets_cover_the_options checks that the
subsets really cover the options named below. Nothing here is skipped: if an engine cannot start,
its tests fail. The default run deselects the engine tests (markers ``postgres`` and ``spark``,
added in conftest.py); ``python -m pytest -m ""`` runs them.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

import discosql as ds
from discosql.core.results import RESULT_TABLES

from .. import engine_data, oracle
from ..helpers.compare import assert_same, assert_value
from ..helpers.engines import Loaded, on_engines, on_engines_each
from ..helpers.oracle import CALLS, call_kwargs, replay

TABLES = (*(t.name for t in RESULT_TABLES), "measures")

# PostgreSQL: ~5 s a call; these ten between them cover every option of disclosure().
PG_CALLS = [
    ("sd_depress_default", "depress"),  # m = 5, defaults (the vignette's call)
    ("sd_workab_s1cna", "workab"),  # m = 1, a cont.na code; both checks fire
    ("sd_income_ngroups20_cna", "income"),  # quantile grouping of the target with cont.na
    ("sd_depress_ngroups_keys_and_target", "depress"),  # grouping of keys and target
    ("sd_workab_all_exclusions", "workab"),  # every exclusion step, usekeysNA = FALSE
    ("sd_marital_exclude", "marital"),  # key/target exclusions (a key repeated); check2 fires
    ("sd_ls_thresholds", "ls"),  # thresh_1way / thresh_2way; both checks fire
    ("sd_depress_keysNA_vector", "depress"),  # usekeysNA per key, NAs in a key
    ("sd_workab_nottargetlev", "workab"),  # not.targetlev; check1 fires on level Missing
    ("sd_depress_keysNA_order_quirk", "depress"),  # keys not in data order, per-key usekeysNA
]
# Spark: ~60 s a call (m = 5). Three calls cover m = 5 and m = 1, grouping of keys and target
# (the first), an exclusion step that removes records, a cont.na code and a check that fires
# (the second), exclude.* triples with non-empty check_1way and check_2way (the third). They
# also run on Spark in test_security.py and test_export.py (the exported script),
# disclosure_summary and the CAP family below.
SPARK_CALLS = [
    ("sd_depress_ngroups_keys_and_target", "depress"),  # m = 5; ngroups_keys and ngroups_target
    ("sd_multi_denom1_s1cna", "workab"),  # m = 1; cont.na, denom_lim exclusion, check1 fires
    ("sd_workab_exclude_region", "workab"),  # key/target exclusion; check1 and check2 fire
]

EXCLUSIONS = {
    "exclude_keys",
    "exclude_ov_denom_lim",
    "not_targetlev",
    "use_target_na=False",
    "use_keys_na=False",
}
SPARK_MUST_COVER = {
    "m=5",
    "m=1",
    "ngroups_keys",
    "ngroups_target",
    "an exclusion",
    "a check fires",
    "check1 fires",
    "check2 fires",
}
PG_MUST_COVER = (
    SPARK_MUST_COVER
    | EXCLUSIONS
    | {
        "cont_na",
        "thresh_1way",
        "thresh_2way",
        "check1 fires",
        "check2 fires",
        "keys not in data order",
    }
)


def _features(case_id: str, target: str) -> set[str]:
    """What an oracle call exercises, read from its arguments and synthpop's check flags."""
    kw, syn = call_kwargs(case_id, target)
    out = {f"m={len(syn)}"}
    for name in (
        "ngroups_keys",
        "ngroups_target",
        "cont_na",
        "not_targetlev",
        "exclude_keys",
        "thresh_1way",
        "thresh_2way",
    ):
        value = kw.get(name)
        if isinstance(value, list) and all(isinstance(v, int) for v in value):
            value = any(value)  # ngroups_keys = [0, 0, 0] groups nothing
        if value:
            out.add(name)
    if kw.get("denom_lim") and kw.get("exclude_ov_denom_lim"):
        out.add("exclude_ov_denom_lim")
    if kw.get("use_target_na") is False:
        out.add("use_target_na=False")
    use_keys_na = kw.get("use_keys_na", True)
    if use_keys_na is False or (isinstance(use_keys_na, list) and False in use_keys_na):
        out.add("use_keys_na=False")
    if kw["keys"] != sorted(kw["keys"], key=oracle.columns().index):
        out.add("keys not in data order")
    check1, check2 = oracle.expected_check_flags()[case_id, target]
    out |= {f"check{i} fires" for i, flag in ((1, check1), (2, check2)) if flag}
    if out & EXCLUSIONS:
        out.add("an exclusion")
    if check1 or check2:
        out.add("a check fires")
    return out


def _calls(chosen: list[tuple[str, str]]) -> list[Any]:
    return [pytest.param(c, t, id=f"{c}-{t}") for c, t in chosen]


@pytest.mark.parametrize(
    ("chosen", "must_cover"),
    [
        pytest.param(PG_CALLS, PG_MUST_COVER, id="postgres"),
        pytest.param(SPARK_CALLS, SPARK_MUST_COVER, id="spark"),
    ],
)
def test_engine_subsets_cover_the_options(
    chosen: list[tuple[str, str]], must_cover: set[str]
) -> None:
    """The PostgreSQL and Spark subsets are oracle calls and exercise the options they claim."""
    assert len(set(chosen)) == len(chosen)
    assert set(chosen) <= {(c, t) for c, t, _ in CALLS}
    covered = set().union(*(_features(c, t) for c, t in chosen))
    assert must_cover <= covered, f"not covered: {sorted(must_cover - covered)}"
    # and the tables compared are non-empty: an engine cannot pass on empty checks
    refs = [replay(c, t) for c, t in chosen]
    assert any(r.check_1way.num_rows for r in refs)
    assert any(r.check_2way.num_rows for r in refs)
    assert any(sum(r.exclusions.column("count").to_pylist()) for r in refs)


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return engine_data.oracle_tables()


@pytest.fixture(scope="module")
def pg(pg_dsn: str, data: dict[str, Any]) -> str:
    engine_data.load_postgres(pg_dsn, data)
    return pg_dsn


@pytest.fixture(scope="module")
def parquet(tmp_path_factory: pytest.TempPathFactory, data: dict[str, Any]) -> dict[str, str]:
    return engine_data.write_parquet(tmp_path_factory.mktemp("parquet"), data)


# SQLite: the first call of every oracle case (46 of the 68 calls: a multi.disclosure case's
# other targets differ only in the target column, and run on DuckDB against synthpop).
SQLITE_CALLS = list({c: (c, t) for c, t, _ in reversed(CALLS)}.values())[::-1]


def test_the_no_server_subset_is_every_oracle_case() -> None:
    """SQLite's subset: the first call of every oracle case."""
    assert {c for c, _ in SQLITE_CALLS} == {c for c, _, _ in CALLS}
    assert all((c, t) == next((c2, t2) for c2, t2, _ in CALLS if c2 == c) for c, t in SQLITE_CALLS)


@on_engines_each(
    ("case_id", "target"),
    {"sqlite": _calls(SQLITE_CALLS), "postgres": _calls(PG_CALLS), "spark": _calls(SPARK_CALLS)},
)
def test_an_engine_gives_the_reference_tables(
    engine_case: Loaded, data: dict[str, Any], case_id: str, target: str
) -> None:
    """Each engine's subset of the oracle calls gives DuckDB's tables."""
    kw, syn = call_kwargs(case_id, target)
    engine, names = engine_case.load({n: data[n] for n in ("sd2011", *syn)})
    got = ds.disclosure(
        names["sd2011"], [names[s] for s in syn], target=target, engine=engine, **kw
    )
    assert_same(got, replay(case_id, target), TABLES)


SUMMARY_KW: dict[str, Any] = {
    "keys": ["sex", "age", "region", "placesize"],
    "targets": ["depress", "income", "workab"],
    "ngroups_targets": {"income": 10},
    "not_targetlevs": {"workab": "NO"},
    # stacked targets (small data), each with exclusions of its own
    "use_targets_na": {"income": False},
    "exclude": {"depress": [("sex", "MALE", "0")]},
    "tau": [0.5, 0.8, 1],  # DiSCO(tau), stacked, with a bound value per certainty
}
SUMMARY_SYN = ["syn_1", "syn_2"]


@pytest.fixture(scope="module")
def summary_ref(parquet: dict[str, str]) -> ds.DisclosureSummary:
    """DuckDB's disclosure_summary (targets, grouping, per-target options), for each engine."""
    return ds.disclosure_summary(parquet["sd2011"], [parquet[s] for s in SUMMARY_SYN], **SUMMARY_KW)


def _assert_same_summary(got: ds.DisclosureSummary, ref: ds.DisclosureSummary) -> None:
    assert got.table.column("target").to_pylist() == ref.table.column("target").to_pylist()
    for target, res in ref.results.items():
        assert_same(got.results[target], res, TABLES)


@on_engines(exclude={"duckdb": "the reference"}, also=("spark_connect",))
def test_summary_on_every_engine(
    engine_case: Loaded, data: dict[str, Any], summary_ref: ds.DisclosureSummary
) -> None:
    engine, names = engine_case.load({n: data[n] for n in ("sd2011", *SUMMARY_SYN)})
    got = ds.disclosure_summary(
        names["sd2011"], [names[s] for s in SUMMARY_SYN], engine=engine, **SUMMARY_KW
    )
    _assert_same_summary(got, summary_ref)


def test_engine_argument_errors() -> None:
    with pytest.raises(ds.InputError, match="engine: 'oracle' is not an engine"):
        ds.disclosure("a", "b", keys=["sex"], target="depress", engine="oracle")
    with pytest.raises(ds.InputError, match="cannot connect to PostgreSQL"):
        ds.disclosure(
            "a", "b", keys=["sex"], target="depress", engine="postgresql://nobody@127.0.0.1:1/none"
        )


def test_small_results_on_duckdb() -> None:
    """DuckDB reads a small result through a table of its own (one bind, not two): the same
    rows in the same order and the same types as the relation path, no warning (the DB-API's
    Arrow output warns, which a caller's ``-W error`` would turn into a failure), and a
    second small query replaces the first one's table."""
    import warnings

    from discosql.engines.duckdb import DuckDBEngine

    engine = DuckDBEngine()
    sql = (
        "SELECT * FROM (VALUES (3, 'c', 1.5::DOUBLE, 10::BIGINT, 2::DECIMAL(38, 0)), "
        "(1, 'a', NULL, 2, NULL), (2, NULL, -0.0, NULL, 7)) AS t(i, s, f, b, d) "
        "ORDER BY i DESC"
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            small = engine.query(sql, {}, "test", small=True)
            again = engine.query("SELECT $x AS x", {"x": 5}, "test", small=True)
        assert small.equals(engine.query(sql, {}, "test"))
        assert small.column("i").to_pylist() == [3, 2, 1]
        assert again.to_pylist() == [{"x": 5}]
        with pytest.raises(ds.EngineError, match="stage bad failed on DuckDB"):
            engine.query("SELECT nope FROM (SELECT 1 AS x) AS t", {}, "bad", small=True)
    finally:
        engine.close()


def test_engine_arguments_once_the_engine_modules_are_loaded() -> None:
    """A DSN, a 'sqlite:///' path and a SparkSession name their engine also after a first run
    on it has imported discosql.engines.postgres / .sqlite / .spark (those submodules must not
    replace the factories postgres(), sqlite(), spark() that engine_spec calls)."""
    import importlib

    from discosql.engines import PostgresSpec, SparkSpec, SQLiteSpec, engine_spec

    for name in ("postgres", "sqlite", "spark"):
        importlib.import_module(f"discosql.engines.{name}")
    dsn = "postgresql://nobody@127.0.0.1:1/none"
    assert engine_spec(dsn) == PostgresSpec(dsn)
    assert engine_spec("sqlite:///oracle.db") == SQLiteSpec("oracle.db")
    session = type("SparkSession", (), {})()  # engine_spec goes by the class name
    assert engine_spec(session) == SparkSpec(session)


def test_postgres_input_errors(pg: str) -> None:
    with pytest.raises(ds.InputError, match="original: no table or view 'no_such_table'"):
        ds.disclosure("no_such_table", "syn_1", keys=["sex"], target="depress", engine=pg)
    with pytest.raises(ds.SchemaError, match="key 'sexx': not a column of the original"):
        ds.disclosure("sd2011", "syn_1", keys=["sexx"], target="depress", engine=pg)


def _cap_results(original: Any, synthetic: Any, control: Any, engine: Any) -> dict[str, Any]:
    """Every CAP function on one engine, as plain numbers and Arrow tables."""
    keys, kw = ["sex", "age", "region"], {"control": control, "engine": engine}
    out: dict[str, Any] = {}
    for fn in (ds.categorical_cap, ds.categorical_zero_cap, ds.categorical_generalized_cap):
        r = fn(original, synthetic, keys, ["depress", "marital"], **kw)
        out[fn.__name__] = (r.score, r.n_scored, r.control.score, r.excess_risk)
    dp = ds.disclosure_protection(
        original, synthetic, ["sex", "age"], "income", continuous_columns=["age", "income"], **kw
    )
    out["disclosure_protection"] = (dp.score, dp.cap_protection, dp.baseline_protection)
    t = ds.taub_tcap(original, synthetic, keys, "depress", tau=0.5, **kw)
    out["taub_tcap"] = (t.tcap, t.tcap_zero, t.n_kept, t.n_undefined, t.control.tcap)
    summ = ds.cap_summary(original, synthetic, keys, "depress", **kw)
    out["cap_summary"] = (summ.mean_cap, summ.mean_cap_matched, summ.majority_correct)
    records = ds.cap_records(original, synthetic, keys, "depress", **kw)
    out["cap_records"] = records.sort_by([(c, "ascending") for c in records.column_names[:4]])
    return out


def _assert_same_cap(got: dict[str, Any], ref: dict[str, Any]) -> None:
    for name, want in ref.items():
        if isinstance(want, tuple):
            for i, (u, v) in enumerate(zip(got[name], want, strict=True)):
                assert_value(u, v, f"{name}[{i}]")
        else:
            assert got[name].schema == want.schema, name
            for a, b in zip(got[name].to_pylist(), want.to_pylist(), strict=True):
                for col in b:
                    assert_value(a[col], b[col], f"{name}.{col}")


@pytest.fixture(scope="module")
def cap_ref(parquet: dict[str, str]) -> dict[str, Any]:
    """The CAP functions (joint target, binning, control) on DuckDB, for each engine."""
    return _cap_results(parquet["sd2011"], parquet["syn_1"], parquet["syn_2"], None)


@on_engines(exclude={"duckdb": "the reference"})
def test_cap_family_on_every_engine(
    engine_case: Loaded, data: dict[str, Any], cap_ref: dict[str, Any]
) -> None:
    engine, names = engine_case.load({n: data[n] for n in ("sd2011", "syn_1", "syn_2")})
    got = _cap_results(names["sd2011"], names["syn_1"], names["syn_2"], engine)
    _assert_same_cap(got, cap_ref)


FLOATS = [
    0.5,
    2.25,
    1e-5,
    -1.5e-5,
    0.00012345,
    0.0012345,
    12345678.9,
    123456789012.5,
    1e15 + 0.5,
    1e15,
    1.5e16 + 2,
    1.5e20,
    -0.25,
    -1e-7,
    1 / 3,
    2e-5 / 3,
    57.0,
    -3.0,
    float("inf"),
    float("-inf"),
    None,
]
# Ungrouped float values become the same level names on every engine: Python's repr (shortest
# round-trip), integral values without decimals, NA as 'Missing'.
FLOAT_LEVELS = sorted(
    "Missing" if v is None else str(int(v)) if abs(v) < 1e15 and v == int(v) else repr(v)
    for v in FLOATS
)


@pytest.fixture(scope="module")
def floats(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, str]:
    """The FLOATS table and its Parquet file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = len(FLOATS)
    table = pa.table({"k": ["a"] * n, "x": pa.array(FLOATS, pa.float64()), "i": list(range(n))})
    parquet = str(tmp_path_factory.mktemp("floats") / "floats.parquet")
    pq.write_table(table, parquet)
    return table, parquet


def _float_levels(original: Any, engine: Any) -> list[str]:
    rec = ds.cap_records(original, original, ["i"], "x", engine=engine)
    return sorted(rec.column("x").to_pylist())


@on_engines(
    exclude={
        "sqlite": "SQLite has no NaN (test_risk_engines.py)",
        "sqlite3_connection": "SQLite has no NaN",
        "adbc_sqlite": "SQLite has no NaN",
    }
)
def test_float_level_names(engine_case: Loaded, floats: tuple[Any, str]) -> None:
    engine, names = engine_case.load({"floats": floats[0]})
    assert _float_levels(names["floats"], engine) == FLOAT_LEVELS


@on_engines("postgres")  # a DSN names the engine; the postgres dialect exports
def test_the_cli_and_the_export_on_a_server(
    engine_case: Loaded, data: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`discosql disclosure --engine DSN` runs on the server; to_sql reads its tables at
    export time and its script, run there, gives the same tables."""
    import json

    import psycopg

    from discosql.cli.main import main

    engine_case.load({n: data[n] for n in ("sd2011", *(f"syn_{i}" for i in range(1, 6)))})
    pg = engine_case.server
    ref = replay("sd_depress_default", "depress")
    out = tmp_path / "ident.json"
    argv = [
        "disclosure",
        "sd2011",
        "syn_1",
        "syn_2",
        "syn_3",
        "syn_4",
        "syn_5",
        "--keys",
        "sex,age,region,placesize",
        "--target",
        "depress",
        "--engine",
        pg,
        "--format",
        "json",
        "--table",
        "ident",
        "--out",
        str(out),
    ]
    code = main(argv)
    assert code == 0, capsys.readouterr().err
    assert json.loads(out.read_text()) == ref.ident.to_pylist()

    script = ds.to_sql(
        "sd2011",
        [f"syn_{i}" for i in range(1, 6)],
        keys=["sex", "age", "region", "placesize"],
        target="depress",
        dialect="postgres",
        engine=ds.postgres(pg),
    )
    assert '"sd2011"' in script
    with psycopg.connect(pg, autocommit=True) as con:
        rows = None
        for statement in script.split(";\n"):
            cur = con.execute(statement)
            if rows is None and cur.description is not None:
                rows = [
                    dict(zip([d.name for d in cur.description], r, strict=True))
                    for r in cur.fetchall()
                ]
    assert rows is not None
    for got, want in zip(rows, ref.ident.to_pylist(), strict=True):
        for col in want:
            assert_value(float(got[col]), float(want[col]), col)


@on_engines("postgres", "spark")  # SQLite has no boolean type
def test_boolean_columns(engine_case: Loaded) -> None:
    """Boolean keys and targets (PostgreSQL has no min(boolean))."""
    import pyarrow as pa

    n = 40
    original = pa.table(
        {
            "b": [i % 3 == 0 for i in range(n)],
            "k": [i % 4 for i in range(n)],
            "t": [i % 3 == 0 if i % 7 else i % 2 == 0 for i in range(n)],
        }
    )
    synthetic = original.slice(0, 30)
    engine, names = engine_case.load({"bools": original, "bools_syn": synthetic})
    kw: dict[str, Any] = {"keys": ["b", "k"], "target": "t", "thresh_2way": (0, 0)}
    want = ds.disclosure(original, synthetic, **kw)
    got = ds.disclosure(names["bools"], names["bools_syn"], engine=engine, **kw)
    assert want.check_2way.num_rows > 0
    assert_same(got, want, TABLES[:-1])


def test_postgres_work_tables_have_statistics(pg: str) -> None:
    """Every work table is ANALYZEd once made (autovacuum never analyzes temporary tables):
    without statistics the planner took replicated_uniques' flags for a cross product of the
    records and the cells (24 s for 5,000 records)."""
    import psycopg

    from discosql.engines.factory import open_engine

    con = psycopg.connect(pg, autocommit=True)
    for spec in (ds.postgres(pg), ds.dbapi(con, dialect="postgres")):
        engine = open_engine(spec)
        with engine.work() as work:
            work.create("__disco_w", "SELECT i FROM generate_series(1, 500) AS g(i)", {}, "t")
            sql = "SELECT reltuples FROM pg_class WHERE relname = $name"
            name = {"name": engine.own("__disco_w")}
            got = engine.query(sql, name, "test").column(0).to_pylist()
        assert got == [500.0]  # -1 (PostgreSQL 14+) before ANALYZE
        engine.close()
    con.close()


@on_engines("sqlite", "postgres", "spark")
def test_q_above_32_bits(engine_case: Loaded, tmp_path: Path) -> None:
    """Key combinations beyond 2^31: every code and q word is BIGINT where it is made (Spark's
    dense_rank() is a 32-bit INT; q overflowed silently with ANSI mode off)."""
    import random

    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(3)
    n = 1500
    cols: dict[str, list[Any]] = {
        f"k{i}": [rng.randrange(10**6) for _ in range(n)] for i in range(3)
    }
    cols["t"] = [rng.choice("ab") for _ in range(n)]
    table = pa.table(cols)
    path = str(tmp_path / "reference.parquet")
    pq.write_table(table, path)
    kw: dict[str, Any] = {"keys": ["k0", "k1", "k2"], "target": "t", "thresh_2way": (0, 0)}
    want = ds.disclosure(path, path, **kw)
    engine, names = engine_case.load({"wide": table})
    got = ds.disclosure(names["wide"], names["wide"], engine=engine, **kw)
    from discosql.core import stages
    from discosql.core.inputs import register_inputs
    from discosql.core.plan import plan
    from discosql.core.spec import build_spec
    from discosql.engines import open_engine

    with open_engine(None) as eng:
        p = plan(register_inputs(eng, path, path), build_spec(kw["keys"], "t"))
        radices = stages.plan_radices([p])[0][:-1]
    assert math.prod(radices) > 2**31  # q needs 64 bits
    assert want.check_2way.num_rows > 100  # key levels decoded from q are compared
    assert_same(got, want, TABLES[:-1])


def test_work_tables_are_dropped_however_the_block_ends() -> None:
    """Engine.work: the tables made or held in the block are dropped at its end, after an
    error too; a released table is the caller's; dropped tables go in the order asked."""
    from discosql.engines import open_engine

    def tables(eng: Any) -> list[str]:
        """discosql's work tables by the names the code gives them (each is this run's)."""
        sql = "SELECT table_name AS t FROM duckdb_tables() ORDER BY table_name"
        names = [r["t"] for r in eng.query(sql, {}, "test").to_pylist()]
        assert all(n.startswith(f"__disco_{eng.run_id}_") for n in names), names
        return [n.replace(f"_{eng.run_id}_", "_", 1) for n in names]

    def fail_midway(eng: Any) -> None:
        with eng.work() as work:
            work.create("__disco_a", "SELECT 1 AS x", {}, "test")
            eng.create_table("__disco_b", "SELECT 2 AS x", {}, "test")
            work.hold("__disco_b")
            assert tables(eng) == ["__disco_a", "__disco_b"]
            raise RuntimeError

    with open_engine(None) as eng:
        with pytest.raises(RuntimeError):
            fail_midway(eng)
        assert tables(eng) == []
        with eng.work() as work:
            work.create("__disco_a", "SELECT 1 AS x", {}, "test")
            work.create("__disco_c", "SELECT 1 AS x", {}, "test")
            work.release("__disco_c")
        assert tables(eng) == ["__disco_c"]
        eng.drop_table("__disco_c")
    dropped: list[str] = []
    for newest_first, order in ((False, ["x", "y", "z"]), (True, ["z", "y", "x"])):
        dropped.clear()
        with open_engine(None) as eng:
            eng.drop_table = dropped.append  # type: ignore[method-assign]
            with eng.work(newest_first=newest_first) as work:
                for name in ("x", "y", "z"):
                    work.hold(name)
        assert dropped == order


def test_a_users_psycopg_connection(pg: str, summary_ref: ds.DisclosureSummary) -> None:
    """engine=<a psycopg connection>: DuckDB's numbers, and the connection as it was given:
    open, its settings kept, no temporary table of discosql's left in its session; a
    connection in a transaction (not autocommit) is refused, not changed."""
    import psycopg

    con = psycopg.connect(pg, autocommit=True)
    con.execute("SET application_name = 'analyst'")
    got = ds.disclosure_summary("sd2011", SUMMARY_SYN, engine=con, **SUMMARY_KW)
    _assert_same_summary(got, summary_ref)
    with pytest.warns(ds.DiscoSQLWarning, match="give id="):  # rows in ctid order
        ds.risk("sd2011", ["sex", "age"], engine=con)
    left = con.execute(
        "SELECT count(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema()"
    ).fetchone()
    assert left == (0,)
    assert not con.closed
    assert con.execute("SHOW application_name").fetchone() == ("analyst",)
    con.close()
    with psycopg.connect(pg) as in_transaction, pytest.raises(ds.InputError, match="autocommit"):
        ds.risk("sd2011", ["sex"], engine=in_transaction)


def test_each_run_names_its_own_work_tables() -> None:
    """Engine.own / owned: a work table's quoted name is renamed with the run's token in a
    statement's text; a string, a comment or a user's identifier that contains the same
    characters is not (a column named ``a"__disco_cells`` is quoted as ``"a""__disco_cells"``)."""
    from discosql.engines import open_engine

    with open_engine(None) as a, open_engine(None) as b:
        assert a.run_id != b.run_id
        assert a.own("__disco_cells") == f"__disco_{a.run_id}_cells"
        assert a.own(a.own("__disco_cells")) == a.own("__disco_cells")  # idempotent
        assert a.own("persons") == "persons"  # only discosql's own relations
        sql = (
            'SELECT "__disco_cells".n, \'"__disco_cells"\' AS "a""__disco_cells" '
            '-- "__disco_cells"\nFROM "__disco_cells" /* "__disco_cells" */ JOIN "__disco_other"'
        )
        mine = f'"__disco_{a.run_id}_cells"'
        assert a.owned(sql) == (
            f'SELECT {mine}.n, \'"__disco_cells"\' AS "a""__disco_cells" '
            f'-- "__disco_cells"\nFROM {mine} /* "__disco_cells" */ JOIN "__disco_other"'
        )
        assert b.owned(sql) == sql  # b has named no work table


def test_spark_stages_as_tables(
    spark: Any, parquet: dict[str, str], summary_ref: ds.DisclosureSummary
) -> None:
    """ds.spark(materialize="table", schema=...) (Databricks serverless has no checkpoints):
    DuckDB's numbers, every stage a Parquet table of that schema named for the run, none left
    after the call; a per-record result too (risk's records)."""
    spark.sql("CREATE DATABASE IF NOT EXISTS discosql_work")
    engine = ds.spark(spark, materialize="table", schema="discosql_work")
    syn = [parquet[s] for s in SUMMARY_SYN]
    got = ds.disclosure_summary(parquet["sd2011"], syn, engine=engine, **SUMMARY_KW)
    _assert_same_summary(got, summary_ref)
    risk = ds.risk(parquet["sd2011"], ["sex", "age", "region"], engine=engine)
    want = ds.risk(parquet["sd2011"], ["sex", "age", "region"])
    for got_rows, want_rows in ((risk.summary, want.summary), (risk.records, want.records)):
        assert got_rows.num_rows == want_rows.num_rows
        for g, w in zip(got_rows.to_pylist(), want_rows.to_pylist(), strict=True):
            for col in w:
                assert_value(g[col], w[col], col)
    for where in ("discosql_work", "default"):
        left = [r.tableName for r in spark.sql(f"SHOW TABLES IN {where}").collect()]
        assert [t for t in left if t.startswith("__disco")] == []
    with pytest.raises(ds.InputError, match="materialize"):
        ds.spark(spark, materialize="cache")
    with pytest.raises(ds.InputError, match="schema"):
        ds.spark(spark, schema="discosql_work")


def test_collated_keys_grouped_as_spark_groups_them(spark: Any) -> None:
    """A key in a case-insensitive collation (UTF8_LCASE): Spark's GROUP BY and joins take
    'a' and 'A' as one value, so its dictionary must too. Stage 010 collects plain text with
    collect_set, which Spark refuses for collated text, so that is grouped
    (dictionaries.collected): the measures equal those of the key lower-cased."""
    rows = [("a", "x", "p"), ("A", "x", "q"), ("b", "y", "p"), ("B", "y", "p"), ("a", "y", "q")]
    rows += [("c", "x", "p"), ("C", "x", "p"), ("b", "x", "q")]
    df = spark.createDataFrame(rows, "k string, k2 string, t string")
    collated = df.selectExpr("collate(k, 'UTF8_LCASE') as k", "k2", "t")
    assert "collate" in dict(collated.dtypes)["k"].lower()
    lowered = df.selectExpr("lower(k) as k", "k2", "t")
    kw: dict[str, Any] = {"keys": ["k", "k2"], "target": "t", "engine": ds.spark(spark)}
    got = ds.disclosure(collated, collated.sample(fraction=1.0, seed=1), **kw)
    want = ds.disclosure(lowered, lowered.sample(fraction=1.0, seed=1), **kw)
    assert got.measures.num_rows > 0
    assert got.measures.equals(want.measures)


@on_engines("postgres", "spark")  # SQLite has no boolean type
def test_collected_awkward_values(engine_case: Loaded, tmp_path: Path) -> None:
    """Spark's stage 010 collects text, integer and boolean keys (collect_set): NULLs, empty
    text, a genuine 'Missing', quotes, unicode and SQL in values, integers past 2^53, NULL
    booleans, and a key typed differently in the two data sets (grouped, as text) give
    DuckDB's numbers, one target and stacked."""
    import random

    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(7)
    text = [None, "", "Missing", "it's", 'a"b', "日本", "nan", "x; DROP TABLE t", "é"]
    ints = [None, 0, -3, 57, 2**53 + 1, 10**15]
    n = 400

    def table(int_type: pa.DataType) -> pa.Table:
        return pa.table(
            {
                "k text": pa.array([rng.choice(text) for _ in range(n)], pa.string()),
                "k_int": pa.array([rng.choice(ints) for _ in range(n)], pa.int64()),
                "k_bool": pa.array([rng.choice([None, True, False]) for _ in range(n)]),
                "k_mixed": pa.array([rng.choice([1, 2, 3]) for _ in range(n)], int_type),
                "t": pa.array([rng.choice(text) for _ in range(n)], pa.string()),
                "t2": pa.array([rng.choice(ints) for _ in range(n)], pa.int64()),
            }
        )

    tables = {name: table(int_type) for name, int_type in (("o", pa.int64()), ("s", pa.float64()))}
    engine, names = engine_case.load(tables)
    paths = [names["o"], names["s"]]
    arrow = []  # DuckDB's reference reads Parquet files
    for name in ("o", "s"):
        arrow.append(str(tmp_path / f"reference_{name}.parquet"))
        pq.write_table(tables[name], arrow[-1])
    keys = ["k text", "k_int", "k_bool", "k_mixed"]
    kw: dict[str, Any] = {"keys": keys, "target": "t", "thresh_2way": (0, 0)}
    assert_same(ds.disclosure(*paths, engine=engine, **kw), ds.disclosure(*arrow, **kw), TABLES)
    got = ds.disclosure_summary(*paths, keys, ["t", "t2"], engine=engine)
    want = ds.disclosure_summary(*arrow, keys, ["t", "t2"])
    for target in ("t", "t2"):
        assert_same(got.results[target], want.results[target], TABLES)
