"""How a table or column name given to a database engine is read: one rule for every way of
reaching the same database (a DSN, a psycopg connection, ADBC, ``ds.dbapi``), and for tables and
columns alike (:func:`stored`: the dialect's ``unquoted_case`` fact).

A name is split into its parts at the dots outside double quotes (``"survey"."adult"``,
``survey.adult``, ``stats.survey.adult``; a ``(schema, table)`` tuple is its parts). A quoted
part is matched exactly; an unquoted one as written, then as the database stores an unquoted
name (PostgreSQL: lower case; Snowflake: upper case), as the database's own SQL would read
it. A first part that names the database connected to is dropped where the dialect has no
other databases in reach (PostgreSQL). A path (``adult.csv``, ``data/x.parquet``) is no table:
a server engine reads tables, DuckDB reads files.

A column named by an argument (``keys=``, ``target=``, ...) is an unquoted name: the column of
that name, else the one the database stores it as (:func:`column_of`: Snowflake's ``SEX`` for
``sex``), as the database's own SQL would read it.
"""

from __future__ import annotations

import os
import re
import string
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import InputError, did_you_mean
from ..sql.dialects import facts

if TYPE_CHECKING:
    from .base import Source

# what marks a file path rather than a table name
FILE_SUFFIXES = (".csv", ".tsv", ".txt", ".parquet", ".pq", ".json", ".jsonl", ".gz", ".zst")
_PART = re.compile(r'"((?:[^"]|"")*)"|([^."]+)')
# the case folds of unquoted names: ASCII letters only (PostgreSQL's in a UTF-8 database;
# Snowflake's unquoted names are ASCII)
FOLDS = {
    "upper": str.maketrans(string.ascii_lowercase, string.ascii_uppercase),
    "lower": str.maketrans(string.ascii_uppercase, string.ascii_lowercase),
}


def parts_of(name: str | Sequence[str]) -> list[tuple[str, bool]]:
    """The parts of a table name, each with whether it was quoted; an InputError for a name
    that does not split (an empty part, a quote left open)."""
    if not isinstance(name, str):
        return [(p, True) for p in name]  # a tuple's parts are the names themselves
    out: list[tuple[str, bool]] = []
    pos = 0
    text = name.strip()
    while True:
        m = _PART.match(text, pos)
        if m is None:
            raise InputError(f"{name!r} is not a table name (an empty part, or a quote left open)")
        quoted = m.group(1) is not None
        out.append((m.group(1).replace('""', '"') if quoted else m.group(2).strip(), quoted))
        pos = m.end()
        if pos == len(text):
            return out
        if text[pos] != ".":
            raise InputError(f"{name!r} is not a table name (text after a quoted part)")
        pos += 1


def is_path(name: str) -> bool:
    """Whether ``name`` reads as a file path, not a table name."""
    lower = name.lower()
    return lower.endswith(FILE_SUFFIXES) or "/" in name or os.sep in name or os.path.isfile(name)


def stored(name: str, dialect: str) -> str:
    """``name`` as ``dialect`` stores it when it is written unquoted (its ``unquoted_case``)."""
    case = facts(dialect).unquoted_case
    return name if case is None else name.translate(FOLDS[case])


def column_of(name: str, columns: Sequence[str], dialect: str) -> str:
    """The column an argument's ``name`` is among ``columns``, by the rule of table names: the
    column of that name, else the one ``dialect`` stores the unquoted name as (Snowflake:
    ``sex`` is ``SEX``); ``name`` itself where neither exists (the caller says it is missing).
    An InputError where no column has the name and more than one differs from it only in
    case (``SEX`` and ``Sex`` for ``sex``): the database would read the one it folds to, and
    the user may mean the other."""
    if name in columns:
        return name
    folded = stored(name, dialect)
    if folded == name or folded not in columns:
        return name
    lower = FOLDS["lower"]
    alike = [c for c in columns if c.translate(lower) == name.translate(lower)]
    if len(alike) > 1:
        shown = " and ".join(repr(c) for c in alike)
        raise InputError(
            f"no column is named {name!r} exactly, and {shown} differ from it only in case "
            f"(the database reads an unquoted {name} as {folded!r}); give the exact name"
        )
    return folded


def candidates(parts: list[tuple[str, bool]], dialect: str, schema: str | None) -> list[list[str]]:
    """The names to try, in order: as written, then with each unquoted part as ``dialect``
    stores it; an unqualified name in ``schema`` when one is given."""
    if len(parts) == 1 and schema:
        parts = [(p, False) for p in schema.split(".")] + parts
    written = [p for p, _ in parts]
    folded = [p if quoted else stored(p, dialect) for p, quoted in parts]
    return [written] if folded == written else [written, folded]


def suggestion(name: str, relations: Sequence[str]) -> str:
    """'; did you mean ...?' for a name not found among ``relations`` (schema.table), naming a
    schema's table when the name is a schema (a tuple read as several data sets)."""
    inside = [r for r in relations if r.casefold().startswith(name.casefold() + ".")]
    if inside:
        tables = ", ".join(r.split(".", 1)[1] for r in inside[:5]) + (", ..." if inside[5:] else "")
        return (
            f"; {name!r} is a schema (its tables: {tables}): a tuple or list of names is "
            f"several data sets, so name a table as {inside[0]!r}"
        )
    bare = {r.split(".", 1)[-1]: r for r in relations}
    hint = did_you_mean(name, [*relations, *bare])
    for short, full in bare.items():  # name the qualified table
        hint = hint.replace(f"{short!r}?", f"{full!r}?")
    return hint


def without_database(
    parts: list[tuple[str, bool]], database: str, engine: str
) -> list[tuple[str, bool]]:
    """``database.schema.table`` as ``schema.table`` when ``database`` is the one connected to;
    an InputError naming the database to connect to otherwise."""
    if len(parts) < 3:
        return parts
    if len(parts) > 3:
        shown = ".".join(p for p, _ in parts)
        raise InputError(f"{shown!r} has {len(parts)} parts; give database.schema.table at most")
    given, quoted = parts[0]
    if given == database or (not quoted and given.lower() == database):
        return parts[1:]
    raise InputError(
        f"{'.'.join(p for p, _ in parts)!r} is in the database {given!r}, but the {engine} "
        f"connection is to {database!r}; connect to {given!r} (dbname={given}) to read it"
    )


def named_source(obj: Any, label: str, kind: str, engine: str) -> Source | None:
    """``obj`` as a table name of a database engine (a string or a tuple of parts, checked to
    split), a path refused in one line; None for anything else (the engine says what it
    takes)."""
    if isinstance(obj, str) and obj and is_path(obj):
        raise path_refused(obj, label, engine)
    named = isinstance(obj, str) and obj
    if not (named or (isinstance(obj, tuple) and obj and all(isinstance(x, str) for x in obj))):
        return None
    from .base import Source

    try:
        parts_of(obj)
    except InputError as e:
        raise InputError(f"{label}: {e}") from None
    return Source(kind, obj, label, named_table=True)


def path_refused(name: str, label: str, engine: str) -> InputError:
    return InputError(
        f"{label}: {name!r} is a file path, but on {engine} a data set is a table or view of "
        "the database; read files with the DuckDB engine (the default), or load the file into "
        "a table first"
    )
