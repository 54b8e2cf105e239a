"""``discosql sql``: the measures exported as one SQL script (:func:`discosql.to_sql`), for
the duckdb shell or a warehouse, on stdout or in --out FILE."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core.files import write_text
from ..sql.dialects import DEFAULT, DIALECTS
from .args import csv_list, script_tables
from .kwargs import common_kwargs, target_kwargs
from .options import UNTRIED, add_common, add_target_options
from .output import Progress

NAME = "sql"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand and its flags."""
    q: argparse.ArgumentParser = sub.add_parser(
        NAME, help="export the measures as one SQL script (duckdb shell or a warehouse)"
    )
    add_common(q, outputs=False)
    add_target_options(q)
    q.add_argument(
        "--dialect",
        default=DEFAULT,
        choices=DIALECTS,
        help=f"SQL dialect of the script (default: duckdb, which reads the files named{UNTRIED})",
    )
    q.add_argument(
        "--original-table",
        default=None,
        metavar="NAME",
        help="table the script reads as the original data (default: the file, duckdb only)",
    )
    q.add_argument(
        "--synthetic-tables",
        type=csv_list,
        default=None,
        metavar="NAME[,NAME...]",
        help="tables the script reads as the syntheses, one per synthetic data set",
    )
    q.add_argument("--out", type=Path, default=None, help="write the script to FILE (not stdout)")
    return q


def run(args: argparse.Namespace, progress: Progress) -> None:
    from ..measure.export import to_sql

    script = to_sql(
        args.original,
        args.synthetic,
        target=csv_list(args.target),
        dialect=args.dialect,
        tables=script_tables(args),
        tau=args.tau,
        **target_kwargs(args),
        **common_kwargs(args),
    )
    if args.out is None:
        sys.stdout.write(script)
    else:
        write_text(args.out, script)
