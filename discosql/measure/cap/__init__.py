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

Layout: :mod:`.scores` (result types), :mod:`.cells` (validation, inputs, bin edges and the
cell table), :mod:`.generalized` (the SDMetrics scores, with GeneralizedCAP's rounds); the
public functions are here.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any, Literal

import pyarrow as pa

from ...engines.base import Engine
from ...errors import InputError, did_you_mean
from .cells import (
    CELLS,
    PROBS,
    RECORD_COLUMNS,
    CapAsk,
    _float,
    _names,
    _one_row,
    _render,
    _Run,
    _sides,
    cap_cells,
)
from .generalized import METHODS, _cap_score, _exact, _scored
from .scores import CapScore, CapSummary, DisclosureProtectionScore, TaubTCAP


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
        [] if continuous_columns is None else _names("continuous_columns", continuous_columns)
    )
    ask = CapAsk(keys, sensitive, continuous=continuous, bins=num_discrete_bins)
    with cap_cells((original, synthetic, control), ask, engine, threads) as run:
        score = _cap_score(run, computation_method)
        levels = _exact(run, "s", "sq")["n_target_levels"]
    baseline = 1.0 - float(1.0 / levels) if levels else math.nan

    def protect(s: CapScore) -> DisclosureProtectionScore:
        value = math.nan if not baseline or math.isnan(baseline) else min(s.score / baseline, 1.0)
        return DisclosureProtectionScore(value, s.score, baseline, computation_method)

    result = protect(score)
    if score.control is not None:
        result = replace(result, control=protect(score.control))
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
    ask = CapAsk(keys, target, sensitive_arg="target")
    with cap_cells((original, synthetic, control), ask, engine, threads) as run:
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
    if len(results) == 2:
        return replace(results[0], control=results[1])
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
    Rows are sorted by the cell: the keys, then the sensitive columns, by level name in byte
    order.
    ``stream=True`` returns a ``pyarrow.RecordBatchReader`` that reads the result in batches
    (for big data); the engine stays open until the reader is exhausted or closed.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InputError(f"batch_size: expected an int >= 1, got {batch_size!r}")
    ask = CapAsk(keys, sensitive, reserved=RECORD_COLUMNS)
    with contextlib.ExitStack() as stack:
        run = stack.enter_context(cap_cells((original, synthetic, control), ask, engine, threads))
        sql = _render(
            run.engine,
            "cap/records.sql.j2",
            cells=CELLS,
            keys=run.keys,
            targets=run.targets,
            control=run.has_control,
        )
        if stream:  # the engine stays open for the reader, which closes it
            reader = _stream(run.engine, sql, batch_size, stack.pop_all())
            return reader
        # cast, not conformed: NULL here means "no such record" (as in the streamed batches),
        # not a measure SQLite could not write as NaN
        return run.engine.query(sql, {}, "cap/records").cast(_records_schema(run))


def _stream(
    engine: Engine, sql: str, batch_size: int, close: contextlib.ExitStack
) -> pa.RecordBatchReader:
    """The query's result in batches; ``close`` (the engine's) runs when the reader is
    done, or now if the query fails."""
    with close:
        reader = engine.stream(sql, {}, "cap/records", batch_size)
        kept = close.pop_all()

    def batches() -> Iterator[pa.RecordBatch]:
        with kept:
            yield from reader

    return pa.RecordBatchReader.from_batches(reader.schema, batches())


def _records_schema(run: _Run) -> pa.Schema:
    """cap_records' column types on every engine (SQLite has no booleans, PostgreSQL's counts
    are NUMERIC sums)."""
    flags = ("matched", "disclosive_original", "disclosive_synthetic", "disco", "replicated_unique")
    fields = [pa.field(c.name, pa.string()) for c in run.keys + run.targets]
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
    params = {f"p_{i}": float(p) for i, p in enumerate(prob_list)}
    with cap_cells((original, synthetic, control), CapAsk(keys, sensitive), engine, threads) as run:
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
    if len(out) == 2:
        return replace(out[0], control=out[1])
    return out[0]


__all__ = [
    "CapScore",
    "CapSummary",
    "DisclosureProtectionScore",
    "TaubTCAP",
    "cap_records",
    "cap_summary",
    "categorical_cap",
    "categorical_generalized_cap",
    "categorical_zero_cap",
    "disclosure_protection",
    "taub_tcap",
]
