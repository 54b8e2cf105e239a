"""synthpop's ``sdc()``: a safer synthetic data set, made in SQL. Bottom/top coding of numeric
variables first, then removal of the synthetic records unique in their synthesis and in the
original (replicated uniques) or present in it (uniques in original), in synthpop's order; the
records are matched by value (:mod:`.uniques`)."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, ClassVar

import pyarrow as pa

from ..core.inputs import Inputs, check_columns, named_columns, open_inputs, with_syntheses
from ..core.options import Options, option
from ..core.output import Destination, destination
from ..core.results import AsData, json_rows
from ..core.spec import DisclosureSpec, column_names
from ..engines.base import WORK_PREFIX, Source, Work, conform
from ..engines.duckdb import file_reader
from ..errors import DiscoSQLWarning, EngineError, InputError
from ..measure.summary import DisclosureSummary, summary_on
from ..sql.templates import render
from . import removal
from .recoding import Recode, parse_recodes, recode_inputs
from .uniques import SYNTHPOP_DEFAULT, check_synthpop

RECODED_SCHEMA = pa.schema(
    [
        ("synthesis", pa.int32()),
        ("variable", pa.string()),
        ("bottom_coded", pa.int64()),
        ("top_coded", pa.int64()),
    ]
)
REMOVED_SCHEMA = pa.schema(
    [
        ("synthesis", pa.int32()),
        ("reason", pa.string()),
        ("rows", pa.int64()),
        ("pct", pa.float64()),
    ]
)


@dataclass(frozen=True)
class SdcResult(AsData):
    """The protected syntheses and what was done to them.

    ``synthetic``: one Arrow table per synthesis, rows in input order (empty when written to
    files: ``out`` then lists them); ``removed``: synthesis, reason, rows (records removed by
    that step: the uniques, then each ``rm_disclosive`` entry; the steps are disjoint, so the
    rows add up to the records lost), pct (rows / the synthesis's records * 100);
    ``recoded``: synthesis, variable, bottom_coded, top_coded. ``before``/``after``: the
    ``disclosure_summary`` of ``measure=`` on the syntheses as given and as protected.
    ``synthpop``: the release asked for (:func:`sdc`), which changes none of these.
    """

    synthetic: list[pa.Table]
    removed: pa.Table
    recoded: pa.Table
    keys: tuple[str, ...]
    out: tuple[str, ...] = ()
    before: DisclosureSummary | None = None
    after: DisclosureSummary | None = None
    synthpop: str = SYNTHPOP_DEFAULT

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        tables = [("records removed", self.removed), ("values recoded", self.recoded)]
        if self.before is not None and self.after is not None:
            tables += [("before", self.before.table), ("after", self.after.table)]
        notes = [f"written: {', '.join(self.out)}"] if self.out else []
        notes.append(removal_note(self.synthpop))
        return f"sdc(): keys {', '.join(self.keys)}", [t for t in tables if t[1].num_rows], notes

    def to_dict(self) -> dict[str, Any]:
        """keys, synthpop, removed and recoded as plain data (the syntheses themselves are
        not)."""
        return {
            "keys": list(self.keys),
            "synthpop": self.synthpop,
            "removed": json_rows(self.removed),
            "recoded": json_rows(self.recoded),
            "out": list(self.out),
            "before": None if self.before is None else self.before.to_dict(),
            "after": None if self.after is None else self.after.to_dict(),
        }


def removal_note(synthpop: str) -> str:
    """What the synthpop release means for sdc's numbers: nothing (1.9-3 changed only the
    denominators replicated.uniques() prints, which sdc() does not print)."""
    return (
        f"synthpop {synthpop}: the records removed are the same in 1.9-2 and 1.9-3 (1.9-3 "
        "changed only replicated.uniques()' denominators); the % removed is of each "
        "synthesis's records in both"
    )


@dataclass(frozen=True)
class Protection:
    """What ``sdc()`` is asked to do, checked: the keys (None: every column of the
    synthesis), the recodes, which uniques to remove (None, "replicated" or "in_original"),
    the rm_disclosive entries, the renaming (label, prefix, suffix), and the synthpop release
    asked for (recorded with the result)."""

    keys: tuple[str, ...] | None
    recodes: tuple[Recode, ...]
    uniques: str | None
    disclosive: tuple[DisclosureSpec, ...]
    rename: tuple[str | None, str, str]
    both_flags: bool = False
    synthpop: str = SYNTHPOP_DEFAULT

    def warn(self) -> None:
        if self.both_flags:  # synthpop says so too
            warnings.warn(
                "rm_uniques_in_orig and rm_replicated_uniques: only the uniques in the "
                "original are removed (they include the replicated uniques)",
                DiscoSQLWarning,
                stacklevel=3,
            )

    def names(self, inputs: Inputs) -> list[str]:
        """The keys, checked against the registered data with the recode variables."""
        names = list(self.keys) if self.keys is not None else list(inputs.sources[1].columns)
        _check_columns(inputs, names, list(self.recodes))
        return names


@dataclass(frozen=True)
class SdcOptions(Options):
    """:func:`sdc`'s protection options as given; :meth:`protection` checks them."""

    FAMILY: ClassVar[str] = "sdc"

    keys: Any = None
    rm_replicated_uniques: Any = option(
        False,
        "(rm.replicated.uniques) remove records unique in the synthesis and in the original",
        kind="bool",
    )
    rm_uniques_in_orig: Any = option(
        False,
        "(rm.uniques.in.orig) remove records unique in the synthesis and present in the original",
        kind="bool",
    )
    recode_vars: Any = None
    bottom_top_coding: Any = None
    recode_exclude: Any = None
    label: Any = option(None, "(label) add a first column flag = LABEL")
    prefix: Any = option(None, "(prefix) before every column name")
    suffix: Any = option(None, "(suffix) after every column name")
    rm_disclosive: Any = None
    synthpop: Any = SYNTHPOP_DEFAULT

    def protection(self, problems: list[str]) -> Protection:
        """The options checked, before any data is read; each problem is added to
        ``problems``."""
        keys = self.keys
        names = None if keys is None else column_names("keys", keys, problems)
        release = check_synthpop(self.synthpop, problems)
        recodes = parse_recodes(
            self.recode_vars, self.bottom_top_coding, self.recode_exclude, problems
        )
        disclosive = removal.disclosive_specs(self.rm_disclosive, names, problems)
        label, prefix, suffix = self.label, self.prefix, self.suffix
        for arg, value in (("label", label), ("prefix", prefix), ("suffix", suffix)):
            if value is not None and not isinstance(value, str):
                problems.append(f"{arg}: expected a string, got {value!r}")
        replicated, in_orig = self.rm_replicated_uniques, self.rm_uniques_in_orig
        for arg, flag in (("rm_replicated_uniques", replicated), ("rm_uniques_in_orig", in_orig)):
            if not isinstance(flag, bool):
                problems.append(f"{arg}: expected True or False, got {flag!r}")
        uniques = "in_original" if in_orig else ("replicated" if replicated else None)
        return Protection(
            keys=None if names is None else tuple(names),
            recodes=tuple(recodes),
            uniques=uniques,
            disclosive=tuple(disclosive),
            rename=(label, prefix or "", suffix or ""),
            both_flags=bool(in_orig and replicated),
            synthpop=release,
        )


def sdc(
    original: Any,
    synthetic: Any,
    keys: str | Sequence[str] | None = None,
    *,
    rm_replicated_uniques: bool = False,
    rm_uniques_in_orig: bool = False,
    recode_vars: str | Sequence[str] | None = None,
    bottom_top_coding: Any = None,
    recode_exclude: Any = None,
    label: str | None = None,
    prefix: str | None = None,
    suffix: str | None = None,
    rm_disclosive: dict[str, Any] | Sequence[dict[str, Any]] | None = None,
    out: str | os.PathLike[str] | None = None,
    out_table: str | None = None,
    overwrite: bool = False,
    measure: dict[str, Any] | None = None,
    dry_run: bool = False,
    synthpop: str = SYNTHPOP_DEFAULT,
    engine: Any = None,
    threads: int | None = None,
) -> SdcResult:
    """synthpop's ``sdc()``: recode, then remove uniques, then rename/label.

    Args:
        keys: the columns records are matched on (default: every column of the synthesis).
        rm_replicated_uniques: remove synthetic records unique in their synthesis and in the
            original; rm_uniques_in_orig: remove those unique in the synthesis and present in
            the original (these include the replicated uniques; with both, only this applies).
        recode_vars, bottom_top_coding, recode_exclude: numeric variables to bottom/top code:
            one ``(bottom, top)`` pair (None for no code) or a list of pairs aligned with
            ``recode_vars``; codes in ``recode_exclude`` (one list, or one per variable) and NA
            never change. A value < bottom becomes bottom, one > top becomes top.
        label: add a first column ``flag`` with this value; prefix, suffix: rename every column.
        rm_disclosive: beyond synthpop, ``{"target": t, "keys": [...]}`` (keys default to
            ``keys``; any disclosure() option may be added) or a list of them: remove the
            synthetic records in the DiSCO cells of t (key cell q disclosive in the synthesis,
            ps_tq = 1, with original records in (q, t) after disclosure()'s exclusions), after
            the uniques, each entry on the records the earlier steps kept.
        out: write the protected syntheses to files instead of returning them (streamed by
            the engine, never held in Python): a directory (``synthetic_<j>.parquet`` in it) or
            a path ending in .parquet or .csv, with ``{synthesis}`` in it when m > 1. Existing
            files are refused unless ``overwrite=True``.
        measure: ``disclosure_summary`` options (``keys`` defaults to ``keys``): the summary of
            the syntheses before and after protection (``res.before``, ``res.after``).
        dry_run: count what would be removed and recoded (``res.removed``, ``res.recoded``)
            and write nothing: no files or tables, no synthesis returned (``out`` and
            ``out_table`` are still checked).
        synthpop: "1.9-2" (default, the release on CRAN) or "1.9-3", recorded with the result
            (``res.synthpop``) for the report to state. It changes nothing here: synthpop's
            sdc() is the same in both (1.9-3 changed only the denominators that
            replicated.uniques() prints, see :func:`replicated_uniques`), and ``removed.pct``
            is of the synthesis's records in both.
    """
    options = SdcOptions(
        keys,
        rm_replicated_uniques,
        rm_uniques_in_orig,
        recode_vars,
        bottom_top_coding,
        recode_exclude,
        label,
        prefix,
        suffix,
        rm_disclosive,
        synthpop,
    )
    n_syn = len(synthetic) if isinstance(synthetic, list | tuple) else 1
    output = Output(out, out_table, overwrite, measure, dry_run)
    prot, dest = _planned(options, n_syn, output)
    prot.warn()
    check = partial(dest.check_tables, overwrite=overwrite)
    roles = dict.fromkeys(prot.keys or [], "key") | {r.name: "recode_vars" for r in prot.recodes}
    named = named_columns(roles)
    with open_inputs(engine, threads, original, synthetic, prepare=check, check=named) as inputs:
        return _run(inputs, prot, dest, measure)


@dataclass(frozen=True)
class Output:
    """What :func:`sdc` is asked to make of the protected syntheses: where they go
    (``out``, ``out_table``, ``overwrite``), the summary before and after (``measure``: its
    options), or only the counts (``dry_run``)."""

    out: Any = None
    out_table: Any = None
    overwrite: Any = False
    measure: Any = None
    dry_run: Any = False


OUTPUT = ("out", "out_table", "overwrite", "measure", "dry_run")


def sdc_on(
    inputs: Inputs,
    args: dict[str, Any],
    before: DisclosureSummary | None = None,
) -> SdcResult:
    """:func:`sdc` (``args``: its arguments but the data, engine and threads) on inputs already
    registered; ``before``: the summary of the unprotected syntheses when the caller has it
    with the options of ``args["measure"]`` (the report's)."""
    output = _output(args)
    prot, dest = _planned(SdcOptions.of(args, others=OUTPUT), inputs.m, output)
    prot.warn()
    dest.check_tables(inputs.engine, bool(output.overwrite))
    return _run(inputs, prot, dest, output.measure, before)


def check_sdc(n_syn: int, args: dict[str, Any]) -> None:
    """sdc()'s arguments (but the data, engine and threads) checked, for ``n_syn`` syntheses."""
    _planned(SdcOptions.of(args, others=OUTPUT), n_syn, _output(args))


def _output(args: dict[str, Any]) -> Output:
    return Output(**{n: args[n] for n in OUTPUT if n in args})


def _planned(options: SdcOptions, n_syn: int, output: Output) -> tuple[Protection, Destination]:
    """Every argument of sdc() checked before any data is read (one InputError for all)."""
    problems: list[str] = []
    prot = options.protection(problems)
    dest = destination(output.out, output.out_table, n_syn, output.overwrite, problems)
    measure, dry_run = output.measure, output.dry_run
    if measure is not None and not isinstance(measure, dict):
        problems.append(f"measure: expected a dict of disclosure_summary options, got {measure!r}")
    elif measure is not None and dest.written and (options.prefix or options.suffix):
        problems.append(
            "measure: renamed files or tables (prefix/suffix) cannot be measured; drop out="
        )
    if not isinstance(dry_run, bool):
        problems.append(f"dry_run: expected True or False, got {dry_run!r}")
    if problems:
        raise InputError(problems)
    if dry_run:  # the outputs were checked; nothing goes there
        dest = Destination(preview=True)
    return prot, dest


def _run(
    inputs: Inputs,
    prot: Protection,
    dest: Destination,
    measure: dict[str, Any] | None,
    before: DisclosureSummary | None = None,
) -> SdcResult:
    names = prot.names(inputs)
    # measured where the data are: what is not written somewhere the engine reads back (kept
    # in memory, or a dry run) is kept as a work table of the engine until measured
    keep = measure is not None and not dest.written
    with inputs.engine.work() as work, dest.staged() as writing:  # every file complete, or none
        tables, removed, recoded, after = _protect(
            inputs, names, prot, writing, keep=work if keep else None
        )
        result = SdcResult(
            tables, removed, recoded, tuple(names), dest.written, synthpop=prot.synthpop
        )
        if measure is None:
            return result
        protected = after if keep else writing.read_back()  # staged files: in place at the end
        return _measure(inputs, result, protected, measure, before)


def _measure(
    inputs: Inputs,
    res: SdcResult,
    protected: list[Any],
    measure: dict[str, Any],
    before: DisclosureSummary | None,
) -> SdcResult:
    """The disclosure_summary of ``measure`` before and after (the protected data as work
    tables of the engine, or as written to files or tables), on the engine and original the
    protection read."""
    options = dict(measure)
    keys = options.pop("keys", list(res.keys))
    targets = options.pop("targets", None)
    if before is None:
        before = summary_on(inputs, keys, targets, options)
    targets = list(before.results) if targets is None else targets  # the label is no target
    after = summary_on(with_syntheses(inputs, protected), keys, targets, options)
    return replace(res, before=before, after=after)


def _check_columns(inputs: Inputs, names: list[str], recodes: list[Recode]) -> None:
    roles = dict.fromkeys(names, "key") | {r.name: "recode variable" for r in recodes}

    def recoded(kinds: dict[str, str]) -> list[str]:
        return [
            f"recode_vars: {r.name!r} is not numeric ({kinds[r.name]})"
            for r in recodes
            if r.name in kinds and kinds[r.name] not in ("integer", "float", "null")
        ]

    check_columns(inputs.sources, roles, more=recoded)


def decide(inputs: Inputs, names: list[str], prot: Protection) -> list[removal.Step]:
    """The removal steps' decisions (each rm_disclosive step's plan, every step's q packing),
    made by running the steps on ``inputs``; their tables are dropped (an export replays the
    steps with these decisions, :mod:`.sdc_export`)."""
    recoded_inputs, columns, _ = recode_inputs(inputs, prot.recodes, positions=False)
    kept = _kept(recoded_inputs, columns, prot.rename, ordered=False)
    steps = removal.remove(recoded_inputs, names, prot.uniques, list(prot.disclosive), kept)
    removal.drop(inputs.engine, steps)
    return steps


def _kept(
    recoded: Inputs, columns: list[list[str]], rename: tuple[str | None, str, str], ordered: bool
) -> Callable[..., str]:
    """``kept(j, steps, final=False)``: the sdc/kept relation of synthesis j after ``steps``
    (final: renamed, labelled and, when ``ordered``, in input order)."""
    engine = recoded.engine
    label, prefix, suffix = rename
    relations = [reg.sql for reg in recoded.sources[1:]]
    data_sets = recoded.data_sets()[1:]

    def kept(j: int, steps: list[removal.Step], final: bool = False) -> str:
        out = [{"name": c, "out": f"{prefix}{c}{suffix}" if final else c} for c in columns[j - 1]]
        return render(
            "sdc/kept.sql.j2",
            engine.dialect,
            recoded=relations[j - 1],
            source=data_sets[j - 1],
            columns=out,
            synthesis=j,
            steps=[s.context() for s in steps],
            positions=False,
            order=final and ordered,
            label="sdc_label" if final and label is not None else None,
        )

    return kept


def _protect(
    inputs: Inputs,
    names: list[str],
    prot: Protection,
    dest: Destination,
    decided: list[removal.Step] | None = None,
    keep: Work | None = None,
) -> tuple[list[pa.Table], pa.Table, pa.Table, list[Source]]:
    """Recode, remove, write. In a script (``decided``: the decisions of a run on the data),
    the statements are written, and a last one stops when the records written and removed do
    not add up to the records given; the tables returned are then empty. ``keep``: each
    protected synthesis is also made a table of that work (its columns as given, no label),
    returned as a source to measure (:func:`_measure`)."""
    engine = inputs.engine
    script = engine.exporting
    # records in input order where the engine keeps one (a script's order is the engine's)
    ordered = not script and engine.record_order
    recoded_inputs, columns, counted = recode_inputs(inputs, prot.recodes, positions=ordered)
    recoded = RECODED_SCHEMA.empty_table()
    if prot.recodes:  # counted on the syntheses as given
        template = "sdc/recode_counts.sql.j2"
        params = recoded_inputs.params()
        sql = render(template, engine.dialect, sources=inputs.data_sets()[1:], columns=counted)
        counts = engine.query(sql, params, template)
        if not script:  # a script's counts are read where it runs
            recoded = conform(counts.select(RECODED_SCHEMA.names), RECODED_SCHEMA, template)
    kept = _kept(recoded_inputs, columns, prot.rename, ordered=ordered)
    steps = removal.remove(
        recoded_inputs, names, prot.uniques, list(prot.disclosive), kept, decided
    )
    label = prot.rename[0]
    params = recoded_inputs.params() | removal.params(steps)
    params |= {"sdc_label": label} if label is not None else {}
    tables = []
    n_rows = [reg.n_rows for reg in inputs.sources[1:]]
    n_kept = []
    after = []
    try:
        found = removal.counts(engine, steps)
        for j in range(1, inputs.m + 1):
            if keep is not None:
                name = f"{WORK_PREFIX}sdc_after_{j}"
                keep.create(name, kept(j, steps), params, "sdc/kept")
                like = recoded_inputs.sources[j]
                after.append(Source("work", (name, like), like.source.label))
            written = dest.write(engine, j, kept(j, steps, True), params)
            if isinstance(written, pa.Table):
                tables.append(written)
                written = written.num_rows
            n_kept.append(written)
        if script:
            _check_written(inputs, dest, steps)
    finally:
        removal.drop(engine, steps)
    if script:
        return [], REMOVED_SCHEMA.empty_table(), recoded, []
    for j in range(1, inputs.m + 1):  # the steps are disjoint: their counts add up
        lost = sum(n for (s, _), n in found.items() if s == j)
        if lost != n_rows[j - 1] - n_kept[j - 1]:
            raise EngineError(
                f"sdc: synthesis {j} kept {n_kept[j - 1]} of {n_rows[j - 1]} records, but the "
                f"removal steps list {lost}; this is a bug in discosql"
            )
    return tables, removal.removed_table(steps, found, n_rows, REMOVED_SCHEMA), recoded, after


def _check_written(inputs: Inputs, dest: Destination, steps: list[removal.Step]) -> None:
    """sdc/check_written: the script stops unless, for every synthesis, the records written
    and those its steps removed add up to the records it was given."""
    engine = inputs.engine
    params: dict[str, Any] = inputs.params()
    outputs = []
    for j, source in enumerate(inputs.data_sets()[1:], start=1):
        if dest.files:
            path = params[f"out_{j}"] = dest.files[j - 1]
            written = file_reader("csv" if path.lower().endswith(".csv") else "parquet", f"out_{j}")
        else:
            written = engine.output_table(dest.tables[j - 1], None)
        params[f"message_{j}"] = (
            f"discosql: sdc wrote a synthesis {j} whose records and the records removed do not "
            "add up to the records given; do not release it (written, removed, given: "
        )
        outputs.append(
            {"synthesis": j, "given": source.sql, "written": written, "message": f"message_{j}"}
        )
    template = "sdc/check_written.sql.j2"
    removed = [s.context() for s in steps]
    sql = render(template, engine.dialect, outputs=outputs, removed=removed)
    engine.query(sql, params, template)
