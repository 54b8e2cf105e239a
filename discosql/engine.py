"""The only module that talks to DuckDB.

One in-memory connection per call: inputs are registered (never copied unless they can be read
only once), templates run as bound statements, results come back as Arrow tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import duckdb
import pyarrow as pa

from .errors import EngineError, InputError
from .sources import Source
from .templates import ident


@dataclass
class Registered:
    """A registered input: ``sql`` is what goes after FROM, ``params`` what it needs bound."""

    source: Source
    sql: str
    params: dict[str, Any] = field(default_factory=dict)
    columns: dict[str, str] = field(default_factory=dict)  # name -> DuckDB type, in order
    n_rows: int = 0


class Engine:
    """A DuckDB connection with the few operations discosql needs."""

    def __init__(self, threads: int | None = None, memory_limit: str | None = None) -> None:
        self.con = duckdb.connect(":memory:")
        # Extensions cannot be downloaded in locked-down environments; never try.
        self.con.execute("SET autoinstall_known_extensions = false")
        if threads is not None:
            self.con.execute(f"SET threads = {int(threads)}")
        if memory_limit is not None:
            self.con.execute("SET memory_limit = $m", {"m": memory_limit})
        self._n = 0

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- inputs ---------------------------------------------------------------------------
    def register(self, source: Source) -> Registered:
        """Make ``source`` readable by the templates and read its schema and row count."""
        i = self._n
        self._n += 1
        name = f"__disco_src_{i}"
        param = f"src_{i}"
        try:
            reg = self._register(source, name, param)
            desc = self.con.execute(f"DESCRIBE SELECT * FROM {reg.sql}", reg.params).fetchall()
            reg.columns = {row[0]: str(row[1]) for row in desc}
            count = self.con.execute(f"SELECT count(*) FROM {reg.sql}", reg.params).fetchall()
            reg.n_rows = int(count[0][0])
        except duckdb.Error as e:
            raise InputError(f"{source.label}: cannot read the data: {e}") from e
        return reg

    def _register(self, source: Source, name: str, param: str) -> Registered:
        kind, obj = source.kind, source.obj
        if kind == "parquet":
            return Registered(source, f"read_parquet(${param})", {param: obj})
        if kind == "csv":
            # Parsed once into a temporary table (every stage reads it again). Only numbers and
            # text: the sniffer would otherwise turn YES/NO into booleans and change the levels.
            sql = f"read_csv(${param}, auto_type_candidates = ['BIGINT', 'DOUBLE', 'VARCHAR'])"
            self.con.execute(
                f"CREATE TEMP TABLE {ident(name)} AS SELECT * FROM {sql}", {param: obj}
            )
            return Registered(source, ident(name))
        if kind == "duckdb_table":
            db = f"__disco_db_{param}"
            self.con.execute(f"ATTACH ${param} AS {ident(db)} (READ_ONLY)", {param: obj.database})
            parts = [db] + ([obj.schema] if obj.schema else []) + [obj.table]
            return Registered(source, ".".join(ident(p) for p in parts))
        if kind in ("arrow", "pandas"):
            self.con.register(name, obj)
            return Registered(source, ident(name))
        if kind in ("reader", "relation"):
            # A reader can be consumed once and a relation belongs to another connection:
            # copy it into a temporary table so that every stage can read it.
            stream = obj if kind == "reader" else obj.to_arrow_reader()
            self.con.register(name + "_stream", stream)
            self.con.execute(
                f"CREATE TEMP TABLE {ident(name)} AS SELECT * FROM {ident(name + '_stream')}"
            )
            self.con.unregister(name + "_stream")
            return Registered(source, ident(name))
        raise EngineError(f"unknown source kind {kind!r}")

    # -- running SQL ----------------------------------------------------------------------
    def execute(self, sql: str, params: dict[str, Any], stage: str) -> None:
        try:
            self.con.execute(sql, _used(sql, params))
        except duckdb.Error as e:
            raise EngineError(f"stage {stage} failed on DuckDB: {e}") from e

    def query(self, sql: str, params: dict[str, Any], stage: str) -> pa.Table:
        try:
            return self.con.sql(sql, params=_used(sql, params)).to_arrow_table()
        except duckdb.Error as e:
            raise EngineError(f"stage {stage} failed on DuckDB: {e}") from e


def _used(sql: str, params: dict[str, Any]) -> dict[str, Any]:
    # DuckDB rejects bound names that the statement does not use.
    return {k: v for k, v in params.items() if re.search(rf"\${re.escape(k)}\b", sql)}
