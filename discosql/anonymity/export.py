"""``singling_out_to_sql``, ``linkability_to_sql`` and ``exact_matches_to_sql``: the three tests
of anonymisation as one SQL script (the duckdb shell, PostgreSQL, Spark, a warehouse console).

A script runs the statements :func:`discosql.singling_out`, :func:`discosql.linkability` and
:func:`discosql.exact_matches` run (one function per test runs them on an engine or on the
script engine: ``run_singling_out``, ``run_matches``, ``run_linkability``), with every bound
value a literal; the totals, rates and intervals are computed in SQL by both
(``sql_templates/anonymity/rates.sql.j2`` and the tests' ``*_totals``/``*_summary``
templates). Decisions that need the data are made at export time by reading it: the q packing
of the columns (each column's radix), and for linkability how many distance levels each side
needs and which pairs of distances the link step meets, by which check. The script checks
them where it runs (stage 015 for the packing, a check after each decision for linkability)
and stops with a message when the data no longer fit them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.export import Header, script_sources
from ..core.inputs import Inputs, open_inputs
from ..engines.base import Registered
from ..engines.script import ScriptEngine
from ..errors import InputError
from ..sql.dialects import unknown_dialect
from . import linkability, linkability_gower, matches, singling_out
from .common import MAX_PAIRS, column_radices, options_for, schema_check

EXAMPLE = "tables={'original': 'db.persons', 'synthetic': 'db.syn1', 'control': 'db.holdout'}"


def singling_out_to_sql(
    original: Any,
    synthetic: Any,
    columns: str | Sequence[str] | None = None,
    mode: str = "multivariate",
    n_cols: int = 3,
    control: Any = None,
    *,
    numeric: str = "half-lines",
    max_pairs: int = MAX_PAIRS,
    dialect: str = "duckdb",
    tables: dict[str, Any] | None = None,
    engine: Any = None,
    threads: int | None = None,
) -> str:
    """One SQL script that computes :func:`discosql.singling_out` where the data live.

    Args:
        original, synthetic, control: read once at export time for the column types and the
            columns' q packing. With ``dialect="duckdb"`` and Parquet/CSV files the script
            reads those files.
        columns, mode, n_cols, numeric, max_pairs: as :func:`discosql.singling_out`; the half-line
            queries of numeric columns have no script yet: give ``numeric="values"``.
        dialect: one of duckdb, postgres, spark, databricks, bigquery, snowflake, trino, tsql.
        tables: what the script reads instead: ``{"original": "db.persons", "synthetic":
            "db.syn1", "control": "db.holdout"}`` (table names, dotted for a schema).
        engine, threads: where to read the data at export time (default: DuckDB).

    Returns:
        The script. It prints the summary (mode, n_cols, queries, successes,
        control_successes, rate, control_rate, risk, ci_low, ci_high, rate_ci_low,
        rate_ci_high), then ``by_columns`` (cid, columns as JSON text, queries, successes,
        control_successes).
    """
    options = options_for(
        singling_out.SinglingOutOptions,
        synthetic,
        columns=columns,
        mode=mode,
        n_cols=n_cols,
        numeric=numeric,
        max_pairs=max_pairs,
    )
    names_given = _script_arguments(dialect, tables, control)
    with open_inputs(engine, threads, original, synthetic, check=options.schema_check()) as inputs:
        names = options.names(inputs.sources[0])
        if control is not None:
            inputs = singling_out.with_control(inputs, control, names)
        radices = column_radices(inputs, names)
        script, on_script = _script(inputs, dialect, names_given)
        what = f"singling_out() ({mode}" + (
            f", n_cols {n_cols})" if mode == "multivariate" else ")"
        )
        results = "the summary (counts, rates, risk, intervals), then by_columns"
        script.comment(_header(what, names, radices, on_script.sources, dialect, results))
        singling_out.run_singling_out(on_script, options, radices)
    return script.text()


def exact_matches_to_sql(
    original: Any,
    synthetic: Any,
    columns: str | Sequence[str] | None = None,
    control: Any = None,
    *,
    dialect: str = "duckdb",
    tables: dict[str, Any] | None = None,
    engine: Any = None,
    threads: int | None = None,
) -> str:
    """One SQL script that computes :func:`discosql.exact_matches` where the data live; the
    arguments as :func:`discosql.singling_out_to_sql` (``synthetic`` may be a list: give
    ``tables["synthetic"]`` a list then). The script prints ``summary`` (one row per
    synthesis), then ``distances``."""
    options = options_for(matches.MatchesOptions, synthetic, many=True, columns=columns)
    n_syn = len(synthetic) if isinstance(synthetic, list | tuple) else 1
    names_given = _script_arguments(dialect, tables, control, n_syn)
    check = schema_check(options.columns)
    with open_inputs(engine, threads, original, synthetic, check=check) as inputs:
        names = options.names(inputs.sources[0])
        m = inputs.m
        if control is not None:
            inputs = matches.with_control(inputs, control, names)
        radices = column_radices(inputs, names)
        script, on_script = _script(inputs, dialect, names_given)
        results = "summary (one row per synthesis), then distances"
        script.comment(
            _header("exact_matches()", names, radices, on_script.sources, dialect, results)
        )
        matches.run_matches(on_script, options, m, radices)
    return script.text()


def linkability_to_sql(
    original: Any,
    synthetic: Any,
    aux_cols: Sequence[Sequence[str] | str],
    control: Any = None,
    *,
    numeric: str = "gower",
    dialect: str = "duckdb",
    tables: dict[str, Any] | None = None,
    engine: Any = None,
    threads: int | None = None,
) -> str:
    """One SQL script that computes :func:`discosql.linkability` where the data live; the
    arguments as :func:`discosql.singling_out_to_sql`. The attack runs once at export time to
    decide how many distance levels each side needs and how each pair of distances is
    linked; the script checks both where it runs. It prints the summary (counts, rates,
    risk, intervals), then ``by_distance``. Only the Hamming attack has a script: with a
    numeric column on a side, give ``numeric="values"`` (every column a category)."""
    options = options_for(
        linkability.LinkabilityOptions, synthetic, aux_cols=aux_cols, numeric=numeric
    )
    names, sides = options.names, options.sides
    names_given = _script_arguments(dialect, tables, control)
    with open_inputs(engine, threads, original, synthetic, check=schema_check(names)) as inputs:
        if control is not None:
            inputs = linkability.with_control(inputs, control, names)
        if linkability.needs_gower(linkability_gower.columns_of(inputs, options), options):
            raise InputError(linkability.NO_GOWER_SCRIPT)
        plan = linkability.run_linkability(inputs, options)[2]
        script, on_script = _script(inputs, dialect, names_given)
        a, b = (", ".join(side) for side in sides)
        results = "the summary (counts, rates, risk, intervals), then by_distance"
        header = _header(
            f"linkability() (A: {a}; B: {b})",
            names,
            plan.radices,
            on_script.sources,
            dialect,
            results,
        )
        script.comment(header + "\n" + plan.describe())
        linkability.run_linkability(on_script, options, plan)
    return script.text()


def _script_arguments(dialect: Any, tables: Any, control: Any, n_syn: int = 1) -> list[str | None]:
    """The script's arguments, checked before any data is read: the table names given for the
    original, each synthesis and the control (None: not given)."""
    problems: list[str] = []
    if problem := unknown_dialect(dialect):
        problems.append(problem)
    names: list[str | None] = [None] * (n_syn + 1 + (control is not None))
    if tables is not None and not isinstance(tables, dict):
        problems.append(f"tables: expected a dict, got {type(tables).__name__}")
    elif tables:
        wrong = set(tables) - {"original", "synthetic", "control"}
        if wrong:
            problems.append(
                f"tables: keys must be 'original', 'synthetic' and 'control', got {sorted(wrong)}"
            )
        if "control" in tables and control is None:
            problems.append("tables: names a control table, but no control= is given")
        syn = tables.get("synthetic")
        syn_list = [syn] if syn is None or isinstance(syn, str) else list(syn)
        if syn is not None and len(syn_list) != n_syn:
            problems.append(f"tables: 'synthetic' names {len(syn_list)} table(s) for {n_syn}")
        given = [tables.get("original"), *(syn_list if syn is not None else [None] * n_syn)]
        if control is not None:
            given.append(tables.get("control"))
        for name in given:
            if name is not None and (not isinstance(name, str) or not name.strip()):
                problems.append(f"tables: expected table names (text), got {name!r}")
        names = given
    if problems:
        raise InputError(problems)
    return names


def _script(inputs: Inputs, dialect: str, names: list[str | None]) -> tuple[ScriptEngine, Inputs]:
    """The script engine and the inputs as the script reads them (files or tables)."""
    sources = script_sources(inputs.sources, names, dialect, "tables", EXAMPLE)
    script = ScriptEngine(dialect)
    return script, Inputs(script, sources, inputs.groupings)


def _header(
    what: str,
    names: list[str],
    radices: list[int],
    sources: list[Registered],
    dialect: str,
    results: str,
) -> str:
    return Header(
        what,
        dialect,
        [f"columns: {', '.join(names)}"],
        sources,
        f"{results}.",
        f"The q packing (radices {radices}, levels + 1) was decided at export time.",
    ).text()
