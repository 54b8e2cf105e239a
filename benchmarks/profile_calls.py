"""Where one call spends its time on small data: the engine's statements, the templates'
rendering and the Python around them (issue 40, "find where the time goes first").

    python benchmarks/profile_calls.py --rows 10000 --repeat 5 [--json results/profile_calls.json]

In one warm process, with the data in memory (a pyarrow Table) and DuckDB with --threads:
ds.risk and ds.suda on 8 skewed keys (Zipf-like, 2 to 90 levels, the seeded data of
bench_small.py) and a weight, ds.disclosure and ds.disclosure_summary (5 targets) on the
bundled SD2011 (5 syntheses), ds.report on the bundled data. Every call runs once to warm
up, then --repeat times; the fastest run is reported: its wall time, the number of
statements, the seconds the engine took (DuckDB's parse, plan and run, and the Arrow result)
by kind of statement, the seconds Jinja took to render templates, and the rest (Python:
validation, registration, decisions, results).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
DATA = HERE.parent / "discosql" / "data"


class Clock:
    """The engine's statements and the templates' rendering, timed while a call runs."""

    def __init__(self) -> None:
        self.statements: list[tuple[str, float]] = []
        self.render = 0.0

    def install(self) -> None:
        import jinja2

        from discosql.engines import base

        guarded = base.Engine._guarded
        render = jinja2.Template.render
        clock = self

        def timed_guarded(engine: Any, stage: str, run: Callable[[], Any]) -> Any:
            t = time.perf_counter()
            try:
                return guarded(engine, stage, run)
            finally:
                clock.statements.append((stage, time.perf_counter() - t))

        def timed_render(template: Any, *args: Any, **kwargs: Any) -> str:
            t = time.perf_counter()
            try:
                return str(render(template, *args, **kwargs))
            finally:
                clock.render += time.perf_counter() - t

        base.Engine._guarded = timed_guarded  # type: ignore[method-assign]
        jinja2.Template.render = timed_render  # type: ignore[method-assign]

    def reset(self) -> None:
        self.statements, self.render = [], 0.0


def kind(stage: str) -> str:
    """A statement's kind: its template's folder (stages, risk, suda, ...) or what it does."""
    if stage in ("cleanup", "register", "inspect/radices"):
        return stage
    return stage.split("/")[0] if "/" in stage else stage.split(" ")[0]


def profile(name: str, call: Callable[[], Any], clock: Clock, repeat: int) -> dict[str, Any]:
    call()
    best: dict[str, Any] | None = None
    for _ in range(repeat):
        clock.reset()
        t = time.perf_counter()
        call()
        wall = time.perf_counter() - t
        if best is None or wall < best["wall"]:
            by_kind: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
            for stage, s in clock.statements:
                by_kind[kind(stage)][0] += 1
                by_kind[kind(stage)][1] += s
            engine = sum(s for _, s in clock.statements)
            best = {
                "call": name,
                "wall": wall,
                "statements": len(clock.statements),
                "engine": engine,
                "render": clock.render,
                "python": wall - engine - clock.render,
                "by_kind": {k: [int(v[0]), v[1]] for k, v in sorted(by_kind.items())},
            }
    assert best is not None
    return best


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--json", type=Path, default=None)
    a = p.parse_args()
    sys.path.insert(0, str(HERE))
    from bench_small import KEYS, skewed  # type: ignore[import-not-found]

    import discosql as ds

    clock = Clock()
    clock.install()
    engine = ds.duckdb(threads=a.threads)
    data = skewed(a.rows)
    original = str(DATA / "sd2011.parquet")
    syn = [str(DATA / f"syn_{j}.parquet") for j in range(1, 6)]
    keys = ["sex", "age", "region", "placesize"]
    targets = ["depress", "ls", "marital", "workab", "income"]
    calls: dict[str, Callable[[], Any]] = {
        f"risk ({a.rows:,} rows, 8 keys, weight)": lambda: ds.risk(
            data, KEYS, weight="w", engine=engine
        ),
        f"suda ({a.rows:,} rows, 8 keys)": lambda: ds.suda(data, KEYS, engine=engine),
        "disclosure (SD2011, 5 syntheses)": lambda: ds.disclosure(
            original, syn, keys, "depress", engine=engine
        ),
        "disclosure_summary (SD2011, 5 targets)": lambda: ds.disclosure_summary(
            original, syn, keys, targets, engine=engine
        ),
        "report (SD2011, 5 syntheses)": lambda: ds.report(
            original, syn, keys, ["depress"], engine=engine
        ),
    }
    rows = [profile(name, call, clock, a.repeat) for name, call in calls.items()]
    for r in rows:
        print(
            f"{r['call']}: {r['wall'] * 1000:.1f} ms; {r['statements']} statements, engine "
            f"{r['engine'] * 1000:.1f} ms, render {r['render'] * 1000:.1f} ms, Python "
            f"{r['python'] * 1000:.1f} ms"
        )
        for k, (n, s) in sorted(r["by_kind"].items(), key=lambda kv: -kv[1][1]):
            print(f"    {k:<28} {n:>4} statements {s * 1000:8.1f} ms")
    if a.json is not None:
        meta = {"rows": a.rows, "threads": a.threads, "repeat": a.repeat}
        a.json.write_text(json.dumps({**meta, "calls": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
