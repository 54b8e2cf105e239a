"""Linkability under the Hamming distance (the number of differing columns; NULL equals NULL),
the attack :func:`discosql.linkability` runs on categorical columns with one neighbour and
exports as a script: anonymeter's Gower distance orders such records the same way.

Nearest neighbours are found without comparing pairs of records: distance <= d on a side is a
match on the side's columns without some d of them, one GROUP BY per set of d columns
(``sql_templates/anonymity/linkability_level.sql.j2``), level by level until every target
cell has its closest (step 2); the cells and their distances (step 3); the links, one pair of
distances at a time, by joint groupings or by listing the closest records (step 4); the
counts (step 5). The decisions that depend on the data are a :class:`LinkPlan`, which an
exported script follows and checks.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from ..core.assumptions import CHANGED, RE_EXPORT
from ..core.inputs import Inputs
from ..engines.base import Engine, Work
from ..errors import InputError
from ..sql.templates import ident, render
from .common import coded_combinations

COMBOS = "__disco_lk_combos"
OPEN = "__disco_lk_open_"
LEVEL = "__disco_lk_level_"
CELLS = "__disco_lk_cells"
LINKS = "__disco_lk_links_"
CHECK = "__disco_lk_check_"  # exported scripts: the checks of the export's decisions
COUNTS = "__disco_lk_counts"  # step 5's counts, then their summary
SYNTHESIS = 1  # the synthesis's src; 0 the original, 2 the control
# The link step, per pair of distances (a on A, b on B): joint groupings, C(|A|, a) *
# C(|B|, b) of them in one statement, up to MAX_JOINT (C(5, 2)^2 = 100); else the closest
# records of the side with fewer of them, listed, up to MAX_LISTED in all; else refused.
MAX_JOINT = 128
MAX_LISTED = 2_000_000_000
BATCH = 128  # listing branches per statement
PLAN_SCHEMA = pa.schema(
    [
        ("lvl_a", pa.int32()),
        ("lvl_b", pa.int32()),
        ("via", pa.int32()),
        ("cells", pa.int64()),
        ("listed", pa.int64()),
    ]
)


@dataclass
class LinkPlan:
    """The decisions of one attack that depend on the data, recorded on an engine and
    followed by an exported script, which checks them where it runs: ``radices`` (the q
    packing), ``depth`` (per side, the distance levels computed: fewer than the side's
    columns when they resolved every target cell), ``pairs`` ({(a, b): None for the joint
    groupings, else the sides whose closest records are listed}, the pairs of distances the
    target cells are at)."""

    radices: list[int] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    pairs: dict[tuple[int, int], tuple[int, ...] | None] = field(default_factory=dict)

    def describe(self) -> str:
        """The decisions, for the script's header."""
        joint = [f"({a}, {b})" for (a, b), v in self.pairs.items() if v is None]
        listed = [f"({a}, {b})" for (a, b), v in self.pairs.items() if v is not None]
        return "\n".join(
            [
                "decided at export time and checked where the script runs (a check stops it):",
                f"  distance levels computed per side: A {self.depth[0]}, B {self.depth[1]}",
                "  pairs of distances (A, B) linked by joint groupings: "
                + (", ".join(joint) or "none"),
                f"  by listing the closest records: {', '.join(listed) or 'none'}",
            ]
        )


def run_hamming(
    work: Work,
    inputs: Inputs,
    names: list[str],
    sides: tuple[list[str], list[str]],
    script: LinkPlan | None,
    counts: str,
) -> LinkPlan:
    """Steps 1 to 5 of the attack under the Hamming distance, step 5's counts left in the
    work table ``counts`` (``anonymity/linkability.sql.j2``); the decisions it made, or on a
    script engine those of the export (``script``), which the script checks."""
    engine = work.engine
    plan = LinkPlan()
    positions = [[names.index(c) for c in side] for side in sides]
    coded = coded_combinations(
        work, inputs, names, COMBOS, None if script is None else script.radices
    )
    plan.radices = list(coded.radices)
    params = coded.params
    ctx: dict[str, Any] = {
        "keys": coded.keys,
        "n_words": coded.n_words,
        "combos": COMBOS,
        "synthesis": SYNTHESIS,
    }
    checks: list[str] = []
    levels = [
        _levels(work, s, side, names, ctx, params, plan, script, checks)
        for s, side in enumerate(positions)
    ]
    template = "anonymity/linkability_cells.sql.j2"
    side_ctx = [
        {"size": len(side), "levels": lv} for side, lv in zip(positions, levels, strict=True)
    ]
    sql = render(template, engine.dialect, sides=side_ctx, cells=CELLS, **ctx)
    work.create(CELLS, sql, params, template)
    for lv in levels:
        for level in lv:
            work.drop(level["table"])
    links = _links(work, engine, positions, set(range(len(names))), params, ctx, plan, script)
    if script is not None:
        checks.append(_check(work, "plan", CELLS, script, params))
    template = "anonymity/linkability.sql.j2"
    sql = render(template, engine.dialect, cells=CELLS, links=links, checks=checks, **ctx)
    work.create(counts, sql, params, template)
    return plan if script is None else script


def _levels(
    work: Work,
    s: int,
    side: list[int],
    names: list[str],
    ctx: dict[str, Any],
    params: dict[str, Any],
    plan: LinkPlan,
    script: LinkPlan | None,
    checks: list[str],
) -> list[dict[str, Any]]:
    """Step 2 for side ``s``: the closest synthetic records of the target cells, level by
    level (distance d: one grouping per set of d of the side's columns, for the cells no
    lower level resolved) until none is left open; the levels' tables. A script computes the
    levels the export did and checks that they resolved every cell again."""
    engine = work.engine
    off_side = sorted(set(range(len(names))) - set(side))
    depth = len(side) if script is None else script.depth[s]
    tables: list[dict[str, Any]] = []
    open_cells = COMBOS  # the targets: combos' rows of src 0 and 2
    for d in range(depth):  # level len(side) matches everything: step 3 says so
        branches = [sorted([*off_side, *drop]) for drop in itertools.combinations(side, d)]
        table = f"{LEVEL}{s}_{d}"
        template = "anonymity/linkability_level.sql.j2"
        sql = render(template, engine.dialect, open=open_cells, branches=branches, where={}, **ctx)
        work.create(table, sql, params, template)
        tables.append({"table": table, "level": d})
        template = "anonymity/linkability_open.sql.j2"
        rest = f"{OPEN}{s}_{d}"
        sql = render(template, engine.dialect, open=open_cells, found=table, **ctx)
        work.create(rest, sql, params, template)
        if open_cells != COMBOS:
            work.drop(open_cells)
        open_cells = rest
        if script is None:
            left = engine.query(
                f"SELECT count(*) AS n FROM {ident(rest)}", {}, template, small=True
            )
            if not left.column(0)[0].as_py():
                break
        elif d == depth - 1 and depth < len(side):
            checks.append(_check(work, "open", rest, script, params, s))
    plan.depth.append(len(tables))
    if open_cells != COMBOS:
        work.drop(open_cells)
    return tables


def _check(
    work: Work,
    kind: str,
    table: str,
    plan: LinkPlan,
    params: dict[str, Any],
    side: int = 0,
) -> str:
    """An exported script's check that a decision of the export holds (``anonymity/
    linkability_check.sql.j2``); its table, which the counts read."""
    name = f"{CHECK}{kind}_{side}"
    if kind == "open":
        about = (
            f"some target cells are farther from the synthesis on {'AB'[side]} than the "
            f"{plan.depth[side]} distance level(s) computed at export time"
        )
    else:
        about = "some target cells are at a pair of distances the export did not plan for"
    message = f"{CHANGED}: {about}; {RE_EXPORT.replace('to_sql', 'linkability_to_sql')} ("
    pairs = [{"a": a, "b": b, "vias": v} for (a, b), v in plan.pairs.items()]
    template = "anonymity/linkability_check.sql.j2"
    sql = render(template, work.engine.dialect, kind=kind, table=table, pairs=pairs)
    work.create(name, sql, {**params, "check_message": message}, template)
    return name


def _links(
    work: Work,
    engine: Engine,
    positions: list[list[int]],
    everything: set[int],
    params: dict[str, Any],
    ctx: dict[str, Any],
    plan: LinkPlan,
    script: LinkPlan | None,
) -> list[str]:
    """Step 4's tables: the target cells linked, one pair of distances (a on A, b on B) at a
    time, by whichever check costs less. Joint: a record closest on both sides matches the
    cell on (A without a columns) and (B without b columns) for some choice of them: one
    grouping of the synthesis per choice, C(|A|, a) * C(|B|, b) of them (at most MAX_JOINT).
    Listing: the closest records of the side with fewer of them, the other side's distance
    computed per record (at most MAX_LISTED records listed in all). Neither: refused. A
    script follows the export's choices (``script``); the caller checks them."""
    if script is None:
        template = "anonymity/linkability_plan.sql.j2"
        sql = render(template, engine.dialect, cells=CELLS)
        rows = engine.query(sql, {}, template, small=True, schema=PLAN_SCHEMA).to_pylist()
    else:
        rows = [
            {"lvl_a": a, "lvl_b": b, "via": via, "listed": 0}
            for (a, b), vias in script.pairs.items()
            for via in (vias or (None,))
        ]
    pairs: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for p in rows:
        pairs.setdefault((p["lvl_a"], p["lvl_b"]), []).append(p)
    tables: list[str] = []
    listing: list[dict[str, Any]] = []
    listed = 0
    for (a, b), groups in pairs.items():
        joint = _joint(positions, everything, a, b)
        if len(joint) <= MAX_JOINT:
            plan.pairs[(a, b)] = None
            table = f"{LINKS}{len(tables)}"
            template = "anonymity/linkability_level.sql.j2"
            where = {"lvl_a": a, "lvl_b": b}
            sql = render(template, engine.dialect, open=CELLS, branches=joint, where=where, **ctx)
            work.create(table, sql, params, template)
            tables.append(table)
            continue
        plan.pairs[(a, b)] = tuple(g["via"] for g in groups)
        listed += sum(g["listed"] or 0 for g in groups)
        if listed > MAX_LISTED:
            raise InputError(
                f"aux_cols: the records at distance {a} on A and {b} on B need "
                f"{len(joint):,} joint groupings (at most {MAX_JOINT}) or a list of "
                f"{listed:,} closest synthetic records (at most {MAX_LISTED:,}): give sides "
                "with fewer or more distinguishing columns"
            )
        for g in groups:
            via = g["via"]
            side, other = positions[via], positions[1 - via]
            level, other_level = (a, b) if via == 0 else (b, a)
            for drop in itertools.combinations(side, level):
                keep = set(side) - set(drop)
                listing.append(
                    {
                        "via": via,
                        "level": level,
                        "drop": sorted(everything - keep),
                        "other": other,
                        "other_lvl": "lvl_" + "ab"[1 - via],
                        "other_level": other_level,
                    }
                )
    template = "anonymity/linkability_links.sql.j2"
    for i in range(0, len(listing), BATCH):
        table = f"{LINKS}{len(tables)}"
        sql = render(template, engine.dialect, cells=CELLS, branches=listing[i : i + BATCH], **ctx)
        work.create(table, sql, params, template)
        tables.append(table)
    return tables


def _joint(positions: list[list[int]], everything: set[int], a: int, b: int) -> list[list[int]]:
    """The joint check's branches for distances a on A and b on B: the key positions off
    (A without D_A) and (B without D_B), for every D_A of a columns and D_B of b (once each:
    with a column on both sides two choices can keep the same columns)."""
    side_a, side_b = positions
    drops = {
        tuple(sorted(everything - ((set(side_a) - set(da)) | (set(side_b) - set(db)))))
        for da in itertools.combinations(side_a, a)
        for db in itertools.combinations(side_b, b)
    }
    return [list(d) for d in sorted(drops)]
