"""report(): one document a disclosure review board can read and sign: provenance, labelling and
structure, the summary with the original data as baseline, each target's tables and checks in
plain language, the CAP family with a control baseline, the key sweep and sdc when given, and
the definitions. ``mode="external"`` withholds level names, small counts and file paths.

The content is plain data (``Report.to_dict()``); the HTML is the Jinja template
``discosql/report/html/report.html.j2`` rendered from it, with its plots as inline SVG drawn by
a template too (:mod:`.charts`): the report needs no plotting library, so it runs on the plain
install and its bytes do not depend on one. The SQL that reproduces the tables goes into a
second file beside the report (its SHA-256 in the report), unless ``inline_sql``. The
arguments are checked, before any data is read, in :mod:`.asked`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..anonymity.common import schema_check
from ..core.files import atomic_paths
from ..core.fingerprint import fingerprints
from ..core.inputs import Inputs, check_columns, open_inputs
from ..core.output import Destination
from ..core.outputcheck import MIN_COUNT, ROUND_TO, Exact, Numbers, OutputCheck
from ..core.results import AsData
from ..core.view import render_html, table_rows
from ..engines.base import Registered
from ..engines.factory import engine_spec
from ..errors import InputError
from ..measure.summary import DisclosureSummary, default_targets, summary_on
from ..protect.sdc import SdcResult, sdc_on
from ..risk.individual import RiskOptions, RiskResult, risk_on
from ..risk.suda import SudaOptions, SudaResult, default_max_size, suda_on
from ..sql.dialects import facts
from ..sweep.key_sweep import KeySweep, SweepOptions, sweep_on
from . import anonymity as anonymity_tests
from . import distance as distances
from . import sections
from .asked import CheckedReport, ReportOptions, check_distance_policy, checked_arguments
from .charts import certainty_chart, summary_chart, sweep_chart
from .sections import CAP_RISKS, DEFINITIONS
from .verdict import verdict_section


@dataclass(frozen=True)
class Report(AsData):
    """A release report: ``content`` as plain data, ``html`` the self-contained document,
    ``sql`` the script that reproduces its tables when it is not inline (None otherwise)."""

    content: dict[str, Any]
    html: str = field(repr=False)
    sql: str | None = field(default=None, repr=False)

    def sql_path(self, path: str | os.PathLike[str]) -> Path | None:
        """Where :meth:`save` puts the SQL script for a report saved at ``path``."""
        return None if self.sql is None else Path(path).with_suffix(".sql")

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the HTML document (one file: CSS and plots inline) and, when the SQL is not
        inline, the script beside it (``<name>.sql``, whose SHA-256 the report states)."""
        files = [(Path(path), self.html)]
        folder = Path(path).resolve().parent
        if not folder.is_dir():  # said as the CLI says it, not as the temporary file's error
            raise InputError(f"path: the directory {str(folder)!r} does not exist")
        sql_path = self.sql_path(path)
        if sql_path is not None and self.sql is not None:
            files.append((sql_path, self.sql))
        with atomic_paths([p for p, _ in files]) as temps:  # both complete, or neither
            for temp, (_, text) in zip(temps, files, strict=True):
                temp.write_text(text, encoding="utf-8")

    def to_dict(self) -> dict[str, Any]:
        return self.content

    def _repr_html_(self) -> str:
        return self.html


def report(
    original: Any,
    synthetic: Any,
    keys: Sequence[str],
    targets: Sequence[str] | None = None,
    *,
    control: Any = None,
    sweep: bool | Mapping[str, Any] | KeySweep | None = None,
    sdc: Mapping[str, Any] | SdcResult | None = None,
    risk: bool = False,
    anonymity: bool | Mapping[str, Any] | None = None,
    distance: bool | Mapping[str, Any] | None = None,
    weight: str | None = None,
    thresholds: Mapping[str, float] | None = None,
    mode: str = "internal",
    min_count: int = MIN_COUNT,
    round_to: int = ROUND_TO,
    inline_sql: bool = False,
    engine: Any = None,
    threads: int | None = None,
    progress: Callable[[str], None] | None = None,
    **options: Any,
) -> Report:
    """A release report of the synthesis against the original.

    Args:
        keys, targets, options: as :func:`discosql.disclosure_summary`.
        control: records from the same population not used to fit the synthesiser (a holdout):
            the CAP scores' baseline and excess risk.
        sweep: True (every subset of the keys), key_sweep arguments, or a KeySweep.
        sdc: an SdcResult (made with ``measure=``) or sdc() arguments (``measure`` is added).
        anonymity: True, or a mapping of ``columns``, ``n_cols``, ``aux_cols``, ``secrets``,
            ``inference_aux_cols``: adds "The three tests of anonymisation": singling out
            (over the keys and targets, 3 columns at a time), linkability (A the keys, B the
            targets), anonymeter's inference attack (each target guessed from the keys) and
            the exact matches, each synthesis against the original and the control
            (:mod:`discosql.anonymity`).
        distance: True, or a mapping of ``columns``, ``categorical``, ``max_pairs``: adds
            "Distance to the closest record": dcr() of each synthesis over the keys and
            targets (numeric ones by difference) and, with a control, membership inference
            by distance (:func:`discosql.dcr`, :func:`discosql.membership`).
        risk, weight: add "Risk of the original data" (sdcMicro's measure_risk on the keys,
            with ``weight`` its sampling weight, and suda2's DIS-SUDA scores); a weight alone
            adds it too.
        thresholds: the user's own policy, e.g. ``{"repU": 1.0, "DiSCO": 5.0}`` (percent, every
            synthesis and target): pass/fail per number, the verdict from them. discosql invents
            none. With distance= and a control, ``dcr_share`` and ``membership_auc`` (fractions,
            e.g. riskutility's ``{"dcr_share": 0.55}``).
        mode: "internal" (everything) or "external" (aggregate percentages only: no level
            names, no file paths, counts through an output check; what was withheld is listed).
        min_count, round_to: external mode's output check: counts below ``min_count`` show
            as "< min_count", the others are rounded to ``round_to``, percentages that stand
            for fewer than ``min_count`` records are withheld (defaults 8 and 5, OpenSAFELY's).
        inline_sql: put the SQL script in the report's appendix instead of a file beside it.
        progress: called with the name of each section as it starts (the CLI prints them).
    """
    syn = list(synthetic) if isinstance(synthetic, list | tuple) else [synthetic]
    given = ReportOptions(
        keys, targets, sweep, sdc, risk, weight, thresholds, mode, min_count, round_to, options
    )
    asked = checked_arguments(given, len(syn))
    asked.anonymity_args = anonymity_tests.check(anonymity, asked.keys)
    asked.distance_args = distances.check(distance)
    check_distance_policy(asked, control is not None)
    engine_spec(engine)  # an unknown engine fails here, before any data is read
    step = progress or (lambda _: None)
    data_sets = [("original", original), *((f"synthetic {j}", s) for j, s in enumerate(syn, 1))]
    if control is not None:
        data_sets.append(("control", control))
    # one engine and one registration for every section (a CSV file is parsed once)
    schema = _schema_check(asked, weight if asked.with_risk else None, step)
    with open_inputs(engine, threads, original, syn, check=schema) as inputs:
        ran = _run(inputs, asked, data_sets, control, targets, weight, options, step)
    if isinstance(sweep, KeySweep):  # given, not run
        ran.swept = sweep
    if isinstance(sdc, SdcResult):
        ran.protected = sdc
    content = _content(ran, asked, inline_sql)
    html = render_html(
        "report.html.j2",
        packages=(__package__ or "",),
        c=content,
        plots=_plots(content, ran.swept, ran.num),
        sql=ran.script if inline_sql else None,
        table_rows=_rows_table,
        sections=[s for s in SECTIONS if s.shown(content)],
    )
    return Report(content, html, None if inline_sql else ran.script)


@dataclass
class _Measured:
    """What the report computed on its inputs (the engine is closed once this exists)."""

    summary: DisclosureSummary
    num: Numbers
    provenance: dict[str, Any]
    structure: dict[str, Any]
    control_summary: DisclosureSummary | None = None
    script: str | None = None
    no_script: str | None = None  # why there is no script (internal mode)
    dialect: str = "duckdb"  # the script's
    swept: KeySweep | None = None
    protected: SdcResult | None = None
    original_risk: tuple[RiskResult, SudaResult] | None = None
    anonymity: sections.Tested | None = None
    distances: sections.Distances | None = None


def _run(
    inputs: Inputs,
    asked: CheckedReport,
    data_sets: list[tuple[str, Any]],
    control: Any,
    targets: Sequence[str] | None,
    weight: str | None,
    options: dict[str, Any],
    step: Callable[[str], None],
) -> _Measured:
    """Every measure of the report on the registered ``inputs``, section by section."""
    eng = inputs.engine
    read_at = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")  # the inputs were read
    if targets is None and weight is not None:  # the default targets, but for the weight
        targets = default_targets(inputs, asked.keys, [weight])
    step("summary")
    summary = summary_on(inputs, asked.keys, targets, options)
    step("provenance and structure")
    regs = list(inputs.sources)
    if control is not None:
        regs.append(eng.register(eng.classify(control, "control")))
    sizes = [reg.n_rows for reg in regs]
    num = _numbers(asked.external, asked.rules, sizes, inputs.m)
    prints = fingerprints(eng, regs)
    provenance = sections.provenance_section(
        data_sets, regs, eng.about(), prints, read_at, summary, options, num
    )
    provenance["dialect"] = eng.dialect
    structure = sections.structure_section(inputs, summary, asked.external)
    ran = _Measured(summary, num, provenance, structure)
    if control is not None:
        step("control baseline")
        on_control = Inputs(eng, [inputs.sources[0], regs[-1]])
        ran.control_summary = summary_on(
            on_control, list(summary.keys), list(summary.results), options
        )
    if not asked.external:  # an external report has no script
        step("SQL script")
    ran.script = None if asked.external else sections.script_section(inputs, summary)
    ran.no_script = None if asked.external else sections.no_script(inputs)
    ran.dialect = eng.dialect
    if asked.sweep_args is not None:
        step("key sweep")
        if asked.sweep_args["targets"] is None:  # the summary's: every non-key column
            asked.sweep_args["targets"] = list(summary.results)
        ran.swept = sweep_on(inputs, SweepOptions.flat(asked.sweep_args))
    if asked.sdc_args is not None:
        step("protection (sdc)")
        ran.protected = _protect(inputs, summary, asked.sdc_args, options)
    if asked.with_risk:
        ran.original_risk = _original_risk(inputs, asked.keys, weight, step)
    if asked.anonymity_args is not None:
        given = regs[-1] if control is not None else None
        targets_run = list(summary.results)
        ran.anonymity = anonymity_tests.run(
            inputs, given, asked.anonymity_args, asked.keys, targets_run, step
        )
    if asked.distance_args is not None:
        given = regs[-1] if control is not None else None
        ran.distances = distances.run(
            inputs, given, asked.distance_args, asked.keys, list(summary.results), step
        )
    return ran


def _content(ran: _Measured, asked: CheckedReport, inline_sql: bool) -> dict[str, Any]:
    """The report as plain data, shaped from what :func:`_run` computed (nothing is read)."""
    num = ran.num
    content: dict[str, Any] = {
        "title": "Disclosure risk of the synthetic data",
        "mode": asked.mode,
        "generated": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "provenance": ran.provenance,
        "structure": ran.structure,
        "risk": None,
    }
    _measures(
        content, ran.summary, asked.policy, ran.control_summary, ran.swept, ran.protected, num
    )
    script = ran.script
    content["sql"] = (
        None
        if script is None
        else {
            "sha256": hashlib.sha256(script.encode()).hexdigest(),
            "lines": script.count("\n") + 1,
            "inline": inline_sql,
            "dialect": ran.dialect,
            "runner": (facts(ran.dialect).runner or "").format(script="script.sql") or None,
            "files": facts(ran.dialect).reads_files,
        }
    )
    content["no_script"] = ran.no_script
    if ran.original_risk is not None:
        content["risk"] = sections.risk_section(*ran.original_risk, num, asked.risk_policy)
    content["anonymity"] = (
        None if ran.anonymity is None else sections.anonymity_section(ran.anonymity, num)
    )
    content["distance"] = (
        None
        if ran.distances is None
        else sections.distance_section(ran.distances, num, asked.distance_policy)
    )
    # the definitions of the tests and of the distances only beside their sections
    hidden = (sections.OF_ANONYMITY if ran.anonymity is None else ()) + (
        sections.OF_DISTANCE if ran.distances is None else ()
    )
    content["definitions"] = [d for d in content["definitions"] if d["measure"] not in hidden]
    content["withheld"] = sections.withheld_section(
        num.described() if isinstance(num, OutputCheck) else None
    )
    content["verdict"] = verdict_section(content)
    return content


@dataclass(frozen=True)
class Section:
    """A numbered section of the report: its anchor ``id`` (its template is
    ``html/sections/<id>.html.j2``), its title, and whether this report has it."""

    id: str
    title: str
    key: str | None = None  # shown when content[key] is set (None: always)

    def shown(self, content: dict[str, Any]) -> bool:
        return self.key is None or bool(content.get(self.key))


# The report's sections in order: the contents and the numbers come from this list.
SECTIONS = (
    Section("provenance", "Provenance"),
    Section("structure", "Labelling and structure"),
    Section("summary", "Summary"),
    Section("targets", "Per target"),
    Section("cap", "CAP family"),
    Section("anonymity", "The three tests of anonymisation", "anonymity"),
    Section("distance", "Distance to the closest record", "distance"),
    Section("sweep", "Key sweep", "sweep"),
    Section("sdc", "Protection (sdc)", "sdc"),
    Section("risk", "Risk of the original data", "risk"),
    Section("definitions", "Definitions"),
    Section("sql", "Appendix: the SQL script", "sql"),
)


def _schema_check(
    asked: CheckedReport, weight: str | None, step: Callable[[str], None]
) -> Callable[[list[Registered]], None]:
    """What the report checks on the schemas, before any data is counted and before its first
    progress line: the keys and the weight of the original's own risk (a misspelled or
    non-numeric weight failed after the summary, the sweep and sdc had run), and the columns
    the tests of anonymisation and the distances name, in every data set."""

    def check(regs: list[Registered]) -> None:
        if weight is not None:
            roles = dict.fromkeys(asked.keys, "key") | {weight: "weight"}
            check_columns([regs[0]], roles, [weight])
        args = asked.anonymity_args or {}
        named = list(args.get("columns") or [])
        for side in args.get("aux_cols") or ():
            named += [side] if isinstance(side, str) else list(side)
        named += [*(args.get("secrets") or ()), *(args.get("inference_aux_cols") or ())]
        named += list((asked.distance_args or {}).get("columns") or [])
        if named:
            schema_check(list(dict.fromkeys(named)))(regs)
        step("reading the data")

    return check


def _original_risk(
    inputs: Inputs, keys: list[str], weight: str | None, step: Any
) -> tuple[RiskResult, SudaResult]:
    """sdcMicro's measure_risk and suda2 on the report's original (SUDA's MSUs of up to as
    many keys as MAX_SUBSETS subsets allow)."""
    original = Inputs(inputs.engine, inputs.sources[:1])
    step("risk of the original data")
    unwanted = Destination(discard=True)  # the report shows no per-record table
    measured = risk_on(original, RiskOptions(keys, weight), unwanted)
    step("special uniques of the original data (SUDA2)")
    largest = min(len(keys), default_max_size(len(keys)))
    return measured, suda_on(original, SudaOptions(keys, max_size=largest), unwanted)


def _measures(
    content: dict[str, Any],
    summary: DisclosureSummary,
    policy: dict[str, float],
    control: DisclosureSummary | None,
    swept: KeySweep | None,
    protected: SdcResult | None,
    num: Numbers,
) -> None:
    """The sections of numbers, shaped from the results (nothing is read here), each number
    as the report shows it (``num``: exact, or through external mode's output check)."""
    content["summary"] = sections.summary_section(summary, policy, num)
    content["targets"] = {t: sections.target_section(r, num) for t, r in summary.results.items()}
    idents = [t["ident"] for t in content["targets"].values()]
    content["identity_shared"] = idents[0] if all(i == idents[0] for i in idents) else None
    content["cap"] = sections.cap_section(summary, control, num)
    content["cap_risks"] = [{"measure": k, "is": v} for k, v in CAP_RISKS.items()]
    content["certainty"] = sections.certainty_section(summary, num)
    content["sweep"] = None if swept is None else sections.sweep_section(swept, num)
    content["sdc"] = None if protected is None else sections.sdc_section(protected, num, policy)
    content["definitions"] = [{"measure": m, "formula": f, "source": s} for m, f, s in DEFINITIONS]


def _rows_table(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Plain rows (content) as the table macro takes them."""
    if not rows:
        return {"columns": [], "numeric": [], "rows": []}
    return table_rows(pa.Table.from_pylist(rows))


def _protect(
    inputs: Inputs, summary: DisclosureSummary, args: dict[str, Any], options: dict[str, Any]
) -> SdcResult:
    """sdc() on the report's inputs, measured before and after as the report's summary is
    (the same targets and options: the summary is its "before"). The report shows no
    protected record: unless they are written somewhere, none is fetched (a dry run, measured
    on the engine's work tables)."""
    if args.get("out") is None and args.get("out_table") is None:
        args = {**args, "dry_run": True}
    if "measure" in args:
        return sdc_on(inputs, args)
    measure = {"keys": list(summary.keys), "targets": list(summary.results), **options}
    return sdc_on(inputs, {**args, "measure": measure}, before=summary)


def _numbers(external: bool, rules: tuple[int, int], sizes: list[int], m: int) -> Numbers:
    """How the report shows numbers: exact, or (external) through the output check, whose
    denominators are the records of the original and of the ``m`` syntheses (``sizes``, then
    the control's, which counts for the smallest data set)."""
    if not external:
        return Exact()
    return OutputCheck(*rules, sizes[0], tuple(sizes[1 : m + 1]), min(sizes))


def _plots(content: dict[str, Any], swept: KeySweep | None, num: Numbers) -> dict[str, Any]:
    """The report's charts, drawn from the numbers its tables show (highest risk first; an
    external report's sweep chart from the checked means, without the per-key detail)."""
    rows = [
        {
            "target": r["target"],
            "orig": _number(r["Dorig mean"]),
            "syn": _number(r["DiSCO mean"]),
            "worst": _number(r["DiSCO worst"]),
            "checks": [
                name
                for name, on in (
                    ("1way", content["targets"][r["target"]]["check_1way"]),
                    ("2way", content["targets"][r["target"]]["check_2way_fired"]),
                )
                if on
            ],
        }
        for r in content["summary"]["per_target"]
    ]
    plots: dict[str, Any] = {"summary": summary_chart(rows, "DiSCO", "Dorig"), "sweep": None}
    certainty = content["certainty"]
    plots["certainty"] = certainty_chart(certainty["curves"], certainty["tau"], num.external)
    if swept is not None:
        means = {k: num.measure("DiSCO", v) for k, v in swept.means("DiSCO").items()}
        plots["sweep"] = sweep_chart(
            {k: _number(v) for k, v in means.items()},
            [] if num.external else swept.contribution.to_pylist(),
            swept.keys,
            swept.targets,
            "DiSCO",
        )
    return plots


def _number(value: Any) -> float:
    """A value a chart can place: a number, else NaN (withheld by the output check)."""
    return float(value) if isinstance(value, int | float) else math.nan
