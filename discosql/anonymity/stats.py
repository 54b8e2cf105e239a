"""The numbers the attacks share: rates, anonymeter's residual risk and its confidence
intervals (statice/anonymeter 0188bdf, ``src/anonymeter/stats/confidence.py``), and how the
results print them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

from ..sql.templates import render

if TYPE_CHECKING:
    from ..engines.base import Engine

CONFIDENCE_LEVEL = 0.95  # anonymeter's default (EvaluationResults, the evaluators' risk())


def ratio(a: int, b: int) -> float:
    """a / b (NaN when b is 0)."""
    return a / b if b else math.nan


def residual_risk(rate: float, control: float | None) -> float | None:
    """(rate - control) / (1 - control), anonymeter's residual risk: None without a control,
    NaN when the control's rate is NaN or 1."""
    if control is None:
        return None
    if math.isnan(control) or control == 1:
        return math.nan
    return (rate - control) / (1 - control)


def intervals(
    n: int, k: int, control: tuple[int, int] | None, level: float
) -> tuple[tuple[float, float], tuple[float, float]]:
    """(ci, rate_ci): anonymeter's interval of what its ``risk()`` reports (the rate's
    without a control, the residual risk's with one; ``control`` = (attacks, successes) on
    it) and the rate's own, both clipped to [0, 1]."""
    attack = success_rate(n, k, level)
    rate_ci = bind_value(*attack)
    if control is None:
        return rate_ci, rate_ci
    return bind_value(*residual_success(attack, success_rate(*control, level))), rate_ci


class AttackRates:
    """``risk``, ``ci`` and ``rate_ci`` of an attack result, from its ``rate``,
    ``control_rate`` and :meth:`counts` (a mixin of the frozen result dataclasses)."""

    confidence_level: float

    @property
    def rate(self) -> float:
        raise NotImplementedError

    @property
    def control_rate(self) -> float | None:
        raise NotImplementedError

    def counts(self) -> tuple[int, int, tuple[int, int] | None]:
        """(attacks, successes, (control attacks, control successes) or None)."""
        raise NotImplementedError

    @property
    def risk(self) -> float | None:
        """(rate - control_rate) / (1 - control_rate) (None without a control)."""
        return residual_risk(self.rate, self.control_rate)

    @property
    def rate_ci(self) -> tuple[float, float]:
        """The rate's Wilson score interval over the attacks (anonymeter's
        ``SuccessRate.to_risk()``)."""
        return intervals(*self.counts(), self.confidence_level)[1]

    @property
    def ci(self) -> tuple[float, float]:
        """The interval of anonymeter's ``risk()``: the rate's without a control, the residual
        risk's with one."""
        return intervals(*self.counts(), self.confidence_level)[0]


def number(x: float | None) -> str:
    return "NaN" if x is None or math.isnan(x) else f"{x:.4f}"


def interval(ci: tuple[float, float]) -> str:
    return f"[{number(ci[0])}, {number(ci[1])}]"


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


def print_rates(
    engine: Engine,
    counts: str,
    columns: Sequence[str],
    attack: tuple[str, str],
    control: tuple[str, str] | None,
    params: dict[str, Any] | None = None,
) -> None:
    """An exported script's summary: the one-row query ``counts`` (its ``columns`` printed
    first) with the rates, the risk and the intervals the result classes compute
    (``sql_templates/anonymity/rates.sql.j2``); ``attack`` and ``control`` name the columns
    holding (attacks, successes); ``params``: the parameters of ``counts``."""
    template = "anonymity/rates.sql.j2"
    z = NormalDist().inv_cdf(0.5 * (1.0 + CONFIDENCE_LEVEL))
    cn, ck = control or (None, None)
    sql = render(
        template,
        engine.dialect,
        counts=counts,
        columns=list(columns),
        n=attack[0],
        k=attack[1],
        control=control is not None,
        cn=cn,
        ck=ck,
    )
    engine.query(sql, {**(params or {}), "z": z}, template)
