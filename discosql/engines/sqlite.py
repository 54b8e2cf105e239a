"""SQLite (Python's built-in sqlite3): the same transpiled SQL, for data in a SQLite file.

SQLite has no NaN: a float NaN is stored as NULL. The measure templates never produce a NULL
double on purpose (a 0/0 measure is NaN on every engine), so a NULL measure is turned back
into NaN where every result is conformed to its declared schema (``engines.base.conform``).
Exact decimal sums do not exist either: SQLite sums the terms as doubles, in a fixed order
(results agree with DuckDB to ~1e-15).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..errors import EngineError, InputError
from ..sql.templates import ident
from ..sql.types import affinity
from .base import Engine, Registered, Source, described
from .dbapi import DBAPIEngine


class SQLiteEngine(DBAPIEngine):
    """The DB-API engine on Python's sqlite3: a database file opened read-only (and closed)
    by discosql, or the user's own connection; row positions are rowid (the dialect's
    ``position_order``), column types the declared ones."""

    def __init__(self, database: str | None, connection: sqlite3.Connection | None = None) -> None:
        # the user's own connection: used as it is (never closed); discosql's temporary tables
        # (in SQLite's temp database) are dropped before the call returns
        self.given = connection is not None
        if connection is not None:
            if connection.in_transaction:
                raise InputError(
                    "engine: the sqlite3 connection has a transaction open; commit or roll it "
                    "back first (discosql does not end yours)"
                )
        else:
            connection = _connect(database)
        super().__init__(connection, "sqlite")
        self.name = "SQLite"

    def close(self) -> None:
        if self.given:  # the session goes on: its temporary tables would stay
            self.drop_leftovers()
        else:
            self.con.close()

    def about(self) -> dict[str, str | None]:
        import platform

        files = self.con.execute("PRAGMA database_list").fetchall()
        main = next((str(f[2]) for f in files if f[1] == "main"), "")
        return {
            "engine": self.name,
            "version": f"SQLite {sqlite3.sqlite_version}",
            "driver": f"sqlite3 (Python {platform.python_version()})",
            "database": main or "(in memory)",
        }

    def classify(self, obj: Any, label: str) -> Source:
        if isinstance(obj, str) and obj:
            return Source("sqlite_table", obj, label)
        raise InputError(
            f"{label}: on SQLite a data set is a table or view name of the database, got "
            f"{described(obj)}"
        )

    def _register(self, source: Source, name: str, param: str) -> Registered:
        return Registered(source, ident(source.obj))

    def _columns(self, reg: Registered) -> dict[str, str]:
        try:
            rows = self.con.execute(f"PRAGMA table_info({ident(reg.source.obj)})").fetchall()
        except sqlite3.Error as e:
            raise EngineError(str(e)) from e
        if not rows:
            raise EngineError(f"no such table: {reg.source.obj}")
        return {r[1]: affinity(r[2] or "") for r in rows}

    def _is_engine_error(self, e: Exception) -> bool:
        return isinstance(e, sqlite3.Error)

    # sqlite3 binds ``$name`` values itself: the statement keeps its parameters (the DB-API
    # engine writes them as literals for drivers that cannot bind them)
    translate = Engine.translate
    # results are files written by DuckDB: discosql's own connection is read-only
    output_table = Engine.output_table
    has_table = Engine.has_table

    def _execute(self, sql: str, params: dict[str, Any]) -> None:
        self.con.execute(sql, params)

    def _query(self, sql: str, params: dict[str, Any]) -> pa.Table:
        cur = self.con.execute(sql, params)
        names = [d[0] for d in cur.description or []]
        rows = cur.fetchall()
        columns = []
        for i in range(len(names)):
            values = [r[i] for r in rows]
            kinds = {type(v) for v in values if v is not None}
            if float in kinds:
                columns.append(pa.array([None if v is None else float(v) for v in values]))
            elif kinds == {int}:
                columns.append(pa.array(values, pa.int64()))
            else:
                columns.append(pa.array(values, pa.string() if not kinds else None))
        return pa.table(columns, names=names)


def _connect(database: str | None) -> sqlite3.Connection:
    """discosql's own read-only connection to the file ``database`` (or a new in-memory
    database); its temporary tables live in SQLite's separate temp database."""
    database = database or ":memory:"
    if database != ":memory:" and not Path(database).is_file():
        raise InputError(f"engine: SQLite database file {database!r} does not exist")
    uri = Path(database).resolve().as_uri() + "?mode=ro" if database != ":memory:" else None
    return sqlite3.connect(uri or database, uri=uri is not None)
