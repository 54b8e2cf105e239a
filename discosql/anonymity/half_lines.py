"""Singling out's half-lines, counted (anonymeter's multivariate queries on numeric columns:
``>= v`` above the synthesis' median, ``<= v`` at or below): the dominance counts within
blocks of equal categories, missing numbers and sides of the medians, by the number of
numeric columns in a combination (one: a running sum, two: skyline layers, more: the
synthesis' maximal points). :func:`count_half_lines` makes a work table of counts (cid,
queries, successes, control_successes) per batch; ``singling_out.py`` adds them up."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ..core.inputs import Inputs
from ..engines.base import Work
from ..errors import InputError
from ..sql.templates import render
from .distance import RECORDS as DISTANCE_RECORDS
from .distance import DistanceColumn, prepare

DOMINANCE_TEMPLATE = "anonymity/singling_out_dominance.sql.j2"
MEDIANS_TEMPLATE = "anonymity/singling_out_medians.sql.j2"
SKYLINE_TEMPLATE = "anonymity/singling_out_skyline.sql.j2"
MEDIANS = "__disco_so_medians"
MAXIMA_TEMPLATE = "anonymity/singling_out_maxima.sql.j2"
STACKED_ROWS = 2_000_000  # stacked rows (records times combinations) per half-line statement
PAIRS_SCHEMA = pa.schema([("cid", pa.int64()), ("pairs", pa.float64())])


def count_half_lines(
    work: Work,
    inputs: Inputs,
    names: list[str],
    numeric: list[int],
    combos: list[tuple[int, tuple[int, ...]]],
    max_pairs: int,
    prefix: str,
) -> list[str]:
    """The work tables (named from ``prefix``) of the counts of the combinations with a
    numeric column under half-lines: every column as the distance family reads it (codes,
    and doubles for the numbers), the synthesis' medians, then the combinations of one
    shape (as many categorical and numeric columns) stacked: with one numeric column a
    running sum (``anonymity/singling_out_dominance.sql.j2``), with two the skyline layers
    (``singling_out_skyline.sql.j2``), with more the synthesis' maximal points
    (``singling_out_maxima.sql.j2``), whose pairs are bounded by ``max_pairs``."""
    engine = work.engine
    sources = list(inputs.sources)
    cols = [DistanceColumn(name, pos, pos in numeric) for pos, name in enumerate(names)]
    prepare(work, sources, cols)
    sql = render(MEDIANS_TEMPLATE, engine.dialect, records=DISTANCE_RECORDS, nums=numeric)
    work.create(MEDIANS, sql, {}, MEDIANS_TEMPLATE)
    shapes: dict[int, list[dict[str, Any]]] = {}
    for cid, combo in combos:
        nums = [p for p in combo if p in numeric]
        cats = [p for p in combo if p not in numeric]
        shapes.setdefault(len(nums), []).append({"cid": cid, "cats": cats, "nums": nums})
    # a statement per combination pays its planning each time; stacked, a statement holds
    # at most STACKED_ROWS rows (combinations times records) or one combination
    size = max(1, STACKED_ROWS // max(1, sum(reg.n_rows for reg in sources)))
    ctx = {"records": DISTANCE_RECORDS, "medians": MEDIANS}
    tables = []
    for k, shape in sorted(shapes.items()):
        for b in range(0, len(shape), size):
            batch, name = shape[b : b + size], f"{prefix}h{k}_{b}"
            if k >= 3:
                _maxima(work, batch, name, names, max_pairs, ctx)
            else:
                template = DOMINANCE_TEMPLATE if k == 1 else SKYLINE_TEMPLATE
                sql = render(template, engine.dialect, combinations=batch, **ctx)
                work.create(name, sql, {}, template)
            tables.append(name)
    return tables


def _maxima(
    work: Work,
    batch: list[dict[str, Any]],
    name: str,
    names: list[str],
    max_pairs: int,
    ctx: dict[str, str],
) -> None:
    """The counts of a batch of combinations with three numeric columns or more, part by part
    (``anonymity/singling_out_maxima.sql.j2``): each part's pairs are counted first and
    refused past ``max_pairs``."""
    engine = work.engine
    tables = {part: f"{name}_{part}" for part in ("points", "strong", "candidates", "queries")}
    full = {**ctx, **tables, "combinations": batch}
    for part in ("points", "strong", "candidates", "queries", "counts"):
        if part in ("candidates", "queries", "counts"):
            after = {"candidates": "strong", "queries": "candidates", "counts": "queries"}[part]
            sql = render(MAXIMA_TEMPLATE, engine.dialect, part="pairs", after=after, **full)
            got = engine.query(sql, {}, MAXIMA_TEMPLATE, small=True, schema=PAIRS_SCHEMA)
            for row in got.to_pylist():
                if row["pairs"] > max_pairs:
                    combo = next(c for c in batch if c["cid"] == row["cid"])
                    columns = [names[i] for i in sorted(combo["cats"] + combo["nums"])]
                    raise InputError(
                        f"singling_out: the half-line queries of the columns {columns!r} "
                        f"need {row['pairs']:.3g} pairs of points (the synthesis' points "
                        "against those of their block: equal categories, the same side of "
                        f"each median), above max_pairs={max_pairs:_}: most of its points "
                        "are maximal (numbers that go against each other); give fewer "
                        "numeric columns, numeric='values', or raise max_pairs"
                    )
        sql = render(MAXIMA_TEMPLATE, engine.dialect, part=part, **full)
        work.create(tables.get(part, name), sql, {}, MAXIMA_TEMPLATE)
