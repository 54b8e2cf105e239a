"""sdc() against a brute-force Python reference: bottom/top recoding, removal of the replicated
uniques / uniques in the original, and rm_disclosive (the DiSCO cells of a target), on
hypothesis data with NULLs, NaN, "NA" and "Missing" text, "|" and quotes in values, int64 in the
original and double in the syntheses; plus hand-made cases with known answers.

The reference follows the contract, not the implementation:

1. recoding (syntheses only): a value that is not NULL/NaN and not an exclude code becomes
   bottom if < bottom, top if > top; counted on the syntheses as given;
2. uniques removal on the recoded syntheses, keys compared by value (NULL and NaN one category,
   distinct from any text; 57 == 57.0);
3. each rm_disclosive entry in order, on the records still kept, on level names (reference.label:
   NULL/NaN and the text "Missing" are one level): the records of every synthetic q-cell with one
   target level t whose (q, t) the original has are removed.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import discosql as ds

from ..helpers.profiles import fixed
from ..measure.reference import label

# 0-row syntheses (given, or emptied by the removals) and '' without NULLs in a text column warn
pytestmark = [
    pytest.mark.filterwarnings("ignore:synthetic:discosql.errors.DiscoSQLWarning"),
    pytest.mark.filterwarnings("ignore:column .*has empty strings:discosql.errors.DiscoSQLWarning"),
    # an rm_disclosive target drawn missing in every record
    pytest.mark.filterwarnings("ignore:target .*every value:discosql.errors.DiscoSQLWarning"),
]

BOTH_FLAGS = "only the uniques in the original"  # the warning when both removal flags are set
STEP2 = {"in_original": "uniques in original", "replicated": "replicated uniques"}


# --- the brute-force reference ----------------------------------------------------------------
NA = object()  # NULL and NaN in step 2: one category, distinct from any text


def _is_na(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _value(v: Any) -> Any:
    """A key value as step 2 compares it: NULL/NaN one category, 57 == 57.0."""
    if _is_na(v):
        return NA
    if isinstance(v, int | float) and not isinstance(v, bool):
        return float(v)
    return v


@dataclass
class Recode:
    name: str
    bottom: int | None
    top: int | None
    exclude: list[int] = field(default_factory=list)


@dataclass
class Expected:
    kept: list[list[dict[str, Any]]]  # per synthesis, the kept records (recoded) in input order
    removed: list[list[tuple[str | None, int]]]  # per synthesis: (reason, rows); None: disclosive
    recoded: list[tuple[int, str, int, int]]  # synthesis, variable, bottom_coded, top_coded


def _recode(rows: list[dict[str, Any]], r: Recode) -> tuple[list[dict[str, Any]], int, int]:
    out, n_bottom, n_top = [], 0, 0
    for row in rows:
        row = dict(row)
        v = row[r.name]
        if not _is_na(v) and v not in r.exclude:
            if r.bottom is not None and v < r.bottom:
                row[r.name] = float(r.bottom)  # the syntheses' recode variables are doubles
                n_bottom += 1
            elif r.top is not None and v > r.top:
                row[r.name] = float(r.top)
                n_top += 1
        out.append(row)
    return out, n_bottom, n_top


def _disclosive(
    original: list[dict[str, Any]], rows: list[dict[str, Any]], target: str, keys: list[str]
) -> list[bool]:
    """Per record: is its (q, t) a DiSCO cell (q-cell of the records given has one target level
    t, and the original has a record with (q, t))?"""

    def cell(r: dict[str, Any]) -> tuple[tuple[str, ...], str]:
        return tuple(label(r[k]) for k in keys), label(r[target])

    in_original = {cell(r) for r in original}
    levels: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for r in rows:
        q, t = cell(r)
        levels[q].add(t)
    return [len(levels[q]) == 1 and (q, t) in in_original for q, t in map(cell, rows)]


def reference(
    original: list[dict[str, Any]],
    syntheses: list[list[dict[str, Any]]],
    keys: list[str],
    *,
    rm_replicated_uniques: bool,
    rm_uniques_in_orig: bool,
    recodes: list[Recode],
    rm_disclosive: list[dict[str, Any]],
) -> Expected:
    orig_counts = Counter(tuple(_value(r[k]) for k in keys) for r in original)
    step2 = (
        "in_original" if rm_uniques_in_orig else ("replicated" if rm_replicated_uniques else None)
    )
    exp = Expected([], [], [])
    for j, syn in enumerate(syntheses, start=1):
        rows = syn
        for r in recodes:
            rows, n_bottom, n_top = _recode(rows, r)
            exp.recoded.append((j, r.name, n_bottom, n_top))
        steps: list[tuple[str | None, int]] = []
        if step2 is not None:
            counts = Counter(tuple(_value(r[k]) for k in keys) for r in rows)

            def gone(r: dict[str, Any], counts: Counter[tuple[Any, ...]] = counts) -> bool:
                q = tuple(_value(r[k]) for k in keys)
                if counts[q] != 1:
                    return False
                return orig_counts[q] >= 1 if step2 == "in_original" else orig_counts[q] == 1

            kept = [r for r in rows if not gone(r)]
            steps.append((STEP2[step2], len(rows) - len(kept)))
            rows = kept
        for entry in rm_disclosive:
            flags = _disclosive(original, rows, entry["target"], entry["keys"])
            kept = [r for r, f in zip(rows, flags, strict=True) if not f]
            steps.append((None, len(rows) - len(kept)))
            rows = kept
        exp.kept.append(rows)
        exp.removed.append(steps or [("none", 0)])
    return exp


# --- comparing --------------------------------------------------------------------------------
def _canon(v: Any) -> Any:
    """NULL and NaN told apart, NaN equal to NaN."""
    if v is None:
        return ("NULL",)
    if isinstance(v, float) and math.isnan(v):
        return ("NaN",)
    return v


def _canon_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: _canon(v) for k, v in r.items()} for r in rows]


def _removed_by_synthesis(res: Any, m: int) -> list[list[tuple[str, int]]]:
    """res.removed as (reason, rows) per synthesis, in the table's order."""
    out: list[list[tuple[str, int]]] = [[] for _ in range(m)]
    for r in res.removed.to_pylist():
        assert 1 <= r["synthesis"] <= m, r
        out[r["synthesis"] - 1].append((r["reason"], r["rows"]))
    return out


def check(res: Any, syntheses: list[pa.Table], exp: Expected) -> None:
    m = len(syntheses)
    assert len(res.synthetic) == m
    for j, (table, given_table) in enumerate(zip(res.synthetic, syntheses, strict=True), start=1):
        assert table.column_names == given_table.column_names, j
        assert table.schema.types == given_table.schema.types, j
        assert _canon_rows(table.to_pylist()) == _canon_rows(exp.kept[j - 1]), j
    removed = _removed_by_synthesis(res, m)
    for j, (got, want) in enumerate(zip(removed, exp.removed, strict=True), start=1):
        assert [n for _, n in got] == [n for _, n in want], (j, got, want)
        for (reason, _), (want_reason, _) in zip(got, want, strict=True):
            if want_reason is None:  # an rm_disclosive entry: its text is not part of the test
                assert reason not in ("none", *STEP2.values()), (j, got)
            else:
                assert reason == want_reason, (j, got, want)
    assert sorted(
        (r["synthesis"], r["variable"], r["bottom_coded"], r["top_coded"])
        for r in res.recoded.to_pylist()
    ) == sorted(exp.recoded)


def _warns(both: bool) -> AbstractContextManager[Any]:
    return pytest.warns(ds.DiscoSQLWarning, match=BOTH_FLAGS) if both else nullcontext()


# --- hypothesis data --------------------------------------------------------------------------
TEXT = [None, "a", "b", "NA", "Missing", "x|y", "", "é", "O'Brien", "1; drop table t"]
NUMBERS: list[Any] = [None, 1, 2, 57, float("nan")]
CODES = [None, 0, 1, 2, 3, 57, 60]


@dataclass
class Case:
    original: pa.Table
    syntheses: list[pa.Table]
    keys: list[str]
    recodes: list[Recode]
    rm_replicated_uniques: bool
    rm_uniques_in_orig: bool
    rm_disclosive: list[dict[str, Any]]
    kwargs: dict[str, Any]  # sdc()'s recode and rm_disclosive arguments as passed


@st.composite
def cases(draw: Any) -> Case:
    keys = [f"k{i}" for i in range(draw(st.integers(1, 3)))]
    targets = [f"t{i}" for i in range(draw(st.integers(1, 2)))]
    columns = draw(st.permutations(keys + targets))
    numeric = draw(st.lists(st.sampled_from(columns), min_size=1, unique=True))
    recode_vars = draw(st.lists(st.sampled_from(numeric), min_size=1, unique=True))

    def table(n: int, double: bool) -> pa.Table:
        cols = {}
        for c in columns:
            if c in numeric:
                values = draw(st.lists(st.sampled_from(NUMBERS), min_size=n, max_size=n))
                if double:
                    cols[c] = pa.array(
                        [None if v is None else float(v) for v in values], pa.float64()
                    )
                else:
                    ints = [None if _is_na(v) else int(v) for v in values]
                    cols[c] = pa.array(ints, pa.int64())
            else:
                cols[c] = pa.array(
                    draw(st.lists(st.sampled_from(TEXT), min_size=n, max_size=n)), pa.string()
                )
        return pa.table(cols)

    original = table(draw(st.integers(1, 30)), double=False)
    syntheses = [
        table(draw(st.integers(0, 30)), double=True) for _ in range(draw(st.integers(1, 3)))
    ]

    recodes = []
    for name in recode_vars:
        bottom, top = draw(st.sampled_from(CODES)), draw(st.sampled_from(CODES))
        if bottom is not None and top is not None and bottom > top:
            bottom, top = top, bottom
        exclude = draw(st.lists(st.sampled_from([1, 2, 57]), unique=True, max_size=3))
        recodes.append(Recode(name, bottom, top, exclude))
    kwargs: dict[str, Any] = {}
    if len(recodes) == 1 and draw(st.booleans()):
        r = recodes[0]
        kwargs["recode_vars"] = r.name
        kwargs["bottom_top_coding"] = (r.bottom, r.top)
        kwargs["recode_exclude"] = r.exclude if r.exclude or draw(st.booleans()) else None
    else:
        kwargs["recode_vars"] = [r.name for r in recodes]
        kwargs["bottom_top_coding"] = [(r.bottom, r.top) for r in recodes]
        if len(recodes) == 1:
            kwargs["recode_exclude"] = recodes[0].exclude
        elif any(r.exclude for r in recodes):
            kwargs["recode_exclude"] = [r.exclude for r in recodes]

    entries = []
    for _ in range(draw(st.integers(0, 2))):
        target = draw(st.sampled_from(columns))
        others = [c for c in columns if c != target]
        if not others:
            break
        entry_keys = draw(st.lists(st.sampled_from(others), min_size=1, unique=True))
        entries.append({"target": target, "keys": entry_keys})
    if len(entries) == 1 and draw(st.booleans()):
        kwargs["rm_disclosive"] = entries[0]  # one dict
    elif entries:
        kwargs["rm_disclosive"] = entries
    return Case(
        original,
        syntheses,
        keys,
        recodes,
        draw(st.booleans()),
        draw(st.booleans()),
        entries,
        kwargs,
    )


# 300 examples in CI: each runs sdc() whole with its measures (about 0.3 s; docs/testing.md)
@settings(max_examples=fixed(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_sdc_agrees_with_the_reference(case: Case) -> None:
    with _warns(case.rm_replicated_uniques and case.rm_uniques_in_orig):
        res = ds.sdc(
            case.original,
            case.syntheses,
            keys=case.keys,
            rm_replicated_uniques=case.rm_replicated_uniques,
            rm_uniques_in_orig=case.rm_uniques_in_orig,
            **case.kwargs,
        )
    exp = reference(
        case.original.to_pylist(),
        [s.to_pylist() for s in case.syntheses],
        case.keys,
        rm_replicated_uniques=case.rm_replicated_uniques,
        rm_uniques_in_orig=case.rm_uniques_in_orig,
        recodes=case.recodes,
        rm_disclosive=case.rm_disclosive,
    )
    check(res, case.syntheses, exp)
    if case.rm_disclosive:
        # after the last entry no synthesis has a DiSCO record for its target and keys left
        last = case.rm_disclosive[-1]
        d = ds.disclosure(case.original, res.synthetic, keys=last["keys"], target=last["target"])
        for j in range(1, len(res.synthetic) + 1):
            assert d.value("DiSCO", j) == 0.0, j


# --- hand-made cases --------------------------------------------------------------------------
def _removed(res: Any) -> list[tuple[int, str | None, int]]:
    """(synthesis, reason, rows), the reason of an rm_disclosive row as None."""
    out: list[tuple[int, str | None, int]] = []
    for r in res.removed.to_pylist():
        reason = r["reason"] if r["reason"] in ("none", *STEP2.values()) else None
        out.append((r["synthesis"], reason, r["rows"]))
    return sorted(out, key=lambda x: x[0])  # stable: the steps stay in their order


def test_disco_cells_removed_mixed_cells_kept() -> None:
    """One key k, target t.
    original (k, t):  (a, x) (b, x) (c, y)
    synthesis:        (a, x) (b, x) (a, x) (b, y) (c, x) (d, x)
    q-cells of the synthesis: a: x x (one level, the original has (a, x): DiSCO -> both go);
    b: x y (two levels: kept); c: x (one level, but the original has only (c, y): kept);
    d: x (the original has no d: kept). Removed 2, kept rows 2, 4, 5, 6."""
    o = pa.table({"k": ["a", "b", "c"], "t": ["x", "x", "y"]})
    s = pa.table({"k": ["a", "b", "a", "b", "c", "d"], "t": ["x", "x", "x", "y", "x", "x"]})
    res = ds.sdc(o, s, keys=["k", "t"], rm_disclosive={"target": "t", "keys": ["k"]})
    assert _removed(res) == [(1, None, 2)]
    assert res.synthetic[0].to_pylist() == [{"k": k, "t": t} for k, t in ("bx", "by", "cx", "dx")]
    assert ds.disclosure(o, res.synthetic, keys=["k"], target="t").value("DiSCO") == 0.0


def test_null_text_na_and_missing() -> None:
    """Step 2 tells NULL from the texts "NA" and "Missing"; rm_disclosive, on level names,
    merges NULL and "Missing" (one level) but not "NA".
    original (k, t): (NULL, x) ("NA", y) ("a", x)
    synthesis:       ("Missing", x) ("NA", x) (NULL, y) ("a", x) ("a", x)

    rm_replicated_uniques with keys [k]: original k counts NULL 1, "NA" 1, "a" 1; synthesis
    "Missing" 1 (not in the original: NULL is not "Missing" here), "NA" 1 (once in the
    original: a replicated unique -> removed), NULL 1 (once in the original -> removed),
    "a" 2 (not unique). Removed 2; left: ("Missing", x) ("a", x) ("a", x).
    rm_disclosive target t keys [k], on those three: q "Missing": x only, and the original's
    NULL is "Missing" with x -> DiSCO, removed; q "a": x x, original (a, x) -> removed too.
    Removed 3, nothing left."""
    o = pa.table({"k": [None, "NA", "a"], "t": ["x", "y", "x"]})
    s = pa.table({"k": ["Missing", "NA", None, "a", "a"], "t": ["x", "x", "y", "x", "x"]})
    res = ds.sdc(
        o, s, keys=["k"], rm_replicated_uniques=True, rm_disclosive=[{"target": "t", "keys": ["k"]}]
    )
    assert _removed(res) == [(1, "replicated uniques", 2), (1, None, 3)]
    assert res.synthetic[0].num_rows == 0
    assert res.synthetic[0].column_names == ["k", "t"]
    # the text "NA" is its own level: ("NA", x) is no DiSCO cell (the original has ("NA", y))
    only = ds.sdc(o, s, keys=["k"], rm_disclosive={"target": "t", "keys": ["k"]})
    # q "Missing" (NULL and "Missing" merged): x, y -> two levels, kept; "NA": x, original
    # ("NA", y) -> kept; "a": x x -> removed
    assert _removed(only) == [(1, None, 2)]
    assert only.synthetic[0].to_pylist() == [
        {"k": "Missing", "t": "x"},
        {"k": "NA", "t": "x"},
        {"k": None, "t": "y"},
    ]


def test_recode_then_remove_in_order() -> None:
    """Two syntheses; recode n (original int64, syntheses double) with bottom 2, top 50,
    exclude 57; NaN and NULL are never recoded.
    original (n, t): (2, x) (57, y) (50, z) (1, w)
    synthesis 1 n: 1 -> 2 (bottom), 57 (excluded), 60 -> 50 (top), NaN, NULL; t: x y z x x
      recoded: (2, x) (57, y) (50, z) (NaN, x) (NULL, x); bottom 1, top 1
      rm_uniques_in_orig (keys [n]): 2, 57, 50 unique and in the original -> removed (3);
        NaN and NULL: one category, 2 records, not unique -> kept
      rm_disclosive t keys [n]: q "Missing" (NaN, NULL) has x only, the original has no
        missing n -> kept. Left: (NaN, x) (NULL, x).
    synthesis 2 n: 2, 2, 1 -> 2; t: x x x -> recoded (2, x) x3; bottom 1, top 0
      rm_uniques_in_orig: q 2 has 3 records -> nothing; rm_disclosive: q "2" holds x only and
      the original has (2, x) -> all 3 removed."""
    o = pa.table({"n": pa.array([2, 57, 50, 1], pa.int64()), "t": ["x", "y", "z", "w"]})
    s1 = pa.table(
        {
            "n": pa.array([1.0, 57.0, 60.0, math.nan, None], pa.float64()),
            "t": ["x", "y", "z", "x", "x"],
        }
    )
    s2 = pa.table({"n": pa.array([2.0, 2.0, 1.0], pa.float64()), "t": ["x", "x", "x"]})
    res = ds.sdc(
        o,
        [s1, s2],
        keys=["n"],
        rm_uniques_in_orig=True,
        recode_vars="n",
        bottom_top_coding=(2, 50),
        recode_exclude=[57],
        rm_disclosive={"target": "t", "keys": ["n"]},
    )
    assert _removed(res) == [
        (1, "uniques in original", 3),
        (1, None, 0),
        (2, "uniques in original", 0),
        (2, None, 3),
    ]
    assert res.recoded.to_pylist() == [
        {"synthesis": 1, "variable": "n", "bottom_coded": 1, "top_coded": 1},
        {"synthesis": 2, "variable": "n", "bottom_coded": 1, "top_coded": 0},
    ]
    kept = res.synthetic[0].to_pylist()
    assert [r["t"] for r in kept] == ["x", "x"]
    assert math.isnan(kept[0]["n"])
    assert kept[1]["n"] is None  # a NULL stays NULL
    assert res.synthetic[1].num_rows == 0
    assert res.synthetic[1].schema.types == [pa.float64(), pa.string()]
