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
    "TCAP": "synthpop's code: DiSCO / iS (its 1.9-3 vignette's TCAP_alt)",
    "TCAP_little": "Little et al., synthpop 1.9-3's vignette TCAP: DiSCO / DiS",
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
    dis = num.measure("DiS", res.value("DiS", j), j)
    return {
        "DCAP": shown_dcap,
        "DCAP/iS": num.ratio(100.0 * dcap / i_s if i_s else math.nan, shown_dcap, shown_is),
        "TCAP": num.ratio(res.value("TCAP", j), disco, shown_is),
        "TCAP_little": num.ratio(res.value("TCAP_little", j), disco, dis),
        "baseCAPd": num.measure("baseCAPd", res.value("baseCAPd", j), j),
    }


# the certainties at which an external report shows the curve: a fixed grid, so that the chart
# does not reveal which probabilities occur among the original records' cells
GRID = tuple(i / 20 for i in range(1, 21))


def certainty_section(summary: DisclosureSummary, num: Numbers) -> dict[str, Any]:
    """DiSCO(tau), the share of original records whose probability of correct attribution
    from the synthesis reaches tau. ``curves``: per target and synthesis the points {tau,
    DiSCO} of the step function for tau > 0 (DiSCO(0) is every record; internal: at
    every distinct probability; external: on :data:`GRID`, each value through the output
    check); ``tau``: the certainties the board gave (tau=); ``asked``: a row per target and
    synthesis with DiSCO at each of them."""
    curves, asked = [], []
    taus: list[float] = []
    for target, res in summary.results.items():
        taus = list(res.spec.tau)
        curve = res.disco_curve.to_pylist()
        lines = []
        for j in range(1, res.m + 1):
            own = [(r["ps"], r["DiSCO"]) for r in curve if r["synthesis"] == j and r["ps"] > 0]
            points = [(tau, at(own, tau)) for tau in GRID] if num.external else own
            lines.append([{"tau": t, "DiSCO": num.measure("DiSCO", v, j)} for t, v in points])
        curves.append({"target": target, "curves": lines})
        for j in range(1, res.m + 1):
            row: dict[str, Any] = {"target": target, "synthesis": j}
            for r in res.disco_tau.to_pylist():
                if r["synthesis"] == j:
                    row[f"τ = {r['tau']:g}"] = num.measure("DiSCO", r["DiSCO"], j)
            if taus:
                asked.append(row)
    return {"curves": curves, "tau": taus, "asked": asked}


def at(curve: list[tuple[float, float]], tau: float) -> float:
    """DiSCO(tau) of a curve given at its steps (ps ascending, DiSCO(ps)): the value at the
    smallest ps >= tau, 0 above the largest."""
    return next((v for ps, v in curve if ps >= tau), 0.0)


def _excess(risk: Any, control: Any) -> Any:
    """Baillargeon & Charest's excess risk, in % of the room above the control's risk."""
    for v in (risk, control):
        if isinstance(v, str):  # withheld by the output check
            return v
    return 100.0 * (risk - control) / (100.0 - control) if control != 100.0 else math.nan
