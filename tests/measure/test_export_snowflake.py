"""The exported Snowflake script, run statement by statement through fakesnow's Snowflake
emulator (its own environment: .ci/snowflake), gives the API's numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import sqlglot

import discosql as ds

from .. import engine_data
from ..helpers.compare import assert_script_tables

KW: dict[str, Any] = {
    "keys": ["sex", "age", "region", "placesize"],
    "target": "income",
    "ngroups_target": 5,
    "not_targetlev": "[-8,600)",
    "use_keys_na": [True, True, False, True],
    "exclude_keys": ["sex"],
    "exclude_keylevs": ["MALE"],
    "exclude_targetlevs": ["[1440,2000)"],
}  # the golden export's (tests/measure/test_export.py): every stage and check has rows


def test_snowflake_runs_its_export(fakesnow: None) -> None:
    import snowflake.connector

    data = Path(ds.__file__).parent / "data"
    tables = {n: pq.read_table(data / f"{n}.parquet") for n in ("sd2011", "syn_1", "syn_2")}
    con = snowflake.connector.connect(database="exported", schema="survey")
    engine_data.write_fakesnow(con, "exported", tables)
    names = {"original": "SD2011", "synthetic": ["SYN_1", "SYN_2"]}
    syn = [tables["syn_1"], tables["syn_2"]]
    script = ds.to_sql(tables["sd2011"], syn, dialect="snowflake", tables=names, **KW)
    want = ds.disclosure(tables["sd2011"], syn, **KW)
    results = []
    for statement in sqlglot.parse(script, read="snowflake"):
        if statement is None:
            continue
        cur = con.cursor()
        # without comments: fakesnow reads a $name in a comment as a session variable
        cur.execute(statement.sql("snowflake", identify=True, comments=False))
        if isinstance(statement, sqlglot.exp.Query):
            names_ = [d.name for d in cur.description]
            rows = cur.fetchall()
            results.append(pa.table({n: [r[i] for r in rows] for i, n in enumerate(names_)}))
        cur.close()
    assert_script_tables(results, want)
    con.close()
