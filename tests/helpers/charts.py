"""The inputs of the report's charts (discosql/report/charts.py) for test_charts.py, which also
imports this module in a fresh interpreter without matplotlib: it imports nothing but the
standard library."""

from __future__ import annotations

import itertools
from typing import Any

KEYS = ["age", "occupation", "race", "sex"]
TARGETS = [
    "workclass",
    "capital.gain",
    "education",
    "marital.status",
    "relationship",
    "native.country",
    "hours.per.week",
    "capital.loss",
    "income",
    "fnlwgt",
    "sex.x",
]


def summary_rows(targets: list[str] | None = None) -> list[dict[str, Any]]:
    """A row per target, deliberately not sorted by name or value."""
    out = []
    for i, t in enumerate(targets or TARGETS):
        orig = 10.0 + (37 * i) % 80
        out.append(
            {
                "target": t,
                "orig": orig,
                "syn": orig / 2,
                "worst": orig / 2 + 3,
                "checks": [["1way"], ["1way", "2way"], []][i % 3],
            }
        )
    return out


def sweep_data(
    keys: list[str] = KEYS, targets: list[str] = TARGETS
) -> tuple[dict[tuple[str, tuple[str, ...]], float], list[dict[str, Any]]]:
    """means {(target, subset): value} over every subset, and contribution rows for two
    measures (only DiSCO's should be drawn)."""
    means = {
        (t, s): (j + 1) * len(s) * (1.5 if keys[0] in s else 1.0) + 0.25 * sum(map(len, s))
        for j, t in enumerate(targets)
        for n in range(1, len(keys) + 1)
        for s in itertools.combinations(keys, n)
    }
    contribution = [
        {
            "key": k,
            "target": t,
            "measure": m,
            "pairs": 3,
            "mean_increase": 99.0 if m == "repU" else (i - 1) * 1.7 + j * 0.3,
        }
        for m in ("DiSCO", "repU")
        for i, k in enumerate(keys)
        for j, t in enumerate(targets)
    ]
    return means, contribution
