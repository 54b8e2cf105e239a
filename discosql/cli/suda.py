"""``discosql suda``: the original data's special uniques (:func:`discosql.suda`, sdcMicro's
``suda2()``): SUDA2 scores and DIS-SUDA; with --sql one script instead
(:func:`discosql.suda_to_sql`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..core.files import write_text
from .args import csv_list, engine_of
from .kwargs import live_records, no_id_in_scripts
from .options import (
    UsageError,
    add_engine_options,
    add_id,
    add_output_options,
    add_risk_script_options,
)
from .output import Progress, write

NAME = "suda"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand and its flags."""
    s: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="special uniques of the original data: SUDA2 scores and DIS-SUDA (sdcMicro suda2())",
    )
    s.add_argument(
        "data",
        help="the data: a Parquet or CSV path, glob or directory (a table "
        "name with --engine postgresql://...)",
    )
    s.add_argument("--keys", type=csv_list, required=True, help="key columns, comma-separated")
    s.add_argument(
        "--dis-fraction",
        type=float,
        default=0.01,
        metavar="F",
        help="the sampling fraction of DIS-SUDA, 0 to 1 (default 0.01)",
    )
    s.add_argument(
        "--max-size",
        type=int,
        default=None,
        metavar="K",
        help="look for MSUs of up to K keys (default: all keys)",
    )
    s.add_argument(
        "--ihsn-scores",
        action="store_true",
        help="the IHSN weights (2^(M-k) - 1) / C(M, k), not (M - k)!",
    )
    s.add_argument(
        "--out-table",
        default=None,
        metavar="NAME",
        help="the per-record table to create (in --out FILE.duckdb, on the "
        "engine's database, or with --sql where the script runs)",
    )
    add_risk_script_options(s)
    add_id(s)
    add_engine_options(s)
    add_output_options(s)
    return s


def run(args: argparse.Namespace, progress: Progress) -> None:
    """The DIS-SUDA table, MSU sizes and contributions (table, json), or the per-record table
    (csv, parquet: with --out streamed to FILE; --out-table: a table, the summary printed)."""
    from ..risk.suda import check_arguments, suda

    check_arguments(args.keys, args.dis_fraction, not args.ihsn_scores, args.max_size)
    if args.sql is not None:
        no_id_in_scripts(args)
        _suda_script(args)
        return
    per_record, out = live_records(args)
    streamed = per_record and args.out is not None
    res = suda(
        args.data,
        args.keys,
        dis_fraction=args.dis_fraction,
        original_scores=not args.ihsn_scores,
        max_size=args.max_size,
        engine=engine_of(args),
        threads=args.threads,
        out=out,
        out_table=args.out_table,
        overwrite=args.overwrite,
        progress=progress.stage,
        id=args.id,
    )
    if streamed:
        return
    if per_record:
        assert res.records is not None
        write(res.records, "", args.format, None)
        return
    if args.format == "json":
        payload = res.to_dict() | ({"written": list(res.written)} if res.written else {})
        text = json.dumps(payload, indent=1, ensure_ascii=False, default=str) + "\n"
    else:
        text = str(res) + "\n"
    if args.out is None or args.out_table is not None:
        sys.stdout.write(text)
    else:
        write_text(args.out, text)


def _suda_script(args: argparse.Namespace) -> None:
    """--sql: the SUDA2 script written to FILE."""
    from ..risk.export import suda_to_sql

    if args.format not in ("table", "csv", "parquet"):
        raise UsageError("--format json: not with --sql (the script prints the tables)")
    script = suda_to_sql(
        args.data,
        args.keys,
        dis_fraction=args.dis_fraction,
        original_scores=not args.ihsn_scores,
        max_size=args.max_size,
        dialect=args.dialect,
        table=args.table,
        out=str(args.out) if args.out is not None else None,
        out_table=args.out_table,
        overwrite=True,
        engine=engine_of(args),
        threads=args.threads,
    )
    write_text(args.sql, script)
