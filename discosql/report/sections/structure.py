"""Section 2, labelling and structure: a label column, columns and types that differ, and levels on
one side only, per synthesis."""

from __future__ import annotations

from typing import Any

from ...core.inputs import Inputs
from ...measure.summary import DisclosureSummary
from ...sql.templates import render

LEVELS_SHOWN = 12  # levels listed per column in the schema differences (internal mode)


def structure_section(inputs: Inputs, summary: DisclosureSummary, external: bool) -> dict[str, Any]:
    """Labelling (a flag column, as synthpop's sdc(label=) adds) and the schema differences:
    columns on one side only, types that differ, levels of the keys and targets present in
    the original or in one synthesis only, per synthesis (counts, and in internal mode the
    first level names): pooling the syntheses hid a level one of them lacks."""
    orig_cols = inputs.sources[0].columns
    syn_cols: dict[str, str] = {}
    for reg in inputs.sources[1:]:
        syn_cols.update(reg.columns)
    columns = [c for c in [*summary.keys, *summary.results] if c in orig_cols]
    levels = _levels(inputs, columns)
    label = [c for c in syn_cols if c.lower() in ("flag", "label") and c not in orig_cols]
    differences = []
    for c in columns:
        for j in range(1, inputs.m + 1):
            o, s = levels.get((0, c), set()), levels.get((j, c), set())
            only_o, only_s = sorted(o - s), sorted(s - o)
            if not (only_o or only_s):
                continue
            differences.append(
                {
                    "column": c,
                    "synthesis": j,
                    "only_in_original": len(only_o),
                    "only_in_synthetic": len(only_s),
                    "examples": None
                    if external
                    else ", ".join([*only_o[: LEVELS_SHOWN // 2], *only_s[: LEVELS_SHOWN // 2]]),
                }
            )
    return {
        "label_columns": label,
        "only_in_original": sorted(set(orig_cols) - set(syn_cols)),
        "only_in_synthetic": sorted(set(syn_cols) - set(orig_cols) - set(label)),
        "type_differences": [
            {"column": c, "original": orig_cols[c], "synthetic": syn_cols[c]}
            for c in sorted(set(orig_cols) & set(syn_cols))
            if orig_cols[c] != syn_cols[c]
        ],
        "level_differences": differences,
    }


def _levels(inputs: Inputs, columns: list[str]) -> dict[tuple[int, str], set[str]]:
    """{(0 original / j synthesis j, column): its distinct values as text}, from the engine."""
    out: dict[tuple[int, str], set[str]] = {}
    for c in columns:
        eng = inputs.engine
        sql = render("inspect/values.sql.j2", eng.dialect, sources=inputs.data_sets(), column=c)
        for row in eng.query(sql, inputs.params(), "inspect/values").to_pylist():
            value = "NA" if row["v"] is None else str(row["v"])
            out.setdefault((int(row["src"]), c), set()).add(value)
    return out
