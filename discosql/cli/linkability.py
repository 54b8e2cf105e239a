"""``discosql linkability``: the GDPR's linkability test (:func:`discosql.linkability`; with
--sql the script of :func:`discosql.linkability_to_sql`)."""

from __future__ import annotations

import argparse
from typing import Any

from ..anonymity.export import linkability_to_sql
from ..anonymity.linkability import LinkabilityOptions, linkability
from ..core.files import write_text
from .args import csv_list, engine_of, script_options
from .flags import add_flags, flag_values
from .options import add_anonymity_script, add_engine_options, add_output_options
from .output import Progress, write_attack

NAME = "linkability"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand and its flags, then the engine, output and script options."""
    p: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="the linkability test: original records whose closest synthetic records on two "
        "sets of columns share one (anonymeter's attack, its Gower distance on numeric "
        "columns, exact, every record and every tie)",
    )
    p.add_argument("original", help="original data: a Parquet or CSV path, glob or directory")
    p.add_argument("synthetic", help="one synthetic data set")
    for side in "ab":
        p.add_argument(
            f"--{side}",
            type=csv_list,
            required=True,
            metavar="C1,C2,...",
            help=f"the attacker's columns {side.upper()}, comma-separated",
        )
    add_flags(p, LinkabilityOptions, skip=("aux_cols",))
    p.add_argument(
        "--control",
        default=None,
        metavar="FILE",
        help="a holdout of the original that the synthesis was not made from: adds the "
        "control rate and the risk",
    )
    add_engine_options(p)
    add_output_options(p)
    add_anonymity_script(p)
    return p


def run(args: argparse.Namespace, progress: Progress) -> None:
    """The attack's numbers: a summary and the table by distance (text), the result's
    ``to_dict()`` (JSON), or the table by distance (CSV, Parquet); with --sql the script
    written to FILE instead."""
    if args.sql is not None:
        script = linkability_to_sql(
            args.original,
            args.synthetic,
            aux_cols=(args.a, args.b),
            control=args.control,
            numeric=args.numeric,
            **script_options(args),
        )
        write_text(args.sql, script)
        return
    res = linkability(
        args.original,
        args.synthetic,
        aux_cols=(args.a, args.b),
        control=args.control,
        **flag_values(args, LinkabilityOptions),
        engine=engine_of(args),
        threads=args.threads,
    )
    table = res.by_distance
    write_attack(res, table, table, args.format, args.out)
