"""What several subcommands pass the Python API, read off their flags the same way: the
measures' options (disclosure, sql, summary, sweep, report), one target's (disclosure, sql),
many targets' (summary, sweep, report), and where the per-record table of a risk or suda run
goes."""

from __future__ import annotations

import argparse
from typing import Any

from .args import dialect_given, engine_of
from .options import UsageError, boolean, parse_cont_na, target_map


def common_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The measures' options from their flags (disclosure, sql, summary, sweep, report)."""
    return {
        "keys": args.keys,
        "denom_lim": args.denom_lim,
        "exclude_ov_denom_lim": args.exclude_ov_denom_lim,
        "use_keys_na": args.use_keys_na,
        "ngroups_keys": args.ngroups_keys,
        "cont_na": parse_cont_na(args.cont_na),
        "thresh_1way": args.thresh_1way,
        "thresh_2way": args.thresh_2way,
        "threads": args.threads,
        "engine": engine_of(args),
    }


def target_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """disclosure's options of its one target from their flags (disclosure, sql)."""
    ex = args.exclude or []
    return {
        "not_targetlev": args.not_targetlev,
        "use_target_na": args.use_target_na,
        "exclude_keys": [e[0] for e in ex] or None,
        "exclude_keylevs": [e[1] for e in ex] or None,
        "exclude_targetlevs": [e[2] for e in ex] or None,
        "ngroups_target": args.ngroups_target,
    }


def targets_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """disclosure_summary's per-target options from their flags (summary, sweep, report)."""
    exclude: dict[str, list[tuple[str, str, str]]] = {}
    for target, key, keylev, targetlev in args.exclude or []:
        exclude.setdefault(target, []).append((key, keylev, targetlev))
    not_targetlevs: dict[str, list[str]] = {}
    for item in args.not_targetlevs or []:
        target, sep, level = item.partition("=")
        if not sep:
            raise UsageError(f"--not-targetlevs: expected TARGET=LEVEL, got {item!r}")
        not_targetlevs.setdefault(target, []).append(level)
    return {
        "not_targetlevs": not_targetlevs or None,
        "use_targets_na": target_map(args.use_targets_na, "--use-targets-na", boolean)
        if args.use_targets_na
        else True,
        "ngroups_targets": target_map(args.ngroups_targets, "--ngroups-targets", int),
        "exclude": exclude or None,
    }


def live_records(args: argparse.Namespace) -> tuple[bool, str | None]:
    """The options of a risk or suda run (not --sql): whether the per-record table is the
    output (--format csv/parquet), and where it goes (--out FILE, or with --out-table the
    DuckDB database --out names; None: returned)."""
    if args.table is not None or dialect_given(args):
        raise UsageError("--dialect/--table: only with --sql")
    per_record = args.format in ("csv", "parquet")
    if args.out_table is not None and per_record:
        raise UsageError(
            "--out-table: the per-record table goes there; --format csv/parquet "
            "would print it too (give table or json for the summary)"
        )
    wanted = per_record or args.out_table is not None
    return per_record, str(args.out) if wanted and args.out is not None else None


def no_id_in_scripts(args: argparse.Namespace) -> None:
    """--id is refused with --sql (risk, suda)."""
    if args.id is not None:
        raise UsageError(
            "--id: not with --sql (an exported script numbers the records as its engine "
            "stores them); run the command on the engine itself for a table with the id"
        )
