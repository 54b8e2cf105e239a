"""sdcMicro's ``measure_risk()`` in SQL: each record's sample and population frequencies (fk,
Fk, missing keys as wildcards), its individual risk of re-identification, the file's global
risk and risk threshold, and with a household id the household risk. The formulas are in the
templates of ``sql_templates/risk/`` (frequencies, individual, global, household)."""

from __future__ import annotations

import math
from dataclasses import MISSING, dataclass
from typing import Any

import pyarrow as pa

from ..core.inputs import Inputs, check_columns, named_columns, open_inputs
from ..core.options import Options, option
from ..core.output import Destination
from ..core.outputcheck import MIN_COUNT, ROUND_TO, OutputCheck
from ..core.results import AsData, json_rows
from ..engines.base import Engine, Registered
from ..errors import InputError
from . import frequencies

INDIVIDUAL = "__disco_risk_individual"
HOUSEHOLDS = "__disco_risk_households"
TOTALS = "__disco_risk_totals"
HOUSEHOLD_TOTALS = "__disco_risk_household_totals"

# risk/summary.sql.j2's rows, as every engine returns them (NaN where sdcMicro gives NA)
SUMMARY_SCHEMA = pa.schema([("measure", pa.string()), ("value", pa.float64())])
TOP_CELLS = 10


@dataclass(frozen=True)
class RiskResult(AsData):
    """The original data's re-identification risk (sdcMicro's ``measure_risk``).

    ``records``: row (1-based input position), fk (records matching its keys, missing keys as
    wildcards), Fk (their weights' sum: the estimated population frequency), risk (individual
    risk: 1/fk without weights, the Benedetti-Franconi approximation with them), hier_risk
    (with a household: 1 - prod(1 - risk) over the household), in input order; None when
    written to ``out``/``out_table`` (``written`` names the file or table; a table's Fk
    column is Fk_population, as DuckDB, SQLite and Spark compare column names without case).
    ``summary``: measure, value: records, n1, n2, records violating k-anonymity for k = 2, 3,
    5, global_risk_ER (expected re-identifications = sum of risks), global_risk (/ records),
    global_risk_pct, global_threshold (NaN where sdcMicro gives NA), the hier_ ones (NaN
    without a household).
    ``riskiest``: the key combinations of the riskiest records: their levels, records, fk,
    Fk, risk (at most 10, highest risk first).
    """

    records: pa.Table | None
    summary: pa.Table
    riskiest: pa.Table
    keys: tuple[str, ...]
    weight: str | None
    household: str | None
    alpha: float
    max_global_risk: float
    written: tuple[str, ...] = ()

    def value(self, name: str) -> float:
        """One of the summary's measures by name (n1, global_risk, global_threshold, ...)."""
        names = self.summary.column("measure").to_pylist()
        if name not in names:
            raise InputError(f"value: unknown measure {name!r}; allowed: {', '.join(names)}")
        v = self.summary.column("value")[names.index(name)].as_py()
        return math.nan if v is None else float(v)

    def checked(self, check: OutputCheck | None = None) -> dict[str, Any]:
        """The summary as {measure: value}; with ``check`` (external mode) as an output
        check lets it out: counts and expected re-identifications (a number of records)
        rounded or suppressed, risks as shares of the shown records (the global threshold,
        a risk level, as it is)."""
        values: dict[str, Any] = {r["measure"]: r["value"] for r in json_rows(self.summary)}
        if check is None:
            return values
        n = int(self.value("records"))
        out: dict[str, Any] = {}
        for name, v in values.items():
            if v is None or name == "global_threshold":
                out[name] = v
            elif name.endswith("_ER"):
                out[name] = check.count(round(v))
            elif name.endswith("_pct"):
                out[name] = check.share(v, n)
            elif name in ("global_risk", "hier_risk"):
                shown = check.share(100 * v, n)
                out[name] = shown if isinstance(shown, str) else shown / 100
            else:
                out[name] = check.count(int(v))
        return out

    def describe(self, mode: str = "internal") -> str:
        """What a review board reads: k-anonymity, expected re-identifications, the threshold
        and (internal mode) the riskiest key combinations with their counts; ``external``
        mode gives no level names, and every count and share through the output check
        (counts below 8 suppressed, the others rounded to 5: :mod:`..core.outputcheck`)."""
        if mode not in ("internal", "external"):
            raise InputError(f"mode: expected 'internal' or 'external', got {mode!r}")
        external = mode == "external"
        check = OutputCheck(MIN_COUNT, ROUND_TO, int(self.value("records"))) if external else None
        v = self.checked(check)

        def fmt(name: str, spec: str = "") -> str:
            x = v[name]
            if isinstance(x, str):
                return x
            return format(x, spec) if spec else str(int(x))

        weighted = f", weight {self.weight!r}" if self.weight else ""
        er = ".0f" if external else ".2f"
        lines = [
            f"Re-identification risk of the original data ({fmt('records')} records; keys "
            f"{', '.join(self.keys)}{weighted})",
            f"  unique on the keys (fk = 1):         {fmt('n1')}",
            f"  violating 2-anonymity (fk < 2):      {fmt('k2_violations')}",
            f"  violating 3-anonymity (fk < 3):      {fmt('k3_violations')}",
            f"  violating 5-anonymity (fk < 5):      {fmt('k5_violations')}",
            f"  expected re-identifications:         {fmt('global_risk_ER', er)} "
            f"({fmt('global_risk_pct', '.2f')} %)",
        ]
        threshold = self.value("global_threshold")
        lines.append(
            f"  risk threshold for a global risk of {self.max_global_risk:g}: "
            + (
                "none needed"
                if math.isnan(threshold)
                else "0 (no threshold reaches it: every record needs protection)"
                if threshold == 0
                else f"{threshold:.4g}"
            )
        )
        if self.household:
            lines.append(
                f"  household risk: {fmt('hier_risk_ER', er)} expected re-identifications "
                f"({fmt('hier_risk_pct', '.2f')} %)"
            )
        if check is not None:
            lines.append(
                f"  (external: counts below {check.min_count} suppressed, the others rounded "
                f"to {check.round_to}; percentages of the counts shown)"
            )
        if not external and self.riskiest.num_rows:
            lines.append("Riskiest key combinations:")
            for r in self.riskiest.to_pylist():
                cells = ", ".join(f"{k}={r[k]}" for k in self.keys)
                lines.append(
                    f"  {cells}: {r['records']} record(s), fk {r['fk']:g}, "
                    f"Fk {r['Fk']:g}, risk {r['risk']:.4g}"
                )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.describe()

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        title = f"risk(): keys {', '.join(self.keys)}"
        return title, [("", self.summary), ("Riskiest key combinations", self.riskiest)], []

    def to_dict(self) -> dict[str, Any]:
        """keys, arguments, the summary as {measure: value} and the riskiest cells."""
        return {
            "keys": list(self.keys),
            "weight": self.weight,
            "household": self.household,
            "alpha": self.alpha,
            "max_global_risk": self.max_global_risk,
            "summary": {r["measure"]: r["value"] for r in json_rows(self.summary)},
            "riskiest": json_rows(self.riskiest),
        }


# the per-record table's columns, which id= must not be named as
RECORD_COLUMNS = ("row", "fk", "Fk", "Fk_population", "risk", "hier_risk")


@dataclass(frozen=True)
class RiskOptions(Options):
    """:func:`risk`'s options, checked when built (before any data is read)."""

    keys: list[str] = option(MISSING, "key columns, comma-separated", kind="list")
    weight: str | None = option(
        None, "sampling weight column (Fk: the population estimate)", metavar="W"
    )
    household: str | None = option(
        None, "household id column: adds the household risk", metavar="H"
    )
    alpha: float = option(
        1.0,
        "weight of a match through a missing key, 0 to 1 (default 1)",
        kind="float",
        metavar="A",
    )
    max_global_risk: float = option(
        0.01,
        "global risk the threshold aims at, in (0, 1) (default 0.01)",
        kind="float",
        metavar="R",
    )
    id: str | None = None

    def __post_init__(self) -> None:
        problems: list[str] = []
        names = frequencies.check_keys(self.keys, problems)
        w = frequencies.check_role("weight", self.weight, names, problems)
        h = frequencies.check_role("household", self.household, names, problems)
        if w is not None and w == h:
            problems.append(f"household: {h!r} is also the weight; it must not be")
        a = frequencies.check_fraction(
            "alpha", self.alpha, problems, low_open=False, high_open=False
        )
        m = frequencies.check_fraction(
            "max_global_risk", self.max_global_risk, problems, low_open=True, high_open=True
        )
        if problems:
            raise InputError(problems)
        self.set("keys", names)
        self.set("weight", w)
        self.set("household", h)
        self.set("alpha", a)
        self.set("max_global_risk", m)
        self.set("id", frequencies.check_id(self.id, self.roles(), RECORD_COLUMNS))

    def roles(self) -> dict[str, str]:
        """Each named column's role: key, weight, household."""
        roles = dict.fromkeys(self.keys, "key") | ({self.weight: "weight"} if self.weight else {})
        return roles | ({self.household: "household"} if self.household else {})


def risk(
    data: Any,
    keys: Any,
    weight: str | None = None,
    household: str | None = None,
    alpha: float = 1.0,
    max_global_risk: float = 0.01,
    engine: Any = None,
    threads: int | None = None,
    *,
    out: Any = None,
    out_table: str | None = None,
    overwrite: bool = False,
    id: str | None = None,  # the name the issue gives: the API contract
) -> RiskResult:
    """Re-identification risk of the original data on ``keys`` (sdcMicro's ``measure_risk``
    and ``freqCalc``).

    fk: records sharing the record's keys (a missing key matches any value; matches through a
    missing value weigh ``alpha``); Fk: their weights' sum. risk = 1/fk without ``weight``;
    with it, pk = fk/Fk and risk = pk/(fk - (1 - pk)) for fk > 2, pk/(1-pk) - (pk/(1-pk))^2
    ln(1/pk) for fk = 2, pk/(1-pk) ln(1/pk) for fk = 1, 1/fk where fk = Fk. global_risk_ER =
    sum of risks; global_threshold: the risk above which records must be protected to bring
    the global risk to ``max_global_risk``. ``household``: hier_risk = 1 - prod(1 - risk).
    ``out``: write the per-record table to a Parquet/CSV file instead of returning it, or to
    the table ``out_table`` (default risk_records) of a DuckDB database file; ``out_table``
    alone: a table in the engine's own database. ``overwrite``: replace an existing one.
    ``id``: a column that names each record (unique, never missing), carried as the first
    column of the per-record table to join it back to the data; without it, ``row`` is the
    record's position as the engine stores the data (on PostgreSQL the physical order, which
    a warning says may not be the order of loading).
    """
    options = RiskOptions(keys, weight, household, alpha, max_global_risk, id)
    dest = frequencies.records_destination(out, out_table, overwrite, "risk_records")
    check = frequencies.destination_check(dest, overwrite)
    named = named_columns(
        options.roles() | ({options.id: "id"} if options.id else {}),
        [options.weight] if options.weight else [],
    )
    with open_inputs(engine, threads, data, prepare=check, check=named) as inputs:
        return risk_on(inputs, options, dest)


def risk_on(inputs: Inputs, options: RiskOptions, dest: Destination | None = None) -> RiskResult:
    """:func:`risk` on the first data set of the run's ``inputs`` (the report's original), the
    per-record table returned or written to ``dest``."""
    dest = dest or Destination()
    summary, riskiest, records = run_risk(inputs.engine, inputs.sources[0], options, dest)
    return RiskResult(
        records=records,
        summary=summary,
        riskiest=riskiest,
        keys=tuple(options.keys),
        weight=options.weight,
        household=options.household,
        alpha=options.alpha,
        max_global_risk=options.max_global_risk,
        written=dest.written,
    )


def run_risk(
    eng: Engine,
    reg: Registered,
    options: RiskOptions,
    dest: Destination,
    radices: list[int] | None = None,
) -> tuple[pa.Table, pa.Table, pa.Table | None]:
    """The statements of :func:`risk` on ``eng``: the summary (measure, value), the riskiest
    cells and the per-record table (None when written to ``dest``). ``radices``: the q
    packing decided ahead, for a script engine (whose results are read where it runs)."""
    keys, weight, household = options.keys, options.weight, options.household
    check_columns([reg], options.roles(), [weight] if weight else [])
    with frequencies.key_cells(
        eng,
        reg,
        keys,
        weight=weight,
        household=household,
        radices=radices,
        risks=True,
        record_id=options.id,
    ) as cells:
        freq = frequencies.frequencies(cells, options.alpha)
        individual = (
            frequencies.CELLS
        )  # no key missing: the cells carry the risks (key_cells' risks)
        if freq is not None:
            individual = INDIVIDUAL
            cells.create(
                INDIVIDUAL,
                "risk/individual.sql.j2",
                frequencies=freq,
                weighted=weight is not None,
            )
        summary = _summary(cells, individual, options.max_global_risk, household is not None)
        # a live engine's columns by position (a small result's table would refuse a key
        # named like another column, and DuckDB's names ignore case: fk and Fk), named here;
        # an exported script prints them as named
        live = not cells.exported
        sql = cells.render(
            "risk/riskiest.sql.j2", cells=individual, limit=TOP_CELLS, positional=live
        )
        riskiest = eng.query(sql, cells.params, "risk/riskiest", small=live)
        if live:
            riskiest = riskiest.rename_columns([*keys, "records", "fk", "Fk", "risk"])
        records = _records(cells, individual, household is not None, dest)
    return summary, riskiest, records


def _summary(
    cells: frequencies.KeyCells, individual: str, max_global_risk: float, household: bool
) -> pa.Table:
    """The file-level measures (risk/global, risk/household_totals) as the rows of
    risk/summary, from the cells' risks in the table ``individual``."""
    cells.params["max_global_risk"] = max_global_risk
    cells.create(TOTALS, "risk/global.sql.j2", cells=individual)
    if household:
        cells.create(
            HOUSEHOLDS, "risk/household.sql.j2", records=frequencies.RECORDS, cells=individual
        )
        cells.create(
            HOUSEHOLD_TOTALS,
            "risk/household_totals.sql.j2",
            records=frequencies.RECORDS,
            households=HOUSEHOLDS,
            cells=individual,
        )
    sql = cells.render(
        "risk/summary.sql.j2",
        totals=TOTALS,
        household_totals=HOUSEHOLD_TOTALS if household else None,
    )
    return cells.engine.query(sql, cells.params, "risk/summary", small=True, schema=SUMMARY_SCHEMA)


def _records(
    cells: frequencies.KeyCells, individual: str, household: bool, dest: Destination
) -> pa.Table | None:
    # a table cannot hold both fk and Fk where column names ignore case (DuckDB, SQLite,
    # Spark), nor a file DuckDB's COPY writes (an exported script's): it would rename Fk
    fk_w_name = "Fk_population" if dest.tables or cells.exported else "Fk"
    sql = cells.render(
        "risk/per_record.sql.j2",
        records=frequencies.RECORDS,
        cells=individual,
        households=HOUSEHOLDS if household else None,
        fk_w_name=fk_w_name,
    )
    return frequencies.deliver(cells, dest, sql, "risk/per_record")
