"""``discosql membership``: membership inference by distance (:func:`discosql.membership`):
the original's records (members) and a control's (non-members) scored by their distance to
the synthesis, with the exact ROC AUC and true-positive rates at fixed false-positive rates."""

from __future__ import annotations

import argparse
from typing import Any

from ..anonymity.distance_api import NO_SCRIPT
from ..anonymity.membership import MembershipOptions, membership
from ..errors import InputError
from .args import engine_of
from .flags import add_flags, flag_values
from .options import add_engine_options, add_output_options
from .output import Progress, write_measured

NAME = "membership"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand and its flags, then the engine and output options."""
    p: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="membership inference by distance: members (the original) and non-members (a "
        "control) scored by their distance to the synthesis; exact AUC and TPR at FPR",
    )
    p.add_argument("original", help="original data (the members): a Parquet or CSV path")
    p.add_argument("synthetic", nargs="+", help="synthetic data set(s): m syntheses")
    p.add_argument(
        "--control",
        required=True,
        metavar="FILE",
        help="a holdout of the original that the syntheses were not made from (the non-members)",
    )
    p.add_argument(
        "--auxiliary",
        default=None,
        metavar="FILE",
        help="a data set of the same population the generator did not see either: adds the "
        "DCR-difference attack (dcr_diff_auc, ...)",
    )
    add_flags(p, MembershipOptions)
    p.add_argument(
        "--records",
        default=None,
        metavar="FILE",
        help="also write the per-candidate table (synthesis, member, row, dcr, score) to this "
        "Parquet or CSV file",
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
    CSV, Parquet: the summary table); with --records the per-candidate table too."""
    if args.sql is not None:
        raise InputError(NO_SCRIPT.format(what="--sql"))
    syn = args.synthetic[0] if len(args.synthetic) == 1 else list(args.synthetic)
    res = membership(
        args.original,
        syn,
        args.control,
        auxiliary=args.auxiliary,
        **flag_values(args, MembershipOptions),
        engine=engine_of(args),
        threads=args.threads,
    )
    write_measured(res, args.records, args.format, args.out)
