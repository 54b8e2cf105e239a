"""``discosql sweep``: the measures of every subset of the keys (:func:`discosql.key_sweep`),
its K riskiest subsets and its plot if asked for (or, with --sql, one script:
:func:`discosql.sweep_to_sql`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..core.files import write_text
from .args import csv_list, dialect_given, script_tables
from .kwargs import common_kwargs, targets_kwargs
from .options import UsageError, add_common, add_script_options, add_targets_options
from .output import Progress, save_figure, text_table, write

NAME = "sweep"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand and its flags."""
    w: argparse.ArgumentParser = sub.add_parser(
        NAME, help="the measures of every subset of the keys (key sweep)"
    )
    add_common(w)
    w.add_argument(
        "--targets",
        type=csv_list,
        default=None,
        help="comma-separated; default: every column of both sides not a key",
    )
    w.add_argument(
        "--sizes",
        type=csv_list,
        default=None,
        metavar="N[,N...]",
        help="subset sizes, counting the fixed keys (default: 1 to all)",
    )
    w.add_argument(
        "--fixed-keys",
        type=csv_list,
        default=None,
        metavar="KEY[,KEY...]",
        help="keys in every subset",
    )
    add_targets_options(w, tau=False)
    w.add_argument(
        "--worst",
        type=int,
        default=None,
        metavar="K",
        help="print only the K riskiest subsets per target (by --measure)",
    )
    w.add_argument(
        "--measure", default="DiSCO", help="the measure --worst and --plot rank by (default DiSCO)"
    )
    add_script_options(w, "the sweep")
    w.add_argument(
        "--plot",
        type=Path,
        default=None,
        metavar="FILE.png|.svg",
        help="save the sweep plot (risk by number of keys, key heat map)",
    )
    return w


def run(args: argparse.Namespace, progress: Progress) -> None:
    from ..sweep.key_sweep import MEASURES, key_sweep

    if args.measure not in MEASURES:
        raise UsageError(f"--measure: {args.measure!r} is not one of {', '.join(MEASURES)}")
    if args.worst is not None and args.worst < 1:
        raise UsageError(f"--worst: expected a positive number of subsets, got {args.worst}")
    sizes = None
    if args.sizes is not None:
        try:
            sizes = [int(n) for n in args.sizes]
        except ValueError:
            raise UsageError(f"--sizes: expected integers, got {','.join(args.sizes)!r}") from None
    if args.sql is None and (args.original_table or args.synthetic_tables or dialect_given(args)):
        raise UsageError("--dialect/--original-table/--synthetic-tables: only with --sql")
    if args.sql is not None and (args.plot or args.worst or args.out):
        raise UsageError("--plot/--worst/--out: not with --sql (the script prints the table)")
    kwargs = {
        "targets": args.targets,
        "sizes": sizes,
        "fixed_keys": args.fixed_keys or (),
        **targets_kwargs(args),
        **common_kwargs(args),
    }
    if args.sql is not None:
        from ..sweep.export import sweep_to_sql

        script = sweep_to_sql(
            args.original,
            args.synthetic,
            dialect=args.dialect,
            tables=script_tables(args),
            **kwargs,
        )
        write_text(args.sql, script)
        return
    sw = key_sweep(args.original, args.synthetic, progress=progress.step, **kwargs)
    if args.plot is not None:
        save_figure(sw.plot(args.measure), args.plot)
    table = sw.table
    if args.worst is not None:  # the number column says what it holds
        table = sw.worst(args.worst, args.measure).rename_columns(
            ["target", "keys", "n_keys", f"{args.measure}_mean"]
        )
    shown = table.set_column(
        table.schema.get_field_index("keys"),
        "keys",
        pa.array([", ".join(k) for k in table.column("keys").to_pylist()], pa.string()),
    )
    title = f"Key sweep over {', '.join(sw.keys)}" + (
        f" (the {args.worst} riskiest subsets per target by {args.measure})" if args.worst else ""
    )
    # CSV has no lists: the subset is written as one text field there (as printed)
    out_table = shown if args.format == "csv" else table
    write(out_table, f"{title}\n\n{text_table(shown)}", args.format, args.out)
