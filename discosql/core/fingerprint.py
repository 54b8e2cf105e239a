"""Each data set's row count and fingerprint, computed in its database: the sum of a 64-bit
hash of every record, modulo 2^64, as 16 hex digits (``sql_templates/inspect/fingerprint``).

The sum does not depend on the order of the records, so a board can tell whether two reports
read the same data on the same engine. The hash is the engine's own (DuckDB's ``hash``,
PostgreSQL's ``hashtextextended`` of the record's text, Spark's ``xxhash64``): the same data
on two engines give two fingerprints. Where the dialect has no hash (``row_hash`` fact), the
fingerprint is None with a sentence saying why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..engines.base import Engine, Registered
from ..sql.dialects import facts
from ..sql.templates import render

TEMPLATE = "inspect/fingerprint.sql.j2"


@dataclass(frozen=True)
class Fingerprint:
    """``rows`` counted and ``value`` (16 hex digits) computed by ``method``; ``value`` None
    where the engine cannot, ``method`` then says why."""

    rows: int
    value: str | None
    method: str


def fingerprints(engine: Engine, regs: Sequence[Registered]) -> list[Fingerprint]:
    """The fingerprint of each of ``regs`` (one query each, read where the data are)."""
    row_hash = facts(engine.dialect).row_hash
    if row_hash is None:
        why = f"not computed: {engine.name} has no hash function discosql can use"
        return [Fingerprint(reg.n_rows, None, why) for reg in regs]
    method = f"the sum of {row_hash} over the records t, modulo 2^64"
    out = []
    for reg in regs:
        sql = render(TEMPLATE, engine.dialect, source=reg.sql, row_hash=row_hash)
        row = engine.query(sql, reg.params, TEMPLATE, small=True).to_pylist()[0]
        total = row["fingerprint"]
        value = None if total is None else f"{int(total) % 2**64:016x}"
        out.append(Fingerprint(int(row["n"]), value, method))
    return out
