"""The ``discosql`` command line: demo, disclosure (one target), summary (many targets).

Every option of the Python API is a flag; ``--help`` names the synthpop argument of each.
Bad input prints one line on stderr and exits with status 2.
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

from .errors import DiscoSQLError, InputError

TABLES = ("measures", "ident", "attrib", "allcaps", "exclusions", "check_1way", "check_2way")


class UsageError(Exception):
    """A flag value that cannot be parsed."""


def _csv_list(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def _bool(text: str) -> bool:
    value = text.strip().lower()
    if value in ("true", "t", "yes", "1"):
        return True
    if value in ("false", "f", "no", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _bools(text: str) -> bool | list[bool]:
    values = [_bool(x) for x in text.split(",")]
    return values[0] if len(values) == 1 else values


def _ints(text: str) -> int | list[int]:
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected integers, got {text!r}") from None
    return values[0] if len(values) == 1 else values


def _pair(text: str) -> tuple[float, float]:
    try:
        a, b = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected two numbers N,PCT, got {text!r}") from None
    return (a, b)


def _cont_na(items: list[str] | None) -> dict[str, list[float]] | None:
    if not items:
        return None
    out: dict[str, list[float]] = {}
    for item in items:
        col, _, codes = item.rpartition("=")
        try:
            out.setdefault(col, []).extend(float(c) for c in codes.split(","))
        except ValueError:
            raise UsageError(f"--cont-na: expected COLUMN=CODE[,CODE], got {item!r}") from None
        if not col:
            raise UsageError(f"--cont-na: expected COLUMN=CODE[,CODE], got {item!r}")
    return out


def _target_map(items: list[str] | None, flag: str, convert: Any) -> Any:
    """``TARGET=VALUE`` items into a dict; a single item without '=' is a value for all."""
    if not items:
        return None
    if len(items) == 1 and "=" not in items[0]:
        return convert(items[0])
    out: dict[str, Any] = {}
    for item in items:
        target, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"{flag}: expected TARGET=VALUE, got {item!r}")
        out[target] = convert(value)
    return out


def _add_common(p: argparse.ArgumentParser, outputs: bool = True) -> None:
    p.add_argument(
        "original",
        help="original data: a Parquet or CSV path, glob or directory (a table name with "
        "--engine postgresql://...)",
    )
    p.add_argument("synthetic", nargs="+", help="synthetic data set(s): m syntheses")
    p.add_argument(
        "--keys", required=True, type=_csv_list, help="key columns, comma-separated (keys)"
    )
    p.add_argument("--denom-lim", type=int, default=5, help="(denom_lim) default 5")
    p.add_argument(
        "--exclude-ov-denom-lim",
        action="store_true",
        help="(exclude_ov_denom_lim) drop cells with counts above --denom-lim",
    )
    p.add_argument(
        "--use-keys-na",
        type=_bools,
        default=True,
        metavar="BOOL[,BOOL...]",
        help="(usekeysNA) false drops key combinations with a missing key; one value "
        "or one per key",
    )
    p.add_argument(
        "--ngroups-keys",
        type=_ints,
        default=None,
        metavar="N[,N...]",
        help="(ngroups_keys) quantile groups for numeric keys; one value or one per key",
    )
    p.add_argument(
        "--cont-na",
        action="append",
        metavar="COLUMN=CODE[,CODE]",
        help="(cont.na) special numeric codes kept as levels when grouping; repeatable",
    )
    p.add_argument(
        "--thresh-1way",
        type=_pair,
        default=(50, 90),
        metavar="N,PCT",
        help="(thresh_1way) default 50,90",
    )
    p.add_argument(
        "--thresh-2way",
        type=_pair,
        default=(4, 80),
        metavar="N,PCT",
        help="(thresh_2way) default 4,80",
    )
    p.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: all cores)")
    p.add_argument(
        "--engine",
        default=None,
        metavar="duckdb|DSN",
        help="where the SQL runs: duckdb (default) or a PostgreSQL DSN "
        "(postgresql://user@host:port/db; the data sets are then table names there)",
    )
    p.add_argument(
        "--memory-limit",
        default=None,
        metavar="SIZE",
        help="DuckDB: memory limit such as 4GB; above it DuckDB spills to --temp-dir",
    )
    p.add_argument(
        "--temp-dir", default=None, metavar="DIR", help="DuckDB: where to spill (default .tmp)"
    )
    if not outputs:
        return
    p.add_argument(
        "--format",
        choices=["table", "json", "csv", "parquet"],
        default="table",
        help="output format (default: table, aligned for a terminal)",
    )
    p.add_argument("--out", type=Path, default=None, help="write the output to FILE (not stdout)")


def _add_target_options(d: argparse.ArgumentParser) -> None:
    d.add_argument("--target", required=True, help="(target) the target column")
    d.add_argument(
        "--not-targetlev",
        action="append",
        metavar="LEVEL",
        help="(not.targetlev) target level to drop; repeatable",
    )
    d.add_argument(
        "--use-target-na",
        type=_bool,
        default=True,
        metavar="BOOL",
        help="(usetargetNA) false drops the target level Missing",
    )
    d.add_argument(
        "--exclude",
        nargs=3,
        action="append",
        metavar=("KEY", "KEYLEV", "TARGETLEV"),
        help="(exclude.keys, exclude.keylevs, exclude.targetlevs) drop the cells "
        "with TARGETLEV whose KEY is KEYLEV; repeatable",
    )
    d.add_argument(
        "--ngroups-target",
        type=int,
        default=None,
        help="(ngroups_target) quantile groups for a numeric target",
    )


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="discosql",
        description="Disclosure risk of synthetic data (synthpop's measures), computed in SQL.",
    )
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="synthpop's published example on the bundled SD2011 data")

    d = sub.add_parser("disclosure", help="all measures for one target (synthpop disclosure())")
    _add_common(d)
    _add_target_options(d)
    d.add_argument(
        "--table",
        choices=TABLES,
        default="measures",
        help="which table --format json/csv/parquet writes (default: measures)",
    )

    q = sub.add_parser(
        "sql", help="export the measures as one SQL script (duckdb shell or a warehouse)"
    )
    _add_common(q, outputs=False)
    _add_target_options(q)
    q.add_argument(
        "--dialect",
        default="duckdb",
        choices=["duckdb", "postgres", "spark", "databricks", "bigquery", "snowflake", "trino",
                 "tsql"],
        help="SQL dialect of the script (default: duckdb, which reads the files named)",
    )  # fmt: skip
    q.add_argument(
        "--original-table",
        default=None,
        metavar="NAME",
        help="table the script reads as the original data (default: the file, duckdb only)",
    )
    q.add_argument(
        "--synthetic-tables",
        type=_csv_list,
        default=None,
        metavar="NAME[,NAME...]",
        help="tables the script reads as the syntheses, one per synthetic data set",
    )
    q.add_argument("--out", type=Path, default=None, help="write the script to FILE (not stdout)")

    s = sub.add_parser("summary", help="many targets at once (synthpop multi.disclosure())")
    _add_common(s)
    s.add_argument(
        "--targets",
        type=_csv_list,
        default=None,
        help="(targets) comma-separated; default: every synthetic column not a key",
    )
    s.add_argument("--ident-meas", default="repU", choices=["repU", "UiOiS"], help="(ident.meas)")
    s.add_argument(
        "--attrib-meas",
        default="DiSCO",
        choices=["DiSCO", "DiSDiO", "DCAP", "TCAP"],
        help="(attrib.meas)",
    )
    s.add_argument(
        "--not-targetlevs",
        action="append",
        metavar="TARGET=LEVEL",
        help="(not.targetslev) a level to drop for a target; repeatable",
    )
    s.add_argument(
        "--use-targets-na",
        action="append",
        metavar="[TARGET=]BOOL",
        help="(usetargetsNA) one value for all targets, or TARGET=BOOL; repeatable",
    )
    s.add_argument(
        "--ngroups-targets",
        action="append",
        metavar="[TARGET=]N",
        help="(ngroups_targets) N for every numeric target, or TARGET=N; repeatable",
    )
    s.add_argument(
        "--exclude",
        nargs=4,
        action="append",
        metavar=("TARGET", "KEY", "KEYLEV", "TARGETLEV"),
        help="(exclude.keys/keylevs/targetlevs per target) repeatable",
    )
    s.add_argument(
        "--plot",
        type=Path,
        default=None,
        metavar="FILE.png|.svg",
        help="save synthpop's comparison plot",
    )
    return p


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
        "cont_na": _cont_na(args.cont_na),
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
    from .engines import duckdb_engine

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
        target=_csv_list(args.target),
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
        use_targets_na=_target_map(args.use_targets_na, "--use-targets-na", _bool)
        if args.use_targets_na
        else True,
        ngroups_targets=_target_map(args.ngroups_targets, "--ngroups-targets", int),
        exclude=exclude or None,
        progress=progress.step,
        **_common_kwargs(args),
    )
    if args.plot is not None:
        s.plot().savefig(args.plot, dpi=150)
    _write(s.table, str(s), args.format, args.out)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
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
