"""Plots drawn with matplotlib (an optional dependency): synthpop's multi.disclosure comparison
plot, and the key sweep's risk by number of keys with its heat map of key contributions. Both
draw the chart models of :mod:`.charts`, which the report draws as SVG."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .charts import SummaryChart, SweepChart, finite

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ORIGINAL_COLOUR = "#F8766D"  # ggplot2's first two hues, as in synthpop's plot
SYNTHETIC_COLOUR = "#00BFC4"


def _figure(**kwargs: Any) -> Figure:
    try:
        from matplotlib.figure import Figure
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("plotting needs matplotlib: pip install matplotlib") from e
    return Figure(layout="constrained", **kwargs)


def plot_summary(chart: SummaryChart) -> Figure:
    """The summary's comparison plot (:class:`~discosql.core.charts.SummaryChart`) with
    matplotlib: targets run bottom to top in the chart's order, x from 0 to 100, as
    synthpop's ``multi.disclosure(plot = TRUE)``."""
    rows = chart.rows
    fig = _figure(figsize=(8, 1.2 + 0.45 * max(len(rows), 1)))
    ax = fig.add_subplot()
    for y, r in enumerate(rows):
        if finite(r.orig) and finite(r.syn) and r.orig != r.syn:
            ax.annotate(
                "",
                xy=(r.syn, y),
                xytext=(r.orig, y),
                arrowprops={"arrowstyle": "-|>", "color": "grey", "lw": 1.2, "shrinkB": 7},
            )
    ys = range(len(rows))
    for name, colour, marker, text in (
        ("orig", ORIGINAL_COLOUR, "o", f"attrib.orig ({chart.orig_meas})"),
        ("syn", SYNTHETIC_COLOUR, "^", f"attrib.syn ({chart.attrib_meas})"),
    ):
        xs = [getattr(r, name) if finite(getattr(r, name)) else math.nan for r in rows]
        ax.scatter(xs, ys, s=80, color=colour, marker=marker, label=text, zorder=3)
    if chart.has_worst:
        xs = [r.worst if finite(r.worst) else math.nan for r in rows]
        ax.scatter(xs, ys, s=80, color="black", marker="|", label="worst synthesis", zorder=3)
    ax.set_yticks(list(ys), [r.label for r in rows])
    ax.set_xlim(0, 100)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel("Disclosure measure")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    fig.suptitle(chart.title, x=0.02, ha="left")
    ax.set_title(chart.subtitle, loc="left", fontsize="small")
    return fig


def plot_sweep(chart: SweepChart) -> Figure:
    """A key sweep's plot (:class:`~discosql.core.charts.SweepChart`) with matplotlib. Left:
    the measure of every swept subset against its number of keys, one colour per target, a
    line through each target's worst subset per size. Right: each key's mean increase of the
    measure when it is added, per target, a heat map."""
    keys, targets, measure = chart.keys, chart.targets, chart.measure
    fig = _figure(figsize=(11, 1.5 + max(3.5, 0.35 * len(keys))))
    ax, heat = fig.subplots(1, 2, width_ratios=[3, 2])
    colours = [f"C{i % 10}" for i in range(len(targets))]
    for target, colour, points, worst in zip(
        targets, colours, chart.series, chart.worst, strict=True
    ):
        ax.scatter([n for n, _ in points], [v for _, v in points], s=14, alpha=0.5, color=colour)
        ax.plot([n for n, _ in worst], [v for _, v in worst], color=colour, label=target)
    ax.set_xlabel("keys known to the intruder")
    ax.set_ylabel(f"{measure} (mean over syntheses)")
    ax.set_xticks(range(1, chart.sizes + 1))
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", title="target (line: worst subset)", title_fontsize="small")
    grid = [list(row) for row in chart.grid]
    image = heat.imshow(grid, cmap="Reds", aspect="auto")
    heat.set_xticks(range(len(targets)), list(targets), rotation=45, ha="right")
    heat.set_yticks(range(len(keys)), list(keys))
    top = chart.heat_top
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if finite(v):  # white on the dark half of the colour scale
                colour = "white" if top and v > top / 2 else "black"
                heat.text(
                    j, i, f"{v:.2f}", ha="center", va="center", fontsize="x-small", color=colour
                )
    fig.colorbar(image, ax=heat, label=f"mean increase of {measure} when the key is added")
    fig.suptitle(chart.title, x=0.02, ha="left")
    return fig
