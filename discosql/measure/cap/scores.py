"""The results of the CAP functions: scores with their control baseline and excess risk."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from ...core.results import AsData, plain


class _Plain(AsData):
    """to_dict()/to_json() for the score dataclasses: their fields and derived properties
    (risk, excess_risk) as plain data, NaN as None, a control score nested."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            out[f.name] = value.to_dict() if isinstance(value, _Plain) else plain(value)
        for name in ("risk", "excess_risk"):
            if hasattr(type(self), name):
                out[name] = plain(getattr(self, name))
        return out


def _excess(risk: float, control_risk: float) -> float:
    """(risk - control_risk) / (1 - control_risk); NaN when the control already attains 1."""
    if math.isnan(risk) or math.isnan(control_risk) or control_risk >= 1:
        return math.nan
    return (risk - control_risk) / (1 - control_risk)


# -- results ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class CapScore(_Plain):
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
class DisclosureProtectionScore(_Plain):
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
class TaubTCAP(_Plain):
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
class CapSummary(_Plain):
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
