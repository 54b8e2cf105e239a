"""The public entry point: :func:`disclosure`."""

from __future__ import annotations

from typing import Any

from ..core.inputs import named_columns, open_inputs
from ..core.results import DisclosureResult
from ..core.spec import DisclosureOptions, build_spec
from ..core.stages import run


def disclosure(
    original: Any,
    synthetic: Any,
    keys: Any,
    target: Any,
    *,
    denom_lim: int = 5,
    exclude_ov_denom_lim: bool = False,
    not_targetlev: str | list[str] | None = None,
    use_target_na: bool = True,
    use_keys_na: bool | list[bool] = True,
    exclude_keys: list[str] | None = None,
    exclude_keylevs: list[str] | None = None,
    exclude_targetlevs: list[str] | None = None,
    ngroups_target: int | None = None,
    ngroups_keys: int | list[int] | None = None,
    cont_na: dict[str, Any] | None = None,
    thresh_1way: tuple[float, float] = (50, 90),
    thresh_2way: tuple[float, float] = (4, 80),
    tau: float | list[float] | None = None,
    threads: int | None = None,
    engine: Any = None,
) -> DisclosureResult:
    """Identity and attribute disclosure measures of synthpop's ``disclosure()``, computed in SQL.

    An intruder knows the ``keys`` (quasi-identifiers) of a person and looks up the ``target``.
    With q a key combination, t a target level, d_tq / s_tq the original / synthetic counts,
    d.q / s.q their q margins and Nd / Ns the row counts (all values in %):

    * UiO = #{q: d.q = 1}/Nd, UiS = #{q: s.q = 1}/Ns, UiOiS = #{q: d.q = 1, s.q > 0}/Nd,
      repU = #{q: d.q = 1, s.q = 1}/Nd;
    * Dorig = sum(d_tq: d_tq = d.q)/Nd, Dsyn = sum(s_tq: s_tq = s.q)/Ns, iS = sum(d.q: s.q > 0)/Nd,
      DiS = sum(d.q: q disclosive in the synthesis)/Nd, DiSCO = sum(d_tq: s_tq = s.q > 0)/Nd,
      DiSDiO = DiSCO cells that are also disclosive in the original; max_denom / mean_denom =
      max / mean of d_tq over DiSCO cells;
    * baseCAPd = sum_t (d_t./Nd)^2, CAPd = sum d_tq^2/d.q / Nd, CAPs = sum s_tq^2/s.q / Ns,
      DCAP = sum d_tq s_tq/s.q / Nd, TCAP = DiSCO / iS (synthpop's code; its vignette's
      TCAP_alt), TCAP_little = DiSCO / DiS (Little et al.; the vignette's TCAP from 1.9-3);
    * DiSCO(tau) = sum(d_tq: s_tq / s.q >= tau)/Nd, the share of original records whose
      probability of correct attribution reaches tau (``disco_curve``: at every distinct
      probability; ``disco_tau``: at the ``tau`` asked). DiSCO(1) = DiSCO; without
      exclusions the area under the curve is DCAP.

    Args:
        original: the confidential data: a path or glob to Parquet/CSV files, a pyarrow Table or
            RecordBatchReader, a pandas DataFrame, a DuckDB relation, or
            ``duckdb_table(file, table)``.
        synthetic: one synthetic data set of the same kinds, or a list of m of them.
        keys: the key column names (quasi-identifiers).
        target: the target column name.
        denom_lim, exclude_ov_denom_lim: with ``exclude_ov_denom_lim``, cells with a count above
            ``denom_lim`` are removed from each table (synthpop's ``denom_lim``).
        not_targetlev: target level(s) removed from all tables.
        use_target_na: False removes the target level "Missing" (if the original has it).
        use_keys_na: False (for all keys, or per key in a list aligned with ``keys``) removes
            key combinations with a missing value in that key.
        exclude_keys, exclude_keylevs, exclude_targetlevs: parallel lists; triple i removes the
            cells with target level ``exclude_targetlevs[i]`` whose key ``exclude_keys[i]`` has
            level ``exclude_keylevs[i]``.
        ngroups_target, ngroups_keys: group numeric variables into that many quantile groups
            (0 = no grouping); ``ngroups_keys`` is one int for every numeric key or a list aligned
            with ``keys``.
        cont_na: ``{column: [codes]}`` special numeric values kept as their own level when grouping.
        thresh_1way, thresh_2way: thresholds (count, percent) of the two checks.
        tau: a certainty or a list of them, each in [0, 1]: DiSCO(tau) at each
            (``disco_tau``, ascending); the curve ``disco_curve`` is always computed.
        threads: DuckDB threads (default: all cores).
        engine: where the SQL runs: None or ``"duckdb"`` (embedded DuckDB, the default), a
            PostgreSQL DSN or ``ds.postgres(dsn)`` (data sets are then table names on that
            server), or a SparkSession or ``ds.spark(session)`` (table names, Parquet paths or
            DataFrames). Only the result tables come back.

    Returns:
        A :class:`DisclosureResult` with Arrow tables ``ident``, ``attrib``, ``allcaps``,
        ``measures``, ``exclusions``, ``check_1way``, ``check_2way``, ``disco_curve`` and
        ``disco_tau``.

    Raises:
        InputError: for any bad argument or data, before measures are computed.
    """
    options = DisclosureOptions(
        not_targetlev,
        use_target_na,
        exclude_keys,
        exclude_keylevs,
        exclude_targetlevs,
        ngroups_target,
        denom_lim,
        exclude_ov_denom_lim,
        use_keys_na,
        ngroups_keys,
        cont_na,
        thresh_1way,
        thresh_2way,
        tau,
    )
    spec = build_spec(keys, target, options)
    named = named_columns(dict.fromkeys(spec.keys, "key") | {spec.target: "target"})
    with open_inputs(engine, threads, original, synthetic, check=named) as inputs:
        return run(inputs, spec)
