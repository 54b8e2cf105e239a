"""What every export shares: the script engine's input (files a duckdb script reads, or table
names), where a script writes its outputs, the table names given for the data sets, a plan
retargeted at the script, and the script's text. The families' exports (``measure.export``,
``protect.export``, ``sweep.export``, ``risk.export``, ``anonymity.export``) add their
signatures; every script opens with a :class:`Header`."""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Sequence
from typing import Any

from ..engines.base import Registered
from ..engines.duckdb import file_reader
from ..engines.script import ScriptEngine
from ..errors import InputError
from ..sql.dialects import facts, known
from ..sql.templates import ident
from ..version import __version__
from .inputs import Inputs
from .output import Destination
from .plan import Plan

# Only DuckDB can read the files named in a script by itself.
SCRIPT_FILE_KINDS = ("parquet", "csv")


def script_text(script: ScriptEngine) -> str:
    """The statements a script engine wrote, as the script's text."""
    return script.text()


# what every script says of where its errors stop it
BAIL = (
    "In a shell that goes on after an error every later statement fails too and no numbers "
    "print; to stop at once run `duckdb -bail`, `psql -v ON_ERROR_STOP=1` or your console's "
    "equivalent."
)


@dataclasses.dataclass(frozen=True)
class Header:
    """A script's opening comment, the same shape for every family: what it computes
    (``what``, e.g. "synthpop sdc()") in which dialect, the arguments it was asked
    (``asked``: one line each), what it reads and writes, its results, and what was decided
    at export time and how the script checks it (``decided``)."""

    what: str
    dialect: str
    asked: Sequence[str]
    sources: Sequence[Registered]
    results: str
    decided: str
    writes: str | None = None

    def text(self) -> str:
        """The comment's lines (paragraphs wrapped at 90 characters)."""
        lines = [f"discosql {__version__}: {self.what} as SQL ({self.dialect} dialect)"]
        lines += self.asked
        lines.append(f"reads:\n{reads(self.sources)}")
        if self.writes is not None:
            lines.append(f"writes: {self.writes}")
        about = (
            f"Results: {self.results} Work tables start with __disco_ (temporary; where the "
            "engine has none, tables of the current schema named for this export, dropped at "
            f"the end). {self.decided} The script checks the decisions before it counts "
            "(stage 015) and stops with a message naming the column when the data it runs on "
            f"no longer fit them: re-export then. {BAIL}"
        )
        return "\n".join([*lines, *_wrapped(about)])


def _wrapped(text: str) -> list[str]:
    """``text`` in lines of at most 90 characters, never breaking inside `a command`."""
    parts = text.split("`")
    kept = "`".join(p.replace(" ", "\0") if i % 2 else p for i, p in enumerate(parts))
    return [line.replace("\0", " ") for line in textwrap.wrap(kept, 90, break_on_hyphens=False)]


def reads(sources: Sequence[Registered]) -> str:
    """The header's lines naming what the script reads: a file, or a table."""
    return "\n".join(
        f"  {s.source.label}: {next(iter(s.params.values())) if s.params else s.sql}"
        for s in sources
    )


def table_names_of(tables: dict[str, Any] | None, n_syn: int) -> list[str | None]:
    """The table names ``tables`` gives the original and each synthesis (None: not given)."""
    if tables is None:
        return [None] * (1 + n_syn)
    if not isinstance(tables, dict):
        raise InputError(f"tables: expected a dict, got {type(tables).__name__}")
    unknown = set(tables) - {"original", "synthetic"}
    if unknown:
        raise InputError(f"tables: keys must be 'original' and 'synthetic', got {unknown}")
    syn = tables.get("synthetic")
    syn_list = [syn] if isinstance(syn, str) else list(syn or [])
    if syn is not None and len(syn_list) != n_syn:
        raise InputError(
            f"tables: 'synthetic' names {len(syn_list)} table(s) for {n_syn} syntheses"
        )
    names = [tables.get("original"), *(syn_list or [None] * n_syn)]
    labels = ["original", *(f"synthetic[{i}]" for i in range(n_syn))]
    for label, name in zip(labels, names, strict=True):
        if name is not None and (not isinstance(name, str) or not name):
            raise InputError(f"tables: the name for the {label} data must be a string")
    return names


def script_destination(
    out: Any, out_table: Any, m: int, dialect: str, problems: list[str]
) -> Destination:
    """Where a script puts its m outputs: tables (``out_table``, ``{synthesis}`` in it when
    m > 1) or, duckdb scripts only, files (``out``). Nothing is checked on this machine: the
    script runs elsewhere."""
    if (out is None) == (out_table is None):
        problems.append("out_table: give the tables to create (or out=, files, duckdb only)")
        return Destination()
    pattern = out_table if out is None else out
    if not isinstance(pattern, str) or not pattern.strip():
        problems.append(f"out_table: expected a table name, got {pattern!r}")
        return Destination()
    if m > 1 and "{synthesis}" not in pattern:
        problems.append(f"{pattern!r} names one output for {m} syntheses; put {{synthesis}} in it")
        return Destination()
    names = tuple(pattern.replace("{synthesis}", str(j)) for j in range(1, m + 1))
    if out_table is not None:
        return Destination(tables=names)
    d = known(dialect)
    if d is not None and not d.reads_files:
        problems.append(f"out: a {dialect} script cannot write files; give out_table")
    elif not pattern.lower().endswith((".parquet", ".csv")):
        problems.append(f"out: {pattern!r} must end in .parquet or .csv")
    return Destination(files=names)


def script_sources(
    regs: Sequence[Registered],
    names: Sequence[str | None],
    dialect: str,
    argument: str = "tables",
    example: str = "tables={'original': 'db.persons', 'synthetic': ['db.syn1']}",
) -> list[Registered]:
    """What the script reads for each data set: files (DuckDB) or table names (given by the
    caller's ``argument``, as in ``example``)."""
    out: list[Registered] = []
    for reg, name in zip(regs, names, strict=True):
        src = reg.source
        if name is not None:
            params: dict[str, Any] = {}
            sql = ".".join(ident(part) for part in name.split("."))
        elif src.named_table:
            sql, params = reg.sql, {}
        elif src.kind in SCRIPT_FILE_KINDS and facts(dialect).reads_files:
            p = f"src_{len(out)}"
            sql, params = file_reader(src.kind, p), {p: src.obj}
        else:
            raise InputError(
                f"{argument}: the {src.label} data ({src.kind}) cannot be named in a {dialect} "
                f"script; give its table name, e.g. {example}"
            )
        if reg.renamed and name is not None:  # columns read as the arguments named them
            sql = f"(SELECT {reg.select_list()} FROM {sql})"
        out.append(dataclasses.replace(reg, sql=sql, params=params))
    return out


def retarget(p: Plan, script: ScriptEngine, sources: list[Registered]) -> Plan:
    params = {k: v for k, v in p.params.items() if not k.startswith("src_")}
    for reg in sources:
        params.update(reg.params)
    inputs = Inputs(script, sources, p.inputs.groupings)
    return dataclasses.replace(p, inputs=inputs, params=params)
