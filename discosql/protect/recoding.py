"""synthpop's bottom/top coding in sdc(): the arguments checked (``recodes``) and the recoded
syntheses as relations (sdc/recoded): a value below the bottom code becomes the bottom code,
one above the top code the top code; NA, NaN and the recode_exclude codes never change."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..core.inputs import DataSet, Inputs
from ..core.spec import column_names
from ..engines.base import Registered
from ..sql.templates import render


@dataclass(frozen=True)
class Recode:
    """One recode variable: bottom and top codes (None: none) and the codes never recoded."""

    name: str
    bottom: float | None
    top: float | None
    exclude: tuple[float, ...]


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


def parse_recodes(vars_: Any, coding: Any, exclude: Any, problems: list[str]) -> list[Recode]:
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
        out.append(
            Recode(
                name,
                bottom[0] if bottom else None,
                top[0] if top else None,
                _codes(ex, f"recode_exclude for {name!r}", problems),
            )
        )
    return out


def _recode_ctx(
    reg: Registered, recodes: Sequence[Recode], params: dict[str, Any]
) -> list[dict[str, Any]]:
    """The sdc/recoded column contexts of one data set; its code values added to params."""
    index = {r.name: i for i, r in enumerate(recodes)}  # parameter names: the same everywhere
    out: list[dict[str, Any]] = []
    for name in reg.columns:
        if name not in index:
            out.append({"name": name, "recode": None})
            continue
        i = index[name]
        r = recodes[i]
        codes = [c for c in (r.bottom, r.top) if c is not None]
        whole = all(c.is_integer() for c in codes)
        integer = reg.kinds[name] == "integer" and whole
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


def recode_inputs(
    inputs: Inputs, recodes: Sequence[Recode], positions: bool = True
) -> tuple[Inputs, list[list[str]], list[dict[str, Any]]]:
    """The original and the recoded syntheses (sdc/recoded: their relations carry their
    recode parameters, and ``__disco_pos`` with ``positions``), each synthesis's columns, and
    the recoded columns' contexts (their parameters are named alike in every synthesis)."""
    engine = inputs.engine
    syntheses = []
    names: list[list[str]] = []
    columns: list[dict[str, Any]] = []
    for j, reg in enumerate(inputs.sources[1:], start=1):
        params: dict[str, Any] = {}
        columns = _recode_ctx(reg, recodes, params)
        source = DataSet(j, engine.positioned(reg) if positions else reg.sql, {}, False)
        sql = render(
            "sdc/recoded.sql.j2",
            engine.dialect,
            source=source,
            columns=columns,
            positions=positions,
        )
        types, kinds = dict(reg.columns), dict(reg.kinds)
        for c in columns:
            if c["recode"]:
                types[c["name"]] = c["recode"]["type"].upper()
                kinds[c["name"]] = "integer" if c["recode"]["type"] == "bigint" else "float"
        syntheses.append(
            replace(
                reg, sql=f"({sql})", params={**reg.params, **params}, columns=types, kinds=kinds
            )
        )
        names.append([c["name"] for c in columns])
    return (
        Inputs(engine, [inputs.sources[0], *syntheses]),
        names,
        [c for c in columns if c["recode"]],
    )
