"""synthpop's ``sdc()``: a safer synthetic data set, made in SQL. Bottom/top coding of numeric
variables first, then removal of the synthetic records unique in their synthesis and in the
original (replicated uniques) or present in it (uniques in original), in synthpop's order; the
records are matched by value (:mod:`.uniques`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa

from .engines import open_engine
from .errors import InputError, SchemaError
from .inputs import DataSet, Inputs, column_kind, column_kinds, register_inputs
from .plan import as_text
from .results import json_rows, to_json
from .spec import column_names
from .templates import render
from .uniques import count_uniques

REMOVED = "__disco_removed"
REASONS = {"replicated": "replicated uniques", "in_original": "uniques in original"}
RECODED_SCHEMA = pa.schema(
    [
        ("synthesis", pa.int32()),
        ("variable", pa.string()),
        ("bottom_coded", pa.int64()),
        ("top_coded", pa.int64()),
    ]
)
REMOVED_SCHEMA = pa.schema(
    [("synthesis", pa.int32()), ("reason", pa.string()), ("rows", pa.int64())]
)


@dataclass(frozen=True)
class Recode:
    """One recode variable: bottom and top codes (None: none) and the codes never recoded."""

    name: str
    bottom: float | None
    top: float | None
    exclude: tuple[float, ...]


@dataclass(frozen=True)
class SdcResult:
    """The protected syntheses and what was done to them.

    ``synthetic``: one Arrow table per synthesis, rows in input order; ``removed``: synthesis,
    reason, rows (records removed); ``recoded``: synthesis, variable, bottom_coded, top_coded.
    """

    synthetic: list[pa.Table]
    removed: pa.Table
    recoded: pa.Table
    keys: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """keys, removed and recoded as plain data (the syntheses themselves are not)."""
        return {
            "keys": list(self.keys),
            "removed": json_rows(self.removed),
            "recoded": json_rows(self.recoded),
            "rows": [t.num_rows for t in self.synthetic],
        }

    def to_json(self, indent: int | None = 1) -> str:
        """:meth:`to_dict` as JSON text."""
        return to_json(self.to_dict(), indent)


def sdc(
    original: Any,
    synthetic: Any,
    keys: str | Sequence[str] | None = None,
    *,
    rm_replicated_uniques: bool = False,
    rm_uniques_in_orig: bool = False,
    recode_vars: str | Sequence[str] | None = None,
    bottom_top_coding: Any = None,
    recode_exclude: Any = None,
    label: str | None = None,
    prefix: str | None = None,
    suffix: str | None = None,
    engine: Any = None,
    threads: int | None = None,
) -> SdcResult:
    """synthpop's ``sdc()``: recode, then remove uniques, then rename/label.

    Args:
        keys: the columns records are matched on (default: every column of the synthesis).
        rm_replicated_uniques: remove synthetic records unique in their synthesis and in the
            original; rm_uniques_in_orig: remove those unique in the synthesis and present in
            the original (these include the replicated uniques; with both, only this applies).
        recode_vars, bottom_top_coding, recode_exclude: numeric variables to bottom/top code:
            one ``(bottom, top)`` pair (None for no code) or a list of pairs aligned with
            ``recode_vars``; codes in ``recode_exclude`` (one list, or one per variable) and NA
            never change. A value < bottom becomes bottom, one > top becomes top.
        label: add a first column ``flag`` with this value; prefix, suffix: rename every column.
    """
    names = None
    problems: list[str] = []
    if keys is not None:
        names = column_names("keys", keys, problems)
    recodes = _recodes(recode_vars, bottom_top_coding, recode_exclude, problems)
    for arg, value in (("label", label), ("prefix", prefix), ("suffix", suffix)):
        if value is not None and not isinstance(value, str):
            problems.append(f"{arg}: expected a string, got {value!r}")
    for arg, flag in (("rm_replicated_uniques", rm_replicated_uniques),
                      ("rm_uniques_in_orig", rm_uniques_in_orig)):  # fmt: skip
        if not isinstance(flag, bool):
            problems.append(f"{arg}: expected True or False, got {flag!r}")
    if problems:
        raise InputError(problems)
    with open_engine(engine, threads=threads) as eng:
        inputs = register_inputs(eng, original, synthetic)
        if names is None:
            names = list(inputs.sources[1].columns)
        _check_columns(inputs, names, recodes)
        remove = (
            "in_original"
            if rm_uniques_in_orig
            else ("replicated" if rm_replicated_uniques else None)
        )
        tables, removed, recoded = _protect(inputs, names, recodes, remove)
    tables = [_rename(t, label, prefix, suffix) for t in tables]
    return SdcResult(tables, removed, recoded, tuple(names))


def _codes(value: Any, where: str, problems: list[str]) -> tuple[float, ...]:
    items = [value] if value is None or isinstance(value, int | float) else list(value)
    out = []
    for v in items:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            continue  # synthpop: NA codes are harmless
        if isinstance(v, bool) or not isinstance(v, int | float):
            problems.append(f"{where}: codes must be numbers (or None), got {v!r}")
            continue
        out.append(float(v))
    return tuple(out)


def _recodes(vars_: Any, coding: Any, exclude: Any, problems: list[str]) -> list[Recode]:
    if vars_ is None:
        if coding is not None or exclude is not None:
            problems.append("bottom_top_coding/recode_exclude: give recode_vars too")
        return []
    names = column_names("recode_vars", vars_, problems)
    pairs = coding
    if (
        isinstance(coding, Sequence)
        and len(coding) == 2
        and not any(isinstance(c, Sequence) for c in coding)
    ):
        pairs = [coding] * len(names) if len(names) == 1 else None
    if not isinstance(pairs, Sequence) or len(pairs) != len(names):
        problems.append(
            f"bottom_top_coding: expected one (bottom, top) pair per recode variable "
            f"({len(names)}), got {coding!r}"
        )
        return []
    if exclude is None or isinstance(exclude, int | float):
        excludes: list[Any] = [exclude] * len(names)
    elif len(names) > 1 and all(isinstance(e, Sequence) or e is None for e in exclude):
        excludes = list(exclude)
    else:
        excludes = [exclude] * len(names)
    if len(excludes) != len(names):
        problems.append(f"recode_exclude: expected one list per recode variable ({len(names)})")
        return []
    out = []
    for name, pair, ex in zip(names, pairs, excludes, strict=True):
        if not isinstance(pair, Sequence) or len(pair) != 2:
            problems.append(f"bottom_top_coding for {name!r}: expected (bottom, top), got {pair!r}")
            continue
        bottom, top = (_codes(v, f"bottom_top_coding for {name!r}", problems) for v in pair)
        out.append(Recode(name, bottom[0] if bottom else None, top[0] if top else None,
                          _codes(ex, f"recode_exclude for {name!r}", problems)))  # fmt: skip
    return out


def _check_columns(inputs: Inputs, names: list[str], recodes: list[Recode]) -> None:
    roles = dict.fromkeys(names, "key") | {r.name: "recode variable" for r in recodes}
    kinds, problems = column_kinds(inputs.sources, roles)
    for r in recodes:
        if r.name in kinds and kinds[r.name] not in ("integer", "float", "null"):
            problems.append(f"recode_vars: {r.name!r} is not numeric ({kinds[r.name]})")
    if problems:
        raise SchemaError(problems)


def _recode_ctx(reg_columns: dict[str, str], recodes: list[Recode],
                params: dict[str, Any]) -> list[dict[str, Any]]:  # fmt: skip
    """The sdc/recoded column contexts of one data set; its code values added to params."""
    index = {r.name: i for i, r in enumerate(recodes)}  # parameter names: the same everywhere
    out: list[dict[str, Any]] = []
    for name, engine_type in reg_columns.items():
        if name not in index:
            out.append({"name": name, "recode": None})
            continue
        i = index[name]
        r = recodes[i]
        codes = [c for c in (r.bottom, r.top) if c is not None]
        whole = all(c.is_integer() for c in codes)
        integer = column_kind(engine_type) == "integer" and whole
        recode: dict[str, Any] = {"type": "bigint" if integer else "double", "exclude": []}
        for side, code in (("bottom", r.bottom), ("top", r.top)):
            recode[side] = None
            if code is not None:
                recode[side] = f"rc_{i}_{side}"
                params[recode[side]] = int(code) if integer else code
        for j, e in enumerate(r.exclude):
            params[f"rc_{i}_x{j}"] = e
            recode["exclude"].append(f"rc_{i}_x{j}")
        out.append({"name": name, "recode": recode, "name_param": f"rc_{i}_name"})
        params[f"rc_{i}_name"] = name
    return out


def _protect(
    inputs: Inputs, names: list[str], recodes: list[Recode], remove: str | None
) -> tuple[list[pa.Table], pa.Table, pa.Table]:
    engine = inputs.engine
    sources = inputs.data_sets()
    params = inputs.params()
    recoded_sources: list[DataSet] = [sources[0]]
    relations = []
    counts = []
    for s, reg in zip(sources[1:], inputs.sources[1:], strict=True):
        columns = _recode_ctx(reg.columns, recodes, params)
        positioned = replace(s, sql=engine.positioned(reg))
        sql = render("sdc/recoded.sql.j2", engine.dialect, source=positioned, columns=columns)
        relations.append((sql, [c["name"] for c in columns]))
        kinds = dict(s.kinds)
        for c in columns:
            if c["recode"] and c["recode"]["type"] == "double":
                kinds[c["name"]] = "float"
        recoded_sources.append(replace(s, sql=f"({sql})", kinds=kinds))
        counts = [c for c in columns if c["recode"]]
    recoded = RECODED_SCHEMA.empty_table()
    if recodes:
        template = "sdc/recode_counts.sql.j2"
        # counted on the syntheses as given
        sql = render(template, engine.dialect, sources=sources[1:], columns=counts)
        recoded = engine.query(sql, params, template).select(list(RECODED_SCHEMA.names))
        recoded = recoded.cast(RECODED_SCHEMA)
    removed_rows = [0] * inputs.m
    if remove is not None:
        text = {k: as_text(inputs, k) or k in {r.name for r in recodes} for k in names}
        count_uniques(engine, recoded_sources, recoded_sources, params, names, text,
                      flags_table=REMOVED)  # fmt: skip
    tables = []
    try:
        for j, (sql, cols) in enumerate(relations, start=1):
            kept = render("sdc/kept.sql.j2", engine.dialect, recoded=sql, columns=cols,
                          removed=REMOVED if remove else None, synthesis=j,
                          only_replicated=remove == "replicated")  # fmt: skip
            table = engine.query(kept, params, "sdc/kept")
            removed_rows[j - 1] = inputs.sources[j].n_rows - table.num_rows
            tables.append(table)
    finally:
        engine.drop_table(REMOVED)
    removed = pa.table(
        {
            "synthesis": pa.array(range(1, inputs.m + 1), pa.int32()),
            "reason": [REASONS[remove] if remove else "none"] * inputs.m,
            "rows": pa.array(removed_rows, pa.int64()),
        },
        schema=REMOVED_SCHEMA,
    )
    return tables, removed, recoded


def _rename(table: pa.Table, label: str | None, prefix: str | None,
            suffix: str | None) -> pa.Table:  # fmt: skip
    """synthpop's prefix/suffix on every column name, then a first column ``flag`` = label."""
    names = [f"{prefix or ''}{n}{suffix or ''}" for n in table.column_names]
    table = table.rename_columns(names)
    if label is not None:
        table = table.add_column(0, "flag", pa.array([label] * table.num_rows, pa.string()))
    return table
