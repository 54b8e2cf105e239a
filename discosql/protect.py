"""synthpop's ``sdc()``: a safer synthetic data set, made in SQL. Bottom/top coding of numeric
variables first, then removal of the synthetic records unique in their synthesis and in the
original (replicated uniques) or present in it (uniques in original), in synthpop's order; the
records are matched by value (:mod:`.uniques`)."""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa

from .engines import open_engine
from .errors import DiscoSQLWarning, InputError, SchemaError
from .inputs import DataSet, Inputs, column_kind, column_kinds, register_inputs
from .plan import as_text
from .results import AsData, json_rows
from .spec import column_names
from .summary import DisclosureSummary, disclosure_summary
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
class SdcResult(AsData):
    """The protected syntheses and what was done to them.

    ``synthetic``: one Arrow table per synthesis, rows in input order (empty when written to
    files: ``out`` then lists them); ``removed``: synthesis, reason, rows (records removed);
    ``recoded``: synthesis, variable, bottom_coded, top_coded. ``before``/``after``: the
    ``disclosure_summary`` of ``measure=`` on the syntheses as given and as protected.
    """

    synthetic: list[pa.Table]
    removed: pa.Table
    recoded: pa.Table
    keys: tuple[str, ...]
    out: tuple[str, ...] = ()
    before: DisclosureSummary | None = None
    after: DisclosureSummary | None = None

    def to_dict(self) -> dict[str, Any]:
        """keys, removed and recoded as plain data (the syntheses themselves are not)."""
        return {
            "keys": list(self.keys),
            "removed": json_rows(self.removed),
            "recoded": json_rows(self.recoded),
            "out": list(self.out),
            "before": None if self.before is None else self.before.to_dict(),
            "after": None if self.after is None else self.after.to_dict(),
        }


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
    out: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    measure: dict[str, Any] | None = None,
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
        out: write the protected syntheses to files instead of returning them (streamed by
            the engine, never held in Python): a directory (``synthetic_<j>.parquet`` in it) or
            a path ending in .parquet or .csv, with ``{synthesis}`` in it when m > 1. Existing
            files are refused unless ``overwrite=True``.
        measure: ``disclosure_summary`` options (``keys`` defaults to ``keys``): the summary of
            the syntheses before and after protection (``res.before``, ``res.after``).
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
    n_syn = len(synthetic) if isinstance(synthetic, list | tuple) else 1
    paths = _out_paths(out, n_syn, overwrite, problems)
    if measure is not None and not isinstance(measure, dict):
        problems.append(f"measure: expected a dict of disclosure_summary options, got {measure!r}")
    elif measure is not None and paths and (prefix or suffix):
        problems.append("measure: renamed files (prefix/suffix) cannot be measured; drop out=")
    if problems:
        raise InputError(problems)
    if rm_uniques_in_orig and rm_replicated_uniques:  # synthpop says so too
        warnings.warn(
            "rm_uniques_in_orig and rm_replicated_uniques: only the uniques in the original "
            "are removed (they include the replicated uniques)",
            DiscoSQLWarning,
            stacklevel=2,
        )
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
        rename = (label, prefix or "", suffix or "")
        tables, removed, recoded = _protect(inputs, names, recodes, remove, rename, paths)
    result = SdcResult(tables, removed, recoded, tuple(names), tuple(paths))
    if measure is None:
        return result
    return _measure(result, original, synthetic, measure, rename, engine, threads)


def _measure(
    res: SdcResult,
    original: Any,
    synthetic: Any,
    measure: dict[str, Any],
    rename: tuple[str | None, str, str],
    engine: Any,
    threads: int | None,
) -> SdcResult:
    """The disclosure_summary of ``measure`` before and after: the protected data under their
    own names (without the label column), or the files written."""
    options = {"keys": list(res.keys), **measure, "engine": engine, "threads": threads}
    before = disclosure_summary(original, synthetic, **options)
    label, prefix, suffix = rename
    protected: list[Any] = list(res.out)
    if not protected:
        for table in res.synthetic:
            if label is not None:
                table = table.drop_columns(["flag"])
            given = [n[len(prefix) : len(n) - len(suffix)] for n in table.column_names]
            protected.append(table.rename_columns(given))
    options.setdefault("targets", list(before.results))  # the label column is no target
    after = disclosure_summary(original, protected, **options)
    return replace(res, before=before, after=after)


def _out_paths(out: Any, m: int, overwrite: bool, problems: list[str]) -> list[str]:
    """The file of each protected synthesis, checked before any data is read."""
    if out is None:
        return []
    if not isinstance(out, str | os.PathLike):
        problems.append(f"out: expected a path, got {out!r}")
        return []
    text = os.fspath(out)
    if os.path.isdir(text):
        paths = [os.path.join(text, f"synthetic_{j}.parquet") for j in range(1, m + 1)]
    elif not text.lower().endswith((".parquet", ".csv")):
        problems.append(f"out: {text!r} must be a directory or end in .parquet or .csv")
        return []
    elif m > 1 and "{synthesis}" not in text:
        problems.append(f"out: {text!r} names one file for {m} syntheses; put {{synthesis}} in it")
        return []
    else:
        paths = [text.replace("{synthesis}", str(j)) for j in range(1, m + 1)]
    for p in paths:
        parent = os.path.dirname(os.path.abspath(p))
        if not os.path.isdir(parent):
            problems.append(f"out: the directory {parent!r} does not exist")
            break
        if os.path.exists(p) and not overwrite:
            problems.append(f"out: {p!r} exists; pass overwrite=True to replace it")
    return paths


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
    inputs: Inputs,
    names: list[str],
    recodes: list[Recode],
    remove: str | None,
    rename: tuple[str | None, str, str],
    paths: list[str],
) -> tuple[list[pa.Table], pa.Table, pa.Table]:
    engine = inputs.engine
    sources = inputs.data_sets()
    params = inputs.params()
    recoded_sources: list[DataSet] = [sources[0]]
    relations = []
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
    # the recoded columns' contexts: their parameters are named alike in every synthesis
    counts = [c for c in columns if c["recode"]] if relations else []
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
    label, prefix, suffix = rename
    if label is not None:
        params["sdc_label"] = label
    tables = []
    try:
        for j, (sql, cols) in enumerate(relations, start=1):
            columns = [{"name": c, "out": f"{prefix}{c}{suffix}"} for c in cols]
            kept = render("sdc/kept.sql.j2", engine.dialect, recoded=sql, columns=columns,
                          removed=REMOVED if remove else None, synthesis=j,
                          label="sdc_label" if label is not None else None,
                          only_replicated=remove == "replicated")  # fmt: skip
            if paths:
                n_kept = engine.copy_to(kept, params, paths[j - 1], "sdc/kept")
            else:
                tables.append(engine.query(kept, params, "sdc/kept"))
                n_kept = tables[-1].num_rows
            removed_rows[j - 1] = inputs.sources[j].n_rows - n_kept
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
