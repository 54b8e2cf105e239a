"""``discosql demo``: synthpop's published disclosure example (:func:`discosql.disclosure`), on
the bundled SD2011 data, beside the vignette's values."""

from __future__ import annotations

import argparse
from importlib import resources
from pathlib import Path
from typing import Any

from ..core.results import DisclosureResult
from ..measure.disclosure import disclosure
from .output import Progress

NAME = "demo"

KEYS = ["sex", "age", "region", "placesize"]
TARGET = "depress"

# The vignette's t5 table, synthesis 1 ("Practical privacy metrics for synthetic data", 2 decimals).
PUBLISHED_SYNTHESIS_1 = {
    "UiO": 48.38,
    "UiS": 37.34,
    "UiOiS": 22.68,
    "repU": 14.86,
    "Dorig": 53.30,
    "Dsyn": 46.26,
    "iS": 64.90,
    "DiS": 34.18,
    "DiSCO": 9.54,
    "DiSDiO": 6.14,
    "max_denom": 3,
    "mean_denom": 1.16,
    "baseCAPd": 9.81,
    "CAPd": 74.15,
    "CAPs": 69.78,
    "DCAP": 16.39,
    "TCAP": 14.70,
}


def demo_paths() -> tuple[str, list[str]]:
    """Paths of the bundled original (SD2011) and its five syntheses (Parquet)."""
    data = Path(str(resources.files("discosql"))) / "data"
    return str(data / "sd2011.parquet"), [str(data / f"syn_{i}.parquet") for i in range(1, 6)]


def run_demo() -> tuple[DisclosureResult, str]:
    """Compute the example and return the result with a printable report."""
    original, synthetic = demo_paths()
    res = disclosure(original, synthetic, keys=KEYS, target=TARGET)
    lines = [
        "discosql demo: synthpop's disclosure() example (SD2011, 5 syntheses, keys "
        f"{', '.join(KEYS)}; target {TARGET})",
        "",
        str(res),
        "",
        "All measures (%), one row per synthesis:",
    ]
    names = list(PUBLISHED_SYNTHESIS_1)
    width = max(len(n) for n in names) + 2
    lines.append(
        f"{'measure':<{width}}"
        + "".join(f"{'syn ' + str(j):>9}" for j in range(1, res.m + 1))
        + f"{'published':>11}"
    )
    mismatches = []
    for name in names:
        values = [res.value(name, j) for j in range(1, res.m + 1)]
        published = PUBLISHED_SYNTHESIS_1[name]
        if round(values[0], 2) != published:
            mismatches.append(name)
        lines.append(
            f"{name:<{width}}" + "".join(f"{v:>9.2f}" for v in values) + f"{published:>11.2f}"
        )
    lines.append("")
    if mismatches:
        lines.append(f"MISMATCH with the published vignette values: {', '.join(mismatches)}")
    else:
        lines.append(
            "Synthesis 1 matches all 17 published synthpop values (rounded to 2 decimals)."
        )
    return res, "\n".join(lines)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand (it has no flags)."""
    p: argparse.ArgumentParser = sub.add_parser(
        NAME, help="synthpop's published example on the bundled SD2011 data"
    )
    p.set_defaults(debug=False)  # no --debug: an internal error is reported in one line
    return p


def run(args: argparse.Namespace, progress: Progress) -> None:
    """The example's report on stdout (no progress line: it takes a couple of seconds)."""
    progress.stop()
    print(run_demo()[1])
