"""``discosql sdc``: a safer synthesis (:func:`discosql.sdc`, synthpop's ``sdc()``): recode,
remove uniques and disclosive cells, write the protected syntheses (or, with --sql, the step
as one script: :func:`discosql.sdc_to_sql`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core.files import write_text
from ..protect.sdc import SdcOptions
from .args import csv_list, dialect_given, engine_of, script_tables
from .flags import add_flags
from .options import UsageError, add_common, add_script_options, add_synthpop
from .output import Progress, text_table

NAME = "sdc"
RENAMING = ("label", "prefix", "suffix")


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand and its flags."""
    c: argparse.ArgumentParser = sub.add_parser(
        NAME, help="a safer synthesis: recode, remove uniques (synthpop sdc())"
    )
    add_common(c, outputs=False, measures=False)
    add_synthpop(c, "to record; sdc() removes the same records in both")
    add_flags(c, SdcOptions, skip=RENAMING)
    c.add_argument(
        "--recode",
        action="append",
        metavar="VAR=BOTTOM,TOP",
        help="(recode.vars, bottom.top.coding) bottom/top codes of a numeric "
        "variable, either may be empty (age=,80); repeatable",
    )
    c.add_argument(
        "--recode-exclude",
        action="append",
        metavar="VAR=CODE[,CODE]",
        help="(recode.exclude) codes of VAR never recoded; repeatable",
    )
    c.add_argument(
        "--rm-disclosive",
        action="append",
        metavar="TARGET[:KEY,KEY...]",
        help="(beyond synthpop) remove the records in TARGET's DiSCO cells, over "
        "these keys (default: --keys), after the uniques; repeatable",
    )
    c.add_argument(
        "--measure",
        nargs="?",
        const="",
        default=None,
        metavar="TARGET,...",
        help="print disclosure_summary before and after (over --keys; default "
        "targets: every column of both sides not a key)",
    )
    add_flags(c, SdcOptions, skip=["rm_replicated_uniques", "rm_uniques_in_orig"])
    c.add_argument(
        "--out",
        type=Path,
        default=None,
        help="where the protected syntheses go: a directory, FILE.parquet / "
        "FILE.csv with {synthesis} in it when there are several, or FILE.duckdb "
        "(tables in it)",
    )
    c.add_argument(
        "--out-table",
        default=None,
        metavar="NAME",
        help="the tables' name (with {synthesis} when there are several): in "
        "--out FILE.duckdb, or in the database of --engine postgres/spark",
    )
    c.add_argument("--overwrite", action="store_true", help="replace existing files or tables")
    c.add_argument(
        "--dry-run",
        action="store_true",
        help="count what would be removed and recoded, write nothing (the default "
        "without --out and --out-table)",
    )
    add_script_options(
        c, "the step (CREATE TABLE --out-table AS ...; duckdb scripts may --out files)"
    )
    return c


def _codes(text: str, flag: str) -> list[float | None]:
    try:
        return [float(x) if x.strip() else None for x in text.split(",")]
    except ValueError:
        raise UsageError(f"{flag}: codes must be numbers, got {text!r}") from None


def run(args: argparse.Namespace, progress: Progress) -> None:
    from ..protect.sdc import sdc

    recode_vars, coding, exclude = [], [], {}
    for item in args.recode or []:
        var, sep, codes = item.partition("=")
        pair = _codes(codes, "--recode")
        if not sep or len(pair) != 2:
            raise UsageError(
                f"--recode: expected VAR=BOTTOM,TOP (either may be empty), got {item!r}"
            )
        recode_vars.append(var)
        coding.append(tuple(pair))
    for item in args.recode_exclude or []:
        var, sep, codes = item.partition("=")
        if not sep or var not in recode_vars:
            raise UsageError(
                f"--recode-exclude: expected VAR=CODE[,CODE] for a --recode VAR, got {item!r}"
            )
        exclude[var] = _codes(codes, "--recode-exclude")
    dry_run = args.dry_run or (args.out is None and args.out_table is None)
    if dry_run and args.sql is not None:
        raise UsageError("--sql: the script writes the protected data; give --out or --out-table")
    if args.sql is None and (args.original_table or args.synthetic_tables or dialect_given(args)):
        raise UsageError("--dialect/--original-table/--synthetic-tables: only with --sql")
    if args.sql is not None and args.measure is not None:
        raise UsageError("--measure: not with --sql (the script measures nothing)")
    disclosive = []
    for item in args.rm_disclosive or []:
        target, sep, keys = item.partition(":")
        entry: dict[str, Any] = {"target": target}
        if sep:
            entry["keys"] = csv_list(keys)
        disclosive.append(entry)
    measure = None
    if args.measure is not None:
        measure = {"targets": csv_list(args.measure)} if args.measure else {}
    protection: dict[str, Any] = {
        "keys": args.keys,
        "rm_replicated_uniques": args.rm_replicated_uniques,
        "rm_uniques_in_orig": args.rm_uniques_in_orig,
        "recode_vars": recode_vars or None,
        "bottom_top_coding": coding or None,
        "recode_exclude": [exclude.get(v) for v in recode_vars] if exclude else None,
        "label": args.label,
        "prefix": args.prefix,
        "suffix": args.suffix,
        "rm_disclosive": disclosive or None,
        "synthpop": args.synthpop,
        "out": None if args.out is None else str(args.out),
        "out_table": args.out_table,
        "overwrite": args.overwrite,
        "engine": engine_of(args),
        "threads": args.threads,
    }
    if args.sql is not None:
        from ..protect.export import sdc_to_sql

        tables = script_tables(args)
        script = sdc_to_sql(
            args.original, args.synthetic, dialect=args.dialect, tables=tables, **protection
        )
        write_text(args.sql, script)
        return
    res = sdc(args.original, args.synthetic, measure=measure, dry_run=dry_run, **protection)
    text = f"{'Would remove' if dry_run else 'Removed'}\n{text_table(res.removed)}"
    if res.recoded.num_rows:
        text += f"\n\n{'Would recode' if dry_run else 'Recoded'}\n{text_table(res.recoded)}"
    if res.before is not None and res.after is not None:
        text += f"\n\nBefore\n{res.before}\n\nAfter\n{res.after}"
    if dry_run:
        sys.stdout.write(text + "\n\nNothing written (a dry run).\n")
        return
    sys.stdout.write(text + "\n\nWritten\n" + "\n".join(res.out) + "\n")
