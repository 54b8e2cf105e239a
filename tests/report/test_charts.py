"""The report's plots as inline SVG (discosql/report/charts.py and html/charts.svg.j2): valid
XML, labels in the order given, user text escaped, no NaN coordinates, the x scale, the same
bytes every run, the heat map's cells, and no matplotlib needed."""

from __future__ import annotations

import hashlib
import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from discosql.report import charts
from discosql.report.charts import nice_max, summary_chart, sweep_chart, ticks

from ..helpers.charts import KEYS, TARGETS, summary_rows, sweep_data

ROOT = Path(__file__).resolve().parents[2]
NS = "{http://www.w3.org/2000/svg}"
HOSTILE = "<script>alert(\"x\")</script> & 'q' ünï €"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    return root


def by_class(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{NS}{tag}") if cls in (e.get("class") or "").split()]


def translate(element: ET.Element) -> tuple[float, float]:
    found = re.search(r"translate\(([-\d.]+) ([-\d.]+)\)", element.get("transform") or "")
    assert found, element.attrib
    return float(found[1]), float(found[2])


def test_the_summary_chart_is_an_accessible_svg() -> None:
    root = parse(summary_chart(summary_rows(), "DiSCO", "Dorig"))
    assert root.get("role") == "img"
    assert "DiSCO" in (root.get("aria-label") or "")
    assert "Dorig" in (root.get("aria-label") or "")
    assert root[0].tag == f"{NS}title"
    assert root.get("viewBox", "").startswith("0 0 720 ")
    texts = ["".join(e.itertext()) for e in root.iter(f"{NS}text")]
    assert "original: Dorig" in texts
    assert "synthetic: DiSCO (mean over syntheses)" in texts
    assert "worst synthesis" in texts
    assert "% of original records (higher = riskier)" in texts
    assert [t for t in texts if t in {str(v) for v in range(0, 101, 20)}] == [
        "0",
        "20",
        "40",
        "60",
        "80",
        "100",
    ]


def test_the_summary_labels_follow_the_order_given() -> None:
    rows = summary_rows()
    rows.reverse()
    root = parse(summary_chart(rows, "DiSCO", "Dorig"))
    labels = [e.text for e in by_class(root, "text", "label")]
    assert labels == [
        r["target"] + (f" ({' & '.join(r['checks'])} checks)" if r["checks"] else "") for r in rows
    ]
    ys = [float(e.get("y", "nan")) for e in by_class(root, "text", "label")]
    assert ys == sorted(ys)  # top to bottom
    assert len(by_class(root, "circle", "orig")) == len(by_class(root, "polygon", "syn")) == 11


def test_the_worst_synthesis_is_drawn_only_when_given() -> None:
    rows = [{**r, "worst": math.nan} for r in summary_rows()]
    svg = summary_chart(rows, "DiSCO", "Dorig")
    assert "worst synthesis" not in svg
    assert not by_class(parse(svg), "rect", "worst")


def test_a_hostile_target_name_is_escaped() -> None:
    rows = summary_rows([HOSTILE, "plain"])
    svg = summary_chart(rows, "DiSCO", "Dorig")
    assert "<script" not in svg
    assert "&lt;script&gt;" in svg
    root = parse(svg)
    assert not list(root.iter(f"{NS}script"))
    label = by_class(root, "text", "label")[0]
    assert label.text == (HOSTILE + " (1way checks)")[:43] + "…"  # clipped, in full in its title
    assert label.findtext(f"{NS}title") == HOSTILE + " (1way checks)"
    assert by_class(root, "circle", "orig")[0].findtext(f"{NS}title") == f"{HOSTILE}: Dorig 10.00"
    means, contribution = sweep_data([HOSTILE, "sex"], [HOSTILE, "ü"])
    svg = sweep_chart(means, contribution, [HOSTILE, "sex"], [HOSTILE, "ü"], "DiSCO")
    assert "<script" not in svg
    root = parse(svg)
    assert not list(root.iter(f"{NS}script"))
    assert [e.text for e in by_class(root, "text", "key-label")] == [HOSTILE[:21] + "…", "sex"]
    titles = ["".join(e.itertext()) for e in by_class(root, "text", "target-label")]
    assert titles[0] == HOSTILE[:23] + "…" + HOSTILE  # clipped, the full name in its title


def test_nan_values_give_no_nan_coordinates() -> None:
    nan = math.nan
    rows = [
        {"target": "a", "orig": nan, "syn": 20.0, "worst": nan, "checks": []},
        {"target": "b", "orig": 30.0, "syn": nan, "worst": nan, "checks": []},
        {"target": "c", "orig": nan, "syn": nan, "worst": nan, "checks": ["2way"]},
        {"target": "d", "orig": 40.0, "syn": None, "worst": math.inf, "checks": []},
    ]
    svg = summary_chart(rows, "DiSCO", "Dorig")
    assert "nan" not in svg.lower()
    assert "inf" not in svg.lower()
    root = parse(svg)
    assert len(by_class(root, "text", "label")) == 4
    assert len(by_class(root, "circle", "orig")) == 2
    assert len(by_class(root, "polygon", "syn")) == 1
    assert not by_class(root, "line", "arrow")
    means, contribution = sweep_data(["k1", "k2"], ["t1", "t2"])
    means = {s: (nan if i % 2 else v) for i, (s, v) in enumerate(means.items())}
    means[("t2", ("k1",))] = nan
    contribution = [{**r, "mean_increase": nan} for r in contribution]
    svg = sweep_chart(means, contribution, ["k1", "k2"], ["t1", "t2"], "DiSCO")
    assert "nan" not in svg.lower()
    root = parse(svg)
    subset_points = [c for c in root.iter(f"{NS}circle") if c.get("r") == "2.5"]
    assert len(subset_points) == sum(v == v for v in means.values())
    cells = by_class(root, "rect", "cell")
    assert [c.get("fill") for c in cells] == [charts.MISSING] * 4
    assert all("".join(c.itertext()).endswith(": \u2013") for c in cells)


def test_nan_everywhere_still_draws_a_chart() -> None:
    svg = sweep_chart({("t", ("k",)): math.nan}, [], ["k"], ["t"], "DiSCO")
    assert "nan" not in svg.lower()
    root = parse(svg)
    assert len(by_class(root, "rect", "cell")) == 1
    key = by_class(root, "g", "colour-key")[0]
    assert [e.text for e in key.iter(f"{NS}text")] == ["mean increase", "no pair"]
    assert parse(summary_chart([], "DiSCO", "Dorig")).get("role") == "img"


@pytest.mark.parametrize("value", [0.0, 12.5, 50.0, 100.0])
def test_the_x_scale_maps_0_to_100_onto_the_axis(value: float) -> None:
    rows = [{"target": "t", "orig": value, "syn": math.nan, "worst": math.nan, "checks": []}]
    root = parse(summary_chart(rows, "DiSCO", "Dorig"))
    axis = by_class(root, "line", "axis")[0]
    x1, x2 = float(axis.get("x1", "nan")), float(axis.get("x2", "nan"))
    cx = float(by_class(root, "circle", "orig")[0].get("cx", "nan"))
    assert cx == pytest.approx(x1 + value / 100 * (x2 - x1), abs=0.06)
    assert x2 - x1 > 300


def test_the_synthetic_triangle_and_arrow_point_the_right_way() -> None:
    rows = [{"target": "t", "orig": 80.0, "syn": 20.0, "worst": 25.0, "checks": []}]
    root = parse(summary_chart(rows, "DiSCO", "Dorig"))
    axis = by_class(root, "line", "axis")[0]
    x1, x2 = float(axis.get("x1", "nan")), float(axis.get("x2", "nan"))
    tx, _ = translate(by_class(root, "polygon", "syn")[0])
    assert tx == pytest.approx(x1 + 0.2 * (x2 - x1), abs=0.06)
    arrow = by_class(root, "line", "arrow")[0]
    assert float(arrow.get("x1", "nan")) > float(arrow.get("x2", "nan")) > tx  # leftwards
    worst = by_class(root, "rect", "worst")[0]
    assert float(worst.get("x", "nan")) == pytest.approx(x1 + 0.25 * (x2 - x1), abs=0.06)


def test_the_same_input_gives_the_same_bytes() -> None:
    means, contribution = sweep_data()
    for make in (
        lambda: summary_chart(summary_rows(), "DiSCO", "Dorig"),
        lambda: sweep_chart(means, contribution, KEYS, TARGETS, "DiSCO"),
    ):
        assert make().encode() == make().encode()


def test_the_heat_map_has_a_cell_per_key_and_target() -> None:
    means, contribution = sweep_data()
    root = parse(sweep_chart(means, contribution, KEYS, TARGETS, "DiSCO"))
    cells = by_class(root, "rect", "cell")
    assert len(cells) == len(KEYS) * len(TARGETS)
    assert [e.text for e in by_class(root, "text", "key-label")] == KEYS
    assert [e.text for e in by_class(root, "text", "target-label")] == TARGETS
    texts = [e.text for e in root.iter(f"{NS}text")]
    assert "99.00" not in texts  # another measure's rows are not drawn
    top = max(r["mean_increase"] for r in contribution if r["measure"] == "DiSCO")
    assert f"{top:.2f}" in texts
    fills = {"".join(c.itertext()).rsplit(": ", 1)[1]: c.get("fill") for c in cells}
    assert fills[f"{top:.2f}"] == charts.REDS[-1]  # the largest: the darkest red
    assert fills["0.00"] == "#ffffff"
    assert fills["-1.70"] == charts.NEGATIVE
    key = by_class(root, "g", "colour-key")[0]
    assert [e.text for e in key.iter(f"{NS}text")] == [
        "mean increase",
        *(f"{top * i / 4:.2f}" for i in range(4, -1, -1)),
        "below 0",
    ]


def test_heat_text_is_white_on_the_dark_half() -> None:
    assert charts.ink(charts.REDS[-1]) == "#ffffff"
    assert charts.ink(charts.shade(0.9)) == "#ffffff"
    assert charts.ink(charts.shade(0.1)) != "#ffffff"
    assert charts.ink(charts.NEGATIVE) != "#ffffff"
    assert charts.shade(0) == "#ffffff"
    assert charts.shade(1) == charts.REDS[-1]


def test_the_sweep_panel_draws_each_targets_worst_subsets() -> None:
    means, contribution = sweep_data()
    root = parse(sweep_chart(means, contribution, KEYS, TARGETS, "DiSCO"))
    assert root.get("role") == "img"
    assert root[0].tag == f"{NS}title"
    lines = by_class(root, "polyline", "worst-line")
    assert len(lines) == len(TARGETS)
    assert all(len(line.get("points", "").split()) == len(KEYS) for line in lines)
    styles = [
        (series.get("stroke"), line.get("stroke-dasharray"))
        for series in by_class(root, "g", "series")
        for line in by_class(series, "polyline", "worst-line")
    ]
    assert len(set(styles)) == len(TARGETS)  # the palette cycles, the dash tells them apart
    legend = [e.text for e in by_class(root, "text", "legend-label")]
    assert legend == TARGETS
    subset_points = [c for c in root.iter(f"{NS}circle") if c.get("r") == "2.5"]
    assert len(subset_points) == len(means)
    # the y axis: from 0 to the nice maximum of the values
    top = nice_max(max(means.values()))
    assert [e.text for e in by_class(root, "text", "ytick")] == [
        charts.tick_label(v) for v in ticks(top)
    ]
    # each target's solid points are its worst subsets: none of its points lies above them
    for series in by_class(root, "g", "series"):
        points = [c for c in series.iter(f"{NS}circle") if c.get("r") == "2.5"]
        worst = {
            c.get("cx"): float(c.get("cy", "nan"))
            for c in series.iter(f"{NS}circle")
            if c.get("r") == "3.5"
        }
        assert len(worst) == len(KEYS)
        for c in points:
            assert float(c.get("cy", "nan")) >= worst[c.get("cx")]  # y grows downwards


@pytest.mark.parametrize(
    ("value", "top"),
    [
        (27.0, 50.0),
        (0.3, 0.5),
        (100.0, 100.0),
        (2.1, 2.5),
        (1.0, 1.0),
        (0.0, 1.0),
        (math.nan, 1.0),
        (-3.0, 1.0),
        (101.0, 200.0),
        (0.0123, 0.02),
    ],
)
def test_nice_max(value: float, top: float) -> None:
    assert nice_max(value) == top


def test_ticks() -> None:
    assert ticks(2) == [0, 0.5, 1, 1.5, 2]
    assert ticks(2.5) == [0, 0.5, 1, 1.5, 2, 2.5]
    assert ticks(50) == [0, 10, 20, 30, 40, 50]
    assert ticks(0.5) == [0, 0.1, 0.2, 0.3, 0.4, 0.5]
    assert [charts.tick_label(v) for v in ticks(0.02)] == ["0", "0.005", "0.01", "0.015", "0.02"]
    assert charts.px(-0.04) == "0"
    assert charts.px(12.0) == "12"
    assert charts.two(-0.001) == "0.00"


def test_no_svg_markup_is_built_in_python() -> None:
    source = (ROOT / "discosql/report/charts.py").read_text()
    assert not re.search(r"<[a-zA-Z/!?]", source)
    template = (ROOT / "discosql/report/html/charts.svg.j2").read_text()
    assert "| safe" not in template
    assert "|safe" not in template


RENDER_WITHOUT_MATPLOTLIB = """
import hashlib, sys
sys.modules["matplotlib"] = None  # any import of matplotlib now fails
sys.path.insert(0, sys.argv[1])
from tests.helpers.charts import KEYS, TARGETS, summary_rows, sweep_data
from discosql.report.charts import summary_chart, sweep_chart
means, contribution = sweep_data()
a = summary_chart(summary_rows(), "DiSCO", "Dorig")
b = sweep_chart(means, contribution, KEYS, TARGETS, "DiSCO")
print(hashlib.sha256(a.encode()).hexdigest(), hashlib.sha256(b.encode()).hexdigest())
"""


@pytest.mark.slow
def test_the_charts_render_without_matplotlib_and_the_same_in_another_process() -> None:
    done = subprocess.run(
        [sys.executable, "-c", RENDER_WITHOUT_MATPLOTLIB, str(ROOT)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    means, contribution = sweep_data()
    here = [
        hashlib.sha256(summary_chart(summary_rows(), "DiSCO", "Dorig").encode()).hexdigest(),
        hashlib.sha256(
            sweep_chart(means, contribution, KEYS, TARGETS, "DiSCO").encode()
        ).hexdigest(),
    ]
    assert done.stdout.split() == here
