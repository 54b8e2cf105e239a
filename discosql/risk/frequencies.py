"""The original data's key cells as sdcMicro counts them: every record coded once (its input
position, key combination q, weight, household), the cells of one GROUP BY, and each cell's
fk and Fk with missing keys as wildcards (``sql_templates/risk/``). ``risk()`` and
``ldiversity()`` build on these tables; this module owns the checks they share."""

from __future__ import annotations

import contextlib
import math
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ..core.assumptions import GUARD, create_guard
from ..core.dictionaries import (
    build_dictionaries,
    decide_radices,
    key_fits,
    key_radices,
    pack_keys,
)
from ..core.inputs import DataSet, source_ctx
from ..core.output import DATABASE_SUFFIXES, Destination, destination, write_stream
from ..core.plan import Column
from ..core.spec import column_names
from ..engines.base import Engine, Registered, Work
from ..errors import DiscoSQLWarning, InputError
from ..sql.dialects import facts
from ..sql.templates import render

RECORDS = "__disco_risk_records"
WEIGHT_GUARD = "__disco_risk_weights_ok"
CELLS = "__disco_risk_cells"
FREQUENCIES = "__disco_risk_freq"
LEVELS = "__disco_risk_levels"  # the keys' stage 010 dictionaries, stacked
MAX_KEYS = 60  # a cell's pattern of known keys is a BIGINT bit mask
BATCH = 1_000_000  # records per batch streamed to an out= file


def check_keys(keys: Any, problems: list[str]) -> list[str]:
    """The keys argument: a non-empty list of distinct column names, at most MAX_KEYS."""
    names = column_names("keys", keys, problems)
    if len(names) > MAX_KEYS:
        problems.append(f"keys: {len(names)} keys given; at most {MAX_KEYS} are allowed")
    return names


def check_role(arg: str, value: Any, keys: list[str], problems: list[str]) -> str | None:
    """A single optional column (weight, household): a name that is not a key."""
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        problems.append(f"{arg}: expected one column name (str) or None, got {value!r}")
        return None
    if value in keys:
        problems.append(f"{arg}: {value!r} is also one of the keys {keys!r}; it must not be")
    return value


def check_fraction(
    arg: str, value: Any, problems: list[str], *, low_open: bool, high_open: bool
) -> float:
    """A number in [0, 1], with the ends excluded as asked."""
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        v = float(value)
        ok = (v > 0 if low_open else v >= 0) and (v < 1 if high_open else v <= 1)
    if not ok:
        allowed = f"{'(' if low_open else '['}0, 1{')' if high_open else ']'}"
        problems.append(f"{arg}: expected a number in {allowed}, got {value!r}")
        return math.nan
    return float(value)


def check_weights(cells: KeyCells, weight: str) -> None:
    """Weights must be positive finite numbers: NULL, NaN, zero, negative or infinite ones are
    an error that counts them. Read from the coded records (RECORDS, its column w), which hold
    the weight ``weight`` as a DOUBLE: no second read of the data. In an exported script the
    check is a table (WEIGHT_GUARD) whose statement fails with the counts; the cells read it."""
    if cells.exported:
        cells.params["weight_message"] = (
            f"discosql: weight {weight!r}: every weight must be a positive finite number "
            "(drop or impute those records first); found "
        )
        cells.create(WEIGHT_GUARD, "risk/bad_weights.sql.j2", records=RECORDS, stop=True)
        return
    sql = cells.render("risk/bad_weights.sql.j2", records=RECORDS, stop=False)
    row = cells.engine.query(sql, cells.params, "risk/bad_weights", small=True).to_pylist()[0]
    bad = {k: int(v or 0) for k, v in row.items()}
    if any(bad.values()):
        parts = [f"{n} {what}" for what, n in bad.items() if n]
        raise InputError(
            f"weight {weight!r}: {', '.join(parts)} weight(s); every weight must be a positive "
            "finite number (drop or impute those records first)"
        )


def records_destination(out: Any, out_table: Any, overwrite: bool, default: str) -> Destination:
    """Where the per-record table goes: ``out`` (a Parquet or CSV file, or a DuckDB database
    file holding the table ``out_table``, else ``default``), ``out_table`` alone (a table in
    the engine's own database), else back to the caller. Files are checked here, tables by
    ``Destination.check_tables`` once the engine is open; both before any data is read."""
    if out is None and out_table is None:
        return Destination()
    is_database = isinstance(out, str | os.PathLike) and os.fspath(out).lower().endswith(
        DATABASE_SUFFIXES
    )
    if is_database and out_table is None:
        out_table = default
    problems: list[str] = []
    dest = destination(out, out_table, 1, overwrite, problems)
    if problems:
        raise InputError(problems)
    return dest


def destination_check(dest: Destination, overwrite: bool) -> Callable[[Engine], None]:
    """The check of ``dest`` once the engine is open, before any data is read: its tables
    (``Destination.check_tables``), and that the engine keeps a record order, without which a
    per-record table cannot say which record each row is."""

    def check(engine: Engine) -> None:
        if (dest.files or dest.tables) and not engine.record_order:
            raise InputError(
                f"out/out_table: {engine.name} tables keep no record order, so a per-record "
                "table cannot say which record each row is; leave out= and out_table= out "
                "(the measures are complete)"
            )
        dest.check_tables(engine, overwrite=overwrite)

    return check


@dataclass
class KeyCells:
    """The coded keys of one call and the work tables it made on its engine (``work``,
    dropped when :func:`key_cells`'s block ends)."""

    work: Work
    keys: tuple[Column, ...]
    n_words: int
    params: dict[str, Any]
    # the column that identifies each record (id=): carried to every per-record table
    record_id: str | None = None

    @property
    def engine(self) -> Engine:
        return self.work.engine

    @property
    def exported(self) -> bool:
        """A script engine: decisions made ahead are checked where it runs."""
        return self.engine.exporting

    def create(self, name: str, template: str, **context: Any) -> None:
        self.work.create(name, self.render(template, **context), self.params, template)

    def render(self, template: str, **context: Any) -> str:
        return render(
            template,
            self.engine.dialect,
            keys=self.keys,
            n_words=self.n_words,
            record_id=self.record_id,
            **context,
        )


def key_columns(keys: Sequence[str]) -> tuple[Column, ...]:
    """The keys as coded columns, their stage 010 dictionaries stacked in one table."""
    return tuple(
        Column(name=k, alias=f"k_{i}", pos=i, levels=LEVELS, stack=i) for i, k in enumerate(keys)
    )


def key_radices_of(engine: Engine, reg: Registered, keys: Sequence[str]) -> list[int]:
    """Each key's radix in the q packing, from the data (:func:`decide_radices`)."""
    columns = key_columns(keys)

    def build(work: Work) -> Sequence[Column]:
        cells = KeyCells(work, columns, 1, dict(reg.params))
        dictionaries(cells, source_ctx([reg])[0], reg.params)
        return columns

    return decide_radices(engine, build)


def dictionaries(cells: KeyCells, data: DataSet, params: dict[str, Any]) -> None:
    """The keys' stage 010 dictionaries (NA and NaN alone as code 0) in one statement and one
    table (LEVELS): from one grouping-set pass over the data where the engine has grouping
    sets, else one pass per key (stages/010_codes)."""
    cells.work.hold(LEVELS)
    columns = [(c, [data]) for c in cells.keys]
    build_dictionaries(cells.engine, LEVELS, columns, params, na_only_missing=True)


@contextlib.contextmanager
def key_cells(
    engine: Engine,
    reg: Registered,
    keys: list[str],
    *,
    weight: str | None = None,
    household: str | None = None,
    sensitive: Sequence[str] = (),
    radices: Sequence[int] | None = None,
    risks: bool = False,
    record_id: str | None = None,
) -> Iterator[KeyCells]:
    """The coded records (RECORDS) and the key cells (CELLS) of the data set ``reg``; the
    tables are dropped when the block ends. ``radices``: the q packing decided ahead (an
    exported script, which checks where it runs that the keys still fit it: stage 015).
    ``risks``: the cells also carry fk, Fk and the individual risk as if no key were
    missing (risk/cells), which risk() reads on a live engine when none is (an exported
    script always computes the wildcard frequencies, so it never asks). ``record_id``: the
    column that identifies each record, carried (as ``rid``) to the per-record tables."""
    data = source_ctx([reg])[0]
    positioned = DataSet(0, engine.positioned(reg), data.kinds, data.empty)
    columns = key_columns(keys)
    with engine.work(newest_first=True) as work:
        cells = KeyCells(work, columns, 1, dict(reg.params), record_id)
        dictionaries(cells, data, reg.params)
        guard = None
        if engine.exporting and radices:
            checks = [key_fits(c, r) for c, r in zip(columns, radices, strict=True)]
            create_guard(engine, [data], reg.params, checks)
            guard = GUARD
            work.hold(GUARD)
        # first key most significant: risk/riskiest orders cells by their q words
        radices = radices or key_radices(engine, columns)
        packed, n_words, coding = pack_keys(columns, radices, first_major=True)
        cells.keys, cells.n_words = packed, n_words
        cells.params.update(coding)
        cells.create(
            RECORDS,
            "risk/records.sql.j2",
            source=positioned,
            weight=weight,
            household=household,
            sensitive=list(sensitive),
            nan_sensitive=[s for s in sensitive if reg.kinds.get(s) == "float"],
            guard=guard,
        )
        if record_id is not None and not engine.exporting:
            check_record_id(cells, record_id)
        if weight:  # on the coded records, which hold the weight as a DOUBLE (0.01 s, not a
            # second read of the data: 0.6 s at 10M rows)
            check_weights(cells, weight)
        cells.create(
            CELLS,
            "risk/cells.sql.j2",
            records=RECORDS,
            guard=WEIGHT_GUARD if weight and cells.exported else None,
            risks={"weighted": weight is not None} if risks and not engine.exporting else None,
        )
        yield cells


# what a per-record table's row is where the engine keeps no load order (the warning and the
# table's metadata say it)
UNORDERED = (
    "the row numbers are the records' positions in {engine}'s physical order, which need "
    "not be the order they were loaded in (a table's rows have no other)"
)


def check_id(record_id: Any, roles: dict[str, str], outputs: Sequence[str]) -> str | None:
    """The ``id=`` argument: None, or a column name that plays no other role (``roles``) and
    is no column of the per-record table (``outputs``); an InputError otherwise."""
    if record_id is None:
        return None
    if not isinstance(record_id, str) or not record_id:
        raise InputError(f"id: expected a column name, got {record_id!r}")
    if record_id in roles:
        raise InputError(f"id: {record_id!r} is also the {roles[record_id]}; it must not be")
    clash = [o for o in outputs if o.casefold() == record_id.casefold()]
    if clash:
        raise InputError(
            f"id: {record_id!r} is the name of a column of the per-record table "
            f"({', '.join(outputs)}); rename it first"
        )
    return record_id


def check_record_id(cells: KeyCells, record_id: str) -> None:
    """id=: every record has a value, and no two the same (risk/record_ids), or an InputError:
    a per-record row must name one record."""
    template = "risk/record_ids.sql.j2"
    row = cells.engine.query(
        cells.render(template, records=RECORDS), cells.params, template, small=True
    ).to_pylist()[0]
    problems = []
    if row["missing"]:
        problems.append(f"id: {record_id!r} is missing in {row['missing']} records")
    if row["repeated"]:
        problems.append(
            f"id: {record_id!r} is not unique: {row['repeated']} records share their value "
            "with another; give a column that names each record once"
        )
    if problems:
        raise InputError(problems)


def deliver(cells: KeyCells, dest: Destination, sql: str, stage: str) -> pa.Table | None:
    """A per-record query's result: returned, streamed to ``dest``'s file or made as its
    table (complete or absent; None is returned then). An exported script writes its file
    itself (DuckDB's COPY). Not run where ``dest`` discards it, nor where the engine's tables
    keep no record order (a warning says so)."""
    engine, params = cells.engine, cells.params
    if dest.discard:
        return None
    if not engine.record_order:  # a destination was refused before (destination_check)
        warnings.warn(
            DiscoSQLWarning(
                f"{stage}: no per-record table: {engine.name} tables keep no record order, "
                "so a row cannot say which record it is; the measures are complete"
            ),
            stacklevel=2,
        )
        return None
    if dest.files and cells.exported:
        engine.copy_to(sql, params, dest.files[0], stage)
        return None
    # (a script cannot warn: docs/risk.md says it for exported scripts)
    unordered = (
        cells.record_id is None and not facts(engine.dialect).load_order and not cells.exported
    )
    if unordered:
        warnings.warn(
            DiscoSQLWarning(
                f"{stage}: {UNORDERED.format(engine=engine.name)}; give id= (a column that "
                "names each record) to join the rows back"
            ),
            stacklevel=2,
        )
    if dest.tables:
        engine.write_table(dest.tables[0], dest.database, sql, params, stage)
        return None
    with dest.staged() as staged:
        if not staged.files:
            table = engine.query(sql, params, stage)
            if unordered:
                note = UNORDERED.format(engine=engine.name).encode()
                table = table.replace_schema_metadata({b"discosql.row": note})
            return table
        write_stream(engine.stream(sql, params, stage, BATCH), staged.files[0])
        return None


def frequencies(cells: KeyCells, alpha: float) -> str | None:
    """Each cell's fk and Fk with missing keys as wildcards: the table FREQUENCIES
    (risk/frequencies), named; None where no cell has a missing key, which a live engine
    counts first (risk/incomplete): then fk = n and Fk = w, and risk() reads the risks off
    the cells (key_cells' ``risks``: two statements fewer, one of them the costliest to plan
    of a small risk()). An exported script cannot know its data ahead: it always makes the
    table."""
    k = len(cells.keys)
    cells.params.update({"alpha": alpha, "full": 2**k - 1, "one_key": k == 1})
    if not cells.exported:
        sql = cells.render("risk/incomplete.sql.j2", cells=CELLS)
        row = cells.engine.query(sql, cells.params, "risk/incomplete", small=True).to_pylist()
        if not row[0]["n"]:
            return None
    cells.create(FREQUENCIES, "risk/frequencies.sql.j2", cells=CELLS)
    return FREQUENCIES
