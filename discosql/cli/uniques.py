"""``discosql uniques``: uniques and replicated uniques (:func:`discosql.replicated_uniques`,
synthpop's ``replicated.uniques()``), with the denominators of the synthpop release asked
for."""

from __future__ import annotations

import argparse
from typing import Any

from .args import engine_of
from .options import add_common, add_synthpop
from .output import Progress, text_table, write

NAME = "uniques"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The subcommand and its flags."""
    u: argparse.ArgumentParser = sub.add_parser(
        NAME, help="uniques and replicated uniques (synthpop replicated.uniques())"
    )
    add_common(u, measures=False)
    add_synthpop(
        u,
        "whose denominators to take: 1.9-2 divides synthetic uniques in original "
        "and replicated uniques by the synthesis's records, 1.9-3 by the original's",
    )
    return u


def run(args: argparse.Namespace, progress: Progress) -> None:
    from ..protect.uniques import denominators, replicated_uniques

    res = replicated_uniques(
        args.original,
        args.synthetic,
        keys=args.keys,
        synthpop=args.synthpop,
        engine=engine_of(args),
        threads=args.threads,
    )
    keys = ", ".join(res.keys)
    text = f"Uniques over the keys {keys}\n{denominators(res.synthpop)}\n\n{text_table(res.table)}"
    write(res.table, text, args.format, args.out)
