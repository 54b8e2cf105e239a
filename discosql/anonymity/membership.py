"""Membership inference by distance, exact over every candidate record.

An attacker holds candidate records and the synthesis, and calls a candidate a member of the
generator's training data (the original) when a synthetic record lies close to it: the score
of a candidate is minus its distance to the closest synthetic record (SDMetrics' distance,
normalised by the synthesis's ranges: ``distance.py``), the DCR attack of Synth-MIA and NeMo.
The candidates are every original record (members) and every control record (non-members,
a holdout the generator never saw). The summary: the exact ROC AUC over every candidate
(ties counted half), the true-positive rates at false-positive rates 0.001, 0.01 and 0.1, and
the shares of members and non-members copied exactly. Classifier and density attacks
(DOMIAS, LOGAN, GenLRA) are not SQL and not here; a low score is no proof of privacy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ..core.inputs import Inputs, open_inputs
from ..errors import InputError
from ..sql.templates import ident, render
from .common import MAX_PAIRS, register_control, schema_check
from .distance import distance_columns, nearest, prepare
from .distance_api import SUMMARY_SCHEMA, DistanceOptions, DistanceResult

RECORDS_TEMPLATE = "distance/membership_records.sql.j2"
SUMMARY_TEMPLATE = "distance/membership_summary.sql.j2"
OUT = "__disco_dd_members"
# the attacks: the DCR attack, and with auxiliary data the DCR-difference attack
ATTACKS = ({"col": "score", "prefix": ""}, {"col": "score_diff", "prefix": "dcr_diff_"})
FPRS = (("tpr_at_fpr_0.001", "0.001"), ("tpr_at_fpr_0.01", "0.01"), ("tpr_at_fpr_0.1", "0.1"))

RECORDS_SCHEMA = pa.schema(
    [
        ("synthesis", pa.int32()),
        ("member", pa.bool_()),
        ("row", pa.int64()),
        ("dcr", pa.float64()),
        ("score", pa.float64()),
        ("score_diff", pa.float64()),
    ]
)


@dataclass(frozen=True)
class MembershipOptions(DistanceOptions):
    """:func:`membership`'s options, checked when built (before any data is read)."""

    FAMILY = "membership"


@dataclass(frozen=True)
class MembershipResult(DistanceResult):
    """Membership inference by distance against m syntheses.

    ``summary``: synthesis, measure, value: members, non_members, auc, tpr_at_fpr_0.001,
    tpr_at_fpr_0.01, tpr_at_fpr_0.1, members_copied, non_members_copied (fractions 0-1); with
    auxiliary data the DCR-difference attack's dcr_diff_auc and dcr_diff_tpr_at_fpr_...

    ``records``: one row per candidate and synthesis: synthesis, member (True: an original
    record, False: a control record), row (0-based, in its data set), dcr (to the closest
    synthetic record), score (-dcr) and score_diff (with auxiliary data: -(dcr - the distance
    to the closest auxiliary record); NaN without them).
    """

    WHAT = "membership"
    TITLE = "Membership inference by distance (score = -DCR to the synthesis)"


def membership(
    original: Any,
    synthetic: Any,
    control: Any,
    columns: Any = None,
    *,
    auxiliary: Any = None,
    categorical: Any = None,
    max_pairs: int = MAX_PAIRS,
    engine: Any = None,
    threads: int | None = None,
) -> MembershipResult:
    """Membership inference by distance: each original record (a member) and each control
    record (a non-member) scored by minus its distance to the closest synthetic record
    (SDMetrics' distance, ranges of the synthesis), and the attack's success over all of them.

    AUC = P(score of a member > score of a non-member) + P(equal) / 2, exact (2U / 2 n1 n0 in
    integers). TPR at FPR a: the largest share of members called members by a threshold on
    the distinct scores that calls at most a share a of the non-members members (tied
    candidates together). ``auxiliary``: a data set of the same population that the
    generator did not see either; adds the DCR-difference attack of Synth-MIA, score
    -(d(x, synthetic) - d(x, auxiliary)), each distance normalised by its own data set's
    ranges. ``columns``, ``categorical``, ``max_pairs``: as :func:`dcr`.
    """
    options = MembershipOptions(columns=columns, categorical=categorical, max_pairs=max_pairs)
    if control is None:
        raise InputError("control: membership inference needs a control (non-members)")
    with open_inputs(
        engine, threads, original, synthetic, check=schema_check(options.columns)
    ) as inputs:
        return membership_on(inputs, options, control, auxiliary)


def membership_on(
    inputs: Inputs, options: MembershipOptions, control: Any, auxiliary: Any = None
) -> MembershipResult:
    """:func:`membership` on registered inputs."""
    engine = inputs.engine
    names = options.names(inputs.sources[0])
    sources = [*inputs.sources, register_control(inputs, control, names)]
    ctrl = len(sources) - 1
    if auxiliary is not None:
        sources.append(register_control(inputs, auxiliary, names))
    columns = distance_columns(sources, names, options.categorical or [])
    m = inputs.m
    with engine.work() as work:
        prepared = prepare(work, sources, columns)
        syntheses = []
        for j in range(1, m + 1):
            members, others = f"__disco_dd_mem_{j}", f"__disco_dd_non_{j}"
            labels = ("original", f"synthetic ({j})")
            nearest(work, prepared, 0, j, members, max_pairs=options.max_pairs, labels=labels)
            labels = ("control", f"synthetic ({j})")
            nearest(work, prepared, ctrl, j, others, max_pairs=options.max_pairs, labels=labels)
            syntheses.append({"j": j, "members": members, "others": others})
        ref = None
        if auxiliary is not None:
            ref = {"members": "__disco_dd_mem_aux", "others": "__disco_dd_non_aux"}
            for src, table, label in (
                (0, ref["members"], "original"),
                (ctrl, ref["others"], "control"),
            ):
                labels = (label, "auxiliary")
                nearest(
                    work, prepared, src, ctrl + 1, table, max_pairs=options.max_pairs, labels=labels
                )
        sql = render(RECORDS_TEMPLATE, engine.dialect, syntheses=syntheses, auxiliary=ref)
        work.create(OUT, sql, {}, RECORDS_TEMPLATE)
        records = engine.query(
            f"SELECT * FROM {ident(OUT)} ORDER BY synthesis, member DESC, {ident('row')}",
            {},
            RECORDS_TEMPLATE,
            schema=RECORDS_SCHEMA,
        )
        sql = render(
            SUMMARY_TEMPLATE,
            engine.dialect,
            records=OUT,
            syntheses=list(range(1, m + 1)),
            fprs=[{"name": n, "bound": b} for n, b in FPRS],
            attacks=ATTACKS[: 1 + (auxiliary is not None)],
        )
        summary = engine.query(sql, {}, SUMMARY_TEMPLATE, small=True, schema=SUMMARY_SCHEMA)
    numeric = tuple(c.name for c in columns if c.numeric)
    return MembershipResult(tuple(names), numeric, records, summary, options)
