"""The ``discosql`` subcommands, one module each, in the order ``discosql --help`` lists
them: ``parser.build_parser`` adds each one's flags, ``main`` runs the one asked for."""

from __future__ import annotations

import argparse
from typing import Any, Protocol

from . import (
    dcr,
    demo,
    disclosure,
    inference,
    linkability,
    matches,
    membership,
    report,
    risk,
    sdc,
    singling_out,
    sql,
    suda,
    summary,
    sweep,
    uniques,
)
from .output import Progress


class Command(Protocol):
    """What a subcommand's module has: its name, its flags, its run."""

    NAME: str

    def add_parser(self, sub: Any) -> argparse.ArgumentParser: ...

    def run(self, args: argparse.Namespace, progress: Progress) -> None: ...


COMMANDS: tuple[Command, ...] = (
    demo,
    disclosure,
    sql,
    uniques,
    sdc,
    summary,
    risk,
    suda,
    report,
    singling_out,
    matches,
    linkability,
    inference,
    dcr,
    membership,
    sweep,
)

BY_NAME: dict[str, Command] = {command.NAME: command for command in COMMANDS}
