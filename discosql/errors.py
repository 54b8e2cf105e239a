"""One exception tree for discosql.

``DiscoSQLError`` is the base. ``InputError`` (also a ``ValueError``) is raised for bad arguments
or data before any measure SQL runs; ``SchemaError`` narrows it to column presence and types.
``TemplateError`` and ``EngineError`` mean a bug or an engine failure, never bad input.

Every message is passed through :func:`discosql.secrets.redact` when the error or warning is
made, so no password or token of a connection string reaches a terminal, a log or a report
through one of them, whichever driver's text it quotes.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

from .secrets import redact


def _redacted(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(redact(a) if isinstance(a, str) else a for a in args)


class DiscoSQLError(Exception):
    """Base class of every error raised by discosql (its text redacted: module docstring)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*_redacted(args))


class InputError(DiscoSQLError, ValueError):
    """One or more problems with the arguments or the data, all reported at once.

    ``problems`` holds one message per problem; ``str(error)`` lists them all.
    """

    def __init__(self, problems: str | Sequence[str]) -> None:
        given = [problems] if isinstance(problems, str) else list(problems)
        self.problems: list[str] = [redact(p) for p in given]
        if len(self.problems) == 1:
            text = self.problems[0]
        else:
            text = f"{len(self.problems)} problems:\n" + "\n".join(f"- {p}" for p in self.problems)
        super().__init__(text)


class SchemaError(InputError):
    """A column is missing, or its type does not fit between the data sets."""


class TemplateError(DiscoSQLError):
    """A SQL template failed to render or to parse (a bug in discosql)."""


class EngineError(DiscoSQLError):
    """The SQL engine failed while running a stage."""


class DiscoSQLWarning(UserWarning):
    """A degenerate but computable situation (e.g. an empty synthetic data set)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*_redacted(args))


def did_you_mean(name: str, choices: Sequence[str]) -> str:
    """'; did you mean X?' for the closest of ``choices``, or ''. A name that differs only in
    case is named first (Snowflake stores unquoted names in upper case, PostgreSQL in lower
    case: a column created without quotes is ``SEX`` there)."""
    same = [c for c in choices if c.casefold() == name.casefold()]
    if same:
        return f"; did you mean {same[0]!r}? (names are matched with their case)"
    close = difflib.get_close_matches(name, list(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""
