"""Which synthetic records ``sdc()`` removes, decided in the engine as tables of (synthesis,
row): first the uniques (synthpop's rm.replicated.uniques / rm.uniques.in.orig), then, beyond
synthpop, the records in the DiSCO cells of each ``rm_disclosive`` target, in the order given.
Each step reads the records the steps before it kept, so the steps' records are disjoint and
a step's DiSCO cells are those of the data it leaves behind."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa

from .engines.base import Engine
from .errors import InputError, did_you_mean
from .inputs import Inputs
from .plan import as_text, plan
from .spec import DisclosureSpec, build_spec
from .stages import disclosive_records
from .templates import render
from .uniques import count_uniques

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
    """One removal step: why, and the engine table of the records it removes."""

    reason: str
    table: str
    only_replicated: bool = False  # the uniques' table: remove only its replicated uniques


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
            specs.append(build_spec(entry_keys, target, **options))
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
) -> list[Step]:
    """Run the removal steps on ``recoded`` (the original and the recoded syntheses, whose
    relations carry ``__disco_pos``); returns the steps, whose tables the caller drops.
    ``kept(synthesis, steps)``: the relation of that synthesis's records the steps kept."""
    engine = recoded.engine
    steps: list[Step] = []
    try:
        if uniques is not None:
            sources = recoded.data_sets()
            text = {k: as_text(recoded, k) for k in names}  # types differ after recoding
            count_uniques(engine, sources, sources, recoded.params(), names, text,
                          flags_table=UNIQUES)  # fmt: skip
            steps.append(Step(REASONS[uniques], UNIQUES, uniques == "replicated"))
        for i, spec in enumerate(disclosive):
            remaining = recoded
            if steps:
                syntheses = [
                    replace(reg, sql=f"({kept(j, steps)})")
                    for j, reg in enumerate(recoded.sources[1:], start=1)
                ]
                remaining = Inputs(engine, [recoded.sources[0], *syntheses])
            p = plan(remaining, spec)
            table = f"__disco_removed_d{i}"
            steps.append(Step(reason_of(spec), table))
            disclosive_records(p, remaining.data_sets()[1:], table)
    except BaseException:
        drop(engine, steps)
        raise
    return steps


def drop(engine: Engine, steps: list[Step]) -> None:
    for step in steps:
        engine.drop_table(step.table)


def counts(engine: Engine, steps: list[Step]) -> dict[tuple[int, int], int]:
    """{(synthesis, step index): records removed}."""
    if not steps:
        return {}
    sql = render("sdc/removed.sql.j2", engine.dialect, removed=steps)
    rows = engine.query(sql, {}, "sdc/removed").to_pylist()
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
