"""Draw benchmarks/results/scale.json (from bench_scale.py) as benchmarks/scale.png: seconds
against N (rows on each side), log-log: the floor, discosql's disclosure_summary (10 targets),
GeneralizedCAP and the peers (1 target) where they finished.

    python benchmarks/plot_scale.py
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

HERE = Path(__file__).parent


def main() -> None:
    report = json.loads((HERE / "results" / "scale.json").read_text())
    info = report["info"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    scale = report["scale"]
    n = [r["rows"] for r in scale]
    ax.plot(
        n,
        [r["floor"]["seconds"] for r in scale],
        "o-",
        label="floor: 10 x GROUP BY keys, target per table",
    )
    ax.plot(
        n,
        [r["discosql"]["seconds"] for r in scale],
        "s-",
        label="discosql disclosure_summary, 10 targets, all measures",
    )
    peers = report.get("peers", {})
    for key, label, marker in (
        ("discosql_summary", None, "s"),
        ("discosql_cap", "discosql categorical_cap, 1 target", "^"),
        ("sdmetrics_cap", "SDMetrics CategoricalCAP, 1 target", "v"),
        ("anonymeter", "anonymeter InferenceEvaluator (500 attacks), 1 target", "D"),
    ):
        pts = [
            (int(rows), r[key]["seconds"])
            for rows, r in peers.items()
            if key in r and "seconds" in r[key] and "timeout" not in r[key]
        ]
        if not pts:
            continue
        if key == "discosql_summary":  # continue the summary line to the small sizes
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "s:", color="C1")
            continue
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker + "--", label=label)
    if "gcap" in report:
        ax.plot(
            [1_000_000],
            [report["gcap"]["seconds"]],
            "*",
            ms=12,
            label="discosql GeneralizedCAP, 1 target",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("rows in the original (and in the synthetic) data")
    ax.set_ylabel("seconds")
    ax.set_title(
        f"{info['machine']}, {info['threads']} threads, DuckDB {info['duckdb']} ({info['date']})",
        fontsize=9,
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(HERE / "scale.png", dpi=120)
    print(f"wrote {HERE / 'scale.png'}")


if __name__ == "__main__":
    main()
