"""Inputs: the original and the syntheses registered on one engine, and the checks of their
schemas (every named column exists everywhere, with kinds that fit together; no empty original).

Column kinds come from the engine's own type names, read by sqlglot
(:func:`discosql.sql.types.column_kind`, kept on each registered data set as ``kinds``):
integer, float, text, boolean, other (dates, times), or null (a column with no values).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..engines import open_engine
from ..engines.base import Engine, Registered, Source
from ..engines.names import column_of
from ..errors import DiscoSQLWarning, InputError, SchemaError, did_you_mean
from . import grouping as grp
from .assumptions import Assumption
from .spec import DisclosureSpec

# What may be compared across data sets: a key that is text in one and numeric in the other is an
# error, an int in one and a double in the other is fine.
FAMILY = {
    "integer": "number",
    "float": "number",
    "text": "text",
    "boolean": "boolean",
    "other": "other",
}


@dataclass
class Inputs:
    """Registered original (src 0) and syntheses (src 1..m) on one engine."""

    engine: Engine
    sources: list[Registered]
    # numeric groupings decided on these inputs (a summary shares them between targets), with
    # the queries they were computed from
    groupings: dict[
        tuple[str, int, tuple[float, ...]], tuple[grp.Grouping, tuple[Assumption, ...]]
    ] = field(default_factory=dict)

    @property
    def m(self) -> int:
        return len(self.sources) - 1

    def data_sets(self) -> list[DataSet]:
        """The data sets as the templates see them."""
        return source_ctx(self.sources)

    def params(self) -> dict[str, Any]:
        """The bound parameters that reading the data sets needs (file paths)."""
        params: dict[str, Any] = {}
        for reg in self.sources:
            params.update(reg.params)
        return params


ONE_INPUT = object()  # open_inputs() without syntheses: the risk family reads one data set


@contextlib.contextmanager
def open_inputs(
    engine: Any,
    threads: Any,
    original: Any,
    synthetic: Any = ONE_INPUT,
    *,
    prepare: Callable[[Engine], None] | None = None,
    check: Callable[[list[Registered]], None] | None = None,
) -> Iterator[Inputs]:
    """How every capability starts a run: the engine opened, ``prepare`` called with it
    (checks that need the engine but no data: an output table that must not exist), the
    original and the syntheses registered, or the one data set of the risk family (labelled
    "input"); the engine and its work tables go when the block ends. The capability then
    works on the inputs with its ``*_on`` function, which the report calls with the inputs it
    already read. ``check``: called with the registrations once their schemas are read, before
    any row is counted (arguments that name columns)."""
    with open_engine(engine, threads=threads) as eng:
        if prepare is not None:
            prepare(eng)
        if synthetic is ONE_INPUT:
            yield Inputs(eng, eng.register_all([eng.classify(original, "input")], check))
        else:
            yield register_inputs(eng, original, synthetic, check)


def named_columns(
    roles: dict[str, str], numeric: Sequence[str] = ()
) -> Callable[[list[Registered]], None]:
    """A ``check`` for :func:`open_inputs`: every column the arguments name (``roles``: column ->
    its role, "key", "target", ...) is in every data set with a usable type, and the
    ``numeric`` ones are numbers, from the schemas alone: a misspelled column fails before
    any row is counted. (Kinds that clash between data sets are checked once the rows are
    counted: an empty data set's types may be unusable.)"""

    def check(regs: list[Registered]) -> None:
        check_columns(regs, roles, numeric)

    return check


def check_columns(
    sources: Sequence[Registered],
    roles: dict[str, str],
    numeric: Sequence[str] = (),
    more: Callable[[dict[str, str]], list[str]] | None = None,
) -> dict[str, str]:
    """The one check of the columns an argument names: every column of ``roles`` (column ->
    its role, "key", "target", ...) is in every data set with kinds that fit together
    (:func:`column_kinds`), the ``numeric`` ones hold numbers in every data set, and ``more``
    (a family's own rules on the kinds: what may be grouped, recoded, binned) finds no
    problem; one SchemaError lists them all. Returns column -> kind."""
    kinds, problems = column_kinds(sources, roles)
    for col in numeric:
        for reg in sources:
            if col in reg.kinds and reg.kinds[col] not in ("integer", "float"):
                problems.append(
                    f"{roles[col]} {col!r} in the {reg.source.label} data has type "
                    f"{reg.columns[col]}; a {roles[col]} must be numeric"
                )
    if more is not None:
        problems += more(kinds)
    if problems:
        raise SchemaError(problems)
    return kinds


def register_inputs(
    engine: Engine,
    original: Any,
    synthetic: Any,
    check: Callable[[list[Registered]], None] | None = None,
) -> Inputs:
    """Classify and register the original and each synthesis; empty original is an error."""
    if isinstance(synthetic, list | tuple):
        syns = list(synthetic)
        if not syns:
            raise InputError(
                "synthetic: the list of synthetic data sets is empty; give at least one"
            )
    else:
        syns = [synthetic]
    sources = [engine.classify(original, "original"), *_classified(engine, syns)]
    registered = engine.register_all(sources, check)
    if registered[0].n_rows == 0:
        raise InputError("original: the data set has no rows; nothing can be measured")
    _warn_empty(registered[1:])
    return Inputs(engine, registered)


def with_syntheses(inputs: Inputs, synthetic: Sequence[Any]) -> Inputs:
    """The original of ``inputs`` with other syntheses (sdc's protected data), registered on
    the same engine: the original is not read again."""
    registered = inputs.engine.register_all(_classified(inputs.engine, list(synthetic)))
    _warn_empty(registered)
    return Inputs(inputs.engine, [inputs.sources[0], *registered])


def _classified(engine: Engine, syns: list[Any]) -> list[Source]:
    return [
        s
        if isinstance(s, Source)  # already classified (sdc's protected work tables)
        else engine.classify(s, f"synthetic {i}" if len(syns) > 1 else "synthetic")
        for i, s in enumerate(syns, start=1)
    ]


def _warn_empty(registered: Sequence[Registered]) -> None:
    for reg in registered:
        if reg.n_rows == 0:
            warnings.warn(
                f"{reg.source.label}: the data set has no rows; measures divided by its size "
                "(UiS, Dsyn, CAPs) are NaN",
                DiscoSQLWarning,
                stacklevel=4,
            )


def column_kinds(
    sources: Sequence[Registered], roles: dict[str, str]
) -> tuple[dict[str, str], list[str]]:
    """Every column of ``roles`` ({column: "key"/"target"/...}) exists in every data set with
    kinds that fit together; returns column -> kind and the problems found. A name is
    resolved as the engine resolves an unquoted one (:func:`resolve_column`)."""
    problems: list[str] = []
    kinds: dict[str, str] = {}
    for col, role in roles.items():
        seen: list[tuple[str, str, str]] = []  # (label, engine type, kind)
        for reg in sources:
            if problem := resolve_column(reg, col):
                problems.append(f"{role} {col!r}: {problem}")
                continue
            if col not in reg.columns:
                problems.append(
                    f"{role} {col!r}: not a column of the {reg.source.label} data"
                    f"{did_you_mean(col, list(reg.columns))}{_list_hint(col, reg.columns)}; "
                    f"columns are {list(reg.columns)!r}"
                )
                continue
            kind = reg.kinds[col]
            if kind is None:
                problems.append(
                    f"{role} {col!r} in the {reg.source.label} data has type "
                    f"{reg.columns[col]}, which cannot be a level; allowed: text, numbers, "
                    "booleans, dates and times"
                )
                continue
            if reg.n_rows > 0 and kind != "null":
                seen.append((reg.source.label, reg.columns[col], kind))
        families = {FAMILY[k] for _, _, k in seen}
        if len(families) > 1:
            where = ", ".join(f"{label}: {t}" for label, t, _ in seen)
            problems.append(
                f"{role} {col!r} has clashing types ({where}); original and synthetic "
                "must agree (numbers of any width may mix, text may not mix with numbers)"
            )
        if seen:
            kinds[col] = seen[0][2]
    return kinds, problems


def resolve_column(reg: Registered, name: str) -> str | None:
    """Where the data set has no column ``name`` but the engine stores that name, unquoted,
    as one of its columns (Snowflake: ``sex`` is ``SEX``; ``engines.names.column_of``), that
    column is read as ``name`` from now on (``Registered.read_as``): the run's statements and
    results name it as the argument did. Returns the problem: a name that differs from more
    than one column only in case, or that another name already reads."""
    if name in reg.columns or not reg.dialect:
        return None
    if name in reg.renamed.values():
        given = next(g for g, s in reg.renamed.items() if s == name)
        return f"the {reg.source.label} data's column {name!r} is already read as {given!r}"
    try:
        stored = column_of(name, list(reg.columns), reg.dialect)
    except InputError as e:
        return f"in the {reg.source.label} data, {e}"
    if stored != name:
        reg.read_as(name, stored)
    return None


def _list_hint(name: str, columns: dict[str, str]) -> str:
    """A hint when ``name`` is several column names joined by commas (keys="age,sex")."""
    parts = [p.strip() for p in name.split(",")]
    if len(parts) > 1 and all(p in columns for p in parts):
        return f"; for several columns give a list: {parts!r}"
    return ""


def spec_columns(inputs: Inputs, spec: DisclosureSpec) -> dict[str, str]:
    """Every key and the target exist everywhere with compatible kinds (:func:`check_columns`),
    and what is grouped or has cont_na codes is numeric; returns column -> kind."""
    roles = {c: "key" for c in spec.keys} | {spec.target: "target"}
    return check_columns(inputs.sources, roles, more=lambda kinds: _grouped(inputs, spec, kinds))


def _grouped(inputs: Inputs, spec: DisclosureSpec, kinds: dict[str, str]) -> list[str]:
    """Grouping and cont_na need numbers."""
    problems: list[str] = []
    columns = [*spec.keys, spec.target]
    for col, codes in (spec.cont_na or {}).items():
        if col not in inputs.sources[0].columns:
            problems.append(
                f"cont_na: {col!r} is not a column of the original data"
                f"{did_you_mean(col, list(inputs.sources[0].columns))}"
            )
        elif col in kinds and col in columns and kinds[col] not in ("integer", "float") and codes:
            problems.append(f"cont_na: {col!r} is not numeric ({kinds[col]}); codes need numbers")
    if spec.ngroups_target and kinds.get(spec.target, "float") not in ("integer", "float"):
        problems.append(
            f"ngroups_target: the target {spec.target!r} is not numeric ({kinds[spec.target]}); "
            "only numbers can be grouped"
        )
    if spec.ngroups_keys_explicit:
        for key, n in zip(spec.keys, spec.ngroups_keys, strict=True):
            if n and kinds.get(key, "float") not in ("integer", "float"):
                problems.append(
                    f"ngroups_keys: key {key!r} is not numeric ({kinds[key]}); give 0 for it"
                )
    return problems


@dataclass(frozen=True)
class DataSet:
    """A data set as the templates see it: src (0 the original, 1..m the syntheses, m+1 a
    control), what to read after FROM, each column's kind, whether it has no rows, how
    many it has (0 where not counted) and each column's type as the engine names it."""

    src: int
    sql: str
    kinds: dict[str, str]
    empty: bool
    rows: int = 0
    types: dict[str, str] = field(default_factory=dict)


def source_ctx(sources: Sequence[Registered]) -> list[DataSet]:
    """The templates' view of the registered data sets."""
    ctx = []
    for i, reg in enumerate(sources):
        kinds = {name: k or "other" for name, k in reg.kinds.items()}
        if reg.n_rows == 0:  # an empty data set may have unusable inferred types
            kinds = {name: "text" if k != "null" else k for name, k in kinds.items()}
        ctx.append(DataSet(i, reg.sql, kinds, reg.n_rows == 0, reg.n_rows, dict(reg.columns)))
    return ctx
