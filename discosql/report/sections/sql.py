"""The appendix: the duckdb script that reproduces each target's tables, its inputs named by
absolute path."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from ...core.inputs import Inputs
from ...measure.summary import DisclosureSummary


def script_section(inputs: Inputs, summary: DisclosureSummary) -> str | None:
    """The duckdb script that reproduces each target's tables (one section per target, with
    that target's options), its decisions made on the report's own inputs; None unless every
    data set is a file the script can read."""
    from ...core.export import SCRIPT_FILE_KINDS
    from ...measure.export import script_of

    if any(reg.source.kind not in SCRIPT_FILE_KINDS for reg in inputs.sources):
        return None  # data in memory or in a server's tables cannot be named in the script
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
    script = script_of(absolute, specs, "duckdb", [None] * len(inputs.sources))
    return SCRIPT_HEADER + script


# what the report's script says first: how to run it, wherever it is saved
SCRIPT_HEADER = """\
-- The SQL script of a discosql report: run it with `duckdb -bail < <this file>` from any
-- folder of the machine that made the report (its inputs are named by absolute path, as
-- listed under "reads:"). On another machine, change those paths first.
"""


def _absolute(obj: Any) -> Any:
    """A local file path (or glob, or list of them) made absolute; a URL (``s3://``,
    ``https://``) or anything else as it is."""
    if isinstance(obj, str):
        return obj if "://" in obj else os.path.abspath(obj)
    if isinstance(obj, list | tuple):
        return [_absolute(o) for o in obj]
    return obj
