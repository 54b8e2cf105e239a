"""Data sets for the tests as Arrow tables: SD2011 and its first synthesis, copies changed
after an export, and hypothesis scenarios of small data with odd names and values."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import strategies as st

import discosql as ds

from ..measure.reference import label


def sd2011_pair() -> dict[str, pa.Table]:
    """The bundled SD2011 (``orig``) and its first synthesis (``syn``)."""
    data = Path(ds.__file__).parent / "data"
    return {
        "orig": pq.read_table(data / "sd2011.parquet"),
        "syn": pq.read_table(data / "syn_1.parquet"),
    }


def changed(tables: dict[str, pa.Table], replace: str) -> dict[str, pa.Table]:
    """Both data sets with ``select * replace (...)`` applied to every third row (n % 3 = 0)."""
    out = {}
    for name, table in tables.items():
        con = duckdb.connect()
        con.register("t", table)
        numbered = "select *, row_number() over () as n from t"
        sql = f"select * exclude (n) replace ({replace}) from ({numbered})"
        out[name] = con.sql(sql).to_arrow_table()
    return out


# adversarial values and names: quotes, ;, --, backslashes, line breaks, |, unicode, SQL
# keywords, every driver's parameter syntax, and a genuine text "Missing"
STR_VALUES = [
    None,
    "a",
    "b",
    "é",
    "日本",
    "it's",
    'say "hi"',
    "Missing",
    "x | y",
    "",
    "B",
    "a;b",
    "--c",
    "back\\slash",
    "new\nline",
    "select",
    "$1",
    "%(t)s",
    "?",
    "'; drop",
]
INT_VALUES = [None, 0, 1, 2, 10, -3, 2**40, -(2**62)]
COLUMN_NAMES = [
    "k 1",
    "it's",
    'a"b',
    "select",
    "日本語",
    "from",
    "Key.Mixed",
    "t",
    "group by",
    "a;b",
    "--c",
    "back\\slash",
    "new\nline",
    "$p",
    "%(n)s",
    "?",
    "Missing",
]


def to_arrow(records, columns, types):
    schema = pa.schema([pa.field(c, types[c]) for c in columns])
    return pa.Table.from_pylist([{c: r[c] for c in columns} for r in records], schema=schema)


def present_labels(tables_rows, column):
    return sorted({label(r[column]) for rows_ in tables_rows for r in rows_})


@st.composite
def scenarios(draw):
    """Small original + m syntheses with odd names/values, and options drawn from what is there."""
    nkeys = draw(st.integers(1, 3))
    names = draw(
        st.lists(st.sampled_from(COLUMN_NAMES), min_size=nkeys + 1, max_size=nkeys + 1, unique=True)
    )
    keys, target = names[:-1], names[-1]
    int_col = draw(st.sampled_from([None, *names]))  # one int64 column (with None) or none
    types = {c: pa.int64() if c == int_col else pa.string() for c in names}
    alphabet = {
        c: draw(
            st.lists(
                st.sampled_from(INT_VALUES if c == int_col else STR_VALUES),
                min_size=1,
                max_size=4,
                unique=True,
            )
        )
        for c in names
    }
    fresh_row = st.fixed_dictionaries({c: st.sampled_from(alphabet[c]) for c in names})
    # one original in six has a single record
    original = draw(
        st.lists(fresh_row, min_size=1, max_size=1 if draw(st.integers(0, 5)) == 0 else 40)
    )
    # synthetic rows: copies of original rows (so disclosive matches happen) or fresh rows
    copy_row = st.sampled_from(original)
    syn_row = st.one_of(copy_row, copy_row, copy_row, fresh_row)
    m = draw(st.integers(1, 3))
    # about one synthesis in eight is empty
    synthetics = [
        draw(st.lists(syn_row, min_size=0 if draw(st.integers(0, 7)) == 0 else 1, max_size=40))
        for _ in range(m)
    ]

    every = [original, *synthetics]
    target_levels = [t for t in present_labels(every, target) if t != ""]
    mostly_true = st.sampled_from([True, True, False])
    options = {
        "use_target_na": draw(mostly_true),
        "use_keys_na": draw(
            st.one_of(mostly_true, st.lists(mostly_true, min_size=nkeys, max_size=nkeys))
        ),
        "exclude_ov_denom_lim": draw(st.sampled_from([False, False, True])),
        "denom_lim": draw(st.integers(1, 3)),
        "thresh_1way": (draw(st.integers(0, 3)), draw(st.sampled_from([0, 10, 50, 90]))),
        "thresh_2way": (draw(st.integers(0, 4)), draw(st.sampled_from([0, 50, 80]))),
    }
    if target_levels and draw(st.integers(0, 2)) == 0:
        levels = draw(st.lists(st.sampled_from(target_levels), min_size=1, max_size=2, unique=True))
        options["not_targetlev"] = levels[0] if len(levels) == 1 and draw(st.booleans()) else levels
    ntriples = draw(st.sampled_from([0, 0, 0, 1, 2]))
    if ntriples:
        triples = []
        for _ in range(ntriples):
            key = draw(st.sampled_from(keys))
            triples.append(
                (
                    key,
                    draw(st.sampled_from(present_labels(every, key))),
                    draw(st.sampled_from(present_labels(every, target))),
                )
            )
        options["exclude_keys"] = [t[0] for t in triples]
        options["exclude_keylevs"] = [t[1] for t in triples]
        options["exclude_targetlevs"] = [t[2] for t in triples]
    return {
        "original": original,
        "synthetics": synthetics,
        "keys": keys,
        "target": target,
        "types": types,
        "names": names,
        "options": options,
        "syn_column_order": draw(st.sampled_from(["same", "reversed"])),
        "single_table": m == 1 and draw(st.booleans()),
        # q spread over several BIGINT words, as keys with ~2^21 levels each would need: the
        # word limit lowered instead of building such data
        "word_limit": draw(st.sampled_from([None, None, 4, 16])),
    }
