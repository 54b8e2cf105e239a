"""What the anonymity tests share: the check of the data sets' columns before any row is
counted, and the control set registered beside them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.dictionaries import build_dictionary, key_radices, pack_keys
from ..core.inputs import Inputs, column_kinds
from ..core.plan import Column, as_text
from ..engines.base import Registered, Work
from ..errors import SchemaError
from ..sql.templates import render

COMBOS_TEMPLATE = "anonymity/matches_combos.sql.j2"


def schema_check(
    names: list[str] | None, more: Callable[[list[str]], list[str]] | None = None
) -> Callable[[list[Registered]], None]:
    """The check of the schemas: every column (``names``, or the original's) in every data
    set with kinds that fit together; the original's own columns may not use the reserved
    prefix; ``more(columns)``: the caller's own problems with the columns."""

    def check(regs: list[Registered]) -> None:
        cols = names or list(regs[0].columns)
        problems = more(cols) if more is not None else []
        reserved = [c for c in cols if c.startswith("__disco_")]
        if names is None and reserved:
            problems.append(
                f"columns: the original's columns {reserved!r} start with '__disco_', which "
                "is reserved; name the columns to use"
            )
        problems += column_kinds(regs, dict.fromkeys(cols, "column"))[1]
        if problems:
            raise SchemaError(problems)

    return check


def register_control(inputs: Inputs, control: Any, names: list[str]) -> Registered:
    """The control set registered on the inputs' engine, its columns checked with the other
    data sets' (the caller adds it to the inputs and checks its size)."""
    engine = inputs.engine

    def check(regs: list[Registered]) -> None:
        problems = column_kinds([*inputs.sources, *regs], dict.fromkeys(names, "column"))[1]
        if problems:
            raise SchemaError(problems)

    return engine.register_all([engine.classify(control, "control")], check)[0]


@dataclass(frozen=True)
class Coded:
    """The columns coded and packed (``core.dictionaries.pack_keys``): the keys (pos, word,
    place) the templates reduce q words with, the number of q words, the parameters."""

    keys: tuple[Column, ...]
    n_words: int
    params: dict[str, Any]


def coded_combinations(work: Work, inputs: Inputs, names: list[str], table: str) -> Coded:
    """Step 1 of the whole-record tests: the work table ``table`` of every data set's distinct
    value combinations on ``names`` (``sql_templates/anonymity/matches_combos.sql.j2``: src,
    q words, k_i codes, n), each column coded by a stage 010 dictionary with NA (and NaN)
    alone as code 0: NULL equals NULL, a text "NA" is a value, 57 and 57.0 are one value."""
    engine = inputs.engine
    sources, params = inputs.data_sets(), inputs.params()
    columns = tuple(
        Column(
            name=c,
            alias=f"k_{i}",
            pos=i,
            levels=f"{table}_levels_{i}",
            as_text=as_text(inputs, c),
        )
        for i, c in enumerate(names)
    )
    for c in columns:
        work.hold(c.levels)
        build_dictionary(engine, sources, c, params, na_only_missing=True)
    packed, n_words, coding = pack_keys(columns, key_radices(engine, columns))
    params = {**params, **coding}
    sql = render(
        COMBOS_TEMPLATE,
        engine.dialect,
        sources=sources,
        targets=[],
        positions=False,
        order=False,
        guard=None,
        keys=packed,
        n_words=n_words,
        combos=table,
    )
    work.create(table, sql, params, COMBOS_TEMPLATE)
    for c in columns:  # the codes are in the combinations now
        work.drop(c.levels)
    return Coded(tuple(packed), n_words, params)
