"""The targets of a summary measured together where the data are small (stacked targets).

On small data most of a target's time is the fixed cost of its statements (DuckDB plans each
in milliseconds, Spark runs each as a job), and a target runs six. Here the cells of a batch
of targets go into one table with a target id (``tid``): stage 040 is one statement (each
target's own stage 040 query, with its own exclusion options, stacked by
``stages/040_stacked_targets``), and stage 045, the measures and the checks run once for the
batch, grouped by ``tid`` first (``macros/cells`` ``by``). Each result table is then split by
``tid``; the numbers are those of one target at a time (tests/measure/test_coded_plan.py).

How many targets a batch holds is decided from the data: the records read per target
(original + syntheses) times the batch's targets stays within the engine's
``Engine.stack_budget``, so that the stacked cells stay small; above it each target runs
alone, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import TemplateError
from ..sql.dialects import placeholders
from ..sql.templates import render
from .plan import Plan
from .results import BY_TEMPLATE, RESULT_TABLES, DisclosureResult, conform_result
from .stages import (
    CELLS,
    QCELLS,
    Cells,
    cell_steps_sql,
    count_cells,
    drop_flagged,
    exclusion_context,
    measure_tables,
    measure_target,
    result_of,
)

STACKED_LEVELS = "__disco_levels_stacked"
# at most this many targets in one statement (its text grows with each target's stage 040)
MAX_BATCH = 64


def batch_size(plans: Sequence[Plan]) -> int:
    """How many targets run together: as many as keep (records per target) x (targets) within
    the engine's stack_budget, and at most MAX_BATCH; 1 (each alone) for an exported script or
    above the budget."""
    engine = plans[0].inputs.engine
    if engine.exporting or not engine.stack_budget:
        return 1
    records = max(1, sum(s.n_rows for s in plans[0].inputs.sources))
    return max(1, min(len(plans), MAX_BATCH, engine.stack_budget // records))


def execute_stacked(
    plans: Sequence[Plan], progress: Callable[[int, int, str], None] | None = None
) -> list[DisclosureResult]:
    """Every measure of several planned targets with the same keys and inputs (a summary), the
    targets in batches of :func:`batch_size`; the results in the order of ``plans``."""
    size = batch_size(plans)
    results: list[DisclosureResult] = []
    batch: list[tuple[Plan, Cells]] = []
    cells_of = count_cells(plans, progress, read_once=True, all_at_once=size > 1)
    for i, (p, cells, _) in enumerate(cells_of):
        batch.append((p, cells))
        # a batch is measured while the generator holds the records and dictionaries (it drops
        # them once it is exhausted), the last one too
        if len(batch) == size or i == len(plans) - 1:
            results += _measure_batch(batch)
            batch = []
    return results


def _measure_batch(batch: list[tuple[Plan, Cells]]) -> list[DisclosureResult]:
    if len(batch) == 1:
        return [measure_target(*batch[0])]
    engine = batch[0][0].inputs.engine
    names = [t.name for t in RESULT_TABLES]
    try:
        steps = _stack(batch)
        p0, cells0 = batch[0]
        stacked = replace(cells0, target=replace(cells0.target, levels=STACKED_LEVELS, stack=None))
        tables = measure_tables(p0, stacked, steps, names, tid=True)
    finally:
        drop_flagged(engine)
        engine.drop_table(STACKED_LEVELS)
    templates = {t.name: t.template for t in RESULT_TABLES}
    return [
        result_of(p, {n: _of_target(tables[n], tid, templates[n]) for n in names})
        for tid, (p, _) in enumerate(batch)
    ]


def _of_target(table: pa.Table, tid: int, template: str) -> pa.Table:
    """The rows of target ``tid`` of a stacked result table, as one target's result."""
    # SQLite's driver types a column by its values, and some engines' small integers arrive
    # as text or decimals: the ids are compared as integers
    tids = table.column("tid").cast(pa.int32())
    own = table.filter(pc.equal(tids, tid)).drop_columns(["tid"])
    return conform_result(template, own.select(BY_TEMPLATE[template].schema.names))


def _stack(batch: list[tuple[Plan, Cells]]) -> list[int]:
    """The stacked stage 040 (the table CELLS, with tid), the stacked target dictionary and
    stage 045 (QCELLS, grouped by tid first); returns the exclusion steps a cell can have in
    any of the targets."""
    engine = batch[0][0].inputs.engine
    contexts = [exclusion_context(p, c, prefix=f"x{tid}_") for tid, (p, c) in enumerate(batch)]
    steps = sorted({k for context, _ in contexts for k in context["steps"]})
    params: dict[str, Any] = {}
    parts = []
    for tid, ((_, cells), (context, own)) in enumerate(zip(batch, contexts, strict=True)):
        # every part has the columns of the steps of all the targets
        sql = cell_steps_sql(engine, cells, {**context, "steps": steps})
        for name in placeholders(sql):  # the targets' parameters meet in one statement
            if name in params and params[name] != own[name]:
                raise TemplateError(f"stacked targets: parameter {name!r} differs between them")
            params[name] = own[name]
        parts.append({"tid": tid, "sql": sql})
    wide = [c.target.code_type for _, c in batch]
    t_type = next(t for t in ("bigint", "integer", "smallint") if t in wide)
    template = "stages/040_stacked_levels.sql.j2"
    sql = render(template, engine.dialect, targets=[c.target for _, c in batch])
    engine.create_table(STACKED_LEVELS, sql, {}, template)
    template = "stages/040_stacked_targets.sql.j2"
    qcols = batch[0][1].qcols
    sql = render(template, engine.dialect, parts=parts, qcols=qcols, steps=steps, t_type=t_type)
    engine.create_table(CELLS, sql, params, template)
    template = "stages/045_q_margins.sql.j2"
    sql = render(template, engine.dialect, cells=CELLS, qcols=qcols, steps=steps, tid=True)
    engine.create_table(QCELLS, sql, {}, template)
    return steps
