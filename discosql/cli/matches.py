"""``discosql matches``: whole-table matches (:func:`discosql.exact_matches`): UEM, the
identical share and the distance of each synthetic record to the original; with --sql the
script of :func:`discosql.exact_matches_to_sql`."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..anonymity.export import exact_matches_to_sql
from ..anonymity.matches import MatchesOptions, exact_matches
from ..core.files import write_text
from .args import engine_of, script_options
from .flags import add_flags, flag_values
from .options import add_anonymity_script, add_engine_options, add_output_options
from .output import Progress, text_table, write

NAME = "matches"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand and its flags, then the engine, output and script options."""
    p: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="whole-table matches: UEM (unique original records reproduced), the identical "
        "share and each synthetic record's distance (differing columns) to the original",
    )
    p.add_argument("original", help="original data: a Parquet or CSV path, glob or directory")
    p.add_argument("synthetic", nargs="+", help="synthetic data set(s): m syntheses")
    add_flags(p, MatchesOptions)
    p.add_argument(
        "--control",
        default=None,
        metavar="FILE",
        help="a holdout of the original that the syntheses were not made from: adds the "
        "identical share and the distance against it",
    )
    add_engine_options(p)
    add_output_options(p)
    add_anonymity_script(p)
    return p


def run(args: argparse.Namespace, progress: Progress) -> None:
    """The numbers: a summary and the distance table (table format), the result's
    ``to_dict()`` (JSON), or the distance table, one row per synthesis, data set compared and
    distance (CSV, Parquet); with --sql the script written to FILE instead."""
    syn = args.synthetic[0] if len(args.synthetic) == 1 else list(args.synthetic)
    given = {**flag_values(args, MatchesOptions), "control": args.control}
    if args.sql is not None:
        script = exact_matches_to_sql(args.original, syn, **given, **script_options(args))
        write_text(args.sql, script)
        return
    res = exact_matches(args.original, syn, **given, engine=engine_of(args), threads=args.threads)
    table = res.distances
    if args.format == "json":
        text = json.dumps(res.to_dict(), indent=1, ensure_ascii=False)
        write(table, text, "table", args.out)
    else:
        write(table, f"{res}\n\n{text_table(table)}", args.format, args.out)
