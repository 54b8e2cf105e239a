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

import math
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ..core.inputs import Inputs, open_inputs
from ..core.options import Options, option
from ..core.results import AsData, json_rows
from ..core.spec import column_names
from ..engines.base import Registered
from ..errors import InputError
from ..sql.templates import ident, render
from .common import register_control, reserved_names, schema_check
from .dcr import CAVEAT
from .distance import MAX_PAIRS, distance_columns, nearest, prepare

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
SUMMARY_SCHEMA = pa.schema(
    [("synthesis", pa.int32()), ("measure", pa.string()), ("value", pa.float64())]
)


@dataclass(frozen=True)
class MembershipOptions(Options):
    """:func:`membership`'s options, checked when built (before any data is read)."""

    FAMILY = "membership"

    columns: list[str] | None = option(
        None,
        "the columns compared, comma-separated (default: every column of the original)",
        kind="list",
        metavar="A,B,...",
    )
    categorical: list[str] | None = option(
        None,
        "numeric columns compared as categories (codes), comma-separated",
        kind="list",
        metavar="A,B,...",
    )
    max_pairs: int = option(
        MAX_PAIRS,
        "refuse a search round that needs more pairs of records than this",
        kind="int",
        metavar="N",
    )

    def __post_init__(self) -> None:
        problems: list[str] = []
        names = None if self.columns is None else column_names("columns", self.columns, problems)
        reserved_names("columns", names, problems)
        cats = (
            None
            if self.categorical is None
            else column_names("categorical", self.categorical, problems)
        )
        if names is not None and cats:
            missing = [c for c in cats if c not in names]
            if missing:
                problems.append(f"categorical: {missing!r} are not among the columns {names!r}")
        mp = self.max_pairs
        if isinstance(mp, bool) or not isinstance(mp, int) or mp < 1:
            problems.append(f"max_pairs: a positive integer, got {mp!r}")
        if problems:
            raise InputError(problems)
        self.set("columns", names)
        self.set("categorical", cats)

    def names(self, original: Registered) -> list[str]:
        """The columns compared: those named, else every column of the original."""
        return list(self.columns or original.columns)


@dataclass(frozen=True)
class MembershipResult(AsData):
    """Membership inference by distance against m syntheses.

    ``summary``: synthesis, measure, value: members, non_members, auc, tpr_at_fpr_0.001,
    tpr_at_fpr_0.01, tpr_at_fpr_0.1, members_copied, non_members_copied (fractions 0-1).

    ``records``: one row per candidate and synthesis: synthesis, member (True: an original
    record, False: a control record), row (0-based, in its data set), dcr (to the closest
    synthetic record), score (-dcr) and score_diff (with auxiliary data: -(dcr - the distance to
    the closest auxiliary record), the DCR-difference attack; NaN without them). With
    auxiliary data the summary has that attack's auc and TPRs too, named dcr_diff_auc, ...
    """

    columns: tuple[str, ...]
    numeric: tuple[str, ...]
    records: pa.Table
    summary: pa.Table
    options: MembershipOptions

    def value(self, measure: str, synthesis: int = 1) -> float | None:
        """One summary value."""
        for row in self.summary.to_pylist():
            if row["synthesis"] == synthesis and row["measure"] == measure:
                return row["value"]  # type: ignore[no-any-return]
        raise InputError(
            f"membership: no measure {measure!r} for synthesis {synthesis}; measures are "
            f"{sorted({r['measure'] for r in self.summary.to_pylist()})}"
        )

    def to_dict(self) -> dict[str, Any]:
        """columns, the numeric ones, the options, the ``summary`` rows (NaN is None), the
        caveat."""
        return {
            "columns": list(self.columns),
            "numeric": list(self.numeric),
            "options": self.options.as_dict(),
            "summary": json_rows(self.summary),
            "caveat": CAVEAT,
        }

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        title = f"membership(): columns {', '.join(self.columns)}"
        return title, [("summary", self.summary)], [CAVEAT]

    def __str__(self) -> str:
        lines = [
            f"Membership inference by distance over {len(self.columns)} columns "
            f"({', '.join(self.columns)}): score = -DCR to the synthesis"
        ]
        for row in self.summary.to_pylist():
            value = row["value"]
            shown = "NaN" if value is None or math.isnan(value) else f"{value:.6g}"
            lines.append(f"  synthesis {row['synthesis']}  {row['measure']:<20} {shown}")
        lines.append(CAVEAT)
        return "\n".join(lines)


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
