"""Section 7, protection (sdc): what was recoded and removed, the measures before and after, and
each protected synthesis against the thresholds."""

from __future__ import annotations

from typing import Any

from ...core.outputcheck import Numbers
from ...core.results import json_rows
from ...protect.sdc import SdcResult, removal_note
from .common import mean_shown, risk_order, shown_values

SWISS_CHEESE = (
    "Removing records is itself visible: an intruder who knows that exact matches were removed "
    "learns that a person absent from every synthesis near a known key is likely unique there "
    "(an attack by omission, the 'Swiss cheese' argument). Report how many records were "
    "removed, and prefer recoding keys to removing many records."
)


def sdc_section(res: SdcResult, num: Numbers, policy: dict[str, float]) -> dict[str, Any]:
    """What sdc removed and recoded, the measures before and after (the means over the
    syntheses of the summary's measures; an external report's are of the values it shows),
    and each protected synthesis judged against each threshold (``after_protection``);
    ``synthpop``: the release the SdcResult records, and what it means for the numbers."""
    removed = json_rows(res.removed)
    shown_rows = [num.count(r["rows"]) for r in removed]
    for r, shown in zip(removed, shown_rows, strict=True):
        r["pct"] = (
            "withheld" if isinstance(shown, str) else num.of_synthesis(r["pct"], r["synthesis"])
        )
        r["rows"] = shown
    recoded = json_rows(res.recoded)
    for r in recoded:
        for c in ("bottom_coded", "top_coded"):
            r[c] = num.count(r[c])
    compared = []
    if res.before is not None:
        after = res.after.results if res.after is not None else {}
        ident, attrib = res.before.ident_meas, res.before.attrib_meas
        for target, b in res.before.results.items():
            a = after.get(target)
            compared.append(
                {
                    "target": target,
                    "DiSCO before": mean_shown(b, attrib, num),
                    "DiSCO after": None if a is None else mean_shown(a, attrib, num),
                    "repU before": mean_shown(b, ident, num),
                    "repU after": None if a is None else mean_shown(a, ident, num),
                }
            )
    compared.sort(key=lambda r: risk_order(r["DiSCO before"]))
    total, apart = num.total(shown_rows, sum(r["rows"] for r in json_rows(res.removed)))
    return {
        "removed": removed,
        "recoded": recoded,
        "compared": compared,
        "removed_total": total,
        "total_rounded_apart": apart,
        "after_protection": _after_protection(res, num, policy),
        "caveat": SWISS_CHEESE,
        "synthpop": res.synthpop,
        "denominators": f"{removal_note(res.synthpop)}. repU (before and after) is % of the "
        "original's records, as disclosure() computes it in both releases.",
    }


def _after_protection(
    res: SdcResult, num: Numbers, policy: dict[str, float]
) -> list[dict[str, Any]]:
    """Each protected synthesis, target and threshold: the measure before and after sdc (as
    the report shows them) and whether the protected synthesis passes (judged on the measured
    value; a measure not defined does not pass), failures first, highest value first."""
    if res.before is None or res.after is None:
        return []
    rows = []
    for target, before in res.before.results.items():
        after = res.after.results.get(target)
        if after is None:
            continue
        for measure, limit in policy.items():
            was, now = shown_values(before, measure, num), shown_values(after, measure, num)
            for j in range(1, after.m + 1):
                value = after.value(measure, j)
                rows.append(
                    {
                        "synthesis": j,
                        "target": target,
                        "measure": measure,
                        "threshold": limit,
                        "before": was[j - 1],
                        "after": now[j - 1],
                        "passes": bool(value <= limit),
                    }
                )
    rows.sort(key=lambda r: (r["passes"], risk_order(r["after"]), r["target"], r["synthesis"]))
    return rows
