"""Column names given by the arguments resolve as the engine resolves an unquoted name, by the
rule table names follow (discosql/engines/names.py, the dialect's ``unquoted_case``): the
column of that name, else the one the name folds to (Snowflake: ``sex`` is ``SEX``;
PostgreSQL: ``SEX`` is ``sex``); a name that differs from several columns only in case is an
error naming them."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import discosql as ds
from discosql.core.inputs import column_kinds
from discosql.engines.base import Registered, Source
from discosql.engines.names import candidates, column_of, parts_of, stored
from discosql.errors import DiscoSQLWarning
from discosql.sql.dialects import FACTS

from .. import engine_data
from ..helpers.compare import assert_same, assert_value

DATA = Path(ds.__file__).parent / "data"
KW: dict[str, Any] = {"keys": ["sex", "age", "region"], "target": "depress"}


def test_the_fold_is_the_dialects() -> None:
    assert stored("sex", "snowflake") == "SEX"
    assert stored("SEX", "postgres") == "sex"
    assert stored("Sex", "duckdb") == "Sex"  # stored as written (matched without case)
    assert stored("Éa", "postgres") == "Éa"  # only ASCII letters fold
    # tables follow the same rule
    assert candidates(parts_of("persons"), "snowflake", None) == [["persons"], ["PERSONS"]]
    assert candidates(parts_of('"persons"'), "snowflake", None) == [["persons"]]


def test_a_column_name_resolves_as_the_engine_would() -> None:
    assert column_of("sex", ["SEX", "AGE"], "snowflake") == "SEX"
    assert column_of("sex", ["sex", "SEX"], "snowflake") == "sex"  # the exact name first
    assert column_of("SEX", ["sex"], "postgres") == "sex"
    assert column_of("Sex", ["sex"], "postgres") == "sex"
    assert column_of("sex", ["Sex"], "snowflake") == "sex"  # SEX is none: not found
    assert column_of("SEX", ["sex"], "duckdb") == "SEX"  # no fold: not found
    with pytest.raises(ds.InputError, match="'SEX' and 'Sex' differ from it only in case"):
        column_of("sex", ["SEX", "Sex"], "snowflake")


def _registered(columns: list[str], dialect: str = "snowflake") -> Registered:
    types = dict.fromkeys(columns, "TEXT")
    kinds: dict[str, str | None] = dict.fromkeys(columns, "text")
    source = Source("dbapi_table", "T", "original")
    return Registered(source, '"T"', columns=types, kinds=kinds, n_rows=1, dialect=dialect)


def test_a_resolved_column_is_read_under_the_name_given() -> None:
    reg = _registered(["SEX", "AGE"])
    kinds, problems = column_kinds([reg], {"sex": "key", "AGE": "key"})
    assert problems == []
    assert kinds == {"sex": "text", "AGE": "text"}
    assert list(reg.columns) == ["sex", "AGE"]
    assert reg.sql == '(SELECT "SEX" AS "sex", "AGE" FROM "T")'
    assert reg.relation() == '"T"'  # positions are numbered there


def test_an_ambiguous_or_twice_named_column_is_a_problem() -> None:
    _, problems = column_kinds([_registered(["SEX", "Sex"])], {"sex": "key"})
    assert len(problems) == 1, problems
    assert "'SEX' and 'Sex' differ from it only in case" in problems[0], problems
    _, problems = column_kinds([_registered(["SEX"])], {"sex": "key", "SEX": "target"})
    assert "column 'SEX' is already read as 'sex'" in problems[0], problems
    reg = _registered(["SEX"], dialect="duckdb")  # no fold: did you mean
    _, problems = column_kinds([reg], {"sex": "key"})
    assert "not a column of the original data; did you mean 'SEX'" in problems[0], problems


def _upper(table: pa.Table) -> pa.Table:
    return table.rename_columns([c.upper() for c in table.column_names])


def test_upper_case_columns_on_a_dialect_that_folds_to_them(monkeypatch: Any) -> None:
    """The whole run with the columns read as given: DuckDB (which stores names as written)
    given Snowflake's rule, on data whose columns are stored in upper case."""
    original, syn = (pq.read_table(DATA / f"{n}.parquet") for n in ("sd2011", "syn_1"))
    want = ds.disclosure(original, syn, **KW)
    folding = dataclasses.replace(FACTS["duckdb"], unquoted_case="upper")
    monkeypatch.setitem(FACTS, "duckdb", folding)
    got = ds.disclosure(_upper(original), _upper(syn), **KW)
    for name in ("ident", "attrib", "allcaps", "measures"):
        assert getattr(got, name).equals(getattr(want, name)), name


def test_postgres_reads_an_upper_case_name_as_its_lower_case_column(pg_dsn: str) -> None:
    """PostgreSQL folds an unquoted SEX to sex: keys=["SEX"] finds the column sex, and the
    results name it (and the target) as given."""
    tables = {n: pq.read_table(DATA / f"{n}.parquet") for n in ("sd2011", "syn_1")}
    engine_data.load_postgres(pg_dsn, {f"names_{n}": t for n, t in tables.items()})
    want = ds.disclosure(tables["sd2011"], tables["syn_1"], **KW)
    kw = {"keys": ["SEX", "age", "Region"], "target": "DEPRESS"}
    got = ds.disclosure("names_sd2011", "names_syn_1", engine=pg_dsn, **kw)
    assert_same(got, want, ("ident", "attrib", "allcaps"))
    assert set(got.measures.column("target").to_pylist()) == {"DEPRESS"}
    measures = got.measures.drop_columns("target")
    for x, y in zip(
        measures.to_pylist(), want.measures.drop_columns("target").to_pylist(), strict=True
    ):
        assert x.keys() == y.keys()
        for col in x:
            assert_value(x[col], y[col], f"measures {col}")


@pytest.mark.parametrize("via", ["disclosure", "risk"])
def test_snowflake_finds_upper_case_columns_given_in_lower_case(fakesnow: None, via: str) -> None:
    """Columns created with unquoted names are stored in upper case on Snowflake; the names
    given in lower case find them, as Snowflake's own SQL would (fakesnow's emulator)."""
    import snowflake.connector

    tables = {n: pq.read_table(DATA / f"{n}.parquet") for n in ("sd2011", "syn_1")}
    con = snowflake.connector.connect(database=f"names_{via}", schema="survey")
    engine_data.write_fakesnow(con, f"names_{via}", {n: _upper(t) for n, t in tables.items()})
    engine = ds.dbapi(con, dialect="snowflake")
    if via == "disclosure":
        want = ds.disclosure(tables["sd2011"], tables["syn_1"], **KW)
        got = ds.disclosure("sd2011", "syn_1", engine=engine, **KW)
        assert_same(got, want, ("ident", "attrib", "allcaps", "measures"))
    else:
        want_risk = ds.risk(tables["sd2011"], ["sex", "age", "region"])
        with pytest.warns(DiscoSQLWarning, match="no per-record table"):  # no record order
            got_risk = ds.risk("sd2011", ["sex", "age", "region"], engine=engine)
        assert_same(got_risk, want_risk, ("summary",))
    con.close()
