"""``discosql linkability``: the GDPR's linkability test (:func:`discosql.linkability`).

It imports neither :mod:`.parser` nor :mod:`.commands` (the parser imports it: no cycle);
``build_parser`` hands :func:`add_parser` the shared engine and output options.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from ..anonymity.export import linkability_to_sql
from ..anonymity.linkability import linkability
from ..core.files import write_text
from .args import csv_list, engine_of, script_options
from .output import text_table, write


def add_parser(
    sub: Any, *shared: Callable[[argparse.ArgumentParser], None]
) -> argparse.ArgumentParser:
    """The subcommand and its flags; ``shared`` add the options every command has (engine,
    output)."""
    p: argparse.ArgumentParser = sub.add_parser(
        "linkability",
        help="the linkability test: original records whose closest synthetic records on two "
        "sets of columns share one (anonymeter's attack, exact, every record)",
    )
    p.add_argument("original", help="original data: a Parquet or CSV path, glob or directory")
    p.add_argument("synthetic", help="one synthetic data set")
    for side in "ab":
        p.add_argument(
            f"--{side}",
            type=csv_list,
            required=True,
            metavar="C1,C2,...",
            help=f"the attacker's columns {side.upper()}, comma-separated (at most 10)",
        )
    p.add_argument(
        "--control",
        default=None,
        metavar="FILE",
        help="a holdout of the original that the synthesis was not made from: adds the "
        "control rate and the risk",
    )
    for add in shared:
        add(p)
    return p


def run(args: argparse.Namespace) -> None:
    """The attack's numbers: a summary and the table by distance (text), the result's
    ``to_dict()`` (JSON), or the table by distance (CSV, Parquet); with --sql the script
    written to FILE instead."""
    if args.sql is not None:
        script = linkability_to_sql(
            args.original,
            args.synthetic,
            aux_cols=(args.a, args.b),
            control=args.control,
            **script_options(args),
        )
        write_text(args.sql, script)
        return
    res = linkability(
        args.original,
        args.synthetic,
        aux_cols=(args.a, args.b),
        control=args.control,
        engine=engine_of(args),
        threads=args.threads,
    )
    table = res.by_distance
    if args.format == "json":
        text = json.dumps(res.to_dict(), indent=1, ensure_ascii=False)
        write(table, text, "table", args.out)
    elif args.format == "parquet":
        write(table, "", "parquet", args.out)
    else:
        write(table, f"{res}\n\n{text_table(table)}", args.format, args.out)
