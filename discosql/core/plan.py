"""Plan: everything decided for one target before any cell is counted.

Numeric grouping (SQL pools the values, Python picks breaks and labels, :mod:`.grouping`), the
level arguments (``not_targetlev``, ``exclude_*``, ``cont_na``) checked against the data, and the
column contexts the stage templates read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa

from ..errors import InputError, did_you_mean
from ..sql.templates import render
from . import assumptions
from . import grouping as grp
from .assumptions import Assumption
from .inputs import Inputs, spec_columns
from .spec import DisclosureSpec


def plan_grouping(
    inputs: Inputs, column: str, role: str, n: int, codes: Sequence[float]
) -> tuple[grp.Grouping, tuple[Assumption, ...]]:
    """Breaks and labels for ``column``, and the queries they were computed from (cached per
    column, n and codes within one Inputs)."""
    cache_key = (column, n, tuple(codes))
    if cache_key in inputs.groupings:
        return inputs.groupings[cache_key]
    engine = inputs.engine
    # parameter names unique within the inputs: an export re-runs these queries side by side
    tag = f"gq{len(inputs.groupings)}"
    code_params = {f"{tag}_code_{i}": c for i, c in enumerate(codes)}
    ctx = {"column": column, "codes": list(code_params)}
    where = f"{role} {column!r}"
    read: list[Assumption] = []

    def query(template: str, params: dict[str, Any], **extra: Any) -> pa.Table:
        table, assumption = assumptions.read(
            engine,
            inputs.data_sets(),
            inputs.params(),
            template,
            ctx | extra,
            code_params | params,
            f"the grouping breaks of {where} were computed from other values "
            f"({template.removesuffix('.sql.j2')})",
        )
        read.append(assumption)
        return table

    row = {k: v[0] for k, v in query("grouping/stats.sql.j2", {}).to_pydict().items()}
    _check_grouping_stats(row, where, column, codes)
    n_obs = int(row["n_orig"]) + int(row["n_syn"])
    n_distinct = int(row["n_distinct"])

    def breaks_for(style: str) -> tuple[list[float], str]:
        k = min(n, n_distinct)
        if k == n_distinct:
            tab = query("grouping/distinct.sql.j2", {})
            return grp.unique_breaks(tab.column("v").to_pylist()), "unique"
        if style == "equal":
            return grp.equal_breaks(row["min_value"], row["max_value"], k), "equal"
        positions = grp.type7_positions(n_obs, grp.r_probs(k))
        wanted = sorted({p for lo, hi, _ in positions for p in (lo, hi)})
        pos_params = {f"{tag}_pos_{i}": p for i, p in enumerate(wanted)}
        tab = query("grouping/order_stats.sql.j2", pos_params, positions=list(pos_params))
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
    inputs.groupings[cache_key] = (result, tuple(read))
    return result, tuple(read)


def _check_grouping_stats(
    row: dict[str, Any], where: str, column: str, codes: Sequence[float]
) -> None:
    """Whether the grouping statistics of a column allow grouping it (synthpop's stops)."""
    problems = []
    for i, code in enumerate(codes):
        if not row[f"code_{i}"]:
            problems.append(
                f"cont_na: value {grp.number_label(code)} given for {column!r} occurs in neither "
                "the original nor the synthetic data"
            )
    # synthpop stops only when the synthetic values are all missing (U:865); an original with
    # no values is grouped by the synthetic ones (all its records are 'Missing')
    if not row["n_syn"]:
        problems.append(
            f"{where}: the synthetic data have only missing values; it cannot be grouped"
        )
    if row["n_infinite"]:
        problems.append(
            f"{where}: has {row['n_infinite']} infinite value(s) in the original and the "
            "syntheses together, which cannot be grouped; drop or recode them first"
        )
    if not problems and row["n_distinct"] < 2:
        problems.append(
            f"{where}: has a single distinct value ({grp.number_label(row['min_value'])}); "
            "it cannot be grouped"
        )
    if problems:
        raise InputError(problems)


@dataclass(frozen=True)
class GroupingParams:
    """A numeric grouping as the templates see it (macros/levels.sql.j2): the names of the
    bound parameters that hold its breaks, labels and kept codes (value, label)."""

    breaks: tuple[str, ...]
    labels: tuple[str, ...]
    codes: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Column:
    """A key or a target as the stage templates see it (the contract with ``sql_templates``).

    ``alias`` names its column in the records and cells, ``levels`` its stage 010 dictionary
    table; ``as_text`` matches raw values by their text (types differ between the data sets).
    Keys packed into q words also have ``word`` and the parameter names ``place`` and
    ``radix`` (code = (q_word // place) % radix); a target in a summary has ``code_type``.
    ``name_param`` names a parameter holding the column's name (for checks that print it).
    ``stack``: the column's number in ``levels`` when that table stacks several columns'
    dictionaries (stage 010; read through macros/coding's ``dictionary``), else None.
    """

    name: str
    alias: str
    pos: int
    levels: str
    as_text: bool = False
    grouping: GroupingParams | None = None
    word: int | None = None
    place: str | None = None
    radix: str | None = None
    code_type: str | None = None
    name_param: str | None = None
    stack: int | None = None


@dataclass(frozen=True)
class Coding:
    """How records were coded for a count: the keys packed into ``n_words`` q words (with
    their dictionaries and place value parameters ``params``), the target (None: none), and
    the work tables made for it (the dictionaries)."""

    keys: tuple[Column, ...]
    n_words: int
    params: dict[str, Any]
    tables: tuple[str, ...]
    target: Column | None = None
    radices: tuple[int, ...] = ()  # the keys', then the target's (as Plan.radices)


def _grouping_params(
    g: grp.Grouping | None, prefix: str, params: dict[str, Any]
) -> GroupingParams | None:
    """The grouping's parameters, added to ``params`` under names starting with ``prefix``."""
    if g is None:
        return None
    values: dict[str, float | str] = {f"{prefix}_b{i}": b for i, b in enumerate(g.breaks)}
    values |= {f"{prefix}_l{i}": lab for i, lab in enumerate(g.labels)}
    for i, (value, label) in enumerate(g.codes):
        values |= {f"{prefix}_c{i}": value, f"{prefix}_cl{i}": label}
    params.update(values)
    return GroupingParams(
        breaks=tuple(f"{prefix}_b{i}" for i in range(len(g.breaks))),
        labels=tuple(f"{prefix}_l{i}" for i in range(len(g.labels))),
        codes=tuple((f"{prefix}_c{i}", f"{prefix}_cl{i}") for i in range(len(g.codes))),
    )


@dataclass
class Plan:
    """Everything decided for one target before any cell is counted."""

    inputs: Inputs
    spec: DisclosureSpec
    groupings: dict[str, grp.Grouping]
    keys_ctx: tuple[Column, ...]
    target_ctx: Column
    params: dict[str, Any]
    # the queries the decisions above were computed from (an exported script re-runs them)
    assumptions: tuple[Assumption, ...] = ()
    # the keys' radices and the target's, decided before execution (export), else from stage 010
    radices: list[int] | None = None


def plan(inputs: Inputs, spec: DisclosureSpec) -> Plan:
    """Validate ``spec`` against the data and decide the grouping; no measure SQL runs here."""
    kinds = spec_columns(inputs, spec)
    params = inputs.params()
    cna = spec.cont_na or {}
    numeric = ("integer", "float")

    # Decide the grouping of each column (scalar ngroups_keys only touches numeric keys).
    groupings: dict[str, grp.Grouping] = {}
    read: list[Assumption] = []
    wanted = [(spec.target, "target", spec.ngroups_target)] + [
        (k, "key", n) for k, n in zip(spec.keys, spec.ngroups_keys, strict=True)
    ]
    for col, role, n in wanted:
        if n and kinds.get(col) in numeric:
            groupings[col], queries = plan_grouping(inputs, col, role, n, cna.get(col, ()))
            read.extend(queries)
    # cont_na codes of ungrouped columns are ordinary values, but must exist (synthpop D:188-190)
    for i, col in enumerate([spec.target, *spec.keys]):
        if col in cna and col not in groupings and cna[col]:
            read.append(_check_codes_exist(inputs, col, cna[col], f"cna{i}"))

    keys_ctx = tuple(
        Column(
            name=k,
            alias=f"k_{i}",
            pos=i,
            levels=f"__disco_levels_k{i}",
            as_text=as_text(inputs, k),
            grouping=_grouping_params(groupings.get(k), f"g{i}", params),
        )
        for i, k in enumerate(spec.keys)
    )
    target_ctx = Column(
        name=spec.target,
        alias="t",
        pos=0,
        levels="__disco_levels_t0",
        as_text=as_text(inputs, spec.target),
        grouping=_grouping_params(groupings.get(spec.target), "gt", params),
    )
    result = Plan(inputs, spec, groupings, keys_ctx, target_ctx, params, tuple(read))
    _check_levels(result)
    return result


def as_text(inputs: Inputs, column: str) -> bool:
    """Whether the column's raw values are matched by their text: its engine types differ
    between the data sets that have values (a BIGINT and a DOUBLE column would be merged into
    DOUBLE, which cannot tell large integers apart)."""
    types = {
        reg.columns[column]
        for reg in inputs.sources
        if reg.n_rows > 0 and reg.kinds[column] != "null"
    }
    return len(types) > 1


def _check_codes_exist(inputs: Inputs, col: str, codes: Sequence[float], tag: str) -> Assumption:
    """cont_na codes of an ungrouped column must occur in the data; returns the assumption."""
    code_params = {f"{tag}_code_{i}": c for i, c in enumerate(codes)}
    table, read = assumptions.read(
        inputs.engine,
        inputs.data_sets(),
        inputs.params(),
        "grouping/stats.sql.j2",
        {"column": col, "codes": list(code_params)},
        code_params,
        f"cont_na: a value of {[grp.number_label(c) for c in codes]} given for {col!r} no "
        "longer occurs in the data",
    )
    row = table.to_pylist()[0]
    columns = tuple(f"code_{i}" for i in range(len(codes)))
    missing = [c for c, name in zip(codes, columns, strict=True) if not row[name]]
    if missing:
        raise InputError(
            [
                f"cont_na: value {grp.number_label(c)} given for {col!r} occurs in neither the "
                "original nor the synthetic data"
                for c in missing
            ]
        )
    return replace(read, columns=columns, rows=(), positive=True)


def _check_levels(p: Plan) -> None:
    """not_targetlev and exclude levels must be levels that exist (in original or synthetic)."""
    spec = p.spec
    if not spec.not_targetlev and not spec.exclusions:
        return
    params = dict(p.params)
    by_name = {k.name: k for k in p.keys_ctx}
    columns = [replace(p.target_ctx, name_param="name_t")]
    params["name_t"] = spec.target
    for i, key in enumerate(dict.fromkeys(ex.key for ex in spec.exclusions)):
        params[f"name_{i}"] = key
        columns.append(replace(by_name[key], name_param=f"name_{i}"))
    sql = render(
        "inspect/levels.sql.j2",
        p.inputs.engine.dialect,
        sources=p.inputs.data_sets(),
        columns=columns,
    )
    table = p.inputs.engine.query(sql, params, "inspect/levels", small=True).to_pylist()
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
