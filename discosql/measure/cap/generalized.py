"""SDMetrics' CAP scores over the cell table: CategoricalCAP and ZeroCAP from one aggregate
(``cap/exact.sql.j2``), GeneralizedCAP by rounds over key subsets (``cap/generalized.sql.j2``).
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from ...sql.templates import ident
from .cells import CELLS, CapAsk, CapColumn, _float, _one_row, _render, _Run, _sides, cap_cells
from .scores import CapScore

OPEN = "__disco_cap_open"  # + _d, one table per round


RESOLVED = "__disco_cap_resolved"  # + _d


CODED = "__disco_cap_coded"  # GeneralizedCAP's cells with integer key codes


METHODS = ("cap", "zero_cap", "generalized_cap")


# -- SDMetrics-compatible scores --------------------------------------------------------------
def _exact(run: _Run, side: str, side_q: str) -> dict[str, Any]:
    sql = _render(
        run.engine, "cap/exact.sql.j2", cells=CELLS, side=side, side_q=side_q, targets=run.targets
    )
    return _one_row(run.engine.query(sql, {}, "cap/exact"))


def _generalized(run: _Run, side: str) -> dict[str, Any]:
    """GeneralizedCAP by rounds d = 0, 1, ..: one GROUP BY per key subset of size K - d.

    A side key at Hamming distance d from an open original key agrees with it on exactly one
    subset of K - d key columns, so grouped counts over those subsets give the pooled closest
    matches exactly; only keys left open go to the next round.
    """
    eng, targets, template = run.engine, run.targets, "cap/generalized.sql.j2"
    ctx = {"cells": CELLS, "keys": run.keys, "targets": targets, "side": side, "side_q": side + "q"}
    with eng.work() as work:  # every table below is dropped when the block ends
        sql = _render(eng, template, statement="coded", open="", resolved=[], **ctx)
        work.create(CODED, sql, {}, "cap/generalized coded")
        # From here on: integer key codes c_*, the side's count n and margin nq.
        keys = [CapColumn(k.name, f"c_{i}") for i, k in enumerate(run.keys)]
        ctx = {"cells": CODED, "keys": keys, "targets": targets, "side": "n", "side_q": "nq"}
        # d = 0: exact matches come straight from the cell table and its margins.
        rounds = [f"{RESOLVED}_0"]
        opened = [f"{OPEN}_1"]
        steps = ((rounds[0], "exact"), (opened[0], "unmatched"))
        for table, statement in steps:
            sql = _render(eng, template, statement=statement, open="", resolved=[], **ctx)
            work.create(table, sql, {}, f"cap/generalized {statement}")
        aliases = [k.alias for k in keys]
        for d in range(1, len(keys) + 1):
            open_table = opened[-1]
            left = eng.query(
                f"SELECT count(*) AS n FROM {ident(open_table)}", {}, "cap/generalized open count"
            )
            if left.column("n")[0].as_py() == 0:
                break
            subsets = [list(s) for s in itertools.combinations(aliases, len(keys) - d)]
            rounds.append(f"{RESOLVED}_{d}")
            sql = _render(
                eng,
                template,
                statement="round",
                subsets=subsets,
                open=open_table,
                resolved=rounds,
                **ctx,
            )
            work.create(rounds[-1], sql, {}, f"cap/generalized round {d}")
            if d < len(keys):
                opened.append(f"{OPEN}_{d + 1}")
                sql = _render(
                    eng, template, statement="remaining", open=open_table, resolved=rounds, **ctx
                )
                work.create(opened[-1], sql, {}, "cap/generalized remaining")
        sql = _render(eng, template, statement="score", open="", resolved=rounds, **ctx)
        row = _one_row(eng.query(sql, {}, "cap/generalized score"))
    return row


def _cap_score(run: _Run, method: str) -> CapScore:
    scores: list[CapScore] = []
    for side, side_q in _sides(run):
        if method == "generalized_cap":
            row = _generalized(run, side)
            score = CapScore(
                "categorical_generalized_cap",
                _float(row["categorical_generalized_cap"]),
                int(row["n_original"]),
                int(row["n_resolved"]),
            )
        else:
            row = _exact(run, side, side_q)
            zero = method == "zero_cap"
            score = CapScore(
                "categorical_zero_cap" if zero else "categorical_cap",
                _float(row["categorical_zero_cap" if zero else "categorical_cap"]),
                int(row["n_original"]),
                int(row["n_original"] if zero else row["n_matched"]),
            )
        scores.append(score)
    if len(scores) == 2:
        return replace(scores[0], control=scores[1])
    return scores[0]


def _scored(
    method: str,
    original: Any,
    synthetic: Any,
    keys: Any,
    sensitive: Any,
    control: Any,
    threads: int | None,
    engine: Any,
) -> CapScore:
    with cap_cells((original, synthetic, control), CapAsk(keys, sensitive), engine, threads) as run:
        return _cap_score(run, method)
