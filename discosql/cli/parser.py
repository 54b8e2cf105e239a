"""The ``discosql`` command line's arguments: the parser, with every subcommand of
:data:`.registry.COMMANDS` in its order (each module adds its own flags, from the options
several share in ``options``), and ``--overwrite`` on each one that writes."""

from __future__ import annotations

import argparse
from typing import NoReturn

from ..secrets import redact
from .registry import COMMANDS


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors are one line that says where the help is (the
    whole usage of a subcommand is 10 to 15 lines before the one that matters), and quotes no
    connection secret of the arguments it names."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, redact(f"{self.prog}: error: {message} (usage: {self.prog} --help)\n"))


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="discosql",
        description="Disclosure risk of synthetic data (synthpop's measures), computed in SQL.",
    )
    sub = p.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    for parser in sub.choices.values():  # one rule for outputs: replaced only when asked
        writes = {"--out", "--json", "--plot", "--sql"} & set(parser._option_string_actions)
        if writes and "--overwrite" not in parser._option_string_actions:
            parser.add_argument(
                "--overwrite", action="store_true", help="replace existing output files or tables"
            )
    return p
