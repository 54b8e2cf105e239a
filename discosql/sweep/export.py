"""``sweep_to_sql``: the key sweep as one SQL script (the duckdb shell, a warehouse console).

The script runs the statements :func:`discosql.key_sweep` runs, with every value a literal.
As for :func:`discosql.to_sql`, the data are read at export time for the decisions that need
them (column types, numeric grouping, each key's radix in the q packing, level checks); the
script checks them where it runs (stage 015) and stops, naming the column, when they no
longer hold. Each subset's measures are added to one work table, which the script prints
last: one result table, ordered by target, n_keys, keys and synthesis.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ..core.export import Header, retarget, script_sources, script_text, table_names_of
from ..core.inputs import open_inputs
from ..core.plan import plan
from ..core.stages import count_cells, plan_radices
from ..engines.base import Engine
from ..engines.script import ScriptEngine
from ..errors import InputError
from ..measure.summary import target_specs
from ..sql.dialects import unknown_dialect
from ..sql.templates import ident
from .key_sweep import (
    MEASURES_TEMPLATE,
    SWEEP_SCHEMA,
    SweepOptions,
    check_arguments,
    sweep_target,
)

ROWS = "__disco_sweep_rows"


class ScriptRows:
    """The script's sink: the first subset's measures create the work table, the others are
    inserted into it."""

    def __init__(self) -> None:
        self.created = False

    def add(
        self, engine: Engine, sql: str, params: dict[str, Any], subsets: dict[int, list[str]]
    ) -> None:
        if not self.created:
            engine.create_table(ROWS, sql, params, MEASURES_TEMPLATE)
            self.created = True
        else:
            engine.execute(f"INSERT INTO {ident(ROWS)}\n{sql}", params, MEASURES_TEMPLATE)


def sweep_to_sql(
    original: Any,
    synthetic: Any,
    keys: str | Sequence[str],
    targets: str | Sequence[str] | None = None,
    *,
    sizes: int | Sequence[int] | None = None,
    fixed_keys: str | Sequence[str] = (),
    dialect: str = "duckdb",
    tables: dict[str, Any] | None = None,
    engine: Any = None,
    threads: int | None = None,
    **options: Any,
) -> str:
    """One SQL script that prints the table of :func:`discosql.key_sweep` (``keys`` as text,
    the subset's names joined by ", "). ``dialect``, ``tables``, ``engine``: as
    :func:`discosql.to_sql`; the other arguments as :func:`discosql.key_sweep`."""
    if problem := unknown_dialect(dialect):
        raise InputError(problem)
    key_list, _, subsets, target_list = check_arguments(
        SweepOptions(keys, targets, sizes, fixed_keys, options)
    )
    n_syn = len(synthetic) if isinstance(synthetic, list | tuple) else 1
    table_names = table_names_of(tables, n_syn)  # checked before any data is read
    with open_inputs(engine, threads, original, synthetic) as inputs:
        specs = target_specs(inputs, key_list, target_list, options)
        plans = [plan(inputs, s) for s in specs]
        plans = [
            dataclasses.replace(p, radices=r)
            for p, r in zip(plans, plan_radices(plans), strict=True)
        ]
        script = ScriptEngine(dialect)
        sources = script_sources(inputs.sources, table_names, dialect)
        targets = ", ".join(s.target for s in specs)
        header = Header(
            "key sweep",
            dialect,
            [f"keys {', '.join(key_list)}; {len(subsets)} subsets; targets {targets}"],
            sources,
            "one table (keys, n_keys, target, synthesis, UiO, UiS, UiOiS, repU, Dorig, Dsyn, "
            "iS, DiS, DiSCO, DiSDiO, max_denom, mean_denom), each row disclosure() with that "
            "subset as keys.",
            "The grouping and the q packing were decided at export time.",
        )
        script.comment(header.text())
        sink = ScriptRows()
        for p, cells, _ in count_cells([retarget(p, script, sources) for p in plans]):
            sweep_target(p, cells, subsets, sink)
        script.execute(
            f"SELECT {', '.join(ident(c) for c in SWEEP_SCHEMA.names)} FROM {ident(ROWS)} "
            "ORDER BY target, n_keys, keys, synthesis",
            {},
            "key sweep: every subset's measures",
        )
        script.drop_table(ROWS)
    return script_text(script)
