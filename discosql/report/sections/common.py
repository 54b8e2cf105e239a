"""What the sections share: each measure as the report shows it (exact, or through external mode's
output check), the worst synthesis, and the order of risk."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ...core.outputcheck import Numbers
from ...core.results import DisclosureResult

# the measures that are DiSCO over another measure: an external report derives them from the
# numbers it shows (each of which went through the output check)
RATIOS = {"TCAP": "iS", "TCAP_little": "DiS"}


def shown_values(res: DisclosureResult, measure: str, num: Numbers) -> list[Any]:
    """``measure`` of each synthesis, as the report shows it (TCAP = DiSCO / iS and
    TCAP_little = DiSCO / DiS of the shown numbers in an external report)."""
    if measure in RATIOS and num.external:
        parts = ("DiSCO", RATIOS[measure])
        return [
            num.ratio(res.value(measure, j), *(num.measure(m, res.value(m, j), j) for m in parts))
            for j in range(1, res.m + 1)
        ]
    return [num.measure(measure, res.value(measure, j), j) for j in range(1, res.m + 1)]


def worst_synthesis(values: Sequence[Any]) -> int | None:
    """The synthesis (1-based) with the highest value; None if none is a number (a withheld
    value stands for fewer records than any shown one)."""
    defined = [
        (v, -j)
        for j, v in enumerate(values, start=1)
        if not isinstance(v, str) and not math.isnan(v)
    ]
    return -max(defined)[1] if defined else None


def all_withheld(values: Sequence[Any]) -> Any:
    """No synthesis's value is a number: withheld if one is, else NaN."""
    return next((v for v in values if isinstance(v, str)), math.nan)


def risk_order(value: Any) -> tuple[bool, float]:
    """Sort key: highest risk first, withheld (fewer records than any shown value) next, NaN
    (None in JSON) last."""
    if isinstance(value, str):
        return (False, 0.0)
    missing = value is None or (isinstance(value, float) and math.isnan(value))
    return (missing, 0.0 if missing else -float(value))


def mean_shown(res: DisclosureResult, measure: str, num: Numbers) -> Any:
    """The mean over the syntheses of ``measure`` as the report shows each (the summary's
    table, for an internal report)."""
    return num.mean(shown_values(res, measure, num))


def formatted(value: Any, spec: str) -> str:
    """A number formatted, or the output check's text as it is."""
    return value if isinstance(value, str) else format(value, spec)
