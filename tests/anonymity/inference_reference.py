"""Brute-force reference of inference(): every target against every synthetic record in
Python, under anonymeter 1.1's Gower distance written out as its numba loop computes it
(``neighbors/mixed_types_kneighbors.py`` gower_distance, ``preprocessing/transformations.py``
_scale_numerical): numeric columns by name then categorical ones by name; per column 1 where
both values are missing, NaN for a number against a missing one, |a / R - b / R| for two
numbers (R the range over both data sets, 1 where it is 0), 0 or 1 for categories (missing
equal to missing); the terms added in that order from 0.0.

Records are dicts; a missing value is None (the caller reads NaN as None)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Record = dict[str, Any]
EPS = 1e-12


def gower_ranges(a: Sequence[Record], b: Sequence[Record], numeric: Sequence[str]) -> dict:
    out = {}
    for c in numeric:
        known = [r[c] for r in [*a, *b] if r[c] is not None]
        rng = (max(known) - min(known)) if known else 0
        out[c] = rng if rng != 0 else 1
    return out


def gower(x: Record, y: Record, order: Sequence[str], numeric: set[str], rng: dict) -> float:
    total = 0.0
    for c in order:
        a, b = x[c], y[c]
        if c in numeric:
            if a is None and b is None:
                total += 1
            elif a is None or b is None:
                return math.nan
            else:
                total += abs(a / rng[c] - b / rng[c])
        elif a != b:
            total += 1
    return total


def right(g: Any, s: Any, regression: bool, tol: float, as_anonymeter: bool) -> bool:
    if g is None and s is None:
        return True
    if g is None or s is None:
        return False
    if not regression:
        return bool(g == s)
    den = g + EPS
    if den == 0:
        return False
    if as_anonymeter:
        return abs(g - s) / den <= tol
    return abs(g - s) / abs(den) <= tol


def attack(
    targets: Sequence[Record],
    synthetic: Sequence[Record],
    aux: Sequence[str],
    secret: str,
    numeric: set[str],
    regression: bool,
    tol: float = 0.05,
    as_anonymeter: bool = False,
) -> dict[str, float]:
    """rate (the mean share of right guesses among the tied nearest), rate_min, rate_max and
    the baseline (the mean share of right guesses among all synthetic records)."""
    order = sorted(c for c in aux if c in numeric) + sorted(c for c in aux if c not in numeric)
    rng = gower_ranges(targets, synthetic, [c for c in aux if c in numeric])
    shares, base = [], []
    for t in targets:
        d = [gower(t, y, order, numeric, rng) for y in synthetic]
        finite = [v for v in d if not math.isnan(v)]
        tied = [
            y for y, v in zip(synthetic, d, strict=True) if finite and v == min(finite)
        ] or synthetic
        hits = [right(y[secret], t[secret], regression, tol, as_anonymeter) for y in tied]
        shares.append(sum(hits) / len(hits))
        every = [right(y[secret], t[secret], regression, tol, as_anonymeter) for y in synthetic]
        base.append(sum(every) / len(every))
    n = len(targets)
    return {
        "rate": sum(shares) / n,
        "rate_min": sum(1 for s in shares if s == 1) / n,
        "rate_max": sum(1 for s in shares if s > 0) / n,
        "baseline_rate": sum(base) / n,
    }


def linkability(
    targets: Sequence[Record],
    synthetic: Sequence[Record],
    a: Sequence[str],
    b: Sequence[str],
    numeric: set[str],
    k: int = 1,
) -> tuple[int, int]:
    """(linked, linked_unique) of anonymeter's linkability attack under its Gower distance,
    every choice among the ties at the k-th distance enumerated: linked when some choice of
    the k closest on A and on B shares a synthetic record, linked uniquely when every one
    does. A NaN distance ranks after every finite one, all NaN tied."""
    from itertools import combinations

    k = min(k, len(synthetic))

    def choices(t: Record, side: Sequence[str]) -> list[frozenset[int]]:
        order = sorted(c for c in side if c in numeric) + sorted(
            c for c in side if c not in numeric
        )
        rng = gower_ranges(targets, synthetic, [c for c in side if c in numeric])
        d = [gower(t, y, order, numeric, rng) for y in synthetic]
        key = [math.inf if math.isnan(v) else v for v in d]
        kth = sorted(key)[k - 1]
        nearer = frozenset(i for i, v in enumerate(key) if v < kth)
        at = [i for i, v in enumerate(key) if v == kth]
        return [nearer | frozenset(c) for c in combinations(at, k - len(nearer))]

    linked = unique = 0
    for t in targets:
        pairs = [(x, y) for x in choices(t, a) for y in choices(t, b)]
        hits = [bool(x & y) for x, y in pairs]
        linked += any(hits)
        unique += all(hits)
    return linked, unique
