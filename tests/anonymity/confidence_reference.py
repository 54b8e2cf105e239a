"""anonymeter's confidence intervals in plain Python (statice/anonymeter 0188bdf,
``src/anonymeter/stats/confidence.py``), operation by operation: the reference that
``sql_templates/anonymity/rates.sql.j2`` (which discosql's results read) must match to the
last digit."""

from __future__ import annotations

import math
from statistics import NormalDist


def success_rate(n_total: int, n_success: int, confidence_level: float) -> tuple[float, float]:
    """The Wilson score estimate of a success rate and its error (confidence.py L57-102,
    ``success_rate``): z = probit((1 + level) / 2) (L49-54; the normal quantile of the
    standard library, as scipy's ``norm.ppf``), rate = (k + z^2 / 2) / (n + z^2), error =
    z / (n + z^2) * sqrt(k (n - k) / n + z^2 / 4). NaN for both when n = 0 (anonymeter
    divides by zero)."""
    if n_total == 0:
        return math.nan, math.nan
    z = NormalDist().inv_cdf(0.5 * (1.0 + confidence_level))
    z_squared = z * z
    n_success_var = n_success * (n_total - n_success) / n_total
    denominator = n_total + z_squared
    rate = (n_success + 0.5 * z_squared) / denominator
    error = (z / denominator) * math.sqrt(n_success_var + 0.25 * z_squared)
    return rate, error


def residual_success(
    attack: tuple[float, float], control: tuple[float, float]
) -> tuple[float, float]:
    """The residual success (attack - control) / (1 - control) of two Wilson estimates
    (value, error), its error propagated to first order (confidence.py L105-141,
    ``residual_success``)."""
    (a, a_err), (c, c_err) = attack, control
    if math.isnan(a) or math.isnan(c) or c == 1:
        return math.nan, math.nan
    residual = (a - c) / (1.0 - c)
    der_wrt_attack = 1 / abs(1 - c)
    der_wrt_control = (a - 1) / (1 - c) ** 2
    error = math.sqrt((a_err * der_wrt_attack) ** 2 + (c_err * der_wrt_control) ** 2)
    return residual, error


def bind_value(point_estimate: float, error_bound: float) -> tuple[float, float]:
    """The interval point +- error clipped to [0, 1] (confidence.py L144-166, ``bind_value``;
    NaN stays NaN)."""
    if math.isnan(point_estimate) or math.isnan(error_bound):
        return math.nan, math.nan
    lower = min(max(point_estimate - error_bound, 0.0), 1.0)
    upper = min(max(point_estimate + error_bound, 0.0), 1.0)
    return lower, upper
