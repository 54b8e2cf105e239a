"""``sdc_to_sql``: synthpop's ``sdc()`` (and rm_disclosive) as one SQL script that creates the
protected syntheses where the data live (``CREATE TABLE ... AS SELECT`` with the anti-join of
the removed cells; DuckDB may also ``COPY`` them to files).

The script runs the statements :func:`discosql.sdc` runs. The decisions that need the data are
made at export time by running the removal steps once on the engine that reads them: each
step's q packing and, for an rm_disclosive step, its plan (numeric grouping breaks, level
checks). The script checks them where it runs (stage 015, as :func:`discosql.to_sql` does)
and, last, that the records written and removed add up to the records given; it stops with a
message otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.export import (
    Header,
    script_destination,
    script_sources,
    script_text,
    table_names_of,
)
from ..core.inputs import Inputs, open_inputs
from ..engines.script import ScriptEngine
from ..errors import InputError
from ..sql.dialects import unknown_dialect
from .removal import REASONS, reason_of
from .sdc import Protection, SdcOptions, _protect, decide
from .uniques import SYNTHPOP_DEFAULT


def sdc_to_sql(
    original: Any,
    synthetic: Any,
    keys: str | Sequence[str] | None = None,
    *,
    dialect: str = "duckdb",
    tables: dict[str, Any] | None = None,
    out: str | None = None,
    out_table: str | None = None,
    overwrite: bool = False,
    rm_replicated_uniques: bool = False,
    rm_uniques_in_orig: bool = False,
    recode_vars: str | Sequence[str] | None = None,
    bottom_top_coding: Any = None,
    recode_exclude: Any = None,
    label: str | None = None,
    prefix: str | None = None,
    suffix: str | None = None,
    rm_disclosive: dict[str, Any] | Sequence[dict[str, Any]] | None = None,
    synthpop: str = SYNTHPOP_DEFAULT,
    engine: Any = None,
    threads: int | None = None,
) -> str:
    """One SQL script that makes the protected syntheses of :func:`discosql.sdc` where it runs.

    Args:
        original, synthetic: the data, read at export time for the decisions (see the module).
        dialect, tables: as :func:`discosql.to_sql` (``tables`` names what the script reads).
        out_table: the protected tables to create (``{synthesis}`` in it when m > 1; dotted
            for a schema), in the database the script runs on; the script fails on an
            existing table unless ``overwrite`` (it then drops it first). out: duckdb scripts
            only, files instead (FILE.parquet / FILE.csv, ``{synthesis}`` when m > 1).
        the protection arguments and ``synthpop``: as :func:`discosql.sdc` (the release is
            stated in the script's header; its statements are the same for both).

    Returns:
        The script: the recode counts and the records each step removes (one SELECT each),
        then the protected syntheses written, then the final check.
    """
    problems: list[str] = []
    problems += filter(None, [unknown_dialect(dialect)])
    options = SdcOptions(
        keys,
        rm_replicated_uniques,
        rm_uniques_in_orig,
        recode_vars,
        bottom_top_coding,
        recode_exclude,
        label,
        prefix,
        suffix,
        rm_disclosive,
        synthpop,
    )
    prot = options.protection(problems)
    n_syn = len(synthetic) if isinstance(synthetic, list | tuple) else 1
    dest = script_destination(out, out_table, n_syn, dialect, problems)
    if not isinstance(overwrite, bool):
        problems.append(f"overwrite: expected True or False, got {overwrite!r}")
    if problems:
        raise InputError(problems)
    table_names = table_names_of(tables, n_syn)  # checked before any data is read
    prot.warn()
    with open_inputs(engine, threads, original, synthetic) as inputs:
        sources = script_sources(inputs.sources, table_names, dialect)
        names = prot.names(inputs)
        decided = decide(inputs, names, prot)
        script = ScriptEngine(dialect, overwrite=overwrite)
        label, prefix, suffix = prot.rename
        header = Header(
            "synthpop sdc()",
            dialect,
            [
                f"m = {inputs.m}",
                "does, in this order:\n"
                + "\n".join(f"  {i}. {s}" for i, s in enumerate(_steps(prot, names), 1)),
                f"renames: label {label!r}, prefix {prefix!r}, suffix {suffix!r}",
                f"synthpop {prot.synthpop} (its sdc() removes the same records in 1.9-2 and 1.9-3)",
            ],
            sources,
            "the recode counts and the records each step removes (one SELECT each), then the "
            "protected syntheses; last, a check that the records written and removed add up to "
            "those given.",
            "The q packing of each step (and an rm_disclosive step's grouping) was decided at "
            "export time.",
            writes=", ".join(dest.written),
        )
        script.comment(header.text())
        _protect(Inputs(script, sources), names, prot, dest, decided)
    return script_text(script)


def _steps(prot: Protection, names: list[str]) -> list[str]:
    """What the script does, in order (its header's list)."""
    steps = [
        f"recode {r.name} (bottom {r.bottom}, top {r.top}, never {list(r.exclude)})"
        for r in prot.recodes
    ]
    if prot.uniques:
        steps.append(f"remove the {REASONS[prot.uniques]} over {', '.join(names)}")
    return steps + [f"remove the {reason_of(s)}" for s in prot.disclosive]
