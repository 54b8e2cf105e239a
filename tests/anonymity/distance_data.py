"""The data the distance tests share: hypothesis data sets of every column kind, a seeded
mixed table, the records as the brute-force reference reads them, and the search forced into
its rounds on small data."""

from __future__ import annotations

import contextlib
import datetime as dt
import math
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import strategies as st

from discosql.anonymity import distance

NAMES = ["k", "é 1", 'say "hi"', "it's", "select"]
EPOCH = dt.datetime(1970, 1, 1)


@st.composite
def data_sets(draw: Any) -> tuple[list[str], dict[str, str], list[pa.Table]]:
    """An original, a synthesis, a control: 1-4 columns of text, integers, doubles (with
    NaN), booleans or timestamps, each with missing values; often few distinct values, so
    that ties and copies are common; sometimes a column of one value (range 0)."""
    n_cols = draw(st.integers(1, 4))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=n_cols, max_size=n_cols, unique=True))
    kinds = {c: draw(st.sampled_from(["text", "int", "float", "bool", "time"])) for c in names}

    def value(kind: str) -> Any:
        if kind == "text":
            return draw(st.sampled_from(["a", "b", "日本", "it's", "", None]))
        if kind == "int":
            return draw(st.one_of(st.none(), st.integers(-3, 3), st.integers(-(10**6), 10**6)))
        if kind == "float":
            return draw(
                st.one_of(
                    st.none(),
                    st.just(math.nan),
                    st.sampled_from([0.0, 0.5, 1.0, -2.25]),
                    st.floats(-1e3, 1e3, allow_nan=False),
                )
            )
        if kind == "bool":
            return draw(st.one_of(st.none(), st.booleans()))
        seconds = draw(st.one_of(st.none(), st.integers(0, 10**9)))
        return None if seconds is None else EPOCH + dt.timedelta(seconds=seconds)

    types = {"text": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}
    tables = []
    sizes = [draw(st.integers(1, 12)), draw(st.integers(0, 12)), draw(st.integers(1, 12))]
    for size in [*sizes, draw(st.integers(1, 12))]:  # a fourth: membership's reference
        cols = {c: [value(kinds[c]) for _ in range(size)] for c in names}
        schema = pa.schema([(c, types.get(kinds[c], pa.timestamp("us"))) for c in names])
        tables.append(pa.table(cols, schema=schema))
    return names, kinds, tables


def plain(table: pa.Table, kinds: dict[str, str]) -> list[dict[str, Any]]:
    """The records as the reference reads them: NaN missing, timestamps in seconds."""
    out = []
    for rec in table.to_pylist():
        row = {}
        for c, v in rec.items():
            if isinstance(v, float) and math.isnan(v):
                v = None
            elif isinstance(v, dt.datetime):
                v = (v - EPOCH).total_seconds()
            row[c] = v
        out.append(row)
    return out


def mixed(n: int, seed: int) -> pa.Table:
    """Text, integers, doubles with NaN and NULL, booleans and timestamps, seeded."""
    import random

    rng = random.Random(seed)
    return pa.table(
        {
            "sex": [rng.choice(["F", "M", None]) for _ in range(n)],
            "région": [rng.choice(["a", "b", "it's", "日本"]) for _ in range(n)],
            "age": [rng.choice([None, rng.randint(0, 90)]) for _ in range(n)],
            "income": [
                rng.choice([None, math.nan, round(rng.random() * 1000, 2)]) for _ in range(n)
            ],
            "ok": [rng.choice([True, False, None]) for _ in range(n)],
            "seen": [
                None if rng.random() < 0.1 else EPOCH + dt.timedelta(seconds=rng.randint(0, 10**8))
                for _ in range(n)
            ],
        },
        schema=pa.schema(
            [
                ("sex", pa.string()),
                ("région", pa.string()),
                ("age", pa.int64()),
                ("income", pa.float64()),
                ("ok", pa.bool_()),
                ("seen", pa.timestamp("us")),
            ]
        ),
    )


@contextlib.contextmanager
def in_rounds(rounds: bool, first_radius: float | None = None) -> Iterator[None]:
    """The search in its rounds (boxes, blocks, levels) even on small data, where it would
    otherwise compare every pair at once; ``first_radius``: the first box's (a positive
    share of the range; the default 1/256 where None)."""
    assert first_radius is None or first_radius > 0, "a radius of 0 never grows"
    mp = pytest.MonkeyPatch()
    try:
        if rounds:
            mp.setattr(distance, "SMALL_PAIRS", 0)
            if first_radius is not None:
                mp.setattr(distance, "FIRST_RADIUS", first_radius)
        yield
    finally:
        mp.undo()


# the first box's radius where the search runs in rounds: the default, or larger boxes that
# resolve in fewer rounds (a radius is never 0: it doubles from there)
RADII = st.sampled_from([None, 1 / 256, 1 / 4])
