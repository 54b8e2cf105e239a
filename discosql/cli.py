"""The ``discosql`` command line: demo, disclosure (one target), summary (many targets) and sql
(the export), each calling the Python API (flags: :mod:`.cli_parser`).

Bad input prints one line per problem on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from .cli_parser import UsageError, boolean, build_parser, csv_list, parse_cont_na, target_map
from .errors import DiscoSQLError, InputError


class Progress:
    """Says on stderr what is running, once a run has taken more than a couple of seconds."""

    def __init__(self, delay: float = 2.0) -> None:
        self.start = time.monotonic()
        self.delay = delay
        self.current = ""
        self.timer = threading.Timer(delay, self._late)
        self.timer.daemon = True
        self.timer.start()

    def _late(self) -> None:
        print(f"discosql: working ({self.current or 'reading the data'}) ...", file=sys.stderr)

    def step(self, i: int, n: int, target: str) -> None:
        self.current = f"target {i + 1}/{n}: {target}"
        if time.monotonic() - self.start > self.delay:
            print(f"discosql: {self.current}", file=sys.stderr)

    def stop(self) -> None:
        self.timer.cancel()


def _text_table(table: pa.Table) -> str:
    rows = table.to_pylist()
    cols = table.column_names

    def cell(v: object) -> str:
        if isinstance(v, float):
            return "NaN" if math.isnan(v) else f"{v:.4f}"
        return "" if v is None else str(v)

    widths = {c: max([len(c)] + [len(cell(r[c])) for r in rows]) for c in cols}
    lines = ["  ".join(f"{c:>{widths[c]}}" for c in cols)]
    lines += ["  ".join(f"{cell(r[c]):>{widths[c]}}" for c in cols) for r in rows]
    return "\n".join(lines)


def _write(table: pa.Table, text: str, fmt: str, out: Path | None) -> None:
    if fmt == "parquet":
        if out is None:
            raise UsageError("--format parquet needs --out FILE")
        pq.write_table(table, out)
        return
    if fmt == "csv":
        sink = pa.BufferOutputStream()
        pacsv.write_csv(table, sink)
        payload = sink.getvalue().to_pybytes().decode()
    elif fmt == "json":
        rows = [
            {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
            for r in table.to_pylist()
        ]
        payload = json.dumps(rows, indent=1, ensure_ascii=False) + "\n"
    else:
        payload = text + "\n"
    if out is None:
        sys.stdout.write(payload)
    else:
        out.write_text(payload)


def _common_kwargs(args: argparse.Namespace) -> dict[str, Any]:
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
        "engine": _engine(args),
    }


def _engine(args: argparse.Namespace) -> Any:
    if args.memory_limit is None and args.temp_dir is None:
        return args.engine
    if args.engine not in (None, "duckdb"):
        raise InputError("--memory-limit and --temp-dir apply to DuckDB, not to --engine DSN")
    from .engines.factory import duckdb_engine

    return duckdb_engine(memory_limit=args.memory_limit, temp_directory=args.temp_dir)


def _disclosure(args: argparse.Namespace, progress: Progress) -> None:
    from .api import disclosure

    progress.current = f"target {args.target}"
    res = disclosure(
        args.original,
        args.synthetic,
        target=args.target,
        **_target_kwargs(args),
        **_common_kwargs(args),
    )
    table = getattr(res, args.table)
    text = f"{res}\n\n{_text_table(res.measures.drop_columns(['target']))}"
    if args.table != "measures":
        text = f"{res}\n\n{_text_table(table)}"
    _write(table, text, args.format, args.out)


def _target_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    ex = args.exclude or []
    return {
        "not_targetlev": args.not_targetlev,
        "use_target_na": args.use_target_na,
        "exclude_keys": [e[0] for e in ex] or None,
        "exclude_keylevs": [e[1] for e in ex] or None,
        "exclude_targetlevs": [e[2] for e in ex] or None,
        "ngroups_target": args.ngroups_target,
    }


def _sql(args: argparse.Namespace) -> None:
    from .export import to_sql

    tables: dict[str, Any] = {}
    if args.original_table:
        tables["original"] = args.original_table
    if args.synthetic_tables:
        tables["synthetic"] = args.synthetic_tables
    script = to_sql(
        args.original,
        args.synthetic,
        target=csv_list(args.target),
        dialect=args.dialect,
        tables=tables or None,
        **_target_kwargs(args),
        **_common_kwargs(args),
    )
    if args.out is None:
        sys.stdout.write(script)
    else:
        args.out.write_text(script)


def _summary(args: argparse.Namespace, progress: Progress) -> None:
    from .summary import disclosure_summary

    exclude: dict[str, list[tuple[str, str, str]]] = {}
    for target, key, keylev, targetlev in args.exclude or []:
        exclude.setdefault(target, []).append((key, keylev, targetlev))
    not_targetlevs: dict[str, list[str]] = {}
    for item in args.not_targetlevs or []:
        target, sep, level = item.partition("=")
        if not sep:
            raise UsageError(f"--not-targetlevs: expected TARGET=LEVEL, got {item!r}")
        not_targetlevs.setdefault(target, []).append(level)
    s = disclosure_summary(
        args.original,
        args.synthetic,
        targets=args.targets,
        ident_meas=args.ident_meas,
        attrib_meas=args.attrib_meas,
        not_targetlevs=not_targetlevs or None,
        use_targets_na=target_map(args.use_targets_na, "--use-targets-na", boolean)
        if args.use_targets_na
        else True,
        ngroups_targets=target_map(args.ngroups_targets, "--ngroups-targets", int),
        exclude=exclude or None,
        progress=progress.step,
        **_common_kwargs(args),
    )
    if args.plot is not None:
        s.plot().savefig(args.plot, dpi=150)
    _write(s.table, str(s), args.format, args.out)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        from .demo import run_demo

        print(run_demo()[1])
        return 0
    progress = Progress()
    try:
        if args.command == "disclosure":
            _disclosure(args, progress)
        elif args.command == "sql":
            _sql(args)
        else:
            _summary(args, progress)
    except (InputError, UsageError) as e:
        problems = e.problems if isinstance(e, InputError) else [str(e)]
        print(
            f"discosql: error: {' | '.join(p.replace(chr(10), ' ') for p in problems)}",
            file=sys.stderr,
        )
        return 2
    except (DiscoSQLError, OSError) as e:
        print(f"discosql: error: {str(e).splitlines()[0]}", file=sys.stderr)
        return 1
    finally:
        progress.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
