"""``discosql suda``: the original data's special uniques (:func:`discosql.suda`, sdcMicro's
``suda2()``): SUDA2 scores and DIS-SUDA; with --sql one script instead
(:func:`discosql.suda_to_sql`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..core.files import write_text
from ..risk.suda import SudaOptions
from .args import engine_of
from .flags import add_flags, flag_values
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
    add_flags(s, SudaOptions)
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
    from ..risk.suda import suda

    SudaOptions.of(args, original_scores=not args.ihsn_scores)  # checked before any data
    if args.sql is not None:
        no_id_in_scripts(args)
        _suda_script(args)
        return
    per_record, out = live_records(args)
    streamed = per_record and args.out is not None
    res = suda(
        args.data,
        **_options(args),
        engine=engine_of(args),
        threads=args.threads,
        out=out,
        out_table=args.out_table,
        overwrite=args.overwrite,
        progress=progress.stage,
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
    options = _options(args)
    del options["id"]  # no_id_in_scripts: not in a script
    script = suda_to_sql(
        args.data,
        **options,
        dialect=args.dialect,
        table=args.table,
        out=str(args.out) if args.out is not None else None,
        out_table=args.out_table,
        overwrite=True,
        engine=engine_of(args),
        threads=args.threads,
    )
    write_text(args.sql, script)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """suda()'s options from the flags (--ihsn-scores: not the original scores)."""
    return flag_values(args, SudaOptions) | {"original_scores": not args.ihsn_scores}
