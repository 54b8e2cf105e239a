"""synthpop's ``replicated.uniques()``: records unique in the original and in each synthesis over
a set of keys, counted in SQL on the integer codes of the shared stages (010 dictionaries, 020
records), with NA one category of its own in every key (synthpop's intent; README)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa

from ..core.assumptions import GUARD, create_guard
from ..core.dictionaries import build_for, key_fits, key_radices, pack_keys
from ..core.inputs import DataSet, Inputs, column_kinds, named_columns, open_inputs
from ..core.plan import Coding, Column, as_text
from ..core.results import AsData, json_rows
from ..core.spec import column_names
from ..engines.base import Engine, Work
from ..errors import DiscoSQLWarning, InputError, SchemaError, did_you_mean
from ..sql.templates import render

CELLS = "__disco_ucells"

# The synthpop releases whose replicated.uniques() tables differ: rows 3-4 ("Synthetic uniques
# in original", "Replicated uniques") are of the synthesis's k records up to 1.9-2 (CRAN) and of
# the original's n records from 1.9-3 (GitHub: R/IO.r L59 and L77, "changed sept 2025").
SYNTHPOP_RELEASES = ("1.9-2", "1.9-3")
SYNTHPOP_DEFAULT = "1.9-2"  # the release on CRAN, until CRAN has 1.9-3

FLAGS_SCHEMA = pa.schema(
    [
        ("synthesis", pa.int32()),
        ("row", pa.int64()),
        ("replicated_unique", pa.bool_()),
        ("unique_in_original", pa.bool_()),
    ]
)
RU_SCHEMA = pa.schema(
    [
        ("synthesis", pa.int32()),
        ("measure", pa.string()),
        ("number", pa.int64()),
        ("from_total", pa.int64()),
        ("pct", pa.float64()),
    ]
)


@dataclass(frozen=True)
class ReplicatedUniques(AsData):
    """synthpop's ``res_tab`` for every synthesis, in long form.

    ``table`` columns: synthesis, measure, number, from_total, pct; per synthesis the rows
    Original (uniques of the original; from_total n), Synthetic (uniques of the synthesis;
    from_total its k rows), Synthetic uniques in original (unique in the synthesis, present in
    the original), Replicated uniques (unique in both); these two have from_total k with
    ``synthpop`` "1.9-2" and n with "1.9-3"; pct = number / from_total * 100, unrounded.

    ``flags`` columns: synthesis, row (1-based position in that synthetic input), replicated_unique
    (synthpop's repU.rm), unique_in_original (synU.rm): one row per synthetic record unique in
    its synthesis and present in the original (only those: big data stay in the engine), sorted
    by synthesis and row.
    """

    table: pa.Table
    flags: pa.Table | None  # None where the engine's tables keep no record order
    keys: tuple[str, ...]
    synthpop: str = SYNTHPOP_DEFAULT  # the release whose denominators rows 3-4 take

    def html_parts(self) -> tuple[str, list[tuple[str, pa.Table]], list[str]]:
        title = f"replicated_uniques(): keys {', '.join(self.keys)}"
        flagged = (
            f"{self.flags.num_rows} flagged synthetic records"
            if self.flags is not None
            else "no per-record flags: the engine's tables keep no record order"
        )
        return title, [("", self.table)], [denominators(self.synthpop), flagged]

    def to_dict(self) -> dict[str, Any]:
        """keys, synthpop (the release followed), ``table`` and ``flags`` rows as plain data
        (NaN is None)."""
        return {
            "keys": list(self.keys),
            "synthpop": self.synthpop,
            "table": json_rows(self.table),
            "flags": None if self.flags is None else json_rows(self.flags),
        }


def replicated_uniques(
    original: Any,
    synthetic: Any,
    keys: str | Sequence[str] | None = None,
    *,
    synthpop: str = SYNTHPOP_DEFAULT,
    engine: Any = None,
    threads: int | None = None,
) -> ReplicatedUniques:
    """Uniques of the original and each synthesis over ``keys`` (synthpop's
    ``replicated.uniques``; default keys: every column of the original).

    A record is unique when no other record of its data set has the same values in every key.
    Keys compare by value: NA (and NaN) is one category distinct from any text ("NA",
    "Missing"), 57 and 57.0 are one value, and one key behaves like several.

    ``synthpop``: the release whose denominators the table takes. "1.9-2" (CRAN, the default)
    divides "Synthetic uniques in original" and "Replicated uniques" by the synthesis's k
    records, "1.9-3" by the original's n records (then "Replicated uniques" is disclosure()'s
    repU). The counts are the same; the percentages differ only when k != n.
    """
    problems: list[str] = []
    names = None if keys is None else column_names("keys", keys, problems)
    release = check_synthpop(synthpop, problems)
    if problems:
        raise InputError(problems)
    named = named_columns(dict.fromkeys(names or [], "key"))
    with open_inputs(engine, threads, original, synthetic, check=named) as inputs:
        if names is None:
            names = list(inputs.sources[0].columns)
        _, problems = column_kinds(inputs.sources, dict.fromkeys(names, "key"))
        if problems:
            raise SchemaError(problems)
        table, flags = _count(inputs, names, release)
    return ReplicatedUniques(table, flags, tuple(names), release)


def check_synthpop(value: Any, problems: list[str]) -> str:
    """``synthpop=`` checked before any data is read: a problem is added to ``problems``
    (and the default returned) unless it names a release of :data:`SYNTHPOP_RELEASES`."""
    if isinstance(value, str) and value in SYNTHPOP_RELEASES:
        return value
    hint = did_you_mean(value, SYNTHPOP_RELEASES) if isinstance(value, str) else ""
    problems.append(
        "synthpop: expected the release whose replicated.uniques() denominators to follow, "
        f"one of {', '.join(map(repr, SYNTHPOP_RELEASES))}, got {value!r}{hint}"
    )
    return SYNTHPOP_DEFAULT


def denominators(synthpop: str) -> str:
    """What rows 3-4 of replicated.uniques() are divided by in the release ``synthpop``."""
    of = "the synthesis's k records" if synthpop == "1.9-2" else "the original's n records"
    return (
        f"synthpop {synthpop}: synthetic uniques in original and replicated uniques are % of {of}"
    )


def _count(inputs: Inputs, names: list[str], synthpop: str) -> tuple[pa.Table, pa.Table | None]:
    sources = inputs.data_sets()
    positioned = [sources[0]] + [
        replace(s, sql=inputs.engine.positioned(reg))
        for s, reg in zip(sources[1:], inputs.sources[1:], strict=True)
    ]
    text = {k: as_text(inputs, k) for k in names}
    engine = inputs.engine
    return count_uniques(engine, sources, positioned, inputs.params(), names, text, synthpop)


def unique_cells(
    work: Work,
    sources: list[DataSet],
    params: dict[str, Any],
    names: list[str],
    text: dict[str, bool],
    prefix: str = "__disco_levels_",
    radices: list[int] | None = None,
) -> Coding:
    """The uniques/cells table CELLS (records per data set and key combination q) over
    ``sources`` (original first), and the coding behind it, both held by ``work`` (the caller
    releases what it keeps). ``prefix`` names the dictionaries; ``radices``: the q packing decided
    ahead (an exported script, which checks it where it runs), else from the dictionaries.
    ``text``: match a key's raw values by their text (its types differ between data sets)."""
    keys = tuple(
        Column(name=k, alias=f"k_{i}", pos=i, levels=f"{prefix}k{i}", as_text=text[k])
        for i, k in enumerate(names)
    )
    engine = work.engine
    keys = build_for(work, keys, sources, params, f"{prefix}all", na_only_missing=True)
    guard = None
    if engine.exporting and radices:
        checks = [key_fits(k, r) for k, r in zip(keys, radices, strict=True)]
        work.hold(GUARD)
        create_guard(engine, sources, params, checks)
        guard = GUARD
    radices = radices or key_radices(engine, keys)
    packed, n_words, coding = pack_keys(keys, radices)
    ctx: dict[str, Any] = {"keys": packed, "targets": [], "n_words": n_words}
    template = "uniques/cells.sql.j2"
    sql = render(
        template, engine.dialect, sources=sources, positions=False, order=False, guard=guard, **ctx
    )
    work.create(CELLS, sql, {**params, **coding}, template)
    if guard is not None:
        work.drop(GUARD)
    made = tuple(dict.fromkeys(k.levels for k in keys))
    return Coding(packed, n_words, coding, made, radices=tuple(radices))


def count_uniques(
    engine: Engine,
    sources: list[DataSet],
    positioned: list[DataSet],
    params: dict[str, Any],
    names: list[str],
    text: dict[str, bool],
    synthpop: str = SYNTHPOP_DEFAULT,
) -> tuple[pa.Table, pa.Table | None]:
    """The res_tab (rows 3-4 with ``synthpop``'s denominators) and the flags over ``sources``
    (original first); ``positioned`` are the same data sets whose relations also carry
    ``__disco_pos`` (the syntheses'). No flags (None, with a warning) where the engine's tables
    keep no record order: a row could not say which record it flags."""
    with engine.work() as work:
        coding = unique_cells(work, sources, params, names, text)
        params = {**params, **coding.params}
        ctx: dict[str, Any] = {
            "keys": coding.keys,
            "targets": [],
            "n_words": coding.n_words,
            "order": False,
            "guard": None,
            "cells": CELLS,
        }
        template = "uniques/replicated.sql.j2"
        syntheses = list(range(1, len(sources)))
        sql = render(template, engine.dialect, syntheses=syntheses, synthpop=synthpop, **ctx)
        table = engine.query(sql, params, template, schema=RU_SCHEMA)
        template = "uniques/flags.sql.j2"
        if not engine.record_order:
            warnings.warn(
                DiscoSQLWarning(
                    f"{template}: no per-record flags: {engine.name} tables keep no record "
                    "order, so a row cannot say which record it is; the table is complete"
                ),
                stacklevel=2,
            )
            return table, None
        sql = render(template, engine.dialect, sources=positioned, positions=True, **ctx)
        return table, engine.query(sql, params, template, schema=FLAGS_SCHEMA)
