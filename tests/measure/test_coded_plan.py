"""The coded plan (integer level codes, q packed into BIGINT words, records shared by targets)
gives the same results whatever shape it takes: q in one word or spread over several, the
records of several targets shared (sorted by q) or each target's read inline, the targets
measured one at a time or stacked in one batch (each with its own options), q words above
2^53 on SQLite (exact integer division) or small words on DuckDB, the level dictionaries
from one grouping-set pass or grouped column by column.

Checked on hypothesis data with awkward values and types (floats incl. -0.0, NaN and
infinities, integers next to doubles, booleans, all-NA columns, unicode) and on SD2011. That
the numbers are right is checked elsewhere: against synthpop (test_oracle.py) and against a
brute-force Python reference (test_reference_agreement.py).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discosql.core import dictionaries, stages
from discosql.core.inputs import register_inputs
from discosql.core.plan import plan
from discosql.core.results import RESULT_TABLES, DisclosureResult

from .. import oracle, plans
from ..helpers.compare import assert_identical
from ..helpers.engines import Loaded, on_engines
from ..helpers.profiles import fixed

TABLES = tuple(t.name for t in RESULT_TABLES)


def shapes(
    original: Any,
    synthetic: Any,
    keys: list[str],
    targets: list[str],
    options_of: dict[str, dict[str, Any]] | None = None,
    **options: Any,
) -> list[DisclosureResult]:
    """The results of every shape of the plan, checked identical; returns one of them.
    ``options_of``: a target's own options (over ``options``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate inputs warn; only the values matter here
        options = {**options, "options_of": options_of}
        shared = plans.disclosure(original, synthetic, keys, targets, **options)
        alone = [plans.disclosure(original, synthetic, keys, [t], **options)[0] for t in targets]
        assert_identical(alone, shared)
        # the targets stacked in one batch, each with its own options; and in batches of two
        # (with five targets the last batch has one, measured alone)
        for size in {len(targets), 2}:
            together = plans.disclosure(original, synthetic, keys, targets, stack=size, **options)
            assert_identical(alone, together)
        # two targets share an unsorted records table (three or more: sorted by q)
        pair = plans.disclosure(original, synthetic, keys, targets[:2], **options)
        assert_identical(alone[:2], pair)
        mp = pytest.MonkeyPatch()
        mp.setattr(dictionaries, "WORD_LIMIT", 4)  # about one word per key
        try:
            words = plans.disclosure(original, synthetic, keys, targets, **options)
        finally:
            mp.undo()
        assert_identical(words, shared)
        # the dictionaries grouped column by column and data set by data set, not in one
        # grouping-set pass over the stacked data sets (more columns than it takes)
        mp.setattr(dictionaries, "GROUPING_COLUMNS", 0)
        try:
            one_by_one = plans.disclosure(original, synthetic, keys, targets, **options)
        finally:
            mp.undo()
        assert_identical(one_by_one, shared)
    return shared


def test_sd2011_summary_in_every_shape() -> None:
    keys = ["sex", "age", "region", "placesize"]
    targets = ["depress", "ls", "income", "marital", "workab"]
    original, synthetic = oracle.original_path(), oracle.synthetic_paths("s5")[:2]
    # each target with options of its own: stacked, every one is applied to its target only
    options_of: dict[str, dict[str, Any]] = {
        "depress": {"use_target_na": False, "not_targetlev": ["0"]},
        "ls": {"not_targetlev": ["TERRIBLE"]},  # the same option as depress, another level
        "income": {"ngroups_target": 5, "exclude_ov_denom_lim": True},
        "marital": {
            "exclude_keys": ["sex"],
            "exclude_keylevs": ["MALE"],
            "exclude_targetlevs": ["SINGLE"],
        },
    }
    got = shapes(
        original, synthetic, keys, targets, options_of, ngroups_keys=[0, 5, 0, 0], tau=[0.5, 1]
    )
    assert all(r.disco_tau.num_rows == 2 * 2 for r in got)  # 2 syntheses x 2 certainties
    assert sum(r.check_2way.num_rows for r in got) > 0  # the decoded key levels are compared
    assert sum(r.check_1way.num_rows for r in got) > 0
    for r in got:  # the options took effect where given, and only there
        removed = sum(
            n
            for n, why in zip(
                r.exclusions["count"].to_pylist(), r.exclusions["reason"].to_pylist(), strict=True
            )
            if why != "remaining"
        )
        assert (removed > 0) == (r.target in options_of), r.target


@pytest.mark.parametrize(
    ("dialect", "one_pass"),
    [("duckdb", True), ("postgres", True), ("spark", False), ("databricks", False)],
)
def test_one_grouping_set_pass_only_where_it_is_one_pass(dialect: str, one_pass: bool) -> None:
    """Spark's GROUPING SETS copy each row once per set (Expand): there stage 010 groups
    each column apart (docs/performance.md, Spark: the one pass was many times slower)."""
    column = SimpleNamespace(name="k", as_text=False)
    data_set = SimpleNamespace(sql="t", kinds={"k": "int"})
    entries = [{"column": column, "sources": [data_set]}]
    branches = dictionaries._branches(SimpleNamespace(dialect=dialect), entries)  # type: ignore[arg-type]
    assert (branches is not None) == one_pass


def test_collect_set_only_where_it_tells_values_apart_as_group_by() -> None:
    """Spark's stage 010 finds a small data set's values with collect_set, for columns whose
    values it tells apart as GROUP BY does (integers, booleans, binary text), in rows of at
    most COLLECT_VALUES values; floats (NaN, -0.0), collated or unnamed text, columns typed
    differently between data sets and large data sets are grouped (dictionaries.collected)."""
    from discosql.core.inputs import DataSet

    kinds = {"i": "integer", "b": "boolean", "s": "text", "f": "float", "l": "text", "u": "text"}
    types = {"i": "bigint", "b": "boolean", "s": "string", "f": "double"}
    types["l"] = "string collate UTF8_LCASE"  # "u": no type name known
    rows = dictionaries.COLLECT_VALUES // 2  # two columns per row of arrays
    small = [DataSet(j, f"d{j}", kinds, False, rows, types) for j in (0, 1)]
    big = DataSet(2, "d2", kinds, False, dictionaries.COLLECT_VALUES + 1, types)

    def entries(sources: list[DataSet], as_text: str = "") -> list[dict[str, Any]]:
        names = list(kinds)
        column = [SimpleNamespace(name=n, as_text=n == as_text) for n in names]
        return [{"column": c, "sources": sources} for c in column]

    spark, duck = SimpleNamespace(dialect="spark"), SimpleNamespace(dialect="duckdb")
    es = entries(small)
    sets = dictionaries.collected(spark, es)  # type: ignore[arg-type]
    assert [(x["sql"], x["columns"]) for x in sets] == [
        ("d0", [(0, "i"), (1, "b")]),
        ("d0", [(2, "s")]),
        ("d1", [(0, "i"), (1, "b")]),
        ("d1", [(2, "s")]),
    ]
    assert [sorted(e["collect"]) for e in es] == [[0, 1]] * 3 + [[]] * 3
    assert es[2]["collect"] == {0: "__disco_set_0_1", 1: "__disco_set_1_1"}
    es = entries(small, as_text="i")
    first = dictionaries.collected(spark, es)[0]  # type: ignore[arg-type]
    assert first["columns"] == [(1, "b"), (2, "s")]
    es = entries([*small, big])  # a column is collected in all its data sets or none
    assert dictionaries.collected(spark, es) == []  # type: ignore[arg-type]
    assert all(e["collect"] == {} for e in es)
    assert dictionaries.collected(duck, entries(small)) == []  # type: ignore[arg-type]


def test_check_2way_the_same_by_grouping_sets_and_by_unpivot(monkeypatch: Any) -> None:
    """check_2way finds every key's totals in one grouping-set pass where GROUPING SETS are
    one pass (DuckDB, PostgreSQL) and by unpivoting the cells elsewhere (Spark, SQLite):
    both give the same rows, one target at a time and stacked (SD2011: the checks fire)."""
    import dataclasses

    import discosql as ds
    from discosql.sql.dialects import facts

    data = Path(ds.__file__).parent / "data"
    files = [str(data / "sd2011.parquet"), *(str(data / f"syn_{j}.parquet") for j in range(1, 6))]
    keys, targets = ["sex", "age", "region", "placesize"], ["marital", "workab"]

    def runs() -> list[pa.Table]:
        one = [ds.disclosure(files[0], files[1:], keys, t).check_2way for t in targets]
        summary = ds.disclosure_summary(files[0], files[1:], keys, targets)
        return one + [summary.results[t].check_2way for t in targets]

    one_pass = runs()
    unpivoted = dataclasses.replace(facts("duckdb"), grouping_sets=False)
    monkeypatch.setattr(stages, "facts", lambda dialect: unpivoted)
    assert all(t.num_rows > 0 for t in one_pass)
    assert runs() == one_pass


# --- hypothesis: awkward values and types -----------------------------------------------------

FLOATS = [None, 0.0, -0.0, 1.0, 1.5, math.nan, math.inf, -math.inf, 57.0, 1e15 + 0.5, 2.5e-7]
INTS = [None, 0, 1, 57, -3, 2**53 + 1, 10**15]
TEXT = [None, "a", "Missing", "é", "日本", "it's", "", "57", "nan"]
BOOLS = [None, True, False]
KINDS = {
    "float": (pa.float64(), FLOATS),
    "int": (pa.int64(), INTS),
    "text": (pa.string(), TEXT),
    "bool": (pa.bool_(), BOOLS),
    "null": (pa.null(), [None]),
}
NAMES = ["k 1", "it's", 'a"b', "select", "日本語", "q_0", "t"]


@st.composite
def scenarios(draw: Any) -> dict[str, Any]:
    nkeys = draw(st.integers(1, 4))
    ntargets = draw(st.integers(1, 2))
    names = draw(
        st.lists(
            st.sampled_from(NAMES),
            min_size=nkeys + ntargets,
            max_size=nkeys + ntargets,
            unique=True,
        )
    )
    kinds = {c: draw(st.sampled_from(sorted(KINDS))) for c in names}
    # an int column of the original may be a double column in the syntheses, and vice versa
    syn_kinds = {
        c: ("float" if k == "int" else "int" if k == "float" and draw(st.booleans()) else k)
        if draw(st.integers(0, 3)) == 0
        else k
        for c, k in kinds.items()
    }
    values = {
        c: draw(
            st.lists(st.sampled_from(KINDS[kinds[c]][1]), min_size=1, max_size=4, unique_by=repr)
        )
        for c in names
    }
    fresh = st.fixed_dictionaries({c: st.sampled_from(values[c]) for c in names})
    original = draw(st.lists(fresh, min_size=1, max_size=30))
    copy = st.sampled_from(original)
    m = draw(st.integers(1, 2))
    synthetics = [draw(st.lists(st.one_of(copy, copy, fresh), max_size=30)) for _ in range(m)]

    def table(records: list[dict[str, Any]], kind_of: dict[str, str]) -> pa.Table:
        cols = {}
        for c in names:
            typ = KINDS[kind_of[c]][0]
            vals = [r[c] for r in records]
            if kind_of[c] == "int" and kinds[c] == "float":  # whole finite floats only
                vals = [
                    int(v) if isinstance(v, float) and math.isfinite(v) and v == int(v) else None
                    for v in vals
                ]
            elif kind_of[c] == "float" and kinds[c] == "int":
                vals = [None if v is None else float(v) for v in vals]
            cols[c] = pa.array(vals, type=typ)
        return pa.table(cols)

    # the second target's own missing-target option (each target of a stack has its own)
    options_of = {names[-1]: {"use_target_na": draw(st.booleans())}} if ntargets > 1 else None
    options: dict[str, Any] = {
        "options_of": options_of,
        "use_target_na": draw(st.sampled_from([True, True, False])),
        "use_keys_na": draw(st.sampled_from([True, True, False])),
        "exclude_ov_denom_lim": draw(st.booleans()),
        "denom_lim": draw(st.integers(1, 3)),
        "thresh_1way": (draw(st.integers(0, 2)), draw(st.sampled_from([0, 50]))),
        "thresh_2way": (draw(st.integers(0, 2)), draw(st.sampled_from([0, 50]))),
        "tau": draw(st.sampled_from([None, [1], [0.5, 0, 1]])),
    }
    return {
        "original": table(original, kinds),
        "synthetic": [table(s, syn_kinds) for s in synthetics],
        "keys": names[:nkeys],
        "targets": names[nkeys:],
        "options": options,
        "word_limit": draw(st.sampled_from([dictionaries.WORD_LIMIT, 100])),
    }


@settings(max_examples=fixed(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sc=scenarios())
def test_hypothesis_same_in_every_shape(sc: dict[str, Any]) -> None:
    mp = pytest.MonkeyPatch()
    mp.setattr(dictionaries, "WORD_LIMIT", sc["word_limit"])  # 100: keys share words differently
    try:
        shapes(sc["original"], sc["synthetic"], sc["keys"], sc["targets"], **sc["options"])
    finally:
        mp.undo()


@pytest.mark.parametrize("syn_type", [pa.float64(), pa.int64()])
def test_signed_zeros_and_nans_are_one_level(syn_type: pa.DataType) -> None:
    """0.0 and -0.0 are the level "0" and NaN is 'Missing' (with NA), whichever data set they
    come from and whatever the other data set's column type (as_text when types differ)."""
    nan = math.nan
    original = pa.table({"k": [0.0, -0.0, nan, None, 1.5, -0.0], "t": list("aabbab")})
    values = {
        "double": [-0.0, 0.0, nan, 1.5],
        "int64": [0, 0, None, 2],
    }[str(syn_type)]
    synthetic = pa.table({"k": pa.array(values, type=syn_type), "t": list("abab")})
    coded = shapes(original, synthetic, ["k"], ["t"], thresh_2way=(0, 0))
    # the same data with every -0.0 written 0.0 and every NaN written NA
    plain = pa.table({"k": [0.0, 0.0, None, None, 1.5, 0.0], "t": list("aabbab")})
    plain_syn = {"double": [0.0, 0.0, None, 1.5], "int64": [0, 0, None, 2]}[str(syn_type)]
    synthetic = pa.table({"k": pa.array(plain_syn, type=syn_type), "t": list("abab")})
    assert_identical(coded, shapes(plain, synthetic, ["k"], ["t"], thresh_2way=(0, 0)))
    two = coded[0].check_2way.column("target_key_levs").to_pylist()
    assert not any("-0" in x or "nan" in x.lower() for x in two)


def test_several_words_are_used() -> None:
    """The packing: a small word limit gives one word per key, the default one word."""
    original = pa.table(
        {"a": ["x", "y", "z"], "b": [1, 2, 3], "c": [True, False, None], "t": ["u", "v", "u"]}
    )
    synthetic = original.slice(0, 2)
    from discosql.core.spec import build_spec
    from discosql.engines import open_engine

    for limit, words in ((dictionaries.WORD_LIMIT, 1), (5, 3)):
        mp = pytest.MonkeyPatch()
        mp.setattr(dictionaries, "WORD_LIMIT", limit)
        try:
            with open_engine(None) as eng:
                inputs = register_inputs(eng, original, synthetic)
                p = plan(inputs, build_spec(["a", "b", "c"], "t"))
                radices = stages.plan_radices([p])[0][:-1]  # the keys' (the target's is last)
                _, n_words, params = dictionaries.pack_keys(p.keys_ctx, radices)
        finally:
            mp.undo()
        assert n_words == words
        # radices: a and b have 3 levels, c 2 (+1 for the code 0 of 'Missing')
        assert radices == [4, 4, 3]
        assert [params[f"krad_{i}"] for i in range(3)] == radices


# --- q words above 2^53 on SQLite (and DuckDB) ------------------------------------------------


@on_engines("sqlite")  # SQLite: no DECIMAL, so one q word above 2^53 (not two)
def test_large_q_words_are_exact(engine_case: Loaded) -> None:
    """Five keys with ~2,200 levels over both data sets: one q word whose radices multiply to
    ~5e16 > 2^53, where a division of doubles would decode wrong key levels (check_2way names
    them)."""
    import random

    rng = random.Random(7)
    n = 1500

    def draw() -> dict[str, list[Any]]:
        cols: dict[str, list[Any]] = {
            f"k{i}": [rng.randrange(50_000) for _ in range(n)] for i in range(5)
        }
        cols["t"] = [rng.choice("ab") for _ in range(n)]
        return cols

    o = draw()
    s = {c: v[: n // 2] + draw()[c][: n // 2] for c, v in o.items()}
    original, synthetic = pa.table(o), pa.table(s)
    keys, options = ["k0", "k1", "k2", "k3", "k4"], {"thresh_2way": (0, 0)}
    mp = pytest.MonkeyPatch()
    mp.setattr(dictionaries, "WORD_LIMIT", 2**20)  # on DuckDB: one small word per key
    try:
        duck = plans.disclosure(original, synthetic, keys, ["t"], **options)
    finally:
        mp.undo()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine, names = engine_case.load({"original": original, "synthetic": synthetic})
        coded = plans.disclosure(
            names["original"], names["synthetic"], keys, ["t"], engine=engine, **options
        )
    from discosql.core.spec import build_spec
    from discosql.engines import open_engine

    with open_engine(None) as eng:
        p = plan(register_inputs(eng, original, synthetic), build_spec(keys, "t"))
        radices = stages.plan_radices([p])[0][:-1]
    assert dictionaries.pack_keys(p.keys_ctx, radices)[1] == 1  # SQLite: one word above 2^53
    assert math.prod(radices) > 2**53
    assert duck[0].check_2way.num_rows > 100
    assert_identical(coded, duck)
