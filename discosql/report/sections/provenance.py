"""Section 1, provenance: what ran (engine, server version, database, host, role, driver, the
time of reading), the inputs (source, rows, columns, the fingerprint computed where they are,
the SHA-256 of their files), the schema side by side, the options and versions."""

from __future__ import annotations

import hashlib
import os
import platform
from pathlib import Path
from typing import Any

from ...core.fingerprint import Fingerprint
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
    about: dict[str, str | None],
    prints: list[Fingerprint],
    read_at: str,
    summary: DisclosureSummary,
    options: dict[str, Any],
    num: Numbers,
) -> dict[str, Any]:
    """The inputs (``given``: (label, what the user passed); ``regs``: their registrations and
    ``prints`` their fingerprints, in the same order), what ran (``about``: the engine's
    :meth:`~discosql.engines.base.Engine.about`, read at ``read_at``), the schema side by
    side, options and versions. External mode names no database, host, role or table."""
    from importlib.metadata import version

    external = num.external
    data = []
    schema: dict[str, dict[str, Any]] = {}
    for (label, obj), reg, fp in zip(given, regs, prints, strict=True):
        files = _files(obj)
        source = os.fspath(obj) if isinstance(obj, str | os.PathLike) else type(obj).__name__
        data.append(
            {
                "data set": label,
                "source": None if external else source,
                "rows": num.count(reg.n_rows),
                "columns": len(reg.columns),
                "fingerprint": fp.value,
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
    ran = [
        {"read by": "engine", "value": about["engine"]},
        {"read by": "version", "value": about.get("version")},
        {"read by": "driver", "value": about.get("driver")},
    ]
    if not external:  # where the data are: not for publication
        ran += [{"read by": k, "value": about.get(k)} for k in ("database", "host", "role")]
    ran.append({"read by": "read at", "value": read_at})
    versions: list[dict[str, str | None]] = [{"component": "discosql", "version": __version__}]
    if about.get("version"):
        versions.append({"component": str(about["engine"]), "version": about["version"]})
    if about.get("driver"):
        versions.append({"component": "driver", "version": about["driver"]})
    versions += [
        {"component": "sqlglot", "version": version("sqlglot")},
        {"component": "pyarrow", "version": version("pyarrow")},
        {"component": "python", "version": platform.python_version()},
    ]
    return {
        "inputs": data,
        "schema": columns,
        "keys": list(summary.keys),
        "targets": list(summary.results),
        "options": [{"option": k, "value": shown(v)} for k, v in sorted(options.items())],
        "versions": versions,
        "engine": about["engine"],
        "ran": [r for r in ran if r["value"] is not None],
        "fingerprint": prints[0].method if prints else None,
    }


def shown(value: Any) -> str:
    """An option's value as a reader writes it, not as Python does: 50, 90 for a pair, none
    for None, yes/no for a flag, the items of a list or a mapping."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(shown(v) for v in value) or "none"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {shown(v)}" for k, v in value.items()) or "none"
    return str(value)
