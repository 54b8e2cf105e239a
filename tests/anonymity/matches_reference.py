"""A brute-force reference of exact_matches(): every synthetic record compared with every
original (and control) record in plain Python, column by column.

Values compare as values: None and NaN are one value (missing, equal to itself), 57 and 57.0 are
one value, text compares as text (a text "NA" is not missing).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

NA = ("NA",)  # missing: a value of its own, distinct from any text
DISTANCES = ("0", "1", "2", "3+")


def value(v: Any) -> Any:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return NA
    if isinstance(v, int | float) and not isinstance(v, bool):
        return ("number", float(v))
    return ("other", v)


def _record(row: dict[str, Any], columns: list[str]) -> tuple[Any, ...]:
    return tuple(value(row[c]) for c in columns)


def _pct(a: int, b: int) -> float:
    return math.nan if b == 0 else a / b * 100


def distances(
    synthetic: list[tuple[Any, ...]], reference: list[tuple[Any, ...]]
) -> list[dict[str, Any]]:
    """distance, records, percent: each synthetic record's smallest number of differing
    columns to any reference record (every pair compared)."""
    counts = dict.fromkeys(DISTANCES, 0)
    for s in synthetic:
        d = min(sum(a != b for a, b in zip(s, r, strict=True)) for r in reference)
        counts[DISTANCES[min(d, 3)]] += 1
    return [
        {"distance": d, "records": n, "percent": _pct(n, len(synthetic))} for d, n in counts.items()
    ]


def reference(
    original: list[dict[str, Any]],
    syntheses: list[list[dict[str, Any]]],
    columns: list[str],
    control: list[dict[str, Any]] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """The ``summary`` and ``distances`` rows of exact_matches(), computed pair by pair."""
    orig = [_record(r, columns) for r in original]
    ctrl = None if control is None else [_record(r, columns) for r in control]
    counts = Counter(orig)
    uniques = [r for r in orig if counts[r] == 1]
    summary, dist = [], []
    for j, syn in enumerate(syntheses, start=1):
        recs = [_record(r, columns) for r in syn]
        present = set(recs)
        in_syn = sum(1 for r in uniques if r in present)
        identical = sum(1 for s in recs if any(s == r for r in orig))
        row: dict[str, Any] = {
            "synthesis": j,
            "records": len(recs),
            "original_uniques": len(uniques),
            "in_synthesis": in_syn,
            "uem": _pct(in_syn, len(uniques)),
            "identical_records": identical,
            "identical": _pct(identical, len(recs)),
            "control_identical_records": None,
            "control_identical": None,
        }
        dist += [{"synthesis": j, "against": "original", **r} for r in distances(recs, orig)]
        if ctrl is not None:
            same = sum(1 for s in recs if any(s == r for r in ctrl))
            row["control_identical_records"] = same
            row["control_identical"] = _pct(same, len(recs))
            dist += [{"synthesis": j, "against": "control", **r} for r in distances(recs, ctrl)]
        summary.append(row)
    return {"summary": summary, "distances": dist}
