"""What the anonymity tests share: the check of the data sets' columns before any row is
counted, the control set registered beside them, and the columns coded (stage 010
dictionaries, packed into q words): in an exported script with the q packing decided at export
time and checked where it runs (stage 015)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..core.assumptions import GUARD, create_guard
from ..core.dictionaries import build_for, decide_radices, key_fits, key_radices, pack_keys
from ..core.inputs import Inputs, column_kinds
from ..core.options import Options, option
from ..core.plan import Column, as_text
from ..engines.base import Registered, Work
from ..errors import EngineError, InputError, SchemaError
from ..sql.templates import render

COMBOS_TEMPLATE = "anonymity/matches_combos.sql.j2"
OptionsT = TypeVar("OptionsT", bound=Options)
# the bound of every search round or join whose pairs grow with the square of the records
MAX_PAIRS = 2_000_000_000


def max_pairs_option(what: str) -> Any:
    """The ``max_pairs`` option, declared here once for every test that bounds its pairs:
    refuse ``what`` (e.g. "a search round") past this many pairs."""
    return option(
        MAX_PAIRS, f"refuse {what} that needs more pairs than this", kind="int", metavar="N"
    )


def categorical_option(what: str) -> Any:
    """The ``categorical`` option: ``what`` (numeric columns) compared as categories."""
    return option(
        None,
        f"{what} compared as categories (codes), comma-separated",
        kind="list",
        metavar="A,B,...",
    )


def max_pairs_problems(value: Any) -> list[str]:
    """The problem of a ``max_pairs`` that is not a positive integer, if any."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return [f"max_pairs: a positive integer, got {value!r}"]
    return []


def options_for(
    options: type[OptionsT], synthetic: Any, *, many: bool = False, **given: Any
) -> OptionsT:
    """The test's options built from ``given`` (their ``__post_init__`` checks them), with
    the problem of a list of syntheses where the test takes one (``many``: it takes m): every
    problem at once, before any data is read."""
    problems: list[str] = []
    if not many and isinstance(synthetic, list | tuple):
        problems.append(
            f"synthetic: give one data set, got a {type(synthetic).__name__} of "
            f"{len(synthetic)}; call once per synthesis"
        )
    try:
        built = options(**given)
    except InputError as e:
        raise InputError([*problems, *e.problems]) from None
    if problems:
        raise InputError(problems)
    return built


def reserved_names(where: str, names: list[str] | None, problems: list[str]) -> None:
    """The problem of column names with discosql's reserved prefix."""
    reserved = [c for c in names or [] if c.startswith("__disco_")]
    if reserved:
        problems.append(f"{where}: names starting with '__disco_' are reserved: {reserved!r}")


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
    data sets' (the caller adds it to the inputs and checks its size); one registered already
    (the report's) is checked and used as it is."""
    engine = inputs.engine

    def check(regs: list[Registered]) -> None:
        problems = column_kinds([*inputs.sources, *regs], dict.fromkeys(names, "column"))[1]
        if problems:
            raise SchemaError(problems)

    if isinstance(control, Registered):
        check([control])
        return control
    return engine.register_all([engine.classify(control, "control")], check)[0]


@dataclass(frozen=True)
class Coded:
    """The columns coded and packed (``core.dictionaries.pack_keys``): the keys (pos, word,
    place) the templates reduce q words with, the number of q words, the parameters, each
    column's radix."""

    keys: tuple[Column, ...]
    n_words: int
    params: dict[str, Any]
    radices: tuple[int, ...]


def coded_columns(inputs: Inputs, names: list[str], prefix: str, alias: str) -> list[Column]:
    """The columns ``names`` as coded columns (``alias`` + position), each with its stage 010
    dictionary's table (``prefix`` + ``_levels_`` + position)."""
    return [
        Column(
            name=c,
            alias=f"{alias}{i}",
            pos=i,
            levels=f"{prefix}_levels_{i}",
            as_text=as_text(inputs, c),
        )
        for i, c in enumerate(names)
    ]


def dictionaries(
    work: Work, inputs: Inputs, names: list[str], prefix: str, alias: str
) -> list[Column]:
    """The columns ``names`` coded (:func:`coded_columns`), each with its stage 010
    dictionary, NA (and NaN) alone as code 0: NULL equals NULL, a text "NA" is a value, 57
    and 57.0 are one value. On small data the dictionaries are stacked in one table
    (``prefix`` + ``_levels_all``: core.dictionaries.build_for)."""
    sources, params = inputs.data_sets(), inputs.params()
    columns = coded_columns(inputs, names, prefix, alias)
    built = build_for(work, columns, sources, params, f"{prefix}_levels_all", na_only_missing=True)
    return list(built)


def column_radices(inputs: Inputs, names: list[str]) -> list[int]:
    """Each column's radix (largest code + 1) in the data, read at export time
    (:func:`~discosql.core.dictionaries.decide_radices`): the script packs its codes with them
    and checks where it runs that they still fit (:func:`radices_of`)."""
    return decide_radices(
        inputs.engine, lambda work: dictionaries(work, inputs, names, "__disco_an", "k_")
    )


def radices_of(
    work: Work, inputs: Inputs, columns: list[Column], radices: list[int] | None
) -> tuple[list[int], str | None]:
    """The radices the codes are packed with and the stage 015 guard the coded records read:
    on an engine, the dictionaries' own (no guard); in an exported script the ones decided at
    export time, with the guard that stops the script when a column has more levels."""
    engine = inputs.engine
    if not engine.exporting:
        return key_radices(engine, columns), None
    if not radices:  # the caller forgot the export-time decision
        raise EngineError("an exported script needs the radices decided at export time")
    checks = [key_fits(c, r) for c, r in zip(columns, radices, strict=True)]
    create_guard(engine, inputs.data_sets(), inputs.params(), checks)
    work.hold(GUARD)
    return radices, GUARD


def coded_combinations(
    work: Work, inputs: Inputs, names: list[str], table: str, radices: list[int] | None = None
) -> Coded:
    """Step 1 of the whole-record tests: the work table ``table`` of every data set's distinct
    value combinations on ``names`` (``sql_templates/anonymity/matches_combos.sql.j2``: src,
    q words, k_i codes, n), each column coded by a stage 010 dictionary with NA (and NaN)
    alone as code 0: NULL equals NULL, a text "NA" is a value, 57 and 57.0 are one value.
    ``radices``: an exported script's, decided at export time (:func:`column_radices`)."""
    engine = inputs.engine
    sources, params = inputs.data_sets(), inputs.params()
    columns = dictionaries(work, inputs, names, table, "k_")
    radices, guard = radices_of(work, inputs, columns, radices)
    packed, n_words, coding = pack_keys(columns, radices)
    params = {**params, **coding}
    sql = render(
        COMBOS_TEMPLATE,
        engine.dialect,
        sources=sources,
        targets=[],
        positions=False,
        order=False,
        guard=guard,
        keys=packed,
        n_words=n_words,
        combos=table,
    )
    work.create(table, sql, params, COMBOS_TEMPLATE)
    for name in dict.fromkeys(c.levels for c in columns):  # the codes are in the combinations now
        work.drop(name)
    return Coded(tuple(packed), n_words, params, tuple(radices))
