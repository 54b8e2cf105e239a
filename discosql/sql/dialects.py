"""SQL dialects: DuckDB-dialect statements transpiled by sqlglot, their parameters found and,
for scripts and drivers that cannot bind them, written as sqlglot literals.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp

from ..errors import EngineError

# the values a spelling fact can take (the branches of macros/portable.sql.j2)
SPELLING_VALUES = {
    "nan_test": ("text", "isnan", "equals", "never"),
    "nan_literal": ("cast", "null"),
    "float_text": ("cast", "rebuild_e", "rebuild_E"),
    "stop_error": ("error", "raise_error", "cast"),
    "epoch_seconds": (
        "epoch",
        "date_part",
        "unix_micros",
        "julianday",
        "epoch_microsecond",
        "datediff_big",
        "to_unixtime",
    ),
}
# ... and the values of the other facts that name a choice
CHOICES = {"unquoted_case": ("upper", "lower")}


@dataclass(frozen=True)
class Dialect:
    """What discosql needs to know of a SQL dialect, in one place: the script engine, the
    exports, the capabilities and the templates' macros read these facts, never the name.

    ``writer``: the sqlglot dialect that writes it. ``int_div``: how DuckDB's ``//`` is
    written: "native" (``/`` divides integers exactly), "exact_multiple" ((a - a % b) / b, for
    Snowflake's rounded NUMBER division) or "sqlglot" (sqlglot's own). ``nan_function``:
    isnan() is spelled so (DataFusion). ``grouping_sets``: GROUPING SETS groups its input in
    one pass, a hash table per set (DuckDB, PostgreSQL), so stage 010 finds many columns'
    values in one pass. Spark has GROUPING SETS but copies every row once per set (its Expand)
    before one grouping, so the pass reads records x columns rows: many times slower there
    than a grouping per column (docs/performance.md, Spark), and it is False.
    ``collect_set``: the dialect has Spark's ``collect_set`` (every distinct value of a column
    in one array), and a grouping costs a job each: stage 010 finds the values of many
    columns of a small data set in one aggregation (``core.dictionaries.collected``).
    ``position_order``: what orders a table's records as stored ("" for DuckDB, where it
    depends on what the script reads; None: no order, so no per-record table).
    ``work_tables``: "temp" (CREATE TEMP TABLE), "hash" (SQL Server's #name) or "table"
    (plain tables dropped first: Spark's temporary views are recomputed at every use).
    ``transactional_ddl``: DROP and RENAME in one transaction. ``rename``: "unqualified"
    (RENAME TO takes the bare new name), "qualified" or None (no RENAME: DataFusion).
    ``table_format``: what a CREATE TABLE is given (Spark's USING PARQUET).
    ``reads_files``: a script reads its inputs from files and writes files with COPY.
    ``exported``: an exported script can be written in it (``to_sql``, ``--dialect``).
    ``column_types``: how a connection of the dialect tells a table's column types:
    "described" (what a query's result description says), "declared" (SQLite: the declared
    types, PRAGMA table_info; values may differ) or "snowflake_codes" (Snowflake's type codes).
    ``executed``: discosql's tests run its exported scripts on the system (or an emulator);
    False: they are parsed and linted only, and the script and ``--dialect`` say so.
    ``quote_all``: every identifier is written quoted: the dialect folds unquoted names to
    upper case (Snowflake), and the result columns must reach Python as the templates name
    them (``n``, not ``N``).
    ``unquoted_case``: how the dialect stores a name written unquoted, so how it resolves one
    (:mod:`discosql.engines.names`, for table and column names alike): "upper" (Snowflake:
    ``sex`` is the column ``SEX``), "lower" (PostgreSQL, Trino, DataFusion: ``SEX`` is
    ``sex``), or None: stored as written (DuckDB, SQLite, Spark, BigQuery and SQL Server
    match names without regard to case instead, so a name must be given as it is stored, or
    the engine's own rule finds it). Only ASCII letters fold (PostgreSQL's rule in a UTF-8
    database; Snowflake's unquoted names are ASCII).
    ``analyze``: each work table is ANALYZEd once made: PostgreSQL's autovacuum never gathers
    a temporary table's statistics, and a planner that guesses a few dozen rows may join a
    work table before the keys are coded (a cross product of the records and the cells).
    ``union_widens``: a UNION's columns take the widest type of all its branches, so a first
    branch of NULLs is typed by the others (DuckDB). Elsewhere (PostgreSQL types them from
    the first branches: text) stage 010 leads its stacked UNION with a typed branch of no
    rows, which costs a scan of each column's data set to set up.
    ``ratio_sums``: CAP's sums of ratios of counts run as long divisions in BIGINT
    (``macros/levels`` ratio_sum) where every count is below 2^31, instead of in
    DECIMAL(38, 18), which Spark adds in BigDecimal and PostgreSQL in NUMERIC (3.5 and 1.75
    times slower there). DuckDB adds DECIMAL(38, 18) in 128-bit integers, faster than the
    divisions (10M rows, three ratios: 0.27 s against 0.45 s), and keeps it.
    ``pg_catalog``: the dialect has PostgreSQL's catalogue: ``to_regclass`` and
    ``information_schema`` find a table as a role sees it (:mod:`discosql.engines.names`),
    ``has_database_privilege`` and ``has_schema_privilege`` say whether the role may make its
    work and output tables, checked before a row is read (:mod:`discosql.engines.privileges`),
    and ``current_setting('server_version')`` names the server; elsewhere nothing is checked.
    ``row_hash``: a 64-bit hash of a whole record ``t`` (DuckDB's SQL, written in the dialect),
    whose sum over the records fingerprints a table regardless of their order
    (:mod:`discosql.core.fingerprint`); None: the dialect has none, and the report says so.
    ``load_order``: the order ``position_order`` numbers a table's records in is the order they
    were loaded in (DuckDB, SQLite's rowid, Spark's files); PostgreSQL's ctid is where a row
    is stored, which a plain COPY need not keep, so a per-record table without ``id=`` warns.
    ``runner``: how a shell runs a script of the dialect (``{script}``: its file), for the
    report's appendix; None: by the warehouse's console.

    The templates' spellings (``macros/portable.sql.j2``; None where unknown, so a template
    that needs one stops with an error naming the fact):
    ``nan_test``: how "x is NaN" is written: "text" (DuckDB: by its text, as DuckDB folds
    ``x = 'NaN'`` and isnan(x) to false from Parquet statistics), "isnan" (isnan(x)), "equals"
    (``x = cast('NaN' as double)``: PostgreSQL, where NaN = NaN is true) or "never" (SQLite
    stores no NaN). ``nan_stored_isnan``: isnan() is right for a DOUBLE in a work table the
    engine wrote itself (DuckDB). ``fsum``: DuckDB's fsum, a sum of doubles with the same bits
    in every run. ``text_collate``: the collation an ORDER BY of text names for byte order
    ("C" on PostgreSQL; "" where text compares bytewise). ``nan_literal``: a NaN double,
    "cast" (``cast('NaN' as double)``) or "null" (SQLite, which reads NULL back as NaN).
    ``float_text``: a finite double as DuckDB's text: "cast" (the cast prints the same
    digits), "rebuild_e" (PostgreSQL: rebuilt from digits and exponent) or "rebuild_E"
    (Spark's Java layout). ``stop_error``: how a statement stops with a message: "error"
    (error()), "raise_error" (Spark's) or "cast" (a cast of the text to INTEGER, which fails
    and prints it). ``materialized_hint``: a common table expression takes DuckDB's
    MATERIALIZED / NOT MATERIALIZED. ``epoch_seconds``: a date or timestamp as its seconds
    since 1970-01-01, a double with its fraction: "epoch" (DuckDB's epoch()), "date_part"
    (``date_part('epoch', x)``: PostgreSQL, DataFusion), "unix_micros" (``unix_micros(x) /
    1e6``: Spark, Databricks, BigQuery), "to_unixtime" (Trino), "julianday" (SQLite, whose
    dates and times are text), "epoch_microsecond" (Snowflake's date_part) or "datediff_big"
    (T-SQL). The distance family subtracts them, so an offset of the time zone cancels.
    """

    name: str
    writer: str
    int_div: str = "sqlglot"
    nan_function: bool = False
    grouping_sets: bool = False
    collect_set: bool = False
    position_order: str | None = None
    work_tables: str = "temp"
    transactional_ddl: bool = False
    rename: str | None = "qualified"
    table_format: str | None = None
    reads_files: bool = False
    exported: bool = True
    column_types: str = "described"
    executed: bool = True
    quote_all: bool = False
    unquoted_case: str | None = None
    analyze: bool = False
    union_widens: bool = False
    ratio_sums: bool = True
    pg_catalog: bool = False
    row_hash: str | None = None
    runner: str | None = None
    load_order: bool = True
    # the templates' spellings (sql_templates/macros/portable.sql.j2 reads them through
    # spelling(); None: not known for this dialect, and a template that needs it stops with
    # an error instead of writing another dialect's spelling)
    nan_test: str | None = None
    nan_stored_isnan: bool = False
    fsum: bool = False
    text_collate: str | None = None
    nan_literal: str | None = None
    float_text: str | None = None
    stop_error: str | None = None
    epoch_seconds: str | None = None
    materialized_hint: bool = False

    def __post_init__(self) -> None:
        for fact, allowed in (SPELLING_VALUES | CHOICES).items():
            value = getattr(self, fact)
            if value is not None and value not in allowed:
                raise ValueError(f"{self.name}: {fact}={value!r} is not one of {allowed}")


SPARK_ORDER = "monotonically_increasing_id()"

FACTS = {
    d.name: d
    for d in (
        Dialect(
            "duckdb",
            "duckdb",
            nan_test="text",
            nan_stored_isnan=True,
            fsum=True,
            text_collate="",
            nan_literal="cast",
            float_text="cast",
            stop_error="error",
            epoch_seconds="epoch",
            materialized_hint=True,
            grouping_sets=True,
            position_order="",
            transactional_ddl=True,
            rename="unqualified",
            reads_files=True,
            union_widens=True,
            ratio_sums=False,
            row_hash="hash(t)",
            runner="duckdb -bail < {script}",
        ),
        Dialect(
            "postgres",
            "postgres",
            nan_test="equals",
            text_collate="C",
            nan_literal="cast",
            float_text="rebuild_e",
            stop_error="cast",
            epoch_seconds="date_part",
            int_div="native",
            grouping_sets=True,
            position_order="ctid",
            unquoted_case="lower",
            transactional_ddl=True,
            rename="unqualified",
            analyze=True,
            pg_catalog=True,
            row_hash="hashtextextended(CAST(t AS VARCHAR), 0)",
            runner="psql -v ON_ERROR_STOP=1 -f {script}",
            load_order=False,
        ),
        Dialect(
            "spark",
            "spark",
            nan_test="isnan",
            text_collate="",
            nan_literal="cast",
            float_text="rebuild_E",
            stop_error="raise_error",
            epoch_seconds="unix_micros",
            collect_set=True,
            position_order=SPARK_ORDER,
            work_tables="table",
            table_format="parquet",
            row_hash="xxhash64(t.*)",
            runner="spark-sql -f {script}",
        ),
        Dialect(
            "databricks",
            "databricks",
            nan_test="isnan",
            text_collate="",
            nan_literal="cast",
            float_text="rebuild_E",
            stop_error="raise_error",
            epoch_seconds="unix_micros",
            collect_set=True,
            executed=False,
            position_order=SPARK_ORDER,
            work_tables="table",
            table_format="parquet",
        ),
        Dialect(
            "bigquery",
            "bigquery",
            nan_test="equals",
            text_collate="",
            nan_literal="cast",
            float_text="cast",
            stop_error="error",
            epoch_seconds="unix_micros",
            rename="unqualified",
            executed=False,
        ),
        Dialect(
            "snowflake",
            "snowflake",
            nan_test="equals",
            text_collate="",
            nan_literal="cast",
            float_text="cast",
            stop_error="cast",
            epoch_seconds="epoch_microsecond",
            int_div="exact_multiple",
            column_types="snowflake_codes",
            quote_all=True,
            unquoted_case="upper",
        ),
        # Trino (and Athena) have no temporary tables (trinodb/trino #5686): plain work
        # tables in the current schema, dropped at the end
        Dialect(
            "trino",
            "trino",
            nan_test="equals",
            text_collate="",
            nan_literal="cast",
            float_text="cast",
            stop_error="cast",
            epoch_seconds="to_unixtime",
            int_div="native",
            work_tables="table",
            unquoted_case="lower",
            executed=False,
        ),
        Dialect(
            "tsql",
            "tsql",
            nan_test="equals",
            text_collate="",
            nan_literal="cast",
            float_text="cast",
            stop_error="cast",
            epoch_seconds="datediff_big",
            int_div="native",
            work_tables="hash",
            rename="unqualified",
            executed=False,
        ),
        # Apache DataFusion's SQL (which sqlglot does not know) follows PostgreSQL's: integer
        # `/`, `||`, DOUBLE PRECISION; isnan() is its own
        Dialect(
            "datafusion",
            "postgres",
            nan_test="isnan",
            text_collate="",
            nan_literal="cast",
            float_text="cast",
            stop_error="cast",
            epoch_seconds="date_part",
            int_div="native",
            nan_function=True,
            work_tables="table",
            unquoted_case="lower",
            rename=None,
        ),
        Dialect(
            "sqlite",
            "sqlite",
            nan_test="never",
            text_collate="",
            nan_literal="null",
            float_text="cast",
            stop_error="cast",
            epoch_seconds="julianday",
            int_div="native",
            position_order="rowid",
            exported=False,
            column_types="declared",
        ),
    )
}

# The dialects an exported script can be written in (to_sql, `discosql sql --dialect`).
DIALECTS = tuple(name for name, d in FACTS.items() if d.exported)
# ... those no test has executed (parsed and linted only)
UNEXECUTED = tuple(n for n in DIALECTS if not FACTS[n].executed)
# ... and those whose tables keep a record order (a per-record table can give positions)
ORDERED_DIALECTS = tuple(n for n in DIALECTS if FACTS[n].position_order is not None)
DEFAULT = "duckdb"  # the dialect of the templates and of the embedded engine


def facts(dialect: str) -> Dialect:
    """The facts of ``dialect`` (an EngineError for a name discosql does not know)."""
    if dialect not in FACTS:
        raise EngineError(f"dialect {dialect!r} is not one of {list(FACTS)}")
    return FACTS[dialect]


# the facts a template reads through spelling() (the others are read in Python)
SPELLINGS = (
    "nan_test",
    "nan_stored_isnan",
    "fsum",
    "text_collate",
    "nan_literal",
    "float_text",
    "stop_error",
    "materialized_hint",
    "epoch_seconds",
)


def spelling(dialect: str, fact: str) -> Any:
    """The templates' spelling ``fact`` of ``dialect`` (macros/portable.sql.j2), or an error
    naming what to add where the dialect's record does not say."""
    if fact not in SPELLINGS:
        raise EngineError(f"spelling {fact!r} is not one of {list(SPELLINGS)}")
    value = getattr(facts(dialect), fact)
    if value is None:
        raise EngineError(
            f"dialect {dialect!r} does not say how to write {fact!r}: add it to its record in "
            "FACTS (discosql/sql/dialects.py) rather than borrow another dialect's spelling"
        )
    return value


def known(dialect: Any) -> Dialect | None:
    """The facts of ``dialect``, or None for anything that is not a dialect's name (an
    argument not yet checked)."""
    return FACTS.get(dialect) if isinstance(dialect, str) else None


def unknown_dialect(dialect: Any, allowed: tuple[str, ...] = DIALECTS, why: str = "") -> str | None:
    """The problem with ``dialect`` as an argument (None: it is one of ``allowed``)."""
    if isinstance(dialect, str) and dialect in allowed:
        return None
    return f"dialect: {dialect!r} is not one of {list(allowed)}{why}"


def is_template_dialect(dialect: str) -> bool:
    """Whether SQL for ``dialect`` is the templates' own (DuckDB) SQL, run as written."""
    return dialect == DEFAULT


def writer(dialect: str) -> str:
    """The sqlglot dialect that writes SQL for ``dialect``."""
    return facts(dialect).writer


def _isnan(node: exp.Expression) -> exp.Expression:
    # DataFusion has isnan(), which the PostgreSQL writer would spell IS_NAN
    if isinstance(node, exp.IsNan):
        return exp.Anonymous(this="isnan", expressions=[node.this])
    return node


# How DuckDB's ``//`` is written where ``/`` divides integers exactly ("native"): sqlglot
# would write it as a division of doubles (inexact above 2^53: q words reach 2^62) or, on
# PostgreSQL, as DIV(), which returns NUMERIC. Templates divide integers only through int_div
# (macros/portable).


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


def _rewritten(tree: Any, kind: type[Any], fn: Callable[[exp.Expression], exp.Expression]) -> Any:
    """``tree`` with every ``kind`` node rewritten by ``fn``, the innermost first. sqlglot's
    transform() does not visit the operands of a node it has replaced, so a division nested in
    a division kept sqlglot's own spelling (PostgreSQL's NUMERIC DIV, Snowflake's rounded /)."""
    for node in reversed(list(tree.find_all(kind))):
        node.replace(fn(node))
    return tree


def _trees(sql: str, dialect: str) -> list[Any]:
    trees = [t for t in sqlglot.parse(sql, read="duckdb") if t is not None]
    d = facts(dialect)
    if d.nan_function:
        trees = [_rewritten(t, exp.IsNan, _isnan) for t in trees]
    if d.int_div == "native":
        return [_rewritten(t, exp.IntDiv, _int_div) for t in trees]
    if d.int_div == "exact_multiple":
        return [_rewritten(t, exp.IntDiv, _exact_multiple_div) for t in trees]
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


def _inlined(m: re.Match[str], params: dict[str, Any]) -> str:
    """A lexeme of :data:`_LEXEMES` as a duckdb script writes it: a parameter as its value's
    literal, anything else as it is."""
    name = m.group(1)
    if name is None:
        return m.group(0)
    if name not in params:
        raise EngineError(f"parameter ${name} has no value")
    return str(literal(params[name]).sql("duckdb"))


@functools.lru_cache(maxsize=512)
def transpile(sql: str, dialect: str) -> str:
    """DuckDB-dialect SQL in ``dialect`` (cached: the same statement recurs across targets)."""
    d = facts(dialect)
    return ";\n".join(t.sql(d.writer, identify=d.quote_all) for t in _trees(sql, dialect))


def inline_params(
    sql: str, params: dict[str, Any], dialect: str, file_format: str | None = None
) -> str:
    """``sql`` with every ``$name`` parameter replaced by a literal, in ``dialect``.

    For exported scripts only, which must run without a driver. The literals are built by
    sqlglot from the values (quoted and escaped there), never by pasting text.
    ``file_format``: a CREATE TABLE gets it (Spark's ``USING PARQUET``). A duckdb script
    keeps the statement as the engine runs it, each parameter's literal in its place (the
    scan of :func:`placeholders`): parsing and rewriting every statement cost a report's
    script most of its time, and the templates' own layout is the readable one.
    """
    if is_template_dialect(dialect) and file_format is None:
        return _LEXEMES.sub(lambda m: _inlined(m, params), sql)
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
    d = facts(dialect)
    out = [
        t.transform(replace).sql(d.writer, copy=False, pretty=True, identify=d.quote_all)
        for t in trees
    ]
    return ";\n".join(out)
