"""Which synthetic records ``sdc()`` removes, decided in the engine as tables of cells: first
the key combinations of the uniques (synthpop's rm.replicated.uniques / rm.uniques.in.orig),
then, beyond synthpop, the DiSCO cells of each ``rm_disclosive`` target, in the order given.
Each step counts the records the steps before it kept, so the steps' records are disjoint and
a step's DiSCO cells are those of the data it leaves behind. A step keeps the dictionaries its
cells are coded in: the final pass (sdc/kept) codes each record as every step did and keeps
those in no step's cells, so the synthetic data are read once after the counts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa

from ..core.inputs import Inputs
from ..core.plan import Coding, Plan, as_text, plan
from ..core.spec import DisclosureSpec, build_spec
from ..core.stages import QCELLS, count_cells, drop_flagged, flag
from ..engines.base import Engine
from ..errors import InputError, did_you_mean
from ..sql.templates import render
from .uniques import CELLS, unique_cells

UNIQUES = "__disco_removed_u"
REASONS = {"replicated": "replicated uniques", "in_original": "uniques in original"}
# disclosure() options an rm_disclosive entry may set (the checks' thresholds change no cell)
DISCLOSIVE_OPTIONS = (
    "denom_lim",
    "exclude_ov_denom_lim",
    "not_targetlev",
    "use_target_na",
    "use_keys_na",
    "exclude_keys",
    "exclude_keylevs",
    "exclude_targetlevs",
    "ngroups_target",
    "ngroups_keys",
    "cont_na",
)


@dataclass(frozen=True)
class Step:
    """One removal step: why, the engine table of the cells whose records it removes
    (synthesis, q words[, t], n), and the coding of those cells (its dictionaries and
    place value parameters, named apart from every other step's)."""

    reason: str
    table: str
    coding: Coding
    plan: Plan | None = None  # an rm_disclosive step's plan (an export replays it)

    def context(self) -> dict[str, Any]:
        """The step as sdc/kept and sdc/removed see it."""
        c = self.coding
        return {
            "table": self.table,
            "key_columns": c.keys,
            "target": c.target,
            "n_words": c.n_words,
        }


def _namespaced(coding: Coding, s: int) -> Coding:
    """The coding with its parameters renamed for step ``s`` (each step packs its own keys)."""
    rename = {name: f"s{s}_{name}" for name in coding.params}
    keys = tuple(
        replace(k, place=rename.get(k.place or ""), radix=rename.get(k.radix or ""))
        for k in coding.keys
    )
    params = {rename[name]: v for name, v in coding.params.items()}
    return replace(coding, keys=keys, params=params)


def params(steps: Sequence[Step]) -> dict[str, Any]:
    """The parameters that coding records as the steps did needs."""
    out: dict[str, Any] = {}
    for step in steps:
        out.update(step.coding.params)
    return out


def disclosive_specs(
    value: Any, keys: list[str] | None, problems: list[str]
) -> list[DisclosureSpec]:
    """``rm_disclosive``: a dict {"target", "keys", disclosure() options} or a list of them;
    keys default to sdc's ``keys`` when those were given."""
    if value is None:
        return []
    entries = [value] if isinstance(value, dict) else value
    if not isinstance(entries, Sequence) or isinstance(entries, str) or not entries:
        problems.append(
            'rm_disclosive: expected {"target": ..., "keys": [...]} or a list of them, '
            f"got {value!r}"
        )
        return []
    specs = []
    for i, entry in enumerate(entries):
        where = f"rm_disclosive[{i}]" if not isinstance(value, dict) else "rm_disclosive"
        if not isinstance(entry, dict):
            problems.append(f'{where}: expected {{"target": ..., "keys": [...]}}, got {entry!r}')
            continue
        options = dict(entry)
        target = options.pop("target", None)
        entry_keys = options.pop("keys", keys)
        unknown = [k for k in options if k not in DISCLOSIVE_OPTIONS]
        for k in unknown:
            problems.append(
                f"{where}: unknown option {k!r}{did_you_mean(str(k), DISCLOSIVE_OPTIONS)}; "
                f"allowed: target, keys, {', '.join(DISCLOSIVE_OPTIONS)}"
            )
        if target is None:
            problems.append(f"{where}: give the target whose DiSCO cells are removed")
        if entry_keys is None:
            problems.append(f"{where}: give its keys (sdc's keys= was not given)")
        if unknown or target is None or entry_keys is None:
            continue
        try:
            specs.append(build_spec(entry_keys, target, options))
        except InputError as e:
            problems.extend(f"{where}: {p}" for p in e.problems)
    return specs


def reason_of(spec: DisclosureSpec) -> str:
    keys = ", ".join(repr(k) for k in spec.keys)
    return f"DiSCO cells of {spec.target!r} (keys {keys})"


def remove(
    recoded: Inputs,
    names: list[str],
    uniques: str | None,
    disclosive: list[DisclosureSpec],
    kept: Callable[[int, list[Step]], str],
    decided: Sequence[Step] | None = None,
) -> list[Step]:
    """Run the removal steps on ``recoded`` (the original and the recoded syntheses); returns
    the steps, whose tables the caller drops (:func:`drop`). ``kept(synthesis, steps)``: the
    relation of that synthesis's records the steps kept. ``decided``: the steps of a run on
    the same data elsewhere, whose decisions (plans, q packing) this run takes instead of
    reading the data (an exported script, which checks them where it runs)."""
    engine = recoded.engine
    steps: list[Step] = []
    try:
        if uniques is not None:
            sources = recoded.data_sets()
            text = {k: as_text(recoded, k) for k in names}  # types differ after recoding
            radices = list(decided[0].coding.radices) if decided else None
            with engine.work() as work:
                coding = unique_cells(
                    work, sources, recoded.params(), names, text, "__disco_s0_", radices
                )
                template = "sdc/unique_cells.sql.j2"
                sql = render(
                    template,
                    engine.dialect,
                    cells=CELLS,
                    n_words=coding.n_words,
                    replicated=uniques == "replicated",
                )
                engine.create_table(UNIQUES, sql, {}, template)
                work.drop(CELLS)
                for name in coding.tables:  # the step keeps them: drop() drops them
                    work.release(name)
            steps.append(Step(REASONS[uniques], UNIQUES, _namespaced(coding, 0)))
        for i, spec in enumerate(disclosive):
            remaining = recoded
            if steps:
                syntheses = [
                    replace(reg, sql=f"({kept(j, steps)})", params={**reg.params, **params(steps)})
                    for j, reg in enumerate(recoded.sources[1:], start=1)
                ]
                remaining = Inputs(engine, [recoded.sources[0], *syntheses])
            s = len(steps)
            p = _replanned(decided[s], remaining) if engine.exporting and decided else None
            p = p or plan(remaining, spec)
            table = f"__disco_removed_d{i}"
            coding = disclosive_cells(p, table, f"__disco_s{s}_")
            steps.append(Step(reason_of(spec), table, _namespaced(coding, s), p))
    except BaseException:
        drop(engine, steps)
        raise
    return steps


def _replanned(step: Step, inputs: Inputs) -> Plan:
    """The plan of a decided step, on ``inputs`` (the same data read elsewhere), with its
    q packing fixed (checked where it runs, stage 015)."""
    p = step.plan
    if p is None:
        raise TypeError("a decided rm_disclosive step has its plan")
    own = {k: v for k, v in p.params.items() if k not in p.inputs.params()}
    return replace(
        p, inputs=inputs, params=own | inputs.params(), radices=list(step.coding.radices)
    )


def drop(engine: Engine, steps: list[Step]) -> None:
    for step in steps:
        for name in (step.table, *step.coding.tables):
            engine.drop_table(name)


def counts(engine: Engine, steps: list[Step]) -> dict[tuple[int, int], int]:
    """{(synthesis, step index): records removed}."""
    if not steps:
        return {}
    reasons = {f"reason_{i}": s.reason for i, s in enumerate(steps)}
    sql = render(
        "sdc/removed.sql.j2",
        engine.dialect,
        removed=[s.context() for s in steps],
        reasons=list(reasons),
    )
    rows = engine.query(sql, reasons, "sdc/removed", small=True).to_pylist()
    return {(int(r["synthesis"]), int(r["step"])): int(r["n"]) for r in rows}


def removed_table(
    steps: list[Step], found: dict[tuple[int, int], int], n_rows: list[int], schema: pa.Schema
) -> pa.Table:
    """synthesis, reason, rows, pct (of the synthesis's records): a row per synthesis and step,
    or per synthesis with reason "none" when nothing was to be removed."""
    rows: list[dict[str, Any]] = []
    for j, n in enumerate(n_rows, start=1):
        for i, step in enumerate(steps or [None]):
            k = found.get((j, i), 0)
            reason = step.reason if step is not None else "none"
            pct = 100.0 * k / n if n else float("nan")
            rows.append({"synthesis": j, "reason": reason, "rows": k, "pct": pct})
    return pa.Table.from_pylist(rows, schema=schema)


def disclosive_cells(p: Plan, table: str, prefix: str) -> Coding:
    """The DiSCO cells of a planned target (stage 045: disclosive in the synthesis, ps_tq = 1,
    with original records left after the exclusions, d'_tq > 0), as ``table``: synthesis,
    q words, t, n (the synthetic records in the cell). Returns the coding they are in; its
    dictionaries (named from ``prefix``) are kept for the caller to code records with, and
    to drop."""
    engine = p.inputs.engine
    kept: list[str] = []
    try:
        for q, cells, records_ctx in count_cells([p], prefix=prefix, keep=kept, read_once=True):
            try:
                flag_params, _ = flag(q, cells)
                template = "sdc/disclosive.sql.j2"
                sql = render(template, engine.dialect, qcols=cells.qcols, qcells=QCELLS)
                engine.create_table(table, sql, flag_params, template)
            finally:
                drop_flagged(engine)
            coding = {k: v for k, v in q.params.items() if k.startswith(("kmul_", "krad_"))}
            keys, target = records_ctx["keys"], records_ctx["targets"][0]
    except BaseException:
        for name in kept:
            engine.drop_table(name)
        raise
    radices = tuple(records_ctx["radices"])
    return Coding(keys, records_ctx["n_words"], coding, tuple(kept), target, radices)
