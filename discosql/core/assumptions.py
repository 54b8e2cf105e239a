"""Decisions made from the data ahead of a run, and the run-time guard of exported scripts.

An exported script (:func:`discosql.to_sql`) is written from the data at export time: the
numeric grouping breaks and labels, the q packing of the keys (each key's radix), the code
type of each target, and the check that the levels named in ``not_targetlev``, ``exclude_*``
and ``cont_na`` exist. The data under a table name may change before the script runs. The
script then re-runs what each decision read (stage 015, the export guard) and stops with a
message naming the column, rather than print numbers that belong to other data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ..engines.base import Engine
from ..sql.templates import render

GUARD = "__disco_guard"

CHANGED = "discosql: the data differ from those this script was exported from"
RE_EXPORT = "re-export the script (discosql.to_sql) from the data it runs on"


@dataclass(frozen=True)
class Assumption:
    """A query a decision was computed from, and what it returned then; ``about`` says what
    it means when the query returns something else ("the grouping breaks of key 'age' ...").

    ``template`` is rendered with ``context`` and the data sets of wherever it runs, with the
    parameters ``params`` (named uniquely within a plan). ``positive``: only require that the
    named ``columns`` of its one row are > 0, else the same rows (``rows``) over ``columns``.
    """

    about: str
    template: str
    context: dict[str, Any]
    params: dict[str, Any]
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    positive: bool = False


def read(
    engine: Engine,
    sources: Sequence[Any],
    source_params: dict[str, Any],
    template: str,
    context: dict[str, Any],
    params: dict[str, Any],
    about: str,
) -> tuple[pa.Table, Assumption]:
    """Run a decision's query over ``sources`` (``inputs.DataSet``, whose parameters are
    ``source_params``) and record it as an :class:`Assumption`."""
    sql = render(template, engine.dialect, sources=sources, **context)
    table = engine.query(sql, {**source_params, **params}, template.removesuffix(".sql.j2"))
    rows = tuple(tuple(r.values()) for r in table.to_pylist())
    return table, Assumption(about, template, context, params, tuple(table.column_names), rows)


@dataclass(frozen=True)
class Fits:
    """Every code of a stage 010 dictionary is below ``limit`` (a key's radix, or the
    capacity of a target's code type); ``about`` names the column ("key 'age'"); ``stack``:
    the column's number in ``levels`` when that table stacks dictionaries."""

    levels: str
    limit: int
    about: str
    stack: int | None = None


@dataclass(frozen=True)
class Present:
    """``level`` is a level of a stage 010 dictionary; ``about`` says what it means when it
    is not ("not_targetlev: 'x' is no longer a level of the target 'y'"); ``stack``: as
    :class:`Fits`'s."""

    levels: str
    level: str
    about: str
    stack: int | None = None


def create_guard(
    engine: Engine,
    sources: Sequence[Any],
    params: dict[str, Any],
    checks: Sequence[Assumption | Fits | Present],
) -> dict[str, Any]:
    """Stage 015: create the guard table; returns the parameters its statement used."""
    ctx: list[dict[str, Any]] = []
    guard_params = dict(params)
    for i, check in enumerate(checks):
        msg, value = f"guard_m{i}", f"guard_v{i}"
        item: dict[str, Any] = {"message": msg}
        if isinstance(check, Fits):
            guard_params[value] = check.limit
            item |= {"kind": "fits", "levels": check.levels, "stack": check.stack}
            item["limit"] = value
        elif isinstance(check, Present):
            guard_params[value] = check.level
            item |= {"kind": "present", "levels": check.levels, "stack": check.stack}
            item["level"] = value
        else:
            guard_params |= check.params
            rows = []
            for r, row in enumerate(check.rows):
                names = [f"guard_e{i}_{r}_{c}" for c in range(len(row))]
                guard_params |= dict(zip(names, row, strict=True))
                rows.append(names)
            sql = render(check.template, engine.dialect, sources=sources, **check.context)
            kind = "positive" if check.positive else "same"
            item |= {"kind": kind, "sql": sql, "columns": check.columns, "rows": rows}
        guard_params[msg] = f"{CHANGED}: {check.about}; {RE_EXPORT} (check {i}, count "
        ctx.append(item)
    template = "stages/015_export_guard.sql.j2"
    sql = render(template, engine.dialect, checks=ctx)
    engine.create_table(GUARD, sql, guard_params, template)
    return guard_params
