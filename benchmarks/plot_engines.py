"""The plots and Markdown tables of bench_engines.py's reports (<out>/engines_<engine>.json).

plot(): seconds against N (rows on each side), log-log: the floor (10 x GROUP BY keys, target
per table) and discosql's disclosure_summary (10 targets), each discosql point annotated with
its ratio to the floor. print_tables(): per engine the machine, versions, settings, the ratio
per size (and --sweep, --sdc, --small where measured), then the digests of all engines at each
size compared. bench_engines.py calls both; this redraws every plot from the saved JSON:

    python benchmarks/plot_engines.py [--out benchmarks/results]
    python benchmarks/bench_engines.py --tables        # the tables only
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

HERE = Path(__file__).parent
NAMES = {"duckdb": "DuckDB", "postgres": "PostgreSQL", "spark": "Spark"}
VERSIONS = ("python", "discosql", "duckdb", "psycopg", "postgresql", "pyspark", "spark", "java")


def plot(report: dict[str, Any], path: Path) -> None:
    """``report`` (one engine's JSON) as a log-log plot at ``path``."""
    runs = sorted(report["runs"], key=lambda r: r["rows"])
    if not runs:
        return
    info, engine = report["info"], report["engine"]
    n = [r["rows"] for r in runs]
    disco = [r["discosql"]["seconds"] for r in runs]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    floor = [r["floor"]["seconds"] for r in runs]
    ax.plot(n, floor, "o-", label="floor: 10 x GROUP BY keys, target per table")
    ax.plot(n, disco, "s-", label="discosql disclosure_summary, 10 targets, all measures")
    for r, x, y in zip(runs, n, disco, strict=True):
        ax.annotate(
            f"{r['ratio']:.2f}x",
            (x, y),
            textcoords="offset points",
            xytext=(0, 8),
            ha="center",
            fontsize=8,
        )
    version = str(info.get({"postgres": "postgresql"}.get(engine, engine), "")).split(" ")[0]
    ax.margins(x=0.08, y=0.15)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("rows in the original (and in the synthetic) data")
    ax.set_ylabel("seconds")
    ax.set_title(
        f"{NAMES[engine]} {version}: {info['arch']}, {info['cores']} cores, "
        f"{info['ram_gb']} GB RAM, {info['threads']} threads ({measured(report)})",
        fontsize=9,
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    print(f"wrote {path}")


def measured(report: dict[str, Any]) -> str:
    """When the report's sizes were measured: one date, or the first and the last."""
    dates = sorted({r.get("date", report["info"]["date"]) for r in report["runs"]})
    return dates[0] if len(dates) < 2 else f"{dates[0]} to {dates[-1]}"


def print_tables(out: Path, engines: list[str]) -> None:
    """The Markdown tables of the saved engines_<engine>.json files, and the digests compared."""
    reports = {
        e: json.loads(p.read_text()) for e in engines if (p := out / f"engines_{e}.json").exists()
    }
    for engine, r in reports.items():
        i = r["info"]
        versions = ", ".join(f"{k} {i[k]}" for k in VERSIONS if k in i)
        settings = ", ".join(f"`{k} = {v}`" for k, v in r["settings"].items())
        print(
            f"\n### {NAMES[engine]} ({measured(r)})\n\n{i['arch']}, {i['cores']} cores, "
            f"{i['ram_gb']} GB RAM; {versions}; threads {i['threads']}\n\n"
            f"settings: {settings}"
        )
        runs = r["runs"]
        rss = all("rss_mb" in x["floor"] for x in runs)
        load = any("load_seconds" in x for x in runs)
        twice = any("discosql_second_seconds" in x for x in runs)
        head = ["N (each side)", "floor s", "discosql s", "ratio"]
        head += ["load s (COPY, VACUUM ANALYZE, prewarm)"] if load else []
        head += ["first runs: floor s, discosql s, ratio", "second runs: ratio"] if twice else []
        head += ["floor peak RSS MB", "discosql peak RSS MB", "memory limit"] if rss else []
        rows = []
        for x in runs:
            f, d = x["floor"], x["discosql"]
            row = [f"{x['rows']:,}", f"{f['seconds']:.2f}", f"{d['seconds']:.2f}"]
            row += [f"{x['ratio']:.2f}", *([f"{x['load_seconds']:.2f}"] if load else [])]
            if twice and "discosql_second_seconds" not in x:  # measured before 2026-11-27
                row += ["", ""]
            elif twice:
                f1, d2 = x["floor_first_seconds"], x["discosql_second_seconds"]
                row += [f"{f1:.2f}, {d['seconds']:.2f}, {d['seconds'] / f1:.2f}"]
                row += [f"{d2 / f['seconds']:.2f} ({d2:.2f} s against {f['seconds']:.2f} s)"]
            if rss:
                row += [f"{f['rss_mb']:.0f}", f"{d['rss_mb']:.0f}", x.get("memory_limit") or "none"]
            rows.append([*row, f"`{x['digest']}`", *([vs_duckdb(x)] if "vs_duckdb" in x else [])])
        head += ["digest", *(["against DuckDB (same run)"] if "vs_duckdb" in runs[0] else [])]
        if any("date" in x for x in runs):  # sizes measured on other days
            head.append("measured")
            rows = [[*row, x.get("date", i["date"])] for row, x in zip(rows, runs, strict=True)]
        table(head, rows)
        for x in runs:
            if "unlimited" in x:
                u = x["unlimited"]
                same = "the same digest" if x["same_numbers_unlimited"] else "**another digest**"
                print(
                    f"\nWithout the memory limit at N = {x['rows']:,}: {u['seconds']:.2f} s "
                    f"(ratio {u['seconds'] / x['floor']['seconds']:.2f}), peak RSS "
                    f"{u['rss_mb']:.0f} MB, {same} (`{u['digest']}`)."
                )
        for flag, base, kind in (("sweep", "summary", "sweep"), ("sdc", "copy", "sdc")):
            if r.get(flag):
                head = ["N (each side)", f"{base} s (wall)", f"{kind} s (wall)", f"{kind} / {base}"]
                table(
                    [*head, f"{kind} peak RSS MB"],
                    [
                        [
                            f"{x['rows']:,}",
                            f"{x[base]['wall']:.2f}",
                            f"{x[kind]['wall']:.2f}",
                            f"{x['ratio']:.2f}",
                            f"{x[kind]['rss_mb']:.0f}",
                        ]
                        if "failed" not in x
                        else [f"{x['rows']:,}", "", "", f"failed: {x['failed']}", ""]
                        for x in r[flag]
                    ],
                )
        if r.get("small"):
            sm = r["small"]
            calls = [k for k, v in sm.items() if isinstance(v, dict)]
            print(
                f"\nSD2011 (bundled), keys {', '.join(sm['keys'])}, targets "
                f"{', '.join(sm['targets'])}, m = {sm['m']}; one warm-up, median of "
                f"{sm['repeat']}:"
            )
            table(
                ["call", "median s", "fastest s", "budget s", "within budget"],
                [
                    [
                        f"`{n}`",
                        f"{sm[n]['median']:.3f}",
                        f"{sm[n]['fastest']:.3f}",
                        f"{sm[n]['budget']}",
                        str(sm[n]["median"] <= sm[n]["budget"]),
                    ]
                    for n in calls
                ],
            )
    digests: dict[int, dict[str, str]] = {}
    checks: dict[int, list[str]] = {}
    for engine, r in reports.items():
        for x in r["runs"]:
            digests.setdefault(x["rows"], {})[engine] = x["digest"]
            if "vs_duckdb" in x:
                checks.setdefault(x["rows"], []).append(f"{NAMES[engine]}: {vs_duckdb(x)}")
    if len(reports) > 1:
        print(
            "\nSame numbers on every engine? The digest of every result table of every "
            "target (from each engine's JSON), and each engine against DuckDB in its run:"
        )
        head = ["N (each side)", *(NAMES[e] for e in reports), "identical digests"]
        table(
            [*head, "against DuckDB (same run)"],
            [
                [
                    f"{n:,}",
                    *(f"`{d.get(e, '-')}`" for e in reports),
                    str(len(set(d.values())) == 1),
                    "; ".join(checks.get(n, [])) or "-",
                ]
                for n, d in sorted(digests.items())
            ],
        )


def vs_duckdb(run: dict[str, Any]) -> str:
    c = run["vs_duckdb"]
    if not c["same_but_floats"]:
        return "**different**"
    return "identical" if c["max_rel_diff"] == 0 else f"floats within {c['max_rel_diff']:.1e}"


def table(head: list[str], rows: list[list[str]]) -> None:
    print("\n| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(row) + " |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", type=Path, default=HERE / "results")
    a = p.parse_args()
    for path in sorted(a.out.glob("engines_*.json")):
        plot(json.loads(path.read_text()), path.with_suffix(".png"))


if __name__ == "__main__":
    main()
