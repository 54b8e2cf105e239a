"""A family's options, declared once: each is a field of the family's frozen dataclass (its
type, its default, its allowed values and its help), which checks its values when built.

The public function builds the dataclass from its arguments (so every value is checked
before any data is read) and passes that one object on: to its ``_on`` and the statements
that run it, to the export, to the report. The command line builds a subcommand's flags from
the same fields (:func:`discosql.cli.flags.add_flags`) and passes them back by name, and a
result's ``to_dict`` names them as the fields do. Adding an option is one :func:`option`
field, its check in the dataclass's ``__post_init__``, and the SQL that uses it.

``kind`` says how a flag's text becomes a value: ``str``, ``int``, ``float``, ``list``
(comma-separated) or ``bool`` (a switch, ``store_true``); a field without ``help`` has no
flag.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from typing import Any, ClassVar, Self

from ..errors import InputError, did_you_mean

KINDS = ("str", "int", "float", "list", "bool")


def option(
    default: Any,
    help: str = "",
    *,
    kind: str = "str",
    choices: tuple[str, ...] | None = None,
    metavar: str | None = None,
    flag: str | None = None,
) -> Any:
    """A declared option: a dataclass field with its default, and the flag it is given on the
    command line (``--name-with-dashes`` unless ``flag`` says otherwise; none without
    ``help``)."""
    if kind not in KINDS:
        raise ValueError(f"option kind {kind!r}: expected one of {KINDS}")
    meta = {"help": help, "kind": kind, "choices": choices, "metavar": metavar, "flag": flag}
    return dataclasses.field(default=default, metadata=meta)


@dataclasses.dataclass(frozen=True)
class Options:
    """The base of a family's options: the fields are the declaration."""

    FAMILY: ClassVar[str] = ""

    def as_dict(self) -> dict[str, Any]:
        """Every option by name, as the JSON output names it (a tuple as a list)."""
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def set(self, name: str, value: Any) -> None:
        """A checked value in place of the given one (``__post_init__`` only)."""
        object.__setattr__(self, name, value)

    @classmethod
    def flags(cls) -> tuple[dataclasses.Field[Any], ...]:
        """The fields the command line has a flag for, in declaration order."""
        return tuple(f for f in dataclasses.fields(cls) if f.metadata.get("help"))

    @classmethod
    def of(
        cls, values: Mapping[str, Any] | Any, *, others: Collection[str] = (), **given: Any
    ) -> Self:
        """The options from ``values`` (a mapping, or an argparse namespace whose flags the
        fields built), ``given`` taking precedence. A mapping's name that is neither an
        option nor one of ``others`` is an InputError."""
        names = [f.name for f in dataclasses.fields(cls)]
        if isinstance(values, Mapping):
            unknown = [n for n in values if n not in names and n not in others]
            if unknown:
                allowed = sorted([*names, *others])
                raise InputError(
                    f"{cls.FAMILY or cls.__name__}: unknown option(s) {unknown!r}"
                    f"{did_you_mean(str(unknown[0]), allowed)}; allowed: {', '.join(allowed)}"
                )
            found = {n: values[n] for n in names if n in values and n not in given}
        else:
            found = {n: getattr(values, n) for n in names if hasattr(values, n) and n not in given}
        return cls(**found, **given)


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value
