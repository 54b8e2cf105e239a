"""Column kinds from engine types, and the schema checks between original and syntheses."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

INTEGER_TYPES = {
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "HUGEINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
    "UHUGEINT",
}
FLOAT_TYPES = {"FLOAT", "DOUBLE", "REAL"}
TEXT_TYPES = {"VARCHAR"}
OTHER_TYPES = {
    "DATE",
    "TIME",
    "TIMESTAMP",
    "TIMESTAMP WITH TIME ZONE",
    "TIMESTAMP_S",
    "TIMESTAMP_MS",
    "TIMESTAMP_NS",
    "TIME WITH TIME ZONE",
    "UUID",
    "INTERVAL",
}

# What may be compared across data sets: a key that is text in one and numeric in the other is an
# error, an int in one and a double in the other is fine.
FAMILY = {
    "integer": "number",
    "float": "number",
    "text": "text",
    "boolean": "boolean",
    "other": "other",
}


def column_kind(duck_type: str) -> str | None:
    """Kind of a DuckDB type: integer, float, text, boolean, other or null; None if unusable."""
    t = duck_type.upper()
    if t in INTEGER_TYPES:
        return "integer"
    if t in FLOAT_TYPES or t.startswith("DECIMAL"):
        return "float"
    if t.endswith("]") or t.startswith(("STRUCT", "MAP", "UNION")):  # lists, arrays, nested
        return None
    if t in TEXT_TYPES or t.startswith(("ENUM(", "VARCHAR COLLATE")):
        return "text"
    if t == "BOOLEAN":
        return "boolean"
    if t in ('"NULL"', "NULL"):
        return "null"
    if t in OTHER_TYPES or re.fullmatch(r"TIMESTAMP.*", t):
        return "other"
    return None


def did_you_mean(name: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, list(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""
