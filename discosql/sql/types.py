"""Column kinds from each engine's own type names, read by sqlglot's type parser.

An engine reports a column's type as it names it (DuckDB's ``DESCRIBE``, PostgreSQL's type
names, Spark's ``simpleString()``, SQLite's affinity); :func:`column_kind` parses that name in
the engine's dialect (``sqlglot.exp.DataType.build``) and sorts it into the kinds discosql
works with: integer, float, text, boolean, other (dates, times, UUIDs, intervals: compared as
values, never grouped), null (a column of NULLs only), or None (a type that cannot be a level:
lists, structs, maps, binary, JSON, bit strings). A new engine needs no map of its own.
"""

from __future__ import annotations

from functools import cache

from sqlglot import exp
from sqlglot.errors import ParseError

T = exp.DataType.Type
# BIT is a bit string in DuckDB, not a number
INTEGER = exp.DataType.INTEGER_TYPES - {T.BIT}
# decimals are read as doubles (docs/measures.md); money types arrive as text on some drivers
FLOAT = exp.DataType.REAL_TYPES - {T.MONEY, T.SMALLMONEY}
TEXT = exp.DataType.TEXT_TYPES | {T.BPCHAR, T.ENUM, T.ENUM8, T.ENUM16}
OTHER = exp.DataType.TEMPORAL_TYPES | {T.UUID, T.INTERVAL}
# the type of a column of NULLs only: DuckDB's DESCRIBE quotes it, Spark calls it void
NULL_NAMES = ('"NULL"', "NULL", "VOID")


@cache
def _parsed(native: str, dialect: str) -> exp.DataType | None:
    try:
        return exp.DataType.build(native, dialect=dialect, udt=False)
    except (ParseError, ValueError):
        return None


@cache
def column_kind(native: str, dialect: str) -> str | None:
    """The kind of a column whose type ``dialect`` names ``native``: integer, float, text,
    boolean, other or null; None if its values cannot be levels (or the name is unknown)."""
    if native.strip().upper() in NULL_NAMES:
        return "null"
    t = _parsed(native, dialect)
    if t is None:
        return None
    if t.this in INTEGER:
        return "integer"
    if t.this in FLOAT:
        return "float"
    if t.this in TEXT:
        return "text"
    if t.this == T.BOOLEAN:
        return "boolean"
    if t.this == T.NULL:
        return "null"
    if t.this in OTHER:
        return "other"
    return None


def affinity(declared: str) -> str:
    """The type a column's values are read as where the dialect keeps only its declared type
    (the ``column_types="declared"`` fact: SQLite), by SQLite's type affinity rules
    (https://sqlite.org/datatype3.html §3.1): INTEGER affinity is 64-bit, REAL and NUMERIC
    are doubles."""
    t = declared.upper()
    if "INT" in t:
        return "BIGINT"
    if any(s in t for s in ("CHAR", "CLOB", "TEXT")):
        return "TEXT"
    if any(s in t for s in ("REAL", "FLOA", "DOUB")):
        return "DOUBLE"
    if t.startswith(("BOOL",)):
        return "BOOLEAN"
    if any(s in t for s in ("NUMERIC", "DECIMAL")):
        return "DOUBLE"
    return "TEXT"  # BLOB or no type: compared as stored, labelled as text


def is_temporal(native: str, dialect: str) -> bool:
    """Whether a column whose type ``dialect`` names ``native`` holds dates or timestamps
    (the distance family reads them as seconds)."""
    t = _parsed(native, dialect)
    return t is not None and t.this in exp.DataType.TEMPORAL_TYPES - {T.TIME, T.TIMETZ}
