"""Section 4, per target: synthpop's tables and checks in plain language."""

from __future__ import annotations

from typing import Any

from ...core.outputcheck import Numbers
from ...core.results import DisclosureResult, json_rows
from .common import RATIOS

CHECK_1WAY = (
    "check_1way fired: in the original data one level of the target holds most of the records "
    "(at least thresh_1way), so an intruder guesses it from the target's distribution alone, "
    "with no key. synthpop's advice: exclude that level (not_targetlev) and judge the rest."
)


CHECK_2WAY = (
    "check_2way fired: a level of one key nearly determines a target level in the original "
    "data, so DiSCO counts disclosures an intruder knowing that key level "
    "would expect anyway. synthpop's advice: exclude those (key, key level, target level) "
    "triples (exclude=) if the board agrees they are public knowledge."
)


def target_section(res: DisclosureResult, num: Numbers) -> dict[str, Any]:
    """One target's tables. The exclusions table is left out when no step removed a record (the
    section says "no records excluded"); the identity table, which the targets share
    unless their exclusions differ, is shown once by the template."""
    external = num.external
    ident = _checked_rows(json_rows(res.ident), num)
    attrib = _checked_rows(json_rows(res.attrib), num)
    allcaps = _checked_rows(json_rows(res.allcaps), num)
    if external:  # TCAP = DiSCO / iS and TCAP_little = DiSCO / DiS, of the shown numbers
        for cap, a in zip(allcaps, attrib, strict=True):
            for name, den in RATIOS.items():
                cap[name] = num.ratio(cap[name], a["DiSCO"], a[den])
    exclusions = json_rows(res.exclusions)
    for r in exclusions:
        r["count"] = num.count(r["count"])
    if not any(r["count"] for r in exclusions if r["reason"] != "remaining"):
        exclusions = []  # only the records that remain: "no records excluded"
    if external:  # counts of records in single cells: not in an external report
        attrib = [
            {k: v for k, v in r.items() if k not in ("max_denom", "mean_denom")} for r in attrib
        ]
    checks = []
    if res.check_1way.num_rows:
        level = "" if external else f" (level {res.check_1way.column('Level')[-1].as_py()!r})"
        checks.append(CHECK_1WAY + level)
    if res.check_2way.num_rows:
        syntheses = res.check_2way.column("synthesis").to_pylist()
        most = max(syntheses.count(j) for j in range(1, res.m + 1))
        listed = "" if external else " The pairs are listed below."
        checks.append(f"{CHECK_2WAY} {most} pair(s) in the synthesis with most.{listed}")
    return {
        "ident": ident,
        "attrib": attrib,
        "allcaps": allcaps,
        "exclusions": exclusions,
        "checks": checks,
        "check_1way": bool(res.check_1way.num_rows),
        "check_2way_fired": bool(res.check_2way.num_rows),
        "check_2way": [] if external else json_rows(res.check_2way),
    }


def _checked_rows(rows: list[dict[str, Any]], num: Numbers) -> list[dict[str, Any]]:
    """A measures table's rows (one per synthesis) with each measure as the report shows it
    (the TCAP and TCAP_little of an external report are derived afterwards)."""
    if not num.external:
        return rows
    skip = ("synthesis", "max_denom", "mean_denom", *RATIOS)
    return [
        {k: v if k in skip else num.measure(k, v, r["synthesis"]) for k, v in r.items()}
        for r in rows
    ]
