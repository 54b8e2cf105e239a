"""sdcMicro's ``ldiversity()`` in SQL: how diverse the sensitive values are within each key
cell (distinct, entropy and recursive (c, l) l-diversity per sensitive variable, and the
multi-attribute ones), per record. Formulas: ``sql_templates/risk/ldiversity.sql.j2``."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ..core.inputs import Inputs, named_columns, opened
from ..core.output import Destination
from ..core.outputcheck import OutputCheck
from ..core.results import AsData, json_rows
from ..core.spec import column_names
from ..engines.base import Engine, Registered
from ..errors import InputError
from ..sql.templates import ident
from . import frequencies as fq

LDIVERSITY = "__disco_risk_ldiversity"
TOTALS = "__disco_risk_ldiversity_totals"
SUMMARY_SCHEMA = pa.schema(
    [
        ("column", pa.string()),
        ("min", pa.float64()),
        ("mean", pa.float64()),
        ("max", pa.float64()),
        ("records_l1", pa.int64()),
    ]
)


@dataclass(frozen=True)
class LDiversityResult(AsData):
    """l-diversity of ``sensitive`` in the key cells of ``keys`` (sdcMicro's ``ldiversity``).

    ``records``: row (1-based input position), then per sensitive variable
    <var>_Distinct_Ldiversity (categories in the record's cell), <var>_Entropy_Ldiversity
    (exp of their entropy), <var>_Recursive_Ldiversity (recursive (c, l)), then
    MultiEntropy_Ldiversity and MultiRecursive_Ldiversity; in input order; None when written
    to ``out``. ``summary``: column, min, mean, max, and records with l = 1 (a cell where
    everyone shares the sensitive value: attribute disclosure).
    """

    records: pa.Table | None
    summary: pa.Table
    keys: tuple[str, ...]
    sensitive: tuple[str, ...]
    l_recurs_c: float
    written: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.describe()

    def rows(self, check: OutputCheck | None = None) -> list[dict[str, Any]]:
        """The summary's rows; with ``check`` (external mode), the records with l = 1 as the
        output check lets the count out (l itself is a number of values, not of records)."""
        rows = json_rows(self.summary)
        if check is not None:
            for r in rows:
                r["records_l1"] = check.count(r["records_l1"])
        return rows

    def describe(self, check: OutputCheck | None = None) -> str:
        """The summary in lines (``check``: external mode's output check)."""
        lines = [f"l-diversity of {', '.join(self.sensitive)} on keys {', '.join(self.keys)}"]
        for r in self.rows(check):
            lines.append(
                f"  {r['column']}: min {r['min']:g}, mean {r['mean']:.4g}, max {r['max']:g}; "
                f"{r['records_l1']} record(s) with l = 1"
            )
        return "\n".join(lines)

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        return f"ldiversity(): {', '.join(self.sensitive)}", [("", self.summary)], []

    def to_dict(self) -> dict[str, Any]:
        """keys, sensitive variables, c and the summary rows."""
        return {
            "keys": list(self.keys),
            "sensitive": list(self.sensitive),
            "l_recurs_c": self.l_recurs_c,
            "summary": json_rows(self.summary),
        }


def check_arguments(
    keys: Any, sensitive: Any, l_recurs_c: Any
) -> tuple[list[str], list[str], float]:
    """Every argument of ``ldiversity()`` checked before any data is read."""
    problems: list[str] = []
    names = fq.check_keys(keys, problems)
    sens = column_names("sensitive", sensitive, problems)
    both = [s for s in sens if s in names]
    if both:
        problems.append(f"sensitive: {both!r} are also keys; a variable is one or the other")
    ok = isinstance(l_recurs_c, int | float) and not isinstance(l_recurs_c, bool)
    if not ok or not math.isfinite(l_recurs_c) or l_recurs_c <= 0:
        problems.append(f"l_recurs_c: expected a positive number, got {l_recurs_c!r}")
    if problems:
        raise InputError(problems)
    return names, sens, float(l_recurs_c)


def ldiversity(
    data: Any,
    keys: Any,
    sensitive: Any,
    l_recurs_c: float = 2,
    engine: Any = None,
    threads: int | None = None,
    *,
    out: Any = None,
    out_table: str | None = None,
    overwrite: bool = False,
) -> LDiversityResult:
    """l-diversity of each sensitive variable within the records' key cells.

    Distinct: the number of categories m; Entropy: exp(-sum p_i ln p_i); Recursive: the
    smallest l with c (r_{l+1} + ... + r_m) <= r_1 (frequencies r_1 >= ... >= r_m, c =
    ``l_recurs_c``). Any number of sensitive variables. ``out``, ``out_table``,
    ``overwrite``: as :func:`discosql.risk` (the default table is ldiversity_records).
    """
    names, sens, c = check_arguments(keys, sensitive, l_recurs_c)
    dest = fq.records_destination(out, out_table, overwrite, "ldiversity_records")
    check = fq.destination_check(dest, overwrite)
    named = named_columns(dict.fromkeys(names, "key") | dict.fromkeys(sens, "sensitive"))
    with opened(engine, threads, data, prepare=check, check=named) as inputs:
        return ldiversity_on(inputs, names, sens, c, dest)


def ldiversity_on(
    inputs: Inputs,
    keys: list[str],
    sensitive: list[str],
    l_recurs_c: float,
    dest: Destination | None = None,
) -> LDiversityResult:
    """:func:`ldiversity` on the first data set of the run's ``inputs`` (checked arguments),
    the per-record table returned or written to ``dest``."""
    dest = dest or Destination()
    eng, reg = inputs.engine, inputs.sources[0]
    summary, records = run_ldiversity(eng, reg, keys, sensitive, l_recurs_c, dest)
    return LDiversityResult(
        records, summary, tuple(keys), tuple(sensitive), l_recurs_c, dest.written
    )


def run_ldiversity(
    eng: Engine,
    reg: Registered,
    keys: list[str],
    sensitive: list[str],
    l_recurs_c: float,
    dest: Destination,
    radices: list[int] | None = None,
) -> tuple[pa.Table, pa.Table | None]:
    """The statements of :func:`ldiversity` on ``eng``: the summary (one row per output
    column) and the per-record table (None when written to ``dest``). ``radices``: the q
    packing decided ahead, for a script engine (whose results are read where it runs)."""
    fq.check_columns(reg, dict.fromkeys(keys, "key") | dict.fromkeys(sensitive, "sensitive"), [])
    columns = [
        f"{s}_{m}_Ldiversity" for s in sensitive for m in ("Distinct", "Entropy", "Recursive")
    ] + ["MultiEntropy_Ldiversity", "MultiRecursive_Ldiversity"]
    with fq.key_cells(eng, reg, keys, sensitive=sensitive, radices=radices) as cells:
        cells.params["l_recurs_c"] = l_recurs_c
        cells.params |= {f"column_{i}": name for i, name in enumerate(columns)}
        cells.create(LDIVERSITY, "risk/ldiversity.sql.j2", records=fq.RECORDS, names=sensitive)
        cells.create(
            TOTALS, "risk/ldiversity_totals.sql.j2", per_record=LDIVERSITY, columns=columns
        )
        sql = cells.render("risk/ldiversity_summary.sql.j2", totals=TOTALS, columns=columns)
        summary = eng.query(
            sql, cells.params, "risk/ldiversity_summary", small=True, schema=SUMMARY_SCHEMA
        )
        in_order = f"SELECT * FROM {ident(LDIVERSITY)} ORDER BY {ident('row')}"
        records = fq.deliver(cells, dest, in_order, "risk/ldiversity")
    return summary, records
