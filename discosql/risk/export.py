"""``risk_to_sql``, ``ldiversity_to_sql`` and ``suda_to_sql``: the original data's risk as one
SQL script (the duckdb shell, PostgreSQL, Spark).

The script runs the statements :func:`discosql.risk`, :func:`discosql.ldiversity` and
:func:`discosql.suda` run,
with every bound value a literal. One decision needs the data: the q packing of the keys
(each key's radix), made at export time by reading the keys once. The script checks it where
it runs (stage 015) and, with a weight, that every weight is a positive finite number; when either
fails it stops with a message, before anything is counted. The records' positions (the
per-record table's ``row``) are the order the engine keeps them in, so only dialects with one
are offered: duckdb, postgres, spark and databricks.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..core.export import Header, script_destination, script_sources, script_text
from ..core.inputs import check_columns, open_inputs
from ..core.output import Destination
from ..engines.base import Registered
from ..engines.script import ScriptEngine
from ..errors import InputError
from ..sql.dialects import ORDERED_DIALECTS, unknown_dialect
from . import frequencies
from .individual import RiskOptions, run_risk
from .ldiversity import LDiversityOptions, run_ldiversity
from .suda import SudaOptions, run_suda


def risk_to_sql(
    data: Any,
    keys: Any,
    weight: str | None = None,
    household: str | None = None,
    alpha: float = 1.0,
    max_global_risk: float = 0.01,
    *,
    dialect: str = "duckdb",
    table: str | None = None,
    out: str | None = None,
    out_table: str | None = None,
    overwrite: bool = False,
    engine: Any = None,
    threads: int | None = None,
) -> str:
    """One SQL script that computes :func:`discosql.risk` where the data live.

    Args:
        data: read once at export time for the column types and the keys' q packing. With
            ``dialect="duckdb"`` and Parquet/CSV files the script reads those files.
        keys, weight, household, alpha, max_global_risk: as :func:`discosql.risk`.
        dialect: duckdb, postgres, spark or databricks (their tables keep an order of the
            records, which numbers them).
        table: what the script reads instead (a table name, dotted for a schema); needed
            unless the data are files and the dialect is duckdb, or a table on ``engine``.
        out_table: the per-record table to create where the script runs; out: duckdb only, a
            Parquet/CSV file instead; neither: printed. Its Fk column is Fk_population (a
            table or DuckDB's COPY cannot hold fk and Fk: names ignore case).
            ``overwrite``: the script drops an existing table first.
        engine, threads: where to read the data at export time (default: DuckDB).

    Returns:
        The script. It prints the summary (measure, value), the riskiest key cells, then the
        per-record table (or writes it).
    """
    options = RiskOptions(keys, weight, household, alpha, max_global_risk)
    w, h, a, m = options.weight, options.household, options.alpha, options.max_global_risk
    dest = _script_options(dialect, table, out, out_table, overwrite)
    what = Export(
        "risk() (sdcMicro measure_risk)",
        options.keys,
        options.roles(),
        [w] if w else [],
        dialect,
        table,
        overwrite,
        dest,
    )
    extra = [f"weight {w}" if w else "no weight", f"household {h}" if h else "no household"]
    extra.append(f"alpha {a:g}, max_global_risk {m:g}")
    with _exporting(what, data, engine, threads) as (script, source, radices):
        script.comment(
            what.header(
                source,
                radices,
                extra,
                "the summary (measure, value) and the riskiest key cells",
                weighted=w is not None,
            )
        )
        run_risk(script, source, options, dest, radices)
    return script_text(script)


def ldiversity_to_sql(
    data: Any,
    keys: Any,
    sensitive: Any,
    l_recurs_c: float = 2,
    *,
    missing_keys: str = "equal",
    missing_sensitive: str = "category",
    dialect: str = "duckdb",
    table: str | None = None,
    out: str | None = None,
    out_table: str | None = None,
    overwrite: bool = False,
    engine: Any = None,
    threads: int | None = None,
) -> str:
    """One SQL script that computes :func:`discosql.ldiversity` where the data live; the
    arguments as :func:`discosql.risk_to_sql` and :func:`discosql.ldiversity` (its rules for
    missing keys and missing sensitive values too, named in the script's header). The script
    prints the summary (one row per output column, with its counts of missing values), then
    the per-record table (or writes it)."""
    options = LDiversityOptions(keys, sensitive, l_recurs_c, missing_keys, missing_sensitive)
    dest = _script_options(dialect, table, out, out_table, overwrite)
    what = Export(
        "ldiversity() (sdcMicro ldiversity)",
        options.keys,
        options.roles(),
        [],
        dialect,
        table,
        overwrite,
        dest,
    )
    extra = [
        f"sensitive {', '.join(options.sensitive)}; l_recurs_c {options.l_recurs_c:g}",
        f"missing keys {options.missing_keys}, "
        f"missing sensitive values {options.missing_sensitive}",
    ]
    with _exporting(what, data, engine, threads) as (script, source, radices):
        script.comment(
            what.header(source, radices, extra, "the summary (one row per output column)")
        )
        run_ldiversity(script, source, options, dest, radices)
    return script_text(script)


def suda_to_sql(
    data: Any,
    keys: Any,
    dis_fraction: float = 0.01,
    original_scores: bool = True,
    max_size: int | None = None,
    *,
    dialect: str = "duckdb",
    table: str | None = None,
    out: str | None = None,
    out_table: str | None = None,
    overwrite: bool = False,
    engine: Any = None,
    threads: int | None = None,
) -> str:
    """One SQL script that computes :func:`discosql.suda` where the data live; the arguments
    as :func:`discosql.risk_to_sql` and :func:`discosql.suda`. The script prints the
    attribute contributions, the level contributions, the MSU sizes and the DIS-SUDA table,
    then the per-record table (or writes it)."""
    options = SudaOptions(keys, dis_fraction, original_scores, max_size)
    dest = _script_options(dialect, table, out, out_table, overwrite)
    what = Export(
        "suda() (sdcMicro suda2)",
        options.keys,
        dict.fromkeys(options.keys, "key"),
        [],
        dialect,
        table,
        overwrite,
        dest,
    )
    scores = "(M - k)!" if options.original_scores else "IHSN (2^(M-k) - 1) / C(M, k)"
    extra = [
        f"MSUs of up to {options.largest} keys; scores {scores}; "
        f"dis_fraction {options.dis_fraction:g}"
    ]
    with _exporting(what, data, engine, threads) as (script, source, radices):
        results = "the attribute and level contributions, the MSU sizes and the DIS-SUDA table"
        script.comment(what.header(source, radices, extra, results))
        run_suda(script, source, options, dest, radices)
    return script_text(script)


@dataclass(frozen=True)
class Export:
    """What a script computes (``what``), on which keys and columns (``roles``; ``numeric``
    must hold numbers), in which dialect, reading what (``table``), writing where."""

    what: str
    keys: list[str]
    roles: dict[str, str]
    numeric: list[str]
    dialect: str
    table: str | None
    overwrite: bool
    dest: Destination

    def header(
        self,
        source: Registered,
        radices: list[int],
        extra: list[str],
        results: str,
        weighted: bool = False,
    ) -> str:
        """The script's opening comment."""
        writes = ", ".join(self.dest.written) or "nothing: the per-record table is printed"
        weights = (
            "; the script checks that every weight is a positive finite number" if weighted else ""
        )
        return Header(
            self.what,
            self.dialect,
            [f"keys {', '.join(self.keys)}; {'; '.join(extra)}"],
            [source],
            f"{results}, then the per-record table (row: each record's 1-based position as the "
            "engine keeps them).",
            f"The q packing (key radices {radices}, levels + 1) was decided at export time"
            f"{weights}.",
            writes=writes,
        ).text()


@contextlib.contextmanager
def _exporting(
    what: Export, data: Any, engine: Any, threads: int | None
) -> Iterator[tuple[ScriptEngine, Registered, list[int]]]:
    """The data read at export time (column checks, the keys' q packing) and the script
    engine the statements are written to, with what it reads; its work tables dropped at
    the end."""
    with open_inputs(engine, threads, data) as inputs:
        eng, reg = inputs.engine, inputs.sources[0]
        check_columns([reg], what.roles, what.numeric)
        radices = frequencies.key_radices_of(eng, reg, what.keys)
        example = "table='db.persons'"
        source = script_sources([reg], [what.table], what.dialect, "table", example)[0]
        script = ScriptEngine(what.dialect, overwrite=what.overwrite)
        yield script, source, radices
        script.drop_made()


def _script_options(
    dialect: Any, table: Any, out: Any, out_table: Any, overwrite: Any
) -> Destination:
    """The script's arguments, checked before any data is read; where the per-record table
    goes (neither out nor out_table: printed)."""
    problems: list[str] = []
    why = " (the per-record table needs an order of the records, which the other dialects' "
    problems += filter(
        None, [unknown_dialect(dialect, ORDERED_DIALECTS, why + "tables do not keep)")]
    )
    if table is not None and (not isinstance(table, str) or not table.strip()):
        problems.append(f"table: expected a table name, got {table!r}")
    if not isinstance(overwrite, bool):
        problems.append(f"overwrite: expected True or False, got {overwrite!r}")
    dest = Destination()
    if out is not None or out_table is not None:
        dest = script_destination(out, out_table, 1, str(dialect), problems)
    if problems:
        raise InputError(problems)
    return dest
