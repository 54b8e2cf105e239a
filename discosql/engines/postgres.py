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
from ..sql.dialects import inline_params, placeholders
from ..sql.templates import ident
from .base import Engine, Registered, Source, described, engine_message
from .names import candidates, named_source, parts_of, suggestion, without_database

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


# the server's version, database and role (about(); also on an ADBC or DB-API connection)
ABOUT = (
    "SELECT current_setting('server_version') AS version, current_database() AS database, "
    "CAST(current_user AS VARCHAR) AS role, CAST(inet_server_addr() AS VARCHAR) AS host, "
    "CAST(inet_server_port() AS VARCHAR) AS port"
)


# PostgreSQL's relations as a role sees them: the current database's, never another's
# the relation's kind (r table, v view, m materialised view, p partitioned, f foreign; NULL:
# none such); views and foreign tables have no ctid
FOUND = (
    "SELECT CAST(to_regclass($name) IS NOT NULL AS BOOLEAN) AS found, "
    "(SELECT CAST(relkind AS VARCHAR) FROM pg_class WHERE oid = to_regclass($name)) AS kind"
)
RELATIONS = (
    "SELECT table_schema || '.' || table_name AS name FROM information_schema.tables "
    "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1"
)


def resolved(engine: Engine, source: Source, schema: str | None) -> str:
    """The relation ``source`` names on a PostgreSQL database (engines/names.py: as written,
    then in lower case; a first part naming this database dropped), quoted; else one
    InputError with a "did you mean"."""
    database = engine.query("SELECT current_database() AS d", {}, "register", small=True)
    parts = without_database(parts_of(source.obj), str(database.column(0)[0]), "PostgreSQL")
    for candidate in candidates(parts, "postgres", schema):
        sql = ".".join(ident(p) for p in candidate)
        found = engine.query(FOUND, {"name": sql}, "register", small=True).to_pylist()[0]
        if found["found"]:
            if found["kind"] in ("v", "f"):  # no ctid: records in the order they are scanned
                engine.scan_order.add(sql)
            return sql
    given = source.obj if isinstance(source.obj, str) else ".".join(source.obj)
    relations = engine.query(RELATIONS, {}, "register", small=True).column(0).to_pylist()
    raise InputError(
        f"{source.label}: no table or view {given!r} that this role can see"
        f"{suggestion(given, [str(r) for r in relations])}"
    )


def server_version(about: pa.Table) -> str:
    return f"PostgreSQL {about.column('version')[0].as_py()}"


class PostgresEngine(Engine):
    dialect = "postgres"
    stack_budget = 2**21  # stacked targets (discosql.stacked), as DuckDB
    name = "PostgreSQL"
    position_order = "ctid"  # row positions: physical order: a table's rows have no other

    def __init__(self, dsn: str | None, schema: str | None = None, connection: Any = None) -> None:
        super().__init__()
        import psycopg

        self._psycopg = psycopg
        self.schema = schema
        # the user's own connection: used as it is (never closed, its settings untouched);
        # discosql's temporary tables are dropped before the call returns
        self.given = connection is not None
        if connection is not None:
            if not connection.autocommit:
                raise InputError(
                    "engine: the psycopg connection is not in autocommit mode, and discosql "
                    "does not change yours (its statements would run in your transaction); "
                    "give psycopg.connect(..., autocommit=True)"
                )
            self.con = connection
            return
        try:
            self.con = psycopg.connect(
                dsn or "", autocommit=True, cursor_factory=psycopg.ClientCursor
            )
        except psycopg.Error as e:  # libpq may quote a fragment of the string: masked
            text = redact(str(e).strip(), secrets_in(dsn or ""))
            raise InputError(f"engine: cannot connect to PostgreSQL ({text})") from None
        if self.con.info.server_version >= 110000:  # JIT (PostgreSQL 11+) on its own session
            # The planner misjudges the joins on computed q words by orders of magnitude, so
            # every statement passes jit_above_cost and compiles for about 0.5 s: with JIT off,
            # linkability and exact matches on Adult take half the time (docs/performance.md).
            # Only on discosql's own connection: a user's is never reconfigured.
            self.con.execute("SET jit = off")

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

    def translate(self, sql: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The statement with its values as sqlglot literals and nothing left to bind.

        psycopg's binding reads every ``%(name)s`` in the text as a placeholder, even inside a
        quoted identifier or a string, so a column name could end its identifier and add SQL.
        A statement run without parameters is sent as it is: no ``%`` is interpreted.
        """
        sql = self.owned(sql)  # before the values are written into it
        names = placeholders(sql)
        return inline_params(sql, {k: v for k, v in params.items() if k in names}, self.dialect), {}

    def _execute(self, sql: str, params: dict[str, Any]) -> None:
        with self.con.cursor() as cur:
            cur.execute(sql, params or None)

    def _query(self, sql: str, params: dict[str, Any]) -> pa.Table:
        with self.con.cursor() as cur:
            cur.execute(sql, params or None)
            desc = cur.description or []
            rows = cur.fetchall()
        columns = []
        for i, d in enumerate(desc):
            values = [r[i] for r in rows]
            t = ARROW_TYPES.get(d.type_code)
            if d.type_code == 1700:  # numeric: whole numbers (SUM of integers) or fractions
                integral = all(v is None or v == v.to_integral_value() for v in values)
                t = pa.int64() if integral else pa.float64()
                values = [None if v is None else (int(v) if integral else float(v)) for v in values]
            columns.append(pa.array(values, type=t))
        return pa.table(columns, names=[d.name for d in desc])
