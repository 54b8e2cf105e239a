"""sdcMicro's ``ldiversity()`` in SQL: how diverse the sensitive values are within each key
cell (distinct, entropy and recursive (c, l) l-diversity per sensitive variable, and the
multi-attribute ones), per record, with a choice of rule for missing keys and for missing
sensitive values. Formulas: ``sql_templates/risk/ldiversity.sql.j2``."""

from __future__ import annotations

import math
from dataclasses import MISSING, dataclass
from typing import Any

import pyarrow as pa

from ..core.inputs import Inputs, check_columns, named_columns, open_inputs
from ..core.options import Options, option
from ..core.output import Destination
from ..core.outputcheck import OutputCheck
from ..core.results import AsData, json_rows
from ..core.spec import column_names
from ..engines.base import Engine, Registered
from ..errors import InputError, did_you_mean
from ..sql.templates import ident
from . import frequencies

LDIVERSITY = "__disco_risk_ldiversity"
TOTALS = "__disco_risk_ldiversity_totals"
SUMMARY_SCHEMA = pa.schema(
    [
        ("column", pa.string()),
        ("min", pa.float64()),
        ("mean", pa.float64()),
        ("max", pa.float64()),
        ("records_l1", pa.int64()),
        ("missing", pa.int64()),
        ("records_no_l", pa.int64()),
    ]
)
# how a missing key value compares: "equal" (NA equals NA: sdcMicro 5.8.2) or "apart" (a
# record with a missing key is a cell of its own: sdcMicro 5.8.0)
MISSING_KEYS = ("equal", "apart")
# a missing sensitive value: one more category of its variable, a category of its own each
# (sdcMicro), or left out of the diversity
MISSING_SENSITIVE = ("category", "distinct", "ignore")
RULES = {
    "equal": "records with the same missing keys share a cell, as in sdcMicro 5.8.2",
    "apart": "a record with a missing key is a cell of its own, as in sdcMicro 5.8.0",
    "category": "one more value of the variable",
    "distinct": "each one a value of its own, as in sdcMicro",
    "ignore": "left out; a cell without a known value has no l",
}
COUNTS = ("records_l1", "missing", "records_no_l")  # the summary's counts of records


@dataclass(frozen=True)
class LDiversityResult(AsData):
    """l-diversity of ``sensitive`` in the key cells of ``keys`` (sdcMicro's ``ldiversity``).

    ``records``: row (1-based input position), then per sensitive variable
    <var>_Distinct_Ldiversity (categories in the record's cell), <var>_Entropy_Ldiversity
    (exp of their entropy), <var>_Recursive_Ldiversity (recursive (c, l)), then
    MultiEntropy_Ldiversity and MultiRecursive_Ldiversity; in input order; None when written
    to ``out``; NULL where a record's cell has no known value (``missing_sensitive="ignore"``).
    ``summary``: column, min, mean, max (over the records with an l), records with l = 1 (a
    cell where everyone shares the sensitive value: attribute disclosure), missing (records
    whose value of the column's sensitive variable is missing; for the multi columns, of any
    of them) and records_no_l (records without an l). ``missing_keys`` and
    ``missing_sensitive``: the rules used; ``missing``: per sensitive variable, the records
    whose value is missing (NULL, or NaN in a floating-point column).
    """

    records: pa.Table | None
    summary: pa.Table
    keys: tuple[str, ...]
    sensitive: tuple[str, ...]
    l_recurs_c: float
    written: tuple[str, ...] = ()
    missing_keys: str = "equal"
    missing_sensitive: str = "category"
    missing: tuple[int, ...] = ()

    def __str__(self) -> str:
        return self.describe()

    def rows(self, check: OutputCheck | None = None) -> list[dict[str, Any]]:
        """The summary's rows; with ``check`` (external mode), the counts of records
        (records_l1, missing, records_no_l) as the output check lets them out (l itself is a
        number of values, not of records)."""
        rows = json_rows(self.summary)
        if check is not None:
            for r in rows:
                for name in COUNTS:
                    r[name] = check.count(r[name])
        return rows

    def missing_counts(self, check: OutputCheck | None = None) -> dict[str, Any]:
        """Per sensitive variable, the records whose value is missing (through ``check``)."""
        return {
            s: n if check is None else check.count(n)
            for s, n in zip(self.sensitive, self.missing, strict=True)
        }

    def rules(self) -> list[str]:
        """The two rules for missing values, in words."""
        return [
            f"missing keys: {self.missing_keys} ({RULES[self.missing_keys]})",
            f"missing sensitive values: {self.missing_sensitive} ({RULES[self.missing_sensitive]})",
        ]

    def describe(self, check: OutputCheck | None = None) -> str:
        """The summary in lines (``check``: external mode's output check)."""
        lines = [f"l-diversity of {', '.join(self.sensitive)} on keys {', '.join(self.keys)}"]
        lines += [f"  {rule}" for rule in self.rules()]
        missing = ", ".join(f"{s} {n}" for s, n in self.missing_counts(check).items())
        lines.append(f"  records with a missing sensitive value: {missing}")
        for r in self.rows(check):
            line = (
                f"  {r['column']}: min {_number(r['min'], 'g')}, "
                f"mean {_number(r['mean'], '.4g')}, max {_number(r['max'], 'g')}; "
                f"{r['records_l1']} record(s) with l = 1"
            )
            if r["records_no_l"]:
                line += f"; {r['records_no_l']} without l (no known value in their cell)"
            lines.append(line)
        return "\n".join(lines)

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        return f"ldiversity(): {', '.join(self.sensitive)}", [("", self.summary)], self.rules()

    def to_dict(self, check: OutputCheck | None = None) -> dict[str, Any]:
        """keys, sensitive variables, c, the rules for missing values, the records with a
        missing sensitive value per variable and the summary rows (``check``: external
        mode's output check on the counts of records)."""
        return {
            "keys": list(self.keys),
            "sensitive": list(self.sensitive),
            "l_recurs_c": self.l_recurs_c,
            "missing_keys": self.missing_keys,
            "missing_sensitive": self.missing_sensitive,
            "missing": self.missing_counts(check),
            "summary": self.rows(check),
        }


def _number(value: Any, spec: str) -> str:
    """A summary value as text; none when no record has an l."""
    return "none" if value is None else format(value, spec)


def check_rule(name: str, value: Any, allowed: tuple[str, ...], problems: list[str]) -> str:
    """One of ``allowed`` (a rule for missing values), else a problem naming the value."""
    if isinstance(value, str) and value in allowed:
        return value
    hint = did_you_mean(value, allowed) if isinstance(value, str) else ""
    problems.append(f"{name}: {value!r} is not one of {list(allowed)}{hint}")
    return allowed[0]


@dataclass(frozen=True)
class LDiversityOptions(Options):
    """:func:`ldiversity`'s options, checked when built (before any data is read)."""

    keys: list[str] = option(MISSING)
    sensitive: list[str] = option(
        MISSING,
        "also the l-diversity of these sensitive variables",
        kind="list",
        metavar="VAR[,VAR...]",
        flag="ldiversity",
    )
    l_recurs_c: float = option(
        2.0,
        "the constant c of recursive (c, l)-diversity (default 2)",
        kind="float",
        metavar="C",
    )
    missing_keys: str = option(
        "equal",
        "l-diversity: records with the same missing keys share a cell (equal, the "
        "default: sdcMicro 5.8.2), or a record with a missing key is a cell of its own "
        "(apart: sdcMicro 5.8.0)",
        choices=MISSING_KEYS,
    )
    missing_sensitive: str = option(
        "category",
        "l-diversity: a variable's missing values are one more value (category, the "
        "default), each a value of its own (distinct: sdcMicro), or left out (ignore)",
        choices=MISSING_SENSITIVE,
    )

    def __post_init__(self) -> None:
        problems: list[str] = []
        names = frequencies.check_keys(self.keys, problems)
        sens = column_names("sensitive", self.sensitive, problems)
        both = [s for s in sens if s in names]
        if both:
            problems.append(f"sensitive: {both!r} are also keys; a variable is one or the other")
        c = self.l_recurs_c
        ok = isinstance(c, int | float) and not isinstance(c, bool)
        if not ok or not math.isfinite(c) or c <= 0:
            problems.append(f"l_recurs_c: expected a positive number, got {c!r}")
        rule_k = check_rule("missing_keys", self.missing_keys, MISSING_KEYS, problems)
        rule_s = check_rule(
            "missing_sensitive", self.missing_sensitive, MISSING_SENSITIVE, problems
        )
        if problems:
            raise InputError(problems)
        self.set("keys", names)
        self.set("sensitive", sens)
        self.set("l_recurs_c", float(c))
        self.set("missing_keys", rule_k)
        self.set("missing_sensitive", rule_s)

    def roles(self) -> dict[str, str]:
        """Each named column's role: key, sensitive."""
        return dict.fromkeys(self.keys, "key") | dict.fromkeys(self.sensitive, "sensitive")


def ldiversity(
    data: Any,
    keys: Any,
    sensitive: Any,
    l_recurs_c: float = 2,
    engine: Any = None,
    threads: int | None = None,
    *,
    missing_keys: str = "equal",
    missing_sensitive: str = "category",
    out: Any = None,
    out_table: str | None = None,
    overwrite: bool = False,
) -> LDiversityResult:
    """l-diversity of each sensitive variable within the records' key cells.

    Distinct: the number of categories m; Entropy: exp(-sum p_i ln p_i); Recursive: the
    smallest l with c (r_{l+1} + ... + r_m) <= r_1 (frequencies r_1 >= ... >= r_m, c =
    ``l_recurs_c``). Any number of sensitive variables.

    ``missing_keys``: "equal" (key values compare with a missing value equal to a missing
    value, so records with the same missing keys and equal other keys are one cell: sdcMicro
    5.8.2, on CRAN since 2026-06-05) or "apart" (a record with any missing key is a cell of
    its own: sdcMicro 5.8.0). ``missing_sensitive``: "category" (the missing values of a
    variable are one more value), "distinct" (each missing value is a value of its own:
    sdcMicro) or "ignore" (left out: l counts the known values of the cell; a cell without
    one gets NULL, left out of the summary's min, mean and max and counted in its
    records_no_l). NULL and, in a
    floating-point column, NaN are missing. sdcMicro 5.8.0 is ``missing_keys="apart",
    missing_sensitive="distinct"``, 5.8.2 ``missing_keys="equal",
    missing_sensitive="distinct"``. ``out``, ``out_table``, ``overwrite``: as
    :func:`discosql.risk` (the default table is ldiversity_records).
    """
    options = LDiversityOptions(keys, sensitive, l_recurs_c, missing_keys, missing_sensitive)
    dest = frequencies.records_destination(out, out_table, overwrite, "ldiversity_records")
    check = frequencies.destination_check(dest, overwrite)
    with open_inputs(
        engine, threads, data, prepare=check, check=named_columns(options.roles())
    ) as inputs:
        return ldiversity_on(inputs, options, dest)


def ldiversity_on(
    inputs: Inputs, options: LDiversityOptions, dest: Destination | None = None
) -> LDiversityResult:
    """:func:`ldiversity` on the first data set of the run's ``inputs``, the per-record table
    returned or written to ``dest``."""
    dest = dest or Destination()
    summary, records = run_ldiversity(inputs.engine, inputs.sources[0], options, dest)
    # each sensitive variable's three columns carry its count of missing values
    missing = summary.column("missing").to_pylist()[: 3 * len(options.sensitive) : 3]
    return LDiversityResult(
        records,
        summary,
        tuple(options.keys),
        tuple(options.sensitive),
        options.l_recurs_c,
        dest.written,
        missing_keys=options.missing_keys,
        missing_sensitive=options.missing_sensitive,
        missing=tuple(int(n) for n in missing),
    )


def run_ldiversity(
    eng: Engine,
    reg: Registered,
    options: LDiversityOptions,
    dest: Destination,
    radices: list[int] | None = None,
) -> tuple[pa.Table, pa.Table | None]:
    """The statements of :func:`ldiversity` on ``eng``: the summary (one row per output
    column) and the per-record table (None when written to ``dest``). ``radices``: the q
    packing decided ahead, for a script engine (whose results are read where it runs)."""
    keys, sensitive = options.keys, options.sensitive
    check_columns([reg], options.roles())
    columns = [
        f"{s}_{m}_Ldiversity" for s in sensitive for m in ("Distinct", "Entropy", "Recursive")
    ] + ["MultiEntropy_Ldiversity", "MultiRecursive_Ldiversity"]
    missing_of = [f"missing_{i}" for i in range(len(sensitive)) for _ in range(3)]
    missing_of += ["missing_any", "missing_any"]
    with frequencies.key_cells(eng, reg, keys, sensitive=sensitive, radices=radices) as cells:
        cells.params["l_recurs_c"] = options.l_recurs_c
        cells.params |= {f"column_{i}": name for i, name in enumerate(columns)}
        cells.create(
            LDIVERSITY,
            "risk/ldiversity.sql.j2",
            records=frequencies.RECORDS,
            names=sensitive,
            missing_keys=options.missing_keys,
            missing_sensitive=options.missing_sensitive,
        )
        cells.create(
            TOTALS,
            "risk/ldiversity_totals.sql.j2",
            per_record=LDIVERSITY,
            columns=columns,
            records=frequencies.RECORDS,
            n_sensitive=len(sensitive),
        )
        sql = cells.render(
            "risk/ldiversity_summary.sql.j2", totals=TOTALS, columns=columns, missing_of=missing_of
        )
        summary = eng.query(
            sql, cells.params, "risk/ldiversity_summary", small=True, schema=SUMMARY_SCHEMA
        )
        in_order = f"SELECT * FROM {ident(LDIVERSITY)} ORDER BY {ident('row')}"
        records = frequencies.deliver(cells, dest, in_order, "risk/ldiversity")
    return summary, records
