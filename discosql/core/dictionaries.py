"""Stage 010's level dictionaries and what they decide: each column's radix (largest code + 1),
the packing of the keys into BIGINT q words, and the integer type of a target's codes.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..engines.base import Engine, Work
from ..errors import DiscoSQLWarning
from ..sql.dialects import facts
from ..sql.templates import render
from .assumptions import Fits
from .inputs import DataSet
from .plan import Column

WORD_LIMIT = 2**62  # q words stay below this: sums of code * place value never overflow BIGINT
# the most columns one grouping-set pass of stage 010 takes: Spark refuses grouping sets over
# more than 64 columns (GROUPING_SIZE_LIMIT_EXCEEDED); more are grouped one by one
GROUPING_COLUMNS = 64
# the most values one row of collect_set arrays may hold (records x columns of a data set):
# the row is built in one task, so this bounds its memory whatever the columns' levels
COLLECT_VALUES = 2**22
# kinds whose values collect_set tells apart exactly as GROUP BY does (not floats, whose NaN
# and -0.0 GROUP BY normalises; text only in binary collation: see collected)
COLLECT_KINDS = ("integer", "boolean", "text")


def pack_keys(
    keys: Sequence[Column], radices: Sequence[int], tag: str = "k", first_major: bool = False
) -> tuple[tuple[Column, ...], int, dict[str, int]]:
    """Pack the keys into BIGINT q words, in key order, each word's product of radices below
    WORD_LIMIT (exact: no code * place value sum can overflow). Returns the keys with their
    word and the names of their place value and radix parameters ({tag}mul_i, {tag}rad_i),
    the number of words, and the parameters. ``first_major``: within a word the first key
    has the largest place value (not the smallest), so that ordering by the q words is
    ordering by the keys' codes in key order (risk/riskiest's tie order)."""
    words: list[list[tuple[Column, int]]] = [[]]
    product = 1
    for k, r in zip(keys, radices, strict=True):
        if product * r >= WORD_LIMIT and product > 1:
            words.append([])
            product = 1
        words[-1].append((k, r))
        product *= r
    places: dict[int, tuple[int, int]] = {}  # a key's pos: its word and place value
    for word, members in enumerate(words):
        place = 1
        for k, r in reversed(members) if first_major else members:
            places[k.pos] = (word, place)
            place *= r
    params: dict[str, int] = {}
    packed = []
    for k, r in zip(keys, radices, strict=True):
        word, place = places[k.pos]
        mul, rad = f"{tag}mul_{k.pos}", f"{tag}rad_{k.pos}"
        packed.append(replace(k, word=word, place=mul, radix=rad))
        params[mul] = place
        params[rad] = r
    return tuple(packed), len(words), params


def build_dictionary(
    engine: Engine,
    sources: list[DataSet],
    column: Column,
    params: dict[str, Any],
    na_only_missing: bool = False,
) -> None:
    """Stage 010: the level dictionary of one column, from the data sets where it has values.
    ``na_only_missing``: only NA and NaN get code 0, a text 'Missing' is a value of its own
    (replicated uniques compare values; disclosure() follows synthpop's factor levels)."""
    entries = [{"column": column, "sources": _with_values(sources, column)}]
    template = "stages/010_codes.sql.j2"
    sql = render(
        template,
        engine.dialect,
        entries=entries,
        stacked=False,
        branches=None,
        na_only_missing=na_only_missing,
    )
    engine.create_table(column.levels, sql, params, template)


def build_dictionaries(
    engine: Engine,
    name: str,
    columns: Sequence[tuple[Column, list[DataSet]]],
    params: dict[str, Any],
    na_only_missing: bool = False,
) -> tuple[Column, ...]:
    """Stage 010 for several columns in one statement: their dictionaries stacked in the
    table ``name``, each column from its data sets (those where it has no values are left
    out). Returns the columns with ``levels`` = ``name`` and ``stack``, their number there.
    Where the engine's GROUPING SETS are one pass (``Dialect.grouping_sets``) and each column
    has one type in all its data sets, the data sets are stacked and every column's values
    found in one pass (:func:`_branches`)."""
    stacked = tuple(replace(c, levels=name, stack=i) for i, (c, _) in enumerate(columns))
    entries = [
        {"column": c, "sources": _with_values(sources, c)}
        for c, (_, sources) in zip(stacked, columns, strict=True)
    ]
    sets = collected(engine, entries)  # marks each entry's collect, which the template reads
    template = "stages/010_codes.sql.j2"
    sql = render(
        template,
        engine.dialect,
        entries=entries,
        stacked=True,
        branches=_branches(engine, entries),
        collected=sets,
        na_only_missing=na_only_missing,
        typed_first=not facts(engine.dialect).union_widens,
    )
    engine.create_table(name, sql, params, template)
    return stacked


def _branches(engine: Engine, entries: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The data sets stacked for stage 010's one grouping-set pass: each with the entries'
    column names (None where a column has no values there). None where the engine has no
    one-pass GROUPING SETS, there are more than GROUPING_COLUMNS columns, or a column's types differ
    between data sets (as_text: each data set's values are then named by its own type,
    before they are stacked)."""
    if not facts(engine.dialect).grouping_sets or len(entries) > GROUPING_COLUMNS:
        return None
    columns: list[Column] = [e["column"] for e in entries]
    if any(c.as_text for c in columns):
        return None
    read: dict[str, set[str]] = {}  # a data set (what to read) -> the columns with values there
    for c, e in zip(columns, entries, strict=True):
        if len({s.kinds[c.name] for s in e["sources"]}) > 1:
            return None
        for s in e["sources"]:
            read.setdefault(s.sql, set()).add(c.name)
    if not read:
        return None
    return [
        {"sql": sql, "columns": [c.name if c.name in names else None for c in columns]}
        for sql, names in read.items()
    ]


def collected(engine: Engine, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The collect_set aggregations of a stacked stage 010 (``Dialect.collect_set``: Spark):
    each ``{name, sql, columns: [(entry number, column name)]}`` finds the distinct values
    of those columns of one data set in one pass, where a grouping per column would be a job
    each; each entry's ``collect`` maps a data set's src to the aggregation holding its
    values there (empty: grouped as elsewhere). A column is collected where it has one type
    in all its data sets (not as_text) and that type is exact under collect_set: an integer,
    a boolean, or text in binary collation (Spark refuses collect_set of a collated string,
    whose GROUP BY groups values that its bytes tell apart, e.g. 'a' and 'A' in UTF8_LCASE;
    floats' NaN and -0.0 GROUP BY normalises). A row of arrays holds at most COLLECT_VALUES
    values, so a data set's columns are split over several aggregations, and one with more
    records is grouped as elsewhere."""
    for e in entries:
        e["collect"] = {}
    if not facts(engine.dialect).collect_set:
        return []
    per_source: dict[int, tuple[DataSet, list[tuple[int, str]]]] = {}
    for i, e in enumerate(entries):
        column: Column = e["column"]
        sources: list[DataSet] = e["sources"]
        if column.as_text or not sources or not all(_collectable(s, column.name) for s in sources):
            continue
        for s in sources:
            per_source.setdefault(s.src, (s, []))[1].append((i, column.name))
    sets = []
    for src, (source, columns) in per_source.items():
        width = COLLECT_VALUES // source.rows
        for start in range(0, len(columns), width):
            name = f"__disco_set_{src}_{start // width}"
            part = columns[start : start + width]
            sets.append({"name": name, "sql": source.sql, "columns": part})
            for i, _ in part:
                entries[i]["collect"][src] = name
    return sets


def _collectable(source: DataSet, name: str) -> bool:
    kind, native = source.kinds[name], source.types.get(name, "").lower()
    binary = kind != "text" or (native != "" and "collate" not in native)
    return kind in COLLECT_KINDS and binary and 0 < source.rows <= COLLECT_VALUES


def build_for(
    work: Work,
    columns: Sequence[Column],
    sources: list[DataSet],
    params: dict[str, Any],
    name: str,
    na_only_missing: bool = False,
) -> tuple[Column, ...]:
    """Stage 010 for ``columns`` over the same data sets, the tables held by ``work``: on a
    small input (records x columns within the engine's ``stack_budget``, on a live engine)
    in one statement, stacked in the table ``name``; else a table per column (each its own
    ``levels``): a stacked statement holds every column's grouping of every data set at
    once, and an exported script runs on data of any size. Returns the columns as built."""
    engine = work.engine
    if stacks(engine, sources, len(columns)):
        work.hold(name)
        entries = [(c, sources) for c in columns]
        return build_dictionaries(engine, name, entries, params, na_only_missing)
    for c in columns:
        work.hold(c.levels)
        build_dictionary(engine, sources, c, params, na_only_missing)
    return tuple(columns)


def stacks(engine: Engine, sources: Sequence[DataSet], n_columns: int) -> bool:
    """Whether stage 010 stacks ``n_columns`` columns' dictionaries over ``sources`` in one
    statement: on a live engine, where records x columns are within its ``stack_budget``
    (above it a statement's fixed cost no longer matters, and the stacked statement holds
    every column's grouping of every data set at once)."""
    records = sum(s.rows for s in sources)
    return not engine.exporting and records * n_columns <= engine.stack_budget


def _with_values(sources: list[DataSet], column: Column) -> list[DataSet]:
    return [s for s in sources if not s.empty and s.kinds[column.name] != "null"]


def dictionary_facts(engine: Engine, columns: Sequence[Column]) -> tuple[list[int], set[str]]:
    """What stage 010's dictionaries tell, in one query (inspect/radices): each column's radix
    (largest code + 1) and the names of the columns with the level '' (an empty string)."""
    sql = render("inspect/radices.sql.j2", engine.dialect, columns=columns)
    rows = {
        int(r["i"]): r for r in engine.query(sql, {}, "inspect/radices", small=True).to_pylist()
    }
    radices = [int(rows[i]["r"] or 1) for i in range(len(columns))]
    return radices, {c.name for i, c in enumerate(columns) if rows[i]["n_empty"]}


def decide_radices(engine: Engine, build: Callable[[Work], Sequence[Column]]) -> list[int]:
    """The export-time decision of every family: each column's radix (largest code + 1) in
    the q packing, from the stage 010 dictionaries that ``build`` makes in a work scope of
    ``engine`` (dropped after). An exported script packs its codes with them and checks where
    it runs (stage 015) that its data still fit."""
    with engine.work() as work:
        return key_radices(engine, build(work))


def key_radices(engine: Engine, columns: Sequence[Column]) -> list[int]:
    """Each column's radix (largest code + 1) from its stage 010 dictionary."""
    return dictionary_facts(engine, columns)[0]


def warn_empty_text(
    engine: Engine,
    sources: list[DataSet],
    columns: list[Column],
    params: dict[str, Any],
    empty: set[str],
) -> None:
    """Warn when a text key or target has empty strings but no missing value: '' is then a
    level of its own, which is right only if the data mean it (inspect/empty_text).
    ``empty``: the columns whose dictionary has the level '' (:func:`dictionary_facts`)."""
    text = [
        c for c in columns if c.name in empty and any(s.kinds[c.name] == "text" for s in sources)
    ]
    with_empty = list({c.name: c for c in text}.values())  # a target may also be a key
    if not with_empty:
        return
    template = "inspect/empty_text.sql.j2"
    sql = render(template, engine.dialect, columns=with_empty, sources=sources)
    row = engine.query(sql, params, template, small=True)
    for i, c in enumerate(with_empty):
        if not row.column(f"missing_{i}")[0].as_py():
            warnings.warn(
                f"column {c.name!r}: has empty strings ('') and no missing values in the "
                "original and synthetic data, so '' is a level here, not 'Missing'. If they "
                "mean missing (converting CSV to Parquet can write missing text as ''), make "
                "them NULL first.",
                DiscoSQLWarning,
                stacklevel=4,
            )


def warn_unknown_targets(targets: Sequence[Column], radices: Sequence[int]) -> None:
    """Warn for a target with no known value in the original or the syntheses (its dictionary
    holds no level but 'Missing', code 0): its measures are then those of one level, which
    ranks it riskiest in a summary although an intruder learns nothing from it."""
    for target, radix in zip(targets, radices, strict=True):
        if radix <= 1:
            warnings.warn(
                f"target {target.name!r}: every value is missing in the original and the "
                "synthetic data, so 'Missing' is its only level and its measures (Dorig, "
                "DiSCO, TCAP 100) say nothing an intruder could learn; leave it out of the "
                "targets",
                DiscoSQLWarning,
                stacklevel=5,
            )


CODE_CAPACITY = {"smallint": 2**15, "integer": 2**31}


def key_fits(key: Column, radix: int) -> Fits:
    """The guard's check that a key's codes still fit the radix its q packing was fixed for."""
    about = f"key {key.name!r} has more than the {radix - 1} levels the q packing was fixed for"
    return Fits(key.levels, radix, about, key.stack)


def code_type(radix: int) -> str:
    """The narrowest portable integer type for codes below ``radix`` (the shared records of a
    summary are as wide as their columns: at 100M rows this decides how much DuckDB spills)."""
    if radix <= 2**15:
        return "smallint"
    return "integer" if radix <= 2**31 else "bigint"
