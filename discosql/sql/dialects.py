"""SQL dialects: DuckDB-dialect statements transpiled by sqlglot, their parameters found and,
for scripts and drivers that cannot bind them, written as sqlglot literals.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

import sqlglot
from sqlglot import exp

from ..errors import EngineError

# The dialects an exported script can be written in (to_sql, `discosql sql --dialect`).
DIALECTS = (
    "duckdb", "postgres", "spark", "databricks", "bigquery", "snowflake", "trino", "tsql",
    "datafusion",
)  # fmt: skip


def writer(dialect: str) -> str:
    """The sqlglot dialect that writes SQL for ``dialect``: Apache DataFusion's SQL (which
    sqlglot does not know) follows PostgreSQL's: integer `/`, `||`, `DOUBLE PRECISION`."""
    return "postgres" if dialect == "datafusion" else dialect


def _isnan(node: exp.Expression) -> exp.Expression:
    # DataFusion has isnan(), which the PostgreSQL writer would spell IS_NAN
    if isinstance(node, exp.IsNan):
        return exp.Anonymous(this="isnan", expressions=[node.this])
    return node


# Dialects whose ``/`` divides integers exactly, where sqlglot would write DuckDB's ``//`` as a
# division of doubles (inexact above 2^53: q words reach 2^62) or, on PostgreSQL, as DIV(),
# which returns NUMERIC. Templates divide integers only through int_div (macros/portable).
NATIVE_INT_DIV = ("sqlite", "tsql", "trino", "postgres", "datafusion")


def _int_div(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.IntDiv):
        return exp.Div(this=node.this, expression=node.expression, typed=True)
    return node


def _exact_multiple_div(node: exp.Expression) -> exp.Expression:
    # Snowflake divides NUMBERs to a rounded scale: TRUNC(a / b) can round up to the next
    # integer. a - a % b is a multiple of b, so its quotient is exact.
    if isinstance(node, exp.IntDiv):
        a, b = node.this, node.expression
        multiple = exp.Sub(this=a.copy(), expression=exp.Mod(this=a.copy(), expression=b.copy()))
        quotient = exp.Div(this=exp.Paren(this=multiple), expression=b.copy(), typed=True)
        return exp.Cast(this=quotient, to=exp.DataType.build("bigint"))
    return node


def _trees(sql: str, dialect: str) -> list[Any]:
    trees = [t for t in sqlglot.parse(sql, read="duckdb") if t is not None]
    if dialect == "datafusion":
        trees = [t.transform(_isnan) for t in trees]
    if dialect in NATIVE_INT_DIV:
        return [t.transform(_int_div) for t in trees]
    if dialect == "snowflake":
        return [t.transform(_exact_multiple_div) for t in trees]
    return trees


@functools.lru_cache(maxsize=256)
def _parsed(sql: str, dialect: str) -> tuple[Any, ...]:
    """:func:`_trees`, cached: an exported script writes the same statements with other values
    (a report's script: 11 targets, 242 statements of a few dozen texts)."""
    return tuple(_trees(sql, dialect))


# What can hold a `$`: a string literal, a quoted identifier, a comment, or a parameter. The
# templates write no other quoting (no dollar-quoted or E'' strings): identifiers come from
# ident() and values are bound, so this scan finds exactly the parameters sqlglot's parse tree
# has (tests/test_templates.py compares the two on every statement the tests render).
_LEXEMES = re.compile(
    r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/|\$([A-Za-z_][A-Za-z0-9_]*)", re.S
)


@functools.lru_cache(maxsize=512)
def placeholders(sql: str) -> frozenset[str]:
    """The ``$name`` parameters a DuckDB-dialect statement uses: a ``$name`` inside a quoted
    identifier, a string literal or a comment is text, not a parameter. A scan, not a parse:
    every statement goes through here, and parsing a large one costs more than running it."""
    return frozenset(m.group(1) for m in _LEXEMES.finditer(sql) if m.group(1))


def parsed_placeholders(sql: str) -> frozenset[str]:
    """:func:`placeholders` as sqlglot's parse tree has them (what the scan is tested against)."""
    return frozenset(
        node.name for t in _trees(sql, "duckdb") for node in t.find_all(exp.Placeholder)
    )


def literal(value: Any) -> exp.Expr:
    """A parameter value as a sqlglot literal of the type a bound parameter would have: a float
    is a DOUBLE (``CAST('0.1' AS DOUBLE)`` is the double Python holds; a bare ``0.1`` would be
    a decimal on PostgreSQL and DuckDB), everything else as sqlglot converts it (quoted and
    escaped there)."""
    if isinstance(value, float):
        text = (
            repr(value)
            if math.isfinite(value)
            else {"nan": "NaN", "inf": "Infinity"}.get(repr(value), "-Infinity")
        )
        return exp.Cast(this=exp.Literal.string(text), to=exp.DataType.build("double"))
    return exp.convert(value)


@functools.lru_cache(maxsize=512)
def transpile(sql: str, dialect: str) -> str:
    """DuckDB-dialect SQL in ``dialect`` (cached: the same statement recurs across targets)."""
    return ";\n".join(t.sql(writer(dialect)) for t in _trees(sql, dialect))


def inline_params(
    sql: str, params: dict[str, Any], dialect: str, file_format: str | None = None
) -> str:
    """``sql`` with every ``$name`` parameter replaced by a literal, in ``dialect``.

    For exported scripts only, which must run without a driver. The literals are built by
    sqlglot from the values (quoted and escaped there), never by pasting text.
    ``file_format``: a CREATE TABLE gets it (Spark's ``USING PARQUET``).
    """
    trees = _parsed(sql, dialect)  # transform() below works on a copy of each cached tree

    def replace(node: Any) -> Any:
        if isinstance(node, exp.Placeholder | exp.Parameter):
            name = node.name
            if name not in params:
                raise EngineError(f"parameter ${name} has no value")
            return literal(params[name])
        if file_format and isinstance(node, exp.Create):
            prop = exp.FileFormatProperty(this=exp.var(file_format))
            node.set("properties", exp.Properties(expressions=[prop]))
        return node

    # transform() copies the cached tree; the copy is ours, so the generator need not copy it
    out = [t.transform(replace).sql(writer(dialect), copy=False, pretty=True) for t in trees]
    return ";\n".join(out)
