"""Brute-force references of the distance family: every pair of records compared in Python.

The distance is SDMetrics 0.32's (``sdmetrics/single_table/privacy/dcr_utils.py``,
``_process_dcr_chunk``), written out term by term in its order of operations: per column,
a numeric or datetime term ``min(|ref - data| / range, 1)`` (``range``: max - min of the
reference data set; a range of 0 gives 0 for equal values, else 1), a categorical or
boolean term 0 for equal values and 1 otherwise; missing against a value 1, missing against
missing 0; the terms added in column order and divided by the number of columns.

Records are dicts; a missing value is None (NaN is read as None by the caller). Numeric
values are int or float; datetimes are given as their seconds (floats).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Record = dict[str, Any]


def ranges(reference: Sequence[Record], numeric: Sequence[str]) -> dict[str, float]:
    """max - min of each numeric column over the reference's known values (0 if none)."""
    out: dict[str, float] = {}
    for c in numeric:
        known = [r[c] for r in reference if r[c] is not None]
        out[c] = (max(known) - min(known)) if known else 0
    return out


def term(a: Any, b: Any, numeric: bool, rng: float) -> float:
    """One column's contribution: ``a`` the record's value, ``b`` the reference's."""
    if a is None and b is None:
        return 0.0
    if a is None or b is None:
        return 1.0
    if not numeric:
        return 0.0 if a == b else 1.0
    diff = abs(b - a)
    if rng == 0:
        return 1.0 if diff > 0 else 0.0
    return min(float(diff) / float(rng), 1.0)


def distance(
    x: Record, y: Record, columns: Sequence[str], numeric: set[str], rng: dict[str, float]
) -> float:
    """SDMetrics' distance of record ``x`` to reference record ``y``."""
    total = 0.0
    for c in columns:
        total = total + term(x[c], y[c], c in numeric, rng.get(c, 0))
    return total / len(columns)


def nearest(
    data: Sequence[Record],
    reference: Sequence[Record],
    columns: Sequence[str],
    numeric: set[str],
) -> list[tuple[float | None, float | None]]:
    """Each record's two smallest distances to the reference's records (each reference
    record once: a duplicate is a second record); None where the reference has too few."""
    rng = ranges(reference, [c for c in columns if c in numeric])
    out: list[tuple[float | None, float | None]] = []
    for x in data:
        ds = sorted(distance(x, y, columns, numeric, rng) for y in reference)
        out.append((ds[0] if ds else None, ds[1] if len(ds) > 1 else None))
    return out


def median(values: Sequence[float]) -> float:
    """pandas' median: the middle value, or the mean of the two middle ones."""
    v = sorted(values)
    n = len(v)
    if n == 0:
        return math.nan
    mid = n // 2
    return v[mid] if n % 2 else (v[mid - 1] + v[mid]) / 2


def hit_rate(
    original: Sequence[Record],
    synthetic: Sequence[Record],
    columns: Sequence[str],
    numeric: set[str],
    share: float,
) -> float:
    """SynthEval's hitting rate: the share of original records with a synthetic record equal
    on every categorical column and within share * range (the original's) on every numeric
    one; missing equals missing."""
    rng = ranges(original, [c for c in columns if c in numeric])

    def near(a: Any, b: Any, c: str) -> bool:
        if a is None or b is None:
            return a is None and b is None
        if c not in numeric:
            return bool(a == b)
        return bool(abs(a - b) <= rng[c] * share)

    hits = sum(any(all(near(o[c], s[c], c) for c in columns) for s in synthetic) for o in original)
    return hits / len(original) if original else math.nan


def quantile(values: Sequence[float], p: float) -> float:
    """numpy's linear quantile of sorted ``values`` (as numpy computes the interpolation)."""
    n = len(values)
    if n == 0:
        return math.nan
    h = (n - 1) * p
    lo = math.floor(h)
    a, b, t = values[lo], values[min(lo + 1, n - 1)], h - lo
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


def dcr_reference(
    original: Sequence[Record],
    syntheses: Sequence[Sequence[Record]],
    columns: Sequence[str],
    numeric: set[str],
    control: Sequence[Record] | None = None,
    within: float = 0.0,
    hit_share: float = 1 / 30,
    syntheval: bool = False,
) -> dict[str, Any]:
    """Per synthesis: each record's dcr (to the original), dcr_control, nndr, and the summary
    measures, as ``ds.dcr`` defines them (``syntheval``: with SynthEval's)."""
    out: dict[str, Any] = {"records": [], "summary": []}
    for j, syn in enumerate(syntheses, start=1):
        near = nearest(syn, original, columns, numeric)
        ctrl = nearest(syn, control, columns, numeric) if control is not None else None
        dcrs = [d1 for d1, _ in near]
        for i, (d1, d2) in enumerate(near):
            nndr = math.nan  # a NULL double is NaN in every result (engines/base.conform)
            if d1 is not None and d2 is not None and d2 > 0:
                nndr = d1 / d2
            out["records"].append(
                {
                    "synthesis": j,
                    "row": i,
                    "dcr": math.nan if d1 is None else d1,
                    "dcr_control": math.nan if ctrl is None or ctrl[i][0] is None else ctrl[i][0],
                    "nndr": nndr,
                }
            )
        k = len(dcrs)
        nndrs = [
            r["nndr"] for r in out["records"] if r["synthesis"] == j and not math.isnan(r["nndr"])
        ]
        summary = {
            "records": float(k),
            "median_dcr": median([d for d in dcrs if d is not None]),
            "identical_share": sum(d == 0 for d in dcrs) / k if k else math.nan,
            "within_share": sum(d is not None and d <= within for d in dcrs) / k if k else math.nan,
            "nndr_mean": math.fsum(nndrs) / len(nndrs) if nndrs else math.nan,
            "hit_rate": hit_rate(original, syn, columns, numeric, hit_share),
        }
        known = sorted(d for d in dcrs if d is not None)
        for name, p in (("dcr_q05", 0.05), ("dcr_q25", 0.25), ("dcr_q75", 0.75), ("dcr_q95", 0.95)):
            summary[name] = quantile(known, p)
        if ctrl is not None:
            pairs = list(zip(dcrs, [c for c, _ in ctrl], strict=True))
            closer = sum(1 for d, c in pairs if d is not None and c is not None and d < c)
            ties = sum(1 for d, c in pairs if d is not None and d == c)
            share = closer / k if k else math.nan
            summary["closer_to_training"] = share
            summary["closer_to_holdout"] = 1 - share
            summary["DCROverfittingProtection"] = min((1.0 - share) * 2, 1.0) if k else math.nan
            summary["dcr_share"] = (closer + ties / 2) / k if k else math.nan
        if syntheval:
            summary |= syntheval_reference(original, syn, columns, numeric)
        for name, value in summary.items():
            out["summary"].append({"synthesis": j, "measure": name, "value": value})
    return out


def syntheval_reference(
    original: Sequence[Record],
    synthetic: Sequence[Record],
    columns: Sequence[str],
    numeric: set[str],
) -> dict[str, float]:
    """SynthEval 1.7's mDCR and NNDR (metric_distance_closest_record.py,
    metric_nn_distance_ratio.py) under its Gower distance: numeric differences over the range
    of the original and the synthesis together; the original's own nearest distances leave
    the record itself out (its np.eye), not its duplicates."""
    rng = ranges([*original, *synthetic], [c for c in columns if c in numeric])

    def d(x: Record, y: Record) -> float:
        return distance(x, y, columns, numeric, rng)

    to_real = [min(d(s, o) for o in original) for s in synthetic] if original else []
    own = [
        min(d(o, p) for k, p in enumerate(original) if k != i)
        for i, o in enumerate(original)
        if len(original) > 1
    ]
    mm, mi = median(to_real), median(own)
    mdcr = 1.0 if mi == 0 and mm == 0 else 0.0 if mi == 0 else mm / mi
    ratios = []
    for o in original:
        two = sorted(d(o, s) for s in synthetic)
        if len(two) > 1:
            ratios.append(two[0] / (two[1] + 1e-16))
    n = len(ratios)
    mean = math.fsum(ratios) / n if n else math.nan
    err = math.nan
    if n > 1:
        spread = math.fsum((x - mean) * (x - mean) for x in ratios)
        err = math.sqrt(spread / (n - 1)) / math.sqrt(n)
    return {"mDCR": mdcr, "syntheval_nndr": mean, "syntheval_nndr_err": err}


def _attack(s1: list[float], s0: list[float], n1: int, n0: int, prefix: str) -> dict[str, float]:
    """AUC (every member-non-member pair compared, ties half) and TPR at FPR 0.001, 0.01, 0.1
    (every threshold on the distinct scores tried) of scores s1 (members), s0 (others)."""
    auc = math.nan
    if n1 and n0:
        wins = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in s1 for b in s0)
        auc = wins / (n1 * n0)
    out = {f"{prefix}auc": auc}
    for name, bound in (
        ("tpr_at_fpr_0.001", 0.001),
        ("tpr_at_fpr_0.01", 0.01),
        ("tpr_at_fpr_0.1", 0.1),
    ):
        best = math.nan
        if n1 and n0:
            best = 0.0
            for t in set(s1) | set(s0):
                tp, fp = sum(a >= t for a in s1), sum(b >= t for b in s0)
                if fp / n0 <= bound:
                    best = max(best, tp / n1)
        out[f"{prefix}{name}"] = best
    return out


def membership_reference(
    original: Sequence[Record],
    syntheses: Sequence[Sequence[Record]],
    control: Sequence[Record],
    columns: Sequence[str],
    numeric: set[str],
    auxiliary: Sequence[Record] | None = None,
) -> dict[str, Any]:
    """Per synthesis: each candidate's dcr to the synthesis, score -dcr and, with auxiliary data,
    score_diff -(dcr - dcr to the auxiliary data); each attack's AUC and TPRs, the copied
    shares."""
    out: dict[str, Any] = {"records": [], "summary": []}
    ref_d = None
    if auxiliary is not None:
        ref_d = {
            True: [d for d, _ in nearest(original, auxiliary, columns, numeric)],
            False: [d for d, _ in nearest(control, auxiliary, columns, numeric)],
        }
    for j, syn in enumerate(syntheses, start=1):
        members = [d for d, _ in nearest(original, syn, columns, numeric)]
        others = [d for d, _ in nearest(control, syn, columns, numeric)]
        diffs: dict[bool, list[float | None]] = {True: [], False: []}
        for member, ds_ in ((True, members), (False, others)):
            for i, d in enumerate(ds_):
                diff = None
                if ref_d is not None and d is not None and ref_d[member][i] is not None:
                    diff = -(d - ref_d[member][i])
                diffs[member].append(diff)
                out["records"].append(
                    {
                        "synthesis": j,
                        "member": member,
                        "row": i,
                        "dcr": math.nan if d is None else d,
                        "score": math.nan if d is None else -d,
                        "score_diff": math.nan if diff is None else diff,
                    }
                )
        n1, n0 = len(members), len(others)
        summary = {"members": float(n1), "non_members": float(n0)}
        s1 = [-d for d in members if d is not None]
        s0 = [-d for d in others if d is not None]
        summary |= _attack(s1, s0, n1, n0, "")
        if ref_d is not None:
            d1 = [v for v in diffs[True] if v is not None]
            d0 = [v for v in diffs[False] if v is not None]
            summary |= _attack(d1, d0, n1, n0, "dcr_diff_")
        summary["members_copied"] = sum(d == 0 for d in members) / n1 if n1 else math.nan
        summary["non_members_copied"] = sum(d == 0 for d in others) / n0 if n0 else math.nan
        for name, value in summary.items():
            out["summary"].append({"synthesis": j, "measure": name, "value": value})
    return out
