"""``discosql dcr``: the distance from each synthetic record to its closest original record
(:func:`discosql.dcr`), exact over every record, with a control and a baseline."""

from __future__ import annotations

import argparse
from typing import Any

from ..anonymity.dcr import DcrOptions, dcr
from ..anonymity.distance_api import NO_SCRIPT
from ..errors import InputError
from .args import engine_of
from .flags import add_flags, flag_values
from .options import add_engine_options, add_output_options
from .output import Progress, write_measured

NAME = "dcr"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand and its flags, then the engine and output options."""
    p: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="distance to the closest record (SDMetrics' distance, numeric columns included), "
        "exact over every record; with a control, SDMetrics' DCROverfittingProtection",
    )
    p.add_argument("original", help="original data: a Parquet or CSV path, glob or directory")
    p.add_argument("synthetic", nargs="+", help="synthetic data set(s): m syntheses")
    add_flags(p, DcrOptions)
    p.add_argument(
        "--control",
        default=None,
        metavar="FILE",
        help="a holdout of the original that the syntheses were not made from: each record's "
        "distance to it, closer_to_training, DCROverfittingProtection and the DCR share",
    )
    p.add_argument(
        "--baseline",
        default=None,
        metavar="FILE",
        help="a data set to compare with (such as SDMetrics' random table): its median DCR "
        "and DCRBaselineProtection",
    )
    p.add_argument(
        "--records",
        default=None,
        metavar="FILE",
        help="also write the per-record table (synthesis, row, dcr, dcr_control, nndr) to "
        "this Parquet or CSV file",
    )
    p.add_argument(
        "--sql",
        default=None,
        metavar="FILE",
        help="not available: the exact search decides its rounds from the data, so there is "
        "no fixed script; run it where the data live (--engine)",
    )
    add_engine_options(p)
    add_output_options(p)
    return p


def run(args: argparse.Namespace, progress: Progress) -> None:
    """The summary (table format: the text and the table; JSON: the result's ``to_dict()``;
    CSV, Parquet: the summary table); with --records the per-record table too."""
    if args.sql is not None:
        raise InputError(NO_SCRIPT.format(what="--sql"))
    syn = args.synthetic[0] if len(args.synthetic) == 1 else list(args.synthetic)
    res = dcr(
        args.original,
        syn,
        control=args.control,
        baseline=args.baseline,
        **flag_values(args, DcrOptions),
        engine=engine_of(args),
        threads=args.threads,
    )
    write_measured(res, args.records, args.format, args.out)
