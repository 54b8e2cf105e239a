"""singling_out(): the GDPR's singling-out test as anonymeter's singling-out attack runs it, but
exact and exhaustive: every query the synthesis offers is counted, none is sampled.

A predicate singles out a synthetic record when exactly one synthetic record satisfies it; the
attack succeeds when exactly one original record satisfies it too (anonymeter,
``src/anonymeter/evaluators/singling_out_evaluator.py`` at statice/anonymeter 0188bdf). The
columns are coded once (stage 010 dictionaries, stage 020 records with every column as a
code), then every combination of columns is one GROUP BY over the coded records, many
combinations to a statement (``sql_templates/anonymity/singling_out.sql.j2``).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa

from ..core.dictionaries import code_type
from ..core.inputs import DataSet, Inputs, column_kinds, open_inputs
from ..core.options import Options, option
from ..core.plan import Column
from ..core.results import AsData, json_rows, plain
from ..core.spec import column_names
from ..engines.base import Registered, Work
from ..errors import InputError, SchemaError, did_you_mean
from ..sql.templates import ident, render
from .common import (
    MAX_PAIRS,
    dictionaries,
    max_pairs_option,
    max_pairs_problems,
    options_for,
    radices_of,
    register_control,
    reserved_names,
    schema_check,
)
from .half_lines import count_half_lines
from .stats import CONFIDENCE_LEVEL, AttackRates, Rates, interval, number, rates

MODES = ("univariate", "multivariate")
BATCH = 64  # combinations per statement: C(15, 3) = 455 combinations are 8 statements
RECORDS = "__disco_so_records"
COUNTS = "__disco_so_counts_"  # exported scripts: the batches' counts, then their sum
HALF = "__disco_so_half_lines"
BY_COLUMNS = "__disco_so_by_columns"
CELLS_TEMPLATE = "anonymity/singling_out.sql.j2"
HALF_LINES_TEMPLATE = "anonymity/singling_out_half_lines.sql.j2"
NUMERIC = ("integer", "float")
NUMERIC_MODES = ("half-lines", "values")  # singling_out(numeric=)
NO_HALF_LINES_SCRIPT = (
    "singling_out_to_sql: there is no script of the half-line queries yet; give "
    "numeric='values' to export the attack with numbers compared by value, or run "
    "singling_out() where the data live (engine=)"
)

BY_COLUMNS_SCHEMA = pa.schema(
    [("columns", pa.list_(pa.string())), ("queries", pa.int64()), ("successes", pa.int64())]
)
# singling_out_by_columns.sql.j2's rows, as the script prints them (columns: JSON text)
COUNTS_SCHEMA = pa.schema(
    [
        ("cid", pa.int64()),
        ("columns", pa.string()),
        ("queries", pa.int64()),
        ("successes", pa.int64()),
        ("control_successes", pa.int64()),
    ]
)
TOTALS = [
    ("mode", pa.string()),
    ("n_cols", pa.int32()),
    ("queries", pa.int64()),
    ("successes", pa.int64()),
    ("control_successes", pa.int64()),
]


@dataclass(frozen=True)
class SinglingOutOptions(Options):
    """:func:`singling_out`'s options, checked when built (before any data is read)."""

    FAMILY = "singling_out"

    columns: list[str] | None = option(
        None,
        "the columns the predicates use, comma-separated (default: every column of the original)",
        kind="list",
        metavar="A,B,...",
    )
    mode: str = option(
        "multivariate",
        "multivariate (default): every combination of --n-cols columns; univariate: one "
        "column at a time, with min/max half-lines on numbers",
        choices=MODES,
    )
    n_cols: int = option(
        3, "columns per predicate in multivariate mode (default 3)", kind="int", metavar="N"
    )
    numeric: str = option(
        "half-lines",
        "half-lines (default): a numeric column's predicate is anonymeter's half-line, >= v "
        "above the synthesis' median, <= v at or below; values: numbers compared by value, as "
        "categories",
        choices=NUMERIC_MODES,
    )
    max_pairs: int = max_pairs_option("a half-line combination")

    def __post_init__(self) -> None:
        problems: list[str] = []
        names = None if self.columns is None else column_names("columns", self.columns, problems)
        reserved_names("columns", names, problems)
        mode, n_cols = self.mode, self.n_cols
        if not isinstance(mode, str) or mode not in MODES:
            hint = did_you_mean(mode, MODES) if isinstance(mode, str) else ""
            problems.append(
                f"mode: expected one of {', '.join(map(repr, MODES))}, got {mode!r}{hint}"
            )
        if isinstance(n_cols, bool) or not isinstance(n_cols, int) or n_cols < 1:
            problems.append(
                f"n_cols: expected the number of columns per predicate, a positive integer, "
                f"got {n_cols!r}"
            )
        elif names and mode == "multivariate" and n_cols > len(names):
            problems.append(
                f"n_cols: {n_cols} columns per predicate, but columns names {len(names)}; "
                f"allowed: 1 to {len(names)}"
            )
        if self.numeric not in NUMERIC_MODES:
            hint = (
                did_you_mean(self.numeric, NUMERIC_MODES) if isinstance(self.numeric, str) else ""
            )
            problems.append(
                f"numeric: expected one of {', '.join(map(repr, NUMERIC_MODES))}, got "
                f"{self.numeric!r}{hint}"
            )
        problems += max_pairs_problems(self.max_pairs)
        if problems:
            raise InputError(problems)
        self.set("columns", names)

    def names(self, original: Registered) -> list[str]:
        """The columns attacked: those named, else every column of the original."""
        return list(self.columns or original.columns)

    def schema_check(self) -> Any:
        """The check of the schemas (before any row is counted): every column in every data
        set, with kinds that fit together; with the default columns, n_cols within their
        number."""

        def too_few(cols: list[str]) -> list[str]:
            if self.columns is None and self.mode == "multivariate" and self.n_cols > len(cols):
                return [
                    f"n_cols: {self.n_cols} columns per predicate, but the original data has "
                    f"{len(cols)} columns; allowed: 1 to {len(cols)}"
                ]
            return []

        return schema_check(self.columns, too_few)


@dataclass(frozen=True)
class SinglingOutResult(AttackRates, AsData):
    """The singling-out attack over every query the synthesis offers.

    ``queries``: the distinct predicates that single out one synthetic record; ``successes``:
    those that single out one original record too; ``rate`` = successes / queries (NaN
    without queries). With a control (a holdout of the original, not used to make the
    synthesis): ``control_successes`` (the same queries singling out one control record),
    ``control_rate`` = control_successes / queries and ``risk`` = (rate - control_rate) /
    (1 - control_rate), anonymeter's residual risk (NaN when control_rate = 1); None without
    a control.

    ``ci``: anonymeter's 95% interval of what its ``risk()`` reports, the Wilson score
    interval over ``queries`` attacks: of the rate without a control, of the risk (the error
    propagated) with one; ``rate_ci`` is always the rate's. Both are clipped to [0, 1], as
    anonymeter's ``bind_value``; ``risk`` itself is not (a negative risk says the synthesis
    singles out the original less often than the control).

    ``by_columns``: columns (list), queries, successes: one row per combination of columns
    (multivariate: every ``n_cols`` of ``columns``, in the order of itertools.combinations;
    univariate: each column, with its half-line queries), also those without a query.
    ``rates``: the rates and intervals as the SQL computed them (``anonymity/rates.sql.j2``).
    """

    mode: str
    n_cols: int
    columns: tuple[str, ...]
    queries: int
    successes: int
    by_columns: pa.Table
    rates: Rates
    control_successes: int | None = None
    confidence_level: float = CONFIDENCE_LEVEL

    def summary(self) -> dict[str, Any]:
        """The numbers of the attack as plain data (NaN is None)."""
        data: dict[str, Any] = plain(
            {
                "mode": self.mode,
                "n_cols": self.n_cols,
                "columns": list(self.columns),
                "queries": self.queries,
                "successes": self.successes,
                "rate": self.rate,
                "control_successes": self.control_successes,
                "control_rate": self.control_rate,
                "risk": self.risk,
                "ci": list(self.ci),
                "rate_ci": list(self.rate_ci),
                "confidence_level": self.confidence_level,
            }
        )
        return data

    def to_dict(self) -> dict[str, Any]:
        """:meth:`summary` and the ``by_columns`` rows as plain data (NaN is None)."""
        return {**self.summary(), "by_columns": json_rows(self.by_columns)}

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        title = f"singling_out(): {self.mode}" + (
            f", {self.n_cols} columns at a time" if self.mode == "multivariate" else ""
        )
        numbers = {k: v for k, v in self.summary().items() if k not in ("columns", "mode")}
        numbers["ci"] = interval(self.ci)
        numbers["rate_ci"] = interval(self.rate_ci)
        names = [", ".join(c) for c in self.by_columns.column("columns").to_pylist()]
        shown = self.by_columns.set_column(0, "columns", pa.array(names, pa.string()))
        return title, [("", pa.Table.from_pylist([numbers])), ("by columns", shown)], []

    def __str__(self) -> str:
        mode = self.mode + (f", n_cols={self.n_cols}" if self.mode == "multivariate" else "")
        lines = [
            f"Singling out ({mode}) over {len(self.columns)} columns",
            f"queries: {self.queries} (predicates that single out one synthetic record)",
            f"successes: {self.successes} (of them, single out one original record)",
            f"rate: {number(self.rate)}, 95% CI {interval(self.rate_ci)}",
        ]
        if self.control_successes is not None:
            lines += [
                f"control successes: {self.control_successes}",
                f"control rate: {number(self.control_rate)}",
                f"risk: {number(self.risk)}, 95% CI {interval(self.ci)}",
            ]
        return "\n".join(lines)


# --- the call -------------------------------------------------------------------------------------


def singling_out(
    original: Any,
    synthetic: Any,
    columns: str | Sequence[str] | None = None,
    mode: str = "multivariate",
    n_cols: int = 3,
    control: Any = None,
    *,
    numeric: str = "half-lines",
    max_pairs: int = MAX_PAIRS,
    engine: Any = None,
    threads: int | None = None,
) -> SinglingOutResult:
    """The singling-out risk of a synthesis (anonymeter's ``SinglingOutEvaluator``), exact.

    A query is a predicate that singles out one synthetic record (exactly one synthetic
    record satisfies it); it succeeds when exactly one original record satisfies it too.
    Values compare as values: NA (and NaN) is a value of its own, NULL matches NULL, 57 and
    57.0 are one value.

    * ``mode="multivariate"``: for every combination of ``n_cols`` of ``columns``, every value
      combination held by exactly one synthetic record is a query (``c1 == v1 & c2 == v2 &
      ...``). rate = successes / queries pooled over the combinations, which anonymeter's
      sampled estimate (500 queries from random records and columns) converges to. Numbers are
      compared by value: anonymeter's half-line predicates (``>= v`` above the median) are not
      made in this mode.
    * ``mode="univariate"``: every value held by one synthetic record in a column (``c ==
      v``), ``c.isna()`` when the synthesis has one missing value in ``c``, and for numeric
      columns ``c <= min`` and ``c >= max`` of the synthesis when one synthetic record holds
      that minimum (maximum); these succeed when one original record is at or below the
      minimum (at or above the maximum). ``n_cols`` is not used.

    Args:
        original: the data the synthesis was made from.
        synthetic: one synthesis.
        columns: the columns an attacker's predicates use (default: every column of the
            original; each must be in the synthesis and the control).
        mode: "multivariate" (default) or "univariate".
        n_cols: columns per predicate in multivariate mode, 1 .. len(columns) (default 3).
        control: a holdout of the original that the synthesis was not made from, with the
            original's number of records (anonymeter rescales a control of another size by a
            model fitted to random subsamples, which an exact count cannot reproduce).
        engine, threads: where the SQL runs, as for every discosql measure.

    Returns:
        A :class:`SinglingOutResult`: queries, successes, rate; with a control also
        control_rate and risk = (rate - control_rate) / (1 - control_rate); ci (anonymeter's
        Wilson interval at 95%) and by_columns.
    """
    options = options_for(
        SinglingOutOptions,
        synthetic,
        columns=columns,
        mode=mode,
        n_cols=n_cols,
        numeric=numeric,
        max_pairs=max_pairs,
    )
    with open_inputs(engine, threads, original, synthetic, check=options.schema_check()) as inputs:
        if control is not None:
            inputs = with_control(inputs, control, options.names(inputs.sources[0]))
        return singling_out_on(inputs, options)


def with_control(inputs: Inputs, control: Any, names: list[str]) -> Inputs:
    """The control registered as data set 2; its columns checked with the others', its size
    with the original's."""
    reg = register_control(inputs, control, names)
    n = inputs.sources[0].n_rows
    if reg.n_rows != n:
        raise InputError(
            f"control: has {reg.n_rows} records and the original {n}; give a control of the "
            "original's size. anonymeter rescales the successes on a control of another size "
            "by a model fitted to random subsamples of it (singling_out_evaluator.py L526-533, "
            "fit_correction_term L195-213), which an exact count cannot reproduce"
        )
    return Inputs(inputs.engine, [*inputs.sources, reg])


def singling_out_on(inputs: Inputs, options: SinglingOutOptions) -> SinglingOutResult:
    """:func:`singling_out` on inputs already registered: the original, the synthesis and
    optionally the control (data set 2), their columns checked; the numbers read from the
    SQL's own output (:func:`run_singling_out`)."""
    names = options.names(inputs.sources[0])
    summary, by_columns = run_singling_out(inputs, options)
    assert summary is not None  # a run on an engine reads its one row
    control = len(inputs.sources) > 2
    rows = [
        {"columns": json.loads(r["columns"]), "queries": r["queries"], "successes": r["successes"]}
        for r in by_columns.to_pylist()
    ]
    return SinglingOutResult(
        mode=options.mode,
        n_cols=summary["n_cols"],
        columns=tuple(names),
        queries=summary["queries"],
        successes=summary["successes"],
        by_columns=pa.Table.from_pylist(rows, schema=BY_COLUMNS_SCHEMA),
        rates=Rates.of(summary, control),
        control_successes=summary["control_successes"] if control else None,
    )


def _queries(
    inputs: Inputs, names: list[str], mode: str, n_cols: int
) -> tuple[int, list[tuple[int, ...]], list[int]]:
    """What the attack asks: the columns per predicate, the column combinations (positions in
    ``names``) and the numeric columns (univariate: whose min/max half-lines count too;
    multivariate: whose predicates are half-lines, unless numeric="values")."""
    kinds, problems = column_kinds(inputs.sources, dict.fromkeys(names, "column"))
    if problems:  # kinds that clash, known once the rows are counted
        raise SchemaError(problems)
    size = 1 if mode == "univariate" else n_cols
    combos = list(itertools.combinations(range(len(names)), size))
    numeric = [i for i, c in enumerate(names) if kinds.get(c) in NUMERIC]
    return size, combos, numeric


def needs_half_lines(inputs: Inputs, options: SinglingOutOptions) -> bool:
    """Whether some multivariate query has a half-line (a numeric column, numeric="half-lines")."""
    names = options.names(inputs.sources[0])
    numeric = _queries(inputs, names, options.mode, options.n_cols)[2]
    return options.mode == "multivariate" and options.numeric == "half-lines" and bool(numeric)


def coded_records(
    work: Work, inputs: Inputs, names: list[str], radices: list[int] | None = None
) -> list[Column]:
    """The work table RECORDS: every column coded (stage 010 dictionaries, NA alone as code
    0; stage 020 records, every column a code of the narrowest type). ``radices``: an
    exported script's, decided at export time (checked where it runs: stage 015)."""
    engine = inputs.engine
    columns = dictionaries(work, inputs, names, "__disco_so", "t_")
    radices, guard = radices_of(work, inputs, columns, radices)
    targets = [replace(c, code_type=code_type(r)) for c, r in zip(columns, radices, strict=True)]
    template = "stages/020_records.sql.j2"
    sql = render(
        template,
        engine.dialect,
        sources=inputs.data_sets(),
        keys=[],
        targets=targets,
        n_words=0,
        order=False,
        guard=guard,
        positions=False,
    )
    work.create(RECORDS, sql, inputs.params(), template)
    for name in dict.fromkeys(c.levels for c in columns):  # the codes are all the counts need
        work.drop(name)
    return columns


def cell_counts(
    inputs: Inputs, columns: list[Column], combos: list[tuple[int, tuple[int, ...]]]
) -> list[str]:
    """The statements counting the cells of ``combos`` (cid, positions) over RECORDS,
    ``BATCH`` combinations each (``sql_templates/anonymity/singling_out.sql.j2``)."""
    statements = []
    for start in range(0, len(combos), BATCH):
        batch = [
            {"cid": cid, "aliases": [columns[i].alias for i in combo]}
            for cid, combo in combos[start : start + BATCH]
        ]
        statements.append(
            render(CELLS_TEMPLATE, inputs.engine.dialect, records=RECORDS, combinations=batch)
        )
    return statements


def _half_lines_sql(inputs: Inputs, names: list[str], numeric: list[int]) -> tuple[str, pa.Schema]:
    """The half-lines' statement (one row per data set; the column at position i has the
    alias ``ci``) and its schema."""
    sources: list[DataSet] = inputs.data_sets()
    columns = [{"name": names[i], "alias": f"c{i}"} for i in numeric]
    sql = render(
        HALF_LINES_TEMPLATE,
        inputs.engine.dialect,
        synthetic=sources[1],
        sources=sources,
        columns=columns,
    )
    fields = [("src", pa.int32())]
    for c in columns:
        fields += [(f"le_{c['alias']}", pa.int64()), (f"ge_{c['alias']}", pa.int64())]
    return sql, pa.schema(fields)


def run_singling_out(
    inputs: Inputs, options: SinglingOutOptions, radices: list[int] | None = None
) -> tuple[dict[str, Any] | None, pa.Table]:
    """The statements of :func:`singling_out` on any engine: the records coded, the counts of
    each batch of combinations and the half-lines kept as work tables and added up in SQL
    (``anonymity/singling_out_by_columns.sql.j2``), then the summary (its totals and
    ``anonymity/rates.sql.j2``) and ``by_columns`` (cid, columns as JSON text, queries,
    successes, control successes). Returns the summary's row and ``by_columns``; on a script
    engine (``radices``: the q packing decided at export time) the script prints them where
    it runs (None and an empty table here)."""
    engine = inputs.engine
    names = options.names(inputs.sources[0])
    size, combos, numeric = _queries(inputs, names, options.mode, options.n_cols)
    control = len(inputs.sources) > 2
    half_lines = needs_half_lines(inputs, options)
    if half_lines and engine.exporting:
        raise InputError(NO_HALF_LINES_SCRIPT)
    by_values = [
        (cid, c) for cid, c in enumerate(combos) if not half_lines or not set(c) & set(numeric)
    ]
    with engine.work() as work:
        columns = coded_records(work, inputs, names, radices)
        counts = []
        for b, sql in enumerate(cell_counts(inputs, columns, by_values)):
            counts.append(f"{COUNTS}{b}")
            work.create(counts[-1], sql, {}, CELLS_TEMPLATE)
        if half_lines:
            with_numbers = [(cid, c) for cid, c in enumerate(combos) if set(c) & set(numeric)]
            counts += count_half_lines(
                work, inputs, names, numeric, with_numbers, options.max_pairs, COUNTS
            )
        if options.mode == "multivariate":
            numeric = []  # the univariate min/max half-lines below
        half = None
        if numeric:
            half = HALF
            work.create(
                half,
                _half_lines_sql(inputs, names, numeric)[0],
                inputs.params(),
                HALF_LINES_TEMPLATE,
            )
        template = "anonymity/singling_out_by_columns.sql.j2"
        sql = render(
            template,
            engine.dialect,
            counts=counts,
            names=[{"cid": cid, "param": f"so_columns_{cid}"} for cid in range(len(combos))],
            half=half,
            numeric=[{"cid": i, "alias": f"c{i}"} for i in numeric],
            control=control,
        )
        given = {
            f"so_columns_{cid}": json.dumps([names[i] for i in combo], ensure_ascii=False)
            for cid, combo in enumerate(combos)
        }
        work.create(BY_COLUMNS, sql, given, template)
        template = "anonymity/singling_out_totals.sql.j2"
        totals = render(
            template, engine.dialect, by_columns=BY_COLUMNS, n_cols=size, control=control
        )
        summary = rates(
            engine,
            totals,
            TOTALS,
            ("queries", "successes"),
            ("queries", "control_successes") if control else None,
            {"mode": options.mode},
        )
        by_columns = engine.query(
            f"SELECT * FROM {ident(BY_COLUMNS)} ORDER BY cid",
            {},
            "singling out: by_columns",
            schema=COUNTS_SCHEMA,
        )
    return summary, by_columns
