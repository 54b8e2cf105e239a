"""What the anonymity tests share: the check of the data sets' columns before any row is
counted, and the control set registered beside them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.inputs import Inputs, column_kinds
from ..engines.base import Registered
from ..errors import SchemaError


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
