"""Linkability under anonymeter's Gower distance: numeric columns by their difference, and
``n_neighbors`` closest records a side, exact over every original record and every tie.

anonymeter's ``LinkabilityEvaluator`` (1.1, ``src/anonymeter/evaluators/
linkability_evaluator.py``) finds, for each target, the ``n_neighbors`` synthetic records
closest to it on A and, separately, on B (``MixedTypeKNeighbors``: numeric columns over their
range in the synthesis and the targets together, L1; categories 0/1), and links the target
when the two sets share a record. Its sort breaks ties at the k-th distance; here every
choice is counted: ``linked`` when some choice links, ``linked_unique`` when every one does.

Each side's records are grouped into profiles (``distance/profiles.sql.j2``) and searched by
the tied search of ``distance.py``; the records' pairs of profiles join the two sides
(``sql_templates/anonymity/linkability_gower*.sql.j2``). The Hamming attack of
``linkability.py`` is the same on categorical columns with one neighbour, and runs there.
"""

from __future__ import annotations

from typing import Protocol

import pyarrow as pa

from ..core.inputs import Inputs
from ..engines.base import Work
from ..errors import InputError
from ..sql.templates import render
from .distance import (
    RECORDS,
    DistanceColumn,
    Tied,
    anonymeter_order,
    distance_columns,
    nearest,
    prepare,
    profiles,
)


class LinkabilityOptions(Protocol):
    """What the attack reads of ``linkability.LinkabilityOptions``."""

    @property
    def sides(self) -> tuple[list[str], list[str]]: ...

    @property
    def names(self) -> list[str]: ...

    @property
    def numeric(self) -> str: ...

    @property
    def n_neighbors(self) -> int: ...

    @property
    def max_pairs(self) -> int: ...


SIDES = ("__disco_lkg_a", "__disco_lkg_b")
CELLS = "__disco_lkg_cells"
NEAR = "__disco_lkg_near_{side}_{src}"
PART = "__disco_lkg_counts_"
CELLS_TEMPLATE = "anonymity/linkability_gower_cells.sql.j2"
COUNTS_TEMPLATE = "anonymity/linkability_gower.sql.j2"
SYNTHESIS, CONTROL = 1, 2
COST_SCHEMA = pa.schema([("via_a", pa.float64()), ("via_b", pa.float64())])


def columns_of(inputs: Inputs, options: LinkabilityOptions) -> list[DistanceColumn]:
    """The columns of A and B with their kinds from the data (numbers, dates and timestamps
    numeric; the rest categorical)."""
    return distance_columns(inputs.sources, options.names)


def run_gower(work: Work, inputs: Inputs, options: LinkabilityOptions, counts: str) -> None:
    """The statements of the Gower attack on any engine but a script, in ``work``, to the
    work table ``counts`` (src, distance_a, distance_b, records, linked, linked_unique; the
    distances NULL: they are not levels), which ``linkability.read_summary`` reads."""
    engine = inputs.engine
    sources = inputs.sources
    n_syn = sources[SYNTHESIS].n_rows
    if n_syn == 0:
        raise InputError("synthetic: has no records; the attack links through synthetic records")
    control = len(sources) > CONTROL
    columns = columns_of(inputs, options)
    if options.numeric == "values":  # numbers compared as categories
        columns = [DistanceColumn(c.name, c.pos, False) for c in columns]
    by_name = {c.name: c for c in columns}
    sides = [[by_name[n] for n in side] for side in options.sides]
    k = min(options.n_neighbors, n_syn)  # anonymeter caps it so too (kneighbors)
    joint = [(-1, (0, SYNTHESIS))] + ([(-2, (SYNTHESIS, CONTROL))] if control else [])
    prepared = prepare(work, sources, columns, joint)
    rows = [profiles(work, t, side, side) for t, side in zip(SIDES, sides, strict=True)]
    side_cols = [[{"pos": c.pos, "numeric": c.numeric} for c in side] for side in sides]
    sql = render(
        CELLS_TEMPLATE,
        engine.dialect,
        records=RECORDS,
        side_a=SIDES[0],
        side_b=SIDES[1],
        a=side_cols[0],
        b=side_cols[1],
    )
    work.create(CELLS, sql, {}, CELLS_TEMPLATE)
    parts = []
    for q, g in [(0, -1), *([(CONTROL, -2)] if control else [])]:
        label = "original" if q == 0 else "control"
        near = {}
        for s, (table, side) in enumerate(zip(SIDES, sides, strict=True)):
            name = NEAR.format(side="ab"[s], src=q)
            tied = Tied(table, rows[s], anonymeter_order(side), k)
            nearest(
                work,
                prepared,
                q,
                SYNTHESIS,
                name,
                max_pairs=options.max_pairs,
                labels=(label, "synthetic"),
                g_src=g,
                family="linkability",
                tied=tied,
            )
            near["ab"[s]] = name
        target = {"src": q, **near}
        ctx = {"cells": CELLS, "t": target, "k": k, "n": n_syn}
        sql = render(COUNTS_TEMPLATE, engine.dialect, part="cost", **ctx)
        cost = engine.query(sql, {}, COUNTS_TEMPLATE, small=True, schema=COST_SCHEMA)
        via_a, via_b = (float(cost.column(i)[0].as_py() or 0) for i in (0, 1))
        via = "a" if via_a <= via_b else "b"
        if min(via_a, via_b) > options.max_pairs:
            raise InputError(
                f"linkability: linking the {label}'s records through the synthesis needs "
                f"{min(via_a, via_b):.3g} rows (each record's closest synthetic records on "
                f"one side, with their profiles on the other), above "
                f"max_pairs={options.max_pairs:_}: the sides' records tie with too many "
                "others; give sides with more distinguishing columns or raise max_pairs"
            )
        part = f"{PART}{q}"
        sql = render(COUNTS_TEMPLATE, engine.dialect, part="counts", via=via, **ctx)
        work.create(part, sql, {}, COUNTS_TEMPLATE)
        parts.append(part)
    sql = render(COUNTS_TEMPLATE, engine.dialect, part="all", parts=parts)
    work.create(counts, sql, {}, COUNTS_TEMPLATE)
