"""suda() against the brute-force reference of tests/risk/suda_reference.py (every subset, every
record) on hypothesis data: 1 to 7 keys, NULLs in several keys, duplicates only, every record
unique, text keys with unicode, quotes and SQL, integer keys (their levels in numeric order),
0 and 1 rows, both scores, max_size. DIS-SUDA is compared with the formula in doubles
(float32_dis=False; sdcMicro's single precision is the documented difference)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

import discosql as ds

from ..helpers.compare import close_or_missing
from .suda_reference import suda_reference

NAMES = ["k\u00e9y", 'q"uote', "select", "a b", "k5", "k-6", "k7"]
TEXT = st.one_of(st.none(), st.sampled_from(["x", "y", "\u00fc", "'; drop table t;--", "NA"]))
INTS = st.one_of(st.none(), st.sampled_from([2, 10, -1, 0]))


@st.composite
def data_sets(draw: Any) -> dict[str, Any]:
    k = draw(st.integers(1, 7))
    n = draw(st.integers(0, 30))
    numeric = [draw(st.booleans()) for _ in range(k)]
    shape = draw(st.sampled_from(["pool", "duplicates", "unique"]))
    if shape == "unique":  # every record differs on the first key
        rows = [
            (i if numeric[0] else f"u{i}", *(draw(INTS if t else TEXT) for t in numeric[1:]))
            for i in range(n)
        ]
    else:
        size = 1 if shape == "duplicates" else draw(st.integers(1, 8))
        pool = [tuple(draw(INTS if t else TEXT) for t in numeric) for _ in range(size)]
        rows = [draw(st.sampled_from(pool)) for _ in range(n)]
    return {
        "rows": rows,
        "k": k,
        "numeric": numeric,
        "original_scores": draw(st.booleans()),
        "dis_fraction": draw(st.sampled_from([0.0, 0.01, 0.3, 1.0])),
        "max_size": draw(st.one_of(st.none(), st.integers(1, k))),
    }


def table(d: dict[str, Any]) -> pa.Table:
    return pa.table(
        {
            NAMES[i]: pa.array([r[i] for r in d["rows"]], pa.int64() if t else pa.string())
            for i, t in enumerate(d["numeric"])
        }
    )


@given(data_sets())
def test_suda_agrees_with_reference(d: dict[str, Any]) -> None:
    keys = NAMES[: d["k"]]
    options = {k: d[k] for k in ("original_scores", "dis_fraction", "max_size")}
    res = ds.suda(table(d), keys, **options)
    want = suda_reference(d["rows"], keys, float32_dis=False, **options)
    assert res.records is not None
    got = res.records.to_pylist()
    assert [g["row"] for g in got] == list(range(1, len(d["rows"]) + 1))
    for g, w in zip(got, want["records"], strict=True):
        for name, value in w.items():
            assert close_or_missing(g[name], value), (name, g, w)
    attributes = [(r["variable"], r["contribution"]) for r in res.attributes.to_pylist()]
    assert [a for a, _ in attributes] == [a for a, _ in want["attributes"]]
    assert all(
        close_or_missing(g, w)
        for (_, g), (_, w) in zip(attributes, want["attributes"], strict=True)
    )
    levels = [(r["variable"], r["attribute"], r["contribution"]) for r in res.levels.to_pylist()]
    assert [(v, a) for v, a, _ in levels] == [(v, str(a)) for v, a, _ in want["levels"]]
    assert all(close_or_missing(g[2], w[2]) for g, w in zip(levels, want["levels"], strict=True))
    sizes = [(r["size"], r["records"]) for r in res.msu_counts.to_pylist()]
    assert sizes == want["msu_counts"]
    assert sum(r["records"] for r in res.dis_table.to_pylist()) == len(d["rows"])
