"""Section 1, provenance: the inputs (source, rows, columns, SHA-256), the schema side by side, the
options, versions and engine."""

from __future__ import annotations

import hashlib
import os
import platform
from pathlib import Path
from typing import Any

from ...core.outputcheck import Numbers
from ...measure.summary import DisclosureSummary
from ...version import __version__


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _files(obj: Any) -> list[Path]:
    """The files behind an input given as a path (a file, or a directory's files)."""
    if not isinstance(obj, str | os.PathLike):
        return []
    p = Path(obj)
    if p.is_file():
        return [p]
    if p.is_dir():
        return sorted(f for f in p.rglob("*") if f.is_file())
    return sorted(f for f in p.parent.glob(p.name) if f.is_file())


def provenance_section(
    given: list[tuple[str, Any]],
    regs: list[Any],
    engine_name: str,
    summary: DisclosureSummary,
    options: dict[str, Any],
    num: Numbers,
) -> dict[str, Any]:
    """The inputs (``given``: (label, what the user passed); ``regs``: their registrations,
    in the same order), the schema side by side, options, versions and engine."""
    from importlib.metadata import version

    external = num.external
    data = []
    schema: dict[str, dict[str, Any]] = {}
    for (label, obj), reg in zip(given, regs, strict=True):
        files = _files(obj)
        source = os.fspath(obj) if isinstance(obj, str | os.PathLike) else type(obj).__name__
        data.append(
            {
                "data set": label,
                "source": None if external else source,
                "rows": num.count(reg.n_rows),
                "columns": len(reg.columns),
                "SHA-256": "; ".join(
                    _sha256(f) if external else f"{f.name}: {_sha256(f)}" for f in files
                )
                or None,
            }
        )
        for name, engine_type in reg.columns.items():
            schema.setdefault(name, {"column": name})[label] = engine_type
    labels = [label for label, _ in given]
    columns = [{**{k: None for k in ["column", *labels]}, **row} for row in schema.values()]
    return {
        "inputs": data,
        "schema": columns,
        "keys": list(summary.keys),
        "targets": list(summary.results),
        "options": [{"option": k, "value": repr(v)} for k, v in sorted(options.items())],
        "versions": [
            {"component": "discosql", "version": __version__},
            {"component": "duckdb", "version": version("duckdb")},
            {"component": "sqlglot", "version": version("sqlglot")},
            {"component": "pyarrow", "version": version("pyarrow")},
            {"component": "python", "version": platform.python_version()},
        ],
        "engine": engine_name,
    }
