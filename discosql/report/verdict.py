"""The report's first page: what was found, in plain sentences, each number with its unit,
baseline and direction; the verdict follows mechanically from the board's thresholds (or says
that there are none); the board signs, not discosql.

Built from the other sections' content (plain data), so that page one shows the same numbers
as the rest of the report. Several syntheses: the worst one leads, the mean follows.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

NO_THRESHOLDS = "No thresholds supplied: evidence only, no verdict"
NONE_EXCEEDED = "No measure exceeds the thresholds supplied (judged on every synthesis)"


def verdict_section(content: dict[str, Any]) -> dict[str, Any]:
    """{"verdict": one line, "flags": the failed (target, measure, synthesis) checks, worst
    first, "findings": sentences, "notes": what the numbers do not cover}."""
    summary = content["summary"]
    findings = [_identity(summary), _attribute(summary), _checks(content["targets"])]
    if content.get("sdc"):
        findings.append(_protection(content["sdc"]))
    after = (content.get("sdc") or {}).get("after_protection") or []
    if after:
        findings.append(_after_protection(after))
    if content.get("sweep") and content["sweep"]["worst"]:
        findings.append(_sweep(content["sweep"]))
    if content.get("risk"):
        findings.append(_original_risk(content["risk"]))
    distance = content.get("distance")
    if distance:
        findings.append(_distance(distance))
    judged = [
        *summary["thresholds"],
        *(content.get("risk") or {}).get("thresholds", []),
        *(distance or {}).get("thresholds", []),
    ]
    flags = _once([r for r in judged if r["result"] == "fail"], len(content["targets"]))
    if not summary["policy_given"] and len(judged) == len(summary["thresholds"]):
        verdict = NO_THRESHOLDS
    elif flags:
        verdict = f"{len(flags)} flag(s): reviewer action required"
    else:
        verdict = NONE_EXCEEDED
    unmeasured = "outliers of continuous variables, linkage to other outside data"
    if not (distance and distance["membership"]):
        unmeasured = "membership inference, " + unmeasured
    else:
        unmeasured = "membership inference by classifier or density attacks, " + unmeasured
    notes = [
        "The intruder is assumed to know the keys and to take the synthetic data as real "
        f"(the worst case). Not measured: {unmeasured}.",
    ]
    if summary["m"] > 1:
        notes.append(
            f"{summary['m']} syntheses: each is measured on its own. Released together, they "
            "disclose more than any one of them (the measures per file understate that risk)."
        )
    return {
        "verdict": verdict,
        "flags": flags,
        "after_protection": after,
        "findings": findings,
        "notes": notes,
    }


def _once(flags: list[dict[str, Any]], n_targets: int) -> list[dict[str, Any]]:
    """The failed checks, highest value first; a flag that every target shares with the same
    value (identity measures do not depend on the target) is listed once."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in flags:
        groups.setdefault((r["measure"], r["synthesis"], r["value"]), []).append(r)
    out = []
    for rows in groups.values():
        if n_targets > 1 and len(rows) == n_targets:
            out.append({**rows[0], "target": f"all {n_targets} targets"})
        else:
            out.extend(rows)
    return sorted(out, key=lambda r: -r["value"] if isinstance(r["value"], float) else 0.0)


def _sortable(value: Any) -> float:
    """A value to rank by: a number, else (None, withheld) below every number."""
    return float(value) if isinstance(value, int | float) and not math.isnan(value) else -1.0


def _pct(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "not defined"
    if isinstance(value, str):  # withheld by the output check (external mode)
        return value
    return f"{value:.2f}%"


def _worst_row(rows: list[dict[str, Any]], measure: str) -> dict[str, Any] | None:
    defined = [r for r in rows if isinstance(r[f"{measure} worst"], float)]
    defined = [r for r in defined if not math.isnan(r[f"{measure} worst"])]
    return max(defined, key=lambda r: r[f"{measure} worst"], default=None)


def _identity(summary: dict[str, Any]) -> str:
    row = _worst_row(summary["per_target"], "repU") or summary["per_target"][0]
    return (
        f"Identity: replicated uniques (repU, original records unique on the keys and also "
        f"unique in the synthesis; higher = riskier) reach {_pct(row['repU worst'])} in "
        f"synthesis {row['repU worst synthesis']} (mean over {summary['m']}: "
        f"{_pct(row['repU mean'])}). Baseline: {_pct(row['UiO mean'])} of the original records "
        f"are unique on the keys (UiO)."
    )


def _attribute(summary: dict[str, Any]) -> str:
    rows = summary["per_target"]
    row = _worst_row(rows, "DiSCO")
    if row is None:
        return "Attribute: DiSCO is not defined for any target."
    worst = [r["DiSCO worst"] for r in rows if isinstance(r["DiSCO worst"], float)]
    median = statistics.median(worst) if worst else math.nan
    return (
        f"Attribute: the worst target is {row['target']}: DiSCO (original records whose "
        f"target a synthesis discloses correctly; higher = riskier) {_pct(row['DiSCO worst'])} "
        f"in synthesis {row['DiSCO worst synthesis']} (mean over {summary['m']}: "
        f"{_pct(row['DiSCO mean'])}), against {_pct(row['Dorig mean'])} that the keys disclose "
        f"in the original data itself (Dorig). Median over the {len(rows)} target(s), worst "
        f"synthesis each: {_pct(median)}."
    )


def _checks(targets: dict[str, Any]) -> str:
    one = [t for t, s in targets.items() if s["check_1way"]]
    two = [t for t, s in targets.items() if s["check_2way_fired"]]
    if not one and not two:
        return "Checks: neither synthpop check fired."
    parts = []
    if one:
        parts.append(
            f"check_1way fired for {', '.join(one)} (one level holds most original records: "
            "guessing it needs no key)"
        )
    if two:
        parts.append(
            f"check_2way fired for {', '.join(two)} (a key level nearly determines a target "
            "level: part of DiSCO may be public knowledge)"
        )
    return "Checks: " + "; ".join(parts) + ". See each target's section."


def _protection(sdc: dict[str, Any]) -> str:
    removed = sdc["removed_total"]
    compared = sdc["compared"]
    worst = max(compared, key=lambda r: _sortable(r["DiSCO before"]), default=None)
    shares: dict[int, float] = {}
    for r in sdc["removed"]:
        if isinstance(r["pct"], int | float):
            shares[r["synthesis"]] = shares.get(r["synthesis"], 0.0) + r["pct"]
    per = ", ".join(f"{v:.2f}%" for _, v in sorted(shares.items()))
    shown = f"{removed:,}" if isinstance(removed, int) else (removed or "a few")
    if sdc.get("total_rounded_apart"):  # a part is suppressed: the total is checked alone
        shown += " (rounded on its own, as each count)"
    text = f"Protection (sdc): {shown} synthetic records "
    text += f"removed ({per} of each synthesis)" if per else "removed"
    if worst is not None:
        text += (
            f"; means over the syntheses: repU {_pct(worst['repU before'])} → "
            f"{_pct(worst['repU after'])}, DiSCO of {worst['target']} "
            f"{_pct(worst['DiSCO before'])} → {_pct(worst['DiSCO after'])}"
        )
    return text + "."


def _after_protection(rows: list[dict[str, Any]]) -> str:
    """Each protected synthesis against each threshold: how many pass, and the worst one."""
    failing = [r for r in rows if not r["passes"]]
    worst = rows[0]  # failures first, highest value after protection first
    text = (
        f"After protection (sdc), judged per synthesis: {len(rows) - len(failing)} of "
        f"{len(rows)} checks pass"
    )
    name = f"{worst['measure']} of {worst['target']} in synthesis {worst['synthesis']}"
    change = f"{_pct(worst['before'])} → {_pct(worst['after'])}"
    if failing:
        return f"{text}; the worst is {name}: {change} against {worst['threshold']:g}%."
    return f"{text}; the highest is {name}: {change} (threshold {worst['threshold']:g}%)."


def _original_risk(risk: dict[str, Any]) -> str:
    """One line on the original data's own risk (sdcMicro's measure_risk on the keys)."""
    numbers = {r["measure"]: r["value"] for r in risk["numbers"]}
    unique = numbers.get("records unique on the keys (fk = 1)", "?")
    pct = numbers.get("global risk (%)", "?")
    return (
        f"Original data's own risk on the keys: {unique} of {risk['records']} records unique "
        f"(fk = 1), global re-identification risk {pct}% (sdcMicro's measure_risk; see "
        "'Risk of the original data')."
    )


def _sweep(sweep: dict[str, Any]) -> str:
    top = max(sweep["worst"], key=lambda r: _sortable(r["value"]))
    return (
        f"Key sweep: of {sweep['subsets']} subsets of the keys, the riskiest is {{{top['keys']}}} "
        f"for {top['target']}: DiSCO {_pct(top['value'])} (mean over the syntheses)."
    )


def _distance(distance: dict[str, Any]) -> str:
    """One line on the distances: the synthesis with the most identical records, and with a
    control the highest DCR share and the attack's highest AUC."""
    rows = distance["dcr"]
    top = max(rows, key=lambda r: _sortable(_value(r["identical (%)"])))
    text = (
        f"Distance to the closest record (over {len(distance['columns'])} columns, numeric "
        f"ones by difference): {_shown(top['identical (%)'], '%')} of synthesis "
        f"{top['synthesis']}'s records are identical to an original record (median DCR "
        f"{top['median DCR']})"
    )
    if distance["control"]:
        share = max(rows, key=lambda r: _sortable(_value(r["DCR share"])))
        auc = max(distance["membership"], key=lambda r: _sortable(_value(r["AUC"])))
        text += (
            f"; DCR share (closer to the original than to the control, ties half; 0.5 = no "
            f"closer) up to {share['DCR share']} (synthesis {share['synthesis']}); membership "
            f"inference by distance: AUC up to {auc['AUC']} (synthesis {auc['synthesis']}; "
            "0.5 = chance)"
        )
    return text + ". A large distance is no proof of privacy (see the section)."


def _value(shown: str) -> Any:
    """A table's formatted number back as a number to rank by (text: withheld)."""
    try:
        return float(shown.replace(",", ""))
    except ValueError:
        return shown


def _shown(value: str, unit: str) -> str:
    return f"{value}{unit}" if _value(value) != value else value
