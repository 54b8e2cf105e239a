"""Section 3, the summary: the API's summary table, each target's headline measures (mean and worst
synthesis) and the thresholds judged per synthesis."""

from __future__ import annotations

from typing import Any

from ...core.outputcheck import Numbers
from ...core.results import ATTRIB_MEASURES, json_rows
from ...measure.summary import DisclosureSummary
from .common import all_withheld, risk_order, shown_values, worst_synthesis

HEADLINE = ("UiO", "repU", "Dorig", "DiSCO")  # synthpop's authors' pair, with their baselines


def summary_section(
    summary: DisclosureSummary, policy: dict[str, float], num: Numbers
) -> dict[str, Any]:
    """The API's summary table, each target's headline measures as the mean and the worst
    synthesis (highest risk first), and, with thresholds, pass/fail per synthesis (judged on
    the measured value; an external report shows the checked one)."""
    rows = json_rows(summary.table)
    if num.external:  # synthpop's check1 names the level; the means are of the shown values
        orig = ATTRIB_MEASURES[summary.attrib_meas]
        means = {
            "attrib_orig": orig,
            "attrib_syn": summary.attrib_meas,
            "ident_orig": "UiO",
            "ident_syn": summary.ident_meas,
        }
        for r in rows:
            res = summary.results[r["target"]]
            r["check1"] = "check_1way fired" if r["check1"] else ""
            for column, measure in means.items():
                r[column] = num.mean(shown_values(res, measure, num))
    per_target = []
    checks = []
    for target, res in summary.results.items():
        row: dict[str, Any] = {"target": target}
        for measure in HEADLINE:
            values = shown_values(res, measure, num)
            worst = worst_synthesis(values)
            row[f"{measure} mean"] = num.mean(values)
            row[f"{measure} worst"] = values[worst - 1] if worst else all_withheld(values)
            row[f"{measure} worst synthesis"] = worst
        per_target.append(row)
        for measure, limit in policy.items():
            shown = shown_values(res, measure, num)
            for j in range(1, res.m + 1):
                value = res.value(measure, j)
                checks.append(
                    {
                        "target": target,
                        "measure": measure,
                        "synthesis": j,
                        "value": shown[j - 1],
                        "threshold": limit,
                        "result": "pass" if value <= limit else "fail",
                    }
                )
    per_target.sort(key=lambda r: risk_order(r["DiSCO worst"]))
    checks.sort(key=lambda r: (r["result"] == "pass", r["target"], r["measure"]))
    return {
        "table": sorted(rows, key=lambda r: risk_order(r["attrib_syn"])),
        "m": summary.m,
        "attrib_meas": summary.attrib_meas,
        "per_target": per_target,
        "thresholds": checks,
        "policy_given": bool(policy),
    }
