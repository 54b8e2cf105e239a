"""Stages: the SQL of a planned disclosure() on one engine, in the order it runs.

1. stage 010: a level dictionary per key and target -> temp tables (:mod:`.dictionaries`; on
   small inputs all of them in one statement and one stacked table); in
   an exported script, stage 015 then checks the decisions made at export time
   (:mod:`.assumptions`);
2. stage 020: every record as integer codes (q words, one code per target): inline for one
   target, a table shared by the targets of a summary (sorted by q from three targets on); the
   keys are packed into BIGINT q words from each dictionary's size (:func:`.pack_keys`);
3. stage 030: the (j, q, t) cells of a target, a query that stage 040 inlines (-> a temp
   table where 040 reads it twice, on an engine that evaluates a CTE at each use);
4. stage 040: each cell's exclusion step -> temp table; stage 045: its q margins (what q as a
   whole says: disclosiveness, counts after exclusions) -> temp table; measures, checks and
   exclusions are aggregates over the two, with no join of margins back to the cells.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa

from ..engines.base import Engine, Work
from ..sql.dialects import facts
from ..sql.templates import render
from .assumptions import GUARD, Assumption, Fits, Present, create_guard
from .dictionaries import (
    CODE_CAPACITY,
    build_dictionaries,
    build_dictionary,
    code_type,
    decide_radices,
    dictionary_facts,
    key_fits,
    pack_keys,
    stacks,
    warn_empty_text,
    warn_unknown_targets,
)
from .inputs import DataSet, Inputs
from .plan import Column, GroupingParams, Plan, plan
from .results import RESULT_TABLES, DisclosureResult, computed_tables, conform_result
from .spec import DisclosureSpec

BASE_CELLS = "__disco_cells_base"


CELLS = "__disco_cells"


QCELLS = "__disco_qcells"


RECORDS = "__disco_records"


def execute(p: Plan) -> DisclosureResult:
    """Count the cells, flag them, and compute every measure and check of a planned target."""
    return execute_many([p])[0]


def execute_many(
    plans: Sequence[Plan],
    progress: Callable[[int, int, str], None] | None = None,
) -> list[DisclosureResult]:
    """Every measure of several planned targets with the same keys and inputs, one target at a
    time (a summary may also measure them in batches: :mod:`discosql.stacked`).

    The key dictionaries and the integer records are built once; each target then counts its
    cells from them.
    ``progress(i, n, target)`` is called before each target's cells are counted.
    """
    return [
        measure_target(p, cells) for p, cells, _ in count_cells(plans, progress, read_once=True)
    ]


def count_cells(
    plans: Sequence[Plan],
    progress: Callable[[int, int, str], None] | None = None,
    prefix: str = "__disco_levels_",
    keep: list[str] | None = None,
    read_once: bool = False,
    all_at_once: bool = False,
) -> Iterator[tuple[Plan, Cells, dict[str, Any]]]:
    """Stages 010-030 of planned targets with the same keys and inputs: for each target, its
    plan (with the packing's parameters), its base cells, and the context of stage 020 whose
    records they count (with that target alone). The tables are dropped at the end, but for
    the dictionaries (named from ``prefix``) when ``keep`` is given: their names are added
    to it. ``read_once``: the caller is stage 040, which reads the base cells once (they are
    inlined on every engine when it does). ``all_at_once``: the caller keeps every target's
    cells until the end (stacked targets): a stored base cell table is named per target and
    dropped at the end."""
    engine = plans[0].inputs.engine
    sources = plans[0].inputs.data_sets()
    keys, targets = _dictionaries(plans, sources, prefix)
    dictionaries = list(dict.fromkeys(c.levels for c in [*keys, *targets]))
    if keep is not None:
        keep.extend(dictionaries)
    with engine.work() as work:
        for name in dictionaries if keep is None else ():
            work.hold(name)
        if all(p.radices for p in plans):  # decided when the script was written
            radices = [*plans[0].radices[:-1], *(p.radices[-1] for p in plans)]  # type: ignore[index]
        else:
            radices, empty = dictionary_facts(engine, [*keys, *targets])
            if not engine.exporting:  # a script cannot warn
                warn_empty_text(engine, sources, [*keys, *targets], plans[0].params, empty)
                warn_unknown_targets(targets, radices[len(keys) :])
        keys, n_words, coding = pack_keys(keys, radices[: len(keys)])
        targets = [
            replace(t, code_type=code_type(r))
            for t, r in zip(targets, radices[len(keys) :], strict=True)
        ]
        guard = None
        if engine.exporting:  # decided ahead: check them where the script runs
            checks = _guard_checks(plans, keys, targets, radices)
            create_guard(engine, sources, plans[0].params, checks)
            guard = GUARD
            work.hold(GUARD)
        records_ctx = {
            "radices": radices,
            "sources": sources,
            "keys": keys,
            "targets": targets,
            "n_words": n_words,
            "guard": guard,
            "positions": False,
        }
        records_table = None
        if len(plans) > 1:
            template = "stages/020_records.sql.j2"
            # sorted by q, each target's cells meet each q in one run of rows (10M rows: 0.3 s
            # per target instead of 0.7 s); the sort (0.85 s) pays from three targets on
            order = len(plans) >= 3
            sql = render(template, engine.dialect, **records_ctx, order=order)
            work.create(RECORDS, sql, {**plans[0].params, **coding}, template)
            records_table = RECORDS
        qcols = [f"q_{w}" for w in range(n_words)]
        for i, (p, t) in enumerate(zip(plans, targets, strict=True)):
            if progress is not None:
                progress(i, len(plans), p.spec.target)
            template = "stages/030_cells.sql.j2"
            sql = render(
                template,
                engine.dialect,
                **records_ctx,
                order=False,
                records_table=records_table,
                target=t,
                qcols=qcols,
                syntheses=list(range(1, p.inputs.m + 1)),
                count_type=count_type(p),
            )
            params = {**p.params, **coding}
            # stage 040 reads the cells once unless it looks for a missing target: then every
            # engine can inline them (SQLite and Spark evaluate a CTE at each use)
            inlined = engine.inline_cells or (read_once and p.spec.use_target_na)
            base = f"{BASE_CELLS}_{i}" if all_at_once else BASE_CELLS
            if not inlined:
                work.create(base, sql, params, template)
            inline = sql if inlined else None
            target = replace(t, alias="t")
            cells = Cells(qcols=qcols, keys=keys, target=target, sql=inline, table=base)
            try:
                yield replace(p, params=params), cells, {**records_ctx, "targets": [t]}
            finally:
                if inline is None and not all_at_once:
                    work.drop(base)


def _guard_checks(
    plans: Sequence[Plan], keys: Sequence[Column], targets: Sequence[Column], radices: list[int]
) -> list[Assumption | Fits | Present]:
    """What an exported script checks before it counts (stage 015): every query a grouping
    was computed from, each key's codes below its radix and each target's below its code
    type's capacity, and every level an option names."""
    seen: set[int] = set()
    checks: list[Assumption | Fits | Present] = []
    for p in plans:
        for a in p.assumptions:  # targets of a summary share the keys' groupings
            if id(a) not in seen:
                seen.add(id(a))
                checks.append(a)
    checks.extend(key_fits(k, r) for k, r in zip(keys, radices, strict=False))
    for t in targets:
        if t.code_type in CODE_CAPACITY:
            cap = CODE_CAPACITY[t.code_type]
            about = f"target {t.name!r} has more than {cap - 1} levels ({t.code_type} codes)"
            checks.append(Fits(t.levels, cap, about, t.stack))
    for p, t in zip(plans, targets, strict=True):
        name = repr(p.spec.target)
        gone = "is no longer a level of"
        for lev in p.spec.not_targetlev:
            checks.append(Present(t.levels, lev, f"not_targetlev: {lev!r} {gone} {name}", t.stack))
        by_name = {k.name: k for k in keys}
        for i, ex in enumerate(p.spec.exclusions):
            about = f"exclude_targetlevs[{i}]: {ex.targetlev!r} {gone} {name}"
            checks.append(Present(t.levels, ex.targetlev, about, t.stack))
            about = f"exclude_keylevs[{i}]: {ex.keylev!r} {gone} {ex.key!r}"
            key = by_name[ex.key]
            checks.append(Present(key.levels, ex.keylev, about, key.stack))
    return checks


def plan_radices(plans: Sequence[Plan]) -> list[list[int]]:
    """Each plan's radices (its keys', then its target's), by building the dictionaries once on
    the plans' engine, as execute_many does (for scripts, which are written before they run)."""
    n_keys = len(plans[0].keys_ctx)

    def build(work: Work) -> list[Column]:
        keys, targets = _dictionaries(plans, plans[0].inputs.data_sets())
        for name in dict.fromkeys(c.levels for c in [*keys, *targets]):
            work.hold(name)
        return [*keys, *targets]

    radices = decide_radices(plans[0].inputs.engine, build)
    return [[*radices[:n_keys], r] for r in radices[n_keys:]]


def _dictionaries(
    plans: Sequence[Plan], sources: list[DataSet], prefix: str = "__disco_levels_"
) -> tuple[tuple[Column, ...], list[Column]]:
    """Stage 010 for the keys (once) and each plan's target: their contexts, each target with
    its alias and position (t_i, i). Small inputs (records x columns within the engine's
    stack_budget) get all the dictionaries in one statement, stacked in the table
    ``{prefix}all``: each statement's fixed cost is most of a small one's. Larger ones, and
    exported scripts, get a table per column (``{prefix}k{i}``, ``{prefix}t{i}``): a
    stacked statement holds every column's grouping of every data set at once (DuckDB with
    a 64 MB memory limit ran out on 4 columns of 2 x 300,000 records). The plans' targets
    share parameter names (a grouping's gt_b0, ...): stacked, each target's are renamed
    (t{i}_gt_b0, ...)."""
    engine = plans[0].inputs.engine
    keys = plans[0].keys_ctx
    if not stacks(engine, sources, len(keys) + len(plans)):
        keys = tuple(replace(k, levels=f"{prefix}k{k.pos}") for k in keys)
        for k in keys:
            build_dictionary(engine, sources, k, plans[0].params)
        targets = []
        for i, p in enumerate(plans):
            t = replace(p.target_ctx, alias=f"t_{i}", pos=i, levels=f"{prefix}t{i}")
            build_dictionary(engine, sources, t, p.params)
            targets.append(t)
        return keys, targets
    params = dict(plans[0].params)
    targets = [
        replace(
            p.target_ctx,
            alias=f"t_{i}",
            pos=i,
            grouping=_renamed(p.target_ctx.grouping, p.params, f"t{i}_", params),
        )
        for i, p in enumerate(plans)
    ]
    columns = [(c, sources) for c in [*keys, *targets]]
    made = build_dictionaries(engine, f"{prefix}all", columns, params)
    return made[: len(keys)], list(made[len(keys) :])


def _renamed(
    g: GroupingParams | None, values: dict[str, Any], prefix: str, params: dict[str, Any]
) -> GroupingParams | None:
    """The grouping ``g`` (its values in ``values``) with its parameters' names prefixed by
    ``prefix``, their values added to ``params``."""
    if g is None:
        return None
    names = [*g.breaks, *g.labels, *(n for pair in g.codes for n in pair)]
    params.update({prefix + n: values[n] for n in names})
    return GroupingParams(
        breaks=tuple(prefix + n for n in g.breaks),
        labels=tuple(prefix + n for n in g.labels),
        codes=tuple((prefix + v, prefix + lab) for v, lab in g.codes),
    )


@dataclass
class Cells:
    """How the base cell table of a plan identifies q and names levels (macros/cells)."""

    qcols: list[str]
    keys: tuple[Column, ...]
    target: Column
    # the query of the base cells, inlined into stage 040; None: they are the table ``table``
    sql: str | None = None
    table: str = BASE_CELLS


def exclusion_context(
    p: Plan, cells: Cells, prefix: str = ""
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The exclusion context of macros/exclusions for a planned target whose cells are
    ``cells`` (not_targetlevs, drop_missing_target, keys_no_na, excludes, exclude_ov, and
    steps: the exclusion steps a cell can have, 0 (kept) and each step whose option is set;
    stages 040 and 045, the exclusion table and the sweep count these only), and the
    parameters it needs (the plan's, denom_lim, the levels named; their names start with
    ``prefix``, so that the targets of one statement do not share them)."""
    spec = p.spec
    params: dict[str, Any] = {**p.params, "denom_lim": spec.denom_lim}
    ntl = []
    for i, lev in enumerate(spec.not_targetlev):
        params[f"{prefix}ntl_{i}"] = lev
        ntl.append(f"{prefix}ntl_{i}")
    excludes = []
    by_name = {k.name: k for k in cells.keys}
    for i, ex in enumerate(spec.exclusions):
        keylev, targetlev = f"{prefix}ex_k{i}", f"{prefix}ex_t{i}"
        params[keylev] = ex.keylev
        params[targetlev] = ex.targetlev
        excludes.append({"key": by_name[ex.key], "keylev": keylev, "targetlev": targetlev})
    context = {
        "not_targetlevs": ntl,
        "drop_missing_target": not spec.use_target_na,
        "keys_no_na": [k for k, use in zip(cells.keys, spec.use_keys_na, strict=True) if not use],
        "excludes": excludes,
        "exclude_ov": spec.exclude_ov_denom_lim,
    }
    options = ("not_targetlevs", "drop_missing_target", "keys_no_na", "excludes", "exclude_ov")
    context["steps"] = [0, *(step for step, o in enumerate(options, start=1) if context[o])]
    return context, params


def count_type(p: Plan) -> str:
    """The integer type of the cell counts (stage 030): INTEGER when no data set has 2^31
    records (so no count can overflow it), else BIGINT; BIGINT in an exported script, which
    may run on other data."""
    if p.inputs.engine.exporting:
        return "bigint"
    return "integer" if all(s.n_rows < 2**31 for s in p.inputs.sources) else "bigint"


def flag(p: Plan, cells: Cells) -> tuple[dict[str, Any], list[int]]:
    """Stages 040 and 045 of one target: its cells with their exclusion steps (the table
    CELLS) and its q margins (QCELLS); returns the parameters they were made with and the
    exclusion steps a cell can have. The caller drops both tables (drop_flagged)."""
    engine = p.inputs.engine
    context, flag_params = exclusion_context(p, cells)
    steps = context["steps"]
    template = "stages/040_cell_steps.sql.j2"
    engine.create_table(CELLS, cell_steps_sql(engine, cells, context), flag_params, template)
    template = "stages/045_q_margins.sql.j2"
    sql = render(template, engine.dialect, cells=CELLS, qcols=cells.qcols, steps=steps)
    engine.create_table(QCELLS, sql, {}, template)
    return flag_params, steps


def cell_steps_sql(engine: Engine, cells: Cells, context: dict[str, Any]) -> str:
    """Stage 040's query over ``cells`` with an exclusion context (exclusion_context's; its
    ``steps`` decide the columns)."""
    return render(
        "stages/040_cell_steps.sql.j2",
        engine.dialect,
        cells=cells.table,
        cells_sql=cells.sql,
        qcols=cells.qcols,
        keys=cells.keys,
        target=cells.target,
        **context,
    )


def drop_flagged(engine: Engine) -> None:
    """Drop the tables of stages 040 and 045."""
    engine.drop_table(CELLS)
    engine.drop_table(QCELLS)


def measure_target(p: Plan, cells: Cells) -> DisclosureResult:
    """Stages 040 and 045 of one target, then its measures, checks and exclusions."""
    try:
        _, steps = flag(p, cells)
        tables = measure_tables(p, cells, steps, [t.name for t in RESULT_TABLES])
    finally:
        drop_flagged(p.inputs.engine)
    return result_of(p, tables)


def result_of(p: Plan, tables: dict[str, pa.Table]) -> DisclosureResult:
    """The DisclosureResult of a planned target from its result tables."""
    return DisclosureResult(
        target=p.spec.target,
        keys=p.spec.keys,
        spec=p.spec,
        n_original=p.inputs.sources[0].n_rows,
        groupings=p.groupings,
        **tables,
    )


# The result tables of measures/per_synthesis, the one query of the measure families with one
# row per synthesis.
PER_SYNTHESIS = ("ident", "attrib", "allcaps")
PER_SYNTHESIS_TEMPLATE = "measures/per_synthesis.sql.j2"


def measure_tables(
    p: Plan, cells: Cells, steps: list[int], names: Sequence[str], tid: bool = False
) -> dict[str, pa.Table]:
    """The result tables ``names`` (ident, attrib, ...) of a target from its cells and q
    margins (the tables CELLS and QCELLS, stages 040 and 045, made with exclusion ``steps``).
    With ``tid`` the tables hold stacked targets: each result table has the target id first,
    and is returned as the engine gave it (the caller splits and conforms it)."""
    spec, params = p.spec, p.params
    engine = p.inputs.engine
    check_params: dict[str, Any] = {
        **params,
        "thresh_1way_n": spec.thresh_1way[0],
        "thresh_1way_pct": spec.thresh_1way[1],
        "thresh_2way_n": spec.thresh_2way[0],
        "thresh_2way_pct": spec.thresh_2way[1],
    }
    key_names = []
    for i, kc in enumerate(cells.keys):
        check_params[f"key_name_{i}"] = kc.name
        key_names.append(replace(kc, name_param=f"key_name_{i}"))
    taus = []
    for i, tau in enumerate(spec.tau):
        check_params[f"disco_tau_{i}"] = tau
        taus.append(f"disco_tau_{i}")

    def measure(template: str) -> pa.Table:
        sql = render(
            template,
            engine.dialect,
            cells=CELLS,
            qcells=QCELLS,
            steps=steps,
            keys=key_names,
            target=cells.target,
            qcols=cells.qcols,
            taus=taus,
            tid=tid,
            one_pass_sets=facts(engine.dialect).grouping_sets,
            ratio_sums=facts(engine.dialect).ratio_sums and count_type(p) == "integer",
        )
        return engine.query(sql, check_params, template, small=True)

    def conformed(template: str, table: pa.Table) -> pa.Table:
        return table if tid else conform_result(template, table)

    by_name = {t.name: t for t in RESULT_TABLES}
    tables: dict[str, pa.Table] = {}
    together = [n for n in PER_SYNTHESIS if n in names]
    if engine.one_measure_query and len(together) > 1:
        rows = measure(PER_SYNTHESIS_TEMPLATE)
        for name in together:
            t = by_name[name]
            columns = ["tid", *t.schema.names] if tid else t.schema.names
            tables[name] = conformed(t.template, rows.select(columns))
    computed = {t.name for t in computed_tables(spec)}
    for name in names:
        if name not in tables:
            t = by_name[name]
            if name in computed:
                tables[name] = conformed(t.template, measure(t.template))
            else:  # not asked for: empty (with tid too: the caller splits it by target)
                schema = pa.schema([("tid", pa.int32()), *t.schema]) if tid else t.schema
                tables[name] = schema.empty_table()
    return {name: tables[name] for name in names}


def run(inputs: Inputs, spec: DisclosureSpec) -> DisclosureResult:
    """Plan and execute one disclosure() on registered inputs."""
    return execute(plan(inputs, spec))
