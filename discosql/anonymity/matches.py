"""Whole-table matches: how many original records a synthesis reproduces whole.

Three numbers over a set of columns (by default every column of the original), each exact and
computed in SQL on the integer codes of stage 010's dictionaries (NA and NaN alone as code 0,
so NULL equals NULL, a text "NA" is a value of its own, and 57 and 57.0 are one value):

* **uem**: SDNist's unique exact match, the % of the original records unique on the columns
  whose value combination occurs in the synthesis;
* **identical**: the % of synthetic records identical on the columns to some original record
  (the identical-match share of SDMetrics and MOSTLY AI);
* **distance**: each synthetic record's smallest Hamming distance (the number of differing
  columns) to an original record, in four rows "0", "1", "2", "3+", found by grouping on
  column subsets (``sql_templates/anonymity/matches_near.sql.j2``), never by comparing pairs
  of records.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..core.inputs import Inputs, column_kinds, open_inputs
from ..core.options import Options, option
from ..core.results import AsData, json_rows
from ..core.spec import column_names
from ..engines.base import Registered, Work
from ..errors import DiscoSQLWarning, InputError, SchemaError
from ..sql.templates import ident, render
from .common import (
    coded_combinations,
    options_for,
    register_control,
    reserved_names,
    schema_check,
)

COMBOS = "__disco_mt_combos"
NEAR = "__disco_mt_near_"
UEM = "__disco_mt_uem"  # exported scripts: UEM and the distances, then their summary
DISTANCES_TABLE = "__disco_mt_distances"
# step 2's branches (column subsets, each a join) per statement: SQLite joins at most 64
# tables; 8 columns have 1 + 8 + 28 = 37 branches (74 with a control: two statements)
BATCH = 60
DISTANCES = ("0", "1", "2", "3+")
AGAINST = ("original", "control")
CAVEAT = (
    "Pilgram et al. 2025 (Patterns; 15 disclosure experts): similarity and exact-match scores "
    "are no evidence of safety from identity disclosure; a low identical share does not mean "
    "safe, a high one is a red flag"
)

DISTANCE_SCHEMA = pa.schema(
    [
        ("synthesis", pa.int32()),
        ("against", pa.string()),
        ("distance", pa.string()),
        ("records", pa.int64()),
        ("percent", pa.float64()),
    ]
)
SUMMARY_SCHEMA = pa.schema(
    [
        ("synthesis", pa.int32()),
        ("records", pa.int64()),
        ("original_uniques", pa.int64()),
        ("in_synthesis", pa.int64()),
        ("uem", pa.float64()),
        ("identical_records", pa.int64()),
        ("identical", pa.float64()),
        ("control_identical_records", pa.int64()),
        ("control_identical", pa.float64()),
    ]
)


@dataclass(frozen=True)
class MatchesOptions(Options):
    """:func:`exact_matches`'s options, checked when built (before any data is read)."""

    FAMILY = "exact_matches"

    columns: list[str] | None = option(
        None,
        "the columns compared, comma-separated (default: every column of the original)",
        kind="list",
        metavar="A,B,...",
    )

    def __post_init__(self) -> None:
        problems: list[str] = []
        names = None if self.columns is None else column_names("columns", self.columns, problems)
        reserved_names("columns", names, problems)
        if problems:
            raise InputError(problems)
        self.set("columns", names)

    def names(self, original: Registered) -> list[str]:
        """The columns compared: those named, else every column of the original."""
        return list(self.columns or original.columns)


@dataclass(frozen=True)
class ExactMatches(AsData):
    """Whole-table matches of m syntheses (percentages 0-100, unrounded).

    ``summary``: one row per synthesis: synthesis, records (its k records), original_uniques
    (original records unique on the columns), in_synthesis (of those, the ones whose
    combination occurs in the synthesis), uem = in_synthesis / original_uniques * 100 (NaN
    when the original has no unique record), identical_records (synthetic records identical
    to some original record), identical = identical_records / k * 100, and with a control
    control_identical_records and control_identical (the same against the control; None
    without one).

    ``distances``: synthesis, against ("original", and "control" with a control), distance
    ("0", "1", "2", "3+"), records, percent: four rows per synthesis and data set compared, each
    synthetic record counted once at its smallest number of differing columns.

    With one synthesis, :attr:`uem`, :attr:`identical`, :attr:`distance` (distance, records,
    percent), :attr:`control_identical` and :attr:`control_distance` give its numbers; with
    several they raise an InputError: take one with :meth:`of` or read the tables.
    """

    columns: tuple[str, ...]
    summary: pa.Table
    distances: pa.Table
    control: bool = False

    @property
    def m(self) -> int:
        """The number of syntheses measured."""
        return int(self.summary.num_rows)

    def of(self, synthesis: int) -> ExactMatches:
        """The numbers of synthesis ``synthesis`` (1..m) alone."""
        if isinstance(synthesis, bool) or not isinstance(synthesis, int):
            raise InputError(f"synthesis: expected a number 1..{self.m}, got {synthesis!r}")
        if not 1 <= synthesis <= self.m:
            raise InputError(f"synthesis: {synthesis} is not one of the syntheses 1..{self.m}")

        def rows(t: pa.Table) -> pa.Table:
            return t.filter(pc.equal(t["synthesis"], synthesis))

        return ExactMatches(self.columns, rows(self.summary), rows(self.distances), self.control)

    def _one(self, what: str) -> dict[str, Any]:
        if self.m != 1:
            raise InputError(
                f"{what}: {self.m} syntheses were measured and {what} is of one; take "
                f"one with .of(j) (j = 1..{self.m}), or read .summary (one row per synthesis)"
            )
        row: dict[str, Any] = self.summary.to_pylist()[0]
        return row

    @property
    def uem(self) -> float:
        """% of the original records unique on the columns that occur in the synthesis."""
        return float(self._one("uem")["uem"])

    @property
    def identical(self) -> float:
        """% of synthetic records identical on the columns to some original record."""
        return float(self._one("identical")["identical"])

    @property
    def control_identical(self) -> float | None:
        """The identical share against the control (None without a control)."""
        value = self._one("control_identical")["control_identical"]
        return None if value is None else float(value)

    def _distance(self, what: str, against: str) -> pa.Table:
        self._one(what)
        t = self.distances.filter(pc.equal(self.distances["against"], against))
        return t.select(["distance", "records", "percent"])

    @property
    def distance(self) -> pa.Table:
        """distance ("0", "1", "2", "3+"), records, percent of the synthetic records at that
        smallest number of differing columns to an original record (always four rows)."""
        return self._distance("distance", "original")

    @property
    def control_distance(self) -> pa.Table | None:
        """:attr:`distance` against the control (None without a control)."""
        if not self.control:
            return None
        return self._distance("control_distance", "control")

    def to_dict(self) -> dict[str, Any]:
        """columns, control (whether one was given), ``summary`` and ``distances`` rows as
        plain data (NaN is None)."""
        return {
            "columns": list(self.columns),
            "control": self.control,
            "summary": json_rows(self.summary),
            "distances": json_rows(self.distances),
        }

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        title = f"exact_matches(): columns {', '.join(self.columns)}"
        tables = [("summary", self.summary), ("distance", self.distances)]
        return title, tables, [*_notes(self.summary), CAVEAT]

    def __str__(self) -> str:
        lines = [f"Exact matches over {len(self.columns)} columns: {', '.join(self.columns)}"]
        for row in self.summary.to_pylist():
            j = row["synthesis"]
            lines.append(
                f"synthesis {j}: UEM {_pct(row['uem'])} ({row['in_synthesis']} of "
                f"{row['original_uniques']} unique original records occur in it); identical "
                f"{_pct(row['identical'])} ({row['identical_records']} of {row['records']} "
                "synthetic records)"
                + (
                    f"; identical to the control {_pct(row['control_identical'])}"
                    if self.control
                    else ""
                )
            )
            for against in AGAINST[: 1 + self.control]:
                t = self.distances.filter(
                    pc.and_(
                        pc.equal(self.distances["synthesis"], j),
                        pc.equal(self.distances["against"], against),
                    )
                ).to_pylist()
                shares = ", ".join(f"{r['distance']}: {_pct(r['percent'])}" for r in t)
                lines.append(f"  differing columns to the {against}: {shares}")
        lines += _notes(self.summary)
        return "\n".join(lines)


def _pct(x: float | None) -> str:
    return "NaN" if x is None or math.isnan(x) else f"{x:.2f}%"


def _notes(summary: pa.Table) -> list[str]:
    if summary.num_rows and summary["original_uniques"][0].as_py() == 0:
        return ["UEM is NaN: the original has no record unique on the columns"]
    return []


def exact_matches(
    original: Any,
    synthetic: Any,
    columns: str | Sequence[str] | None = None,
    control: Any = None,
    *,
    engine: Any = None,
    threads: int | None = None,
) -> ExactMatches:
    """Whole-table matches of each synthesis with the original: UEM, the identical share and
    the distance of every synthetic record to the nearest original record.

    Values compare as values over ``columns``: NA (and NaN) is a value of its own and NULL
    equals NULL, a text "NA" differs from NULL, 57 and 57.0 are one value.

    * ``uem`` (SDNist's unique exact match) = 100 x #(original records unique on the columns
      whose combination occurs in the synthesis) / #(original records unique on the
      columns); NaN, with a warning, when the original has no unique record. synthpop's
      ``replicated.uniques(keys = every column)`` counts the same uniques.
    * ``identical`` = 100 x #(synthetic records whose combination occurs in the original) / k
      (the identical-match share of SDMetrics and MOSTLY AI).
    * ``distance``: each synthetic record's smallest number of differing columns to an
      original record, bucketed "0", "1", "2", "3+" (records and % of the k synthetic
      records; always four rows; with n <= 2 columns no record is more than n away).

    Exact matches are a red flag when high, but a low share is no evidence of safety
    (Pilgram et al. 2025, Patterns): see docs/anonymity.md.

    Args:
        original: the data the syntheses were made from.
        synthetic: one synthesis or a list of them (one row of ``summary`` and four rows per
            data set compared of ``distances`` each).
        columns: the columns compared (default: every column of the original; each must be
            in every synthesis and the control).
        control: a holdout of the original that the syntheses were not made from: adds the
            identical share and the distance against it (UEM stays of the original).
        engine, threads: where the SQL runs, as for every discosql measure.

    Returns:
        An :class:`ExactMatches`.
    """
    options = options_for(MatchesOptions, synthetic, many=True, columns=columns)
    check = schema_check(options.columns)
    with open_inputs(engine, threads, original, synthetic, check=check) as inputs:
        m = inputs.m
        if control is not None:
            inputs = with_control(inputs, control, options.names(inputs.sources[0]))
        return exact_matches_on(inputs, options, m)


def with_control(inputs: Inputs, control: Any, names: list[str]) -> Inputs:
    """The control registered after the syntheses (src m + 1), its columns checked with the
    others'; a control without records is an error (no record to be near)."""
    reg = register_control(inputs, control, names)
    if reg.n_rows == 0:
        raise InputError("control: the data set has no rows; give a holdout with records")
    return Inputs(inputs.engine, [*inputs.sources, reg])


def branches(n: int) -> list[list[int]]:
    """Step 2's column subsets: every set of 0, 1 or 2 of the n columns to leave out (at most
    n), by size."""
    return [
        list(drop)
        for size in range(min(2, n) + 1)
        for drop in itertools.combinations(range(n), size)
    ]


def exact_matches_on(inputs: Inputs, options: MatchesOptions, m: int) -> ExactMatches:
    """:func:`exact_matches` on inputs already registered: the original, the m syntheses and
    optionally the control (src m + 1); the numbers read from the SQL's own output
    (:func:`run_matches`)."""
    names = options.names(inputs.sources[0])
    summary, distances = run_matches(inputs, options, m)
    control = len(inputs.sources) > m + 1
    if not control:  # a float column's NULL is read as NaN: without a control, None
        i = summary.schema.get_field_index("control_identical")
        summary = summary.set_column(
            i, summary.schema.field(i), pa.nulls(summary.num_rows, pa.float64())
        )
    if summary.num_rows and summary["original_uniques"][0].as_py() == 0:
        warnings.warn(
            DiscoSQLWarning(
                f"exact_matches: uem is NaN: no original record is unique on the columns "
                f"{names!r} (every value combination occurs at least twice)"
            ),
            stacklevel=3,
        )
    return ExactMatches(tuple(names), summary, distances, control)


def run_matches(
    inputs: Inputs, options: MatchesOptions, m: int, radices: list[int] | None = None
) -> tuple[pa.Table, pa.Table]:
    """The statements of :func:`exact_matches` on any engine: UEM and the distances kept as
    work tables, then the summary (``anonymity/matches_summary.sql.j2``: one row per
    synthesis) and the distances, both returned; on a script engine (``radices``: the q
    packing decided at export time) the script prints them where it runs (empty tables
    here)."""
    names = options.names(inputs.sources[0])
    _, problems = column_kinds(inputs.sources, dict.fromkeys(names, "column"))
    if problems:  # kinds that clash, known once the rows are counted
        raise SchemaError(problems)
    engine = inputs.engine
    has_control = len(inputs.sources) > m + 1
    with engine.work() as work:
        ctx, params, near = _nearest(work, inputs, names, m, radices)
        template = "anonymity/matches_uem.sql.j2"
        work.create(UEM, render(template, engine.dialect, **ctx), params, template)
        template = "anonymity/matches_distance.sql.j2"
        sql = render(template, engine.dialect, near=near, control=has_control, **ctx)
        work.create(DISTANCES_TABLE, sql, params, template)
        template = "anonymity/matches_summary.sql.j2"
        sql = render(
            template, engine.dialect, uem=UEM, distances=DISTANCES_TABLE, control=has_control
        )
        summary = engine.query(sql, {}, template, small=True, schema=SUMMARY_SCHEMA)
        sql = (
            f"SELECT * FROM {ident(DISTANCES_TABLE)} ORDER BY synthesis, "
            "CASE WHEN against = 'original' THEN 0 ELSE 1 END, distance"
        )
        distances = engine.query(sql, {}, "exact matches: distances", schema=DISTANCE_SCHEMA)
    return summary, distances


def _nearest(
    work: Work, inputs: Inputs, names: list[str], m: int, radices: list[int] | None
) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """Steps 1 and 2: the coded combinations and the tables of the nearest original (and
    control) combination per branch; returns the templates' context, the parameters and the
    step 2 tables."""
    engine = inputs.engine
    has_control = len(inputs.sources) > m + 1
    coded = coded_combinations(work, inputs, names, COMBOS, radices)
    ctx: dict[str, Any] = {
        "keys": coded.keys,
        "n_words": coded.n_words,
        "combos": COMBOS,
        "syntheses": list(range(1, m + 1)),
    }
    template = "anonymity/matches_near.sql.j2"
    refs = [(0, 0), (1, m + 1)][: 1 + has_control]
    todo = [
        {"ref": ref, "src": src, "drop": drop} for ref, src in refs for drop in branches(len(names))
    ]
    near: list[str] = []
    for i in range(0, len(todo), BATCH):
        sql = render(
            template,
            engine.dialect,
            branches=todo[i : i + BATCH],
            control=has_control,
            first=1,
            last=m,
            **ctx,
        )
        near.append(f"{NEAR}{len(near)}")
        work.create(near[-1], sql, coded.params, template)
    return ctx, coded.params, near
