"""The numbers the attacks share: the rates, anonymeter's residual risk and its confidence
intervals (statice/anonymeter 0188bdf, ``src/anonymeter/stats/confidence.py``), computed in SQL
on an attack's one-row counts (``sql_templates/anonymity/rates.sql.j2``) by a run and by an
exported script alike, and how the results print them."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ..sql.templates import render

if TYPE_CHECKING:
    from ..engines.base import Engine

CONFIDENCE_LEVEL = 0.95  # anonymeter's default (EvaluationResults, the evaluators' risk())
RATES_TEMPLATE = "anonymity/rates.sql.j2"
RATE_FIELDS = [
    (name, pa.float64())
    for name in ("rate", "control_rate", "risk", "ci_low", "ci_high", "rate_ci_low", "rate_ci_high")
]


@dataclass(frozen=True)
class Rates:
    """An attack's rates as rates.sql.j2 computes them: ``rate`` (NaN without attacks),
    ``control_rate`` and ``risk`` = (rate - control_rate) / (1 - control_rate) (None without a
    control, NaN where undefined), ``ci`` (anonymeter's interval of its ``risk()``: the
    rate's without a control, the residual risk's with one) and ``rate_ci``, the rate's
    Wilson score interval, both clipped to [0, 1]."""

    rate: float
    control_rate: float | None
    risk: float | None
    ci: tuple[float, float]
    rate_ci: tuple[float, float]

    @classmethod
    def of(cls, row: Mapping[str, Any], control: bool) -> Rates:
        """The rates of rates.sql.j2's row (NULL where a number is undefined: NaN here;
        ``control``: whether the attack had a control, else its rate and risk are None)."""

        def value(name: str) -> float:
            v = row[name]
            return math.nan if v is None else float(v)

        return cls(
            rate=value("rate"),
            control_rate=value("control_rate") if control else None,
            risk=value("risk") if control else None,
            ci=(value("ci_low"), value("ci_high")),
            rate_ci=(value("rate_ci_low"), value("rate_ci_high")),
        )


class AttackRates:
    """``rate``, ``control_rate``, ``risk``, ``ci`` and ``rate_ci`` of an attack result, from
    its ``rates`` (a mixin of the frozen result dataclasses)."""

    rates: Rates

    @property
    def rate(self) -> float:
        """successes / attacks, on the original (NaN without attacks)."""
        return self.rates.rate

    @property
    def control_rate(self) -> float | None:
        """The control's rate (None without a control)."""
        return self.rates.control_rate

    @property
    def risk(self) -> float | None:
        """(rate - control_rate) / (1 - control_rate) (None without a control)."""
        return self.rates.risk

    @property
    def rate_ci(self) -> tuple[float, float]:
        """The rate's Wilson score interval over the attacks (anonymeter's
        ``SuccessRate.to_risk()``)."""
        return self.rates.rate_ci

    @property
    def ci(self) -> tuple[float, float]:
        """The interval of anonymeter's ``risk()``: the rate's without a control, the residual
        risk's with one."""
        return self.rates.ci


def number(x: float | None) -> str:
    return "NaN" if x is None or math.isnan(x) else f"{x:.4f}"


def interval(ci: tuple[float, float]) -> str:
    return f"[{number(ci[0])}, {number(ci[1])}]"


def rates(
    engine: Engine,
    counts: str,
    columns: Sequence[tuple[str, pa.DataType]],
    attack: tuple[str, str],
    control: tuple[str, str] | None,
    params: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """The attack's summary: the one-row query ``counts`` (its ``columns``, name and type,
    first) with the rates, the risk and the intervals (``anonymity/rates.sql.j2``); ``attack``
    and ``control`` name the columns holding (attacks, successes); ``params``: the parameters
    of ``counts``. The row, or None on a script engine (it prints the row where it runs)."""
    z = NormalDist().inv_cdf(0.5 * (1.0 + CONFIDENCE_LEVEL))
    cn, ck = control or (None, None)
    sql = render(
        RATES_TEMPLATE,
        engine.dialect,
        counts=counts,
        columns=[name for name, _ in columns],
        n=attack[0],
        k=attack[1],
        control=control is not None,
        cn=cn,
        ck=ck,
    )
    schema = pa.schema([*columns, *RATE_FIELDS])
    got = engine.query(sql, {**(params or {}), "z": z}, RATES_TEMPLATE, small=True, schema=schema)
    rows = got.to_pylist()
    return rows[0] if rows else None
