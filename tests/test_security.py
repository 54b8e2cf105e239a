"""Parameters are never recognised inside identifiers or string literals, on any engine.

Regression for SQL injection through column names on PostgreSQL: psycopg's client-side binding
read ``%(name)s`` inside a quoted identifier as a placeholder, so a column name could close the
identifier and run its own statement (``DROP TABLE victim``). On DuckDB, a column named
``$denom_lim`` made the statement bind a parameter it did not use ("excess parameters").
Names and values below carry every driver's parameter syntax; each engine must give DuckDB's
numbers and leave the database as it was.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

import discosql as ds
from discosql.core.results import RESULT_TABLES

from .helpers.compare import assert_same
from .helpers.engines import Loaded, on_engines

# A target name that, if its %(name_t)s were bound inside the identifier, would end the query
# and drop a table; the other names carry DuckDB's, psycopg's, Spark's and SQLite's markers.
TARGET = 't%(name_t)s"AS TEXT),NULL)FROM io)SELECT 1;DROP TABLE victim;--'
KEY_A = "t't%(name_t)s"
KEY_B = "$denom_lim"
KEY_C = ":ntl_0 ?1 %s %% $1"
VALUES = ["%(name_t)s", "$denom_lim", ":ntl_0", "?", "%s';DROP TABLE victim;--", "a%%b"]


def _table(n: int, shift: int) -> pa.Table:
    # the target follows the first key in four rows of five, so check_2way fires
    pick = [VALUES[(i + shift) % 3 if i % 5 else (i * 7 + shift) % 6] for i in range(n)]
    return pa.table(
        {
            KEY_A: [VALUES[(i + shift) % 3] for i in range(n)],
            KEY_B: [(i * 3 + shift) % 4 for i in range(n)],
            KEY_C: [VALUES[(i // 2 + shift) % 4] for i in range(n)],
            TARGET: pick,
        }
    )


ORIGINAL, SYNTHETIC = _table(60, 0), _table(50, 1)
KWARGS: dict[str, Any] = {
    "keys": [KEY_A, KEY_B, KEY_C],
    "target": TARGET,
    # each option below renders a level or a name as a parameter (inspect/levels, stage 040)
    "not_targetlev": "$denom_lim",
    "exclude_keys": [KEY_C],
    "exclude_keylevs": [":ntl_0"],
    "exclude_targetlevs": ["%(name_t)s"],
    "thresh_1way": (1, 50),
    "thresh_2way": (1, 50),
    "tau": (0.5, 1),
}
TABLES = tuple(t.name for t in RESULT_TABLES)


@pytest.fixture(scope="module")
def reference() -> Any:
    return ds.disclosure(ORIGINAL, SYNTHETIC, **KWARGS)


def test_the_reference_binds_no_parameter_named_in_an_identifier(reference: Any) -> None:
    """DuckDB's run (the reference of the engine test below) gave its tables."""
    # exclusions and checks are non-empty, so the compared tables mean something
    assert reference.exclusions.num_rows > 0
    assert reference.check_2way.num_rows > 0
    assert reference.ident.column("UiO").to_pylist()[0] > 0


def _victim(dsn: str) -> None:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS victim")
        con.execute("CREATE TABLE victim (x integer)")


def _victim_kept(dsn: str) -> None:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as con:
        tables = {r[0] for r in con.execute("SELECT tablename FROM pg_tables").fetchall()}
    assert "victim" in tables


@on_engines("sqlite", "postgres", "spark")
def test_identifiers_are_not_placeholders(engine_case: Loaded, reference: Any) -> None:
    """DuckDB's tables; on PostgreSQL a table the names' SQL would drop is still there."""
    engine, names = engine_case.load({"io": ORIGINAL, "io_syn": SYNTHETIC})
    on_postgres = engine_case.case.name == "postgres"
    if on_postgres:
        _victim(engine_case.server)
    got = ds.disclosure(names["io"], names["io_syn"], engine=engine, **KWARGS)
    if on_postgres:
        _victim_kept(engine_case.server)
    assert_same(got, reference, TABLES)
