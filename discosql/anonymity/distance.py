"""The exact nearest-record search of the distance family, over every record, numeric
columns included.

The distance is SDMetrics 0.32's (``dcr_utils.py``): per column a term in [0, 1], numeric and
datetime ``min(|r - q| / range, 1)`` (range of the data set searched; a range of 0 gives 0
for equal values, else 1), categorical and boolean 0 or 1; missing against a value 1, missing
against missing 0; the mean of the terms (``sql_templates/macros/distance.sql.j2``).

Every term is at most 1, so a record searched that differs on c categorical columns is at
distance at least c / D; and a record outside the box ``|r - q| <= radius * range`` on some
numeric column is at distance more than radius / D. The search runs rounds over the records
not yet resolved (``sql_templates/distance/round.sql.j2``): boxes of radius 1/256, 1/128, ...
within the records equal on every categorical column (the boxes as grid cells, joined on
equality), then the whole of that block, then the records equal on all but one categorical
column, and so on; a record is resolved when its two smallest distances are at most the
round's bound, since nothing outside the round's candidates is closer. The result is the
exact minimum over every record searched, as a double computed by the same expression for
every pair (equal inputs give equal bits). The worst case stays quadratic within a block: each
round's candidate pairs are counted first, and a round past ``max_pairs`` is refused.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..core.dictionaries import build_for
from ..core.inputs import Inputs
from ..core.plan import Column, as_text
from ..engines.base import Registered, Work
from ..errors import InputError
from ..sql.templates import ident, render
from ..sql.types import is_temporal
from .common import MAX_PAIRS

RECORDS_TEMPLATE = "distance/records.sql.j2"
RANGES_TEMPLATE = "distance/ranges.sql.j2"
ROUND_TEMPLATE = "distance/round.sql.j2"
SPLIT_TEMPLATE = "distance/split.sql.j2"
NONE_TEMPLATE = "distance/none.sql.j2"
PROFILES_TEMPLATE = "distance/profiles.sql.j2"
GRID_TEMPLATE = "distance/grid.sql.j2"
RECORDS = "__disco_dd_records"
RANGES = "__disco_dd_ranges"
# the first box radius (in ranges) and the columns whose grid cells are joined: a record's
# closest copy is usually within 1/256 of each range; more grid columns multiply the
# searched data set's copies by 3 each; of more boxed columns, those whose cells share the
# fewest pairs of records (grid.sql.j2)
FIRST_RADIUS = 1 / 256
GRID_COLUMNS = 2
# below this many pairs a round compares every pair at once (one statement instead of rounds)
SMALL_PAIRS = 4_000_000
EXACT_DOUBLE = 2.0**53  # integers of this magnitude and above are not exact as doubles
# the tied search resolves a record once its k-th smallest is this far below a round's bound:
# a sum of D terms rounds by far less, so no record at the bound is taken for a nearer one
TIE_MARGIN = 1e-9


@dataclass(frozen=True)
class DistanceColumn:
    """A column compared: its place among them, and whether it is numeric (a number, a date or
    a timestamp, compared by difference; else categorical, compared for equality)."""

    name: str
    pos: int
    numeric: bool
    temporal: bool = False


def distance_columns(
    sources: Sequence[Registered], names: Sequence[str], categorical: Sequence[str] = ()
) -> list[DistanceColumn]:
    """The columns ``names`` with their kinds from the data: integer and floating-point
    columns, dates and timestamps are numeric (unless named in ``categorical``), the others
    categorical. The columns were checked to exist with fitting kinds in every data set."""
    out = []
    for pos, name in enumerate(names):
        kinds = [reg.kinds.get(name) for reg in sources if reg.n_rows > 0]
        kinds = [k for k in kinds if k not in (None, "null")] or ["null"]
        temporal = any(
            is_temporal(reg.columns[name], reg.dialect)
            for reg in sources
            if reg.n_rows > 0 and reg.kinds.get(name) not in (None, "null")
        )
        numeric = (kinds[0] in ("integer", "float") or temporal) and name not in categorical
        out.append(DistanceColumn(name, pos, numeric, temporal and numeric))
    return out


@dataclass(frozen=True)
class Prepared:
    """Step 1 and 2's tables: every record as codes and doubles, and each data set's ranges
    (``ranges[src][pos]``: (lo, range), range None when no value is known)."""

    columns: tuple[DistanceColumn, ...]
    ranges: dict[int, dict[int, tuple[float | None, float | None]]]
    rows: dict[int, int]


def prepare(
    work: Work,
    sources: Sequence[Registered],
    columns: Sequence[DistanceColumn],
    joint: Sequence[tuple[int, tuple[int, ...]]] = (),
) -> Prepared:
    """Steps 1 and 2 (``distance/records.sql.j2``, ``distance/ranges.sql.j2``) over every
    data set of ``sources`` (src = its index); ``joint``: (id, srcs), the ranges of those
    data sets together, as ``ranges[id]`` (id negative). An integer or timestamp column with
    a value of magnitude 2^53 or more is refused: it is not exact as a double."""
    engine = work.engine
    inputs = Inputs(engine, list(sources))
    params, plain = inputs.params(), inputs.data_sets()
    categorical = [
        Column(
            name=c.name,
            alias=f"c_{c.pos}",
            pos=c.pos,
            levels=f"__disco_dd_levels_{c.pos}",
            as_text=as_text(inputs, c.name),
        )
        for c in columns
        if not c.numeric
    ]
    built: tuple[Column, ...] = ()
    if categorical:
        built = build_for(work, categorical, plain, params, "__disco_dd_levels_all", True)
    positioned = [
        replace(data, sql=engine.positioned(reg)) for data, reg in zip(plain, sources, strict=True)
    ]
    numeric = [c for c in columns if c.numeric]
    sql = render(
        RECORDS_TEMPLATE,
        engine.dialect,
        sources=positioned,
        categorical=built,
        numeric=numeric,
    )
    work.create(RECORDS, sql, params, RECORDS_TEMPLATE)
    for name in dict.fromkeys(c.levels for c in built):
        work.drop(name)
    joined = [{"src": i, "of": list(of)} for i, of in joint]
    sql = render(RANGES_TEMPLATE, engine.dialect, records=RECORDS, numeric=numeric, joint=joined)
    work.create(RANGES, sql, {}, RANGES_TEMPLATE)
    rows = engine.query(f"SELECT * FROM {ident(RANGES)}", {}, RANGES_TEMPLATE, small=True)
    ranges: dict[int, dict[int, tuple[float | None, float | None]]] = {}
    problems = []
    for row in rows.to_pylist():
        src = int(row["src"])
        ranges[src] = {}
        for c in numeric:
            lo, rng, big = row[f"lo_{c.pos}"], row[f"rng_{c.pos}"], row[f"big_{c.pos}"]
            ranges[src][c.pos] = (lo, rng)
            if src < 0:  # a joint row: its data sets' own rows are checked
                continue
            if big is not None and big >= EXACT_DOUBLE and not _is_float(sources, c.name):
                problems.append(
                    f"columns: {c.name!r} in the {sources[src].source.label} data has a value "
                    f"of magnitude {big:.0f}, at least 2^53, which a double does not hold "
                    "exactly; compare it as a category (categorical=) or rescale it"
                )
    if problems:
        raise InputError(problems)
    return Prepared(tuple(columns), ranges, {i: reg.n_rows for i, reg in enumerate(sources)})


def _is_float(sources: Sequence[Registered], name: str) -> bool:
    return any(reg.kinds.get(name) == "float" for reg in sources)


@dataclass(frozen=True)
class Tied:
    """A search for anonymeter's neighbours (:func:`nearest` with ``tied``): over the table
    ``records`` (src, rid, the columns, w: how many records it stands for, m: its missing
    numbers; distinct records, each once), ``rows`` of it per data set, the ``columns``
    compared in the order anonymeter adds them, and every record within the ``k``-th
    smallest of its distances (counted with w)."""

    records: str
    rows: dict[int, int]
    columns: tuple[DistanceColumn, ...]
    k: int = 1


def anonymeter_order(columns: Sequence[DistanceColumn]) -> tuple[DistanceColumn, ...]:
    """The columns in the order anonymeter's distance adds them: the numeric ones by name,
    then the categorical ones by name (``detect_col_types``: ``sorted``)."""
    numeric = sorted((c for c in columns if c.numeric), key=lambda c: c.name)
    other = sorted((c for c in columns if not c.numeric), key=lambda c: c.name)
    return (*numeric, *other)


def profiles(
    work: Work, table: str, columns: Sequence[DistanceColumn], compared: Sequence[DistanceColumn]
) -> dict[int, int]:
    """The work table ``table`` (``distance/profiles.sql.j2``): every data set's distinct
    records on ``columns`` with their count w and m, their missing numbers among the
    ``compared`` columns; its rows per data set (the tied search's records, :class:`Tied`)."""
    engine = work.engine
    sql = render(
        PROFILES_TEMPLATE,
        engine.dialect,
        records=RECORDS,
        columns=[{"pos": c.pos, "numeric": c.numeric} for c in columns],
        missing=[c.pos for c in compared if c.numeric],
    )
    work.create(table, sql, {}, PROFILES_TEMPLATE)
    got = engine.query(
        f"SELECT src, count(*) AS n FROM {ident(table)} GROUP BY src", {}, PROFILES_TEMPLATE
    )
    return {int(r["src"]): int(r["n"]) for r in got.to_pylist()}


@dataclass(frozen=True)
class Round:
    """One round of the search: the candidates differ on at most ``level`` searched columns
    (``drops``: the sets of that many left out of the join), within a box of ``radius`` of
    each numeric range (None: whole blocks); ``bound`` (times D): no record searched outside
    the candidates and the rounds before is nearer (inf: the last round)."""

    level: int
    drops: tuple[tuple[int, ...], ...]
    radius: float | None
    bound: float


def rounds(columns: Sequence[dict[str, Any]]) -> list[Round]:
    """The rounds in order, level by level (0, 1, ... searched columns left out): boxes of
    radius 1/256, 1/128, ... while a numeric column has a range above 0, then the whole
    blocks, after which every record at that level was a candidate. A box at level c bounds
    the rest by (c + radius) / D (every record nearer in columns was seen at level c - 1), the
    whole blocks by (c + 1) / D; the last level leaves every searched column out."""
    searched = [c["pos"] for c in columns if c["search"]]
    boxed = any(c["box"] for c in columns)
    out: list[Round] = []
    for c in range(len(searched) + 1):
        drops = tuple(itertools.combinations(searched, c))
        radius = FIRST_RADIUS
        while boxed and radius < 1:
            out.append(Round(c, drops, radius, c + radius))
            radius *= 2
        out.append(Round(c, drops, None, math.inf if c == len(searched) else c + 1.0))
    return out


def _refusal(rnd: Round, pairs: float, max_pairs: int, labels: tuple[str, str], family: str) -> str:
    what = (
        f"a box of radius {rnd.radius:g} of each range"
        if rnd.radius is not None
        else f"the records differing on up to {rnd.level} categorical columns"
    )
    return (
        f"{family}: the exact search from the {labels[0]} to the {labels[1]} data needs "
        f"{pairs:.3g} pairs of records in one round ({what}), above max_pairs={max_pairs:_}: "
        "the records share too few categorical values; compare fewer numeric columns, name "
        "numeric codes as categorical=, or raise max_pairs"
    )


@dataclass
class _Search:
    """The search from data set q_src to r_src: its columns as the round template sees them
    (``search``: compared for equality), the numeric columns boxed and the grid's."""

    work: Work
    table: str
    base: dict[str, Any]
    cols: list[dict[str, Any]]
    ties: int | None = None
    metric: str = "sdmetrics"
    family: str = "dcr"
    grid: list[dict[str, Any]] | None = None  # the grid's columns, when chosen (choose_grid)

    @property
    def boxed(self) -> list[dict[str, Any]]:
        return [c for c in self.cols if c["box"]]

    def choose_grid(self) -> None:
        """Of more boxed columns than the grid joins, the GRID_COLUMNS whose cells at the
        first radius share the fewest pairs of the searched data set's records (ties: the
        first in column order); any choice gives the same result (every boxed column is
        checked), this one the fewest pairs to check."""
        boxed = self.boxed
        if len(boxed) <= GRID_COLUMNS:
            return
        engine = self.work.engine
        params = {"radius": FIRST_RADIUS, "top": 1 / FIRST_RADIUS + 3}
        sql = render(GRID_TEMPLATE, engine.dialect, boxed=boxed, **self.base)
        got = engine.query(sql, params, GRID_TEMPLATE, small=True).to_pylist()
        collisions = {int(r["pos"]): float(r["collisions"] or 0.0) for r in got}
        order = sorted(range(len(boxed)), key=lambda i: (collisions[boxed[i]["pos"]], i))
        self.grid = [boxed[i] for i in sorted(order[:GRID_COLUMNS])]

    @property
    def scale(self) -> int:
        """What a round's bound (in columns) is divided by: SDMetrics' distance is a mean,
        anonymeter's a sum."""
        return 1 if self.metric == "gower" else len(self.cols)

    def context(self, rnd: Round, open_table: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
        """The round template's context and parameters."""
        ctx: dict[str, Any] = {
            **self.base,
            "open": open_table,
            "columns": self.cols,
            "box": rnd.radius is not None,
            "drops": [list(d) for d in rnd.drops] if rnd.drops is not None else [],
            "grid": self.grid if self.grid is not None else self.boxed[:GRID_COLUMNS],
            "near_cols": self.boxed,
            "metric": self.metric,
            "ties": self.ties,
            "nullkeys": [c["pos"] for c in self.cols if c["numeric"]]
            if self.metric == "gower"
            else [],
        }
        params: dict[str, Any] = {}
        if rnd.radius is not None:
            r = rnd.radius
            params = {"radius": r, "top": 1 / r + 3, "slack": r * (1 + 1e-9)}
        return ctx, params

    def pairs(self, rnd: Round, open_table: str | None) -> float:
        """The number of candidate pairs of a round (an upper bound where its sets overlap)."""
        ctx, params = self.context(rnd, open_table)
        engine = self.work.engine
        sql = render(ROUND_TEMPLATE, engine.dialect, count=True, **ctx)
        counted = engine.query(sql, params, ROUND_TEMPLATE, small=True)
        return float(counted.column("pairs")[0].as_py() or 0)

    def run(
        self, rnd: Round, open_table: str | None, best: str | None, i: int
    ) -> tuple[str, str, str | None, int]:
        """Round ``i``: the table of the records it resolved, its nearest two of every open
        record (the next round's ``best``), the table of the records still open (None after
        the last round) and their number."""
        work, engine = self.work, self.work.engine
        ctx, params = self.context(rnd, open_table)
        cand, done = f"{self.table}_c{i}", f"{self.table}_r{i}"
        sql = render(ROUND_TEMPLATE, engine.dialect, count=False, best=best, **ctx)
        work.create(cand, sql, params, ROUND_TEMPLATE)
        last = rnd.bound == math.inf
        sql = render(
            SPLIT_TEMPLATE,
            engine.dialect,
            part="resolved",
            cand=cand,
            bound=not last,
            ties=self.ties,
        )
        bound: dict[str, Any] = {} if last else {"bound": rnd.bound / self.scale}
        if self.ties and not last:
            bound["eps"] = TIE_MARGIN
        work.create(done, sql, bound, SPLIT_TEMPLATE)
        if last:
            return done, cand, None, 0
        still = f"{self.table}_o{i}"
        split = {"records": self.base["records"], "q_src": self.base["q_src"], "open": open_table}
        sql = render(SPLIT_TEMPLATE, engine.dialect, part="open", done=done, **split)
        work.create(still, sql, {}, SPLIT_TEMPLATE)
        sql = render(SPLIT_TEMPLATE, engine.dialect, part="left", open=still)
        left = engine.query(sql, {}, SPLIT_TEMPLATE, small=True).column("n")[0].as_py()
        return done, cand, still, int(left)


def search_columns(
    prepared: Prepared,
    ranges: dict[int, tuple[float | None, float | None]],
    compared: Sequence[DistanceColumn] | None = None,
    metric: str = "sdmetrics",
) -> list[dict[str, Any]]:
    """The columns as the search templates see them (``compared``, in the order the distance
    adds them; default every prepared column), with the ranges of the data set searched:
    ``search`` for the columns compared for equality (categorical ones; under SDMetrics'
    distance also numeric ones whose range is 0 or unknown: a term of 0 or 1), ``box`` for
    the numeric columns searched by boxes (range above 0). Under anonymeter's Gower distance
    a numeric column of range 0 adds 0 (or NaN), so only its missingness is matched."""
    cols = []
    for c in prepared.columns if compared is None else compared:
        rng = ranges.get(c.pos, (None, None))[1] if c.numeric else None
        exact = c.numeric and not rng
        search = (not c.numeric) or (exact and metric != "gower")
        cols.append(
            {"pos": c.pos, "numeric": c.numeric, "search": search, "box": c.numeric and not exact}
        )
    return cols


def nearest(
    work: Work,
    prepared: Prepared,
    q_src: int,
    r_src: int,
    table: str,
    *,
    max_pairs: int = MAX_PAIRS,
    labels: tuple[str, str] = ("synthetic", "original"),
    g_src: int | None = None,
    family: str = "dcr",
    tied: Tied | None = None,
) -> None:
    """The work table ``table`` (rid, d1, r1, d2): each record of data set ``q_src`` with its
    two smallest distances to the records of ``r_src`` and the record (rid) at the smallest
    (d2 NULL when the data set searched has one record; all NULL when it has none), found
    exactly by the rounds of :func:`rounds`. The distances are normalised by the ranges of
    ``r_src``, or of ``g_src`` (a joint row of :func:`prepare`).
    Where every pair of the records still open fits in SMALL_PAIRS, one last round compares
    them all; where the first box round's whole block does, the boxes are skipped.

    ``tied``: the search of anonymeter's neighbours instead (:class:`Tied`): ``table`` is
    (rid, rrid, d, w, m), every record of ``tied.records`` within the k-th smallest finite
    distance of each (ties included); a record with no finite distance has no row."""
    engine = work.engine
    records = RECORDS if tied is None else tied.records
    rows = prepared.rows if tied is None else tied.rows
    n_ref, n_open = rows.get(r_src, 0), rows.get(q_src, 0)
    if n_ref == 0 or n_open == 0:
        k = None if tied is None else tied.k
        sql = render(NONE_TEMPLATE, engine.dialect, records=records, q_src=q_src, ties=k)
        work.create(table, sql, {}, NONE_TEMPLATE)
        return
    g_src = r_src if g_src is None else g_src
    g_ranges = prepared.ranges.get(g_src, {})
    base = {"records": records, "ranges": RANGES, "q_src": q_src, "r_src": r_src, "g_src": g_src}
    if tied is None:
        search = _Search(work, table, base, search_columns(prepared, g_ranges), family=family)
    else:
        cols = search_columns(prepared, g_ranges, tied.columns, "gower")
        search = _Search(work, table, base, cols, tied.k, "gower", family)
    cols = search.cols
    if n_open * n_ref > SMALL_PAIRS:  # rounds of boxes, not every pair at once
        search.choose_grid()
    plan, parts, i = rounds(cols), [], 0
    open_table: str | None = None
    best: str | None = None
    every = tuple(c["pos"] for c in cols if c["search"])
    level, level_pairs = -1, math.inf  # the whole blocks' pairs of the level begun
    while plan:
        rnd = plan.pop(0)
        if n_open * n_ref <= SMALL_PAIRS:  # every pair at once: one round, nothing to count
            rnd, plan = Round(len(every), (every,), None, math.inf), []
            pairs = float(n_open * n_ref)
        else:
            if rnd.level != level:  # a level begins: count its whole blocks once
                whole = rnd if rnd.radius is None else next(r for r in plan if r.radius is None)
                level, level_pairs = rnd.level, search.pairs(whole, open_table)
                if rnd.radius is not None and level_pairs <= SMALL_PAIRS:
                    plan = plan[plan.index(whole) + 1 :]  # small blocks: no boxes
                    rnd = whole
            # a round's candidates are among its level's whole blocks (for fewer records)
            pairs = level_pairs
            if pairs > max_pairs:
                pairs = search.pairs(rnd, open_table)
        if pairs > max_pairs:
            raise InputError(_refusal(rnd, pairs, max_pairs, labels, search.family))
        done, cand, still, n_open = search.run(rnd, open_table, best, i)
        parts.append(done)
        for name in (open_table, best):
            if name is not None:
                work.drop(name)
        open_table, best, i = still, cand, i + 1
        if still is None or n_open == 0:
            break
    sql = render(SPLIT_TEMPLATE, engine.dialect, part="all", parts=parts, ties=search.ties)
    work.create(table, sql, {}, SPLIT_TEMPLATE)
    for name in [*parts, *(n for n in (open_table, best) if n is not None)]:
        work.drop(name)
