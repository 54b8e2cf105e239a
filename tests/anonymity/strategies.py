"""The hypothesis data of the whole-record tests (exact_matches, linkability): an original,
one or two syntheses and a control over 1 to 6 columns, few values per column (records often
1 or 2 columns apart), NULLs, NaN, quotes, unicode and SQL in names and values, int64 in one
data set and double in another; shapes: any, every record twice, the original as its own
synthesis, the original with one column of another synthesis."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from hypothesis import strategies as st

NAMES = ["a", 'it\'s "q"', "é ü", "select * from t; --", "x|y", "NA"]
TEXT = [None, "a", "b", "NA", "Missing", "it's", 'say "hi"', "", "é", "'; drop table t; --"]
NUMBERS = [None, 1, 2, 57, -3, float("nan"), 2.5]


@st.composite
def data_sets(draw: Any) -> tuple[pa.Table, list[pa.Table], pa.Table]:
    d = draw(st.integers(1, 6))
    names = draw(st.permutations(NAMES))[:d]
    kinds = {c: draw(st.sampled_from(["text", "int", "double", "mixed"])) for c in names}
    shape = draw(st.sampled_from(["any", "duplicates", "unique", "near"]))
    # few values per column: records are often 1 or 2 columns apart
    pools = {
        c: draw(st.lists(st.sampled_from(TEXT if kinds[c] == "text" else NUMBERS), min_size=1))
        for c in names
    }

    def table(n: int, syn: bool) -> pa.Table:
        cols = {}
        for c in names:
            values = draw(st.lists(st.sampled_from(pools[c]), min_size=n, max_size=n))
            kind = kinds[c]
            if kind == "text":
                cols[c] = pa.array(values, pa.string())
            elif kind == "int" or (kind == "mixed" and not syn):  # int64 here, double there
                cols[c] = pa.array([None if v is None or v != v else int(v) for v in values])
                cols[c] = cols[c].cast(pa.int64())
            else:
                cols[c] = pa.array([None if v is None else float(v) for v in values], pa.float64())
        t = pa.table(cols)
        if shape == "duplicates" and n > 1:  # every record twice
            t = pa.concat_tables([t.slice(0, (n + 1) // 2)] * 2)
        return t

    original = table(draw(st.integers(1, 12)), False)
    syntheses = [table(draw(st.integers(1, 12)), True) for _ in range(draw(st.integers(1, 2)))]
    if shape == "unique":  # the original's own records as a synthesis
        syntheses[0] = original
    elif shape == "near":  # the original with one column of another synthesis
        c = names[0]
        other = table(original.num_rows, False).column(c)
        syntheses[0] = original.set_column(0, c, other)
    control = table(draw(st.integers(1, 12)), False)
    return original, syntheses, control
