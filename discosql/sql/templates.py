"""Render the SQL templates of ``sql_templates/`` (and, in the tests, parse the result at once).

Identifiers reach SQL only through the ``ident`` filter (sqlglot quoting); values are bound
parameters (``$name``) and never pasted. Integers that shape the SQL go through ``lit``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import sqlglot
from sqlglot import exp

from ..errors import EngineError, TemplateError

DIALECT = "duckdb"

# Whether render() parses what it renders with sqlglot (the tests turn it on, tests/conftest.py:
# a template that sqlglot cannot read could not be transpiled for the other engines). Off at run
# time: the engine parses the statement anyway, and parsing a large one in Python costs more
# than DuckDB takes to run it on small data.
CHECK_PARSE = False


def template_dir() -> Path:
    """Locate ``sql_templates``: in the installed package first, else in the repository checkout."""
    installed = Path(str(resources.files("discosql"))) / "sql_templates"
    if installed.is_dir():
        return installed
    checkout = Path(__file__).resolve().parents[2] / "sql_templates"
    if checkout.is_dir():
        return checkout
    raise TemplateError(f"sql_templates not found (looked in {installed} and {checkout})")


def ident(name: object) -> str:
    """Quote an identifier for the template dialect (spaces, quotes, unicode, SQL words: safe)."""
    if not isinstance(name, str):
        raise TemplateError(f"identifier must be a string, got {type(name).__name__}: {name!r}")
    return _quoted(name)


@functools.lru_cache(maxsize=4096)
def _quoted(name: str) -> str:
    # the same few names are quoted thousands of times per call, and sqlglot builds a
    # generator each time
    return exp.to_identifier(name, quoted=True).sql(DIALECT)


def lit(value: object) -> str:
    """Emit a validated integer that changes the shape of the SQL (positions, synthesis numbers)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TemplateError(f"lit() takes an int, got {type(value).__name__}: {value!r}")
    return str(value)


class BytecodeCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept between processes, in Jinja's per-user temporary directory (a
    template whose source changed is compiled again). Compiling the templates of one summary,
    or the release report's HTML, is a large share of a new process's first call (the CLI's
    every call). A cache that cannot be read or written is skipped, never an error."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except OSError:
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def bytecode_cache(env: jinja2.Environment, kind: str) -> jinja2.BytecodeCache | None:
    """The cache of ``env``'s compiled templates (``kind``: sql or html), or None when no safe
    temporary directory exists."""
    # the compiled code depends on the environment's options: they name the cached files, so
    # a change of options never reads code compiled under others
    options = repr(
        (
            env.trim_blocks,
            env.lstrip_blocks,
            env.keep_trailing_newline,
            env.block_start_string,
            env.variable_start_string,
            env.comment_start_string,
            env.line_statement_prefix,
            env.newline_sequence,
            env.autoescape,
        )
    )
    options = hashlib.sha1(options.encode()).hexdigest()[:12]
    try:
        return BytecodeCache(pattern=f"__discosql_{kind}_{options}_%s.cache")
    except (OSError, RuntimeError):  # no safe temporary directory: compile in each process
        return None


@functools.cache
def environment(dialect: str = DIALECT) -> jinja2.Environment:
    """The Jinja environment for SQL that will run on ``dialect`` (templates stay DuckDB SQL;
    ``dialect`` only lets a macro in ``macros/`` pick a portable spelling)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.bytecode_cache = bytecode_cache(env, "sql")
    env.filters["ident"] = ident
    env.filters["lit"] = lit
    env.globals["dialect"] = dialect
    # the dialect's spellings (sql/dialects.py), read when a macro asks: no template compares
    # a dialect's name (tests/test_layout.py)
    env.globals["spelling"] = functools.partial(_spelling, dialect)
    return env


def _spelling(dialect: str, fact: str) -> Any:
    from .dialects import spelling  # sql/dialects.py reads no template: imported when used

    try:
        return spelling(dialect, fact)
    except EngineError as e:
        raise TemplateError(str(e)) from None


@functools.lru_cache(maxsize=1024)
def _parse(sql: str) -> None:
    # The same statement recurs across targets and calls; parsing it once is enough.
    sqlglot.parse(sql, read=DIALECT)


def render(template: str, dialect: str = DIALECT, **context: Any) -> str:
    """Render ``template`` with ``context`` (parsed with sqlglot when CHECK_PARSE is on);
    errors name the template.

    ``dialect`` is the engine the SQL is meant for; the result is DuckDB SQL either way.
    """
    try:
        sql = environment(dialect).get_template(template).render(**context)
    except (TemplateError, jinja2.TemplateError) as e:
        raise TemplateError(f"template {template} failed to render: {e}") from e
    if not CHECK_PARSE:
        return sql
    try:
        _parse(sql)
    except sqlglot.errors.ParseError as e:
        snippet = "\n".join(sql.splitlines()[:40])
        raise TemplateError(
            f"template {template} rendered SQL that does not parse: {e}\n{snippet}"
        ) from e
    return sql
