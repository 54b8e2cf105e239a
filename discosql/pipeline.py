"""Python decides, SQL computes: the stages of disclosure() runs on one engine.

1. register the inputs and check their schemas (names, kinds, emptiness);
2. plan: numeric grouping (SQL pools the values, Python picks breaks and labels, grouping.py),
   level arguments checked against the data, and how q is packed into BIGINT words (from an
   upper bound of each key's number of levels);
3. the coded plan: stage 010 a level dictionary per key and target -> temp tables; stage 020
   every record as integer codes (q words, one code per target): inline for one target, a
   table sorted by q shared by all targets of a summary; stage 030 the (j, q, t) cells of a
   target, a query that stage 040 inlines on DuckDB (-> temp table on the other engines);
4. stage 040 flags -> temp table; measures, checks and exclusions are aggregates over it.

The reference plan (``reference=True``, stages ``reference_*``) builds the same cells with
level names as text, one column per key, as discosql did before the coded plan; tests check
that both plans give identical results.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from . import grouping as grp
from .engine import Engine, Registered
from .errors import DiscoSQLWarning, InputError, SchemaError
from .results import DisclosureResult, conform_result
from .schema import FAMILY, column_kind, did_you_mean
from .spec import DisclosureSpec
from .templates import render

BASE_CELLS = "__disco_cells_base"
CELLS = "__disco_cells"
RECORDS = "__disco_records"
WORD_LIMIT = 2**62  # q words stay below this: sums of code * place value never overflow BIGINT


@dataclass
class Inputs:
    """Registered original (src 0) and syntheses (src 1..m) on one engine."""

    engine: Engine
    sources: list[Registered]
    groupings: dict[tuple[str, int, tuple[float, ...]], grp.Grouping] = field(default_factory=dict)

    @property
    def m(self) -> int:
        return len(self.sources) - 1


def register_inputs(engine: Engine, original: Any, synthetic: Any) -> Inputs:
    """Classify and register the original and each synthesis; empty original is an error."""
    if isinstance(synthetic, list | tuple):
        syns = list(synthetic)
        if not syns:
            raise InputError(
                "synthetic: the list of synthetic data sets is empty; give at least one"
            )
    else:
        syns = [synthetic]
    sources = [engine.classify(original, "original")]
    sources += [
        engine.classify(s, f"synthetic {i}" if len(syns) > 1 else "synthetic")
        for i, s in enumerate(syns, start=1)
    ]
    registered = [engine.register(s) for s in sources]
    if registered[0].n_rows == 0:
        raise InputError("original: the data set has no rows; nothing can be measured")
    for reg in registered[1:]:
        if reg.n_rows == 0:
            warnings.warn(
                f"{reg.source.label}: the data set has no rows; measures divided by its size "
                "(UiS, Dsyn, CAPs) are NaN",
                DiscoSQLWarning,
                stacklevel=3,
            )
    return Inputs(engine, registered)


def column_kinds(
    sources: Sequence[Registered], roles: dict[str, str]
) -> tuple[dict[str, str], list[str]]:
    """Every column of ``roles`` ({column: "key"/"target"/...}) exists in every data set with
    kinds that fit together; returns column -> kind and the problems found."""
    problems: list[str] = []
    kinds: dict[str, str] = {}
    for col, role in roles.items():
        seen: list[tuple[str, str, str]] = []  # (label, engine type, kind)
        for reg in sources:
            if col not in reg.columns:
                problems.append(
                    f"{role} {col!r}: not a column of the {reg.source.label} data"
                    f"{did_you_mean(col, list(reg.columns))}; columns are {list(reg.columns)!r}"
                )
                continue
            kind = column_kind(reg.columns[col])
            if kind is None:
                problems.append(
                    f"{role} {col!r} in the {reg.source.label} data has type "
                    f"{reg.columns[col]}, which cannot be a level; allowed: text, numbers, "
                    "booleans, dates and times"
                )
                continue
            if reg.n_rows > 0 and kind != "null":
                seen.append((reg.source.label, reg.columns[col], kind))
        families = {FAMILY[k] for _, _, k in seen}
        if len(families) > 1:
            where = ", ".join(f"{label}: {t}" for label, t, _ in seen)
            problems.append(
                f"{role} {col!r} has clashing types ({where}); original and synthetic "
                "must agree (numbers of any width may mix, text may not mix with numbers)"
            )
        if seen:
            kinds[col] = seen[0][2]
    return kinds, problems


def check_columns(inputs: Inputs, spec: DisclosureSpec) -> dict[str, str]:
    """Every key and the target exist everywhere with compatible kinds; returns column -> kind."""
    columns = [*spec.keys, spec.target]
    roles = {c: "key" for c in spec.keys} | {spec.target: "target"}
    kinds, problems = column_kinds(inputs.sources, roles)
    # grouping and cont_na need numbers
    for col, codes in (spec.cont_na or {}).items():
        if col not in inputs.sources[0].columns:
            problems.append(
                f"cont_na: {col!r} is not a column of the original data"
                f"{did_you_mean(col, list(inputs.sources[0].columns))}"
            )
        elif col in kinds and col in columns and kinds[col] not in ("integer", "float") and codes:
            problems.append(f"cont_na: {col!r} is not numeric ({kinds[col]}); codes need numbers")
    if spec.ngroups_target and kinds.get(spec.target, "float") not in ("integer", "float"):
        problems.append(
            f"ngroups_target: the target {spec.target!r} is not numeric ({kinds[spec.target]}); "
            "only numbers can be grouped"
        )
    if spec.ngroups_keys_explicit:
        for key, n in zip(spec.keys, spec.ngroups_keys, strict=True):
            if n and kinds.get(key, "float") not in ("integer", "float"):
                problems.append(
                    f"ngroups_keys: key {key!r} is not numeric ({kinds[key]}); give 0 for it"
                )
    if problems:
        raise SchemaError(problems)
    return kinds


def source_ctx(sources: Sequence[Registered]) -> list[dict[str, Any]]:
    """The templates' view of the data sets: src number, what to read, the kind of each column."""
    ctx = []
    for i, reg in enumerate(sources):
        kinds = {name: column_kind(t) or "other" for name, t in reg.columns.items()}
        if reg.n_rows == 0:  # an empty data set may have unusable inferred types
            kinds = {name: "text" if k != "null" else k for name, k in kinds.items()}
        ctx.append({"src": i, "sql": reg.sql, "kinds": kinds, "empty": reg.n_rows == 0})
    return ctx


def _source_ctx(inputs: Inputs) -> list[dict[str, Any]]:
    return source_ctx(inputs.sources)


def _params(inputs: Inputs) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for reg in inputs.sources:
        params.update(reg.params)
    return params


def plan_grouping(
    inputs: Inputs, column: str, role: str, n: int, codes: Sequence[float]
) -> grp.Grouping:
    """Breaks and labels for ``column`` (cached per column, n and codes within one Inputs)."""
    cache_key = (column, n, tuple(codes))
    if cache_key in inputs.groupings:
        return inputs.groupings[cache_key]
    engine = inputs.engine
    sources = _source_ctx(inputs)
    params = _params(inputs)
    code_params = [f"code_{i}" for i in range(len(codes))]
    params.update({p: c for p, c in zip(code_params, codes, strict=True)})
    ctx = {"sources": sources, "column": column, "codes": code_params}
    stats = engine.query(
        render("grouping/stats.sql.j2", engine.dialect, **ctx), params, "grouping/stats"
    )
    row = {k: v[0] for k, v in stats.to_pydict().items()}
    where = f"{role} {column!r}"
    problems = []
    for i, code in enumerate(codes):
        if not row[f"code_{i}"]:
            problems.append(
                f"cont_na: value {grp.number_label(code)} given for {column!r} occurs in neither "
                "the original nor the synthetic data"
            )
    if not row["n_orig"]:
        problems.append(f"{where}: the original has only missing values; it cannot be grouped")
    if not row["n_syn"]:
        problems.append(
            f"{where}: the synthetic data have only missing values; it cannot be grouped"
        )
    if row["n_infinite"]:
        problems.append(f"{where}: has infinite values, which cannot be grouped")
    if not problems and row["n_distinct"] < 2:
        problems.append(
            f"{where}: has a single distinct value ({grp.number_label(row['min_value'])}); "
            "it cannot be grouped"
        )
    if problems:
        raise InputError(problems)

    n_obs = int(row["n_orig"]) + int(row["n_syn"])
    n_distinct = int(row["n_distinct"])

    def breaks_for(style: str) -> tuple[list[float], str]:
        k = min(n, n_distinct)
        if k == n_distinct:
            tab = engine.query(
                render("grouping/distinct.sql.j2", engine.dialect, **ctx),
                params,
                "grouping/distinct",
            )
            return grp.unique_breaks(tab.column("v").to_pylist()), "unique"
        if style == "equal":
            return grp.equal_breaks(row["min_value"], row["max_value"], k), "equal"
        positions = grp.type7_positions(n_obs, grp.r_probs(k))
        wanted = sorted({p for lo, hi, _ in positions for p in (lo, hi)})
        pos_params = {f"pos_{i}": p for i, p in enumerate(wanted)}
        tab = engine.query(
            render(
                "grouping/order_stats.sql.j2",
                engine.dialect,
                **ctx,
                positions=list(pos_params),
            ),
            params | pos_params,
            "grouping/order_stats",
        )
        stat = dict(
            zip(tab.column("rank_pos").to_pylist(), tab.column("v").to_pylist(), strict=True)
        )
        return grp.type7_quantiles(positions, stat.__getitem__), "quantile"

    brks, style = breaks_for("quantile")
    brks = grp.dedupe(brks)
    if len(brks) - 1 + len(codes) < 3:  # synthpop D:211-216: too few levels, use equal widths
        brks, style = breaks_for("equal")
        brks = grp.dedupe(brks)
    result = grp.Grouping(
        breaks=tuple(brks),
        labels=tuple(grp.cut_labels(brks)),
        codes=tuple((c, grp.number_label(c)) for c in codes),
        style=style,
    )
    inputs.groupings[cache_key] = result
    return result


def _grouping_ctx(
    g: grp.Grouping | None, prefix: str, params: dict[str, Any]
) -> dict[str, Any] | None:
    if g is None:
        return None
    ctx: dict[str, Any] = {"breaks": [], "labels": [], "codes": []}
    for i, b in enumerate(g.breaks):
        params[f"{prefix}_b{i}"] = b
        ctx["breaks"].append(f"{prefix}_b{i}")
    for i, lab in enumerate(g.labels):
        params[f"{prefix}_l{i}"] = lab
        ctx["labels"].append(f"{prefix}_l{i}")
    for i, (value, label) in enumerate(g.codes):
        params[f"{prefix}_c{i}"] = value
        params[f"{prefix}_cl{i}"] = label
        ctx["codes"].append((f"{prefix}_c{i}", f"{prefix}_cl{i}"))
    return ctx


@dataclass
class Plan:
    """Everything decided for one target before any cell is counted."""

    inputs: Inputs
    spec: DisclosureSpec
    groupings: dict[str, grp.Grouping]
    keys_ctx: list[dict[str, Any]]
    target_ctx: dict[str, Any]
    params: dict[str, Any]
    # the keys' radices and the target's, decided before execution (export), else from stage 010
    radices: list[int] | None = None


def plan(inputs: Inputs, spec: DisclosureSpec) -> Plan:
    """Validate ``spec`` against the data and decide the grouping; no measure SQL runs here."""
    kinds = check_columns(inputs, spec)
    params = _params(inputs)
    cna = spec.cont_na or {}
    numeric = ("integer", "float")

    # Decide the grouping of each column (scalar ngroups_keys only touches numeric keys).
    groupings: dict[str, grp.Grouping] = {}
    wanted = [(spec.target, "target", spec.ngroups_target)] + [
        (k, "key", n) for k, n in zip(spec.keys, spec.ngroups_keys, strict=True)
    ]
    for col, role, n in wanted:
        if n and kinds.get(col) in numeric:
            groupings[col] = plan_grouping(inputs, col, role, n, cna.get(col, ()))
    # cont_na codes of ungrouped columns are ordinary values, but must exist (synthpop D:188-190)
    for col in [spec.target, *spec.keys]:
        if col in cna and col not in groupings and cna[col]:
            _check_codes_exist(inputs, col, cna[col])

    keys_ctx = [
        {
            "name": k,
            "alias": f"k_{i}",
            "pos": i,
            "grouping": _grouping_ctx(groupings.get(k), f"g{i}", params),
            "levels": f"__disco_levels_k{i}",
            "as_text": _as_text(inputs, k),
        }
        for i, k in enumerate(spec.keys)
    ]
    target_ctx = {
        "name": spec.target,
        "alias": "t",
        "pos": 0,
        "grouping": _grouping_ctx(groupings.get(spec.target), "gt", params),
        "levels": "__disco_levels_t0",
        "as_text": _as_text(inputs, spec.target),
    }
    result = Plan(inputs, spec, groupings, keys_ctx, target_ctx, params)
    _check_levels(result)
    return result


def _as_text(inputs: Inputs, column: str) -> bool:
    """Whether the column's raw values are matched by their text: its engine types differ
    between the data sets that have values (a BIGINT and a DOUBLE column would be merged into
    DOUBLE, which cannot tell large integers apart)."""
    types = {
        reg.columns[column]
        for reg in inputs.sources
        if reg.n_rows > 0 and column_kind(reg.columns[column]) != "null"
    }
    return len(types) > 1


def pack_keys(keys: Sequence[dict[str, Any]], radices: Sequence[int]) -> tuple[int, dict[str, int]]:
    """Pack the keys into BIGINT q words, in key order, each word's product of radices below
    WORD_LIMIT (exact: no code * place value sum can overflow). Sets word, mul (= div, the
    place value) and radix param names on every key context; returns the number of words and
    the params."""
    params: dict[str, int] = {}
    word, place = 0, 1
    for k, r in zip(keys, radices, strict=True):
        if place * r >= WORD_LIMIT and place > 1:
            word, place = word + 1, 1
        i = k["pos"]
        k.update(word=word, mul=f"kmul_{i}", div=f"kmul_{i}", radix=f"krad_{i}")
        params[f"kmul_{i}"] = place
        params[f"krad_{i}"] = r
        place *= r
    return word + 1, params


def execute(p: Plan, reference: bool = False) -> DisclosureResult:
    """Count the cells, flag them, and compute every measure and check of a planned target."""
    return execute_many([p], reference=reference)[0]


def execute_many(
    plans: Sequence[Plan],
    reference: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
) -> list[DisclosureResult]:
    """Every measure of several planned targets with the same keys and inputs (a summary).

    The coded plan builds the key dictionaries and the integer records once; each target then
    counts its cells from them. ``reference=True`` runs the reference plan (level names) instead.
    ``progress(i, n, target)`` is called before each target's cells are counted.
    """
    if reference:
        return [_measure(p, _reference_cells(p)) for p in plans]
    engine = plans[0].inputs.engine
    sources = _source_ctx(plans[0].inputs)
    keys, targets = _dictionaries(plans, sources)
    created = [c["levels"] for c in keys + targets]
    if all(p.radices for p in plans):  # decided when the script was written
        radices = [*plans[0].radices[:-1], *(p.radices[-1] for p in plans)]  # type: ignore[index]
    else:
        radices = key_radices(engine, keys + targets)
    n_words, coding = pack_keys(keys, radices[: len(keys)])
    for t, r in zip(targets, radices[len(keys) :], strict=True):
        t["code_type"] = code_type(r)
    records_ctx = {
        "sources": sources,
        "keys": keys,
        "targets": targets,
        "n_words": n_words,
    }
    records_table = None
    if len(plans) > 1:
        template = "stages/020_records.sql.j2"
        sql = render(template, engine.dialect, **records_ctx, order=True)
        engine.create_table(RECORDS, sql, {**plans[0].params, **coding}, template)
        records_table = RECORDS
        created.append(RECORDS)
    results = []
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
        )
        params = {**p.params, **coding}
        if not engine.inline_cells:
            engine.create_table(BASE_CELLS, sql, params, template)
        inline = sql if engine.inline_cells else None
        cells = Cells(qcols=qcols, keys=keys, target={**t, "alias": "t"}, sql=inline)
        results.append(_measure(dataclasses.replace(p, params=params), cells))
    for name in created:
        engine.drop_table(name)
    return results


def key_radices(engine: Engine, columns: Sequence[dict[str, Any]]) -> list[int]:
    """Each column's radix (largest code + 1) from its stage 010 dictionary."""
    sql = render("inspect/radices.sql.j2", engine.dialect, columns=columns)
    row = engine.query(sql, {}, "inspect/radices").to_pylist()[0]
    return [int(row[f"r_{i}"] or 1) for i in range(len(columns))]


def code_type(radix: int) -> str:
    """The narrowest portable integer type for codes below ``radix`` (the shared records of a
    summary are as wide as their columns: at 100M rows this decides how much DuckDB spills)."""
    if radix <= 2**15:
        return "smallint"
    return "integer" if radix <= 2**31 else "bigint"


def decide_radices(plans: Sequence[Plan]) -> list[list[int]]:
    """Each plan's radices (its keys', then its target's), by building the dictionaries once on
    the plans' engine, as execute_many does (for scripts, which are written before they run)."""
    engine = plans[0].inputs.engine
    keys, targets = _dictionaries(plans, _source_ctx(plans[0].inputs))
    try:
        radices = key_radices(engine, keys + targets)
    finally:
        for c in keys + targets:
            engine.drop_table(c["levels"])
    n_keys = len(keys)
    return [[*radices[:n_keys], r] for r in radices[n_keys:]]


def _dictionaries(
    plans: Sequence[Plan], sources: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Stage 010 for the keys (once) and each plan's target: their contexts, with each target's
    alias, position and dictionary table (t_i, __disco_levels_t{i})."""
    engine = plans[0].inputs.engine
    keys = [dict(k) for k in plans[0].keys_ctx]
    for k in keys:
        _dictionary(engine, sources, k, plans[0].params)
    targets = []
    for i, p in enumerate(plans):
        t = {**p.target_ctx, "alias": f"t_{i}", "pos": i, "levels": f"__disco_levels_t{i}"}
        _dictionary(engine, sources, t, p.params)
        targets.append(t)
    return keys, targets


def _dictionary(
    engine: Engine, sources: list[dict[str, Any]], column: dict[str, Any], params: dict[str, Any]
) -> None:
    """Stage 010: the level dictionary of one column, from the data sets where it has values."""
    with_values = [s for s in sources if not s["empty"] and s["kinds"][column["name"]] != "null"]
    template = "stages/010_codes.sql.j2"
    sql = render(
        template, engine.dialect, column=column, sources=with_values, as_text=column["as_text"]
    )
    engine.create_table(column["levels"], sql, params, template)


@dataclass
class Cells:
    """How the base cell table of a plan identifies q and names levels (macros/cells)."""

    qcols: list[str]
    keys: list[dict[str, Any]]
    target: dict[str, Any]
    # the query of the base cells, inlined into stage 040; None: they are the table BASE_CELLS
    sql: str | None = None


def _reference_cells(p: Plan) -> Cells:
    """The reference plan's cells: level names as text, one column per key."""
    engine = p.inputs.engine
    ctx = {
        "sources": _source_ctx(p.inputs),
        "keys": p.keys_ctx,
        "target": p.target_ctx,
        "syntheses": list(range(1, p.inputs.m + 1)),
    }
    template = "stages/reference_020_cells.sql.j2"
    engine.create_table(BASE_CELLS, render(template, engine.dialect, **ctx), p.params, template)
    plain = {"word": None, "levels": None}
    return Cells(
        qcols=[k["alias"] for k in p.keys_ctx],
        keys=[{**k, **plain} for k in p.keys_ctx],
        target={**p.target_ctx, **plain},
    )


def _measure(p: Plan, cells: Cells) -> DisclosureResult:
    """Flag the base cells of one target and compute its measures, checks and exclusions."""
    spec, params = p.spec, p.params
    engine = p.inputs.engine
    flag_params: dict[str, Any] = {**params, "denom_lim": spec.denom_lim}
    ntl = []
    for i, lev in enumerate(spec.not_targetlev):
        flag_params[f"ntl_{i}"] = lev
        ntl.append(f"ntl_{i}")
    excludes = []
    by_name = {k["name"]: k for k in cells.keys}
    for i, ex in enumerate(spec.exclusions):
        flag_params[f"ex_k{i}"] = ex.keylev
        flag_params[f"ex_t{i}"] = ex.targetlev
        excludes.append({"key": by_name[ex.key], "keylev": f"ex_k{i}", "targetlev": f"ex_t{i}"})
    flags_ctx = {
        "cells": BASE_CELLS,
        "cells_sql": cells.sql,
        "qcols": cells.qcols,
        "keys": cells.keys,
        "target": cells.target,
        "not_targetlevs": ntl,
        "drop_missing_target": not spec.use_target_na,
        "keys_no_na": [k for k, use in zip(cells.keys, spec.use_keys_na, strict=True) if not use],
        "excludes": excludes,
        "exclude_ov": spec.exclude_ov_denom_lim,
    }
    template = "stages/040_cell_flags.sql.j2"
    sql = render(template, engine.dialect, **flags_ctx)
    engine.create_table(CELLS, sql, flag_params, template)

    check_params: dict[str, Any] = {
        **params,
        "thresh_1way_n": spec.thresh_1way[0],
        "thresh_1way_pct": spec.thresh_1way[1],
        "thresh_2way_n": spec.thresh_2way[0],
        "thresh_2way_pct": spec.thresh_2way[1],
    }
    key_names = []
    for i, kc in enumerate(cells.keys):
        check_params[f"key_name_{i}"] = kc["name"]
        key_names.append({**kc, "name_param": f"key_name_{i}"})

    def measure(template: str) -> pa.Table:
        sql = render(
            template,
            engine.dialect,
            cells=CELLS,
            keys=key_names,
            target=cells.target,
            original_cells_only=spec.thresh_2way[0] >= 0,
        )
        return conform_result(template, engine.query(sql, check_params, template))

    result = DisclosureResult(
        target=spec.target,
        keys=spec.keys,
        spec=spec,
        n_original=p.inputs.sources[0].n_rows,
        ident=measure("measures/identity.sql.j2"),
        attrib=measure("measures/attribute.sql.j2"),
        allcaps=measure("measures/cap.sql.j2"),
        exclusions=measure("measures/exclusions.sql.j2"),
        check_1way=measure("checks/check_1way.sql.j2"),
        check_2way=measure("checks/check_2way.sql.j2"),
        groupings=p.groupings,
    )
    engine.drop_table(CELLS)
    if cells.sql is None:
        engine.drop_table(BASE_CELLS)
    return result


def run(inputs: Inputs, spec: DisclosureSpec) -> DisclosureResult:
    """Plan and execute one disclosure() on registered inputs."""
    return execute(plan(inputs, spec))


def _check_codes_exist(inputs: Inputs, col: str, codes: Sequence[float]) -> None:
    params = _params(inputs)
    code_params = [f"code_{i}" for i in range(len(codes))]
    params.update(dict(zip(code_params, codes, strict=True)))
    sql = render(
        "grouping/stats.sql.j2",
        inputs.engine.dialect,
        sources=_source_ctx(inputs),
        column=col,
        codes=code_params,
    )
    row = inputs.engine.query(sql, params, "grouping/stats").to_pylist()[0]
    missing = [c for i, c in enumerate(codes) if not row[f"code_{i}"]]
    if missing:
        raise InputError(
            [
                f"cont_na: value {grp.number_label(c)} given for {col!r} occurs in neither the "
                "original nor the synthetic data"
                for c in missing
            ]
        )


def _check_levels(p: Plan) -> None:
    """not_targetlev and exclude levels must be levels that exist (in original or synthetic)."""
    spec = p.spec
    if not spec.not_targetlev and not spec.exclusions:
        return
    params = dict(p.params)
    by_name = {k["name"]: k for k in p.keys_ctx}
    columns = [{**p.target_ctx, "name_param": "name_t"}]
    params["name_t"] = spec.target
    for i, key in enumerate(dict.fromkeys(ex.key for ex in spec.exclusions)):
        params[f"name_{i}"] = key
        columns.append({**by_name[key], "name_param": f"name_{i}"})
    sql = render(
        "inspect/levels.sql.j2",
        p.inputs.engine.dialect,
        sources=_source_ctx(p.inputs),
        columns=columns,
    )
    table = p.inputs.engine.query(sql, params, "inspect/levels").to_pylist()
    levels: dict[str, list[str]] = {}
    for row in table:
        levels.setdefault(row["column"], []).append(row["level"])
    problems = []

    def allowed(col: str) -> str:
        values = sorted(levels.get(col, []))
        shown = ", ".join(repr(v) for v in values[:20]) + (" ..." if len(values) > 20 else "")
        return f"levels of {col!r} are {shown}"

    target_levels = levels.get(spec.target, [])
    for lev in spec.not_targetlev:
        if lev not in target_levels:
            problems.append(
                f"not_targetlev: {lev!r} is not a level of the target in the original or synthetic "
                f"data{did_you_mean(lev, target_levels)}; {allowed(spec.target)}"
            )
    for i, ex in enumerate(spec.exclusions):
        if ex.targetlev not in target_levels:
            problems.append(
                f"exclude_targetlevs[{i}]: {ex.targetlev!r} is not a level of the target "
                f"{spec.target!r}{did_you_mean(ex.targetlev, target_levels)}; "
                f"{allowed(spec.target)}"
            )
        key_levels = levels.get(ex.key, [])
        if ex.keylev not in key_levels:
            problems.append(
                f"exclude_keylevs[{i}]: {ex.keylev!r} is not a level of the key {ex.key!r}"
                f"{did_you_mean(ex.keylev, key_levels)}; {allowed(ex.key)}"
            )
    if problems:
        raise InputError(problems)
