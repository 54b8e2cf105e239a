"""Section 8, the original data's own risk: sdcMicro's measure_risk and suda2 on the report's keys,
and the board's thresholds on it."""

from __future__ import annotations

import math
from typing import Any

from ...core.outputcheck import Numbers
from ...core.results import json_rows
from ...risk.individual import RiskResult
from ...risk.suda import SudaResult
from .common import formatted


def risk_section(
    res: RiskResult, special: SudaResult, num: Numbers, policy: dict[str, float] | None = None
) -> dict[str, Any]:
    """The original data's own risk on the report's keys: sdcMicro's measure_risk (the
    k-anonymity counts, expected re-identifications and threshold; in internal mode also the
    riskiest key combinations with their counts) and suda2 (records by DIS-SUDA score and by
    the size of their smallest MSUs, the keys' contributions). An external report
    (``num``, external) shows the counts through its output check and no key combination.
    ``policy``: the board's thresholds on the original's own risk (RISK_THRESHOLDS), judged on
    the measured value."""
    v = res.value

    def count(name: str) -> str:
        n = num.count(int(v(name)))
        return n if isinstance(n, str) else f"{n:,}"

    records = int(v("records"))
    # an external report: expected re-identifications as a count of records, and the global
    # risk as the share of the records that count is
    shown_er = num.count(round(v("global_risk_ER"))) if num.external else v("global_risk_ER")
    shown_pct = num.share(v("global_risk_pct"), records)
    er_format = ",.0f" if num.external else ",.2f"

    threshold = v("global_threshold")
    if math.isnan(threshold):
        shown = "none needed"
    else:
        shown = "0 (none reaches it)" if threshold == 0 else f"{threshold:.4g}"
    rows = [
        {"measure": "records unique on the keys (fk = 1)", "value": count("n1")},
        {"measure": "records violating 3-anonymity (fk < 3)", "value": count("k3_violations")},
        {"measure": "records violating 5-anonymity (fk < 5)", "value": count("k5_violations")},
        {"measure": "expected re-identifications", "value": formatted(shown_er, er_format)},
        {"measure": "global risk (%)", "value": formatted(shown_pct, ".2f")},
        {"measure": f"risk threshold for a global risk of {res.max_global_risk:g}", "value": shown},
    ]
    riskiest = [] if num.external else json_rows(res.riskiest)

    def count_cells(n: int) -> str:
        shown = num.count(n)
        return shown if isinstance(shown, str) else f"{shown:,}"

    dis = [
        {"DIS-SUDA score": r["interval"], "records": count_cells(r["records"])}
        for r in special.dis_table.to_pylist()
    ]
    msus = [
        {"keys in the MSU": r["size"], "records": count_cells(r["records"])}
        for r in special.msu_counts.to_pylist()
    ]
    contributions = [
        {"key": r["variable"], "contribution (%)": f"{r['contribution']:.1f}"}
        for r in special.attributes.to_pylist()
    ]
    suda = {"max_size": special.max_size, "dis": dis, "msus": msus, "contributions": contributions}
    shown_as = {"global_risk_pct": shown_pct, "global_risk": _fraction(shown_pct)}
    thresholds = [
        {
            "target": "original data",
            "measure": measure,
            "synthesis": "\u2013",
            "value": shown_as[measure],
            "threshold": limit,
            "result": "pass" if v(measure) <= limit else "fail",
        }
        for measure, limit in (policy or {}).items()
    ]
    return {
        "keys": list(res.keys),
        "weight": res.weight,
        "records": count("records"),
        "numbers": rows,
        "riskiest": riskiest,
        "suda": suda,
        "thresholds": thresholds,
    }


def _fraction(pct: Any) -> Any:
    """A shown percentage as a probability (the output check's text as it is)."""
    return pct / 100 if isinstance(pct, int | float) else pct
