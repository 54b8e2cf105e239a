"""Exported scripts run outside discosql: by the duckdb shell (the duckdb-cli wheel) and by
Apache DataFusion (in-process)."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import sqlglot


def duckdb_cli() -> str:
    """The duckdb shell of the duckdb-cli wheel (next to this Python), else on PATH."""
    here = Path(sys.executable).parent / "duckdb"
    found = str(here) if here.exists() else shutil.which("duckdb")
    assert found, "the duckdb shell is missing: pip install duckdb-cli (in the test extra)"
    return found


def shell_result(
    script: str, cwd: Path, flags: tuple[str, ...] = ("-bail",)
) -> tuple[list[list[dict[str, Any]]], str, int]:
    """Run ``script`` in the duckdb shell with ``flags`` (-bail: the first error stops it; a
    database file may follow; none: it goes on after errors): every result table printed,
    its stderr and its exit status."""
    out = subprocess.run(
        [duckdb_cli(), "-json", *flags],
        input=script,
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )
    decoder, text, pos, tables = json.JSONDecoder(), out.stdout, 0, []
    while text[pos:].strip():
        while text[pos].isspace():
            pos += 1
        table, pos = decoder.raw_decode(text, pos)
        tables.append(table)
    return tables, out.stderr, out.returncode


def run_shell(script: str, cwd: Path) -> list[list[dict[str, Any]]]:
    """Run ``script`` in the duckdb shell; every result table as a list of rows."""
    out = subprocess.run(
        [duckdb_cli(), "-json"], input=script, capture_output=True, text=True, cwd=cwd, check=False
    )
    assert out.returncode == 0, out.stderr
    decoder, text, pos, tables = json.JSONDecoder(), out.stdout, 0, []
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            return tables
        table, pos = decoder.raw_decode(text, pos)
        tables.append(table)


def run_datafusion(script: str, tables: dict[str, str], ctx: Any = None) -> list[Any]:
    """Run a DataFusion script statement by statement, with each Parquet file of ``tables``
    registered under its name (in ``ctx``, default a new session); every result table, in
    order."""
    import datafusion

    from discosql.sql.dialects import writer

    ctx = ctx or datafusion.SessionContext()
    for name, path in tables.items():
        ctx.register_parquet(name, path)
    # the script's own text, statement by statement (split at its semicolon tokens)
    tokens = sqlglot.Dialect.get_or_raise(writer("datafusion")).tokenize(script)
    ends = [t.end for t in tokens if t.token_type == sqlglot.tokens.TokenType.SEMICOLON]
    results = []
    for start, end in itertools.pairwise([-1, *ends]):
        text = script[start + 1 : end]
        table = ctx.sql(text).to_arrow_table()
        if isinstance(sqlglot.parse_one(text, read="postgres"), sqlglot.exp.Query):
            results.append(table)
    assert not any(name.startswith("__disco_") for name in ctx.catalog().schema().names())
    return results
