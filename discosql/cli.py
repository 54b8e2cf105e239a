"""The ``discosql`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import pyarrow as pa
import pyarrow.csv as pacsv

from .api import disclosure
from .errors import DiscoSQLError, InputError


def _csv_list(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def _table_text(table: pa.Table) -> str:
    rows = table.to_pylist()
    cols = table.column_names

    def cell(v: object) -> str:
        return f"{v:.6g}" if isinstance(v, float) else str(v)

    widths = {c: max([len(c)] + [len(cell(r[c])) for r in rows]) for c in cols}
    out = ["  ".join(f"{c:>{widths[c]}}" for c in cols)]
    out += ["  ".join(f"{cell(r[c]):>{widths[c]}}" for c in cols) for r in rows]
    return "\n".join(out)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="discosql", description="Disclosure risk of synthetic data, computed in SQL."
    )
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="synthpop's published example on the bundled SD2011 data")
    d = sub.add_parser(
        "disclosure", help="all disclosure measures for one target (synthpop disclosure())"
    )
    d.add_argument("original", help="original data: Parquet or CSV path or glob")
    d.add_argument("synthetic", nargs="+", help="one or more synthetic data sets (m syntheses)")
    d.add_argument(
        "--keys", required=True, type=_csv_list, help="comma-separated key columns (keys)"
    )
    d.add_argument("--target", required=True, help="target column (target)")
    d.add_argument("--denom-lim", type=int, default=5, help="synthpop denom_lim (default 5)")
    d.add_argument(
        "--exclude-ov-denom-lim", action="store_true", help="synthpop exclude_ov_denom_lim"
    )
    d.add_argument("--not-targetlev", type=_csv_list, default=None, help="synthpop not.targetlev")
    d.add_argument("--no-target-na", action="store_true", help="synthpop usetargetNA = FALSE")
    d.add_argument("--no-keys-na", action="store_true", help="synthpop usekeysNA = FALSE")
    d.add_argument("--ngroups-target", type=int, default=None, help="synthpop ngroups_target")
    d.add_argument(
        "--ngroups-keys", type=int, default=None, help="synthpop ngroups_keys (all numeric keys)"
    )
    d.add_argument("--format", choices=["table", "csv", "json"], default="table")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "demo":
            from .demo import run_demo

            print(run_demo()[1])
            return 0
        res = disclosure(
            args.original,
            args.synthetic,
            keys=args.keys,
            target=args.target,
            denom_lim=args.denom_lim,
            exclude_ov_denom_lim=args.exclude_ov_denom_lim,
            not_targetlev=args.not_targetlev,
            use_target_na=not args.no_target_na,
            use_keys_na=not args.no_keys_na,
            ngroups_target=args.ngroups_target,
            ngroups_keys=args.ngroups_keys,
        )
    except InputError as e:
        print(f"discosql: error: {' | '.join(e.problems)}", file=sys.stderr)
        return 2
    except DiscoSQLError as e:
        print(f"discosql: error: {e}", file=sys.stderr)
        return 1
    if args.format == "table":
        print(res)
        print()
        print(_table_text(res.measures.drop_columns(["target"])))
    elif args.format == "json":
        print(json.dumps(res.measures.to_pylist(), indent=1))
    else:
        pacsv.write_csv(res.measures, sys.stdout.buffer)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
