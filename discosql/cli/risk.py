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
from ..risk.individual import RiskOptions
from ..risk.ldiversity import LDiversityOptions
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
    add_flags(r, RiskOptions)
    add_flags(r, LDiversityOptions, skip=["keys"], defaults={"sensitive": None})
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
    risk_options = flag_values(args, RiskOptions)
    del risk_options["id"]  # no_id_in_scripts: not in a script
    script = risk_to_sql(
        args.data,
        **risk_options,
        out=out,
        out_table=args.out_table,
        **options,
    )
    if args.sensitive is not None:
        l_out = (
            None
            if args.out is None
            else str(args.out.with_name(f"{args.out.stem}_ldiversity{args.out.suffix}"))
        )
        l_table = f"{args.out_table}_ldiversity" if args.out_table else None
        script += "\n" + ldiversity_to_sql(
            args.data,
            **flag_values(args, LDiversityOptions),
            out=l_out,
            out_table=l_table,
            **options,
        )
    write_text(args.sql, script)


def run(args: argparse.Namespace, progress: Progress) -> None:
    """The board's summary (table, json), or the per-record table (csv, parquet: with --out
    streamed to FILE, and the l-diversity records to FILE_ldiversity.ext beside it)."""
    from ..risk.individual import risk
    from ..risk.ldiversity import ldiversity

    RiskOptions.of(args)  # every flag checked before any data is read
    if args.sensitive is not None:
        LDiversityOptions.of(args)
    if args.sql is not None:
        no_id_in_scripts(args)
        _risk_script(args)
        return
    per_record, out = live_records(args)
    streamed = per_record and args.out is not None
    l_out = None
    if streamed and args.sensitive is not None:
        l_out = str(args.out.with_name(f"{args.out.stem}_ldiversity{args.out.suffix}"))
    l_table = None
    if args.out_table is not None:  # in --out FILE.duckdb, else on the engine's database
        l_out, l_table = out, f"{args.out_table}_ldiversity"
    common = {"engine": engine_of(args), "threads": args.threads}
    res = risk(
        args.data,
        **flag_values(args, RiskOptions),
        out=out,
        out_table=args.out_table,
        overwrite=args.overwrite,
        **common,
    )
    ldiv = None
    if args.sensitive is not None:
        ldiv = ldiversity(
            args.data,
            **flag_values(args, LDiversityOptions),
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
