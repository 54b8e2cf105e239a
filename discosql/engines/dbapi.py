"""Any PEP 249 (DB-API 2.0) connection the user already has: ADBC connections (the driver
names the dialect) and ``ds.dbapi(connection, dialect=...)`` for the others (Snowflake's
connector, databricks-sql-connector, trino, pyathena, BigQuery's DB-API, ...).

The SQL runs inside that connection, transpiled to the dialect; only result tables come back.
Values are written into the statements as sqlglot literals (drivers bind in five parameter
styles, and some not at all). Results come back as Arrow where the cursor gives Arrow (ADBC's
``fetch_arrow_table``), else from its rows; every result is conformed to its declared schema
(``engines.base.conform``). Work tables are the dialect's (``sql.dialects.Dialect.work_tables``):
temporary tables, or tables of the current schema (or ``schema=``) where temporary tables are
missing, each named for the run and dropped before the call returns. discosql never closes,
commits or reconfigures the connection: one that is not in autocommit mode is refused.
"""

from __future__ import annotations

import sys
from decimal import Decimal
from typing import Any

import pyarrow as pa
from sqlglot import exp

from ..errors import EngineError, InputError
from ..sql.dialects import FACTS, facts, inline_params, placeholders
from ..sql.templates import ident
from ..sql.types import affinity
from .base import Engine, Registered, Source, described
from .names import candidates, named_source, parts_of
from .pg_catalog import resolved, server_about

# the names PEP 249 gives the bases of a driver's exceptions
PEP249_ERRORS = ("Error", "DatabaseError", "InterfaceError")
# Snowflake's type codes (snowflake.connector.constants.FIELD_TYPES; fakesnow's too) -> a type
# name; NUMBER (0) is an integer at scale 0
SNOWFLAKE_TYPES = {
    0: "NUMBER",
    1: "DOUBLE",
    2: "TEXT",
    3: "DATE",
    4: "TIMESTAMP",
    6: "TIMESTAMP",
    7: "TIMESTAMP",
    8: "TIMESTAMP",
    12: "TIME",
    13: "BOOLEAN",
}

# ADBC's vendor_name (adbc_get_info) -> the dialect
ADBC_VENDORS = {
    "PostgreSQL": "postgres",
    "SQLite": "sqlite",
    "Snowflake": "snowflake",
    "BigQuery": "bigquery",
    "DuckDB": "duckdb",
}


def adbc_dialect(connection: Any) -> str:
    """The dialect of an ADBC connection, from its driver's vendor name."""
    vendor = str(connection.adbc_get_info().get("vendor_name", ""))
    if vendor not in ADBC_VENDORS:
        raise InputError(
            f"engine: an ADBC connection to {vendor or 'an unknown database'!r}, whose SQL "
            f"dialect discosql does not know; give ds.dbapi(connection, dialect=...) with "
            f"one of {sorted(FACTS)}"
        )
    return ADBC_VENDORS[vendor]


def refuse_manual_commit(connection: Any, fix: str = "open it with autocommit=True") -> None:
    """An InputError for a connection not in autocommit mode, before anything runs on it
    (asking an ADBC driver its vendor would open a transaction there); ``fix``: how to open
    one that is."""
    if _autocommit(connection) is False:
        module = type(connection).__module__.split(".")[0]
        raise InputError(
            f"engine: the {module} connection is not in autocommit mode, and discosql does "
            f"not change yours (its statements would run in your transaction); {fix}"
        )


def is_adbc(connection: Any) -> bool:
    return any(c.__module__.startswith("adbc_driver") for c in type(connection).__mro__)


class DBAPIEngine(Engine):
    """A PEP 249 connection of ``dialect``, read by its facts (``sql.dialects.FACTS``); the
    PostgreSQL and SQLite engines are this with their drivers' own ways (``engines.postgres``,
    ``engines.sqlite``)."""

    stack_budget = 2**21  # stacked targets (discosql.stacked), as the SQL engines
    # how to open a connection in autocommit mode (the refusal of one that is not)
    autocommit_fix = "open it with autocommit=True"

    def about(self) -> dict[str, str | None]:
        about: dict[str, str | None] = {"engine": self.name, "version": None, "driver": None}
        if is_adbc(self.con):  # the driver says what it is and what it talks to
            info = self.con.adbc_get_info()
            vendor = f"{info.get('vendor_name', '')} {info.get('vendor_version', '')}".strip()
            driver = f"{info.get('driver_name', '')} {info.get('driver_version', '')}".strip()
            about |= {"version": vendor or None, "driver": driver or None}
        else:
            module = type(self.con).__module__.split(".")[0]
            about["driver"] = f"{module} {_distribution_version(module) or ''}".strip()
        if self.facts.pg_catalog:  # PostgreSQL's own functions
            about |= server_about(self)
        return about

    def __init__(self, connection: Any, dialect: str, schema: str | None = None) -> None:
        super().__init__()
        self.con = connection
        self.dialect = dialect
        self.facts = facts(dialect)
        self.name = f"{dialect} ({type(connection).__module__.split('.')[0]} connection)"
        self.schema = schema
        self.record_order = self.position_order is not None  # the dialect's (Engine)
        self._errors = _error_classes(connection)
        # a relation's description, read once when its name is looked up (_register) and
        # used for its column types (_columns)
        self._described: dict[str, list[tuple[Any, ...]]] = {}
        refuse_manual_commit(connection, self.autocommit_fix)

    # -- inputs -----------------------------------------------------------------------------
    def classify(self, obj: Any, label: str) -> Source:
        source = named_source(obj, label, "dbapi_table", self.name)
        if source is not None:
            return source
        raise InputError(
            f"{label}: on a {self.dialect} connection a data set is a table or view name "
            f"('persons' or 'schema.persons', or a tuple of the parts), got "
            f"{described(obj)}"
        )

    def _register(self, source: Source, name: str, param: str) -> Registered:
        """The table as named, else as the database stores an unquoted name (Snowflake: upper
        case; PostgreSQL: lower case), by the rule of :mod:`.names`; on PostgreSQL its
        catalogue says which exists (the rule of a DSN and a psycopg connection)."""
        if self.facts.pg_catalog:
            sql = resolved(self, source, self.schema)
            self._described[sql] = self._describe(sql)
            return Registered(source, sql)
        tried: list[str] = []
        error: BaseException | None = None
        for candidate in candidates(parts_of(source.obj), self.dialect, self.schema):
            sql = ".".join(ident(p) for p in candidate)
            tried.append(sql)
            try:
                self._described[sql] = self._describe(sql)
            except Exception as e:
                if not self._is_engine_error(e):
                    raise
                error = e
                continue
            return Registered(source, sql)
        raise EngineError(f"no table or view {' or '.join(tried)} ({_first_line(error)})")

    def _describe(self, relation: str) -> list[tuple[Any, ...]]:
        cur = self.con.cursor()
        try:
            cur.execute(self.translate(f"SELECT * FROM {relation} WHERE 1 = 0", {})[0])
            if hasattr(cur, "fetch_arrow_table"):  # ADBC: the types as Arrow has them
                schema = cur.fetch_arrow_table().schema
                return [(f.name, f.type) for f in schema]
            return [tuple(d) for d in cur.description or []]
        finally:
            cur.close()

    def _columns(self, reg: Registered) -> dict[str, str]:
        if self.facts.column_types == "declared":  # a column's values may differ
            table = reg.source.obj
            rows = self._fetch_rows(f"PRAGMA table_info({ident(table)})")
            return {str(r[1]): affinity(str(r[2] or "")) for r in rows}
        module = self._module()
        codes = SNOWFLAKE_TYPES if self.facts.column_types == "snowflake_codes" else {}
        return {str(d[0]): _type_name(d, module, codes) for d in self._described.pop(reg.sql)}

    def _module(self) -> Any:
        """The driver's module with PEP 249's type objects (``NUMBER``, ``STRING``, ...)."""
        parts = type(self.con).__module__.split(".")
        for i in range(len(parts), 0, -1):
            module = sys.modules.get(".".join(parts[:i]))
            if module is not None and hasattr(module, "NUMBER"):
                return module
        return None

    # -- work tables ------------------------------------------------------------------------
    def close(self) -> None:
        self.drop_leftovers()  # the connection is the user's: never closed

    def _create_table(self, name: str, sql: str, params: dict[str, Any], stage: str) -> None:
        self._drop_table(name)
        temp = "TEMP " if self.facts.work_tables == "temp" else ""
        self.execute(f"CREATE {temp}TABLE {ident(name)} AS\n{sql}", params, stage)
        self.analyze(name, stage)

    def own(self, name: str) -> str:
        physical = super().own(name)
        if physical != name and self.facts.work_tables != "temp":
            # a table of the schema given, or the current one; SQL Server's #temporary
            # schema: "scratch" or "catalog.scratch"
            shared = self.schema and self.facts.work_tables == "table"
            where = self.schema.split(".") if shared and self.schema else []
            leaf = f"#{physical}" if self.facts.work_tables == "hash" else physical
            self._own[ident(name)] = ".".join(ident(p) for p in [*where, leaf])
        return physical

    # -- output tables ----------------------------------------------------------------------
    def output_table(self, name: str, database: str | None) -> str:
        if database is not None:
            raise InputError("out: a DuckDB database file needs the DuckDB engine")
        if self.facts.rename is None:
            raise InputError(f"out_table: {self.dialect} cannot rename a table; write files")
        where = self.schema.split(".") if self.schema else []
        parts = name.split(".") if "." in name else [*where, name]
        return ".".join(exp.to_identifier(p, quoted=True).sql(self.facts.writer) for p in parts)

    def has_table(self, name: str, database: str | None) -> bool:
        try:
            self._fetch_rows(f"SELECT 1 FROM {self.output_table(name, database)} WHERE 1 = 0")
        except Exception as e:
            if not self._is_engine_error(e):
                raise
            return False
        return True

    def replace_table(self, staging: str, table: str, name: str) -> list[str]:
        leaf = exp.to_identifier(name.split(".")[-1], quoted=True).sql(self.facts.writer)
        target = leaf if self.facts.rename == "unqualified" else table
        statements = [f"DROP TABLE IF EXISTS {table}", f"ALTER TABLE {staging} RENAME TO {target}"]
        return ["BEGIN", *statements, "COMMIT"] if self.facts.transactional_ddl else statements

    def positioned(self, reg: Registered) -> str:
        """Where the tables keep no record order, the records are numbered as the engine
        reads them: the numbers tell records apart within one materialised table (the measures
        need no more), never which input record a row is, so no per-record table is given
        (``record_order``)."""
        if self.position_order is None:
            selected, relation = reg.select_list(), reg.relation()
            return f"(SELECT {selected}, row_number() OVER () AS __disco_pos FROM {relation})"
        return super().positioned(reg)

    def _is_interrupt(self, e: Exception) -> bool:
        """ADBC answers SIGINT by cancelling the statement, and reports only its CANCELLED
        error (the interrupt is not raised): a cancel that no timeout asked for is Ctrl-C
        (discosql never cancels a statement itself)."""
        if super()._is_interrupt(e):
            return True
        status = getattr(getattr(e, "status_code", None), "name", None)
        text = str(e).lower()
        return is_adbc(self.con) and status == "CANCELLED" and "timeout" not in text

    # -- running SQL ------------------------------------------------------------------------
    def translate(self, sql: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The statement in the dialect with its values as sqlglot literals."""
        sql = self.owned(sql)
        names = placeholders(sql)
        used = {k: v for k, v in params.items() if k in names}
        return inline_params(sql, used, self.dialect), {}

    def _is_engine_error(self, e: Exception) -> bool:
        """The driver's error: one of its ``Error`` classes, or (a driver that lends another's
        classes, as fakesnow) an exception under a non-builtin class named as PEP 249 names
        the base of every database error."""
        if isinstance(e, self._errors):
            return True
        return any(
            c.__name__ in PEP249_ERRORS and c.__module__ != "builtins" for c in type(e).__mro__
        )

    def _execute(self, sql: str, params: dict[str, Any]) -> None:
        cur = self.con.cursor()
        try:
            cur.execute(sql)
        finally:
            cur.close()

    def _fetch_rows(self, sql: str) -> list[Any]:
        cur = self.con.cursor()
        try:
            cur.execute(sql)
            return list(cur.fetchall())
        finally:
            cur.close()

    def _query(self, sql: str, params: dict[str, Any]) -> pa.Table:
        cur = self.con.cursor()
        try:
            cur.execute(sql)
            if hasattr(cur, "fetch_arrow_table"):
                table: pa.Table = cur.fetch_arrow_table()
                return table
            names = [str(d[0]) for d in cur.description or []]
            rows = cur.fetchall()
        finally:
            cur.close()
        return pa.table([_array([r[i] for r in rows]) for i in range(len(names))], names=names)


def _array(values: list[Any]) -> pa.Array:
    """A result column from Python values: decimals (exact sums, Snowflake's NUMBER) as whole
    numbers where they all are, else as doubles."""
    if any(isinstance(v, Decimal) for v in values):
        return from_decimals(values)
    return pa.array(values)


def from_decimals(values: list[Any]) -> pa.Array:
    """A column of decimals (and NULLs): BIGINT where every one is a whole number (a SUM of
    integers), else DOUBLE."""
    integral = all(v is None or v == v.to_integral_value() for v in values)
    kind = int if integral else float
    converted = [None if v is None else kind(v) for v in values]
    return pa.array(converted, type=pa.int64() if integral else pa.float64())


def _type_name(column: tuple[Any, ...], module: Any, codes: dict[int, str]) -> str:
    """A column's type as a SQL type name sqlglot reads, from what the driver says of it: an
    Arrow type (ADBC), a type name, a known driver's type code (``codes``), or PEP 249's type
    objects; a number is an integer at scale 0."""
    code = column[1]
    scale = column[5] if len(column) > 5 else None
    if isinstance(code, pa.DataType):
        return _arrow_name(code)
    if isinstance(code, str):
        return code
    if isinstance(code, int) and code in codes:
        name = codes[code]
        return ("BIGINT" if scale == 0 else "DOUBLE") if name == "NUMBER" else name
    for kind, name in (("NUMBER", "NUMBER"), ("STRING", "TEXT"), ("DATETIME", "TIMESTAMP")):
        if module is not None and hasattr(module, kind) and code == getattr(module, kind):
            if name == "NUMBER":
                return "BIGINT" if scale == 0 else "DOUBLE"
            return name
    return f"UNKNOWN {code!r}"


def _arrow_name(t: pa.DataType) -> str:
    if pa.types.is_integer(t):
        return "BIGINT"
    if pa.types.is_floating(t):
        return "DOUBLE"
    if pa.types.is_decimal(t):
        return "BIGINT" if t.scale == 0 and t.precision <= 18 else "DOUBLE"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "TEXT"
    if pa.types.is_boolean(t):
        return "BOOLEAN"
    if pa.types.is_date(t):
        return "DATE"
    if pa.types.is_timestamp(t):
        return "TIMESTAMP"
    if pa.types.is_null(t):
        return "NULL"
    return f"UNKNOWN {t}"


def _error_classes(connection: Any) -> tuple[type[BaseException], ...]:
    """The connection's DB-API ``Error`` classes: its own attribute (a PEP 249 extension)
    and the ``Error`` of each module its class comes from."""
    found: list[type[BaseException]] = []
    candidates = [getattr(connection, "Error", None)]
    for cls in type(connection).__mro__:
        module = sys.modules.get(cls.__module__)
        candidates.append(getattr(module, "Error", None))
    for c in candidates:
        if isinstance(c, type) and issubclass(c, BaseException) and c not in found:
            found.append(c)
    return tuple(found)


def _autocommit(connection: Any) -> bool | None:
    """Whether the connection commits each statement (None: it does not say)."""
    for attribute in ("autocommit", "_autocommit"):
        value = getattr(connection, attribute, None)
        if isinstance(value, bool):
            return value
    return None


def _distribution_version(module: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    for name in (module, module.replace("_", "-")):
        try:
            return version(name)
        except PackageNotFoundError:
            continue
    return None


def _first_line(e: BaseException | None) -> str:
    return str(e).strip().splitlines()[0] if e is not None and str(e).strip() else ""
