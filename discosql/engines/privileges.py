"""What the connection's role may do, checked before any row is read: every call makes its work
tables as temporary tables, and ``out_table=`` creates tables in a schema. A role that may not
gets one :class:`~discosql.errors.InputError` naming the GRANT to ask for, not an engine error
after the counting has run.

Where the dialect has PostgreSQL's privilege functions (``has_database_privilege``,
``has_schema_privilege``; the ``pg_catalog`` fact of :mod:`discosql.sql.dialects`) they are
asked; elsewhere nothing is checked, and ``docs/engines.md`` says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import EngineError, InputError
from ..sql.dialects import facts
from ..sql.templates import ident, render

if TYPE_CHECKING:
    from .base import Engine

TEMPLATE = "engine/privileges.sql.j2"


def check_privileges(engine: Engine, schemas: Sequence[str | None] = ()) -> None:
    """The role may create temporary tables, and tables in each of ``schemas`` (None: the
    first schema of the search path, where an unqualified table goes); else an InputError."""
    if engine.exporting or not facts(engine.dialect).pg_catalog:
        return
    given = [s for s in dict.fromkeys(schemas) if s != "pg_temp"]
    params = {f"schema_{i}": s for i, s in enumerate(given)}
    sql = render(TEMPLATE, engine.dialect, schemas=[f"schema_{i}" for i in range(len(given))])
    try:
        rows = engine.query(sql, params, TEMPLATE, small=True).to_pylist()
    except EngineError as e:  # a schema that does not exist
        raise InputError(f"out_table: {str(e).splitlines()[0]}") from None
    first = rows[0]
    role, database = str(first["role"]), str(first["database"])
    if not first["temporary"]:
        raise InputError(
            f"engine: the role {role!r} may not create temporary tables in the database "
            f"{database!r}, and every discosql call keeps its work there; ask for: GRANT "
            f"TEMPORARY ON DATABASE {ident(database)} TO {ident(role)}"
        )
    problems = []
    for row in rows[1:]:
        schema = row["schema"]
        if schema is None:
            problems.append(
                "out_table: no schema of the search path exists to create the table in; "
                "name its schema (out_table='schema.name')"
            )
        elif not row["can_create"]:
            problems.append(
                f"out_table: the role {role!r} may not create tables in the schema {schema!r}; "
                f"ask for: GRANT CREATE ON SCHEMA {ident(str(schema))} TO {ident(role)}, or "
                "name a schema where it may"
            )
    if problems:
        raise InputError(problems)
