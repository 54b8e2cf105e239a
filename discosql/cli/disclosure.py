"""``discosql disclosure``: all measures for one target (:func:`discosql.disclosure`,
synthpop's ``disclosure()``), printed as the result and its measures table, or one of its
tables as JSON, CSV or Parquet."""

from __future__ import annotations

import argparse
from typing import Any

from ..core.results import TABLE_NAMES
from .kwargs import common_kwargs, target_kwargs
from .options import add_common, add_target_options
from .output import Progress, text_table, write

NAME = "disclosure"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand and its flags."""
    d: argparse.ArgumentParser = sub.add_parser(
        NAME, help="all measures for one target (synthpop disclosure())"
    )
    add_common(d)
    add_target_options(d)
    d.add_argument(
        "--table",
        choices=TABLE_NAMES,
        default="measures",
        help="which table --format json/csv/parquet writes (default: measures)",
    )
    return d


def run(args: argparse.Namespace, progress: Progress) -> None:
    from ..measure.disclosure import disclosure

    progress.current = f"target {args.target}"
    res = disclosure(
        args.original,
        args.synthetic,
        target=args.target,
        tau=args.tau,
        **target_kwargs(args),
        **common_kwargs(args),
    )
    table = getattr(res, args.table)
    text = f"{res}\n\n{text_table(res.measures.drop_columns(['target']))}"
    if args.table != "measures":
        text = f"{res}\n\n{text_table(table)}"
    write(table, text, args.format, args.out)
