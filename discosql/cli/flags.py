"""A subcommand's flags built from a family's declared options (:mod:`discosql.core.options`),
and the keyword arguments of its API call read back from them by the same names."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Collection, Mapping
from typing import Any

from ..core.options import Options
from .args import csv_list

PARSERS: dict[str, Callable[[str], Any]] = {
    "str": str,
    "int": int,
    "float": float,
    "list": csv_list,
}


def add_flags(
    parser: argparse.ArgumentParser | Any,
    options: type[Options],
    *,
    skip: Collection[str] = (),
    defaults: Mapping[str, Any] | None = None,
) -> None:
    """One flag per declared option of ``options`` with help, but those in ``skip``; a flag
    whose option has no default is required unless ``defaults`` gives it one (a flag that
    asks for a second measure, as risk's --ldiversity)."""
    given = defaults or {}
    for f in options.flags():
        if f.name in skip:
            continue
        meta = f.metadata
        flag = "--" + (meta["flag"] or f.name.replace("_", "-"))
        kw: dict[str, Any] = {"dest": f.name, "help": meta["help"]}
        if meta["kind"] == "bool":
            kw["action"] = "store_true"
        else:
            kw["type"] = PARSERS[meta["kind"]]
            if meta["choices"]:
                kw["choices"] = list(meta["choices"])
            if meta["metavar"]:
                kw["metavar"] = meta["metavar"]
        if f.name in given:
            kw["default"] = given[f.name]
        elif f.default is dataclasses.MISSING:
            kw["required"] = True
        elif meta["kind"] != "bool":
            kw["default"] = f.default
        parser.add_argument(flag, **kw)


def flag_values(args: argparse.Namespace, options: type[Options]) -> dict[str, Any]:
    """The declared options of ``options`` that ``args`` holds, by name (an API call's
    keyword arguments)."""
    names = [f.name for f in dataclasses.fields(options)]
    return {n: getattr(args, n) for n in names if hasattr(args, n)}
