"""``discosql inference``: anonymeter's inference attack (:func:`discosql.inference`), exact
over every original record and every tie."""

from __future__ import annotations

import argparse
from typing import Any

import pyarrow as pa

from ..anonymity.inference import InferenceOptions, inference
from .args import engine_of
from .flags import add_flags, flag_values
from .options import add_engine_options, add_output_options
from .output import Progress, write_attack

NAME = "inference"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand and its flags, then the engine and output options."""
    p: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="the inference test: a target's secret guessed from its closest synthetic "
        "records on the columns the attacker knows (anonymeter's attack, exact, every record "
        "and every tie)",
    )
    p.add_argument("original", help="original data: a Parquet or CSV path, glob or directory")
    p.add_argument("synthetic", help="one synthetic data set")
    add_flags(p, InferenceOptions, skip=("regression",))
    p.add_argument(
        "--exact",
        action="store_true",
        help="compare a numeric secret exactly (anonymeter's regression=False); by default "
        "a numeric guess within the tolerance is right",
    )
    p.add_argument(
        "--control",
        default=None,
        metavar="FILE",
        help="a holdout of the original that the synthesis was not made from: adds the "
        "control rate and the risk",
    )
    add_engine_options(p)
    add_output_options(p)
    return p


def run(args: argparse.Namespace, progress: Progress) -> None:
    """The attack's numbers: the text and a table of them (table format), the result's
    ``to_dict()`` (JSON), or the table (CSV, Parquet)."""
    res = inference(
        args.original,
        args.synthetic,
        control=args.control,
        regression=False if args.exact else None,
        **flag_values(args, InferenceOptions),
        engine=engine_of(args),
        threads=args.threads,
    )
    numbers = {k: v for k, v in res.summary().items() if not isinstance(v, list)}
    table = pa.Table.from_pylist([numbers])
    write_attack(res, table, table, args.format, args.out)
