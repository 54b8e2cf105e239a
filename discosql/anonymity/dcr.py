"""Distance to the closest record (DCR), exact over every record, numeric columns included.

For every synthetic record: its distance to the closest original record under SDMetrics'
distance (``distance.py``: the mean over the columns of min(|Δ| / range, 1) for numeric and
datetime columns, 0/1 for categorical and boolean ones), to the closest record of a control
(a holdout the generator never saw, normalised by its own ranges, as SDMetrics does), and its
nearest-neighbour distance ratio; a summary per synthesis with SDMetrics'
``DCROverfittingProtection`` and ``DCRBaselineProtection``, the DCR share with ties counted
half (mostlyai-qa, riskutility) and the quantiles of DCR. No sampling: every synthetic record
against every record searched, found by the exact search of ``distance.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ..core.inputs import Inputs, open_inputs
from ..core.options import option
from ..engines.base import Work
from ..sql.templates import ident, render
from .common import MAX_PAIRS, register_control, schema_check
from .distance import (
    GRID_COLUMNS,
    RANGES,
    RECORDS,
    Prepared,
    distance_columns,
    nearest,
    prepare,
    search_columns,
)
from .distance_api import SUMMARY_SCHEMA, DistanceOptions, DistanceResult

RECORDS_TEMPLATE = "distance/dcr_records.sql.j2"
SUMMARY_TEMPLATE = "distance/dcr_summary.sql.j2"
OUT = "__disco_dd_out"
HITS = "__disco_dd_hits"
HIT_TEMPLATE = "distance/hit_rate.sql.j2"
SYNTHEVAL_TEMPLATE = "distance/syntheval.sql.j2"
RECORDS_SCHEMA = pa.schema(
    [
        ("synthesis", pa.int32()),
        ("row", pa.int64()),
        ("dcr", pa.float64()),
        ("dcr_control", pa.float64()),
        ("nndr", pa.float64()),
    ]
)


@dataclass(frozen=True)
class DcrOptions(DistanceOptions):
    """:func:`dcr`'s options, checked when built (before any data is read)."""

    FAMILY = "dcr"

    within: float | None = option(
        None,
        "also the share of synthetic records within this distance of an original record",
        kind="float",
        metavar="D",
    )
    hit_share: float = option(
        1 / 30,
        "SynthEval's hitting rate: a numeric value within this share of the original's range "
        "of the original record's is a hit (default 1/30)",
        kind="float",
        metavar="S",
    )
    syntheval: bool = option(
        False,
        "also SynthEval's mDCR and NNDR under its Gower distance (the original and each "
        "synthesis scaled together; three more searches a synthesis)",
        kind="bool",
    )

    def more_problems(self) -> list[str]:
        problems = []
        within, hs = self.within, self.hit_share
        if within is not None and (
            isinstance(within, bool) or not isinstance(within, int | float) or not 0 <= within <= 1
        ):
            problems.append(f"within: a distance from 0 to 1, got {within!r}")
        if isinstance(hs, bool) or not isinstance(hs, int | float) or not 0 <= hs <= 1:
            problems.append(f"hit_share: a share of the range from 0 to 1, got {hs!r}")
        if not isinstance(self.syntheval, bool):
            problems.append(f"syntheval: True or False, got {self.syntheval!r}")
        if not problems:
            self.set("hit_share", float(hs))
            if within is not None:
                self.set("within", float(within))
        return problems


@dataclass(frozen=True)
class DcrResult(DistanceResult):
    """Distances to the closest record of m syntheses.

    ``records``: one row per synthetic record, in input order: synthesis, row (0-based), dcr
    (to the closest original record), dcr_control (to the closest control record; NaN
    without a control), nndr (dcr over the distance to the second closest original record;
    NaN where both are 0).

    ``summary``: synthesis, measure, value: records, median_dcr, dcr_q05, dcr_q25, dcr_q75,
    dcr_q95, identical_share, within_share (with ``within=``), nndr_mean, hit_rate; with a
    control closer_to_training, closer_to_holdout, DCROverfittingProtection, dcr_share; with
    a baseline median_dcr_baseline and DCRBaselineProtection; with ``syntheval=True``
    SynthEval's mDCR, syntheval_nndr and syntheval_nndr_err. Shares are fractions (0-1), as
    SDMetrics reports them.
    """

    WHAT = "dcr"
    TITLE = "Distance to the closest record"


def dcr(
    original: Any,
    synthetic: Any,
    columns: Any = None,
    control: Any = None,
    baseline: Any = None,
    *,
    categorical: Any = None,
    within: Any = None,
    hit_share: float = 1 / 30,
    syntheval: bool = False,
    max_pairs: int = MAX_PAIRS,
    engine: Any = None,
    threads: int | None = None,
) -> DcrResult:
    """The distance from each synthetic record to its closest original record, exact.

    DCR(s) = min over original records o of (1/D) sum_j term_j(s, o); term_j =
    min(|s_j - o_j| / range_j, 1) for a numeric or datetime column (range_j = max - min of
    the original; a range of 0 gives 0 for equal values, else 1), [s_j != o_j] for a
    categorical or boolean one; missing against a value 1, missing against missing 0
    (SDMetrics 0.32, ``calculate_dcr``). ``control``: a holdout the generator never saw; each
    record's DCR to it too (normalised by the control's ranges) and SDMetrics'
    DCROverfittingProtection = min(2 (1 - share(dcr < dcr_control)), 1). ``baseline``: a data
    set to compare with (SDMetrics' random table: see docs/distance.md); its median DCR to the
    original gives DCRBaselineProtection = min(median_dcr / median_baseline, 1).
    ``columns``: those compared (default every column of the original); ``categorical``:
    numeric columns compared as categories; ``within``: also the share of records within
    that distance. ``syntheval``: also SynthEval 1.7's mDCR = median(DCR) / median(distance
    of each original record to its closest other one) and NNDR = mean over the original
    records of d1 / (d2 + 1e-16) to the synthesis, under its Gower distance (numeric
    differences over the range of the original and the synthesis together, not capped).
    ``max_pairs``: the search's bound on one round's pairs of records.
    """
    options = DcrOptions(
        columns=columns,
        categorical=categorical,
        within=within,
        hit_share=hit_share,
        syntheval=syntheval,
        max_pairs=max_pairs,
    )
    with open_inputs(
        engine, threads, original, synthetic, check=schema_check(options.columns)
    ) as inputs:
        return dcr_on(inputs, options, control, baseline)


def dcr_on(inputs: Inputs, options: DcrOptions, control: Any, baseline: Any) -> DcrResult:
    """:func:`dcr` on registered inputs."""
    engine = inputs.engine
    names = options.names(inputs.sources[0])
    sources = list(inputs.sources)
    ctrl_src = base_src = None
    if control is not None:
        sources.append(register_control(inputs, control, names))
        ctrl_src = len(sources) - 1
    if baseline is not None:
        reg = register_control(inputs, baseline, names)
        sources.append(reg)
        base_src = len(sources) - 1
    cats = options.categorical or []
    columns = distance_columns(sources, names, cats)
    m = inputs.m
    # SynthEval's scaling: the original and synthesis j together (ranges row -j)
    joint = [(-j, (0, j)) for j in range(1, m + 1)] if options.syntheval else []
    with engine.work() as work:
        prepared = prepare(work, sources, columns, joint)

        def search(
            q: int, r: int, table: str, labels: tuple[str, str], g: int | None = None
        ) -> str:
            nearest(
                work, prepared, q, r, table, max_pairs=options.max_pairs, labels=labels, g_src=g
            )
            return table

        syntheses, gower = [], []
        for j in range(1, m + 1):
            near = search(j, 0, f"__disco_dd_near_{j}", ("synthetic", "original"))
            ctrl = None
            if ctrl_src is not None:
                ctrl = search(j, ctrl_src, f"__disco_dd_ctrl_{j}", ("synthetic", "control"))
            syntheses.append({"j": j, "near": near, "control": ctrl})
            if options.syntheval:  # SynthEval's three searches, each with ranges row -j
                table = "__disco_dd_se_{}_" + str(j)
                gower.append(
                    {
                        "j": j,
                        "sr": search(j, 0, table.format("sr"), ("synthetic", "original"), -j),
                        "rr": search(0, 0, table.format("rr"), ("original", "original"), -j),
                        "rs": search(0, j, table.format("rs"), ("original", "synthetic"), -j),
                    }
                )
        base = None
        if base_src is not None:
            base = search(base_src, 0, "__disco_dd_base", ("baseline", "original"))
        sql = render(RECORDS_TEMPLATE, engine.dialect, syntheses=syntheses)
        work.create(OUT, sql, {}, RECORDS_TEMPLATE)
        hit_rate(work, prepared, m, options.hit_share)
        records = engine.query(
            f"SELECT * FROM {ident(OUT)} ORDER BY synthesis, {ident('row')}",
            {},
            RECORDS_TEMPLATE,
            schema=RECORDS_SCHEMA,
        )
        sql = render(
            SUMMARY_TEMPLATE,
            engine.dialect,
            records=OUT,
            hits=HITS,
            syntheses=list(range(1, m + 1)),
            within=options.within,
            control=ctrl_src is not None,
            baseline=base,
        )
        params = {} if options.within is None else {"within": options.within}
        summary = engine.query(sql, params, SUMMARY_TEMPLATE, small=True, schema=SUMMARY_SCHEMA)
        if gower:
            sql = render(SYNTHEVAL_TEMPLATE, engine.dialect, syntheses=gower)
            more = engine.query(sql, {}, SYNTHEVAL_TEMPLATE, small=True, schema=SUMMARY_SCHEMA)
            summary = _by_synthesis(summary, more)
    numeric = tuple(c.name for c in columns if c.numeric)
    return DcrResult(tuple(names), numeric, records, summary, options)


def hit_rate(work: Work, prepared: Prepared, m: int, share: float) -> None:
    """The work table HITS (synthesis, hits, n): SynthEval's hitting rate of each synthesis
    (``distance/hit_rate.sql.j2``), the original's ranges giving the thresholds."""
    engine = work.engine
    ranges = prepared.ranges.get(0, {})
    cols = search_columns(prepared, ranges)
    boxed = [c for c in cols if c["numeric"] and not c["search"]]
    sql = render(
        HIT_TEMPLATE,
        engine.dialect,
        records=RECORDS,
        ranges=RANGES,
        syntheses=list(range(1, m + 1)),
        columns=cols,
        boxed=boxed,
        grid=boxed[:GRID_COLUMNS],
    )
    radius = max(share, 1e-12) * (1 + 1e-9)
    params = {"hit": share, "radius": radius, "top": 1 / radius + 3}
    work.create(HITS, sql, params, HIT_TEMPLATE)


def _by_synthesis(summary: pa.Table, more: pa.Table) -> pa.Table:
    """The summary with more measures after each synthesis's own (both in measure order)."""
    rows = summary.to_pylist() + more.to_pylist()
    order = {id(r): i for i, r in enumerate(rows)}
    rows.sort(key=lambda r: (r["synthesis"], order[id(r)]))
    return pa.Table.from_pylist(rows, schema=SUMMARY_SCHEMA)
