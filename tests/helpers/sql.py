"""The portability lint of exported SQL (and of the rendered templates, test_templates.py)."""

from __future__ import annotations

import re
from typing import Any

# Constructs that break on PostgreSQL, Spark or SQLite (or that sqlglot leaves untranslated).
NON_PORTABLE = {
    "GROUP BY ALL": r"group\s+by\s+all\b",
    "QUALIFY": r"\bqualify\b",
    "hash()": r"\bhash\s*\(",
    "struct": r"\bstruct\b|\{\s*'",
    "concat()": r"\bconcat\s*\(",
    "null-safe comparison": r"is\s+(not\s+)?distinct\s+from|<=>",
    "list functions": r"\blist_\w+\s*\(|\bunnest\s*\(",
    ":: casts": r"::",
}
# What a system's documentation says it lacks (the scripts for it must not use it)
DOCUMENTED_LIMITS = {
    # Trino (and Athena) have no temporary tables (trinodb/trino #5686)
    "trino": {"temporary tables": r"\bcreate\s+(temp|temporary)\s+table\b"},
}


def strip_strings(sql: str) -> str:
    """``sql`` with every string literal emptied (``''``)."""
    return re.sub(r"'(?:[^']|'')*'", "''", sql)


def assert_portable(script: str, dialect: str) -> list[Any]:
    """An exported script parses in its dialect, binds no parameter (every value a literal)
    and uses no construct of NON_PORTABLE; returns its statements."""
    import sqlglot

    statements = [s for s in sqlglot.parse(script, read=dialect) if s is not None]
    body = strip_strings(re.sub(r"--[^\n]*", "", script))
    assert "$" not in body
    assert "%(" not in body
    for construct, pattern in NON_PORTABLE.items():
        if construct == "concat()" and dialect == "trino":
            continue  # sqlglot writes Trino's || as CONCAT, which Trino runs
        assert not re.search(pattern, body, re.IGNORECASE), f"{construct} in {dialect}"
    for construct, pattern in DOCUMENTED_LIMITS.get(dialect, {}).items():
        assert not re.search(pattern, body, re.IGNORECASE), f"{construct} in {dialect}"
    return statements


# an export's own token in its work tables' and staging tables' names (random per export)
_TOKEN = re.compile(r"(__disco_|__discosql_staging_)[0-9a-f]{8}(_?)")


def untokened(script: str) -> str:
    """``script`` with its export's token taken out of the names (``__disco_<token>_cells``
    -> ``__disco_cells``), so that two exports of the same call compare equal."""
    return _TOKEN.sub(lambda m: m.group(1).rstrip("_") + (m.group(2) and "_"), script)
