"""PostgreSQL's catalogue, for every way of reaching a PostgreSQL database (a DSN, a psycopg
connection, ADBC, ``ds.dbapi``; the ``pg_catalog`` fact of :mod:`discosql.sql.dialects`):
which relation a table name is, as the role sees it (:func:`resolved`, by the rule of
:mod:`.names`), and what the server says of itself (:data:`ABOUT`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from ..errors import InputError
from ..sql.templates import ident
from .names import candidates, parts_of, suggestion, without_database

if TYPE_CHECKING:
    from .base import Engine, Source

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
    for candidate in candidates(parts, engine.dialect, schema):
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


def server_about(engine: Engine) -> dict[str, str | None]:
    """The server's version, database, host and role (:data:`ABOUT`) for ``about()``."""
    row = engine.query(ABOUT, {}, "about", small=True)
    first = row.to_pylist()[0]
    return {
        "version": server_version(row),
        "database": first["database"],
        "host": None if first["host"] is None else f"{first['host']}:{first['port']}",
        "role": first["role"],
    }
