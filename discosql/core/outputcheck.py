"""The numbers a report prints: exact in an internal report, through an output check in an
external one. A publishable report is itself an output that output checkers review, so every
number it prints about the data is derived from counts that passed the rules trusted research
environments apply (OpenSAFELY: counts of 7 or fewer suppressed, the rest rounded to 5).

An external report:
* shows a count below ``min_count`` as "< min_count" and rounds the others to the nearest
  ``round_to`` (zero is shown: it reveals no one);
* shows a percentage of records as 100 · c' / N', with c' the count it stands for and N' the
  data set's records, both as the check shows them, or "withheld" when c' is suppressed. An
  exact percentage would give the exact count back (``Fraction(p / 100)`` with the data set's
  size), so no percentage is printed that is not a ratio of two shown counts;
* treats the CAP scores (means of probabilities over the original records) the same way, as
  shares of the original's records: at full precision they can give marginal counts back;
* derives every mean over syntheses, every ratio (synthpop's TCAP = DiSCO / iS, DCAP / iS, the
  excess risk) and every total from the numbers it shows;
* writes percentages with ``decimals`` decimals, as few as make one step of the last decimal
  stand for at least two records of the smallest data set: a percentage so written cannot
  single out a whole number of records of any data set the report names.

Parameters (thresholds, τ, rounding rules, numbers of keys, syntheses and subsets), counts of
level pairs (check_2way's npairs), risk thresholds and SUDA's key contributions are not counts
or shares of records and are printed as they are (``docs/report.md``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MIN_COUNT = 8  # counts of 7 or fewer suppressed (OpenSAFELY)
ROUND_TO = 5

# percentages of records, by the data set they are shares of (synthpop's N_d and N_s)
OF_ORIGINAL = ("UiO", "UiOiS", "repU", "Dorig", "iS", "DiS", "DiSCO", "DiSDiO")
OF_SYNTHESIS = ("UiS", "Dsyn")
# means of probabilities over the original's records, in percent
PROBABILITIES = ("baseCAPd", "CAPd", "CAPs", "DCAP")


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and not math.isnan(v)


def _mean(values: Sequence[Any]) -> Any:
    if any(isinstance(v, str) for v in values):
        return next(v for v in values if isinstance(v, str))
    return math.fsum(values) / len(values) if values else math.nan


class Exact:
    """An internal report's numbers: as measured."""

    external = False

    def mean(self, values: Sequence[Any]) -> Any:
        """The mean over the syntheses (NaN for none), as the summary's table takes it."""
        return _mean(values)

    def count(self, n: Any) -> Any:
        return n

    def share(self, p: Any, n: int) -> Any:
        return p

    def measure(self, name: str, value: Any, j: int | None = None) -> Any:
        return value

    def of_synthesis(self, p: Any, j: int) -> Any:
        """``p`` percent of synthesis ``j``'s records."""
        return p

    def ratio(self, exact: Any, num: Any, den: Any) -> Any:
        """``exact``: the measured ratio (an external report derives it from ``num`` and
        ``den`` as shown)."""
        return exact

    def total(self, parts: Sequence[Any], exact: int) -> tuple[Any, bool]:
        """The total of ``parts`` and whether it is rounded apart from them."""
        return exact, False


@dataclass(frozen=True)
class OutputCheck:
    """The rules, and the records of the original and of each synthesis (the denominators)."""

    min_count: int
    round_to: int
    original: int
    syntheses: tuple[int, ...] = ()
    smallest: int = 0  # records of the smallest data set (0: the original's)

    external = True

    @property
    def decimals(self) -> int:
        """Decimals of a percentage: one step of the last stands for >= 2 records of the
        smallest data set (as shown), down to steps of 100%."""
        n = self.count(self.smallest or self.original)
        n = n if isinstance(n, int) else 0
        return next((d for d in range(4, -3, -1) if 10.0**-d * n / 100 >= 2), -2)

    def mean(self, values: Sequence[Any]) -> Any:
        """The mean of the shown values (withheld if one is), rounded as a percentage."""
        m = _mean(values)
        return round(m, self.decimals) if _number(m) else m

    @property
    def withheld(self) -> str:
        return f"withheld (< {self.min_count} records)"

    def count(self, n: Any) -> Any:
        """A count as an external report may print it."""
        if not isinstance(n, int) or isinstance(n, bool) or n == 0:
            return n
        if n < self.min_count:
            return f"< {self.min_count}"
        return int(self.round_to * math.floor(n / self.round_to + 0.5))

    def share(self, p: Any, n: int) -> Any:
        """``p`` percent of ``n`` records, as 100 · c' / n' (c' and n' as the check shows
        them), or withheld."""
        if not _number(p):
            return p
        shown_n = self.count(n)
        if not isinstance(shown_n, int) or shown_n == 0:
            return self.withheld
        shown = self.count(round(p * n / 100))
        if isinstance(shown, str):
            return self.withheld
        return round(100.0 * shown / shown_n, self.decimals)

    def measure(self, name: str, value: Any, j: int | None = None) -> Any:
        """A synthpop measure of synthesis ``j`` (1-based; None: a mean over them)."""
        if name in OF_ORIGINAL or name in PROBABILITIES:
            return self.share(value, self.original)
        if name in OF_SYNTHESIS:
            return self.of_synthesis(value, j)
        raise ValueError(f"the output check has no rule for the measure {name!r}")

    def of_synthesis(self, p: Any, j: int | None) -> Any:
        """``p`` percent of synthesis ``j``'s records (None: of the smallest synthesis)."""
        sizes = self.syntheses or (self.original,)
        return self.share(p, sizes[j - 1] if j else min(sizes))

    def ratio(self, exact: Any, num: Any, den: Any) -> Any:
        """100 · num / den from the shown numbers (withheld if either is; NaN for den 0)."""
        for v in (num, den):
            if isinstance(v, str):
                return v
        if not _number(num) or not _number(den) or den == 0:
            return math.nan
        return round(100.0 * num / den, self.decimals)

    def total(self, parts: Sequence[Any], exact: int) -> tuple[Any, bool]:
        """The sum of the shown parts when each is a number; else the total through the
        check, said to be rounded on its own."""
        if all(isinstance(p, int) and not isinstance(p, bool) for p in parts):
            return sum(parts), False
        return self.count(exact), True

    def described(self) -> str:
        return (
            f"counts below {self.min_count} shown as '< {self.min_count}', the others rounded "
            f"to the nearest {self.round_to}; every percentage of records (and every CAP "
            "score) is the ratio of two counts so shown, or withheld when its count is "
            f"below {self.min_count}; means, ratios and totals are taken of the numbers "
            f"shown; percentages are exact to {self.decimals} decimal(s) (a step of the last "
            "stands for at least two records of the smallest data set; further digits are "
            "padding) (output checking as in OpenSAFELY; change with min_count= / "
            "--min-count and round_to= / --round-to)"
        )


Numbers = Exact | OutputCheck
