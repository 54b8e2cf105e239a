"""synthpop's multi.disclosure comparison plot, drawn with matplotlib (an optional dependency)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from .results import ATTRIB_MEASURES

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ORIGINAL_COLOUR = "#F8766D"  # ggplot2's first two hues, as in synthpop's plot
SYNTHETIC_COLOUR = "#00BFC4"


def plot_summary(table: pa.Table, attrib_meas: str) -> Figure:
    """Points for the original and synthetic measure of each target, an arrow to the synthetic
    (``table`` is a :class:`DisclosureSummary`'s, ``attrib_meas`` its attribute measure).

    Targets run bottom to top in the table's order (lowest synthetic risk at the bottom), x from
    0 to 100, as synthpop's ``multi.disclosure(plot = TRUE)``.
    """
    try:
        from matplotlib.figure import Figure
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("plotting needs matplotlib: pip install 'discosql[plot]'") from e
    rows = table.to_pylist()
    fig = Figure(figsize=(8, 1.2 + 0.45 * max(len(rows), 1)), layout="constrained")
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
