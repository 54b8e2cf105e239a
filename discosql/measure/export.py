"""``to_sql``: the measures as one self-contained SQL script, for the ``duckdb`` shell or a
warehouse console.

The script is exactly the SQL that :func:`discosql.disclosure` runs (the same templates and
stages), with every bound value written as a literal by sqlglot and transpiled to the dialect.
Decisions that need the data (the column types, numeric grouping breaks, the keys' q packing,
the check that level arguments exist) are made at export time by reading the data once. The
script re-checks all but the column types where it runs (stage 015, :mod:`.assumptions`) and
stops with a message naming the column when the data no longer fit them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ..core.dictionaries import pack_keys
from ..core.export import Header, retarget, script_sources, script_text, table_names_of
from ..core.inputs import Inputs, open_inputs
from ..core.plan import Plan, plan
from ..core.spec import DisclosureSpec, build_spec
from ..core.stages import execute, plan_radices
from ..engines.script import ScriptEngine
from ..errors import InputError
from ..sql.dialects import unknown_dialect


def to_sql(
    original: Any,
    synthetic: Any,
    keys: Any,
    target: str | Sequence[str],
    *,
    dialect: str = "duckdb",
    tables: dict[str, Any] | None = None,
    engine: Any = None,
    threads: int | None = None,
    **options: Any,
) -> str:
    """One readable SQL script that computes the result tables of :func:`discosql.disclosure`.

    Args:
        original, synthetic: the data, read once at export time for the column types and the
            data-dependent decisions (numeric grouping breaks, level checks). With
            ``dialect="duckdb"`` and Parquet/CSV files, the script reads those files.
        keys, target: as :func:`discosql.disclosure`; ``target`` may be a list (one section of
            the script per target, with the same options).
        dialect: one of duckdb, postgres, spark, databricks, bigquery, snowflake, trino, tsql.
        tables: what the script reads instead: ``{"original": "db.persons", "synthetic":
            ["db.syn1", ...]}`` (table names, dotted for schema/database); needed unless the
            data are files and the dialect is duckdb, or the data are table names on ``engine``.
        engine: where to read the data at export time (default: DuckDB), e.g. a PostgreSQL DSN
            when the data are tables on that server.
        options: every other option of :func:`discosql.disclosure`.

    Returns:
        The script. Each result table is one SELECT, in the order ident, attrib, allcaps,
        exclusions, check_1way, check_2way, disco_curve, disco_tau (only where ``tau`` is
        given); ``duckdb < script.sql`` prints them.
    """
    if problem := unknown_dialect(dialect):
        raise InputError(problem)
    targets = [target] if isinstance(target, str) else list(target)
    if not targets:
        raise InputError("target: give a target column or a list of them")
    specs = [build_spec(keys, t, options) for t in targets]
    n_syn = len(synthetic) if isinstance(synthetic, list | tuple) else 1
    table_names = table_names_of(tables, n_syn)  # checked before any data is read
    with open_inputs(engine, threads, original, synthetic) as inputs:
        return script_of(inputs, specs, dialect, table_names)


def script_of(
    inputs: Inputs, specs: Sequence[DisclosureSpec], dialect: str, table_names: list[str | None]
) -> str:
    """The script of :func:`to_sql` for ``specs`` (one section each), its decisions made on
    ``inputs`` (registered on a real engine; a report passes those it already read)."""
    plans = [plan(inputs, s) for s in specs]  # every check before anything is written
    # the q packing and code types, as the script will use them
    plans = [
        dataclasses.replace(p, radices=r) for p, r in zip(plans, plan_radices(plans), strict=True)
    ]
    script = ScriptEngine(dialect)
    sources = script_sources(inputs.sources, table_names, dialect)
    header = Header(
        "synthpop disclosure() measures",
        dialect,
        [
            f"keys {', '.join(plans[0].spec.keys)}; "
            f"target(s) {', '.join(p.spec.target for p in plans)}; m = {inputs.m}"
        ],
        sources,
        "for each target, one SELECT per table: ident, attrib, allcaps, exclusions, "
        "check_1way, check_2way, disco_curve, and disco_tau where tau was given (percentages "
        "0-100, as synthpop); with several targets a one-row table (target) names each target "
        "before its tables.",
        "Decisions that needed the data were made at export time (below, per target).",
    )
    script.comment(header.text())
    for p in plans:
        script.comment(f"\n===== target {p.spec.target!r} =====\n{_decisions(p)}")
        if len(plans) > 1:  # the shell prints this one-row table before the target's tables
            script.label("target", p.spec.target)
        execute(retarget(p, script, sources))
    return script_text(script)


def _decisions(p: Plan) -> str:
    lines = [f"options: {_options(p)}"]
    for col, g in p.groupings.items():
        codes = f"; cont_na codes kept as levels: {[c for _, c in g.codes]}" if g.codes else ""
        lines.append(
            f"grouping of {col!r} (decided at export time, {g.style} breaks): "
            f"{list(g.labels)}{codes}"
        )
    if p.spec.not_targetlev or p.spec.exclusions:
        lines.append("level arguments checked against the data at export time")
    radices = (p.radices or [])[:-1]
    _, n_words, _ = pack_keys(p.keys_ctx, radices)
    lines.append(
        f"q packing (decided at export time): key radices {radices} (levels + 1), "
        f"{n_words} BIGINT word(s); more levels in the data need a new export"
    )
    return "\n".join(lines)


def _options(p: Plan) -> str:
    s = p.spec
    parts = [f"denom_lim={s.denom_lim}", f"exclude_ov_denom_lim={s.exclude_ov_denom_lim}"]
    if s.not_targetlev:
        parts.append(f"not_targetlev={list(s.not_targetlev)}")
    parts.append(f"use_target_na={s.use_target_na}")
    parts.append(f"use_keys_na={list(s.use_keys_na)}")
    if s.exclusions:
        parts.append(f"exclude={[(e.key, e.keylev, e.targetlev) for e in s.exclusions]}")
    parts.append(f"thresh_1way={s.thresh_1way}, thresh_2way={s.thresh_2way}")
    if s.tau:
        parts.append(f"tau={list(s.tau)}")
    return ", ".join(parts)
