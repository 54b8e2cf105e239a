"""``discosql summary``: many targets at once (:func:`discosql.disclosure_summary`,
synthpop's ``multi.disclosure()``), with its comparison plot if asked for."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..core.results import ATTRIB_MEASURES, IDENT_MEASURES
from .args import csv_list
from .kwargs import common_kwargs, targets_kwargs
from .options import add_common, add_targets_options
from .output import Progress, save_figure, write

NAME = "summary"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand and its flags."""
    s: argparse.ArgumentParser = sub.add_parser(
        NAME, help="many targets at once (synthpop multi.disclosure())"
    )
    add_common(s)
    s.add_argument(
        "--targets",
        type=csv_list,
        default=None,
        help="(targets) comma-separated; default: every column of both sides not a key",
    )
    s.add_argument(
        "--ident-meas", default="repU", choices=list(IDENT_MEASURES), help="(ident.meas)"
    )
    s.add_argument(
        "--attrib-meas",
        default="DiSCO",
        choices=list(ATTRIB_MEASURES),
        help="(attrib.meas)",
    )
    add_targets_options(s)
    s.add_argument(
        "--plot",
        type=Path,
        default=None,
        metavar="FILE.png|.svg",
        help="save synthpop's comparison plot",
    )
    return s


def run(args: argparse.Namespace, progress: Progress) -> None:
    from ..measure.summary import disclosure_summary

    s = disclosure_summary(
        args.original,
        args.synthetic,
        targets=args.targets,
        ident_meas=args.ident_meas,
        attrib_meas=args.attrib_meas,
        progress=progress.step,
        tau=args.tau,
        **targets_kwargs(args),
        **common_kwargs(args),
    )
    if args.plot is not None:
        save_figure(s.plot(), args.plot)
    write(s.table, str(s), args.format, args.out)
