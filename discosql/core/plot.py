"""Plots drawn with matplotlib (an optional dependency): synthpop's multi.disclosure comparison
plot, and the key sweep's risk by number of keys with its heat map of key contributions."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from .results import ATTRIB_MEASURES

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ORIGINAL_COLOUR = "#F8766D"  # ggplot2's first two hues, as in synthpop's plot
SYNTHETIC_COLOUR = "#00BFC4"


def _figure(**kwargs: Any) -> Figure:
    try:
        from matplotlib.figure import Figure
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("plotting needs matplotlib: pip install 'discosql[plot]'") from e
    return Figure(layout="constrained", **kwargs)


def plot_summary(table: pa.Table, attrib_meas: str) -> Figure:
    """Points for the original and synthetic measure of each target, an arrow to the synthetic
    (``table`` is a :class:`DisclosureSummary`'s, ``attrib_meas`` its attribute measure).

    Targets run bottom to top in the table's order (lowest synthetic risk at the bottom), x from
    0 to 100, as synthpop's ``multi.disclosure(plot = TRUE)``.
    """
    rows = table.to_pylist()
    fig = _figure(figsize=(8, 1.2 + 0.45 * max(len(rows), 1)))
    ax = fig.add_subplot()
    for y, r in enumerate(rows):
        x0, x1 = r["attrib_orig"], r["attrib_syn"]
        if x0 == x0 and x1 == x1 and x0 != x1:  # both defined (not NaN) and apart
            ax.annotate(
                "",
                xy=(x1, y),
                xytext=(x0, y),
                arrowprops={"arrowstyle": "-|>", "color": "grey", "lw": 1.2, "shrinkB": 7},
            )
    ys = range(len(rows))
    ax.scatter(
        [r["attrib_orig"] for r in rows],
        ys,
        s=80,
        color=ORIGINAL_COLOUR,
        marker="o",
        label=f"attrib.orig ({ATTRIB_MEASURES[attrib_meas]})",
        zorder=3,
    )
    ax.scatter(
        [r["attrib_syn"] for r in rows],
        ys,
        s=80,
        color=SYNTHETIC_COLOUR,
        marker="^",
        label=f"attrib.syn ({attrib_meas})",
        zorder=3,
    )
    labels = []
    for r in rows:
        flags = [name for name, on in (("1way", r["check1"]), ("2way", r["check2"])) if on]
        labels.append(r["target"] + (f"  ({' & '.join(flags)} checks)" if flags else ""))
    ax.set_yticks(list(ys), labels)
    ax.set_xlim(0, 100)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel("Disclosure measure")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    orig = ATTRIB_MEASURES[attrib_meas]
    fig.suptitle("Comparison of attribute disclosure measures", x=0.02, ha="left")
    ax.set_title(
        f"{attrib_meas} for synthetic data to {orig} for original data.",
        loc="left",
        fontsize="small",
    )
    return fig


def plot_sweep(
    means: dict[tuple[str, tuple[str, ...]], float],
    contribution: pa.Table,
    keys: Sequence[str],
    targets: Sequence[str],
    measure: str,
) -> Figure:
    """A key sweep's plot. Left: ``measure`` (``means``: {(target, subset): mean over the
    syntheses}) of every swept subset against its number of keys, one colour per target, a
    line through each target's worst subset per size. Right: each key's mean increase of
    ``measure`` when it is added, per target (``contribution``: the sweep's), a heat map."""
    fig = _figure(figsize=(11, 1.5 + max(3.5, 0.35 * len(keys))))
    ax, heat = fig.subplots(1, 2, width_ratios=[3, 2])
    colours = [f"C{i % 10}" for i in range(len(targets))]
    for target, colour in zip(targets, colours, strict=True):
        points = [(len(s), v) for (t, s), v in means.items() if t == target and v == v]
        ax.scatter([n for n, _ in points], [v for _, v in points], s=14, alpha=0.5, color=colour)
        sizes = sorted({n for n, _ in points})
        worst = [max(v for n, v in points if n == size) for size in sizes]
        ax.plot(sizes, worst, color=colour, label=target)
    ax.set_xlabel("keys known to the intruder")
    ax.set_ylabel(f"{measure} (mean over syntheses)")
    ax.set_xticks(sorted({len(s) for _, s in means}))
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", title="target (line: worst subset)", title_fontsize="small")
    rows = contribution.filter(pa.compute.equal(contribution["measure"], measure))
    lookup = {(r["key"], r["target"]): r["mean_increase"] for r in rows.to_pylist()}
    grid = [[lookup.get((k, t), math.nan) for t in targets] for k in keys]
    image = heat.imshow(grid, cmap="Reds", aspect="auto")
    heat.set_xticks(range(len(targets)), list(targets), rotation=45, ha="right")
    heat.set_yticks(range(len(keys)), keys)
    top = max((abs(v) for row in grid for v in row if v == v), default=0.0)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v == v:  # white on the dark half of the colour scale
                colour = "white" if top and v > top / 2 else "black"
                heat.text(
                    j, i, f"{v:.2f}", ha="center", va="center", fontsize="x-small", color=colour
                )
    fig.colorbar(image, ax=heat, label=f"mean increase of {measure} when the key is added")
    fig.suptitle(f"Key sweep: {measure} by the keys an intruder holds", x=0.02, ha="left")
    return fig
