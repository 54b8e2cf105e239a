"""Numeric grouping as synthpop's ``group_num`` does it (classInt 0.4-9, R's quantile and cut).

SQL computes the order statistics and distinct-value counts of the pooled values (original plus
all syntheses, without NA and ``cont_na`` codes); this module decides the breaks and the labels:

* breaks: ``quantile(x, probs = seq(0, 1, 1/n))`` with R type 7; if ``n`` exceeds the number of
  distinct values it is reset to it, and if it equals it, breaks are the midpoints between sorted
  distinct values, extended by half the mean gap (classInt's "unique" style); duplicates removed;
* if that gives fewer than 3 levels (intervals plus ``cont_na`` codes), equal-width breaks
  ``seq(min, max, length.out = n + 1)`` instead;
* labels: ``cut(x, breaks, right = FALSE, include.lowest = TRUE, dig.lab = 8)``, i.e. ``[a,b)``
  with ``%.8g`` numbers (more digits, up to 12, when two neighbours would print alike) and a
  closed last interval ``[a,b]``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Grouping:
    """Breaks and labels for one numeric variable; ``codes`` are (value, label) of cont_na codes."""

    breaks: tuple[float, ...]
    labels: tuple[str, ...]
    codes: tuple[tuple[float, str], ...]
    style: str

    @property
    def levels(self) -> tuple[str, ...]:
        return self.labels + tuple(label for _, label in self.codes)


def r_probs(n: int) -> list[float]:
    """R's ``seq(0, 1, 1/n)``: ``0 + i * (1/n)`` capped at 1 (not ``i/n``: the last bits matter)."""
    by = 1.0 / n
    return [min(0.0 + i * by, 1.0) for i in range(n + 1)]


def type7_positions(n_obs: int, probs: Sequence[float]) -> list[tuple[int, int, float]]:
    """(lo, hi, h) per prob: 1-based order statistics and weight of R's type-7 quantile."""
    out = []
    for p in probs:
        index = 1 + max(n_obs - 1, 0) * p
        lo, hi = math.floor(index), math.ceil(index)
        out.append((lo, hi, index - lo))
    return out


def type7_quantiles(
    positions: Sequence[tuple[int, int, float]], order_stat: Callable[[int], float]
) -> list[float]:
    """R's ``quantile.default`` type 7: ``(1 - h) * x[lo] + h * x[hi]`` when ``x[hi] != x[lo]``."""
    qs = []
    for lo, hi, h in positions:
        q = order_stat(lo)
        if h > 0 and order_stat(hi) != q:
            q = (1 - h) * q + h * order_stat(hi)
        qs.append(q)
    return qs


def unique_breaks(distinct_sorted: Sequence[float]) -> list[float]:
    """classInt's breaks when n equals the number of distinct values: midpoints, ends padded."""
    v = list(distinct_sorted)
    gaps = [b - a for a, b in itertools.pairwise(v)]
    half_mean = (math.fsum(gaps) / len(gaps)) / 2
    return (
        [v[0] - half_mean]
        + [a + g / 2 for a, g in zip(v, gaps, strict=False)]
        + [v[-1] + half_mean]
    )


def equal_breaks(lo: float, hi: float, n: int) -> list[float]:
    """R's ``seq(lo, hi, length.out = n + 1)``: ``c(lo, lo + (1:(n-1)) * ((hi - lo)/n), hi)``."""
    by = (hi - lo) / n
    return [lo] + [lo + i * by for i in range(1, n)] + [hi]


def dedupe(values: Sequence[float]) -> list[float]:
    out: list[float] = []
    for x in values:
        if x not in out:
            out.append(x)
    return out


def cut_labels(breaks: Sequence[float], dig_lab: int = 8) -> list[str]:
    """Labels of R's ``cut(right = FALSE, include.lowest = TRUE, dig.lab = 8)``."""
    nb = len(breaks)
    for dig in range(dig_lab, max(12, dig_lab) + 1):
        ch = [f"%.{dig}g" % (0.0 + b) for b in breaks]
        if all(ch[i] != ch[i + 1] for i in range(nb - 1)):
            break
    labels = [f"[{ch[i]},{ch[i + 1]})" for i in range(nb - 1)]
    labels[-1] = labels[-1][:-1] + "]"
    return labels


def number_label(x: float) -> str:
    """Level name of a number: integral values without decimals (57, not 57.0)."""
    if math.isfinite(x) and x == math.trunc(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))
