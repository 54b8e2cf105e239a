"""PostgreSQL: the SQL runs on the server, only result tables come back (psycopg 3).

psycopg rather than ADBC: discosql's results are a few small tables, so Arrow transfer buys
nothing. Values reach the server as sqlglot literals (quoted and escaped by sqlglot, floats as
DOUBLE), in statements sent with no parameters: PostgreSQL takes no server-side parameters in
``CREATE TABLE … AS``, and psycopg's client-side binding reads ``%(name)s`` anywhere in the text,
inside a quoted identifier too, which would let a column name inject SQL.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ..errors import EngineError, InputError
from ..secrets import redact, secrets_in
from ..sql.templates import ident
from .base import Registered, Source, described, engine_message
from .dbapi import DBAPIEngine, from_decimals
from .names import named_source
from .pg_catalog import ABOUT, resolved, server_version

ARROW_TYPES = {
    16: pa.bool_(),
    20: pa.int64(),
    21: pa.int32(),
    23: pa.int32(),
    700: pa.float64(),
    701: pa.float64(),
    25: pa.string(),
    1042: pa.string(),
    1043: pa.string(),
    19: pa.string(),
}
NUMERIC = 1700  # whole numbers (SUM of integers) or fractions


class PostgresEngine(DBAPIEngine):
    """The DB-API engine on psycopg: a DSN opened (and closed) by discosql, or the user's
    own connection; row positions are ctid (the dialect's ``position_order``)."""

    autocommit_fix = "give psycopg.connect(..., autocommit=True)"

    def __init__(self, dsn: str | None, schema: str | None = None, connection: Any = None) -> None:
        import psycopg

        self._psycopg = psycopg
        # the user's own connection: used as it is (never closed, its settings untouched);
        # discosql's temporary tables are dropped before the call returns
        self.given = connection is not None
        if connection is None:
            connection = _connect(psycopg, dsn)
        super().__init__(connection, "postgres", schema)
        self.name = "PostgreSQL"

    def close(self) -> None:
        if self.given:  # the session goes on: its temporary tables would stay
            self.drop_leftovers()
        else:
            self.con.close()

    def about(self) -> dict[str, str | None]:
        pq = self._psycopg.pq
        info = self.con.info
        libpq = pq.version()
        return {
            "engine": self.name,
            "version": server_version(self.query(ABOUT, {}, "about", small=True)),
            "driver": f"psycopg {self._psycopg.__version__} (libpq {libpq // 10000}.{libpq % 100})",
            "database": info.dbname,
            "host": f"{info.host}:{info.port}",
            "role": info.user,
        }

    def classify(self, obj: Any, label: str) -> Source:
        source = named_source(obj, label, "pg_table", self.name)
        if source is not None:
            return source
        raise InputError(
            f"{label}: on PostgreSQL a data set is a table or view name ('persons' or "
            f"'schema.persons', or a (schema, table) tuple), got {described(obj)}"
        )

    def _register(self, source: Source, name: str, param: str) -> Registered:
        return Registered(source, resolved(self, source, self.schema))

    def output_table(self, name: str, database: str | None) -> str:
        """``name`` or ``schema.name`` (default: the engine's schema, else the search path)."""
        if database is not None:
            raise InputError("out: a DuckDB database file needs the DuckDB engine")
        parts = name.split(".", 1) if "." in name else [self.schema, name]
        if parts[0] == "pg_temp" and not self.given:
            raise InputError(
                f"out_table: {name!r} would be a temporary table of discosql's own connection, "
                "dropped when the call returns; give your own connection "
                "(engine=psycopg.connect(..., autocommit=True)) to keep it for your session, or "
                "a schema where the role may create tables"
            )
        return ".".join(ident(p) for p in parts if p)

    def has_table(self, name: str, database: str | None) -> bool:
        sql = "SELECT to_regclass($t) IS NOT NULL AS found"
        found = self.query(sql, {"t": self.output_table(name, database)}, "out")
        return bool(found.column(0)[0].as_py())

    def _columns(self, reg: Registered) -> dict[str, str]:
        sql, params = self.translate(f"SELECT * FROM {reg.sql} LIMIT 0", reg.params)
        try:
            with self.con.cursor() as cur:
                cur.execute(sql, params)
                desc = cur.description or []
        except self._psycopg.Error as e:
            raise EngineError(engine_message(e)) from e
        return {d.name: self._type_name(d.type_code) for d in desc}

    def _type_name(self, oid: int) -> str:
        """PostgreSQL's own name of a type (``double precision``), which sqlglot reads."""
        info = self._psycopg.postgres.types.get(oid)
        if info is not None:
            return str(info.regtype)
        with self.con.cursor() as cur:  # a type of this database (an enum, a domain, ...)
            cur.execute("SELECT format_type(%(oid)s, NULL)", {"oid": oid})
            row = cur.fetchone()
        return str(row[0]) if row and row[0] else f"oid {oid}"

    def _is_engine_error(self, e: Exception) -> bool:
        return isinstance(e, self._psycopg.Error)

    def _query(self, sql: str, params: dict[str, Any]) -> pa.Table:
        with self.con.cursor() as cur:
            cur.execute(sql, params or None)
            desc = cur.description or []
            rows = cur.fetchall()
        columns = []
        for i, d in enumerate(desc):
            values = [r[i] for r in rows]
            if d.type_code == NUMERIC:
                columns.append(from_decimals(values))
            else:
                columns.append(pa.array(values, type=ARROW_TYPES.get(d.type_code)))
        return pa.table(columns, names=[d.name for d in desc])


def _connect(psycopg: Any, dsn: str | None) -> Any:
    """discosql's own connection to ``dsn`` (autocommit; JIT off), or an InputError with any
    secret of the string masked."""
    try:
        con = psycopg.connect(dsn or "", autocommit=True, cursor_factory=psycopg.ClientCursor)
    except psycopg.Error as e:  # libpq may quote a fragment of the string: masked
        text = redact(str(e).strip(), secrets_in(dsn or ""))
        raise InputError(f"engine: cannot connect to PostgreSQL ({text})") from None
    if con.info.server_version >= 110000:  # JIT (PostgreSQL 11+) on its own session
        # The planner misjudges the joins on computed q words by orders of magnitude, so
        # every statement passes jit_above_cost and compiles for about 0.5 s: with JIT off,
        # linkability and exact matches on Adult take half the time (docs/performance.md).
        # Only on discosql's own connection: a user's is never reconfigured.
        con.execute("SET jit = off")
    return con
