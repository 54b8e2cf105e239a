"""One :class:`EngineCase` per engine the tests run on, and :func:`on_engines`, which runs a
test once per engine (as Splink's ``TestHelper`` and ibis's ``TestConf``).

A test that compares an engine with DuckDB takes the ``engine_case`` fixture (conftest.py),
loads its tables and calls the API with the engine it is given::

    @on_engines("sqlite", "postgres", "spark")
    def test_summary(engine_case: Loaded) -> None:
        engine, names = engine_case.load(tables)
        ds.disclosure_summary(names["sd2011"], ..., engine=engine)

The PostgreSQL and Spark cases carry their pytest markers (deselected by default) and start
their server through its session fixture; a new engine is one more entry in ``CASES``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import discosql as ds

from .. import engine_data

Tables = dict[str, pa.Table]
# (engine= argument, how the engine names each table)
Engine = tuple[Any, dict[str, Any]]


def _duckdb(tables: Tables, server: Any, tmp_path: Path) -> Engine:
    return None, dict(tables)  # the Arrow tables themselves


def _sqlite(tables: Tables, server: Any, tmp_path: Path) -> Engine:
    db = engine_data.write_sqlite(tmp_path / "tables.db", tables)
    return ds.sqlite(db), {n: n for n in tables}


def _postgres(tables: Tables, server: Any, tmp_path: Path) -> Engine:
    engine_data.load_postgres(server, tables)
    return ds.postgres(server), {n: n for n in tables}


def _spark(tables: Tables, server: Any, tmp_path: Path) -> Engine:
    return ds.spark(server), engine_data.write_parquet(tmp_path, tables)


@dataclass(frozen=True)
class EngineCase:
    """An engine the tests run on. ``loader``: puts tables into it; ``server``: the session
    fixture that starts it, and ``marker`` the pytest marker of its tests; ``keeps_row_order``:
    records are numbered in input order (PostgreSQL numbers them in physical order, which COPY
    does not always keep); ``has_nan``: a float NaN is stored as NaN (SQLite stores NULL)."""

    name: str
    loader: Callable[[Tables, Any, Path], Engine]
    server: str | None = None
    marker: str | None = None
    keeps_row_order: bool = True
    has_nan: bool = True

    def param(self) -> Any:
        marks = [getattr(pytest.mark, self.marker)] if self.marker else []
        return pytest.param(self, id=self.name, marks=marks)


CASES = {
    c.name: c
    for c in (
        EngineCase("duckdb", _duckdb),
        EngineCase("sqlite", _sqlite, has_nan=False),
        EngineCase("postgres", _postgres, "pg_dsn", "postgres", keeps_row_order=False),
        EngineCase("spark", _spark, "spark", "spark"),
    )
}


@dataclass
class Loaded:
    """An engine case with its server started: :meth:`load` puts tables into it."""

    case: EngineCase
    server: Any
    tmp_path: Path

    def load(self, tables: Tables) -> Engine:
        """The ``engine=`` argument and how it names each table (a table name, a Parquet
        path, or the Arrow table itself on DuckDB)."""
        return self.case.loader(tables, self.server, self.tmp_path)


def on_engines(*names: str, exclude: tuple[str, ...] = ()) -> pytest.MarkDecorator:
    """Run the test once per engine named (every engine if none is), but those excluded."""
    chosen = [CASES[n] for n in (names or tuple(CASES)) if n not in exclude]
    return pytest.mark.parametrize("engine_case", [c.param() for c in chosen], indirect=True)
