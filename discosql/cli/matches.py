"""``discosql matches``: whole-table matches (:func:`discosql.exact_matches`): UEM, the
identical share and the distance of each synthetic record to the original.

It imports neither :mod:`.parser` nor :mod:`.commands` (the parser imports it: no cycle);
``build_parser`` hands :func:`add_parser` the shared engine and output options.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from ..anonymity.export import exact_matches_to_sql
from ..anonymity.matches import exact_matches
from ..core.files import write_text
from .args import csv_list, engine_of, script_options
from .output import text_table, write


def add_parser(
    sub: Any, *shared: Callable[[argparse.ArgumentParser], None]
) -> argparse.ArgumentParser:
    """The subcommand and its flags; ``shared`` add the options every command has (engine,
    output)."""
    p: argparse.ArgumentParser = sub.add_parser(
        "matches",
        help="whole-table matches: UEM (unique original records reproduced), the identical "
        "share and each synthetic record's distance (differing columns) to the original",
    )
    p.add_argument("original", help="original data: a Parquet or CSV path, glob or directory")
    p.add_argument("synthetic", nargs="+", help="synthetic data set(s): m syntheses")
    p.add_argument(
        "--columns",
        type=csv_list,
        default=None,
        metavar="A,B,...",
        help="the columns compared, comma-separated (default: every column of the original)",
    )
    p.add_argument(
        "--control",
        default=None,
        metavar="FILE",
        help="a holdout of the original that the syntheses were not made from: adds the "
        "identical share and the distance against it",
    )
    for add in shared:
        add(p)
    return p


def run(args: argparse.Namespace) -> None:
    """The numbers: a summary and the distance table (table format), the result's
    ``to_dict()`` (JSON), or the distance table, one row per synthesis, data set compared and
    distance (CSV, Parquet); with --sql the script written to FILE instead."""
    syn = args.synthetic[0] if len(args.synthetic) == 1 else list(args.synthetic)
    if args.sql is not None:
        script = exact_matches_to_sql(
            args.original, syn, columns=args.columns, control=args.control, **script_options(args)
        )
        write_text(args.sql, script)
        return
    res = exact_matches(
        args.original,
        syn,
        columns=args.columns,
        control=args.control,
        engine=engine_of(args),
        threads=args.threads,
    )
    table = res.distances
    if args.format == "json":
        text = json.dumps(res.to_dict(), indent=1, ensure_ascii=False)
        write(table, text, "table", args.out)
    else:
        write(table, f"{res}\n\n{text_table(table)}", args.format, args.out)
