"""``discosql singling-out``: the GDPR's singling-out test (:func:`discosql.singling_out`;
with --sql the script of :func:`discosql.singling_out_to_sql`)."""

from __future__ import annotations

import argparse
from typing import Any

import pyarrow as pa

from ..anonymity.export import singling_out_to_sql
from ..anonymity.singling_out import SinglingOutOptions, singling_out
from ..core.files import write_text
from .args import engine_of, script_options
from .flags import add_flags, flag_values
from .options import add_anonymity_script, add_engine_options, add_output_options
from .output import Progress, write_attack

NAME = "singling-out"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand and its flags, then the engine, output and script options."""
    p: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="the singling-out test: predicates that single out one synthetic record and "
        "one original record (anonymeter's attack, exact)",
    )
    p.add_argument("original", help="original data: a Parquet or CSV path, glob or directory")
    p.add_argument("synthetic", help="one synthetic data set")
    add_flags(p, SinglingOutOptions)
    p.add_argument(
        "--control",
        default=None,
        metavar="FILE",
        help="a holdout of the original that the synthesis was not made from, of the "
        "original's size: adds the control rate and the risk",
    )
    add_engine_options(p)
    add_output_options(p)
    add_anonymity_script(p)
    return p


def run(args: argparse.Namespace, progress: Progress) -> None:
    """The attack's numbers: a summary and the table by columns (text), the result's
    ``to_dict()`` (JSON), or the table by columns (CSV: the columns joined by ", ";
    Parquet); with --sql the script written to FILE instead."""
    given = {**flag_values(args, SinglingOutOptions), "control": args.control}
    if args.sql is not None:
        script = singling_out_to_sql(args.original, args.synthetic, **given, **script_options(args))
        write_text(args.sql, script)
        return
    res = singling_out(
        args.original, args.synthetic, **given, engine=engine_of(args), threads=args.threads
    )
    table = res.by_columns
    names = [", ".join(c) for c in table.column("columns").to_pylist()]
    flat = table.set_column(0, "columns", pa.array(names, pa.string()))
    write_attack(res, table, flat, args.format, args.out)
