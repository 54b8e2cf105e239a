"""``discosql risk``: the original data's re-identification risk (:func:`discosql.risk`,
sdcMicro's ``measure_risk()``) and, if asked for, its l-diversity (:func:`discosql.ldiversity`);
with --sql one script instead (:func:`discosql.risk_to_sql`,
:func:`discosql.ldiversity_to_sql`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..core.files import write_text
from ..core.outputcheck import MIN_COUNT, ROUND_TO, OutputCheck
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

NAME = "risk"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand and its flags."""
    r: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="re-identification risk and l-diversity of the original data (sdcMicro "
        "measure_risk(), ldiversity())",
    )
    r.add_argument(
        "data",
        help="the data: a Parquet or CSV path, glob or directory (a table "
        "name with --engine postgresql://...)",
    )
    r.add_argument("--keys", type=csv_list, required=True, help="key columns, comma-separated")
    r.add_argument(
        "--weight",
        default=None,
        metavar="W",
        help="sampling weight column (Fk: the population estimate)",
    )
    r.add_argument(
        "--household",
        default=None,
        metavar="H",
        help="household id column: adds the household risk",
    )
    r.add_argument(
        "--alpha",
        type=float,
        default=1.0,
        metavar="A",
        help="weight of a match through a missing key, 0 to 1 (default 1)",
    )
    r.add_argument(
        "--max-global-risk",
        type=float,
        default=0.01,
        metavar="R",
        help="global risk the threshold aims at, in (0, 1) (default 0.01)",
    )
    r.add_argument(
        "--ldiversity",
        type=csv_list,
        default=None,
        metavar="VAR[,VAR...]",
        help="also the l-diversity of these sensitive variables",
    )
    r.add_argument(
        "--l-recurs-c",
        type=float,
        default=2.0,
        metavar="C",
        help="the constant c of recursive (c, l)-diversity (default 2)",
    )
    r.add_argument(
        "--missing-keys",
        choices=["equal", "apart"],
        default="equal",
        help="l-diversity: records with the same missing keys share a cell (equal, the "
        "default: sdcMicro 5.8.2), or a record with a missing key is a cell of its own "
        "(apart: sdcMicro 5.8.0)",
    )
    r.add_argument(
        "--missing-sensitive",
        choices=["category", "distinct", "ignore"],
        default="category",
        help="l-diversity: a variable's missing values are one more value (category, the "
        "default), each a value of its own (distinct: sdcMicro), or left out (ignore)",
    )
    r.add_argument(
        "--mode",
        choices=["internal", "external"],
        default="internal",
        help="external: counts only, never the riskiest cells' levels",
    )
    add_risk_script_options(r)
    r.add_argument(
        "--out-table",
        default=None,
        metavar="NAME",
        help="the per-record table to create (in --out FILE.duckdb, on the engine's "
        "database, or with --sql where the script runs)",
    )
    add_id(r)
    add_engine_options(r)
    add_output_options(r)
    return r


def _risk_script(args: argparse.Namespace) -> None:
    """--sql: the risk script (and the l-diversity one after it) written to FILE."""
    from ..risk.export import ldiversity_to_sql, risk_to_sql

    if args.format not in ("table", "csv", "parquet") or args.mode != "internal":
        raise UsageError("--format json/--mode: not with --sql (the script prints the tables)")
    out = str(args.out) if args.out is not None else None
    options = {
        "dialect": args.dialect,
        "table": args.table,
        "overwrite": True,
        "engine": engine_of(args),
        "threads": args.threads,
    }
    script = risk_to_sql(
        args.data,
        args.keys,
        weight=args.weight,
        household=args.household,
        alpha=args.alpha,
        max_global_risk=args.max_global_risk,
        out=out,
        out_table=args.out_table,
        **options,
    )
    if args.ldiversity is not None:
        l_out = (
            None
            if args.out is None
            else str(args.out.with_name(f"{args.out.stem}_ldiversity{args.out.suffix}"))
        )
        l_table = f"{args.out_table}_ldiversity" if args.out_table else None
        script += "\n" + ldiversity_to_sql(
            args.data,
            args.keys,
            args.ldiversity,
            l_recurs_c=args.l_recurs_c,
            missing_keys=args.missing_keys,
            missing_sensitive=args.missing_sensitive,
            out=l_out,
            out_table=l_table,
            **options,
        )
    write_text(args.sql, script)


def run(args: argparse.Namespace, progress: Progress) -> None:
    """The board's summary (table, json), or the per-record table (csv, parquet: with --out
    streamed to FILE, and the l-diversity records to FILE_ldiversity.ext beside it)."""
    from ..risk.individual import check_arguments as check_risk
    from ..risk.individual import risk
    from ..risk.ldiversity import check_arguments as check_ldiversity
    from ..risk.ldiversity import ldiversity

    check_risk(args.keys, args.weight, args.household, args.alpha, args.max_global_risk)
    if args.ldiversity is not None:
        check_ldiversity(
            args.keys, args.ldiversity, args.l_recurs_c, args.missing_keys, args.missing_sensitive
        )
    if args.sql is not None:
        no_id_in_scripts(args)
        _risk_script(args)
        return
    per_record, out = live_records(args)
    streamed = per_record and args.out is not None
    l_out = None
    if streamed and args.ldiversity is not None:
        l_out = str(args.out.with_name(f"{args.out.stem}_ldiversity{args.out.suffix}"))
    l_table = None
    if args.out_table is not None:  # in --out FILE.duckdb, else on the engine's database
        l_out, l_table = out, f"{args.out_table}_ldiversity"
    common = {"engine": engine_of(args), "threads": args.threads}
    res = risk(
        args.data,
        args.keys,
        weight=args.weight,
        household=args.household,
        alpha=args.alpha,
        max_global_risk=args.max_global_risk,
        out=out,
        out_table=args.out_table,
        overwrite=args.overwrite,
        id=args.id,
        **common,
    )
    ldiv = None
    if args.ldiversity is not None:
        ldiv = ldiversity(
            args.data,
            args.keys,
            args.ldiversity,
            l_recurs_c=args.l_recurs_c,
            missing_keys=args.missing_keys,
            missing_sensitive=args.missing_sensitive,
            out=l_out,
            out_table=l_table,
            overwrite=args.overwrite,
            **common,
        )
    if streamed:
        return
    if per_record:  # csv to stdout
        table = res.records
        assert table is not None
        if ldiv is not None and ldiv.records is not None:
            for name in ldiv.records.column_names[1:]:
                table = table.append_column(name, ldiv.records.column(name))
        write(table, "", args.format, None)
        return
    check = None
    if args.mode == "external":  # no level names; counts and shares through the check
        check = OutputCheck(MIN_COUNT, ROUND_TO, int(res.value("records")))
    if args.format == "json":
        payload = res.to_dict()
        if args.out_table is not None:
            payload["written"] = [*res.written, *(ldiv.written if ldiv else ())]
        if check is not None:
            payload.pop("riskiest")
            payload["summary"] = res.checked(check)
            payload["output_check"] = check.described()
        if ldiv is not None:
            payload["ldiversity"] = ldiv.to_dict(check)
        text = (
            json.dumps(payload, indent=1, ensure_ascii=False, allow_nan=False, default=str) + "\n"
        )
    else:
        ldiv_text = "" if ldiv is None else "\n\n" + ldiv.describe(check)
        text = res.describe(args.mode) + ldiv_text + "\n"
    if args.out is None or args.out_table is not None:
        sys.stdout.write(text)
    else:
        write_text(args.out, text)
