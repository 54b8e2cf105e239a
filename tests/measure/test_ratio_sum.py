"""macros/levels' ratio_sum (CAP's sums of d'^2 / d'.q and the like): exact in BIGINT on every
engine, against a brute-force sum of Fractions, and the same bits on every engine."""

from __future__ import annotations

import math
import sqlite3
from fractions import Fraction
from typing import Any

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st

from discosql.sql import templates
from discosql.sql.dialects import transpile

from ..helpers.compare import close_to
from ..helpers.engines import Started, on_script_engines

Row = tuple[int, int, int]  # (g, num, den)

# the macro's bounds: num < 2^63, den < 2^32, and here at most 30 rows of num < 2^57 (so
# that the sum stays below 2^62)
DEN_MAX = 2**32 - 1
NUMS = st.one_of(st.integers(0, 1000), st.integers(0, 2**57))
DENS = st.one_of(st.integers(0, 50), st.integers(0, DEN_MAX), st.just(DEN_MAX))
ROWS = st.lists(st.tuples(st.integers(0, 2), NUMS, DENS), max_size=30)

# corner cases: remainders in both parts, the bounds, no den > 0
FIXED: list[Row] = [
    (0, 1, 3),
    (0, 2, 3),
    (0, 10**18, 7),
    (1, 1, 2**31),
    (1, 2**31 + 1, 2**31),
    (1, 2**62, DEN_MAX),
    (1, DEN_MAX - 1, DEN_MAX),
    (2, 7, 0),
    (2, 0, 5),
    (3, 123456789, 1000),
    (3, 999999999999, 999999999998),
]


def _rounded(n: int, d: int) -> Fraction:
    """n / d to 60 binary places, half up (no exact half occurs: den < 2^32)."""
    return Fraction(math.floor(Fraction(n, d) * 2**60 + Fraction(1, 2)), 2**60)


def expected(rows: list[Row]) -> dict[int, Fraction]:
    """Each group's sum of num / den over den > 0, every term rounded to 60 binary places."""
    out: dict[int, Fraction] = {}
    for g, n, d in rows:
        out.setdefault(g, Fraction(0))
        if d > 0:
            out[g] += _rounded(n, d)
    return out


def _query(dialect: str, table: str = "t", long_division: bool = True) -> str:
    sql = (
        templates.environment(dialect)
        .from_string(
            '{% from "macros/levels.sql.j2" import ratio_sum %}'
            'select g, {{ ratio_sum("n", "d", long_division) }} as s from '
            + table
            + " group by g order by g"
        )
        .render(long_division=long_division)
    )
    return transpile(sql, dialect)


def on_duckdb(rows: list[Row], long_division: bool = True) -> dict[int, float]:
    con = duckdb.connect()
    con.execute("create table t (g integer, n bigint, d bigint)")
    if rows:
        con.executemany("insert into t values (?, ?, ?)", rows)
    return dict(con.execute(_query("duckdb", long_division=long_division)).fetchall())


def on_sqlite(rows: list[Row]) -> dict[int, float]:
    con = sqlite3.connect(":memory:")
    con.execute("create table t (g integer, n integer, d integer)")
    con.executemany("insert into t values (?, ?, ?)", rows)
    return dict(con.execute(_query("sqlite")).fetchall())


def test_corner_cases() -> None:
    want = expected(FIXED)
    assert want[2] == 0
    got = on_duckdb(FIXED)
    close_to(got, want)
    assert on_sqlite(FIXED) == got


@given(ROWS)
def test_any_rows_sum_exactly(rows: list[Row]) -> None:
    got = on_duckdb(rows)
    close_to(got, expected(rows))
    assert on_sqlite(rows) == got


def test_without_long_division_it_sums_decimals() -> None:
    """Without long division (DuckDB, whose DECIMAL sums are faster; an exported script, whose
    data may hold 2^31 records or more): each ratio as a double, rounded to 18 decimals,
    summed in DECIMAL(38, 18)."""
    assert "decimal(38, 18)" in _query("duckdb", long_division=False).lower()
    got = on_duckdb(FIXED, long_division=False)
    for g, exact in expected(FIXED).items():
        assert math.isclose(got[g], float(exact), rel_tol=1e-15, abs_tol=1e-18), g


@pytest.mark.parametrize("dialect", ["duckdb", "postgres", "spark", "sqlite"])
def test_long_division_stays_in_integers(dialect: str) -> None:
    """No DECIMAL or NUMERIC, no division of doubles but the last, and PostgreSQL's integer
    `/`, not its NUMERIC DIV()."""
    sql = _query(dialect).upper()
    for slow in ("DECIMAL", "NUMERIC", "DIV("):
        assert slow not in sql, (dialect, slow)
    assert sql.count("AS DOUBLE") + sql.count("AS REAL") == 3, sql


def test_order_of_rows_does_not_matter() -> None:
    rows = [(0, n * n + 7, n % 97 + 1) for n in range(1, 2000)]
    assert on_duckdb(rows) == on_duckdb(rows[::-1])


def _on_postgres(pg_dsn: str) -> dict[int, float]:
    import psycopg

    with psycopg.connect(pg_dsn, autocommit=True) as con:
        con.execute("drop table if exists disco_ratio_sum")
        con.execute("create table disco_ratio_sum (g integer, n bigint, d bigint)")
        try:
            with con.cursor() as cur:
                cur.executemany("insert into disco_ratio_sum values (%s, %s, %s)", FIXED)
            got = dict(con.execute(_query("postgres", "disco_ratio_sum")).fetchall())
        finally:
            con.execute("drop table disco_ratio_sum")
    return got


def _on_spark(spark: Any) -> dict[int, float]:
    df = spark.createDataFrame(FIXED, "g int, n bigint, d bigint")
    df.createOrReplaceTempView("disco_ratio_sum")
    try:
        got = {r[0]: r[1] for r in spark.sql(_query("spark", "disco_ratio_sum")).collect()}
    finally:
        spark.catalog.dropTempView("disco_ratio_sum")
    return got


ON_SERVER = {"postgres": _on_postgres, "spark": _on_spark}


@on_script_engines("postgres", "spark")
def test_a_server_gives_the_same_bits(script_engine: Started) -> None:
    """The macro's query, in the server's dialect, on FIXED."""
    got = ON_SERVER[script_engine.name](script_engine.server)
    close_to(got, expected(FIXED))
    assert got == on_duckdb(FIXED)
