"""What every subcommand reads off its arguments the same way: comma-separated names, and
the engine from ``--engine``, ``--memory-limit`` and ``--temp-dir``. A leaf module: the
parser and the commands both import it."""

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
