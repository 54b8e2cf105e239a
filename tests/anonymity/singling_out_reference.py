"""A brute-force reference of singling_out(): every combination of columns and every predicate
of every synthetic record, each counted over every record in plain Python.

Values compare as values: None and NaN are one value (missing), 57 and 57.0 are one value, text
compares as text. A half-line ``c <= v`` (``c >= v``) matches the numbers (not None, not NaN)
at or below (above) v.
"""

from __future__ import annotations

import itertools
import math
import statistics
from typing import Any

NA = ("NA",)  # missing: a value of its own, distinct from any text


def value(v: Any) -> Any:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return NA
    if isinstance(v, int | float) and not isinstance(v, bool):
        return ("number", float(v))
    return ("other", v)


def _number(v: Any) -> float | None:
    if v is None or isinstance(v, bool) or not isinstance(v, int | float) or math.isnan(v):
        return None
    return float(v)


def _matches(rows: list[dict[str, Any]], pred: tuple[Any, ...]) -> int:
    """How many rows satisfy one predicate: ("eq", {column: value}), ("le"/"ge", column,
    bound) or ("and", parts): every part, each ("eq", column, value) or ("le"/"ge", column,
    bound)."""
    if pred[0] == "eq":
        return sum(all(value(r[c]) == v for c, v in pred[1]) for r in rows)
    if pred[0] == "and":
        return sum(all(_part(r, part) for part in pred[1]) for r in rows)
    _, col, bound = pred
    hits = 0
    for r in rows:
        x = _number(r[col])
        if x is not None and (x <= bound if pred[0] == "le" else x >= bound):
            hits += 1
    return hits


def _part(r: dict[str, Any], part: tuple[Any, ...]) -> bool:
    kind, col, v = part
    if kind == "eq":
        return bool(value(r[col]) == v)
    x = _number(r[col])
    return x is not None and (x <= v if kind == "le" else x >= v)


def half_line_predicates(
    synthetic: list[dict[str, Any]], combo: tuple[str, ...], numeric: set[str]
) -> list[tuple[Any, ...]]:
    """anonymeter's multivariate queries over ``combo`` that single out one synthetic record:
    each synthetic record's, a numeric value v written ``>= v`` above the synthesis' median
    of its column (over its known numbers), else ``<= v``; a missing value ``is missing``;
    any other value ``== v``."""
    medians = {}
    for c in combo:
        xs = [x for r in synthetic if (x := _number(r[c])) is not None]
        medians[c] = statistics.median(xs) if xs else None
    out: list[tuple[Any, ...]] = []
    seen = set()
    for r in synthetic:
        parts = []
        for c in combo:
            x = _number(r[c]) if c in numeric else None
            if x is None:
                parts.append(("eq", c, value(r[c])))
            else:
                med = medians[c]
                parts.append(("ge" if med is not None and x > med else "le", c, x))
        pred = ("and", tuple(parts))
        if pred not in seen:
            seen.add(pred)
            if _matches(synthetic, pred) == 1:
                out.append(pred)
    return out


def predicates(
    synthetic: list[dict[str, Any]],
    combo: tuple[str, ...],
    numeric: set[str],
    half_lines: bool,
) -> list[tuple[Any, ...]]:
    """The distinct predicates over ``combo`` that single out one synthetic record: each
    synthetic record's values (anonymeter's multivariate record query, or univariate ``==`` and
    ``isna``), and with ``half_lines`` a numeric column's ``<= min`` and ``>= max``."""
    out: list[tuple[Any, ...]] = []
    seen = set()
    for r in synthetic:
        pred = ("eq", tuple((c, value(r[c])) for c in combo))
        if pred not in seen:
            seen.add(pred)
            if _matches(synthetic, pred) == 1:
                out.append(pred)
    if half_lines:
        for c in combo:
            if c not in numeric:
                continue
            xs = [x for r in synthetic if (x := _number(r[c])) is not None]
            if xs:
                for pred in (("le", c, min(xs)), ("ge", c, max(xs))):
                    if _matches(synthetic, pred) == 1:
                        out.append(pred)
    return out


def reference(
    original: list[dict[str, Any]],
    synthetic: list[dict[str, Any]],
    columns: list[str],
    mode: str,
    n_cols: int,
    numeric: set[str],
    control: list[dict[str, Any]] | None = None,
    half_lines: bool = True,
) -> dict[str, Any]:
    """queries, successes, control_successes (None without a control) and by_columns rows;
    ``half_lines``: multivariate predicates on numbers as anonymeter writes them."""
    size = 1 if mode == "univariate" else n_cols
    rows = []
    total = [0, 0, 0]
    for combo in itertools.combinations(columns, size):
        if mode == "multivariate" and half_lines and set(combo) & numeric:
            preds = half_line_predicates(synthetic, combo, numeric)
        else:
            preds = predicates(synthetic, combo, numeric, mode == "univariate")
        q = len(preds)
        s = sum(_matches(original, p) == 1 for p in preds)
        c = sum(_matches(control, p) == 1 for p in preds) if control is not None else 0
        rows.append({"columns": list(combo), "queries": q, "successes": s})
        total = [total[0] + q, total[1] + s, total[2] + c]
    return {
        "queries": total[0],
        "successes": total[1],
        "control_successes": total[2] if control is not None else None,
        "by_columns": rows,
    }
