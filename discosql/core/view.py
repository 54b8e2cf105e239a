"""HTML from Jinja templates (``discosql/core/html/``: the macros and the notebook view
(``_repr_html_``) of every result; a capability that shows more, such as the release report,
adds its own template folder), autoescaped. No HTML is built from strings in Python."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import Any

import jinja2
import pyarrow as pa

from ..sql.templates import bytecode_cache

HTML_DIR = "html"


@cache
def environment(*packages: str) -> jinja2.Environment:
    """The environment reading the ``html/`` folders of ``packages`` first, then core's."""
    folders = [jinja2.PackageLoader(p, HTML_DIR) for p in (*packages, __package__ or "")]
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(folders),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.bytecode_cache = bytecode_cache(env, "html")
    env.filters["num"] = number
    return env


def render_html(template: str, *, packages: tuple[str, ...] = (), **context: Any) -> str:
    """The template ``template`` (in the ``html/`` folder of one of ``packages``, else of
    core) rendered with ``context``."""
    return environment(*packages).get_template(template).render(**context)


def number(value: Any, digits: int = 2) -> str:
    """A value as a table shows it: floats to ``digits`` decimals, NaN/None as an en dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "\u2013"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def table_rows(table: pa.Table) -> dict[str, Any]:
    """A table as the ``table`` macro takes it: column names, numeric flags, rows."""
    numeric = [pa.types.is_integer(f.type) or pa.types.is_floating(f.type) for f in table.schema]
    rows = [[row[c] for c in table.column_names] for row in table.to_pylist()]
    return {"columns": table.column_names, "numeric": numeric, "rows": rows}


def fragment(title: str, tables: list[tuple[str, pa.Table]], notes: Sequence[str] = ()) -> str:
    """The notebook view of a result: a title, notes and captioned tables."""
    shown = [(caption, table_rows(t)) for caption, t in tables]
    return render_html("fragment.html.j2", title=title, tables=shown, notes=list(notes))
