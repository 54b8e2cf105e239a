"""Files discosql writes are complete or absent. Each is written under a temporary name in the
same directory (hidden, with the same ending, so that a writer choosing the format by the
ending still does) and renamed into place only when complete: ``os.replace`` within one
directory is atomic, so a reader sees the old file or the new one, never half of one. On an
error or an interrupt the temporary file is removed and the final path is untouched; a killed
process can leave only a hidden ``.<name>.discosql-*`` file behind, never a plausible output.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator, Sequence
from pathlib import Path

TEMP_MARK = ".discosql-"


def temp_path(path: str | os.PathLike[str]) -> Path:
    """A fresh temporary name beside ``path``, with its ending."""
    final = Path(path)
    suffix = "".join(final.suffixes[-1:])
    stem = final.name[: len(final.name) - len(suffix)] if suffix else final.name
    return final.with_name(f".{stem}{TEMP_MARK}{secrets.token_hex(4)}{suffix}")


@contextlib.contextmanager
def atomic_paths(paths: Sequence[str | os.PathLike[str]]) -> Iterator[list[Path]]:
    """Temporary paths for ``paths``, renamed into place together when the block ends
    normally, all removed when it does not (all the outputs of one call, or none)."""
    temps = [temp_path(p) for p in paths]
    try:
        yield temps
        for temp, final in zip(temps, paths, strict=True):
            os.replace(temp, final)
    finally:
        for temp in temps:  # the renamed ones are gone already
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """One temporary path for ``path`` (see :func:`atomic_paths`)."""
    with atomic_paths([path]) as (temp,):
        yield temp


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """``text`` as UTF-8 at ``path``, complete or not at all."""
    with atomic_path(path) as temp:
        temp.write_text(text, encoding="utf-8")


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """``data`` at ``path``, complete or not at all."""
    with atomic_path(path) as temp:
        temp.write_bytes(data)
