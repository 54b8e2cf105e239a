"""The ``discosql`` command line's flag values and shared options: the parsers of flag
values (booleans, lists, pairs, per-target maps) and the groups of options that several
subcommands share (data, engine, output, script, targets, risk's and suda's script and id);
each subcommand's module builds its flags from them."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..protect.uniques import SYNTHPOP_DEFAULT, SYNTHPOP_RELEASES
from ..sql.dialects import DEFAULT, DIALECTS, ORDERED_DIALECTS, UNEXECUTED
from .args import csv_list

# what --dialect says of the dialects whose scripts no test has run
UNTRIED = f"; {', '.join(UNEXECUTED)}: parsed only, never executed (docs/engines.md)"


class UsageError(Exception):
    """A flag value that cannot be parsed."""


def boolean(text: str) -> bool:
    value = text.strip().lower()
    if value in ("true", "t", "yes", "1"):
        return True
    if value in ("false", "f", "no", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def booleans(text: str) -> bool | list[bool]:
    values = [boolean(x) for x in text.split(",")]
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


def _probabilities(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected probabilities in [0, 1], comma-separated, got {text!r}"
        ) from None


def _add_tau(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--tau",
        type=_probabilities,
        default=None,
        metavar="P[,P...]",
        help="(tau) certainties in [0, 1]: DiSCO(tau), the share of original records whose "
        "probability of correct attribution reaches tau (the table disco_tau)",
    )


def parse_cont_na(items: list[str] | None) -> dict[str, list[float]] | None:
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


def target_map(items: list[str] | None, flag: str, convert: Any) -> Any:
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


def _add_measure_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--keys", required=True, type=csv_list, help="key columns, comma-separated (keys)"
    )
    p.add_argument("--denom-lim", type=int, default=5, help="(denom_lim) default 5")
    p.add_argument(
        "--exclude-ov-denom-lim",
        action="store_true",
        help="(exclude_ov_denom_lim) drop cells with counts above --denom-lim",
    )
    p.add_argument(
        "--use-keys-na",
        type=booleans,
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


def add_common(p: argparse.ArgumentParser, outputs: bool = True, measures: bool = True) -> None:
    p.add_argument(
        "original",
        help="original data: a Parquet or CSV path, glob or directory (a table name with "
        "--engine postgresql://...)",
    )
    p.add_argument("synthetic", nargs="+", help="synthetic data set(s): m syntheses")
    if not measures:  # replicated uniques: keys only, by default every column
        p.add_argument(
            "--keys",
            type=csv_list,
            default=None,
            help="key columns, comma-separated (default: every column of the original)",
        )
    else:
        _add_measure_options(p)
    add_engine_options(p)
    if outputs:
        add_output_options(p)


def add_synthpop(
    p: argparse.ArgumentParser, what: str, default: str | None = SYNTHPOP_DEFAULT
) -> None:
    p.add_argument(
        "--synthpop",
        choices=list(SYNTHPOP_RELEASES),
        default=default,
        help=f"the synthpop release {what} (default {SYNTHPOP_DEFAULT}, the release on CRAN)",
    )


def add_engine_options(p: argparse.ArgumentParser) -> None:
    """Where the SQL runs (every subcommand that reads data)."""
    p.add_argument(
        "--threads",
        type=positive,
        default=None,
        metavar="N",
        help="DuckDB threads (default: all cores)",
    )
    p.add_argument(
        "--engine",
        default=None,
        metavar="duckdb|DSN",
        help="where the SQL runs: duckdb (default) or a PostgreSQL DSN "
        "(postgresql://user@host:port/db or 'host=... dbname=... user=...'; the data sets are "
        "then table names there; give a password with PGPASSWORD or ~/.pgpass)",
    )
    p.add_argument(
        "--memory-limit",
        default=None,
        metavar="SIZE",
        help="DuckDB: the process's memory limit such as 4GB (DuckDB gets 80%% of it and "
        "spills to --temp-dir above that)",
    )
    p.add_argument(
        "--temp-dir", default=None, metavar="DIR", help="DuckDB: where to spill (default .tmp)"
    )
    p.add_argument(
        "--debug", action="store_true", help="show the full traceback of an internal error"
    )


def add_output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--format",
        choices=["table", "json", "csv", "parquet"],
        default="table",
        help="output format (default: table, aligned for a terminal)",
    )
    p.add_argument("--out", type=Path, default=None, help="write the output to FILE (not stdout)")


def add_script_options(p: argparse.ArgumentParser, what: str) -> None:
    """--sql FILE and what the script reads (sdc, sweep)."""
    p.add_argument(
        "--sql",
        type=Path,
        default=None,
        metavar="FILE",
        help=f"write {what} as one SQL script to FILE, not run it",
    )
    p.add_argument(
        "--dialect",
        default=DEFAULT,
        choices=DIALECTS,
        help=f"with --sql: the script's dialect (default: duckdb{UNTRIED})",
    )
    p.add_argument(
        "--original-table",
        default=None,
        metavar="NAME",
        help="with --sql: the table the script reads as the original data",
    )
    p.add_argument(
        "--synthetic-tables",
        type=csv_list,
        default=None,
        metavar="NAME[,NAME...]",
        help="with --sql: the tables the script reads as the syntheses",
    )


def add_anonymity_script(p: argparse.ArgumentParser) -> None:
    """--sql FILE and what the script reads (singling-out, matches, linkability)."""
    add_script_options(p, "the test")
    p.add_argument(
        "--control-table",
        default=None,
        metavar="NAME",
        help="with --sql: the table the script reads as the control",
    )


def add_risk_script_options(p: argparse.ArgumentParser) -> None:
    """--sql FILE, its dialect and the table it reads (risk, suda)."""
    p.add_argument(
        "--sql",
        type=Path,
        default=None,
        metavar="FILE",
        help="write the measures as one SQL script to FILE, not run them",
    )
    p.add_argument(
        "--dialect",
        default=DEFAULT,
        choices=ORDERED_DIALECTS,
        help=f"with --sql: the script's dialect (default: duckdb{UNTRIED})",
    )
    p.add_argument(
        "--table",
        default=None,
        metavar="NAME",
        help="with --sql: the table the script reads (schema.table)",
    )


def add_id(p: argparse.ArgumentParser) -> None:
    """--id, the column that names each record (risk, suda)."""
    p.add_argument(
        "--id",
        default=None,
        metavar="COLUMN",
        help="a column that names each record (unique, never missing): the per-record "
        "table's first column, to join it back (on PostgreSQL rows have no load order)",
    )


def add_targets_options(s: argparse.ArgumentParser, tau: bool = True) -> None:
    """disclosure_summary's per-target options (summary, sweep, report; ``tau``: with
    --tau)."""
    if tau:
        _add_tau(s)
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


def add_target_options(d: argparse.ArgumentParser) -> None:
    d.add_argument("--target", required=True, help="(target) the target column")
    _add_tau(d)
    d.add_argument(
        "--not-targetlev",
        action="append",
        metavar="LEVEL",
        help="(not.targetlev) target level to drop; repeatable",
    )
    d.add_argument(
        "--use-target-na",
        type=boolean,
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


def positive(text: str) -> int:
    """A positive whole number (a flag's value)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value
