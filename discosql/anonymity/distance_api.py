"""What the distance family's public functions share: the options every one of them takes
(the columns, the numeric ones read as categories, the search's bound) and the shape of
their results (a per-record table and a summary of measure rows)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, NoReturn

import pyarrow as pa

from ..core.options import Options, option
from ..core.results import AsData, json_rows
from ..core.spec import column_names
from ..engines.base import Registered
from ..errors import InputError
from .common import categorical_option, max_pairs_option, max_pairs_problems, reserved_names

CAVEAT = (
    "Yao et al. 2025 (The DCR Delusion): data sets that distance scores deem private can be "
    "highly vulnerable to membership inference; a large DCR is no proof of privacy"
)
NO_SCRIPT = (
    "{what}: there is no SQL script of the distance family: its exact search decides its "
    "rounds from the data (which records each box resolves, whether a round's pairs pass "
    "max_pairs), which a fixed script cannot do; run it where the data live instead, with "
    "engine= a PostgreSQL DSN, a Spark session or a DB-API connection (docs/distance.md, "
    "Where the data live)"
)
SUMMARY_SCHEMA = pa.schema(
    [("synthesis", pa.int32()), ("measure", pa.string()), ("value", pa.float64())]
)


@dataclass(frozen=True)
class DistanceOptions(Options):
    """The options of every distance measure, checked when built (before any data is read);
    a family's own options extend them and add their problems in ``more_problems``."""

    columns: list[str] | None = option(
        None,
        "the columns compared, comma-separated (default: every column of the original)",
        kind="list",
        metavar="A,B,...",
    )
    categorical: list[str] | None = categorical_option("numeric columns")
    max_pairs: int = max_pairs_option("a search round")

    def __post_init__(self) -> None:
        problems: list[str] = []
        names = None if self.columns is None else column_names("columns", self.columns, problems)
        reserved_names("columns", names, problems)
        cats = (
            None
            if self.categorical is None
            else column_names("categorical", self.categorical, problems)
        )
        if names is not None and cats:
            missing = [c for c in cats if c not in names]
            if missing:
                problems.append(f"categorical: {missing!r} are not among the columns {names!r}")
        problems += max_pairs_problems(self.max_pairs)
        problems += self.more_problems()
        if problems:
            raise InputError(problems)
        self.set("columns", names)
        self.set("categorical", cats)

    def more_problems(self) -> list[str]:
        """The family's own problems with its own options (its checked values set here)."""
        return []

    def names(self, original: Registered) -> list[str]:
        """The columns compared: those named, else every column of the original."""
        return list(self.columns or original.columns)


@dataclass(frozen=True)
class DistanceResult(AsData):
    """A distance measure's result: the columns compared (``numeric``: those compared by
    difference), the per-record table, the summary (synthesis, measure, value)."""

    WHAT: ClassVar[str] = ""
    TITLE: ClassVar[str] = ""

    columns: tuple[str, ...]
    numeric: tuple[str, ...]
    records: pa.Table
    summary: pa.Table
    options: DistanceOptions

    def value(self, measure: str, synthesis: int = 1) -> float | None:
        """One summary value."""
        for row in self.summary.to_pylist():
            if row["synthesis"] == synthesis and row["measure"] == measure:
                return row["value"]  # type: ignore[no-any-return]
        raise InputError(
            f"{self.WHAT}: no measure {measure!r} for synthesis {synthesis}; measures are "
            f"{sorted({r['measure'] for r in self.summary.to_pylist()})}"
        )

    def to_dict(self) -> dict[str, Any]:
        """columns, the numeric ones, the options, the ``summary`` rows as plain data (NaN is
        None) and the caveat; the per-record table is not in it (``records``)."""
        return {
            "columns": list(self.columns),
            "numeric": list(self.numeric),
            "options": self.options.as_dict(),
            "summary": json_rows(self.summary),
            "caveat": CAVEAT,
        }

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        title = f"{self.WHAT}(): columns {', '.join(self.columns)}"
        return title, [("summary", self.summary)], [CAVEAT]

    def __str__(self) -> str:
        numeric = ", ".join(self.numeric) or "none"
        lines = [
            f"{self.TITLE} over {len(self.columns)} columns ({', '.join(self.columns)}; "
            f"numeric: {numeric}), SDMetrics' distance"
        ]
        width = max((len(r["measure"]) for r in self.summary.to_pylist()), default=0)
        for row in self.summary.to_pylist():
            value = row["value"]
            shown = "NaN" if value is None or math.isnan(value) else f"{value:.6g}"
            lines.append(f"  synthesis {row['synthesis']}  {row['measure']:<{width}}  {shown}")
        lines.append(CAVEAT)
        return "\n".join(lines)


def dcr_to_sql(*args: Any, **kwargs: Any) -> NoReturn:
    """There is no script of :func:`discosql.dcr`: raises InputError saying why and what to
    do instead (NO_SCRIPT)."""
    raise InputError(NO_SCRIPT.format(what="dcr_to_sql"))


def membership_to_sql(*args: Any, **kwargs: Any) -> NoReturn:
    """There is no script of :func:`discosql.membership`: raises InputError (NO_SCRIPT)."""
    raise InputError(NO_SCRIPT.format(what="membership_to_sql"))
