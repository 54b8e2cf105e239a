"""What the ``discosql`` command prints and writes: progress on stderr, and a result table as
aligned text, JSON, CSV or Parquet."""

from __future__ import annotations

import json
import math
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from ..core.files import atomic_path, write_text
from ..core.results import json_rows


class Progress:
    """Says on stderr what is running, once a run has taken more than a couple of seconds."""

    def __init__(self, delay: float = 2.0) -> None:
        self.start = time.monotonic()
        self.delay = delay
        self.current = ""
        self.timer = threading.Timer(delay, self._late)
        self.timer.daemon = True
        self.timer.start()

    def _late(self) -> None:
        print(f"discosql: working ({self.current or 'reading the data'}) ...", file=sys.stderr)

    def step(self, i: int, n: int, target: str) -> None:
        self.stage(i, n, target, "target")

    def stage(self, i: int, n: int, what: str, kind: str = "step") -> None:
        """Step ``i`` of ``n`` starts (said once the run has taken a couple of seconds)."""
        self.current = f"{kind} {i + 1}/{n}: {what}"
        if time.monotonic() - self.start > self.delay:
            print(f"discosql: {self.current}", file=sys.stderr)

    def say(self, what: str) -> None:
        """A step of a long run, said at once (the report: one line per section)."""
        self.timer.cancel()
        self.current = what
        print(f"discosql: {what} ...", file=sys.stderr, flush=True)

    def stop(self) -> None:
        self.timer.cancel()


def text_table(table: pa.Table) -> str:
    """``table`` as right-aligned columns, floats to 4 decimals."""
    rows = table.to_pylist()
    cols = table.column_names

    def cell(v: object) -> str:
        if isinstance(v, float):
            return "NaN" if math.isnan(v) else f"{v:.4f}"
        return "" if v is None else str(v)

    widths = {c: max([len(c)] + [len(cell(r[c])) for r in rows]) for c in cols}
    lines = ["  ".join(f"{c:>{widths[c]}}" for c in cols)]
    lines += ["  ".join(f"{cell(r[c]):>{widths[c]}}" for c in cols) for r in rows]
    return "\n".join(lines)


def write(table: pa.Table, text: str, fmt: str, out: Path | None) -> None:
    """``table`` in format ``fmt`` (``text`` for the text format) to ``out``, else stdout."""
    if fmt == "parquet":
        assert out is not None  # _output_problems made sure
        with atomic_path(out) as temp:
            pq.write_table(table, temp)
        return
    if fmt == "csv":
        sink = pa.BufferOutputStream()
        pacsv.write_csv(_nan_as_empty(table), sink)
        payload = sink.getvalue().to_pybytes().decode()
    elif fmt == "json":
        payload = json.dumps(json_rows(table), indent=1, ensure_ascii=False) + "\n"
    else:
        payload = text + "\n"
    if out is None:
        sys.stdout.write(payload)
    else:
        write_text(out, payload)


def _nan_as_empty(table: pa.Table) -> pa.Table:
    """Floats' NaN as missing, which CSV writes as an empty field (R, pandas and DuckDB read
    that as NA; Arrow would write 'nan', which R reads as text)."""
    for i, field in enumerate(table.schema):
        if pa.types.is_floating(field.type):
            col = table.column(i)
            table = table.set_column(i, field, pc.if_else(pc.is_nan(col), None, col))
    return table


def save_figure(figure: Any, path: Path) -> None:
    """A matplotlib figure at ``path`` (its format from the ending), complete or not at all."""
    with atomic_path(path) as temp:
        figure.savefig(temp, dpi=150)


def write_measured(res: Any, records: str | None, fmt: str, out: Path | None) -> None:
    """A distance measure's result: its per-record table to ``records`` (Parquet, or CSV by
    the name), then its summary (the text and the table; JSON: ``to_dict()``; CSV, Parquet:
    the summary table)."""
    if records is not None:
        kind = "csv" if records.lower().endswith(".csv") else "parquet"
        write(res.records, "", kind, Path(records))
    if fmt == "json":
        write(res.summary, json.dumps(res.to_dict(), indent=1, ensure_ascii=False), "table", out)
    else:
        write(res.summary, f"{res}\n\n{text_table(res.summary)}", fmt, out)


def write_attack(res: Any, table: pa.Table, shown: pa.Table, fmt: str, out: Path | None) -> None:
    """An anonymity test's result: JSON, its ``to_dict()``; Parquet, ``table``; else the
    text of the result and ``shown`` (the table as printed), as text or CSV."""
    if fmt == "json":
        write(table, json.dumps(res.to_dict(), indent=1, ensure_ascii=False), "table", out)
    elif fmt == "parquet":
        write(table, "", "parquet", out)
    else:
        write(shown, f"{res}\n\n{text_table(shown)}", fmt, out)
