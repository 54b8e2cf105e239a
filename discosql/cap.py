"""The CAP family in SQL: SDMetrics' CAP scores, Taub's targeted CAP, per-record CAP, baselines.

Every function counts the same (q, t) cell table once (``cap/cells.sql.j2``: original o_qt,
synthetic s_qt and, when a ``control`` set is given, c_qt, with the key margins o_q, s_q, c_q) and
computes its measure as aggregates over it. Python validates the arguments and decides (bin edges,
the rounds of GeneralizedCAP); SQL computes.

Notation: q a key combination, t a target value (several sensitive columns form one joint target,
as in SDMetrics), N the original records. NA is a category ('Missing', as in synthpop).

Every function takes ``control=`` (below), ``threads=`` (DuckDB threads) and ``engine=`` (where the
SQL runs: DuckDB by default, PostgreSQL, Spark or SQLite, as for :func:`discosql.disclosure`).

Control baseline (anonymeter; Hittmeir et al., CODASPY 2020): with ``control`` (real records held
out of the synthesis) each measure is computed again with the control in place of the synthetic
data, and ``excess_risk = (risk - control_risk) / (1 - control_risk)``.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pyarrow as pa

from .engine import Engine, Registered, check_threads, open_engine
from .errors import DiscoSQLWarning, InputError, SchemaError
from .pipeline import column_kinds, register_inputs, source_ctx
from .schema import did_you_mean
from .templates import ident, render

CELLS = "__disco_cap_cells"
OPEN = "__disco_cap_open"  # + _d, one table per round
RESOLVED = "__disco_cap_resolved"  # + _d
CODED = "__disco_cap_coded"  # GeneralizedCAP's cells with integer key codes
METHODS = ("cap", "zero_cap", "generalized_cap")
PROBS = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0)
# Columns of cap_records() besides the keys and targets; a user column may not take these names.
RECORD_COLUMNS = (
    "n_original",
    "n_synthetic",
    "n_control",
    "n_key_original",
    "n_key_synthetic",
    "cap_synthetic",
    "matched",
    "cap_original",
    "cap_control",
    "disclosive_original",
    "disclosive_synthetic",
    "disco",
    "replicated_unique",
)


def _excess(risk: float, control_risk: float) -> float:
    """(risk - control_risk) / (1 - control_risk); NaN when the control already attains 1."""
    if math.isnan(risk) or math.isnan(control_risk) or control_risk >= 1:
        return math.nan
    return (risk - control_risk) / (1 - control_risk)


# -- results ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class CapScore:
    """An SDMetrics-style CAP score: 1 = safe (the attack never succeeds), 0 = unsafe.

    ``risk = 1 - score`` is the attack's mean success; ``n_scored`` the original records that
    entered the mean. ``control`` is the same score with the control set in place of the synthetic
    data, and ``excess_risk = (risk - control.risk) / (1 - control.risk)``.
    """

    measure: str
    score: float
    n_original: int
    n_scored: int
    control: CapScore | None = None

    @property
    def risk(self) -> float:
        return 1.0 - self.score

    @property
    def excess_risk(self) -> float | None:
        return None if self.control is None else _excess(self.risk, self.control.risk)


@dataclass(frozen=True)
class DisclosureProtectionScore:
    """SDMetrics' DisclosureProtection: ``score = min(cap_protection / baseline_protection, 1)``.

    ``cap_protection`` is the CAP score (``method``) after the null category and binning;
    ``baseline_protection = 1 - 1 / prod_i L_i`` with L_i the levels of sensitive column i in the
    original (a uniform random guess). ``score`` is NaN when the baseline is 0.
    """

    score: float
    cap_protection: float
    baseline_protection: float
    method: str
    control: DisclosureProtectionScore | None = None

    @property
    def excess_risk(self) -> float | None:
        """Excess of the attack's success rate ``1 - cap_protection`` over the control's."""
        if self.control is None:
            return None
        return _excess(1.0 - self.cap_protection, 1.0 - self.control.cap_protection)


@dataclass(frozen=True)
class TaubTCAP:
    """Taub et al.'s targeted CAP (PSD 2018), not synthpop's TCAP (DiSCO/iS) nor synthgauge's.

    Synthetic records with WEAP = s_qt / s_q >= ``tau`` are kept; each one's TCAP is o_qt / o_q,
    undefined when o_q = 0. ``tcap`` is the mean over the defined kept records, ``tcap_zero`` the
    mean over all kept records with undefined ones scored 0; higher = riskier.
    """

    tau: float
    tcap: float
    tcap_zero: float
    n_synthetic: int
    n_kept: int
    n_undefined: int
    control: TaubTCAP | None = None

    @property
    def excess_risk(self) -> float | None:
        """Excess of ``tcap`` over the control's ``tcap``."""
        return None if self.control is None else _excess(self.tcap, self.control.tcap)


@dataclass(frozen=True)
class CapSummary:
    """Summary of the individual CAP of the original records (Baillargeon & Charest, PSD 2020).

    CAP_x(S) = s_qt / s_q for an original record x in cell (q, t), 0 when s_q = 0 (higher =
    riskier). ``mean_cap`` is version 1 of the average (no match -> 0), ``mean_cap_matched``
    version 2 (no match -> left out); ``min_cap`` = o_min / n and ``min_cap_matched`` =
    min o_qt / o_q are the smallest values any synthetic data could reach for this original
    (Theorems 2 and 3); ``mean_cap_original`` is CAP_O(O). ``quantiles`` maps probability to the
    inverse empirical CDF of the individual CAP over original records; ``share_*`` are shares of
    original records with CAP >= 0.5, >= 0.8 and = 1; ``majority_correct`` is the number of original
    records a majority-vote attacker predicts correctly (ties split evenly).
    """

    n_original: int
    n_matched: int
    mean_cap: float
    mean_cap_matched: float
    mean_cap_original: float
    min_cap: float
    min_cap_matched: float
    share_cap_ge_half: float
    share_cap_ge_08: float
    share_cap_eq_1: float
    majority_correct: float
    quantiles: dict[float, float] = field(default_factory=dict)
    control: CapSummary | None = None

    @property
    def excess_risk(self) -> float | None:
        """Excess of ``mean_cap`` over the control's ``mean_cap``."""
        return None if self.control is None else _excess(self.mean_cap, self.control.mean_cap)


# -- engine and inputs ------------------------------------------------------------------------
def _render(eng: Engine, template: str, **context: Any) -> str:
    return render(template, eng.dialect, **context)


@dataclass
class _Run:
    """Registered inputs and the cell table of one CAP call."""

    engine: Engine
    sources: list[Registered]  # original, synthetic[, control]
    keys: list[dict[str, Any]]
    targets: list[dict[str, Any]]
    params: dict[str, Any]

    @property
    def has_control(self) -> bool:
        return len(self.sources) == 3


def _names(arg: str, value: Any, allow_str: bool) -> list[str]:
    if allow_str and isinstance(value, str):
        value = [value]
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InputError(
            f"{arg}: expected a list of column names, got {type(value).__name__} {value!r}"
        )
    names = list(value)
    problems = [
        f"{arg}: column names must be strings, got {type(v).__name__} {v!r}"
        for v in names
        if not isinstance(v, str)
    ]
    if problems:
        raise InputError(problems)
    if not names:
        raise InputError(f"{arg}: give at least one column name, got an empty list")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(f"{arg}: columns {dupes!r} are given more than once")
    return names


def _check_args(
    keys: Any, sensitive: Any, threads: Any, sensitive_arg: str = "sensitive"
) -> tuple[list[str], list[str]]:
    key_list = _names("keys", keys, allow_str=False)
    sens_list = _names(sensitive_arg, sensitive, allow_str=True)
    both = [c for c in sens_list if c in key_list]
    if both:
        raise InputError(
            f"{sensitive_arg}: {both!r} are also keys; a column is either known (key) or sensitive"
        )
    check_threads(threads)
    return key_list, sens_list


def _check_columns(
    sources: list[Registered], roles: dict[str, str], continuous: Sequence[str] = ()
) -> dict[str, str]:
    """Every key and sensitive column exists in every data set with compatible kinds.

    ``pipeline.column_kinds`` for keys, several sensitive columns and a control set;
    returns column -> kind. ``continuous`` columns must be numeric.
    """
    kinds, problems = column_kinds(sources, roles)
    for col in continuous:
        if col not in roles:
            problems.append(
                f"continuous_columns: {col!r} is neither a key nor a sensitive column"
                f"{did_you_mean(col, list(roles))}; allowed: {list(roles)!r}"
            )
        elif kinds.get(col, "float") not in ("integer", "float"):
            problems.append(
                f"continuous_columns: {col!r} is not numeric in the original data "
                f"({kinds[col]}); only numbers can be binned"
            )
    if problems:
        raise SchemaError(problems)
    return kinds


def _register(engine: Engine, original: Any, synthetic: Any, control: Any) -> list[Registered]:
    if isinstance(synthetic, list | tuple):
        raise InputError(
            f"synthetic: give one data set, got a {type(synthetic).__name__} of "
            f"{len(synthetic)}; call once per synthesis"
        )
    inputs = register_inputs(engine, original, synthetic)
    sources = list(inputs.sources)
    if control is not None:
        reg = engine.register(engine.classify(control, "control"))
        if reg.n_rows == 0:
            warnings.warn(
                "control: the data set has no rows; control measures are NaN",
                DiscoSQLWarning,
                stacklevel=3,
            )
        sources.append(reg)
    return sources


def _prepare(
    original: Any,
    synthetic: Any,
    control: Any,
    keys: Any,
    sensitive: Any,
    threads: int | None,
    *,
    engine: Any = None,
    sensitive_arg: str = "sensitive",
    continuous: Sequence[str] = (),
    bins: int = 0,
    reserved: Sequence[str] = (),
) -> _Run:
    """Validate, register and count the cell table; the caller closes ``run.engine``."""
    key_list, sens_list = _check_args(keys, sensitive, threads, sensitive_arg)
    clash = [c for c in [*key_list, *sens_list] if c in reserved]
    if clash:
        raise InputError(
            f"keys/{sensitive_arg}: {clash!r} are names of output columns "
            f"({', '.join(reserved)}); rename these columns first"
        )
    engine = open_engine(engine, threads=threads)
    try:
        sources = _register(engine, original, synthetic, control)
        roles = {k: "key" for k in key_list} | {s: sensitive_arg for s in sens_list}
        _check_columns(sources, roles, continuous)
        params: dict[str, Any] = {}
        for reg in sources:
            params.update(reg.params)
        edges = _bin_edges(engine, sources[0], list(continuous), bins, params)
        keys_ctx = [
            {"name": k, "alias": f"k_{i}", "edges": edges.get(k)} for i, k in enumerate(key_list)
        ]
        targets_ctx = [
            {"name": t, "alias": f"t_{i}", "edges": edges.get(t)} for i, t in enumerate(sens_list)
        ]
        run = _Run(engine, sources, keys_ctx, targets_ctx, params)
        _count_cells(run)
    except BaseException:
        engine.close()
        raise
    return run


def _bin_edges(
    engine: Engine, original: Registered, columns: list[str], bins: int, params: dict[str, Any]
) -> dict[str, list[str]]:
    """Inner edges of SDMetrics' equal-width binning (pd.cut with ``bins`` bins on the original).

    pd.cut: edges = linspace(min, max, bins + 1) (min == max: widened by 0.1 %); SDMetrics then
    sets the outer edges to -inf and +inf, so only the inner edges matter. Bound as parameters.
    """
    if not columns:
        return {}
    cols = [{"name": c, "alias": f"c_{i}"} for i, c in enumerate(columns)]
    sql = _render(engine, "cap/range.sql.j2", source={"sql": original.sql}, columns=cols)
    row = engine.query(sql, params, "cap/range").to_pylist()[0]
    problems, out = [], {}
    for col in cols:
        lo, hi, n_inf = (
            row[f"lo_{col['alias']}"],
            row[f"hi_{col['alias']}"],
            row[f"inf_{col['alias']}"],
        )
        if n_inf:
            problems.append(
                f"continuous_columns: {col['name']!r} has infinite values in the original data, "
                "which cannot be binned"
            )
            continue
        if lo is None:
            problems.append(
                f"continuous_columns: {col['name']!r} has only missing values in the original "
                "data; it cannot be binned"
            )
            continue
        mn, mx = float(lo), float(hi)
        if mn == mx:  # pandas widens a constant column before spacing the edges
            mn -= 0.001 * abs(mn) if mn != 0 else 0.001
            mx += 0.001 * abs(mx) if mx != 0 else 0.001
        step = (mx - mn) / bins  # numpy.linspace: i * step + start, same float operations
        names = []
        for i in range(1, bins):
            name = f"e_{col['alias']}_{i}"
            params[name] = i * step + mn
            names.append(name)
        out[col["name"]] = names
    if problems:
        raise InputError(problems)
    return out


def _count_cells(run: _Run) -> None:
    labels = ("o", "s", "c")
    sources = source_ctx(run.sources)
    sides = [{"src": i, "col": labels[i], "margin": labels[i] + "q"} for i in range(len(sources))]
    sql = _render(
        run.engine, "cap/cells.sql.j2", sources=sources, keys=run.keys, targets=run.targets,
        sides=sides,
    )  # fmt: skip
    run.engine.create_table(CELLS, sql, run.params, "cap/cells")


def _sides(run: _Run) -> list[tuple[str, str]]:
    return [("s", "sq")] + ([("c", "cq")] if run.has_control else [])


def _one_row(table: pa.Table) -> dict[str, Any]:
    return {k: v[0] for k, v in table.to_pydict().items()}


def _float(value: Any) -> float:
    return math.nan if value is None else float(value)


# -- SDMetrics-compatible scores --------------------------------------------------------------
def _exact(run: _Run, side: str, side_q: str) -> dict[str, Any]:
    sql = _render(
        run.engine, "cap/exact.sql.j2", cells=CELLS, side=side, side_q=side_q, targets=run.targets
    )
    return _one_row(run.engine.query(sql, {}, "cap/exact"))


def _generalized(run: _Run, side: str) -> dict[str, Any]:
    """GeneralizedCAP by rounds d = 0, 1, ..: one GROUP BY per key subset of size K - d.

    A side key at Hamming distance d from an open original key agrees with it on exactly one
    subset of K - d key columns, so grouped counts over those subsets give the pooled closest
    matches exactly; only keys left open go to the next round.
    """
    eng, targets, template = run.engine, run.targets, "cap/generalized.sql.j2"
    ctx = {"cells": CELLS, "keys": run.keys, "targets": targets, "side": side,
           "side_q": side + "q"}  # fmt: skip
    sql = _render(eng, template, statement="coded", open="", resolved=[], **ctx)
    eng.create_table(CODED, sql, {}, "cap/generalized coded")
    # From here on: integer key codes c_*, the side's count n and margin nq.
    keys = [{"alias": f"c_{i}"} for i in range(len(run.keys))]
    ctx = {"cells": CODED, "keys": keys, "targets": targets, "side": "n", "side_q": "nq"}
    # d = 0: exact matches come straight from the cell table and its margins.
    rounds = [f"{RESOLVED}_0"]
    opened = [f"{OPEN}_1"]
    steps = ((rounds[0], "exact"), (opened[0], "unmatched"))
    for table, statement in steps:
        sql = _render(eng, template, statement=statement, open="", resolved=[], **ctx)
        eng.create_table(table, sql, {}, f"cap/generalized {statement}")
    aliases = [k["alias"] for k in keys]
    for d in range(1, len(keys) + 1):
        open_table = opened[-1]
        left = eng.query(
            f"SELECT count(*) AS n FROM {ident(open_table)}", {}, "cap/generalized open count"
        )
        if left.column("n")[0].as_py() == 0:
            break
        subsets = [list(s) for s in itertools.combinations(aliases, len(keys) - d)]
        rounds.append(f"{RESOLVED}_{d}")
        sql = _render(
            eng, template, statement="round", subsets=subsets, open=open_table, resolved=rounds,
            **ctx,
        )  # fmt: skip
        eng.create_table(rounds[-1], sql, {}, f"cap/generalized round {d}")
        if d < len(keys):
            opened.append(f"{OPEN}_{d + 1}")
            sql = _render(
                eng, template, statement="remaining", open=open_table, resolved=rounds, **ctx
            )
            eng.create_table(opened[-1], sql, {}, "cap/generalized remaining")
    sql = _render(eng, template, statement="score", open="", resolved=rounds, **ctx)
    row = _one_row(eng.query(sql, {}, "cap/generalized score"))
    for table in [*opened, *rounds, CODED]:
        eng.drop_table(table)
    return row


def _cap_score(run: _Run, method: str) -> CapScore:
    scores: list[CapScore] = []
    for side, side_q in _sides(run):
        if method == "generalized_cap":
            row = _generalized(run, side)
            score = CapScore(
                "categorical_generalized_cap",
                _float(row["categorical_generalized_cap"]),
                int(row["n_original"]),
                int(row["n_resolved"]),
            )
        else:
            row = _exact(run, side, side_q)
            zero = method == "zero_cap"
            score = CapScore(
                "categorical_zero_cap" if zero else "categorical_cap",
                _float(row["categorical_zero_cap" if zero else "categorical_cap"]),
                int(row["n_original"]),
                int(row["n_original"] if zero else row["n_matched"]),
            )
        scores.append(score)
    if len(scores) == 2:
        return CapScore(**{**scores[0].__dict__, "control": scores[1]})
    return scores[0]


def _scored(method: str, original: Any, synthetic: Any, keys: Any, sensitive: Any,
            control: Any, threads: int | None, engine: Any) -> CapScore:  # fmt: skip
    run = _prepare(original, synthetic, control, keys, sensitive, threads, engine=engine)
    try:
        return _cap_score(run, method)
    finally:
        run.engine.close()


def categorical_cap(
    original: Any,
    synthetic: Any,
    keys: Sequence[str],
    sensitive: str | Sequence[str],
    *,
    control: Any = None,
    threads: int | None = None,
    engine: Any = None,
) -> CapScore:
    """SDMetrics' CategoricalCAP: ``1 - DCAP / iS`` (1 = safe).

    score = 1 - sum_{q: s_q > 0} o_qt * s_qt / s_q / sum_{q: s_q > 0} o_qt: each original record
    whose key occurs in the synthetic data scores the share of synthetic records with its key that
    have its target; records without a synthetic key match are skipped (NaN if none matches).
    ``sensitive`` columns form one joint target. NA is a category (SDMetrics: only in text
    columns; a float NaN never matches in SDMetrics).
    """
    return _scored("cap", original, synthetic, keys, sensitive, control, threads, engine)


def categorical_zero_cap(
    original: Any,
    synthetic: Any,
    keys: Sequence[str],
    sensitive: str | Sequence[str],
    *,
    control: Any = None,
    threads: int | None = None,
    engine: Any = None,
) -> CapScore:
    """SDMetrics' CategoricalZeroCAP: ``1 - DCAP`` (1 = safe; synthpop's DCAP as a fraction).

    score = 1 - sum_{q: s_q > 0} o_qt * s_qt / s_q / N: unmatched original records score 0.
    """
    return _scored("zero_cap", original, synthetic, keys, sensitive, control, threads, engine)


def categorical_generalized_cap(
    original: Any,
    synthetic: Any,
    keys: Sequence[str],
    sensitive: str | Sequence[str],
    *,
    control: Any = None,
    threads: int | None = None,
    engine: Any = None,
) -> CapScore:
    """SDMetrics' CategoricalGeneralizedCAP (1 = safe).

    For each original record r, the synthetic keys at the minimum Hamming distance from r's key
    (over the key columns; distance 0 when there is an exact match) are pooled, and r scores the
    share of pooled synthetic records with r's target; score = 1 - mean over all original
    records. Computed exactly by rounds over key subsets (no all-pairs comparison).
    """
    return _scored(
        "generalized_cap", original, synthetic, keys, sensitive, control, threads, engine
    )


def disclosure_protection(
    original: Any,
    synthetic: Any,
    keys: Sequence[str],
    sensitive: str | Sequence[str],
    *,
    computation_method: Literal["cap", "zero_cap", "generalized_cap"] = "cap",
    continuous_columns: Sequence[str] | None = None,
    num_discrete_bins: int = 10,
    control: Any = None,
    threads: int | None = None,
    engine: Any = None,
) -> DisclosureProtectionScore:
    """SDMetrics' DisclosureProtection.compute_breakdown (1 = safe).

    NA is a category; ``continuous_columns`` are binned into ``num_discrete_bins`` equal-width
    bins over the original's range (right-closed as pd.cut, outer bins open-ended for the
    synthetic data); cap_protection = the ``computation_method`` score;
    baseline_protection = 1 - 1 / prod_i L_i (L_i levels of sensitive column i in the original);
    score = min(cap_protection / baseline_protection, 1), NaN when the baseline is 0.
    """
    if computation_method not in METHODS:
        raise InputError(
            f"computation_method: {computation_method!r} is not allowed; allowed: "
            f"{', '.join(METHODS)}{did_you_mean(str(computation_method), METHODS)}"
        )
    if (
        isinstance(num_discrete_bins, bool)
        or not isinstance(num_discrete_bins, int)
        or num_discrete_bins < 1
    ):
        raise InputError(f"num_discrete_bins: expected an int >= 1, got {num_discrete_bins!r}")
    continuous = (
        []
        if continuous_columns is None
        else _names("continuous_columns", continuous_columns, allow_str=True)
    )
    run = _prepare(
        original, synthetic, control, keys, sensitive, threads, engine=engine,
        continuous=continuous, bins=num_discrete_bins,
    )  # fmt: skip
    try:
        score = _cap_score(run, computation_method)
        levels = _exact(run, "s", "sq")["n_target_levels"]
    finally:
        run.engine.close()
    baseline = 1.0 - float(1.0 / levels) if levels else math.nan

    def protect(s: CapScore) -> DisclosureProtectionScore:
        value = math.nan if not baseline or math.isnan(baseline) else min(s.score / baseline, 1)
        return DisclosureProtectionScore(value, s.score, baseline, computation_method)

    result = protect(score)
    if score.control is not None:
        result = DisclosureProtectionScore(**{**result.__dict__, "control": protect(score.control)})
    return result


# -- Taub's targeted CAP ----------------------------------------------------------------------
def taub_tcap(
    original: Any,
    synthetic: Any,
    keys: Sequence[str],
    target: str | Sequence[str],
    *,
    tau: float = 1.0,
    control: Any = None,
    threads: int | None = None,
    engine: Any = None,
) -> TaubTCAP:
    """Taub, Elliot, Pampaka & Smith's targeted CAP (PSD 2018); higher = riskier.

    WEAP_j = s_qt / s_q for a synthetic record j in cell (q, t); records with WEAP_j >= ``tau``
    are kept; TCAP_j = o_qt / o_q, undefined when o_q = 0. ``tcap`` = mean TCAP_j over the kept
    records where it is defined, ``tcap_zero`` = the mean with undefined records scored 0,
    ``n_undefined`` their number. Not synthpop's TCAP (= DiSCO / iS, ``disclosure()``) and not
    synthgauge's ``tcap_score`` (= DiSCO: only WEAP = 1, averaged over original records).
    """
    if isinstance(tau, bool) or not isinstance(tau, int | float) or not 0 < tau <= 1:
        raise InputError(f"tau: the WEAP threshold must be a number in (0, 1], got {tau!r}")
    run = _prepare(
        original, synthetic, control, keys, target, threads, engine=engine, sensitive_arg="target"
    )
    try:
        results = []
        for side, side_q in _sides(run):
            sql = _render(run.engine, "cap/taub.sql.j2", cells=CELLS, side=side, side_q=side_q)
            row = _one_row(run.engine.query(sql, {"tau": float(tau)}, "cap/taub"))
            results.append(
                TaubTCAP(
                    float(tau),
                    _float(row["tcap"]),
                    _float(row["tcap_zero"]),
                    int(row["n_side"]),
                    int(row["n_kept"]),
                    int(row["n_undefined"]),
                )
            )
    finally:
        run.engine.close()
    if len(results) == 2:
        return TaubTCAP(**{**results[0].__dict__, "control": results[1]})
    return results[0]


# -- per-record CAP ---------------------------------------------------------------------------
def cap_records(
    original: Any,
    synthetic: Any,
    keys: Sequence[str],
    sensitive: str | Sequence[str],
    *,
    control: Any = None,
    threads: int | None = None,
    engine: Any = None,
    stream: bool = False,
    batch_size: int = 100_000,
) -> pa.Table | pa.RecordBatchReader:
    """Per-record CAP (Baillargeon & Charest): one row per (q, t) cell, as an Arrow table.

    Columns: the keys and sensitive columns (level names, NA = 'Missing'); n_original,
    n_synthetic[, n_control] (o_qt, s_qt[, c_qt]); n_key_original, n_key_synthetic (o_q, s_q);
    cap_synthetic = s_qt / s_q (0 if s_q = 0), matched = s_q > 0, cap_original = o_qt / o_q
    (null if o_q = 0)[, cap_control]; flags disclosive_original (o_qt = o_q), disclosive_synthetic
    (s_qt = s_q), disco (o_qt > 0 and s_qt = s_q) and replicated_unique (o_q = s_q = o_qt = 1).
    ``stream=True`` returns a ``pyarrow.RecordBatchReader`` that reads the result in batches
    (for big data); the engine stays open until the reader is exhausted or closed.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InputError(f"batch_size: expected an int >= 1, got {batch_size!r}")
    run = _prepare(
        original, synthetic, control, keys, sensitive, threads, engine=engine,
        reserved=RECORD_COLUMNS,
    )  # fmt: skip
    try:
        sql = _render(
            run.engine,
            "cap/records.sql.j2",
            cells=CELLS,
            keys=run.keys,
            targets=run.targets,
            control=run.has_control,
        )
        if stream:
            return _stream(run.engine, sql, batch_size)
        table = run.engine.query(sql, {}, "cap/records").cast(_records_schema(run))
    except BaseException:
        run.engine.close()
        raise
    run.engine.close()
    return table


def _stream(engine: Engine, sql: str, batch_size: int) -> pa.RecordBatchReader:
    """The query's result in batches; the engine closes when the reader is done."""
    reader = engine.stream(sql, {}, "cap/records", batch_size)

    def batches() -> Iterator[pa.RecordBatch]:
        try:
            yield from reader
        finally:
            engine.close()

    return pa.RecordBatchReader.from_batches(reader.schema, batches())


def _records_schema(run: _Run) -> pa.Schema:
    """cap_records' column types on every engine (SQLite has no booleans, PostgreSQL's counts
    are NUMERIC sums)."""
    flags = ("matched", "disclosive_original", "disclosive_synthetic", "disco",
             "replicated_unique")  # fmt: skip
    fields = [pa.field(c["name"], pa.string()) for c in run.keys + run.targets]
    for name in RECORD_COLUMNS:
        if name in ("n_control", "cap_control") and not run.has_control:
            continue
        kind = (
            pa.bool_() if name in flags else pa.int64() if name.startswith("n_") else pa.float64()
        )
        fields.append(pa.field(name, kind))
    return pa.schema(fields)


def cap_summary(
    original: Any,
    synthetic: Any,
    keys: Sequence[str],
    sensitive: str | Sequence[str],
    *,
    control: Any = None,
    threads: int | None = None,
    engine: Any = None,
    probs: Sequence[float] = PROBS,
) -> CapSummary:
    """Summary of the per-record CAP (Baillargeon & Charest, PSD 2020); see :class:`CapSummary`.

    mean_cap = sum_qt o_qt * s_qt / s_q / N (version 1), mean_cap_matched = the same over records
    with s_q > 0 (version 2), min_cap = o_min / N, min_cap_matched = min o_qt / o_q, the quantiles
    and shares of the individual CAP, and the records a majority-vote attacker gets right.
    """
    prob_list = list(probs) if isinstance(probs, Sequence) else []
    if not prob_list or any(
        isinstance(p, bool) or not isinstance(p, int | float) or not 0 <= p <= 1 for p in prob_list
    ):
        raise InputError(f"probs: expected a non-empty list of numbers in [0, 1], got {probs!r}")
    run = _prepare(original, synthetic, control, keys, sensitive, threads, engine=engine)
    params = {f"p_{i}": float(p) for i, p in enumerate(prob_list)}
    try:
        out = []
        for side, side_q in _sides(run):
            sql = _render(
                run.engine,
                "cap/summary.sql.j2",
                cells=CELLS,
                keys=run.keys,
                targets=run.targets,
                side=side,
                side_q=side_q,
                probs=list(params),
            )
            row = _one_row(run.engine.query(sql, params, "cap/summary"))
            n = int(row["n_original"])

            def share(count: Any, n: int = n) -> float:
                return int(count) / n if n else math.nan

            out.append(
                CapSummary(
                    n_original=n,
                    n_matched=int(row["n_matched"]),
                    mean_cap=_float(row["mean_cap"]),
                    mean_cap_matched=_float(row["mean_cap_matched"]),
                    mean_cap_original=_float(row["mean_cap_original"]),
                    min_cap=_float(row["min_cap"]),
                    min_cap_matched=_float(row["min_cap_matched"]),
                    share_cap_ge_half=share(row["n_cap_ge_half"]),
                    share_cap_ge_08=share(row["n_cap_ge_08"]),
                    share_cap_eq_1=share(row["n_cap_eq_1"]),
                    majority_correct=_float(row["majority_correct"]),
                    quantiles={
                        float(p): _float(row[f"quantile_{i}"]) for i, p in enumerate(prob_list)
                    },
                )
            )
    finally:
        run.engine.close()
    if len(out) == 2:
        return CapSummary(**{**out[0].__dict__, "control": out[1]})
    return out[0]
