"""The release report's two plots as inline SVG, without matplotlib: the summary's comparison
plot (synthpop's ``multi.disclosure`` plot) and the key sweep's plot with its heat map.

Python computes the geometry (numbers, colours, the text to show); ``html/charts.svg.j2`` draws
it, autoescaped. The same input gives the same bytes; the SVG has no ids, scripts or fonts to
fetch. Label widths are estimated (``CHAR`` per character), never measured.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup

from ..core.charts import SummaryChart, SummaryRow, SweepChart, finite
from ..core.view import environment

TEMPLATE = "charts.svg.j2"
WIDTH = 720  # the viewBox width; the report's CSS scales the SVG to the page
CHAR = 6.6  # estimated width of a character at font-size 12
ROW = 26  # height of a target's row in the summary chart
ORIGINAL = "#1f4e79"  # dark blue circle: print-friendly, apart from the red in greyscale
SYNTHETIC = "#c0392b"  # red triangle
# Okabe & Ito's colour-blind-safe palette, yellow last (weak on white paper)
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
DASHES = ("", "6 3", "2 3")  # a target past the palette's length changes its line's dash too
# ColorBrewer's Reds from white
REDS = (
    "#ffffff",
    "#fee0d2",
    "#fcbba1",
    "#fc9272",
    "#fb6a4a",
    "#ef3b2c",
    "#cb181d",
    "#a50f15",
    "#67000d",
)
NEGATIVE = "#d6e6f4"  # a key whose addition lowers the measure: a light blue
MISSING = "#e3e3e3"  # no pair of subsets: light grey with an en dash


def px(v: float) -> str:
    """A coordinate as the SVG shows it: at most one decimal, no ``-0``."""
    text = f"{v:.1f}".removesuffix(".0")
    return "0" if text == "-0" else text


def nice_max(v: float) -> float:
    """The smallest 1, 2, 2.5, 5 or 10 times 10^k at least ``v`` (1 when ``v`` is not positive)."""
    if not v > 0 or math.isinf(v):
        return 1.0
    k = math.floor(math.log10(v))
    for m in ("1", "2", "2.5", "5", "10"):
        if (top := float(f"{m}e{k}")) >= v:
            return top
    return float(f"1e{k + 1}")  # pragma: no cover - 10e{k} >= v always


def ticks(top: float) -> list[float]:
    """The ticks from 0 to ``top`` (a :func:`nice_max`): 4 steps for a 2, else 5."""
    mantissa = top / 10 ** math.floor(math.log10(top))
    steps = 4 if math.isclose(mantissa, 2) else 5
    return [round(top * i / steps, 12) for i in range(steps + 1)]


def tick_label(v: float) -> str:
    """A tick's label: the shortest form (``0``, ``2.5``, ``100``)."""
    return f"{round(v, 10):g}"


def two(v: float) -> str:
    """A value with 2 decimals (``-0.00`` as ``0.00``), NaN as an en dash."""
    if v != v:
        return "\u2013"
    text = f"{v:.2f}"
    return "0.00" if text == "-0.00" else text


def width(text: str) -> float:
    """The estimated width of ``text`` at font-size 12."""
    return len(text) * CHAR


def clip(text: str, n: int) -> str:
    """``text`` cut to ``n`` characters with an ellipsis (the full text goes in a title)."""
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def shade(t: float) -> str:
    """The colour at ``t`` (0 to 1) along :data:`REDS`."""
    t = min(max(t, 0.0), 1.0) * (len(REDS) - 1)
    i = min(int(t), len(REDS) - 2)
    lo, hi = _rgb(REDS[i]), _rgb(REDS[i + 1])
    r, g, b = (round(a + (b - a) * (t - i)) for a, b in zip(lo, hi, strict=True))
    return f"#{r:02x}{g:02x}{b:02x}"


def ink(fill: str) -> str:
    """White or near-black text, whichever contrasts more with ``fill`` (WCAG luminance)."""
    lin = [c / 255 / 12.92 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in _rgb(fill)]
    luminance = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return "#ffffff" if (1.05 / (luminance + 0.05)) > ((luminance + 0.05) / 0.05) else "#1d2430"


def _render(kind: str, g: dict[str, Any]) -> Markup:
    template = environment(__package__ or "").get_template(TEMPLATE)
    return Markup(template.render(kind=kind, g=g))  # the template escapes every text


# --- the summary's comparison plot -------------------------------------------------------


def _arrow(xo: float, xs: float, y: float) -> dict[str, str] | None:
    """A line with a head from the circle at ``xo`` to the triangle at ``xs`` (None when the
    markers nearly touch)."""
    if abs(xs - xo) < 18:
        return None
    s = 1 if xs > xo else -1
    tip = xs - s * 8
    return {
        "x1": px(xo + s * 7),
        "x2": px(tip - s * 5),
        "tip": px(tip),
        "y": px(y),
        "turn": "0" if s > 0 else "180",
    }


def _summary_row(row: SummaryRow, y: float, scale: Any, n: int) -> dict[str, Any]:
    out: dict[str, Any] = {
        "y": px(y),
        "label": clip(row.label, n),
        "full": row.label,
        "arrow": None,
        "target": row.target,
    }
    for name in ("orig", "syn", "worst"):
        v = getattr(row, name)
        out[name] = px(scale(v)) if finite(v) else None
        out[name + "_text"] = two(float(v)) if finite(v) else None
    if finite(row.orig) and finite(row.syn):
        out["arrow"] = _arrow(scale(row.orig), scale(row.syn), y)
    return out


def _legend(items: list[tuple[str, str]], x0: float, x1: float, y: float) -> list[dict[str, str]]:
    """Legend entries (marker kind, text) left to right, from ``x0`` if they fit before
    ``x1``, else as far left as needed."""
    x = max(min(x0, x1 - sum(38 + width(text) for _, text in items) + 22), 8)
    out = []
    for kind, text in items:
        out.append({"kind": kind, "text": text, "x": px(x + 6), "tx": px(x + 16), "y": px(y)})
        x += 16 + width(text) + 22
    return out


def summary_chart(rows: list[dict[str, Any]], attrib_meas: str, orig_meas: str) -> Markup:
    """The comparison plot of a summary: per target (``rows``, drawn top to bottom in the
    order given; keys target, orig, syn, worst, checks) a circle at the original measure
    (``orig_meas``), a triangle at the synthetic one (``attrib_meas``, the mean over the
    syntheses), an arrow between them and a tick at the worst synthesis; x from 0 to 100.
    The chart is :class:`~discosql.core.charts.SummaryChart`, which ``.plot()`` draws too."""
    chart = SummaryChart.of_rows(rows, attrib_meas, orig_meas)
    chars = 44
    longest = max((width(clip(r.label, chars)) for r in chart.rows), default=0.0)
    x0, x1, top = min(max(longest + 22, 90), 330), WIDTH - 24, 44
    bottom = top + ROW * max(len(chart.rows), 1)

    def scale(v: float) -> float:
        return x0 + min(max(float(v), 0.0), 100.0) / 100 * (x1 - x0)

    items = [
        ("orig", f"original: {orig_meas}"),
        ("syn", f"synthetic: {attrib_meas} (mean over syntheses)"),
    ]
    if chart.has_worst:
        items.append(("worst", "worst synthesis"))
    g = {
        "width": WIDTH,
        "height": bottom + 50,
        "x0": px(x0),
        "x1": px(x1),
        "top": top,
        "bottom": bottom,
        "label_x": px(x0 - 10),
        "tick_y": bottom + 17,
        "title_y": bottom + 38,
        "mid": px((x0 + x1) / 2),
        "attrib_meas": attrib_meas,
        "orig_meas": orig_meas,
        "xticks": [{"x": px(scale(v)), "label": str(v)} for v in range(0, 101, 20)],
        "rows": [
            _summary_row(r, top + ROW * (i + 0.5), scale, chars) for i, r in enumerate(chart.rows)
        ],
        "legend": _legend(items, x0 - 8, x1, 18),
        "original": ORIGINAL,
        "synthetic": SYNTHETIC,
    }
    return _render("summary", g)


# --- the key sweep's plot ----------------------------------------------------------------


def _style(j: int) -> dict[str, str]:
    """Target ``j``'s colour and dash (the palette cycles; the dash changes each cycle)."""
    return {"colour": PALETTE[j % len(PALETTE)], "dash": DASHES[j // len(PALETTE) % len(DASHES)]}


def _points_panel(chart: SweepChart) -> dict[str, Any]:
    """The left panel: every subset's value against its number of keys, a line through each
    target's worst subset per size, a legend of targets on the right."""
    targets, series, sizes = chart.targets, chart.series, chart.sizes
    legend_w = min(max([120.0, *(width(clip(t, 26)) for t in targets)]) + 34, 210)
    x0, x1, top = 58.0, WIDTH - legend_w - 20, 40.0
    bottom = top + max(250.0, 18.0 * len(targets) + 40)
    ymax = nice_max(max((v for pts in series for _, v in pts), default=0.0))
    band = (x1 - x0) / sizes
    spread = min(band * 0.5 / max(len(targets), 1), 8.0)

    def sx(n: int, j: int) -> float:
        return x0 + band * (n - 0.5) + spread * (j - (len(targets) - 1) / 2)

    def sy(v: float) -> float:
        return bottom - v / ymax * (bottom - top)

    lines = []
    for j, (target, pts, worst) in enumerate(zip(targets, series, chart.worst, strict=True)):
        lines.append(
            {
                **_style(j),
                "points": [{"x": px(sx(n, j)), "y": px(sy(v))} for n, v in pts],
                "worst": [
                    {"x": px(sx(n, j)), "y": px(sy(v)), "n": n, "v": two(v)} for n, v in worst
                ],
                "target": target,
                "label": clip(target, 26),
                "ly": px(top + 44 + 18 * j),
            }
        )
    return {
        "x0": px(x0),
        "x1": px(x1),
        "top": px(top),
        "bottom": px(bottom),
        "lines": lines,
        "xticks": [{"x": px(x0 + band * (n - 0.5)), "label": n} for n in range(1, sizes + 1)],
        "yticks": [{"y": px(sy(v)), "label": tick_label(v)} for v in ticks(ymax)],
        "mid_x": px((x0 + x1) / 2),
        "mid_y": px((top + bottom) / 2),
        "legend_x": px(x1 + 20),
        "swatch_x": px(x1 + 38),
        "legend_y": px(top + 8),
        "next": bottom + 72,
    }


def _cell(v: float, top: float) -> dict[str, str]:
    """A heat map cell's fill, text colour and text for a mean increase ``v``."""
    if not finite(v):
        return {"fill": MISSING, "ink": "#5b6473", "text": "\u2013"}
    fill = NEGATIVE if v < 0 else shade(v / top if top > 0 else 0.0)
    return {"fill": fill, "ink": ink(fill), "text": two(v)}


def _heat_panel(chart: SweepChart, start: float) -> dict[str, Any]:
    """The right (here: lower) panel: rows keys, columns targets, each cell the mean
    increase of the measure when the key is added, with a colour key on the right."""
    keys, targets, grid = chart.keys, chart.targets, chart.grid
    values = [v for row in grid for v in row if finite(v)]
    top = chart.heat_top
    label_w = max((width(clip(t, 24)) for t in targets), default=0.0) * 0.72  # rotated 45°
    x0 = max(min(max((width(clip(k, 22)) for k in keys), default=0.0) + 22, 170), label_w - 16)
    cw = min(max((WIDTH - x0 - 170) / max(len(targets), 1), 46.0), 70.0)
    y0, ch = start + 18, 24.0
    cells = [
        {
            "x": px(x0 + cw * j),
            "y": px(y0 + ch * i),
            "cx": px(x0 + cw * (j + 0.5)),
            "cy": px(y0 + ch * (i + 0.5) + 4),
            "key": k,
            "target": t,
            **_cell(v, top),
        }
        for i, (k, row) in enumerate(zip(keys, grid, strict=True))
        for j, (t, v) in enumerate(zip(targets, row, strict=True))
    ]
    bottom = y0 + ch * len(keys)
    right = x0 + cw * len(targets)
    steps = range(4, -1, -1) if top > 0 else range(1 if values else 0)
    scale = [{"fill": shade(i / 4), "text": two(top * i / 4)} for i in steps]
    if any(v < 0 for v in values):
        scale.append({"fill": NEGATIVE, "text": "below 0"})
    if len(values) < len(keys) * len(targets):
        scale.append({"fill": MISSING, "text": "no pair"})
    return {
        "title_y": px(start),
        "x0": px(x0),
        "y0": px(y0),
        "cw": px(cw),
        "ch": px(ch),
        "cells": cells,
        "width": right + 170,
        "rows": [
            {"y": px(y0 + ch * (i + 0.5) + 4), "key": clip(k, 22), "full": k}
            for i, k in enumerate(keys)
        ],
        "columns": [
            {
                "x": px(x0 + cw * (j + 0.5) + 4),
                "y": px(bottom + 10),
                "target": clip(t, 24),
                "full": t,
            }
            for j, t in enumerate(targets)
        ],
        "key_x": px(right + 24),
        "key_tx": px(right + 44),
        "label_x": px(x0 - 8),
        "scale": [{**s, "y": px(y0 + 20 * i)} for i, s in enumerate(scale)],
        "bottom": max(bottom + label_w + 24, y0 + 20 * len(scale) + 8),
    }


def sweep_chart(
    means: dict[tuple[str, tuple[str, ...]], float],
    contribution: list[dict[str, Any]],
    keys: Sequence[str],
    targets: Sequence[str],
    measure: str,
) -> Markup:
    """A key sweep's plot, two panels stacked: ``measure`` (``means``: {(target, subset): the
    mean over the syntheses}) of every subset against its number of keys, one colour per
    target, a line through each target's worst subset per size; below, a heat map of each
    key's ``mean_increase`` of ``measure`` per target (``contribution``: the sweep's rows).
    The chart is :class:`~discosql.core.charts.SweepChart`, which ``.plot()`` draws too."""
    chart = SweepChart.build(means, contribution, keys, targets, measure)
    points = _points_panel(chart)
    heat = _heat_panel(chart, points["next"])
    g = {
        "width": px(max(WIDTH, heat["width"])),
        "height": px(heat["bottom"] + 10),
        "measure": measure,
        "keys": list(keys),
        "targets": list(targets),
        "points": points,
        "heat": heat,
    }
    return _render("sweep", g)


# --- DiSCO(tau), the certainty curve ----------------------------------------------------


def _steps(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The corners of the step function of a curve given at its steps (ps ascending, DiSCO
    at tau = ps; the value on (previous ps, ps]), from tau = 0 to 1 (0 past the last ps)."""
    corners: list[tuple[float, float]] = []
    previous = 0.0
    for ps, v in points:
        corners += [(previous, v), (ps, v)]
        previous = ps
    return [*corners, (previous, 0.0), (1.0, 0.0)]


def _thin(corners: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The corners that differ on screen: within one pixel column the curve only falls, so
    its first and last corners there draw the same line (a large data set has thousands of
    distinct probabilities)."""
    kept: list[tuple[float, float]] = []
    column = None
    for i, (x, y) in enumerate(corners):
        here = round(x)
        last_of_column = i + 1 == len(corners) or round(corners[i + 1][0]) != here
        if here != column or last_of_column:
            kept.append((x, y))
        column = here
    return kept


def certainty_chart(entries: list[dict[str, Any]], taus: Sequence[float], external: bool) -> Markup:
    """DiSCO(tau) of every target as small multiples (four panels a row, one shared y scale):
    a line per synthesis, x tau from 0 to 1, y % of original records; the board's certainties
    ``taus`` as dashed verticals in every panel. ``entries``: report.sections.cap's
    certainty_section curves. Internal: the exact step function; external: the grid points as
    shown (a withheld point ends its line)."""
    cols = min(4, max(len(entries), 1))
    gap, left, top0 = 18.0, 44.0, 44.0
    pw = (WIDTH - 8 - cols * (left + gap)) / cols  # a panel's plot width
    ph, title_h, axis_h = 96.0, 18.0, 26.0
    row_h = title_h + ph + axis_h
    values = [
        p["DiSCO"]
        for e in entries
        for c in e["curves"]
        for p in c
        if isinstance(p["DiSCO"], int | float) and finite(p["DiSCO"])
    ]
    ymax = nice_max(max(values, default=0.0))
    m = max((len(e["curves"]) for e in entries), default=0)
    panels, cut = [], False
    for k, entry in enumerate(entries):
        x0 = 8 + (k % cols) * (left + pw + gap) + left
        top = top0 + (k // cols) * row_h + title_h
        bottom = top + ph

        def sx(t: float, x0: float = x0) -> float:
            return x0 + t * pw

        def sy(v: float, top: float = top) -> float:
            return top + ph - v / ymax * ph

        lines = []
        for j, points in enumerate(entry["curves"]):
            shown: list[tuple[float, float]] = []
            for point in points:
                t, v = point["tau"], point["DiSCO"]
                if not (isinstance(v, int | float) and finite(v)):
                    break  # withheld: fewer records than any shown point, and every later one
                shown.append((t, float(v)))
            cut = cut or len(shown) < len(points)
            corners = shown if external else _steps(shown)
            screen = _thin([(sx(t), sy(v)) for t, v in corners])
            lines.append(
                {
                    **_style(j),
                    "points": [{"x": px(x), "y": px(y)} for x, y in screen],
                    "marks": [{"x": px(sx(t)), "y": px(sy(v))} for t, v in shown]
                    if external
                    else [],
                }
            )
        panels.append(
            {
                "title": clip(entry["target"], int(pw / CHAR)),
                "target": entry["target"],
                "title_x": px(x0 - left + 4),
                "title_y": px(top - 6),
                "x0": px(x0),
                "x1": px(x0 + pw),
                "top": px(top),
                "bottom": px(bottom),
                "lines": lines,
                "xticks": [{"x": px(sx(t)), "label": tick_label(t)} for t in (0, 0.5, 1)],
                "yticks": [{"y": px(sy(v)), "label": tick_label(v)} for v in ticks(ymax)],
                "taus": [{"x": px(sx(t))} for t in taus],
            }
        )
    rows = (len(entries) + cols - 1) // cols
    legend = [
        {
            "x": px(8 + 110 * j),
            "tx": px(8 + 110 * j + 24),
            **_style(j),
            "label": f"synthesis {j + 1}",
        }
        for j in range(m)
    ]
    g = {
        "width": WIDTH,
        "height": top0 + rows * row_h + (34 if cut else 16),
        "panels": panels,
        "legend": legend,
        "legend_y": 30,
        "taus_text": ", ".join(tick_label(t) for t in taus),
        "taus_x": px(8 + 110 * m + 10),
        "note_y": top0 + rows * row_h + 8,
        "external": external,
        "withheld": cut,
    }
    return _render("certainty", g)
