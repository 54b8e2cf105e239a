"""The one model of each chart discosql draws, whoever draws it: the report as inline SVG
(:mod:`discosql.report.charts`) and ``.plot()`` with matplotlib (:mod:`discosql.core.plot`).

A model holds what the chart shows (points, labels, the worst subset per size, the heat map's
grid) and nothing about pixels, so the two drawings of one chart cannot disagree.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from .results import ATTRIB_MEASURES


def finite(v: object) -> TypeGuard[float]:
    """Whether ``v`` is a number a chart can place (not None, NaN or infinite)."""
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


@dataclass(frozen=True)
class SummaryRow:
    """One target of the summary's comparison plot: the original's measure, the synthetic
    one (the mean over the syntheses), the worst synthesis (None: not shown) and the checks
    that flagged it (``1way``, ``2way``)."""

    target: str
    orig: float | None
    syn: float | None
    worst: float | None = None
    checks: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        checks = f" ({' & '.join(self.checks)} checks)" if self.checks else ""
        return self.target + checks


@dataclass(frozen=True)
class SummaryChart:
    """synthpop's ``multi.disclosure(plot = TRUE)``: per target (``rows``, top to bottom) a
    circle at the original's measure (``orig_meas``), a triangle at the synthetic one
    (``attrib_meas``), an arrow between them; x from 0 to 100."""

    rows: tuple[SummaryRow, ...]
    attrib_meas: str
    orig_meas: str

    title = "Comparison of attribute disclosure measures"

    @property
    def subtitle(self) -> str:
        return f"{self.attrib_meas} for synthetic data to {self.orig_meas} for original data."

    @property
    def has_worst(self) -> bool:
        return any(finite(r.worst) for r in self.rows)

    @classmethod
    def of_rows(
        cls, rows: Iterable[Mapping[str, Any]], attrib_meas: str, orig_meas: str
    ) -> SummaryChart:
        """From plain rows (target, orig, syn, worst, checks), as the report shapes them."""
        return cls(
            tuple(
                SummaryRow(
                    str(r["target"]),
                    r.get("orig"),
                    r.get("syn"),
                    r.get("worst"),
                    tuple(r.get("checks") or ()),
                )
                for r in rows
            ),
            attrib_meas,
            orig_meas,
        )

    @classmethod
    def of_summary(cls, rows: Iterable[Mapping[str, Any]], attrib_meas: str) -> SummaryChart:
        """From a DisclosureSummary's table rows (attrib_orig, attrib_syn, check1, check2)."""
        return cls(
            tuple(
                SummaryRow(
                    str(r["target"]),
                    r["attrib_orig"],
                    r["attrib_syn"],
                    None,
                    tuple(n for n, on in (("1way", r["check1"]), ("2way", r["check2"])) if on),
                )
                for r in rows
            ),
            attrib_meas,
            ATTRIB_MEASURES[attrib_meas],
        )


@dataclass(frozen=True)
class SweepChart:
    """A key sweep's plot. ``series``: per target, the (number of keys, value) of every
    subset with a finite value, sorted; ``worst``: per target, its worst value per number of
    keys (the line); ``grid``: per key, per target, the mean increase of ``measure`` when the
    key is added (NaN where there is none)."""

    keys: tuple[str, ...]
    targets: tuple[str, ...]
    measure: str
    series: tuple[tuple[tuple[int, float], ...], ...]
    worst: tuple[tuple[tuple[int, float], ...], ...]
    grid: tuple[tuple[float, ...], ...]

    @property
    def title(self) -> str:
        return f"Key sweep: {self.measure} by the keys an intruder holds"

    @property
    def sizes(self) -> int:
        """The x axis's last number of keys (at least the number of keys)."""
        return max([len(self.keys), *(n for pts in self.series for n, _ in pts)], default=1) or 1

    @property
    def heat_top(self) -> float:
        """The heat map's largest mean increase (0 when none is positive)."""
        return max((v for row in self.grid for v in row if finite(v)), default=0.0)

    @classmethod
    def build(
        cls,
        means: Mapping[tuple[str, tuple[str, ...]], float],
        contribution: Iterable[Mapping[str, Any]],
        keys: Sequence[str],
        targets: Sequence[str],
        measure: str,
    ) -> SweepChart:
        """From a sweep's means ({(target, subset): the mean over the syntheses}) and its
        contribution rows (key, target, measure, mean_increase)."""
        series = tuple(
            tuple(
                sorted(
                    (len(s), float(v)) for (t, s), v in means.items() if t == target and finite(v)
                )
            )
            for target in targets
        )
        worst = tuple(
            tuple((n, max(v for m, v in pts if m == n)) for n in sorted({n for n, _ in pts}))
            for pts in series
        )
        lookup = {
            (r["key"], r["target"]): r["mean_increase"]
            for r in contribution
            if r["measure"] == measure
        }
        grid = tuple(
            tuple(float(v) if finite(v := lookup.get((k, t))) else math.nan for t in targets)
            for k in keys
        )
        return cls(tuple(keys), tuple(targets), measure, series, worst, grid)
