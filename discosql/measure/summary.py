"""disclosure_summary(): synthpop's multi.disclosure(), every target in one call.

The inputs are registered (and files read) once; the grouping of each numeric column is decided
once; the targets then run the stages of :func:`discosql.disclosure` on the same engine, one at
a time or, where the data are small, in batches measured together (:mod:`discosql.stacked`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import pyarrow as pa

from ..core.inputs import Inputs, named_columns, open_inputs
from ..core.options import Options
from ..core.plan import plan
from ..core.results import ATTRIB_MEASURES, IDENT_MEASURES, AsData, DisclosureResult, json_rows
from ..core.spec import SHARED, DisclosureOptions, DisclosureSpec, build_spec
from ..core.stacked import execute_stacked
from ..errors import InputError, did_you_mean

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SUMMARY_SCHEMA = pa.schema(
    [
        ("target", pa.string()),
        ("attrib_orig", pa.float64()),
        ("attrib_syn", pa.float64()),
        ("check1", pa.string()),
        ("npairs", pa.int64()),
        ("check2", pa.string()),
        ("ident_orig", pa.float64()),
        ("ident_syn", pa.float64()),
    ]
)


@dataclass(frozen=True)
class DisclosureSummary(AsData):
    """One row per target, lowest attribute risk first, and each target's full result.

    ``table`` columns: target, attrib_orig (mean of Dorig, or CAPd for DCAP/TCAP), attrib_syn
    (mean of ``attrib_meas`` over the syntheses), check1, npairs (the pairs check_2way flags in
    the synthesis with most), check2, ident_orig (UiO), ident_syn (mean of ``ident_meas`` over
    the syntheses).
    """

    table: pa.Table
    results: dict[str, DisclosureResult]
    keys: tuple[str, ...]
    ident_meas: str
    attrib_meas: str

    @property
    def m(self) -> int:
        return next(iter(self.results.values())).m if self.results else 0

    def to_dict(self) -> dict[str, Any]:
        """The summary as plain data: keys, the measures ranked, ``table`` (rows as the CLI's
        ``summary --format json`` writes them) and each target's ``DisclosureResult.to_dict()``.
        """
        return {
            "keys": list(self.keys),
            "ident_meas": self.ident_meas,
            "attrib_meas": self.attrib_meas,
            "table": json_rows(self.table),
            "results": {t: r.to_dict() for t, r in self.results.items()},
        }

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        title = f"disclosure_summary(): keys {', '.join(self.keys)}, m = {self.m}"
        return title, [("lowest attribute risk first", self.table)], []

    def plot(self) -> Figure:
        """synthpop's comparison plot: original and synthetic measure per target, x 0 to 100."""
        from ..core.charts import SummaryChart
        from ..core.plot import plot_summary

        return plot_summary(SummaryChart.of_summary(self.table.to_pylist(), self.attrib_meas))

    def __str__(self) -> str:
        rows = self.table.to_pylist()
        first = rows[0] if rows else {}
        lines = [
            f"Disclosure summary: {len(rows)} targets, keys {', '.join(self.keys)}, m = {self.m}"
            + (" (results averaged over the syntheses)" if self.m > 1 else ""),
            f"Identity: UiO {first.get('ident_orig', math.nan):.2f} in the original, "
            f"{self.ident_meas} for the synthetic data per target below.",
            "",
        ]
        width = max([len("target"), *(len(r["target"]) for r in rows)])
        orig_name = ATTRIB_MEASURES[self.attrib_meas]
        lines.append(
            f"{'target':<{width}}  {orig_name:>8}  {self.attrib_meas:>8}  "
            f"{self.ident_meas:>6}  checks"
        )
        for r in rows:
            checks = "; ".join(x for x in (r["check1"], r["check2"]) if x)
            lines.append(
                f"{r['target']:<{width}}  {r['attrib_orig']:>8.2f}  {r['attrib_syn']:>8.2f}  "
                f"{r['ident_syn']:>6.2f}  {checks}"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<DisclosureSummary targets={list(self.results)!r}>\n{self}"


def _per_target(
    value: Any, targets: Sequence[str], name: str, default: Any, problems: list[str]
) -> dict[str, Any] | None:
    """A per-target option: a dict {target: value}, a list aligned with targets, or None."""
    if value is None:
        return {t: default for t in targets}
    if isinstance(value, Mapping):
        unknown = [t for t in value if t not in targets]
        if unknown:
            problems.append(f"{name}: {unknown!r} are not among the targets {list(targets)!r}")
        return {t: value.get(t, default) for t in targets}
    if isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != len(targets):
            problems.append(
                f"{name}: a list must have one entry per target ({len(targets)}: "
                f"{list(targets)!r}), got {len(value)}; or give a dict {{target: value}}"
            )
            return None
        return dict(zip(targets, value, strict=True))
    return None  # a scalar: the caller decides whether that is allowed


def default_targets(
    inputs: Inputs, keys: Sequence[str], leave_out: Sequence[str] = ()
) -> list[str]:
    """The targets when none are named: the columns of the first synthesis that the original
    and every synthesis have, but the keys (and ``leave_out``). A column on one side only (a
    label such as sdc()'s ``flag``, an id) is no target; the report lists it in section 2."""
    shared = set.intersection(*(set(reg.columns) for reg in inputs.sources))
    skip = set(keys) | set(leave_out)
    return [c for c in inputs.sources[1].columns if c in shared and c not in skip]


@dataclass(frozen=True)
class SummaryOptions(Options):
    """:func:`disclosure_summary`'s options but the keys and targets, as given: its own
    measures, the per-target ones, and the options every target shares (as
    :class:`~discosql.core.spec.DisclosureOptions`); checked by :func:`check_arguments` and
    :func:`target_specs`."""

    FAMILY: ClassVar[str] = "disclosure_summary"

    ident_meas: Any = "repU"
    attrib_meas: Any = "DiSCO"
    not_targetlevs: Any = None
    use_targets_na: Any = True
    ngroups_targets: Any = None
    exclude: Any = None
    denom_lim: Any = 5
    exclude_ov_denom_lim: Any = False
    use_keys_na: Any = True
    ngroups_keys: Any = None
    cont_na: Any = None
    thresh_1way: Any = (50, 90)
    thresh_2way: Any = (4, 80)
    tau: Any = None

    def shared(self) -> dict[str, Any]:
        """The options every target's disclosure() takes alike, by name."""
        return {name: getattr(self, name) for name in SHARED}


def target_specs(
    inputs: Inputs,
    keys: Any,
    targets: Sequence[str] | None,
    options: SummaryOptions | Mapping[str, Any] | None = None,
) -> list[DisclosureSpec]:
    """The checked disclosure() spec of each target (None: every synthetic column that is not a
    key), from disclosure_summary's per-target options; one InputError lists every problem."""
    problems: list[str] = []
    if targets is None:
        targets = default_targets(inputs, keys if isinstance(keys, Sequence) else ())
    targets = list(targets)
    if not targets:
        raise InputError(
            "targets: no target columns (every column that the original and the syntheses "
            "share is a key)"
        )
    in_keys = [t for t in targets if t in keys]
    if in_keys:
        problems.append(f"targets: {in_keys!r} are also keys; no target can be a key")
    dups = sorted({t for t in targets if targets.count(t) > 1})
    if dups:
        problems.append(f"targets: duplicated target(s) {dups!r}")

    if not isinstance(options, SummaryOptions):
        options = SummaryOptions.of(options or {})
    not_targetlevs, use_targets_na = options.not_targetlevs, options.use_targets_na
    ngroups_targets, exclude = options.ngroups_targets, options.exclude
    ntl = _per_target(not_targetlevs, targets, "not_targetlevs", None, problems)
    if ntl is None and not any(p.startswith("not_targetlevs") for p in problems):
        problems.append(
            "not_targetlevs: give a dict {target: level(s)} or a list with one entry per "
            f"target ({len(targets)}), got {not_targetlevs!r}"
        )
    use_na = _per_target(use_targets_na, targets, "use_targets_na", True, problems)
    if use_na is None and isinstance(use_targets_na, bool):
        use_na = dict.fromkeys(targets, use_targets_na)
    ngroups = _per_target(ngroups_targets, targets, "ngroups_targets", None, problems)
    if ngroups is None and not any(p.startswith("ngroups_targets") for p in problems):
        # one int: every numeric target (text targets are not grouped)
        original_kinds = inputs.sources[0].kinds
        ngroups = {
            t: ngroups_targets if original_kinds.get(t) in ("integer", "float") else None
            for t in targets
        }
    exclusions = _per_target(exclude, targets, "exclude", (), problems) if exclude else {}
    if exclude is not None and not isinstance(exclude, Mapping):
        problems.append("exclude: give a dict {target: [(key, key level, target level), ...]}")
    if problems:
        raise InputError(problems)

    specs = []
    for t in targets:
        triples = list((exclusions or {}).get(t) or ())
        try:
            specs.append(
                build_spec(
                    keys,
                    t,
                    DisclosureOptions(
                        not_targetlev=(ntl or {}).get(t),
                        use_target_na=(use_na or {}).get(t, True),
                        exclude_keys=[x[0] for x in triples] if triples else None,
                        exclude_keylevs=[x[1] for x in triples] if triples else None,
                        exclude_targetlevs=[x[2] for x in triples] if triples else None,
                        ngroups_target=(ngroups or {}).get(t),
                        **options.shared(),
                    ),
                )
            )
        except InputError as e:
            problems += [f"target {t!r}: {p}" for p in e.problems]
    if problems:
        raise InputError(problems)
    return specs


def disclosure_summary(
    original: Any,
    synthetic: Any,
    keys: Any,
    targets: Sequence[str] | None = None,
    *,
    ident_meas: str = "repU",
    attrib_meas: str = "DiSCO",
    not_targetlevs: Mapping[str, Any] | Sequence[Any] | None = None,
    use_targets_na: bool | Mapping[str, bool] | Sequence[bool] = True,
    ngroups_targets: int | Mapping[str, int] | Sequence[int] | None = None,
    exclude: Mapping[str, Sequence[tuple[str, Any, Any]]] | None = None,
    use_keys_na: bool | list[bool] = True,
    ngroups_keys: int | list[int] | None = None,
    cont_na: dict[str, Any] | None = None,
    denom_lim: int = 5,
    exclude_ov_denom_lim: bool = False,
    thresh_1way: tuple[float, float] = (50, 90),
    thresh_2way: tuple[float, float] = (4, 80),
    tau: float | Sequence[float] | None = None,
    threads: int | None = None,
    engine: Any = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> DisclosureSummary:
    """Disclosure measures for many targets with the same keys (synthpop's ``multi.disclosure``).

    Runs :func:`discosql.disclosure` for every target on inputs read once and ranks the targets
    by ``attrib_meas`` of the synthetic data (ascending, as synthpop). Fixes synthpop's bugs:
    ``ident_syn`` is the mean over syntheses (synthpop: synthesis 1 only); ``npairs`` counts the
    pairs check_2way flags in the synthesis that has most (synthpop: 0/1);
    ``attrib_meas="DiSDiO"`` reports Dorig for the original (synthpop: NA); per-target exclusions
    work; a list of syntheses works.

    Args:
        original, synthetic, keys: as :func:`discosql.disclosure`.
        targets: target columns; None means every column of the syntheses that the original
            also has and that is not a key (a column on one side only, a label, is none).
        ident_meas: "repU" or "UiOiS", averaged over the syntheses.
        attrib_meas: "DiSCO", "DiSDiO" (original: Dorig), "DCAP", "TCAP" or "TCAP_little"
            (original: CAPd).
        not_targetlevs: per target, the level(s) to drop: a dict {target: level(s)} or a list
            aligned with ``targets`` ("" or None: none).
        use_targets_na: one flag, a dict or a list aligned with ``targets``.
        ngroups_targets: one int (for every numeric target), a dict or a list.
        exclude: {target: [(key, key level, target level), ...]}.
        tau: as :func:`discosql.disclosure`: DiSCO(tau) in each target's ``disco_tau``
            (every target has its ``disco_curve``).
        progress: called as ``progress(i, n, target)`` before each target.
        Other arguments: as :func:`discosql.disclosure`, the same for every target.
    """
    options = SummaryOptions(
        ident_meas,
        attrib_meas,
        not_targetlevs,
        use_targets_na,
        ngroups_targets,
        exclude,
        denom_lim,
        exclude_ov_denom_lim,
        use_keys_na,
        ngroups_keys,
        cont_na,
        thresh_1way,
        thresh_2way,
        tau,
    )
    key_list, target_list = check_arguments(keys, targets, options)
    roles = _names(key_list, "key") | _names(target_list, "target")
    with open_inputs(engine, threads, original, synthetic, check=named_columns(roles)) as inputs:
        return summary_on(inputs, keys, targets, options, progress=progress)


def summary_on(
    inputs: Inputs,
    keys: Any,
    targets: Sequence[str] | None = None,
    options: SummaryOptions | Mapping[str, Any] | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> DisclosureSummary:
    """:func:`disclosure_summary` on inputs already registered (``options``: its options by
    name, or checked), so that a caller measuring more (the report) reads them once."""
    if not isinstance(options, SummaryOptions):
        options = SummaryOptions.of(options or {})
    ident_meas, attrib_meas = options.ident_meas, options.attrib_meas
    keys, targets = check_arguments(keys, targets, options)
    specs = target_specs(inputs, keys, targets, options)
    plans = [plan(inputs, s) for s in specs]  # every check before any cell is counted
    results = {
        p.spec.target: r
        for p, r in zip(plans, execute_stacked(plans, progress=progress), strict=True)
    }
    return DisclosureSummary(
        table=_summary_table(results, IDENT_MEASURES[ident_meas], attrib_meas),
        results=results,
        keys=specs[0].keys,
        ident_meas=IDENT_MEASURES[ident_meas],
        attrib_meas=attrib_meas,
    )


def check_arguments(
    keys: Any, targets: Any, options: SummaryOptions | None = None
) -> tuple[Any, Sequence[str] | None]:
    """The summary's own arguments checked (one InputError for all): the keys and targets."""
    problems: list[str] = []
    options = options or SummaryOptions()
    ident_meas, attrib_meas = options.ident_meas, options.attrib_meas
    if ident_meas not in IDENT_MEASURES:
        problems.append(f"ident_meas: {ident_meas!r} is not one of {sorted(IDENT_MEASURES)}")
    if attrib_meas not in ATTRIB_MEASURES:
        problems.append(
            f"attrib_meas: {attrib_meas!r} is not one of {list(ATTRIB_MEASURES)}"
            f"{did_you_mean(str(attrib_meas), list(ATTRIB_MEASURES))}"
        )
    if isinstance(keys, str):
        keys = [keys]
    if targets is not None and (isinstance(targets, str) or not isinstance(targets, Sequence)):
        targets = [targets] if isinstance(targets, str) else targets
    if problems:
        raise InputError(problems)
    return keys, targets


def _names(given: Any, role: str) -> dict[str, str]:
    """The column names among ``given`` (a list, checked in full once the data are read)."""
    if not isinstance(given, Sequence) or isinstance(given, str):
        return {}
    return {name: role for name in given if isinstance(name, str)}


def mean(values: Sequence[float]) -> float:
    """The mean over the syntheses (NaN for none), as the summary's table takes it."""
    return math.fsum(values) / len(values) if values else math.nan


def _summary_table(results: dict[str, DisclosureResult], ident: str, attrib: str) -> pa.Table:
    orig = ATTRIB_MEASURES[attrib]
    rows = []
    for target, res in results.items():
        syn = range(1, res.m + 1)
        fired = res.check_2way.column("synthesis").to_pylist()  # one row per flagged pair
        rows.append(
            {
                "target": target,
                "attrib_orig": mean([res.value(orig, j) for j in syn]),
                "attrib_syn": mean([res.value(attrib, j) for j in syn]),
                "check1": res.check1,
                "npairs": max(fired.count(j) for j in syn),  # the worst synthesis
                "check2": res.check2,
                "ident_orig": mean([res.value("UiO", j) for j in syn]),
                "ident_syn": mean([res.value(ident, j) for j in syn]),
            }
        )
    # ascending attribute risk of the synthetic data, ties in target order, NaN last (R's order)
    rows.sort(key=lambda r: (math.isnan(float(r["attrib_syn"])), float(r["attrib_syn"])))
    return pa.Table.from_pylist(rows, schema=SUMMARY_SCHEMA)
