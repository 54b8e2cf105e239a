"""Linkability and exact matches on UCI Adult, DuckDB against PostgreSQL with the server's
default settings (the trial of issue 56), each call's time by stage.

    python benchmarks/profile_anonymity_pg.py --adult path/to/adult.csv [--jit on]

A throw-away PostgreSQL cluster on loopback (tests/servers.py, its defaults: work_mem 4MB,
temp_buffers 8MB, jit on) holds Adult and two stand-in syntheses (bench_report.syntheses,
seed 1). ``--jit on`` runs discosql's own connection with PostgreSQL's JIT on, as before
discosql switched it off there. Prints, per engine and call, the time and the slowest
stages (Engine._guarded, which every statement passes), and beside each PostgreSQL call its
floor: the plain joins and groupings the same answer cannot do without, written by hand on
the text columns and run on one psycopg connection with the same session settings (JIT as
``--jit``). Linkability's floor is the nearest-record search of each side (for every level d,
one GROUP BY of the synthesis per set of d columns left out, joined to the cells still open,
until none is); it leaves out the joint check and the rates, so it is a lower bound.
Exact matches' floor is, per synthesis, one join per set of 0, 1 or 2 columns left out (1 +
15 + 105 on Adult's 15 columns) of its distinct records with the original's, and each
record's smallest level.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.csv as pacsv

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.servers
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_report import syntheses

import discosql as ds
from discosql.engines import base
from tests import engine_data, servers

KEYS = ["age", "sex", "race", "marital.status", "native.country"]
TARGETS = ["income", "occupation", "relationship", "education", "workclass"]


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _eq(cols: list[str], a: str, b: str) -> str:
    return " and ".join(f"{a}.{_q(c)} = {b}.{_q(c)}" for c in cols) or "true"


def _grouped(cols: list[str], table: str) -> str:
    listed = ", ".join(_q(c) for c in cols)
    if not cols:
        return f"(select count(*) as n from {table})"
    return f"(select {listed}, count(*) as n from {table} group by {listed})"


def _create(con: Any, name: str, sql: str) -> None:
    """A temporary table, analysed: temporary tables get no statistics otherwise (autovacuum
    skips them), and the planner's guesses then turn joins into nested loops."""
    con.execute(f"create temp table {name} as {sql}")
    con.execute(f"analyze {name}")


def floor_linkability(con: Any, side_a: list[str], side_b: list[str]) -> None:
    """The nearest synthetic records of every original and control cell on each side, then
    the joint check: a cell at distances a and b is linked when a synthetic record matches
    it on (A without D_A) and (B without D_B) for some D_A of a and D_B of b columns."""
    cells = side_a + side_b
    listed = ", ".join(_q(c) for c in cells)
    _create(
        con,
        "cells",
        f"select src, {listed}, count(*) as n from ("
        f"select 0 as src, {listed} from adult union all select 1, {listed} from syn_2"
        f") as t group by src, {listed}",
    )
    for s, side in enumerate((side_a, side_b)):
        con.execute(f"create temp table lvl_{s} as select src, {listed}, 0 as d from cells limit 0")
        _create(con, "open_cells", "select * from cells")
        for d in range(len(side) + 1):
            branches = [
                f"select t.src, {', '.join('t.' + _q(c) for c in cells)}, s.n "
                f"from open_cells as t join {_grouped(kept, 'syn_1')} as s "
                f"on {_eq(kept, 't', 's')}"
                for drop in itertools.combinations(side, d)
                for kept in [[c for c in side if c not in drop]]
            ]
            _create(
                con,
                "found",
                f"select src, {listed}, sum(n) as nbrs from ("
                + " union all ".join(branches)
                + f") as b group by src, {listed}",
            )
            con.execute(f"insert into lvl_{s} select src, {listed}, {d} from found")
            con.execute(
                f"delete from open_cells as t using found as f where t.src = f.src "
                f"and {_eq(cells, 't', 'f')}"
            )
            con.execute("drop table found")
            if con.execute("select count(*) from open_cells").fetchone()[0] == 0:
                break
        con.execute("drop table open_cells")
        con.execute(f"analyze lvl_{s}")
    _create(
        con,
        "cl",
        f"select c.*, a.d as lvl_a, b.d as lvl_b from cells as c "
        f"join lvl_0 as a using (src, {listed}) join lvl_1 as b using (src, {listed})",
    )
    pairs = con.execute("select distinct lvl_a, lvl_b from cl").fetchall()
    for k, (a, b) in enumerate(pairs):
        branches = [
            f"select t.src, {', '.join('t.' + _q(c) for c in cells)} "
            f"from cl as t join {_grouped(kept, 'syn_1')} as s "
            f"on {_eq(kept, 't', 's')} where t.lvl_a = {a} and t.lvl_b = {b}"
            for da in itertools.combinations(side_a, a)
            for db in itertools.combinations(side_b, b)
            for kept in [[c for c in cells if c not in da and c not in db]]
        ]
        con.execute(
            f"create temp table linked_{k} as select distinct * from ("
            + " union all ".join(branches)
            + ") as b"
        )


def floor_matches(con: Any, columns: list[str], syntheses: list[str]) -> None:
    """Each distinct synthetic record's smallest distance (0, 1, 2 or more) to the original."""
    listed = ", ".join(_q(c) for c in columns)
    for syn in syntheses:
        _create(
            con,
            "s",
            f"select row_number() over () as id, {listed}, "
            f"count(*) as n from {syn} group by {listed}",
        )
        branches = [
            f"select s.id, {d} as d from s join (select distinct {kept_list} from adult) as o "
            f"on {_eq(kept, 's', 'o')}"
            for d in range(3)
            for drop in itertools.combinations(columns, d)
            for kept in [[c for c in columns if c not in drop]]
            for kept_list in [", ".join(_q(c) for c in kept)]
        ]
        con.execute(
            "select coalesce(m.d, 3) as d, sum(s.n) from s left join (select id, min(d) as d "
            "from (" + " union all ".join(branches) + ") as b group by id) as m on m.id = s.id "
            "group by 1"
        ).fetchall()
        con.execute("drop table s")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--adult", type=Path, required=True, help="UCI Adult as CSV")
    p.add_argument("--jit", choices=("off", "on"), default="off")
    args = p.parse_args()
    adult = pacsv.read_csv(args.adult)
    syn = syntheses(adult, 2, seed=1)
    times: dict[str, float] = collections.defaultdict(float)
    real = base.Engine._guarded

    def guarded(self: base.Engine, stage: str, run: Any) -> Any:
        t = time.perf_counter()
        try:
            return real(self, stage, run)
        finally:
            times[stage] += time.perf_counter() - t

    base.Engine._guarded = guarded  # type: ignore[method-assign]
    if args.jit == "on":  # discosql's own session as before: JIT on again once opened
        from discosql.engines.postgres import PostgresEngine

        opened = PostgresEngine.__init__

        def with_jit(self: PostgresEngine, *a: Any, **kw: Any) -> None:
            opened(self, *a, **kw)
            self.con.execute("SET jit = on")

        PostgresEngine.__init__ = with_jit  # type: ignore[method-assign]
    with servers.postgres_server() as dsn:
        engine_data.load_postgres(dsn, {"adult": adult, "syn_1": syn[0], "syn_2": syn[1]})
        for eng, names in ((None, (adult, syn[0], syn[1])), (dsn, ("adult", "syn_1", "syn_2"))):
            calls = {
                "linkability": lambda e=eng, n=names: ds.linkability(
                    n[0], n[1], (KEYS, TARGETS), control=n[2], engine=e
                ),
                "exact_matches": lambda e=eng, n=names: ds.exact_matches(
                    n[0], [n[1], n[2]], engine=e
                ),
            }
            for name, call in calls.items():
                times.clear()
                t = time.perf_counter()
                call()
                total = time.perf_counter() - t
                print(f"{'duckdb' if eng is None else 'postgres'} {name}: {total:.2f} s")
                for stage, s in sorted(times.items(), key=lambda kv: -kv[1])[:4]:
                    print(f"   {s:7.2f}  {stage}")
                if eng is not None:
                    floor = _floor(dsn, name, list(adult.column_names), args.jit)
                    print(f"   floor {floor:.2f} s, ratio {total / floor:.2f}")


def _floor(dsn: str, call: str, columns: list[str], jit: str) -> float:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as con:
        con.execute(f"SET jit = {jit}")
        t = time.perf_counter()
        if call == "linkability":
            floor_linkability(con, KEYS, TARGETS)
        else:
            floor_matches(con, columns, ["syn_1", "syn_2"])
        return time.perf_counter() - t


if __name__ == "__main__":
    main()
