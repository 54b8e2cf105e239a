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

``--phases``: where DuckDB's time goes within each statement of ds.disclosure and
ds.disclosure_summary on SD2011, and within the floor's count queries (bench_small.py's): the
statements are recorded while the call runs, then run again on a fresh connection under
DuckDB's profiler (detailed mode), fastest of --repeat each; each statement's time is split
into binding (names, types, the files' footers), optimizing, physical planning and the rest
(running it, and the result).
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


PHASES = ("binding", "optimizing", "physical planning", "running")


def recorded(call: Callable[[], Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """The statements ``call`` runs on DuckDB: (how it is run, the SQL, its parameters)."""
    from discosql.engines.duckdb import DuckDBEngine

    log: list[tuple[str, str, dict[str, Any]]] = []
    saved = {m: getattr(DuckDBEngine, m) for m in ("_execute", "_query", "_query_small")}

    def hook(method: str) -> Callable[..., Any]:
        def run(self: Any, sql: str, params: dict[str, Any]) -> Any:
            log.append((method, sql, params))
            return saved[method](self, sql, params)

        return run

    try:
        for m in saved:
            setattr(DuckDBEngine, m, hook(m))
        call()
    finally:
        for m, f in saved.items():
            setattr(DuckDBEngine, m, f)
    return log


def split(
    statements: list[tuple[str, str, dict[str, Any]]], threads: int, repeat: int
) -> dict[str, Any]:
    """``statements`` run again under DuckDB's profiler: seconds by phase, fastest run each."""
    import tempfile

    import duckdb

    con = duckdb.connect()
    con.execute(f"SET threads = {int(threads)}")

    def run(method: str, sql: str, params: dict[str, Any]) -> None:
        if method == "_query_small":  # as the engine runs it: into a table, then read
            con.execute(f'CREATE OR REPLACE TEMP TABLE "__small" AS\n{sql}', params)
        elif method == "_query":
            con.sql(sql, params=params).to_arrow_table()
        else:
            con.execute(sql, params)

    for st in statements:  # the work tables the later statements read, and a warm-up
        run(*st)
    totals = dict.fromkeys(PHASES, 0.0)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "profile.json"
        con.execute("PRAGMA enable_profiling = 'json'")
        con.execute(f"PRAGMA profiling_output = '{out}'")
        con.execute("SET profiling_mode = 'detailed'")
        con.execute("SET profiling_coverage = 'ALL'")
        for st in statements:
            best: dict[str, float] | None = None
            for _ in range(repeat):
                run(*st)
                j = json.loads(out.read_text())
                total = j["query"]["total_time"]
                if best is None or total < best["total"]:
                    bind = j["planner"]["binding_time"]
                    opt = j["optimizer"]["total_time"]
                    phys = j["physical_planner"]["total_time"]
                    best = {"total": total, "binding": bind, "optimizing": opt}
                    best["physical planning"] = phys
                    best["running"] = total - bind - opt - phys
            assert best is not None
            for k in PHASES:
                totals[k] += best[k]
    con.close()
    return {"statements": len(statements), "seconds": sum(totals.values()), "phases": totals}


def phases(threads: int, repeat: int) -> list[dict[str, Any]]:
    """ds.disclosure and disclosure_summary on SD2011 and their floors, split by phase."""
    from bench_small import SD_FILES as files  # type: ignore[import-not-found]
    from bench_small import SD_KEYS as keys
    from bench_small import SD_TARGETS as targets
    from bench_small import sd_floor_sql

    import discosql as ds

    engine = ds.duckdb(threads=threads)

    def floor(ts: list[str]) -> list[tuple[str, str, dict[str, Any]]]:
        return [("_query", sd_floor_sql(t), {"f": f}) for t in ts for f in files]

    runs = [
        (
            "disclosure (SD2011, depress)",
            recorded(lambda: ds.disclosure(files[0], files[1:], keys, "depress", engine=engine)),
        ),
        ("its floor (6 count queries)", floor(["depress"])),
        (
            "disclosure_summary (SD2011, 5 targets)",
            recorded(
                lambda: ds.disclosure_summary(files[0], files[1:], keys, targets, engine=engine)
            ),
        ),
        ("its floor (30 count queries)", floor(targets)),
    ]
    return [{"call": name, **split(st, threads, repeat)} for name, st in runs]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--phases", action="store_true", help="DuckDB's time by phase, SD2011")
    a = p.parse_args()
    sys.path.insert(0, str(HERE))
    if a.phases:
        rows = phases(a.threads, a.repeat)
        for r in rows:
            parts = ", ".join(f"{k} {v * 1000:.1f}" for k, v in r["phases"].items())
            ms = r["seconds"] * 1000
            print(f"{r['call']}: {r['statements']} statements, {ms:.1f} ms: {parts}")
        if a.json is not None:
            a.json.write_text(json.dumps({"threads": a.threads, "phases": rows}, indent=1) + "\n")
        return
    from bench_small import KEYS, SD_FILES, SD_KEYS, SD_TARGETS, skewed  # type: ignore[import-not-found]

    import discosql as ds

    clock = Clock()
    clock.install()
    engine = ds.duckdb(threads=a.threads)
    data = skewed(a.rows)
    original, syn = SD_FILES[0], SD_FILES[1:]
    keys, targets = SD_KEYS, SD_TARGETS
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
