"""``discosql report``: a release report for a disclosure review board
(:func:`discosql.report`), written as HTML (with its SQL script beside it, and JSON if asked
for)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core.files import write_text
from .args import csv_list
from .kwargs import common_kwargs, targets_kwargs
from .options import UsageError, add_common, add_synthpop, add_targets_options
from .output import Progress

NAME = "report"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand and its flags."""
    r: argparse.ArgumentParser = sub.add_parser(
        NAME, help="a release report for a disclosure review board (HTML)"
    )
    add_common(r, outputs=False)
    r.add_argument(
        "--targets",
        type=csv_list,
        default=None,
        help="comma-separated; default: every column of both sides not a key",
    )
    add_targets_options(r)
    r.add_argument(
        "--control",
        default=None,
        metavar="FILE",
        help="a holdout of the original (records not used to fit the synthesiser): "
        "the CAP scores' baseline",
    )
    r.add_argument("--sweep", action="store_true", help="add the key sweep (every key subset)")
    r.add_argument(
        "--risk", action="store_true", help="add the original data's risk (sdcMicro measure_risk)"
    )
    r.add_argument(
        "--weight",
        default=None,
        metavar="W",
        help="the original's sampling weight (adds the risk section)",
    )
    r.add_argument(
        "--sdc",
        choices=["replicated", "in_original"],
        default=None,
        help="add sdc(): remove the replicated uniques or the uniques in the "
        "original, with the measures before and after",
    )
    add_synthpop(r, "that --sdc records and the report states", default=None)
    r.add_argument(
        "--anonymity",
        action="store_true",
        help="add the three tests of anonymisation: singling out, linkability (A the keys, B "
        "the targets), inference (each target from the keys) and the exact matches",
    )
    r.add_argument(
        "--anonymity-columns",
        type=csv_list,
        default=None,
        metavar="C1,C2,...",
        help="with --anonymity: the columns of singling out and the matches (default: the "
        "keys and the targets)",
    )
    r.add_argument(
        "--n-cols",
        type=int,
        default=3,
        metavar="N",
        help="with --anonymity: columns per singling-out predicate (default 3)",
    )
    for side in "ab":
        r.add_argument(
            f"--link-{side}",
            type=csv_list,
            default=None,
            metavar="C1,C2,...",
            help=f"with --anonymity: linkability's columns {side.upper()} (default: "
            + ("the keys)" if side == "a" else "the targets)"),
        )
    r.add_argument(
        "--secrets",
        type=csv_list,
        default=None,
        metavar="C1,C2,...",
        help="with --anonymity: the columns the inference attack guesses (default: the targets)",
    )
    r.add_argument(
        "--inference-aux",
        type=csv_list,
        default=None,
        metavar="C1,C2,...",
        help="with --anonymity: the columns the inference attacker knows (default: the keys)",
    )
    r.add_argument(
        "--distance",
        action="store_true",
        help="add the distance to the closest record over the keys and targets (numeric "
        "columns by difference) and, with --control, membership inference by distance",
    )
    r.add_argument(
        "--distance-columns",
        type=csv_list,
        default=None,
        metavar="C1,C2,...",
        help="with --distance: the columns compared (default: the keys and the targets)",
    )
    r.add_argument(
        "--threshold",
        action="append",
        metavar="MEASURE=PERCENT",
        help="the board's own policy, e.g. repU=1 (repeatable; with --risk also "
        "global_risk_pct=...; with --distance and --control dcr_share=0.55, "
        "membership_auc=..., as fractions)",
    )
    r.add_argument(
        "--mode",
        choices=["internal", "external"],
        default="internal",
        help="external: aggregate percentages only (no level names, small counts or paths)",
    )
    r.add_argument(
        "--min-count",
        type=int,
        default=8,
        metavar="N",
        help="external mode: counts below N show as '< N', percentages of fewer "
        "than N records are withheld (default 8)",
    )
    r.add_argument(
        "--round-to",
        type=int,
        default=5,
        metavar="N",
        help="external mode: the other counts rounded to N (default 5)",
    )
    r.add_argument(
        "--inline-sql",
        action="store_true",
        help="the SQL script in the report (default: FILE.sql beside it)",
    )
    r.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="FILE.html",
        help="the report (and FILE.sql: the script of its tables)",
    )
    r.add_argument(
        "--json",
        type=Path,
        default=None,
        metavar="FILE.json",
        help="also write the report's content as JSON",
    )
    return r


def run(args: argparse.Namespace, progress: Progress) -> None:
    from ..report.build import report

    thresholds: dict[str, float] = {}
    for item in args.threshold or []:
        measure, sep, value = item.partition("=")
        try:
            thresholds[measure] = float(value)
        except ValueError:
            raise UsageError(f"--threshold: expected MEASURE=PERCENT, got {item!r}") from None
        if not sep:
            raise UsageError(f"--threshold: expected MEASURE=PERCENT, got {item!r}")
    sdc = None
    if args.sdc is not None:
        sdc = {
            f"rm_{'replicated_uniques' if args.sdc == 'replicated' else 'uniques_in_orig'}": True
        }
        if args.synthpop is not None:
            sdc["synthpop"] = args.synthpop
    elif args.synthpop is not None:
        raise UsageError("--synthpop: only with --sdc (the release sdc records)")

    anonymity: dict[str, Any] | None = None
    links = (args.link_a, args.link_b)
    if args.anonymity:
        anonymity = {"n_cols": args.n_cols}
        if args.anonymity_columns is not None:
            anonymity["columns"] = args.anonymity_columns
        if any(side is not None for side in links):
            if None in links:
                raise UsageError("--link-a and --link-b: give both (linkability's A and B)")
            anonymity["aux_cols"] = links
        if args.secrets is not None:
            anonymity["secrets"] = args.secrets
        if args.inference_aux is not None:
            anonymity["inference_aux_cols"] = args.inference_aux
    elif any(
        v is not None for v in (args.anonymity_columns, *links, args.secrets, args.inference_aux)
    ):
        raise UsageError(
            "--anonymity-columns, --link-a, --link-b, --secrets, --inference-aux: only with "
            "--anonymity"
        )

    distance: dict[str, Any] | None = None
    if args.distance:
        distance = {} if args.distance_columns is None else {"columns": args.distance_columns}
    elif args.distance_columns is not None:
        raise UsageError("--distance-columns: only with --distance")

    def section(name: str) -> None:
        progress.say(f"report: {name}")

    rep = report(
        args.original,
        args.synthetic,
        targets=args.targets,
        control=args.control,
        sweep=True if args.sweep else None,
        sdc=sdc,
        risk=args.risk,
        anonymity=anonymity,
        distance=distance or args.distance or None,
        weight=args.weight,
        thresholds=thresholds or None,
        mode=args.mode,
        min_count=args.min_count,
        round_to=args.round_to,
        inline_sql=args.inline_sql,
        progress=section,
        tau=args.tau,
        **targets_kwargs(args),
        **common_kwargs(args),
    )
    rep.save(args.out)
    if args.json is not None:
        write_text(args.json, rep.to_json())
    sql = rep.sql_path(args.out)
    written = [str(p) for p in (args.out, sql, args.json) if p is not None]
    sys.stdout.write(f"Report written: {', '.join(written)}\n")
