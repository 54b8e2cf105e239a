"""risk() and ldiversity() against the brute-force reference of tests/risk/reference.py on
hypothesis data: NULL keys in several positions (every key NULL too), one key, unicode,
quotes and SQL in names and values, weights with decimals, households of one, ties, 0 and 1
rows, NULL and NaN sensitive values, and every combination of ldiversity's rules for missing
keys and missing sensitive values. The reference implements sdcMicro's definitions, with
discosql's intended differences (a record without a household id is its own household; the
multi-attribute l-diversity as sdcMicro's C++ means it)."""

from __future__ import annotations

import math
from typing import Any

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

import discosql as ds

from ..helpers.compare import close_or_missing
from .reference import ldiversity_reference, risk_reference

NAMES = ["k\u00e9y", 'q"uote', "select", "a b"]
VALUES = st.one_of(st.none(), st.sampled_from(["x", "y", "\u00fc", "'; drop table t;--", "NA"]))
SENS = st.one_of(st.none(), st.integers(0, 3))
# a floating-point sensitive variable: NaN is missing too
SENS_FLOAT = st.one_of(st.none(), st.just(float("nan")), st.integers(0, 3).map(float))


@st.composite
def data_sets(draw: Any) -> dict[str, Any]:
    k = draw(st.integers(1, 4))
    n = draw(st.integers(0, 25))
    pool = draw(st.lists(st.tuples(*[VALUES] * k), min_size=1, max_size=6))
    rows = [draw(st.sampled_from(pool)) for _ in range(n)]  # ties: a few distinct rows
    weights = [draw(st.decimals(1, 50, places=2)) for _ in range(n)]
    households = [draw(st.one_of(st.none(), st.integers(0, 4))) for _ in range(n)]
    sensitive = [(draw(SENS), draw(SENS_FLOAT)) for _ in range(n)]
    alpha = draw(st.sampled_from([0.0, 0.25, 0.5, 1.0]))
    return {
        "rows": rows,
        "k": k,
        "weights": [float(w) for w in weights],
        "households": households,
        "sensitive": sensitive,
        "alpha": alpha,
    }


def table(d: dict[str, Any]) -> pa.Table:
    cols: dict[str, pa.Array] = {
        NAMES[i]: pa.array([r[i] for r in d["rows"]], pa.string()) for i in range(d["k"])
    }
    cols["w"] = pa.array(d["weights"], pa.float64())
    cols["hh"] = pa.array(d["households"], pa.int64())
    cols["s1"] = pa.array([s[0] for s in d["sensitive"]], pa.int64())
    cols["s 2"] = pa.array([s[1] for s in d["sensitive"]], pa.float64())
    return pa.table(cols)


@given(data_sets(), st.booleans(), st.booleans())
def test_risk_agrees_with_reference(d: dict[str, Any], weighted: bool, household: bool) -> None:
    keys = NAMES[: d["k"]]
    r = ds.risk(
        table(d),
        keys,
        weight="w" if weighted else None,
        household="hh" if household else None,
        alpha=d["alpha"],
    )
    assert r.records is not None
    got = r.records.to_pylist()
    assert [g["row"] for g in got] == list(range(1, len(d["rows"]) + 1))
    if not d["rows"]:
        assert r.value("records") == 0
        return
    want = risk_reference(
        d["rows"],
        d["weights"] if weighted else None,
        d["households"] if household else None,
        alpha=d["alpha"],
        na_household="own",
    )
    for g, w in zip(got, want["records"], strict=True):
        for name in ("fk", "Fk", "risk", *(["hier_risk"] if household else [])):
            assert close_or_missing(g[name], w[name]), (name, g, w)
    names = ["n1", "n2", "global_risk_ER", "global_risk", "global_risk_pct", "global_threshold"]
    if household:
        names += ["hier_risk_ER", "hier_risk", "hier_risk_pct"]
    for name in names:
        assert close_or_missing(r.value(name), want[name]), (name, r.value(name), want[name])


@given(
    data_sets(),
    st.sampled_from([1, 1.5, 2, 3]),
    st.sampled_from([["s1"], ["s 2"], ["s1", "s 2"]]),
    st.sampled_from(["equal", "apart"]),
    st.sampled_from(["category", "distinct", "ignore"]),
)
def test_ldiversity_agrees_with_reference(
    d: dict[str, Any], c: float, names: list[str], missing_keys: str, missing_sensitive: str
) -> None:
    keys = NAMES[: d["k"]]
    r = ds.ldiversity(
        table(d),
        keys,
        names,
        l_recurs_c=c,
        missing_keys=missing_keys,
        missing_sensitive=missing_sensitive,
    )
    assert r.records is not None
    got = r.records.to_pylist()
    which = [["s1", "s 2"].index(n) for n in names]
    sens = [tuple(s[i] for i in which) for s in d["sensitive"]]
    missing = [sum(1 for s in sens if s[j] is None or s[j] != s[j]) for j in range(len(names))]
    assert r.missing == tuple(missing)
    if not d["rows"]:
        assert got == []
        return
    want = ldiversity_reference(
        d["rows"],
        sens,
        names=names,
        l_recurs_c=c,
        multi="intent",
        missing_keys=missing_keys,
        missing_sensitive=missing_sensitive,
    )
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g["row"] == i + 1
        for name, value in w.items():
            assert close_or_missing(g[name], value), (name, g, w)
    # the summary: min, mean and max over the records with an l; those without, counted
    for row in r.summary.to_pylist():
        values = [w[row["column"]] for w in want]
        known = [v for v in values if v is not None]
        assert row["records_no_l"] == len(values) - len(known)
        assert row["records_l1"] == sum(1 for v in known if v <= 1)
        if known:
            assert close_or_missing(row["min"], min(known))
            assert close_or_missing(row["max"], max(known))
        else:
            assert row["min"] is None or math.isnan(row["min"])
