"""A brute-force reference of linkability(): every attacked record compared with every
synthetic record in plain Python, on each side's columns.

Values compare as in exact_matches' reference (tests/anonymity/matches_reference.py): None and
NaN are one value, 57 and 57.0 are one value, a text "NA" is text.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .matches_reference import value


def _on(row: dict[str, Any], columns: list[str]) -> tuple[Any, ...]:
    return tuple(value(row[c]) for c in columns)


def _closest(record: tuple[Any, ...], candidates: list[tuple[Any, ...]]) -> tuple[int, set[int]]:
    """The smallest number of differing columns to a candidate and the candidates (their
    positions) at it; no candidate: the side's width and none."""
    if not candidates:
        return len(record), set()
    d = [sum(a != b for a, b in zip(record, c, strict=True)) for c in candidates]
    smallest = min(d)
    return smallest, {i for i, x in enumerate(d) if x == smallest}


def attack(
    rows: list[dict[str, Any]], synthetic: list[dict[str, Any]], a: list[str], b: list[str]
) -> Counter[tuple[int, int, str]]:
    """(distance on A, distance on B, what) -> records, what in records, linked,
    linked_unique."""
    syn_a = [_on(s, a) for s in synthetic]
    syn_b = [_on(s, b) for s in synthetic]
    out: Counter[tuple[int, int, str]] = Counter()
    for r in rows:
        da, near_a = _closest(_on(r, a), syn_a)
        db, near_b = _closest(_on(r, b), syn_b)
        out[(da, db, "records")] += 1
        if near_a & near_b:
            out[(da, db, "linked")] += 1
            if len(near_a) == 1 and near_a == near_b:
                out[(da, db, "linked_unique")] += 1
    return out


def reference(
    original: list[dict[str, Any]],
    synthetic: list[dict[str, Any]],
    a: list[str],
    b: list[str],
    control: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """linkability()'s ``by_distance`` rows, record by record."""
    rows = []
    attacked = [("original", original)] + ([] if control is None else [("control", control)])
    for name, data in attacked:
        counts = attack(data, synthetic, a, b)
        for da, db in sorted({(x, y) for x, y, _ in counts}):
            rows.append(
                {
                    "data_set": name,
                    "distance_a": da,
                    "distance_b": db,
                    "records": counts[(da, db, "records")],
                    "linked": counts[(da, db, "linked")],
                    "linked_unique": counts[(da, db, "linked_unique")],
                }
            )
    return rows
