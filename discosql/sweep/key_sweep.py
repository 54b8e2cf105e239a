"""key_sweep(): the identity and attribute measures of every subset of the keys, for every
target (NIST SDNist's k-DiSCO, sdcMicro's riskyCells up to maxDim), when the intruder's keys
are not known.

How: the records are coded and counted once per target over the full key set (stages 010-030,
shared with :func:`discosql.disclosure_summary`) and kept as that target's cell table. A
subset's key combination is a function of the full one, so its cells are an aggregation of
the full cells (the keys outside it masked to code 0); every subset's exclusions, q margins
and measures then come from one statement per target, with sums over q in place of stage
040's join back of the margins (``sql_templates/sweep/measures.sql.j2``). Each row equals
``disclosure()`` with that subset as keys (the tests check it to 1e-12).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import pyarrow as pa

from ..core.inputs import Inputs, named_columns, open_inputs
from ..core.options import Options
from ..core.plan import Column, Plan, plan
from ..core.results import AsData, json_rows
from ..core.spec import column_names
from ..core.stages import Cells, count_cells, exclusion_context
from ..engines.base import Engine
from ..errors import InputError, did_you_mean
from ..measure.summary import target_specs
from ..sql.templates import ident, render

if TYPE_CHECKING:
    from matplotlib.figure import Figure

IDENT = ("UiO", "UiS", "UiOiS", "repU")
ATTRIB = ("Dorig", "Dsyn", "iS", "DiS", "DiSCO", "DiSDiO", "max_denom", "mean_denom")
MEASURES = IDENT + ATTRIB
SWEEP_SCHEMA = pa.schema(
    [
        ("keys", pa.list_(pa.string())),
        ("n_keys", pa.int32()),
        ("target", pa.string()),
        ("synthesis", pa.int32()),
        *[(m, pa.float64()) for m in MEASURES],
    ]
)
# sweep/measures.sql.j2's rows, as every engine returns them
MEASURES_SCHEMA = pa.schema(
    [
        ("sid", pa.int64()),
        ("keys", pa.string()),
        ("n_keys", pa.int32()),
        ("target", pa.string()),
        ("synthesis", pa.int32()),
        *[(m, pa.float64()) for m in MEASURES],
    ]
)
WORST_SCHEMA = pa.schema(
    [
        ("target", pa.string()),
        ("keys", pa.list_(pa.string())),
        ("n_keys", pa.int32()),
        ("value", pa.float64()),
    ]
)
CONTRIBUTION_SCHEMA = pa.schema(
    [
        ("key", pa.string()),
        ("target", pa.string()),
        ("measure", pa.string()),
        ("mean_increase", pa.float64()),
        ("pairs", pa.int64()),
    ]
)
# disclosure_summary's options that a sweep takes (the same for every subset)
OPTIONS = (
    "not_targetlevs",
    "use_targets_na",
    "ngroups_targets",
    "exclude",
    "use_keys_na",
    "ngroups_keys",
    "cont_na",
    "denom_lim",
    "exclude_ov_denom_lim",
    "thresh_1way",  # checked, though the sweep reports no check
    "thresh_2way",
)
FULL = "__disco_sweep_full"
MEASURES_TEMPLATE = "sweep/measures.sql.j2"


@dataclass(frozen=True)
class KeySweep(AsData):
    """The measures of every key subset swept, for every target and synthesis.

    ``table`` columns: keys (the subset, in the order of ``keys``), n_keys, target, synthesis,
    then UiO, UiS, UiOiS, repU, Dorig, Dsyn, iS, DiS, DiSCO, DiSDiO, max_denom, mean_denom
    (as ``disclosure()`` with those keys); rows by target (as given), n_keys, subset (in
    the order of itertools.combinations over ``keys``), synthesis.
    """

    table: pa.Table
    keys: tuple[str, ...]
    fixed_keys: tuple[str, ...]
    targets: tuple[str, ...]

    def means(self, measure: str) -> dict[tuple[str, tuple[str, ...]], float]:
        """{(target, subset): the measure's mean over the syntheses}."""
        if measure not in MEASURES:
            raise InputError(
                f"measure: {measure!r} is not one of {list(MEASURES)}"
                f"{did_you_mean(str(measure), MEASURES)}"
            )
        values: dict[tuple[str, tuple[str, ...]], list[float]] = {}
        cols = self.table.select(["target", "keys", measure]).to_pydict()
        for t, k, v in zip(cols["target"], cols["keys"], cols[measure], strict=True):
            values.setdefault((t, tuple(k)), []).append(math.nan if v is None else v)
        return {key: math.fsum(v) / len(v) for key, v in values.items()}

    def worst(self, k: int = 10, measure: str = "DiSCO") -> pa.Table:
        """The ``k`` subsets with the highest ``measure`` (its mean over the syntheses) per
        target: target, keys, n_keys, value; highest first (ties: fewer keys first, then
        the sweep's order; NaN last)."""
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InputError(f"k: expected a positive integer, got {k!r}")
        means = self.means(measure)
        rows = []
        for target in self.targets:
            ranked = [(s, v) for (t, s), v in means.items() if t == target]
            ranked.sort(
                key=lambda sv: (math.isnan(sv[1]), -sv[1] if sv[1] == sv[1] else 0, len(sv[0]))
            )
            rows += [
                {"target": target, "keys": list(s), "n_keys": len(s), "value": v}
                for s, v in ranked[:k]
            ]
        return pa.Table.from_pylist(rows, schema=WORST_SCHEMA)

    @property
    def contribution(self) -> pa.Table:
        """What adding each key does (SDNist's and SUDA's view of a key's contribution): for
        each key, target and measure, the mean over the pairs of swept subsets S and S + key
        of measure(S + key) - measure(S) (each the mean over the syntheses), and the number
        of pairs (0, with NaN, for a fixed key or a key with no pair)."""
        rows = []
        for measure in MEASURES:
            means = self.means(measure)
            for key in self.keys:
                for target in self.targets:
                    diffs = [
                        v - means[(target, s)]
                        for (t, s_plus), v in means.items()
                        if t == target and key in s_plus
                        for s in [tuple(x for x in s_plus if x != key)]
                        if (target, s) in means
                    ]
                    mean = math.fsum(diffs) / len(diffs) if diffs else math.nan
                    rows.append(
                        {
                            "key": key,
                            "target": target,
                            "measure": measure,
                            "mean_increase": mean,
                            "pairs": len(diffs),
                        }
                    )
        return pa.Table.from_pylist(rows, schema=CONTRIBUTION_SCHEMA)

    def plot(self, measure: str = "DiSCO") -> Figure:
        """Left: ``measure`` (mean over the syntheses) against the number of keys, a point per
        subset and a line through each target's worst subset per size. Right: a heat map of
        each key's contribution (mean increase of ``measure``) per target."""
        from ..core.charts import SweepChart
        from ..core.plot import plot_sweep

        chart = SweepChart.build(
            self.means(measure), self.contribution.to_pylist(), self.keys, self.targets, measure
        )
        return plot_sweep(chart)

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        worst = self.worst(5)
        names = [", ".join(k) for k in worst.column("keys").to_pylist()]
        shown = worst.set_column(1, "keys", pa.array(names, pa.string()))
        title = f"key_sweep(): keys {', '.join(self.keys)}"
        return title, [("the five riskiest subsets per target by DiSCO", shown)], [repr(self)]

    def to_dict(self) -> dict[str, Any]:
        """keys, fixed_keys, targets and ``table`` rows as plain data (NaN is None)."""
        return {
            "keys": list(self.keys),
            "fixed_keys": list(self.fixed_keys),
            "targets": list(self.targets),
            "table": json_rows(self.table),
        }

    def __repr__(self) -> str:
        n = len({tuple(k) for k in self.table.column("keys").to_pylist()})
        return (
            f"<KeySweep keys={list(self.keys)!r} subsets={n} targets={list(self.targets)!r} "
            f"rows={self.table.num_rows}>"
        )


def key_sweep(
    original: Any,
    synthetic: Any,
    keys: str | Sequence[str],
    targets: str | Sequence[str] | None = None,
    *,
    sizes: int | Sequence[int] | None = None,
    fixed_keys: str | Sequence[str] = (),
    engine: Any = None,
    threads: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    **options: Any,
) -> KeySweep:
    """The measures of ``disclosure()`` for every subset of ``keys`` and every target.

    Args:
        keys: the quasi-identifiers an intruder might hold (at least one).
        targets: as :func:`discosql.disclosure_summary` (None: every synthetic column that is
            not a key).
        sizes: the subset sizes to sweep, counting the fixed keys (None: 1 .. len(keys)).
        fixed_keys: keys in every subset (SDNist's stable quasi-identifiers).
        options: disclosure_summary's options (not_targetlevs, use_targets_na,
            ngroups_targets, exclude, use_keys_na, ngroups_keys, cont_na, denom_lim,
            exclude_ov_denom_lim). Per-key options (use_keys_na, ngroups_keys) are aligned
            with ``keys``; an exclusion applies to the subsets that hold its key.

    Returns:
        A :class:`KeySweep`. Each row equals ``disclosure(original, synthetic, keys=subset,
        target=t, ...)`` with the options restricted to the subset.
    """
    asked = SweepOptions(keys, targets, sizes, fixed_keys, options)
    key_list, _, _, target_list = check_arguments(asked)
    roles = dict.fromkeys(key_list, "key") | dict.fromkeys(target_list or [], "target")
    with open_inputs(engine, threads, original, synthetic, check=named_columns(roles)) as inputs:
        return sweep_on(inputs, asked, progress)


@dataclass(frozen=True)
class SweepOptions(Options):
    """:func:`key_sweep`'s arguments but the data, as given (:func:`check_arguments` checks
    them); ``summary``: the disclosure_summary options it takes (``OPTIONS``)."""

    FAMILY: ClassVar[str] = "key_sweep"

    keys: Any = None
    targets: Any = None
    sizes: Any = None
    fixed_keys: Any = ()
    summary: dict[str, Any] = dataclasses.field(default_factory=dict)

    @classmethod
    def flat(cls, args: dict[str, Any]) -> SweepOptions:
        """From key_sweep's keyword arguments in one dict (the report's)."""
        own = ("keys", "targets", "sizes", "fixed_keys")
        rest = {k: v for k, v in args.items() if k not in own}
        return cls(**{k: args[k] for k in own if k in args}, summary=rest)


def sweep_on(
    inputs: Inputs,
    options: SweepOptions,
    progress: Callable[[int, int, str], None] | None = None,
) -> KeySweep:
    """:func:`key_sweep` on inputs already registered (the report's)."""
    key_list, fixed, subsets, target_list = check_arguments(options)
    specs = target_specs(inputs, key_list, target_list, options.summary)
    plans = [plan(inputs, s) for s in specs]  # every check before any cell is counted
    sink = Rows()
    for p, cells, _ in count_cells(plans, progress):
        sweep_target(p, cells, subsets, sink)
    table = pa.Table.from_pylist(sink.rows, schema=SWEEP_SCHEMA)
    return KeySweep(table, tuple(key_list), tuple(fixed), tuple(s.target for s in specs))


def check_arguments(
    options: SweepOptions,
) -> tuple[list[str], list[str], list[tuple[str, ...]], list[str] | None]:
    """The sweep's arguments checked before any data is read: keys, fixed keys, subsets,
    targets (None: every non-key column)."""
    problems: list[str] = []
    key_list = column_names("keys", options.keys, problems)
    fixed_keys = options.fixed_keys
    fixed = column_names("fixed_keys", fixed_keys, problems) if fixed_keys else []
    outside = [k for k in fixed if k not in key_list]
    if outside:
        problems.append(f"fixed_keys: {outside!r} are not among the keys {key_list!r}")
    for o in options.summary:
        if o not in OPTIONS:
            problems.append(
                f"unknown option {o!r}{did_you_mean(o, OPTIONS)}; allowed: {', '.join(OPTIONS)}"
            )
    subsets = _subsets(key_list, fixed, options.sizes, problems)
    target_list = None
    if options.targets is not None:
        target_list = column_names("targets", options.targets, problems)
    if problems:
        raise InputError(problems)
    return key_list, fixed, subsets, target_list


def _subsets(
    keys: list[str], fixed: list[str], sizes: Any, problems: list[str]
) -> list[tuple[str, ...]]:
    """Every subset of ``keys`` that holds ``fixed``, of the sizes asked, in key order."""
    smallest = max(1, len(fixed))
    if sizes is None:
        wanted = list(range(smallest, len(keys) + 1))
    else:
        given = [sizes] if isinstance(sizes, int) else sizes
        if (
            not isinstance(given, Sequence)
            or not given
            or any(isinstance(n, bool) or not isinstance(n, int) for n in given)
        ):
            problems.append(f"sizes: expected subset sizes (integers), got {sizes!r}")
            return []
        bad = [n for n in given if not smallest <= n <= len(keys)]
        if bad:
            problems.append(
                f"sizes: {bad!r} out of range; a subset holds {smallest} to {len(keys)} keys "
                f"(the fixed keys count)"
            )
            return []
        wanted = sorted(set(given))
    free = [k for k in keys if k not in fixed]
    out = []
    for n in wanted:
        for extra in itertools.combinations(free, n - len(fixed)):
            chosen = set(fixed) | set(extra)
            out.append(tuple(k for k in keys if k in chosen))
    return out


class Sink(Protocol):
    """Where the measures of each target go (:class:`Rows`, or an exported script's table)."""

    def add(
        self, engine: Engine, sql: str, params: dict[str, Any], subsets: dict[int, list[str]]
    ) -> None: ...


class Rows:
    """Where the measures of each target go: read into Python (``rows``)."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def add(
        self, engine: Engine, sql: str, params: dict[str, Any], subsets: dict[int, list[str]]
    ) -> None:
        """The rows of one target; ``subsets``: {sid: its keys}, in the sweep's order."""
        rank = {sid: i for i, sid in enumerate(subsets)}
        got = engine.query(
            sql, params, MEASURES_TEMPLATE, small=True, schema=MEASURES_SCHEMA
        ).to_pylist()
        got.sort(key=lambda r: (rank[r["sid"]], r["synthesis"]))
        for row in got:
            self.rows.append({**row, "keys": subsets[row["sid"]]})


def sweep_target(p: Plan, cells: Cells, subsets: list[tuple[str, ...]], sink: Sink) -> None:
    """The measures of one target for every subset, to ``sink`` (its ``add(engine, sql,
    params, subsets)``): the target's full cells kept as FULL, every subset measured from them
    in one statement (sweep/measures)."""
    engine = p.inputs.engine
    source = cells.sql or f"select * from {ident(cells.table)}"
    engine.create_table(FULL, source, p.params, "stages/030_cells.sql.j2")
    try:
        context, params = exclusion_context(p, cells)
        subs = []
        by_sid: dict[int, list[str]] = {}
        for i, subset in enumerate(subsets):
            held = [cells.keys[p.spec.keys.index(k)] for k in subset]
            sid = sum(2**k.pos for k in held)  # the bitmask of the keys it holds
            params[f"sweep_{i}"] = ", ".join(subset)
            by_sid[sid] = list(subset)
            subs.append(
                {
                    "sid": sid,
                    "aliases": [k.alias for k in held],
                    "name": f"sweep_{i}",
                    "n": len(subset),
                }
            )
        _parents(subs, cells.keys, p.params)
        params["sweep_target"] = p.spec.target
        sql = render(
            MEASURES_TEMPLATE,
            engine.dialect,
            full=FULL,
            keys=cells.keys,
            qcols=cells.qcols,
            subsets=subs,
            target=cells.target,
            target_name="sweep_target",
            **context,
        )
        sink.add(engine, sql, params, by_sid)
    finally:
        engine.drop_table(FULL)


def _parents(subs: list[dict[str, Any]], keys: Sequence[Column], params: dict[str, Any]) -> None:
    """Each subset's cells are aggregated from a swept superset with one key more (fewer
    cells to read than the full key set's), the one whose extra key has the fewest levels;
    from the full cells when there is none. Sets ``parent`` (a CTE name or None) and
    ``is_parent`` (another subset is aggregated from it), and orders ``subs`` so that parents
    come first."""
    radix = {2**k.pos: int(params[k.radix]) for k in keys if k.radix}
    swept = {s["sid"] for s in subs}
    subs.sort(key=lambda s: -bin(s["sid"]).count("1"))  # supersets first (stable)
    for s in subs:
        options = [
            (r, bit) for bit, r in radix.items() if not s["sid"] & bit and s["sid"] | bit in swept
        ]
        s["parent"] = f"__disco_c{s['sid'] | min(options)[1]}" if options else None
    parents = {s["parent"] for s in subs}
    for s in subs:  # a subset no other is aggregated from is read once
        s["is_parent"] = f"__disco_c{s['sid']}" in parents
