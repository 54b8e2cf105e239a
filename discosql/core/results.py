"""DisclosureResult: the Arrow tables of one disclosure() call and a short printed summary."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from ..engines.base import conform
from ..errors import InputError
from .grouping import Grouping
from .spec import DisclosureSpec


@dataclass(frozen=True)
class ResultTable:
    """One table of a :class:`DisclosureResult`: its attribute (and the CLI's ``--table``), the
    template that computes it, its columns and, for measure tables, synthpop's group name in the
    long ``measures`` table."""

    name: str
    template: str
    schema: pa.Schema
    group: str | None = None

    @property
    def measures(self) -> tuple[str, ...]:
        """The measure columns (every column but ``synthesis``) of a measure table."""
        return tuple(self.schema.names[1:]) if self.group else ()


def _schema(*columns: tuple[str, pa.DataType]) -> pa.Schema:
    return pa.schema([("synthesis", pa.int32()), *columns])


def _measures(*names: str) -> pa.Schema:
    return _schema(*[(m, pa.float64()) for m in names])


_F, _S, _I = pa.float64(), pa.string(), pa.int64()
# The one list of result tables, in the order they are computed, printed and exported; their
# types on every engine (conform_result casts an engine's output to them). "allCAPs" is
# synthpop's spelling of the group; the attribute is ``allcaps``.
RESULT_TABLES = (
    ResultTable(
        "ident", "measures/identity.sql.j2", _measures("UiO", "UiS", "UiOiS", "repU"), "ident"
    ),
    ResultTable(
        "attrib",
        "measures/attribute.sql.j2",
        _measures("Dorig", "Dsyn", "iS", "DiS", "DiSCO", "DiSDiO", "max_denom", "mean_denom"),
        "attrib",
    ),
    ResultTable(
        "allcaps",
        "measures/cap.sql.j2",
        _measures("baseCAPd", "CAPd", "CAPs", "DCAP", "TCAP", "TCAP_little"),
        "allCAPs",
    ),
    ResultTable(
        "exclusions",
        "measures/exclusions.sql.j2",
        _schema(("table", _S), ("reason", _S), ("count", _I)),
    ),
    ResultTable(
        "check_1way",
        "checks/check_1way.sql.j2",
        _schema(
            ("Level", _S),
            ("All", _I),
            ("PctLevelAll", _F),
            ("totalDisclosive", _I),
            ("nLevelDis", _I),
            ("PctLevelDis", _F),
        ),
    ),
    ResultTable(
        "check_2way",
        "checks/check_2way.sql.j2",
        _schema(
            ("target_key_levs", _S),
            ("npairs", _I),
            ("key", _S),
            ("key_target_total", _I),
            ("key_total", _I),
            ("PctTargetKeyLevel", _F),
        ),
    ),
    ResultTable("disco_curve", "measures/disco_curve.sql.j2", _schema(("ps", _F), ("DiSCO", _F))),
    ResultTable("disco_tau", "measures/disco_tau.sql.j2", _schema(("tau", _F), ("DiSCO", _F))),
)
BY_TEMPLATE = {t.template: t for t in RESULT_TABLES}
# synthpop's measure groups: group name -> measure names
GROUPS = {t.group: t.measures for t in RESULT_TABLES if t.group}


def computed_tables(spec: DisclosureSpec) -> tuple[ResultTable, ...]:
    """The result tables a disclosure() with ``spec`` computes, in order (and its script
    prints): disco_tau only where some tau is asked (else it is empty)."""
    return tuple(t for t in RESULT_TABLES if t.name != "disco_tau" or spec.tau)


# what the CLI's --table and the tests can ask for: the long form and every table
TABLE_NAMES = ("measures", *(t.name for t in RESULT_TABLES))

# disclosure_summary's identity measure (ident_meas) -> its column; UiSiO is synthpop's spelling
IDENT_MEASURES = {"repU": "repU", "UiOiS": "UiOiS", "UiSiO": "UiOiS"}
# disclosure_summary's attribute measure of the synthetic data -> its counterpart for the original
ATTRIB_MEASURES = {
    "DiSCO": "Dorig",
    "DiSDiO": "Dorig",
    "DCAP": "CAPd",
    "TCAP": "CAPd",
    "TCAP_little": "CAPd",
}

MEASURES_SCHEMA = pa.schema(
    [
        ("target", pa.string()),
        ("synthesis", pa.int32()),
        ("group", pa.string()),
        ("measure", pa.string()),
        ("value", pa.float64()),
    ]
)
MEASURE_COLUMNS = MEASURES_SCHEMA.names


def conform_result(template: str, table: pa.Table) -> pa.Table:
    """``table`` with the result schema of ``template`` (:func:`discosql.engines.base.conform`:
    NULL doubles as NaN; a script engine's table with no columns as the empty table)."""
    return conform(table, BY_TEMPLATE[template].schema, template)


def plain(value: Any) -> Any:
    """A value as JSON holds it: NaN (which JSON lacks) becomes None, containers recursively."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def json_rows(table: pa.Table) -> list[dict[str, Any]]:
    """A result table as JSON-ready rows, in the table's order (what the CLI's JSON writes)."""
    return [plain(row) for row in table.to_pylist()]


def to_json(data: dict[str, Any], indent: int | None) -> str:
    """``data`` as JSON text (UTF-8 names kept; NaN already None)."""
    return json.dumps(data, indent=indent, ensure_ascii=False)


class AsData:
    """A result's ``to_json()`` (its ``to_dict()`` as JSON text) and its notebook view
    (``_repr_html_``: the parts of :meth:`html_parts`, rendered by the report's macros)."""

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def to_json(self, indent: int | None = 1) -> str:
        """:meth:`to_dict` as JSON text."""
        return to_json(self.to_dict(), indent)

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        """A title, captioned tables and notes for the notebook view."""
        plain_rows = {k: v for k, v in self.to_dict().items() if not isinstance(v, dict | list)}
        return type(self).__name__, [("", pa.Table.from_pylist([plain_rows]))], []

    def _repr_html_(self) -> str:
        from .view import fragment

        return fragment(*self.html_parts())


@dataclass(frozen=True)
class DisclosureResult(AsData):
    """Disclosure measures of one target against m syntheses (percentages 0-100, unrounded).

    Tables (``pyarrow.Table``), one row per synthesis 1..m unless said otherwise:

    * ``ident``: synthesis, UiO, UiS, UiOiS, repU
    * ``attrib``: synthesis, Dorig, Dsyn, iS, DiS, DiSCO, DiSDiO, max_denom, mean_denom
    * ``allcaps``: synthesis, baseCAPd, CAPd, CAPs, DCAP, TCAP
    * ``measures``: all of them in long form: target, synthesis, group, measure, value
    * ``exclusions``: synthesis, table, reason, count (synthpop's ``Nexclusions``)
    * ``check_1way``: rows only for syntheses where the check fired
    * ``check_2way``: the flagged (target level | key level) pairs per synthesis
    * ``disco_curve``: synthesis, ps, DiSCO: DiSCO(tau) = 100 sum(d'_tq : ps_tq >= tau) / Nd
      at tau = each distinct probability of correct attribution ps_tq = s_tq / s.q among the
      original records (DiSCO(1) = DiSCO; without exclusions its area is DCAP)
    * ``disco_tau``: synthesis, tau, DiSCO at the certainties ``tau`` asked (empty if none)

    Row order: by synthesis; ``measures`` then by group (ident, attrib, allCAPs) and measure
    in the order above; ``exclusions`` by table and exclusion step as synthpop lists them;
    ``check_2way`` by npairs (largest first), then key (in ``keys`` order), then the
    "target|key" level pair in byte order. Measures are always doubles (NaN where a
    denominator is 0).
    """

    target: str
    keys: tuple[str, ...]
    spec: DisclosureSpec
    ident: pa.Table
    attrib: pa.Table
    allcaps: pa.Table
    exclusions: pa.Table
    check_1way: pa.Table
    check_2way: pa.Table
    disco_curve: pa.Table
    disco_tau: pa.Table
    groupings: dict[str, Grouping] = field(default_factory=dict)
    n_original: int = 0

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        title = f"disclosure(): target {self.target!r}, keys {', '.join(self.keys)}"
        tables = [(t.name, getattr(self, t.name)) for t in RESULT_TABLES]
        return title, [(n, t) for n, t in tables if t.num_rows], [self.check1, self.check2]

    @property
    def m(self) -> int:
        return int(self.ident.num_rows)

    @property
    def measures(self) -> pa.Table:
        """All measures in long form: target, synthesis, group, measure, value."""
        tables = {"ident": self.ident, "attrib": self.attrib, "allCAPs": self.allcaps}
        columns = {g: t.to_pydict() for g, t in tables.items()}
        rows = [
            (self.target, syn, group, name, float(columns[group][name][i]))
            for i, syn in enumerate(columns["ident"]["synthesis"])
            for group, names in GROUPS.items()
            for name in names
        ]
        return pa.Table.from_pylist(
            [dict(zip(MEASURE_COLUMNS, r, strict=True)) for r in rows], schema=MEASURES_SCHEMA
        )

    @property
    def check1(self) -> str:
        """synthpop's ``check1`` string for the last synthesis where check_1way fired, else ""."""
        levels = self.check_1way.column("Level").to_pylist()
        return f"Check  {self.target}  level  {levels[-1]}" if levels else ""

    @property
    def check2(self) -> str:
        """synthpop's ``check2``: "<n> pairs need checks" for the last synthesis that fired."""
        fired = self.check_2way.column("synthesis").to_pylist()
        return f"{fired.count(fired[-1])} pairs need checks" if fired else ""

    def value(self, measure: str, synthesis: int = 1) -> float:
        """One measure of one synthesis, e.g. ``res.value("DiSCO", 2)``."""
        if (
            isinstance(synthesis, bool)
            or not isinstance(synthesis, int)
            or not 1 <= synthesis <= self.m
        ):
            raise InputError(
                f"value: synthesis {synthesis!r} does not exist; this result has syntheses "
                f"1 to {self.m}"
            )
        for table in (self.ident, self.attrib, self.allcaps):
            if measure in table.column_names:
                return float(table.column(measure)[synthesis - 1].as_py())
        raise KeyError(
            f"unknown measure {measure!r}; known: {[m for g in GROUPS.values() for m in g]}"
        )

    def to_dict(self) -> dict[str, Any]:
        """The whole result as plain data: target, keys, m, n_original and ``tables`` (each
        table's rows as the CLI's ``--format json --table NAME`` writes them: NaN is None)."""
        tables = {name: json_rows(getattr(self, name)) for name in TABLE_NAMES}
        return {
            "target": self.target,
            "keys": list(self.keys),
            "m": self.m,
            "n_original": self.n_original,
            "tables": tables,
        }

    def __str__(self) -> str:
        def fmt(x: float) -> str:
            return "NaN" if math.isnan(x) else f"{x:.2f}"

        ident, attrib = self.ident.to_pydict(), self.attrib.to_pydict()
        lines = [
            f"Disclosure risk for {self.n_original} records in the original data",
            f"Target: {self.target}    Keys: {', '.join(self.keys)}",
            "",
            f"{'':<12}{'Identity (UiO/repU)':>22}{'Attribute (Dorig/DiSCO)':>26}",
            f"{'Original':<12}{fmt(ident['UiO'][0]):>22}{fmt(attrib['Dorig'][0]):>26}",
        ]
        for i, syn in enumerate(ident["synthesis"]):
            lines.append(
                f"{'Synthetic ' + str(syn):<12}{fmt(ident['repU'][i]):>22}"
                f"{fmt(attrib['DiSCO'][i]):>26}"
            )
        fired1 = self.check_1way.column("synthesis").to_pylist()
        levels = self.check_1way.column("Level").to_pylist()
        if fired1:
            lines.append("")
            lines.append(
                f"check_1way: level {levels[-1]!r} of {self.target} dominates the DiSCO records "
                f"(syntheses {', '.join(map(str, fired1))})"
            )
        fired2 = self.check_2way.column("synthesis").to_pylist()
        if fired2:
            per = {s: fired2.count(s) for s in dict.fromkeys(fired2)}
            lines.append(
                "check_2way: "
                + "; ".join(f"synthesis {s}: {n} pairs need checks" for s, n in per.items())
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"<DisclosureResult target={self.target!r} keys={list(self.keys)!r} m={self.m}>\n{self}"
        )
