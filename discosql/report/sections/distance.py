"""Distance to the closest record and membership inference by distance
(:func:`discosql.dcr`, :func:`discosql.membership`), over every column compared, numeric
ones included, with the board's thresholds on the DCR share and the attack's AUC.

The shares are ratios of counts of records (a share k/n of n records is a double from which
round(share · n) gives k back exactly while n < 2^52): an external report shows the counts
through its output check and each share as the ratio of the shown counts. Distances (the
quantiles of DCR) and the AUC are not counts: an external report rounds them to two decimals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ...anonymity.dcr import DcrResult
from ...anonymity.distance_api import CAVEAT
from ...anonymity.membership import MembershipResult
from ...core.outputcheck import Numbers
from .common import formatted

# the measures a threshold may name, each judged on every synthesis with the control: its
# largest value and what it is (lower is safer for both)
DISTANCE_THRESHOLDS = {
    "dcr_share": (1.0, "the DCR share (a fraction; riskutility's threshold is 0.55)"),
    "membership_auc": (1.0, "the AUC of membership inference by distance (0.5: chance)"),
}
DECIMALS = 2  # of a distance or an AUC in an external report
DIGITS = 4  # of a fraction (a share, a score) as a table shows it


@dataclass(frozen=True)
class Distances:
    """What the report ran: dcr() of every synthesis, and membership() with a control (None
    without one)."""

    nearest: DcrResult
    members: MembershipResult | None


def distance_section(
    ran: Distances, num: Numbers, policy: dict[str, float] | None = None
) -> dict[str, Any]:
    """The section as plain data: one row per synthesis for DCR and for the attack, and the
    board's thresholds (``policy``: DISTANCE_THRESHOLDS) judged on the values shown."""
    d = ran.nearest
    m = int(d.summary.column("synthesis").to_pylist()[-1]) if d.summary.num_rows else 0
    control = ran.members is not None
    rows, shown = [], {}
    for j in range(1, m + 1):
        row, shown[("dcr_share", j)] = _dcr_row(d, j, num, control)
        rows.append(row)
    attack = []
    if ran.members is not None:
        for j in range(1, m + 1):
            row, shown[("membership_auc", j)] = _attack_row(ran.members, j, num)
            attack.append(row)
    thresholds = [
        {
            "target": "every column compared",
            "measure": measure,
            "synthesis": j,
            "value": shown[(measure, j)],
            "threshold": limit,
            "result": _judged(shown[(measure, j)], limit),
            "digits": DIGITS,  # a fraction: page one shows it so
        }
        for measure, limit in (policy or {}).items()
        for j in range(1, m + 1)
    ]
    table = [
        {
            "measure": t["measure"],
            "synthesis": t["synthesis"],
            "value": formatted(t["value"], f".{DIGITS}f"),
            "threshold": f"{t['threshold']:.{DIGITS}f}",
            "result": t["result"],
        }
        for t in thresholds
    ]
    return {
        "columns": list(d.columns),
        "numeric": list(d.numeric),
        "control": control,
        "dcr": rows,
        "membership": attack,
        "thresholds": thresholds,
        "thresholds_table": table,
        "caveat": CAVEAT,
    }


def _judged(value: Any, limit: float) -> str:
    """pass or fail of a shown value (a value withheld or not defined: not judged)."""
    if not isinstance(value, int | float) or math.isnan(value):
        return "not judged"
    return "pass" if value <= limit else "fail"


def _count(value: float | None, n: int) -> int:
    """The count a share of ``n`` records stands for (exact: see the module's note)."""
    return 0 if value is None or math.isnan(value) else round(value * n)


def _shown_count(num: Numbers, k: int) -> Any:
    shown = num.count(k)
    return shown if isinstance(shown, str) else f"{shown:,}"


def _pct(num: Numbers, k: int, n: int) -> Any:
    """100 · k / n: exact internally, of the shown counts externally."""
    return num.ratio(100.0 * k / n if n else math.nan, num.count(k), num.count(n))


def _rounded(num: Numbers, value: float | None) -> Any:
    """A distance or an AUC: as measured, or (external) rounded to DECIMALS."""
    if value is None:
        return math.nan
    return round(value, DECIMALS) if num.external and not math.isnan(value) else value


def _spec(num: Numbers) -> str:
    return f".{DECIMALS}f" if num.external else ".4f"


def _dcr_row(d: DcrResult, j: int, num: Numbers, control: bool) -> tuple[dict[str, Any], Any]:
    """Synthesis ``j``'s DCR row, and its DCR share as shown (NaN without a control)."""
    n = int(d.value("records", j) or 0)
    identical = _count(d.value("identical_share", j), n)
    row: dict[str, Any] = {
        "synthesis": j,
        "records": _shown_count(num, n),
        "identical": _shown_count(num, identical),
        "identical (%)": formatted(_pct(num, identical, n), ".2f"),
        "DCR 5% quantile": formatted(_rounded(num, d.value("dcr_q05", j)), _spec(num)),
        "median DCR": formatted(_rounded(num, d.value("median_dcr", j)), _spec(num)),
    }
    if not control:
        return row, math.nan
    closer = _count(d.value("closer_to_training", j), n)
    # dcr_share = (closer + tied / 2) / n: the tied records from it, exactly
    tied = round(2 * (d.value("dcr_share", j) or 0.0) * n) - 2 * closer
    closer_pct = _pct(num, closer, n)
    tied_pct = _pct(num, tied, n)
    share = (
        closer_pct
        if isinstance(closer_pct, str)
        else tied_pct
        if isinstance(tied_pct, str)
        else (closer_pct + tied_pct / 2) / 100
    )
    protection = closer_pct if isinstance(closer_pct, str) else min(2 * (1 - closer_pct / 100), 1.0)
    if not num.external:  # the measured values, as dcr() gives them
        share, protection = d.value("dcr_share", j), d.value("DCROverfittingProtection", j)
    row["closer to training (%)"] = formatted(closer_pct, ".2f")
    row["DCR share"] = formatted(share, f".{DIGITS}f")
    row["DCROverfittingProtection"] = formatted(protection, f".{DIGITS}f")
    return row, share


def _attack_row(mi: MembershipResult, j: int, num: Numbers) -> tuple[dict[str, Any], Any]:
    """Synthesis ``j``'s row of the attack, and its AUC as shown."""
    n1, n0 = int(mi.value("members", j) or 0), int(mi.value("non_members", j) or 0)
    auc = _rounded(num, mi.value("auc", j))
    row: dict[str, Any] = {
        "synthesis": j,
        "members": _shown_count(num, n1),
        "non-members": _shown_count(num, n0),
        "AUC": formatted(auc, _spec(num)),
    }
    for bound in ("0.1", "0.01"):
        tpr = _count(mi.value(f"tpr_at_fpr_{bound}", j), n1)
        row[f"TPR at FPR {bound} (%)"] = formatted(_pct(num, tpr, n1), ".2f")
    for name, n, label in (
        ("members_copied", n1, "members copied (%)"),
        ("non_members_copied", n0, "non-members copied (%)"),
    ):
        row[label] = formatted(_pct(num, _count(mi.value(name, j), n), n), ".2f")
    return row, auc
