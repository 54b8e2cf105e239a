"""The sections of the release report (:func:`discosql.report`) as plain data: provenance,
labelling and structure, the summary with its baselines and thresholds, each target, the CAP
family, the key sweep and sdc, the SQL script, and what external mode withholds."""

from __future__ import annotations

import hashlib
import math
import os
import platform
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.inputs import Inputs
from ..core.outputcheck import Numbers
from ..core.results import ATTRIB_MEASURES, DisclosureResult, json_rows
from ..measure.summary import DisclosureSummary
from ..protect.sdc import SdcResult
from ..risk.individual import RiskResult
from ..risk.suda import SudaResult
from ..sql.templates import render
from ..sweep.key_sweep import MEASURES as SWEEP_MEASURES
from ..sweep.key_sweep import KeySweep
from ..version import __version__

# the measures of the original data alone, which no synthesis changes: a threshold on them
# judges nothing about a release (the measure to judge instead)
ORIGINAL_SIDE = {"UiO": "repU or UiOiS", "Dorig": "DiSCO", "CAPd": "DCAP", "baseCAPd": "DCAP"}
# the original's own risk (sdcMicro's measure_risk) a threshold may name with risk=True: its
# largest value (a percentage, or a probability) and what the report calls it
RISK_THRESHOLDS = {
    "global_risk_pct": (100.0, "global risk (%)"),
    "global_risk": (1.0, "global risk (a probability, 0 to 1)"),
}
# every measure a threshold may name (percent of records, lower is safer): synthpop's
# synthesis measures and CAP scores
DIRECTIONS = {
    m: "lower is safer"
    for m in (*SWEEP_MEASURES, "DCAP", "TCAP", "CAPs")
    if m not in ("max_denom", "mean_denom") and m not in ORIGINAL_SIDE
}

LEVELS_SHOWN = 12  # levels listed per column in the schema differences (internal mode)

DEFINITIONS = (
    (
        "UiO",
        "100 · #{q : d'.q = 1} / N_d: original records unique on the keys",
        "Raab, Nowok & Dibben, Practical privacy metrics for synthetic data (synthpop)",
    ),
    ("UiS", "100 · #{q : s'.q = 1} / N_s: synthetic records unique on the keys", "ibid."),
    (
        "UiOiS",
        "100 · #{q : d'.q = 1, s.q > 0} / N_d: original uniques whose key is in the synthetic data",
        "ibid.",
    ),
    ("repU", "100 · #{q : d'.q = 1, s'.q = 1} / N_d: replicated uniques (unique in both)", "ibid."),
    (
        "Dorig",
        "100 · Σ d'_tq [p_d(t|q) = 1] / N_d: original records whose key alone discloses "
        "the target in the original data (the baseline an intruder has without the synthesis)",
        "ibid.",
    ),
    ("Dsyn", "100 · Σ s'_tq [p_s(t|q) = 1] / N_s: the same in the synthetic data", "ibid."),
    (
        "iS",
        "100 · Σ d'_tq [s.q > 0] / N_d: original records whose key is in the synthesis",
        "ibid.",
    ),
    ("DiS", "100 · Σ d'_tq [some p_s(t'|q) = 1] / N_d: key disclosive in the synthesis", "ibid."),
    (
        "DiSCO",
        "100 · Σ d'_tq [p_s(t|q) = 1] / N_d: disclosive in the synthesis and correct "
        "in the original",
        "ibid.",
    ),
    (
        "DiSDiO",
        "100 · Σ d'_tq [p_s(t|q) = 1, p_d(t|q) = 1] / N_d: DiSCO cells also disclosive "
        "in the original",
        "ibid.",
    ),
    (
        "max_denom, mean_denom",
        "the largest and the mean number of synthetic records in a DiSCO cell (s.q of the "
        "disclosive keys): a cell of one record discloses one person",
        "ibid.",
    ),
    (
        "baseCAPd",
        "100 · Σ_t (d_.t / N_d)²: the chance of guessing a record's target from its "
        "distribution alone (the baseline of the CAP scores)",
        "synthpop disclosure(): Taub et al., PSD 2018",
    ),
    ("CAPd", "100 · Σ d_tq · p_d(t|q) / N_d: the original's own correct attribution", "ibid."),
    (
        "CAPs",
        "100 · Σ s_tq · p_s(t|q) / N_s: the synthesis's own correct attribution (the "
        "synthetic records' CAPd)",
        "ibid.",
    ),
    (
        "DCAP",
        "100 · Σ d_tq · p_s(t|q) / N_d: correct attribution from the synthesis, unmatched "
        "records counting as 0 (= 100 (1 - CategoricalZeroCAP))",
        "ibid.; SDMetrics CategoricalZeroCAP",
    ),
    ("DCAP/iS", "100 · DCAP / iS: DCAP over the records whose key the synthesis holds", "ibid."),
    (
        "TCAP",
        "100 · DiSCO / iS: synthpop's TCAP (the code's; its 1.9-3 vignette calls this "
        "TCAP_alt), the disclosive share of the matched records",
        "synthpop disclosure(); Little et al. 2022",
    ),
    (
        "fk, Fk",
        "fk: the original records sharing a record's key combination; Fk: their sampling "
        "weights' sum (the population it stands for; fk without a weight)",
        "sdcMicro freqCalc; Templ, Statistical Disclosure Control for Microdata (2017)",
    ),
    (
        "k-anonymity violations",
        "records with fk < k: fewer than k records share their key combination",
        "Samarati & Sweeney 1998; sdcMicro measure_risk",
    ),
    (
        "individual risk",
        "the probability that a record's key match is correct: 1/fk without weights, the "
        "negative binomial estimate from fk and Fk with them",
        "Benedetti & Franconi 1998; sdcMicro measure_risk",
    ),
    (
        "expected re-identifications, global risk",
        "the sum of the individual risks (records), and that sum as a share of the records "
        "(global risk, %; global_risk as a probability)",
        "sdcMicro measure_risk",
    ),
    (
        "MSU",
        "minimal sample unique: a set of a record's key values no other record shares, of "
        "which no subset is unique",
        "Elliot et al., SUDA (2002); sdcMicro suda2",
    ),
    (
        "DIS-SUDA",
        "the probability that a record's match on its MSUs is correct, for the given sampling "
        "fraction (0.01: a 1 % sample); a key's contribution is its share of all SUDA scores",
        "Elliot, Manning & Ford (2002); sdcMicro suda2",
    ),
    (
        "CategoricalCAP",
        "1 - Σ_{q: s_q>0} o_qt·s_qt/s_q / Σ_{q: s_q>0} o_qt (1 = safe)",
        "SDMetrics CategoricalCAP; Taub et al., PSD 2018",
    ),
    (
        "CategoricalZeroCAP",
        "1 - Σ_{q: s_q>0} o_qt·s_qt/s_q / N (1 = safe; unmatched records score 0)",
        "SDMetrics CategoricalZeroCAP",
    ),
    (
        "CategoricalGeneralizedCAP",
        "1 - mean over original records of the share of the nearest "
        "synthetic keys (Hamming distance) with the record's target (1 = safe)",
        "SDMetrics CategoricalGeneralizedCAP; Hittmeir, Ekelhart & Mayer, CODASPY 2020",
    ),
    (
        "Taub TCAP",
        "mean of o_qt/o_q over synthetic records with WEAP = s_qt/s_q ≥ τ (higher = riskier)",
        "Taub, Elliot, Pampaka & Smith, PSD 2018",
    ),
    (
        "excess risk",
        "(risk - control risk) / (1 - control risk): the risk beyond what a "
        "control set (records not used to fit the synthesiser) gives",
        "Baillargeon & Charest, A closer look at the CAP risk measure",
    ),
)

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
SWISS_CHEESE = (
    "Removing records is itself visible: an intruder who knows that exact matches were removed "
    "learns that a person absent from every synthesis near a known key is likely unique there "
    "(an attack by omission, the 'Swiss cheese' argument). Report how many records were "
    "removed, and prefer recoding keys to removing many records."
)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _files(obj: Any) -> list[Path]:
    """The files behind an input given as a path (a file, or a directory's files)."""
    if not isinstance(obj, str | os.PathLike):
        return []
    p = Path(obj)
    if p.is_file():
        return [p]
    if p.is_dir():
        return sorted(f for f in p.rglob("*") if f.is_file())
    return sorted(f for f in p.parent.glob(p.name) if f.is_file())


def provenance_section(
    given: list[tuple[str, Any]],
    regs: list[Any],
    engine_name: str,
    summary: DisclosureSummary,
    options: dict[str, Any],
    num: Numbers,
) -> dict[str, Any]:
    """The inputs (``given``: (label, what the user passed); ``regs``: their registrations,
    in the same order), the schema side by side, options, versions and engine."""
    from importlib.metadata import version

    external = num.external
    data = []
    schema: dict[str, dict[str, Any]] = {}
    for (label, obj), reg in zip(given, regs, strict=True):
        files = _files(obj)
        source = os.fspath(obj) if isinstance(obj, str | os.PathLike) else type(obj).__name__
        data.append(
            {
                "data set": label,
                "source": None if external else source,
                "rows": num.count(reg.n_rows),
                "columns": len(reg.columns),
                "SHA-256": "; ".join(
                    _sha256(f) if external else f"{f.name}: {_sha256(f)}" for f in files
                )
                or None,
            }
        )
        for name, engine_type in reg.columns.items():
            schema.setdefault(name, {"column": name})[label] = engine_type
    labels = [label for label, _ in given]
    columns = [{**{k: None for k in ["column", *labels]}, **row} for row in schema.values()]
    return {
        "inputs": data,
        "schema": columns,
        "keys": list(summary.keys),
        "targets": list(summary.results),
        "options": [{"option": k, "value": repr(v)} for k, v in sorted(options.items())],
        "versions": [
            {"component": "discosql", "version": __version__},
            {"component": "duckdb", "version": version("duckdb")},
            {"component": "sqlglot", "version": version("sqlglot")},
            {"component": "pyarrow", "version": version("pyarrow")},
            {"component": "python", "version": platform.python_version()},
        ],
        "engine": engine_name,
    }


def structure_section(inputs: Inputs, summary: DisclosureSummary, external: bool) -> dict[str, Any]:
    """Labelling (a flag column, as synthpop's sdc(label=) adds) and the schema differences:
    columns on one side only, types that differ, levels of the keys and targets present in
    the original or in one synthesis only, per synthesis (counts, and in internal mode the
    first level names): pooling the syntheses hid a level one of them lacks."""
    orig_cols = inputs.sources[0].columns
    syn_cols: dict[str, str] = {}
    for reg in inputs.sources[1:]:
        syn_cols.update(reg.columns)
    columns = [c for c in [*summary.keys, *summary.results] if c in orig_cols]
    levels = _levels(inputs, columns)
    label = [c for c in syn_cols if c.lower() in ("flag", "label") and c not in orig_cols]
    differences = []
    for c in columns:
        for j in range(1, inputs.m + 1):
            o, s = levels.get((0, c), set()), levels.get((j, c), set())
            only_o, only_s = sorted(o - s), sorted(s - o)
            if not (only_o or only_s):
                continue
            differences.append(
                {
                    "column": c,
                    "synthesis": j,
                    "only_in_original": len(only_o),
                    "only_in_synthetic": len(only_s),
                    "examples": None
                    if external
                    else ", ".join([*only_o[: LEVELS_SHOWN // 2], *only_s[: LEVELS_SHOWN // 2]]),
                }
            )
    return {
        "label_columns": label,
        "only_in_original": sorted(set(orig_cols) - set(syn_cols)),
        "only_in_synthetic": sorted(set(syn_cols) - set(orig_cols) - set(label)),
        "type_differences": [
            {"column": c, "original": orig_cols[c], "synthetic": syn_cols[c]}
            for c in sorted(set(orig_cols) & set(syn_cols))
            if orig_cols[c] != syn_cols[c]
        ],
        "level_differences": differences,
    }


def _levels(inputs: Inputs, columns: list[str]) -> dict[tuple[int, str], set[str]]:
    """{(0 original / j synthesis j, column): its distinct values as text}, from the engine."""
    out: dict[tuple[int, str], set[str]] = {}
    for c in columns:
        eng = inputs.engine
        sql = render("inspect/values.sql.j2", eng.dialect, sources=inputs.data_sets(), column=c)
        for row in eng.query(sql, inputs.params(), "inspect/values").to_pylist():
            value = "NA" if row["v"] is None else str(row["v"])
            out.setdefault((int(row["src"]), c), set()).add(value)
    return out


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
                r[column] = num.mean(_shown(res, measure, num))
    per_target = []
    checks = []
    for target, res in summary.results.items():
        row: dict[str, Any] = {"target": target}
        for measure in HEADLINE:
            values = _shown(res, measure, num)
            worst = _worst(values)
            row[f"{measure} mean"] = num.mean(values)
            row[f"{measure} worst"] = values[worst - 1] if worst else _withheld(values)
            row[f"{measure} worst synthesis"] = worst
        per_target.append(row)
        for measure, limit in policy.items():
            shown = _shown(res, measure, num)
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
    per_target.sort(key=lambda r: _risk_order(r["DiSCO worst"]))
    checks.sort(key=lambda r: (r["result"] == "pass", r["target"], r["measure"]))
    return {
        "table": sorted(rows, key=lambda r: _risk_order(r["attrib_syn"])),
        "m": summary.m,
        "attrib_meas": summary.attrib_meas,
        "per_target": per_target,
        "thresholds": checks,
        "policy_given": bool(policy),
    }


def _shown(res: DisclosureResult, measure: str, num: Numbers) -> list[Any]:
    """``measure`` of each synthesis, as the report shows it (synthpop's TCAP, DiSCO / iS, of
    the shown numbers in an external report)."""
    if measure == "TCAP" and num.external:
        return [
            num.ratio(
                res.value("TCAP", j), *(num.measure(m, res.value(m, j), j) for m in ("DiSCO", "iS"))
            )
            for j in range(1, res.m + 1)
        ]
    return [num.measure(measure, res.value(measure, j), j) for j in range(1, res.m + 1)]


def _worst(values: Sequence[Any]) -> int | None:
    """The synthesis (1-based) with the highest value; None if none is a number (a withheld
    value stands for fewer records than any shown one)."""
    defined = [
        (v, -j)
        for j, v in enumerate(values, start=1)
        if not isinstance(v, str) and not math.isnan(v)
    ]
    return -max(defined)[1] if defined else None


def _withheld(values: Sequence[Any]) -> Any:
    """No synthesis's value is a number: withheld if one is, else NaN."""
    return next((v for v in values if isinstance(v, str)), math.nan)


def _risk_order(value: Any) -> tuple[bool, float]:
    """Sort key: highest risk first, withheld (fewer records than any shown value) next, NaN
    (None in JSON) last."""
    if isinstance(value, str):
        return (False, 0.0)
    missing = value is None or (isinstance(value, float) and math.isnan(value))
    return (missing, 0.0 if missing else -float(value))


def target_section(res: DisclosureResult, num: Numbers) -> dict[str, Any]:
    """One target's tables. The exclusions table is left out when no step removed a record (the
    section says "no records excluded"); the identity table, which the targets share
    unless their exclusions differ, is shown once by the template."""
    external = num.external
    ident = _checked_rows(json_rows(res.ident), num)
    attrib = _checked_rows(json_rows(res.attrib), num)
    allcaps = _checked_rows(json_rows(res.allcaps), num)
    if external:  # synthpop's TCAP = DiSCO / iS, of the shown numbers
        for cap, a in zip(allcaps, attrib, strict=True):
            cap["TCAP"] = num.ratio(cap["TCAP"], a["DiSCO"], a["iS"])
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
    (the TCAP of an external report is derived afterwards)."""
    if not num.external:
        return rows
    skip = ("synthesis", "max_denom", "mean_denom", "TCAP")
    return [
        {k: v if k in skip else num.measure(k, v, r["synthesis"]) for k, v in r.items()}
        for r in rows
    ]


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


def sweep_section(sw: KeySweep, num: Numbers) -> dict[str, Any]:
    """The riskiest subset of each target (highest first) and, in internal mode, each key's
    contribution (the chart shows it too; an external report leaves per-subset detail out)."""
    external = num.external
    worst = [
        {**r, "keys": ", ".join(r["keys"]), "value": num.measure("DiSCO", r["value"])}
        for r in sw.worst(1, "DiSCO").to_pylist()
    ]
    worst.sort(key=lambda r: _risk_order(r["value"]))
    contribution = [
        r for r in sw.contribution.to_pylist() if r["measure"] in ("DiSCO", "repU") and r["pairs"]
    ]
    contribution.sort(key=lambda r: _risk_order(r["mean_increase"]))
    if external:
        contribution = []
    return {
        "keys": list(sw.keys),
        "worst": worst,
        "contribution": contribution,
        "subsets": len({tuple(k) for k in sw.table.column("keys").to_pylist()}),
    }


def sdc_section(res: SdcResult, num: Numbers, policy: dict[str, float]) -> dict[str, Any]:
    """What sdc removed and recoded, the measures before and after (the means over the
    syntheses of the summary's measures; an external report's are of the values it shows),
    and each protected synthesis judged against each threshold (``after_protection``)."""
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
                    "DiSCO before": _mean_shown(b, attrib, num),
                    "DiSCO after": None if a is None else _mean_shown(a, attrib, num),
                    "repU before": _mean_shown(b, ident, num),
                    "repU after": None if a is None else _mean_shown(a, ident, num),
                }
            )
    compared.sort(key=lambda r: _risk_order(r["DiSCO before"]))
    total, apart = num.total(shown_rows, sum(r["rows"] for r in json_rows(res.removed)))
    return {
        "removed": removed,
        "recoded": recoded,
        "compared": compared,
        "removed_total": total,
        "total_rounded_apart": apart,
        "after_protection": _after_protection(res, num, policy),
        "caveat": SWISS_CHEESE,
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
            was, now = _shown(before, measure, num), _shown(after, measure, num)
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
    rows.sort(key=lambda r: (r["passes"], _risk_order(r["after"]), r["target"], r["synthesis"]))
    return rows


def _mean_shown(res: DisclosureResult, measure: str, num: Numbers) -> Any:
    """The mean over the syntheses of ``measure`` as the report shows each (the summary's
    table, for an internal report)."""
    return num.mean(_shown(res, measure, num))


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
        {"measure": "expected re-identifications", "value": _fmt(shown_er, er_format)},
        {"measure": "global risk (%)", "value": _fmt(shown_pct, ".2f")},
        {"measure": f"risk threshold for a global risk of {res.max_global_risk:g}", "value": shown},
    ]
    riskiest = [] if num.external else json_rows(res.riskiest)

    def counted(n: int) -> str:
        shown = num.count(n)
        return shown if isinstance(shown, str) else f"{shown:,}"

    dis = [
        {"DIS-SUDA score": r["interval"], "records": counted(r["records"])}
        for r in special.dis_table.to_pylist()
    ]
    msus = [
        {"keys in the MSU": r["size"], "records": counted(r["records"])}
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


def _fmt(value: Any, spec: str) -> str:
    """A number formatted, or the output check's text as it is."""
    return value if isinstance(value, str) else format(value, spec)


def script_section(inputs: Inputs, summary: DisclosureSummary) -> str | None:
    """The duckdb script that reproduces each target's tables (one section per target, with
    that target's options), its decisions made on the report's own inputs; None unless every
    data set is a file the script can read."""
    from ..core.export import SCRIPT_FILE_KINDS
    from ..measure.export import script_of

    if any(reg.source.kind not in SCRIPT_FILE_KINDS for reg in inputs.sources):
        return None  # data in memory or in a server's tables cannot be named in the script
    specs = [res.spec for res in summary.results.values()]
    # the files by absolute path: the script runs from any folder, the one it is saved in too
    absolute = Inputs(
        inputs.engine,
        [
            replace(reg, source=replace(reg.source, obj=_absolute(reg.source.obj)))
            for reg in inputs.sources
        ],
        inputs.groupings,
    )
    script = script_of(absolute, specs, "duckdb", [None] * len(inputs.sources))
    return SCRIPT_HEADER + script


# what the report's script says first: how to run it, wherever it is saved
SCRIPT_HEADER = """\
-- The SQL script of a discosql report: run it with `duckdb -bail < <this file>` from any
-- folder of the machine that made the report (its inputs are named by absolute path, as
-- listed under "reads:"). On another machine, change those paths first.
"""


def _absolute(obj: Any) -> Any:
    """A local file path (or glob, or list of them) made absolute; a URL (``s3://``,
    ``https://``) or anything else as it is."""
    if isinstance(obj, str):
        return obj if "://" in obj else os.path.abspath(obj)
    if isinstance(obj, list | tuple):
        return [_absolute(o) for o in obj]
    return obj


def withheld_section(check: str | None) -> list[str]:
    """What an external report leaves out (``check``: its output check, described)."""
    if check is None:
        return []
    return [
        "file paths and names of the inputs",
        "level names (check_1way levels, check_2way pairs, levels on one side only)",
        "max_denom and mean_denom (record counts of single cells)",
        "the SQL script (it names the files and levels)",
        check,
    ]
