"""The CAP family's arguments, inputs and cell table (``cap/cells.sql.j2``: original o_qt,
synthetic s_qt and control c_qt per (q, t) cell with their key margins), shared by every CAP
function.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ...core.inputs import check_columns, open_inputs, source_ctx
from ...core.spec import column_names
from ...engines.base import Engine, Registered
from ...errors import DiscoSQLWarning, InputError, did_you_mean
from ...sql.templates import render

CELLS = "__disco_cap_cells"


PROBS = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0)


# Columns of cap_records() besides the keys and targets; a user column may not take these names.
RECORD_COLUMNS = (
    "n_original",
    "n_synthetic",
    "n_control",
    "n_key_original",
    "n_key_synthetic",
    "cap_synthetic",
    "matched",
    "cap_original",
    "cap_control",
    "disclosive_original",
    "disclosive_synthetic",
    "disco",
    "replicated_unique",
)


# -- engine and inputs ------------------------------------------------------------------------
def _render(eng: Engine, template: str, **context: Any) -> str:
    return render(template, eng.dialect, **context)


@dataclass(frozen=True)
class CapColumn:
    """A key or sensitive column as the CAP templates see it: ``alias`` names its level column
    in the cell table; ``edges`` are the parameter names of its inner bin edges (binned
    continuous columns only)."""

    name: str
    alias: str
    edges: tuple[str, ...] | None = None


@dataclass
class _Run:
    """Registered inputs and the cell table of one CAP call."""

    engine: Engine
    sources: list[Registered]  # original, synthetic[, control]
    keys: list[CapColumn]
    targets: list[CapColumn]
    params: dict[str, Any]

    @property
    def has_control(self) -> bool:
        return len(self.sources) == 3


def _names(arg: str, value: Any) -> list[str]:
    problems: list[str] = []
    names = column_names(arg, value, problems)
    if problems:
        raise InputError(problems)
    return names


def _check_args(
    keys: Any, sensitive: Any, sensitive_arg: str = "sensitive"
) -> tuple[list[str], list[str]]:
    key_list = _names("keys", keys)
    sens_list = _names(sensitive_arg, sensitive)
    both = [c for c in sens_list if c in key_list]
    if both:
        raise InputError(
            f"{sensitive_arg}: {both!r} are also keys; a column is either known (key) or sensitive"
        )
    return key_list, sens_list


def _cap_columns(
    sources: list[Registered], roles: dict[str, str], continuous: Sequence[str] = ()
) -> dict[str, str]:
    """Every key and sensitive column exists in every data set with compatible kinds
    (:func:`check_columns`: keys, several sensitive columns and a control set), and the
    ``continuous`` ones are among them and numeric; returns column -> kind."""

    def binned(kinds: dict[str, str]) -> list[str]:
        problems = []
        for col in continuous:
            if col not in roles:
                problems.append(
                    f"continuous_columns: {col!r} is neither a key nor a sensitive column"
                    f"{did_you_mean(col, list(roles))}; allowed: {list(roles)!r}"
                )
            elif kinds.get(col, "float") not in ("integer", "float"):
                problems.append(
                    f"continuous_columns: {col!r} is not numeric in the original data "
                    f"({kinds[col]}); only numbers can be binned"
                )
        return problems

    return check_columns(sources, roles, more=binned)


@dataclass(frozen=True)
class CapAsk:
    """What a CAP function asks of the cell table: its key and sensitive columns (the
    argument that names the latter: ``sensitive_arg``), the ``continuous`` ones binned into
    ``bins`` bins, and the output columns (``reserved``) no input column may be named as."""

    keys: Any
    sensitive: Any
    sensitive_arg: str = "sensitive"
    continuous: Sequence[str] = ()
    bins: int = 0
    reserved: Sequence[str] = ()


@contextlib.contextmanager
def cap_cells(
    data: tuple[Any, Any, Any], ask: CapAsk, engine: Any, threads: int | None
) -> Iterator[_Run]:
    """The arguments checked, the engine opened and the inputs registered (:func:`open_inputs`:
    the original, one synthesis and, when given, the control), the cell table counted; the
    engine goes when the block ends."""
    original, synthetic, control = data
    key_list, sens_list = _check_args(ask.keys, ask.sensitive, ask.sensitive_arg)
    clash = [c for c in [*key_list, *sens_list] if c in ask.reserved]
    if clash:
        raise InputError(
            f"keys/{ask.sensitive_arg}: {clash!r} are names of output columns "
            f"({', '.join(ask.reserved)}); rename these columns first"
        )
    if isinstance(synthetic, list | tuple):
        raise InputError(
            f"synthetic: give one data set, got a {type(synthetic).__name__} of "
            f"{len(synthetic)}; call once per synthesis"
        )
    with open_inputs(engine, threads, original, synthetic) as inputs:
        engine = inputs.engine
        sources = list(inputs.sources)
        if control is not None:
            reg = engine.register(engine.classify(control, "control"))
            if reg.n_rows == 0:
                warnings.warn(
                    "control: the data set has no rows; control measures are NaN",
                    DiscoSQLWarning,
                    stacklevel=4,
                )
            sources.append(reg)
        roles = {k: "key" for k in key_list} | {s: ask.sensitive_arg for s in sens_list}
        _cap_columns(sources, roles, ask.continuous)
        params: dict[str, Any] = {}
        for reg in sources:
            params.update(reg.params)
        edges = _bin_edges(engine, sources[0], list(ask.continuous), ask.bins, params)
        keys_ctx = [CapColumn(k, f"k_{i}", edges.get(k)) for i, k in enumerate(key_list)]
        targets_ctx = [CapColumn(t, f"t_{i}", edges.get(t)) for i, t in enumerate(sens_list)]
        run = _Run(engine, sources, keys_ctx, targets_ctx, params)
        _count_cells(run)
        yield run


def _bin_edges(
    engine: Engine, original: Registered, columns: list[str], bins: int, params: dict[str, Any]
) -> dict[str, tuple[str, ...]]:
    """Inner edges of SDMetrics' equal-width binning (pd.cut with ``bins`` bins on the original).

    pd.cut: edges = linspace(min, max, bins + 1) (min == max: widened by 0.1 %); SDMetrics then
    sets the outer edges to -inf and +inf, so only the inner edges matter. Bound as parameters.
    """
    if not columns:
        return {}
    cols = [CapColumn(c, f"c_{i}") for i, c in enumerate(columns)]
    sql = _render(engine, "cap/range.sql.j2", source=source_ctx([original])[0], columns=cols)
    row = engine.query(sql, params, "cap/range").to_pylist()[0]
    problems, out = [], {}
    for col in cols:
        lo, hi, n_inf = (
            row[f"lo_{col.alias}"],
            row[f"hi_{col.alias}"],
            row[f"inf_{col.alias}"],
        )
        if n_inf:
            problems.append(
                f"continuous_columns: {col.name!r} has {n_inf} infinite value(s) in the "
                "original data, which cannot be binned"
            )
            continue
        if lo is None:
            problems.append(
                f"continuous_columns: {col.name!r} has only missing values in the original "
                "data; it cannot be binned"
            )
            continue
        mn, mx = float(lo), float(hi)
        if mn == mx:  # pandas widens a constant column before spacing the edges
            mn -= 0.001 * abs(mn) if mn != 0 else 0.001
            mx += 0.001 * abs(mx) if mx != 0 else 0.001
        step = (mx - mn) / bins  # numpy.linspace: i * step + start, same float operations
        names = []
        for i in range(1, bins):
            name = f"e_{col.alias}_{i}"
            params[name] = i * step + mn
            names.append(name)
        out[col.name] = tuple(names)
    if problems:
        raise InputError(problems)
    return out


def _count_cells(run: _Run) -> None:
    labels = ("o", "s", "c")
    sources = source_ctx(run.sources)
    sides = [{"src": i, "col": labels[i], "margin": labels[i] + "q"} for i in range(len(sources))]
    sql = _render(
        run.engine,
        "cap/cells.sql.j2",
        sources=sources,
        keys=run.keys,
        targets=run.targets,
        sides=sides,
    )
    run.engine.create_table(CELLS, sql, run.params, "cap/cells")


def _sides(run: _Run) -> list[tuple[str, str]]:
    return [("s", "sq")] + ([("c", "cq")] if run.has_control else [])


def _one_row(table: pa.Table) -> dict[str, Any]:
    return {k: v[0] for k, v in table.to_pydict().items()}


def _float(value: Any) -> float:
    return math.nan if value is None else float(value)
