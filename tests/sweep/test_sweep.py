"""key_sweep(): every row equals disclosure() with that subset of the keys (SD2011 with NAs,
exclusions, grouped keys and targets, use_keys_na, m = 2; hypothesis data with NULLs, quotes,
SQL in names, q over several words), on DuckDB, SQLite, PostgreSQL and Spark; worst() and
contribution computed by hand from the table; the CLI and the plot."""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings

import discosql as ds
from discosql.sweep.key_sweep import MEASURES, key_sweep

from .. import engine_data, oracle
from ..helpers.compare import close_scaled
from ..helpers.data import changed, scenarios, sd2011_pair, to_arrow
from ..helpers.engines import Loaded, Started, on_engines, on_script_engines
from ..helpers.profiles import fixed
from ..helpers.shell import duckdb_cli, run_datafusion, run_shell
from ..helpers.sql import assert_portable

KEYS = ["sex", "age", "region", "placesize"]
USE_KEYS_NA = [True, True, False, True]
# grouped numeric targets and key, an exclusion on a key that only some subsets hold,
# exclude_ov_denom_lim and a key without NA: each changes the cells of some subsets
OPTIONS: dict[str, Any] = {
    "ngroups_targets": 5,
    "ngroups_keys": [0, 6, 0, 0],
    "use_keys_na": USE_KEYS_NA,
    "exclude": {"depress": [("sex", "MALE", "[0,2)")]},
    "not_targetlevs": {"ls": "MIXED"},
    "exclude_ov_denom_lim": True,
}
TARGETS = ["depress", "income", "ls"]


def _disclosure_kwargs(subset: list[str], target: str) -> dict[str, Any]:
    """disclosure()'s options for one sweep row: OPTIONS restricted to the subset."""
    idx = [KEYS.index(k) for k in subset]
    kw: dict[str, Any] = {
        "use_keys_na": [USE_KEYS_NA[i] for i in idx],
        "ngroups_keys": [OPTIONS["ngroups_keys"][i] for i in idx],
        "exclude_ov_denom_lim": True,
    }
    if target in ("depress", "income"):
        kw["ngroups_target"] = 5
    if target == "ls":
        kw["not_targetlev"] = "MIXED"
    if target == "depress" and "sex" in subset:
        kw |= {
            "exclude_keys": ["sex"],
            "exclude_keylevs": ["MALE"],
            "exclude_targetlevs": ["[0,2)"],
        }
    return kw


def _assert_rows_equal(rows: list[dict[str, Any]], ref: list[dict[str, Any]]) -> None:
    assert len(rows) == len(ref)
    for r, w in zip(rows, ref, strict=True):
        assert (r["keys"], r["target"], r["synthesis"]) == (w["keys"], w["target"], w["synthesis"])
        for m in MEASURES:
            assert close_scaled(r[m], w[m]), (r["keys"], r["target"], r["synthesis"], m, r[m], w[m])


@pytest.fixture(scope="module")
def sd2011() -> tuple[str, list[str]]:
    return oracle.original_path(), oracle.synthetic_paths("s5")[:2]


@pytest.fixture(scope="module")
def swept(sd2011: tuple[str, list[str]]) -> ds.KeySweep:
    return key_sweep(*sd2011, KEYS, TARGETS, **OPTIONS)


def test_every_row_is_disclosure_of_its_subset(
    sd2011: tuple[str, list[str]], swept: ds.KeySweep
) -> None:
    rows = swept.table.to_pylist()
    assert len(rows) == 15 * len(TARGETS) * 2  # every non-empty subset of 4 keys, m = 2
    # the exclusion and not_targetlev fire somewhere, and some measures differ between subsets
    assert len({r["DiSCO"] for r in rows if r["target"] == "depress"}) > 5
    for r in rows:
        res = ds.disclosure(
            *sd2011,
            keys=r["keys"],
            target=r["target"],
            **_disclosure_kwargs(r["keys"], r["target"]),
        )
        for m in MEASURES:
            assert close_scaled(r[m], res.value(m, r["synthesis"])), (r["keys"], r["target"], m)


def test_the_exclusion_changes_what_it_should(sd2011: tuple[str, list[str]]) -> None:
    """A sweep row with 'sex' and the exclusion differs from the same subset without it: the
    test above would not notice an exclusion silently dropped."""
    kw = _disclosure_kwargs(KEYS, "depress")
    excluded = ds.disclosure(*sd2011, keys=KEYS, target="depress", **kw)
    for k in ("exclude_keys", "exclude_keylevs", "exclude_targetlevs"):
        del kw[k]
    plain = ds.disclosure(*sd2011, keys=KEYS, target="depress", **kw)
    assert plain.value("DiSCO", 1) != excluded.value("DiSCO", 1)


def test_sizes_and_fixed_keys(sd2011: tuple[str, list[str]], swept: ds.KeySweep) -> None:
    options = {k: v for k, v in OPTIONS.items() if k != "not_targetlevs"}  # of 'ls'
    sw = key_sweep(*sd2011, KEYS, ["depress"], sizes=[2, 3], fixed_keys=["region"], **options)
    subsets = [tuple(k) for k in sw.table.column("keys").to_pylist()[::2]]
    assert subsets == [
        ("sex", "region"),
        ("age", "region"),
        ("region", "placesize"),
        ("sex", "age", "region"),
        ("sex", "region", "placesize"),
        ("age", "region", "placesize"),
    ]
    full = [r for r in swept.table.to_pylist() if r["target"] == "depress"]
    wanted = [r for r in full if tuple(r["keys"]) in subsets]
    _assert_rows_equal(
        sw.table.to_pylist(),
        sorted(wanted, key=lambda r: (subsets.index(tuple(r["keys"])), r["synthesis"])),
    )


def _by_hand_means(swept: ds.KeySweep, measure: str) -> dict[tuple[str, tuple[str, ...]], float]:
    out: dict[tuple[str, tuple[str, ...]], list[float]] = {}
    for r in swept.table.to_pylist():
        out.setdefault((r["target"], tuple(r["keys"])), []).append(r[measure])
    return {k: sum(v) / len(v) for k, v in out.items()}


def test_worst(swept: ds.KeySweep) -> None:
    means = _by_hand_means(swept, "repU")
    got = swept.worst(3, "repU").to_pylist()
    assert [r["target"] for r in got] == ["depress"] * 3 + ["income"] * 3 + ["ls"] * 3
    for target in TARGETS:
        best = sorted((v for (t, _), v in means.items() if t == target), reverse=True)[:3]
        assert [r["value"] for r in got if r["target"] == target] == pytest.approx(best)
    assert got[0]["keys"] == KEYS  # all keys: the most replicated uniques
    with pytest.raises(ds.InputError, match="measure: 'DISCO' is not one of"):
        swept.worst(3, "DISCO")


def test_contribution(swept: ds.KeySweep) -> None:
    means = _by_hand_means(swept, "DiSCO")
    table = swept.contribution
    rows = {(r["key"], r["target"]): r for r in table.to_pylist() if r["measure"] == "DiSCO"}
    for key in KEYS:
        for target in TARGETS:
            diffs = []
            for (t, s), v in means.items():
                rest = tuple(k for k in s if k != key)
                if t == target and key in s and rest:
                    diffs.append(v - means[(t, rest)])
            assert rows[(key, target)]["pairs"] == len(diffs) == 7
            assert rows[(key, target)]["mean_increase"] == pytest.approx(sum(diffs) / 7)
    assert set(table.column("measure").to_pylist()) == set(MEASURES)


def test_plot(swept: ds.KeySweep, tmp_path: Path) -> None:
    path = tmp_path / "sweep.png"
    swept.plot().savefig(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_input_before_reading() -> None:
    missing = "missing.parquet"
    cases = [
        ({"fixed_keys": ["x"]}, "fixed_keys: ['x'] are not among the keys"),
        ({"sizes": [0]}, "sizes: [0] out of range"),
        ({"sizes": [5]}, "sizes: [5] out of range"),
        ({"sizes": "2"}, "sizes: expected subset sizes"),
        ({"fixed_keys": ["sex", "age"], "sizes": [1]}, "sizes: [1] out of range"),
        ({"ngroups_target": 5}, "unknown option 'ngroups_target'; did you mean 'ngroups_targets'"),
    ]
    for kw, message in cases:
        with pytest.raises(ds.InputError) as e:
            key_sweep(missing, missing, ["sex", "age"], **kw)
        assert message in str(e.value), (kw, str(e.value))


def _engine_rows(engine: Any, names: dict[str, str]) -> list[dict[str, Any]]:
    sw = key_sweep(
        names["sd2011"], [names["syn_1"], names["syn_2"]], KEYS, TARGETS, engine=engine, **OPTIONS
    )
    return sw.table.to_pylist()


@on_engines("sqlite", "postgres", "spark")
def test_the_sweep_on_an_engine(engine_case: Loaded, swept: ds.KeySweep) -> None:
    tables = engine_data.oracle_tables()
    engine, names = engine_case.load({n: tables[n] for n in ("sd2011", "syn_1", "syn_2")})
    _assert_rows_equal(_engine_rows(engine, names), swept.table.to_pylist())


def test_cli_sweep(
    sd2011: tuple[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from discosql.cli.main import main

    o, syn = sd2011
    base = ["sweep", o, *syn, "--keys", "sex,age,region", "--targets", "depress,ls"]
    plot = tmp_path / "s.png"
    assert main([*base, "--worst", "2", "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "2 riskiest subsets per target by DiSCO" in out
    assert "sex, age, region" in out
    assert plot.read_bytes()[:4] == b"\x89PNG"
    assert main([*base, "--sizes", "2", "--fixed-keys", "sex", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {tuple(r["keys"]) for r in rows} == {("sex", "age"), ("sex", "region")}
    api = key_sweep(
        o, syn, ["sex", "age", "region"], ["depress", "ls"], sizes=[2], fixed_keys=["sex"]
    )
    assert [r["DiSCO"] for r in rows] == api.table.column("DiSCO").to_pylist()
    bad = [
        (["--measure", "DISCO"], "--measure: 'DISCO' is not one of"),
        (["--sizes", "a"], "--sizes: expected integers"),
        (["--fixed-keys", "educ"], "--fixed-keys: ['educ'] are not among"),
    ]
    for extra, message in bad:
        assert main([*base, *extra]) == 2
        err = capsys.readouterr().err
        assert message in err
        assert "Traceback" not in err


@settings(max_examples=fixed(25), deadline=None, suppress_health_check=list(HealthCheck))
@given(sc=scenarios())
def test_sweep_agrees_with_disclosure_on_hypothesis_data(sc: dict[str, Any]) -> None:
    """NULLs, unicode, quotes and SQL in names and values, one-row originals, empty syntheses,
    q over several words: each row equals disclosure() with its subset."""
    from discosql.core import dictionaries

    names, keys, target, opts = sc["names"], sc["keys"], sc["target"], sc["options"]
    original = to_arrow(sc["original"], names, sc["types"])
    synthetic = [to_arrow(s, names, sc["types"]) for s in sc["synthetics"]]
    keys_na = opts["use_keys_na"]
    keys_na = keys_na if isinstance(keys_na, list) else [keys_na] * len(keys)
    triples = list(
        zip(
            opts.get("exclude_keys", []),
            opts.get("exclude_keylevs", []),
            opts.get("exclude_targetlevs", []),
            strict=True,
        )
    )
    sweep_kw: dict[str, Any] = {
        "use_targets_na": opts["use_target_na"],
        "use_keys_na": keys_na,
        "exclude_ov_denom_lim": opts["exclude_ov_denom_lim"],
        "denom_lim": opts["denom_lim"],
        "not_targetlevs": {target: opts["not_targetlev"]} if "not_targetlev" in opts else None,
        "exclude": {target: triples} if triples else None,
    }
    mp = pytest.MonkeyPatch()
    if sc.get("word_limit"):
        mp.setattr(dictionaries, "WORD_LIMIT", sc["word_limit"])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # degenerate inputs may warn; values matter
            sw = key_sweep(original, synthetic, keys, [target], **sweep_kw)
            for r in sw.table.to_pylist():
                idx = [keys.index(k) for k in r["keys"]]
                kw = {k: opts[k] for k in ("use_target_na", "exclude_ov_denom_lim", "denom_lim")}
                kw["use_keys_na"] = [keys_na[i] for i in idx]
                if "not_targetlev" in opts:
                    kw["not_targetlev"] = opts["not_targetlev"]
                kept = [t for t in triples if t[0] in r["keys"]]
                if kept:
                    kw |= {
                        "exclude_keys": [t[0] for t in kept],
                        "exclude_keylevs": [t[1] for t in kept],
                        "exclude_targetlevs": [t[2] for t in kept],
                    }
                res = ds.disclosure(original, synthetic, keys=r["keys"], target=target, **kw)
                for m in MEASURES:
                    assert close_scaled(r[m], res.value(m, r["synthesis"])), (r["keys"], m)
    finally:
        mp.undo()


def test_sweep_schema(swept: ds.KeySweep) -> None:
    assert swept.table.schema.field("keys").type == pa.list_(pa.string())
    assert swept.to_dict()["keys"] == KEYS


def _script_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The API's rows as a script prints them: keys as text, ordered by target, n_keys,
    keys, synthesis."""
    out = [{**r, "keys": ", ".join(r["keys"])} for r in rows]
    return sorted(out, key=lambda r: (r["target"], r["n_keys"], r["keys"], r["synthesis"]))


def _assert_script_rows(got: list[dict[str, Any]], swept: ds.KeySweep) -> None:
    want = _script_rows(swept.table.to_pylist())
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert (g["keys"], g["target"], g["synthesis"]) == (w["keys"], w["target"], w["synthesis"])
        for m in MEASURES:
            value = math.nan if g[m] is None else float(g[m])
            assert close_scaled(value, w[m]), (w["keys"], w["target"], m, value, w[m])


def _shell_sweep(
    server: None, sd2011: tuple[str, list[str]], swept: ds.KeySweep, tmp_path: Path
) -> None:
    script = ds.sweep_to_sql(*sd2011, KEYS, TARGETS, **OPTIONS)
    tables = run_shell(script, tmp_path)
    assert len(tables) == 1
    _assert_script_rows(tables[0], swept)


def _datafusion_sweep(
    server: None, sd2011: tuple[str, list[str]], swept: ds.KeySweep, tmp_path: Path
) -> None:
    paths = engine_data.write_parquet(tmp_path, engine_data.oracle_tables())
    names = {"original": "sd2011", "synthetic": ["syn_1", "syn_2"]}
    script = ds.sweep_to_sql(
        paths["sd2011"],
        [paths["syn_1"], paths["syn_2"]],
        KEYS,
        TARGETS,
        dialect="datafusion",
        tables=names,
        **OPTIONS,
    )
    tables = run_datafusion(script, {n: paths[n] for n in ("sd2011", "syn_1", "syn_2")})
    _assert_script_rows(tables[-1].to_pylist(), swept)


def _postgres_sweep(
    pg_dsn: str, sd2011: tuple[str, list[str]], swept: ds.KeySweep, tmp_path: Path
) -> None:
    engine_data.load_postgres(pg_dsn, engine_data.oracle_tables())
    names = {"original": "sd2011", "synthetic": ["syn_1", "syn_2"]}
    script = ds.sweep_to_sql(
        "sd2011",
        ["syn_1", "syn_2"],
        KEYS,
        TARGETS,
        dialect="postgres",
        tables=names,
        engine=pg_dsn,
        **OPTIONS,
    )
    rows = engine_data.run_postgres_script(pg_dsn, script)[-1]
    _assert_script_rows(rows, swept)


def _spark_sweep(
    spark: Any, sd2011: tuple[str, list[str]], swept: ds.KeySweep, tmp_path: Path
) -> None:
    paths = engine_data.write_parquet(tmp_path, engine_data.oracle_tables())
    spark.sql("CREATE DATABASE IF NOT EXISTS sweepx")
    for n in ("sd2011", "syn_1", "syn_2"):
        spark.read.parquet(paths[n]).write.mode("overwrite").saveAsTable(f"sweepx.{n}")
    names = {"original": "sweepx.sd2011", "synthetic": ["sweepx.syn_1", "sweepx.syn_2"]}
    script = ds.sweep_to_sql(
        paths["sd2011"],
        [paths["syn_1"], paths["syn_2"]],
        KEYS,
        TARGETS,
        dialect="spark",
        tables=names,
        **OPTIONS,
    )
    rows = engine_data.run_spark_script(spark, script)[-1]
    _assert_script_rows(rows, swept)


@on_script_engines()
def test_a_script_engine_runs_the_sweep_export(
    script_engine: Started, sd2011: tuple[str, list[str]], swept: ds.KeySweep, tmp_path: Path
) -> None:
    run = {
        "duckdb_shell": _shell_sweep,
        "datafusion": _datafusion_sweep,
        "postgres": _postgres_sweep,
        "spark": _spark_sweep,
    }
    run[script_engine.name](script_engine.server, sd2011, swept, tmp_path)


def test_the_sweep_script_stops_on_new_key_levels(tmp_path: Path) -> None:
    """Exported from SD2011, run on data where a key has more levels than its q packing was
    fixed for: the stop message and no numbers."""
    import subprocess

    import pyarrow.parquet as pq

    before = sd2011_pair()
    paths = {n: str(tmp_path / f"{n}.parquet") for n in before}
    for n, t in before.items():
        pq.write_table(t, paths[n])
    script = ds.sweep_to_sql(paths["orig"], paths["syn"], ["sex", "region"], ["depress"])
    after = changed(before, "case when n % 3 = 0 then region || ' (new)' else region end as region")
    for n, t in after.items():
        pq.write_table(t, paths[n])
    out = subprocess.run(
        [duckdb_cli(), "-json"],
        input=script,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert "key 'region' has more than the" in out.stderr
    assert "re-export the script" in out.stderr
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("dialect", ["bigquery", "snowflake", "trino", "tsql", "databricks"])
def test_sweep_scripts_parse_and_are_portable(dialect: str) -> None:
    names = {"original": "s.orig", "synthetic": ["s.syn_1"]}
    script = ds.sweep_to_sql(
        oracle.original_path(),
        oracle.synthetic_paths("s5")[:1],
        ["sex", "age", "region"],
        ["depress"],
        dialect=dialect,
        tables=names,
        ngroups_targets=5,
    )
    assert len(assert_portable(script, dialect)) > 10
