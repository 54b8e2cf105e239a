"""The appendix: the script that reproduces each target's tables, in the dialect of the engine
that made the report: files named by absolute path (DuckDB), tables by their names (a server's
tables, which the script reads where they are)."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from ...core.inputs import Inputs
from ...measure.summary import DisclosureSummary
from ...sql.dialects import facts


def script_section(inputs: Inputs, summary: DisclosureSummary) -> str | None:
    """The script, in the engine's dialect, that reproduces each target's tables (one section
    per target, with that target's options), its decisions made on the report's own inputs;
    None (:func:`no_script`) where a data set cannot be named in it."""
    from ...measure.export import script_of

    if no_script(inputs) is not None:
        return None
    specs = [res.spec for res in summary.results.values()]
    # the files by absolute path: the script runs from any folder, the one it is saved in too
    absolute = Inputs(
        inputs.engine,
        [
            replace(reg, source=replace(reg.source, obj=_absolute(reg.source.obj)))
            for reg in inputs.sources
        ],
        inputs.groupings,
    )
    dialect = inputs.engine.dialect
    script = script_of(absolute, specs, dialect, [None] * len(inputs.sources))
    return script_header(dialect) + script


def no_script(inputs: Inputs) -> str | None:
    """Why the report has no script (None: it has one): a data set that is neither a file the
    dialect reads nor a table of the engine's database (data in memory), or a dialect no
    script is written in."""
    from ...core.export import SCRIPT_FILE_KINDS

    dialect = facts(inputs.engine.dialect)
    if not dialect.exported:
        return f"no script is written in {inputs.engine.name}'s SQL (see docs/export.md)"
    for reg in inputs.sources:
        src = reg.source
        if src.named_table or (src.kind in SCRIPT_FILE_KINDS and dialect.reads_files):
            continue
        if src.kind in IN_MEMORY:
            return (
                f"the {src.label} data were given in memory ({src.kind}), which a script "
                "cannot name; give files or tables to have one"
            )
        return (
            f"the {src.label} data ({src.kind}) cannot be named in a {dialect.name} script; "
            "give table names to have one"
        )
    return None


# what a data set given as an object in memory is (DuckDB's and Spark's kinds)
IN_MEMORY = ("arrow", "pandas", "reader", "relation", "spark_df")


def script_header(dialect: str) -> str:
    """What the report's script says first: how to run it, wherever it is saved."""
    runner = facts(dialect).runner
    how = runner.format(script="<this file>") if runner else "your warehouse's console"
    if facts(dialect).reads_files:
        where = (
            "from any\n-- folder of the machine that made the report (its inputs are named by "
            'absolute path, as\n-- listed under "reads:"). On another machine, change those '
            "paths first."
        )
    else:
        where = (
            "on the\n-- database the report read (its tables are named as they were given, "
            'as listed\n-- under "reads:"), as a role that may create temporary tables.'
        )
    return f"-- The SQL script of a discosql report ({dialect}): run it with `{how}` {where}\n"


def _absolute(obj: Any) -> Any:
    """A local file path (or glob, or list of them) made absolute; a URL (``s3://``,
    ``https://``) or anything else as it is."""
    if isinstance(obj, str):
        return obj if "://" in obj else os.path.abspath(obj)
    if isinstance(obj, list | tuple):
        return [_absolute(o) for o in obj]
    return obj
