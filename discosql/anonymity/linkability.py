"""linkability(): the GDPR's linkability test as anonymeter's linkability attack runs it, but
exact and over every record: no sample of targets, no arbitrary choice among tied neighbours.

The attacker holds two sets of columns about the same people, A and B (two data sources), and
joins them through the synthesis: an original record is linked when the synthetic records
closest to it on A and those closest to it on B share a record (anonymeter,
``src/anonymeter/evaluators/linkability_evaluator.py``). This module holds the options, the
result and the call; the attack runs in one of two ways (:func:`needs_gower`):
anonymeter's Gower distance (numeric columns by their difference over their range,
``n_neighbors`` a side: :mod:`.linkability_gower`), or on categorical columns with one
neighbour the Hamming distance, which orders records the same way and exports as a script
(:mod:`.linkability_hamming`). Both leave the same counts, which :func:`read_summary` reads.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import MISSING, dataclass
from typing import Any

import pyarrow as pa

from ..core.inputs import Inputs, column_kinds, open_inputs
from ..core.options import Options, option
from ..core.results import AsData, json_rows, plain
from ..core.spec import column_names
from ..engines.base import Engine
from ..errors import EngineError, InputError, SchemaError, did_you_mean
from ..sql.templates import render
from .common import (
    MAX_PAIRS,
    max_pairs_option,
    max_pairs_problems,
    options_for,
    register_control,
    reserved_names,
    schema_check,
)
from .distance import DistanceColumn
from .linkability_gower import columns_of, run_gower
from .linkability_hamming import LinkPlan, run_hamming
from .stats import CONFIDENCE_LEVEL, AttackRates, Rates, interval, number, rates

COUNTS = "__disco_lk_counts"  # step 5's counts, then their summary
# The bound (docs/anonymity.md, "How far exact linkability goes"): a side of s columns needs at
# most 2^s - 1 GROUP BYs of the synthesis's combinations (level d has C(s, d) of them, in one
# statement: C(10, 5) = 252 branches of a UNION ALL, within SQLite's 500), and the link step
# as many joins again. 10 columns a side is 1,023 groupings at most; beyond, refused.
MAX_SIDE = 10
NUMERIC = ("gower", "values")  # linkability(numeric=): how numeric columns are compared
NO_GOWER_SCRIPT = (
    "linkability_to_sql: there is no SQL script of linkability under the Gower distance "
    "(numeric columns, n_neighbors > 1, or a side of more than 10 columns): its exact "
    "search decides its rounds from the data; run it where the data live (engine=), or "
    "give numeric='values' to export the attack with every column a category"
)

BY_DISTANCE_SCHEMA = pa.schema(
    [
        ("data_set", pa.string()),
        ("distance_a", pa.int32()),
        ("distance_b", pa.int32()),
        ("records", pa.int64()),
        ("linked", pa.int64()),
        ("linked_unique", pa.int64()),
    ]
)
TOTALS = [
    ("records", pa.int64()),
    ("linked", pa.int64()),
    ("linked_unique", pa.int64()),
    ("rate_unique", pa.float64()),
    ("control_records", pa.int64()),
    ("control_linked", pa.int64()),
    ("control_linked_unique", pa.int64()),
    ("control_rate_unique", pa.float64()),
]


@dataclass(frozen=True)
class LinkabilityOptions(Options):
    """:func:`linkability`'s options, checked when built (before any data is read):
    ``aux_cols``, the attacker's two sets of columns (A, B). No flag of its own: the command
    line gives A and B as two (--a, --b)."""

    FAMILY = "linkability"

    aux_cols: Any = option(MISSING)
    n_neighbors: int = option(
        1,
        "a link among the N closest synthetic records on each side (default 1)",
        kind="int",
        metavar="N",
    )
    numeric: str = option(
        "gower",
        "gower (default): numeric columns by their difference, anonymeter's Gower distance; "
        "values: every column a category (the Hamming distance)",
        choices=NUMERIC,
    )
    max_pairs: int = max_pairs_option("a search round (the Gower distance)")

    def __post_init__(self) -> None:
        problems: list[str] = []
        aux_cols = self.aux_cols
        sides: list[list[str]] = [[], []]
        if isinstance(aux_cols, str) or not isinstance(aux_cols, Sequence) or len(aux_cols) != 2:
            problems.append(
                "aux_cols: expected two sets of columns (A, B), e.g. (['age', 'sex'], "
                f"['region', 'education']), got {aux_cols!r}"
            )
        else:
            for i, (label, given) in enumerate(zip("AB", aux_cols, strict=True)):
                where = f"aux_cols[{i}] ({label})"
                names = column_names(where, given, problems)
                if names is None:
                    continue
                if len(names) > MAX_SIDE and self.numeric == "values":
                    problems.append(
                        f"{where}: {len(names)} columns; at most {MAX_SIDE} a side (exact "
                        f"nearest neighbours need up to 2^{len(names)} - 1 groupings of the "
                        "synthesis: docs/anonymity.md, 'How far exact linkability goes')"
                    )
                reserved_names(where, names, problems)
                sides[i] = names
        k = self.n_neighbors
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            problems.append(f"n_neighbors: a positive integer, got {k!r}")
        if self.numeric not in NUMERIC:
            hint = did_you_mean(self.numeric, NUMERIC) if isinstance(self.numeric, str) else ""
            problems.append(
                f"numeric: expected one of {', '.join(map(repr, NUMERIC))}, got "
                f"{self.numeric!r}{hint}"
            )
        problems += max_pairs_problems(self.max_pairs)
        if problems:
            raise InputError(problems)
        self.set("aux_cols", (sides[0], sides[1]))

    @property
    def sides(self) -> tuple[list[str], list[str]]:
        """A and B, each a list of column names."""
        a, b = self.aux_cols
        return list(a), list(b)

    @property
    def names(self) -> list[str]:
        """The columns of A and B, each once."""
        return list(dict.fromkeys([*self.sides[0], *self.sides[1]]))


@dataclass(frozen=True)
class LinkabilityResult(AttackRates, AsData):
    """The linkability attack on every original (and control) record.

    ``records``: the original's records; ``linked``: those whose closest synthetic records on
    A and on B (every record at the smallest distance, ties included) share at least one;
    ``linked_unique``: those with a single closest synthetic record on A, a single one on B,
    and the same. ``rate`` = linked / records, ``rate_unique`` = linked_unique / records:
    anonymeter's attack (one neighbour a side, ties broken by its search) succeeds on a
    record with a probability between the two, and on every record counted in both.

    With a control (a holdout of the original, not used to make the synthesis):
    ``control_records``, ``control_linked``, ``control_linked_unique``, ``control_rate``,
    ``control_rate_unique`` and ``risk`` = (rate - control_rate) / (1 - control_rate),
    anonymeter's residual risk (NaN when control_rate = 1); None without a control.

    ``ci``: anonymeter's 95% interval (the Wilson score interval over the records attacked):
    of the rate without a control, of the risk with one; ``rate_ci`` is always the rate's.

    ``by_distance``: data_set ("original", "control"), distance_a, distance_b (the number of
    differing columns to the closest synthetic records on each side under the Hamming
    attack; NULL, one row a data set, under the Gower distance), records, linked,
    linked_unique: where the links come from. ``rates``: the rates and intervals as the SQL
    computed them (``anonymity/rates.sql.j2``), as ``rate_unique`` and
    ``control_rate_unique`` (``anonymity/linkability_totals.sql.j2``).
    """

    aux_cols: tuple[tuple[str, ...], tuple[str, ...]]
    records: int
    linked: int
    linked_unique: int
    by_distance: pa.Table
    rates: Rates
    rate_unique: float
    control_rate_unique: float | None = None
    control_records: int | None = None
    control_linked: int | None = None
    control_linked_unique: int | None = None
    confidence_level: float = CONFIDENCE_LEVEL

    def summary(self) -> dict[str, Any]:
        """The numbers of the attack as plain data (NaN is None)."""
        data: dict[str, Any] = plain(
            {
                "aux_cols": [list(self.aux_cols[0]), list(self.aux_cols[1])],
                "records": self.records,
                "linked": self.linked,
                "linked_unique": self.linked_unique,
                "rate": self.rate,
                "rate_unique": self.rate_unique,
                "control_records": self.control_records,
                "control_linked": self.control_linked,
                "control_linked_unique": self.control_linked_unique,
                "control_rate": self.control_rate,
                "control_rate_unique": self.control_rate_unique,
                "risk": self.risk,
                "ci": list(self.ci),
                "rate_ci": list(self.rate_ci),
                "confidence_level": self.confidence_level,
            }
        )
        return data

    def to_dict(self) -> dict[str, Any]:
        """:meth:`summary` and the ``by_distance`` rows as plain data (NaN is None)."""
        return {**self.summary(), "by_distance": json_rows(self.by_distance)}

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        a, b = (", ".join(side) for side in self.aux_cols)
        title = f"linkability(): A = {a}; B = {b}"
        numbers = {k: v for k, v in self.summary().items() if k != "aux_cols"}
        numbers["ci"] = interval(self.ci)
        numbers["rate_ci"] = interval(self.rate_ci)
        tables = [("", pa.Table.from_pylist([numbers])), ("by distance", self.by_distance)]
        return title, tables, []

    def __str__(self) -> str:
        a, b = (", ".join(side) for side in self.aux_cols)
        lines = [
            f"Linkability of A ({a}) and B ({b}) through the synthesis",
            f"records: {self.records} (original records attacked)",
            f"linked: {self.linked} (closest synthetic records on A and on B share one)",
            f"linked uniquely: {self.linked_unique} (whatever the choice among ties, they do)",
            f"rate: {number(self.rate)}, 95% CI {interval(self.rate_ci)}; "
            f"rate_unique: {number(self.rate_unique)}",
        ]
        if self.control_records is not None:
            lines += [
                f"control: {self.control_linked} of {self.control_records} linked, "
                f"{self.control_linked_unique} uniquely",
                f"control rate: {number(self.control_rate)}; control rate_unique: "
                f"{number(self.control_rate_unique)}",
                f"risk: {number(self.risk)}, 95% CI {interval(self.ci)}",
            ]
        return "\n".join(lines)


# --- the call -------------------------------------------------------------------------------------


def linkability(
    original: Any,
    synthetic: Any,
    aux_cols: Sequence[Sequence[str] | str],
    control: Any = None,
    n_neighbors: int = 1,
    *,
    numeric: str = "gower",
    max_pairs: int = MAX_PAIRS,
    engine: Any = None,
    threads: int | None = None,
) -> LinkabilityResult:
    """The linkability risk of a synthesis (anonymeter's ``LinkabilityEvaluator`` with one
    neighbour), exact over every original record.

    For an original record r and a side S (A or B), N_S(r) is the set of the ``n_neighbors``
    synthetic records closest to r on the columns of S, under anonymeter's Gower distance:
    the sum over the columns of |x - y| / range for a number (the range over the synthesis
    and the records attacked, 0 taken as 1) and 0/1 for a category (NULL equals NULL; a number
    against NULL makes the distance NaN, after every finite one). r is linked when some
    choice of N_A(r) and N_B(r) among the ties at the k-th distance shares a record; linked
    uniquely when every choice does. rate = #linked / n and rate_unique = #linked uniquely /
    n over the n original records; with a control, the same over the control's records and
    risk = (rate - control_rate) / (1 - control_rate).

    Args:
        original: the data the synthesis was made from (every record is attacked).
        synthetic: one synthesis.
        aux_cols: (A, B): the two sets of columns the attacker holds, each a non-empty list of
            columns (a column may be in both; at most 10 a side with ``numeric="values"``).
        control: a holdout of the original that the synthesis was not made from (any size).
        n_neighbors: k, the closest records a side among which a link counts.
        numeric: "gower" (default, anonymeter's) or "values": every column a category, the
            number of differing columns (the Hamming distance; exports as a script).
        max_pairs: the bound on the pairs of records one round of the Gower search compares.
        engine, threads: where the SQL runs, as for every discosql measure.

    Returns:
        A :class:`LinkabilityResult`.
    """
    options = options_for(
        LinkabilityOptions,
        synthetic,
        aux_cols=aux_cols,
        n_neighbors=n_neighbors,
        numeric=numeric,
        max_pairs=max_pairs,
    )
    with open_inputs(
        engine, threads, original, synthetic, check=schema_check(options.names)
    ) as inputs:
        if control is not None:
            inputs = with_control(inputs, control, options.names)
        return linkability_on(inputs, options)


def with_control(inputs: Inputs, control: Any, names: list[str]) -> Inputs:
    """The control registered as data set 2, its columns checked with the others' (any
    size)."""
    reg = register_control(inputs, control, names)
    return Inputs(inputs.engine, [*inputs.sources, reg])


def linkability_on(inputs: Inputs, options: LinkabilityOptions) -> LinkabilityResult:
    """:func:`linkability` on inputs already registered: the original, the synthesis and
    optionally the control (data set 2), their columns checked; the numbers read from the
    SQL's own output (:func:`run_linkability`)."""
    summary, by_distance, _ = run_linkability(inputs, options)
    assert summary is not None  # a run on an engine reads its one row
    control = len(inputs.sources) > 2

    def of_control(name: str) -> Any:
        return summary[name] if control else None

    unique = summary["rate_unique"]
    control_unique = summary["control_rate_unique"]
    a, b = options.sides
    return LinkabilityResult(
        aux_cols=(tuple(a), tuple(b)),
        records=summary["records"],
        linked=summary["linked"],
        linked_unique=summary["linked_unique"],
        by_distance=by_distance,
        rates=Rates.of(summary, control),
        rate_unique=math.nan if unique is None else unique,
        control_rate_unique=(math.nan if control_unique is None else control_unique)
        if control
        else None,
        control_records=of_control("control_records"),
        control_linked=of_control("control_linked"),
        control_linked_unique=of_control("control_linked_unique"),
    )


def run_linkability(
    inputs: Inputs, options: LinkabilityOptions, ahead: LinkPlan | None = None
) -> tuple[dict[str, Any] | None, pa.Table, LinkPlan]:
    """The statements of :func:`linkability` on any engine: steps 1 to 5 (step 5's counts
    kept as a work table), then the summary (counts, rates, risk, intervals) and
    ``by_distance`` (:func:`read_summary`), returned with the decisions the attack made. On a
    script engine (``ahead``: the decisions of a run on the data at export time) the script
    follows them and checks them, and prints the summary and ``by_distance`` where it runs
    (None and an empty table here)."""
    names, sides = options.names, options.sides
    _, problems = column_kinds(inputs.sources, dict.fromkeys(names, "column"))
    if problems:  # kinds that clash, known once the rows are counted
        raise SchemaError(problems)
    engine = inputs.engine
    if needs_gower(columns_of(inputs, options), options):
        if engine.exporting:
            raise InputError(NO_GOWER_SCRIPT)
        with engine.work() as work:
            run_gower(work, inputs, options, COUNTS)
            summary, by_distance = read_summary(engine, len(inputs.sources) > 2)
        return summary, by_distance, LinkPlan()
    script = ahead if engine.exporting else None
    if engine.exporting and script is None:
        raise EngineError("an exported linkability script needs the decisions of a run")
    with engine.work() as work:
        plan = run_hamming(work, inputs, names, sides, script, COUNTS)
        summary, by_distance = read_summary(engine, len(inputs.sources) > 2)
    return summary, by_distance, plan


def needs_gower(columns: list[DistanceColumn], options: LinkabilityOptions) -> bool:
    """Whether the attack is the Gower one (``linkability_gower.py``): a numeric column on a
    side (unless numeric="values" compares numbers as categories), more than one neighbour,
    or a side longer than the Hamming attack's bound; else the Hamming attack (the same
    numbers on categorical columns with one neighbour) runs."""
    gower = options.numeric == "gower" and any(c.numeric for c in columns)
    return gower or options.n_neighbors > 1 or max(map(len, options.sides)) > MAX_SIDE


def read_summary(engine: Engine, with_control: bool) -> tuple[dict[str, Any] | None, pa.Table]:
    """The attack's results from step 5's counts: the summary (totals, rates, risk,
    intervals: ``anonymity/rates.sql.j2``) and ``by_distance``; on a script engine the
    script prints them (None and an empty table here)."""
    template = "anonymity/linkability_totals.sql.j2"
    totals = render(template, engine.dialect, counts=COUNTS, control=with_control)
    control = ("control_records", "control_linked") if with_control else None
    summary = rates(engine, totals, TOTALS, ("records", "linked"), control)
    template = "anonymity/linkability_by_distance.sql.j2"
    sql = render(template, engine.dialect, counts=COUNTS)
    return summary, engine.query(sql, {}, template, schema=BY_DISTANCE_SCHEMA)
