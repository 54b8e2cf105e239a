"""The ``discosql`` command line: parse (:mod:`.parser`), check the output flags, run the
subcommand (its module in :mod:`.registry`, each calling the Python API), report errors.

Bad input (arguments and output flags are checked before any data is read) prints one line
per problem on stderr and exits with status 2; warnings print as ``discosql: warning: ...``; an
internal error prints one line and where its traceback went (``--debug`` prints it). Nothing
printed or written holds a connection secret: every line goes through
:func:`discosql.secrets.redact`, with the secrets of the command line's own arguments.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import os
import re
import sys
import tempfile
import traceback
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..core.output import DATABASE_SUFFIXES
from ..errors import DiscoSQLError, DiscoSQLWarning, InputError
from ..secrets import redact, secrets_in
from .options import UsageError
from .output import Progress
from .parser import build_parser
from .registry import BY_NAME

# Image formats matplotlib writes (Figure.savefig picks the format from the extension).
PLOT_SUFFIXES = (".png", ".svg", ".pdf", ".jpg", ".jpeg", ".eps", ".ps", ".tif", ".tiff", ".webp")


def _output_problems(args: argparse.Namespace) -> list[str]:
    """What is wrong with the output flags, found before any data is read."""
    problems = []
    if getattr(args, "format", None) == "parquet" and args.out is None:
        problems.append("--format parquet: needs --out FILE (Parquet is not written to stdout)")
    for flag, path in _outputs(args):
        parent = path.resolve().parent
        if not parent.is_dir():
            problems.append(f"{flag}: the directory {str(parent)!r} does not exist")
        elif not os.access(parent, os.W_OK):
            problems.append(f"{flag}: the directory {str(parent)!r} is not writable")
        elif path.exists() and not getattr(args, "overwrite", False):
            problems.append(f"{flag}: {str(path)!r} exists; pass --overwrite to replace it")
    if args.command == "report" and args.out is not None and args.out.suffix.lower() == ".pdf":
        problems.append(
            "--out: the report is HTML (give FILE.html); for a PDF, print it: chromium "
            "--headless --no-pdf-header-footer --print-to-pdf=report.pdf report.html"
        )
    plot = getattr(args, "plot", None)
    if plot is not None:
        if plot.suffix.lower() not in PLOT_SUFFIXES:
            problems.append(
                f"--plot: cannot tell the image format of {str(plot)!r}; allowed endings: "
                f"{', '.join(PLOT_SUFFIXES)}"
            )
        if importlib.util.find_spec("matplotlib") is None:
            problems.append("--plot: needs matplotlib: pip install matplotlib")
    return problems


def _outputs(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """The files a command will write, by flag: --out (and the report's script beside it),
    --plot, --json, --sql. A DuckDB database file given to --out is not one: tables go into
    it, and an existing table is refused by the command (unless --overwrite)."""
    out: list[tuple[str, Path]] = []
    for flag in ("--out", "--plot", "--json", "--sql"):
        path = getattr(args, flag[2:], None)
        if isinstance(path, str):
            path = Path(path)
        if path is None or path.is_dir() or path.suffix.lower() in DATABASE_SUFFIXES:
            continue  # a folder or a database file: the command checks what goes in it
        out.append((flag, path))
        if flag == "--out" and args.command == "risk" and args.sensitive is not None:
            out.append((flag, path.with_name(f"{path.stem}_ldiversity{path.suffix}")))
        if (
            flag == "--out"
            and args.command == "report"
            and not args.inline_sql
            and args.mode == "internal"
        ):
            out.append((flag, path.with_suffix(".sql")))
    return out


# the secret values of this command line's arguments (a password in --engine's DSN), masked in
# every line printed: a driver's message may quote one without its key
_KNOWN: list[str] = []


def _say(line: str) -> None:
    """One line on stderr, its secrets masked."""
    print(redact(line, _KNOWN), file=sys.stderr)


def _error(problems: Sequence[str]) -> int:
    """Bad input: one line per problem on stderr, exit status 2."""
    for problem in problems:
        _say(f"discosql: error: {in_flags(' '.join(problem.splitlines()))}")
    return 2


def in_flags(message: str) -> str:
    """A message of the Python API in the command line's words: an argument named at the
    start (``out_table: ...``) or as ``name=True`` becomes its flag (``--out-table``,
    ``--overwrite``), and Python's None is "nothing"."""
    flags = _flags()
    head, sep, rest = message.partition(": ")
    if sep and head in flags:
        message = f"{flags[head]}: {rest}"
    message = re.sub(
        r"\b([a-z_]+)=(True|\.\.\.)?(?![\w'\"({\[])",
        lambda m: flags.get(m.group(1), m.group(0)),
        message,
    )
    message = re.sub(
        r"\b([a-z_]+)='([^']*)'",
        lambda m: f"{flags[m.group(1)]} {m.group(2)}" if m.group(1) in flags else m.group(0),
        message,
    )
    message = message.replace(" (or None for all cores)", "")
    return re.sub(r"\bNone\b", "nothing", message)


@functools.cache
def _flags() -> dict[str, str]:
    """{Python argument name: its flag} for every flag of every subcommand."""
    out: dict[str, str] = {}
    parser = build_parser()
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for sub in subparsers[0].choices.values():
        for action in sub._actions:
            long = [o for o in action.option_strings if o.startswith("--")]
            if long:
                out.setdefault(action.dest, long[0])
    return out


def _warning(message: Any, category: Any, *args: Any, **kwargs: Any) -> None:
    _say(f"discosql: warning: {in_flags(' '.join(str(message).splitlines()))}")


def _internal_error(e: BaseException) -> int:
    """An unexpected failure: one line, and the traceback in a file (--debug prints it)."""
    fd, path = tempfile.mkstemp(prefix="discosql-traceback-", suffix=".txt")
    with os.fdopen(fd, "w") as f:
        f.write(redact("".join(traceback.format_exception(e)), _KNOWN))
    first = (str(e).splitlines() or [""])[0]
    _say(
        f"discosql: internal error: {type(e).__name__}: {first} (the full traceback is in "
        f"{path}; --debug prints it)"
    )
    return 1


INTERRUPTED = "discosql: interrupted (every output is complete or absent)"


def main(argv: Sequence[str] | None = None) -> int:
    _KNOWN[:] = [v for a in (sys.argv[1:] if argv is None else argv) for v in secrets_in(a)]
    try:  # Ctrl-C while the command line is read: nothing has been read or written yet
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt:
        print(INTERRUPTED, file=sys.stderr)
        return 130
    problems = _output_problems(args)
    if problems:
        return _error(problems)
    progress = Progress()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", DiscoSQLWarning)  # printed, whatever the filters say
            warnings.showwarning = _warning
            _run(args, progress)
    except KeyboardInterrupt:  # Ctrl-C: what was being written is removed on the way out
        print(INTERRUPTED, file=sys.stderr)
        return 130
    except InputError as e:
        return _error(e.problems)
    except UsageError as e:
        return _error([str(e)])
    except (DiscoSQLError, OSError) as e:
        _say(f"discosql: error: {in_flags((str(e).splitlines() or [''])[0])}")
        return 1
    except Exception as e:
        if args.debug:
            raise
        return _internal_error(e)
    finally:
        progress.stop()
    _say_written(args)
    return 0


def _say_written(args: argparse.Namespace) -> None:
    """Every command that writes says what it wrote (on stderr: stdout may be the data);
    report and sdc list theirs themselves."""
    if args.command in ("report", "sdc"):
        return
    written = [str(path) for _, path in _outputs(args) if path.exists()]
    out = getattr(args, "out", None)
    if out is not None and Path(out).suffix.lower() in DATABASE_SUFFIXES:
        written.append(f"{out} (table {getattr(args, 'out_table', None) or 'by default'})")
    for path in written:
        print(f"discosql: wrote {path}", file=sys.stderr)


def _run(args: argparse.Namespace, progress: Progress) -> None:
    BY_NAME[args.command].run(args, progress)


if __name__ == "__main__":
    raise SystemExit(main())
