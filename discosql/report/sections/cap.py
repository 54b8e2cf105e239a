"""Section 5, the CAP family per target and synthesis, with a control baseline and the excess
risk."""

from __future__ import annotations

import math
from typing import Any

from ...core.outputcheck import Numbers
from ...core.results import DisclosureResult
from ...measure.summary import DisclosureSummary


def cap_section(
    summary: DisclosureSummary, control: DisclosureSummary | None, num: Numbers
) -> list[dict[str, Any]]:
    """The CAP family per target and synthesis, from the summary's own cells (the same
    grouping, exclusions and NA switches as every other section), all as % of original records
    at risk (higher = riskier): DCAP = 100 (1 - SDMetrics' CategoricalZeroCAP), DCAP/iS =
    100 (1 - CategoricalCAP), synthpop's TCAP = DiSCO/iS, and baseCAPd, the guess from the
    target's distribution alone. With a control set (measured as a synthesis with the same
    options), each measure's control value and excess risk (risk - control) / (1 - control)."""
    rows = []
    for target, res in summary.results.items():
        base = None if control is None else control.results[target]
        for j in range(1, res.m + 1):
            row: dict[str, Any] = {"target": target, "synthesis": j}
            for name, value in _cap_risks(res, j, num).items():
                row[name] = value
                if base is not None:
                    risk = _cap_risks(base, 1, num)[name]
                    row[f"{name} (control)"] = risk
                    row[f"{name} excess risk"] = _excess(value, risk)
            rows.append(row)
    return rows


CAP_RISKS = {
    "DCAP": "100 (1 - CategoricalZeroCAP)",
    "DCAP/iS": "100 (1 - CategoricalCAP)",
    "TCAP": "synthpop: DiSCO / iS",
    "baseCAPd": "target distribution alone",
}


def _cap_risks(res: DisclosureResult, j: int, num: Numbers) -> dict[str, Any]:
    """The CAP risks of synthesis ``j``; the ratios of an external report are of the
    numbers it shows."""
    i_s = res.value("iS", j)
    dcap = res.value("DCAP", j)
    shown_is = num.measure("iS", i_s, j)
    shown_dcap = num.measure("DCAP", dcap, j)
    disco = num.measure("DiSCO", res.value("DiSCO", j), j)
    return {
        "DCAP": shown_dcap,
        "DCAP/iS": num.ratio(100.0 * dcap / i_s if i_s else math.nan, shown_dcap, shown_is),
        "TCAP": num.ratio(res.value("TCAP", j), disco, shown_is),
        "baseCAPd": num.measure("baseCAPd", res.value("baseCAPd", j), j),
    }


def _excess(risk: Any, control: Any) -> Any:
    """Baillargeon & Charest's excess risk, in % of the room above the control's risk."""
    for v in (risk, control):
        if isinstance(v, str):  # withheld by the output check
            return v
    return 100.0 * (risk - control) / (100.0 - control) if control != 100.0 else math.nan
