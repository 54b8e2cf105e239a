"""What every subcommand reads off its arguments the same way: comma-separated names, the
engine from ``--engine``, ``--memory-limit`` and ``--temp-dir``, whether ``--dialect`` names
another dialect, the tables an exported script reads. A leaf module: the shared options and
every subcommand's module import it."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import InputError
from ..sql.dialects import is_template_dialect


def csv_list(text: str) -> list[str]:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``."""
    return [x.strip() for x in text.split(",") if x.strip()]


def engine_of(args: argparse.Namespace) -> Any:
    """engine= from --engine, --memory-limit and --temp-dir (the limits are DuckDB's)."""
    if args.memory_limit is None and args.temp_dir is None:
        return args.engine
    if args.engine is not None and not is_template_dialect(args.engine):  # not the embedded one
        raise InputError("--memory-limit and --temp-dir apply to DuckDB, not to --engine DSN")
    from ..engines.factory import duckdb_engine

    return duckdb_engine(memory_limit=args.memory_limit, temp_directory=args.temp_dir)


def dialect_given(args: argparse.Namespace) -> bool:
    """Whether --dialect names another dialect than the default (DuckDB's)."""
    return not is_template_dialect(args.dialect)


def script_tables(args: argparse.Namespace) -> dict[str, Any] | None:
    """What an exported script reads, from --original-table, --synthetic-tables and (the
    anonymity tests) --control-table."""
    tables: dict[str, Any] = {}
    if args.original_table:
        tables["original"] = args.original_table
    if args.synthetic_tables:
        tables["synthetic"] = args.synthetic_tables
    if getattr(args, "control_table", None):
        tables["control"] = args.control_table
    return tables or None


def script_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of an anonymity test's ``*_to_sql`` from --dialect, the table
    names and the engine options."""
    if args.out is not None:
        raise InputError("--out: not with --sql (the script is written to the --sql FILE)")
    return {
        "dialect": args.dialect,
        "tables": script_tables(args),
        "engine": engine_of(args),
        "threads": args.threads,
    }
