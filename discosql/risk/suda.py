"""SUDA2 special uniques in SQL (sdcMicro's ``suda2()``): each record's minimal sample uniques
(MSUs: the smallest key subsets on which it is unique), its SUDA score and DIS-SUDA score, and
the keys' and levels' contributions. The formulas are in ``sql_templates/suda/``.

The search is level by level over the subsets of the keys: the records unique on each subset
of size s (suda/uniques: a GROUP BY per subset over the key cells), minus those with an MSU
inside it found at a smaller size (suda/msus). Python decides the subsets and the weights;
SQL counts.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import MISSING, dataclass
from typing import Any

import pyarrow as pa

from ..core.inputs import Inputs, check_columns, named_columns, open_inputs, source_ctx
from ..core.options import Options, option
from ..core.output import Destination
from ..core.results import AsData, json_rows
from ..engines.base import Engine, Registered
from ..errors import InputError
from . import frequencies

MSUS = "__disco_suda_msus"
SUDA_CELLS = "__disco_suda_cells"
SCORES = "__disco_suda_scores"
DIS = "__disco_suda_dis"
# The result tables (each the template suda/<name>.sql.j2), as every engine returns them
RESULT_SCHEMAS = {
    "attributes": pa.schema([("variable", pa.string()), ("contribution", pa.float64())]),
    "levels": pa.schema(
        [("variable", pa.string()), ("attribute", pa.string()), ("contribution", pa.float64())]
    ),
    "msu_counts": pa.schema([("size", pa.int64()), ("records", pa.int64())]),
    "dis_table": pa.schema([("interval", pa.string()), ("records", pa.int64())]),
}
# called as progress(i, n, what) before each step of a long run
Progress = Callable[[int, int, str], None]
MAX_SUBSETS = 4095  # 12 keys; more need max_size (docs/suda.md: the cost per subset)


@dataclass(frozen=True)
class SudaResult(AsData):
    """SUDA2 special uniques of the original data on ``keys`` (sdcMicro's ``suda2``).

    ``records``: row (1-based input position), <key>_contribution (the share of the record's
    MSU weight whose MSUs contain the key: a fraction; a record's shares add up to more than
    1), suda_score, dis_suda_score; in input order; None when written to ``out``.
    ``attributes``: variable, contribution (percent of all scores). ``levels``: variable,
    attribute (the level), contribution (percent of the key's). ``msu_counts``: size, records
    with an MSU of that size. ``dis_table``: interval, records (sdcMicro's print table).
    """

    records: pa.Table | None
    attributes: pa.Table
    levels: pa.Table
    msu_counts: pa.Table
    dis_table: pa.Table
    keys: tuple[str, ...]
    dis_fraction: float
    original_scores: bool
    max_size: int
    written: tuple[str, ...] = ()

    def __str__(self) -> str:
        lines = [
            f"SUDA2 special uniques on keys {', '.join(self.keys)} (MSUs up to "
            f"{self.max_size} keys; DIS fraction {self.dis_fraction:g})",
            "DIS-SUDA scores:",
        ]
        for r in self.dis_table.to_pylist():
            lines.append(f"  {r['interval']:>11}: {r['records']} record(s)")
        lines.append("Records with an MSU of each size:")
        for r in self.msu_counts.to_pylist():
            lines.append(f"  {r['size']} key(s): {r['records']}")
        lines.append("Attribute contribution (%):")
        for r in self.attributes.to_pylist():
            lines.append(f"  {r['variable']}: {r['contribution']:.2f}")
        return "\n".join(lines)

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        title = f"suda(): keys {', '.join(self.keys)}"
        tables = [
            ("DIS-SUDA scores", self.dis_table),
            ("MSU sizes", self.msu_counts),
            ("Attribute contribution", self.attributes),
        ]
        return title, tables, []

    def to_dict(self) -> dict[str, Any]:
        """keys, arguments, the DIS-SUDA table, the MSU sizes, the attribute and level
        contributions."""
        return {
            "keys": list(self.keys),
            "dis_fraction": self.dis_fraction,
            "original_scores": self.original_scores,
            "max_size": self.max_size,
            "dis_table": json_rows(self.dis_table),
            "msu_counts": json_rows(self.msu_counts),
            "attributes": json_rows(self.attributes),
            "levels": json_rows(self.levels),
        }


@dataclass(frozen=True)
class SudaOptions(Options):
    """:func:`suda`'s options, checked when built (before any data is read); ``max_size``
    becomes the largest MSU size searched."""

    keys: list[str] = option(MISSING, "key columns, comma-separated", kind="list")
    dis_fraction: float = option(
        0.01,
        "the sampling fraction of DIS-SUDA, 0 to 1 (default 0.01)",
        kind="float",
        metavar="F",
    )
    original_scores: bool = True
    max_size: int | None = option(
        None,
        "look for MSUs of up to K keys (default: all keys)",
        kind="int",
        metavar="K",
    )
    id: str | None = None

    def __post_init__(self) -> None:
        problems: list[str] = []
        names = frequencies.check_keys(self.keys, problems)
        f = frequencies.check_fraction(
            "dis_fraction", self.dis_fraction, problems, low_open=False, high_open=False
        )
        if not isinstance(self.original_scores, bool):
            problems.append(
                f"original_scores: expected True or False, got {self.original_scores!r}"
            )
        largest, max_size = len(names), self.max_size
        if max_size is not None:
            if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1:
                problems.append(f"max_size: expected a whole number >= 1 or None, got {max_size!r}")
            else:
                largest = min(max_size, len(names))
        n_subsets = sum(math.comb(len(names), s) for s in range(1, largest + 1))
        if names and n_subsets > MAX_SUBSETS:
            problems.append(
                f"keys: {len(names)} keys have {n_subsets} subsets of up to {largest} keys to "
                f"search, more than {MAX_SUBSETS}; give max_size (e.g. max_size=4: "
                f"{sum(math.comb(len(names), s) for s in range(1, 5))} subsets) or fewer keys"
            )
        if problems:
            raise InputError(problems)
        self.set("keys", names)
        self.set("dis_fraction", f)
        self.set("max_size", largest)
        self.set("id", frequencies.check_id(self.id, dict.fromkeys(names, "key"), self.outputs()))

    @property
    def largest(self) -> int:
        """The largest MSU size searched."""
        return self.max_size or len(self.keys)

    def outputs(self) -> list[str]:
        """The per-record table's columns."""
        return ["row", *(f"{k}_contribution" for k in self.keys), "suda_score", "dis_suda_score"]


def suda(
    data: Any,
    keys: Any,
    dis_fraction: float = 0.01,
    original_scores: bool = True,
    max_size: int | None = None,
    engine: Any = None,
    threads: int | None = None,
    *,
    out: Any = None,
    out_table: str | None = None,
    overwrite: bool = False,
    progress: Progress | None = None,
    id: str | None = None,  # the name the issue gives: the API contract
) -> SudaResult:
    """SUDA2 special uniques: each record's minimal sample uniques (MSUs) on ``keys``, scored.

    A record's MSUs are the key subsets S on which it is unique (no other record has its
    values; a missing value matches nothing) while unique on no subset of S. An MSU of k of
    the M keys weighs (M - k)! (``original_scores``; else (2^(M-k) - 1) / C(M, k)); the SUDA
    score s_r is the sum over the record's MSUs. DIS-SUDA = 1 / (1 + P (1 - f) / (f s_r^Q A))
    for s_r > 0, with f = ``dis_fraction`` (0: 0.5), P the records in pairs identical on all
    keys, Q = 1 + (8 - M) / 20, A = sum of s^-Q over the records with a score. ``max_size``:
    MSUs up to that many keys (default: all). ``out``, ``out_table``, ``overwrite``: as
    :func:`discosql.risk` (the default table is suda_records). ``progress``: called as
    ``progress(i, n, what)`` before the MSUs of each size are searched (the CLI prints it).
    ``id``: a column that names each record, the per-record table's first column (as
    :func:`discosql.risk`).
    """
    options = SudaOptions(keys, dis_fraction, original_scores, max_size, id)
    dest = frequencies.records_destination(out, out_table, overwrite, "suda_records")
    check = frequencies.destination_check(dest, overwrite)
    named = named_columns(
        dict.fromkeys(options.keys, "key") | ({options.id: "id"} if options.id else {})
    )
    with open_inputs(engine, threads, data, prepare=check, check=named) as inputs:
        return suda_on(inputs, options, dest, progress)


def default_max_size(n_keys: int) -> int:
    """The largest MSU size whose search stays within MAX_SUBSETS subsets (the report's)."""
    size, total = 0, 0
    while size < n_keys and total + math.comb(n_keys, size + 1) <= MAX_SUBSETS:
        size += 1
        total += math.comb(n_keys, size)
    return max(size, 1)


def suda_on(
    inputs: Inputs,
    options: SudaOptions,
    dest: Destination | None = None,
    progress: Progress | None = None,
) -> SudaResult:
    """:func:`suda` on the first data set of the run's ``inputs`` (the report's original),
    the per-record table returned or written to ``dest``."""
    dest = dest or Destination()
    eng, reg = inputs.engine, inputs.sources[0]
    tables, records = run_suda(eng, reg, options, dest, progress=progress)
    attributes, levels, msu_counts, dis_table = tables
    return SudaResult(
        records=records,
        attributes=attributes,
        levels=levels,
        msu_counts=msu_counts,
        dis_table=dis_table,
        keys=tuple(options.keys),
        dis_fraction=options.dis_fraction,
        original_scores=options.original_scores,
        max_size=options.largest,
        written=dest.written,
    )


def run_suda(
    eng: Engine,
    reg: Registered,
    options: SudaOptions,
    dest: Destination,
    radices: list[int] | None = None,
    progress: Progress | None = None,
) -> tuple[tuple[pa.Table, ...], pa.Table | None]:
    """The statements of :func:`suda` on ``eng``: (attributes, levels, msu_counts, dis_table)
    and the per-record table (None when written to ``dest``). ``radices``: the q packing
    decided ahead, for a script engine (whose results are read where it runs)."""
    keys, record_id = options.keys, options.id
    original_scores, dis_fraction = options.original_scores, options.dis_fraction
    largest = options.largest
    check_columns([reg], dict.fromkeys(keys, "key"))
    m = len(keys)
    sizes = list(range(1, largest + 1))
    with frequencies.key_cells(eng, reg, keys, radices=radices, record_id=record_id) as cells:
        cells.params |= {f"variable_{i}": k for i, k in enumerate(keys)}
        cells.params |= {f"w_{s}": _weight(m, s, original_scores) for s in sizes}
        # sdcMicro replaces a fraction of 0 by 0.5 (R/suda2.R passes it, src/Suda2.h ignores 0)
        cells.params["dis_fraction"] = dis_fraction or 0.5
        cells.params["q"] = 1 + (8 - m) / 20
        cells.create(SUDA_CELLS, "suda/cells.sql.j2", records=frequencies.RECORDS)
        msus = _search(cells, sizes, progress)
        cells.create(SCORES, "suda/scores.sql.j2", msus=msus, sizes=sizes)
        cells.create(DIS, "suda/dis.sql.j2", scores=SCORES, cells=SUDA_CELLS)
        kinds = source_ctx([reg])[0].kinds
        text_keys = [k for k in keys if kinds[k] == "text"]
        tables = tuple(
            eng.query(
                cells.render(
                    f"suda/{name}.sql.j2",
                    records=frequencies.RECORDS,
                    dis=DIS,
                    msus=msus,
                    sizes=sizes,
                    text_keys=text_keys,
                ),
                cells.params,
                f"suda/{name}",
                schema=schema,
            )
            for name, schema in RESULT_SCHEMAS.items()
        )
        columns = [f"{k}_contribution" for k in keys]
        sql = cells.render(
            "suda/per_record.sql.j2", records=frequencies.RECORDS, dis=DIS, columns=columns
        )
        records = frequencies.deliver(cells, dest, sql, "suda/per_record")
    return tables, records


def _search(cells: frequencies.KeyCells, sizes: list[int], progress: Progress | None) -> list[str]:
    """The MSUs of each size, level by level (suda/uniques inside suda/msus): the names of
    their tables, one per size."""
    positions = [k.pos for k in cells.keys]
    tables: list[str] = []
    for i, size in enumerate(sizes):
        if progress is not None:
            n = math.comb(len(positions), size)
            progress(i, len(sizes), f"MSUs of {size} key(s), {n} subset(s)")
        subsets = [
            {"mask": sum(2**i for i in s), "keys": list(s)}
            for s in itertools.combinations(positions, size)
        ]
        uniques = cells.render("suda/uniques.sql.j2", cells=SUDA_CELLS, subsets=subsets, size=size)
        cells.create(f"{MSUS}_{size}", "suda/msus.sql.j2", uniques=uniques, msus=tables)
        tables = [*tables, f"{MSUS}_{size}"]
    return tables


def _weight(m: int, k: int, original_scores: bool) -> float:
    """The weight of an MSU of k of the m keys."""
    if original_scores:
        return float(math.factorial(m - k))
    return float(2 ** (m - k) - 1) / math.comb(m, k)
