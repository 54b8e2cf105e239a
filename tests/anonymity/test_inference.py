"""inference(): anonymeter's inference attack against the brute-force reference (every
target against every synthetic record in Python) on hypothesis data of every column kind."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import discosql as ds
from discosql.errors import InputError

from ..helpers.engines import Loaded, on_engines
from ..helpers.profiles import fixed
from .distance_data import RADII, data_sets, in_rounds, mixed, plain
from .inference_reference import attack

MEASURES = ("rate", "rate_min", "rate_max", "baseline_rate")


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


@pytest.mark.slow
# 150 examples in CI: each is a whole attack on every engine path (rounds, ties, control)
@settings(max_examples=fixed(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data_sets(), st.booleans(), st.booleans(), RADII, st.booleans(), st.booleans())
def test_inference_agrees_with_the_reference(
    data: Any,
    with_control: bool,
    rounds: bool,
    first_radius: float | None,
    as_anonymeter: bool,
    exact: bool,
) -> None:
    """Every column kind as an auxiliary column and as the secret, ties, missing values,
    the search in its rounds; a numeric secret within the tolerance or exactly."""
    names, kinds, (original, synthetic, control, _) = data
    assume(len(names) >= 2 and synthetic.num_rows > 0)
    numeric = {c for c, k in kinds.items() if k in ("int", "float", "time")}
    aux, secret = names[:-1], names[-1]
    regression = secret in numeric and not exact
    with in_rounds(rounds, first_radius):
        res = ds.inference(
            original,
            synthetic,
            aux,
            secret,
            control=control if with_control else None,
            regression=regression,
            as_anonymeter=as_anonymeter,
        )
    kw = {"regression": regression, "as_anonymeter": as_anonymeter}
    syn = plain(synthetic, kinds)
    ref = attack(plain(original, kinds), syn, aux, secret, numeric, **kw)
    for m in MEASURES:
        assert close(getattr(res, m), ref[m]), (m, getattr(res, m), ref[m])
    assert res.records == original.num_rows
    if with_control:
        cref = attack(plain(control, kinds), syn, aux, secret, numeric, **kw)
        assert close(res.control_rate, cref["rate"])
        assert close(res.control_rate_min, cref["rate_min"])
        assert close(res.control_rate_max, cref["rate_max"])
        assert res.control_records == control.num_rows
    else:
        assert res.control_rate is None
        assert res.risk is None


def test_numeric_band_ends_are_exact() -> None:
    """Guesses at the very ends of the tolerance band (|g - s| / g = 0.05 to the last bit,
    and a hair either side) and guesses of 0 and around -1e-12, where the band's doubles and
    the formula's could disagree: the counts over every synthetic record (the baseline) equal
    the reference's, which applies the formula to every pair."""
    import pyarrow as pa

    secrets = [95.0, 100.0, 0.0, -95.0, 1e-13, 19.0, 21.0, 1e300]
    guesses = [
        100.0,
        100.00000000000001,
        99.99999999999999,
        90.47619047619048,
        0.0,
        -1e-12,
        -2e-12,
        20.0,
        -100.0,
        1e-13,
        5e-13,
        1.0526315789473684e300,
        20.0,
        20.0,
    ]
    o = pa.table({"k": ["a"] * len(secrets), "s": secrets})
    s = pa.table({"k": ["b"] * len(guesses), "s": guesses})
    records = [{"k": r["k"], "s": r["s"]} for r in o.to_pylist()]
    syn = [{"k": r["k"], "s": r["s"]} for r in s.to_pylist()]
    for anonymeter in (False, True):
        res = ds.inference(o, s, ["k"], "s", as_anonymeter=anonymeter)
        ref = attack(records, syn, ["k"], "s", {"s"}, True, as_anonymeter=anonymeter)
        for m in MEASURES:
            assert close(getattr(res, m), ref[m]), (anonymeter, m, getattr(res, m), ref[m])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"aux_cols": [], "secret": "s"}, "aux_cols"),
        ({"aux_cols": ["s"], "secret": "s"}, "among aux_cols"),
        ({"aux_cols": ["k"], "secret": ""}, "secret"),
        ({"aux_cols": ["k"], "secret": "s", "tolerance": 0}, "tolerance"),
        ({"aux_cols": ["k"], "secret": "s", "regression": "yes"}, "regression"),
        ({"aux_cols": ["k"], "secret": "s", "categorical": ["z"]}, "categorical"),
    ],
)
def test_bad_arguments_are_refused_before_any_data_is_read(
    kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(InputError, match=message):
        ds.inference("no such file.parquet", "nor this.parquet", **kwargs)


def test_a_categorical_secret_with_regression_is_refused() -> None:
    import pyarrow as pa

    t = pa.table({"k": [1, 2], "s": ["a", "b"]})
    with pytest.raises(ds.DiscoSQLError, match="not numeric"):
        ds.inference(t, t, ["k"], "s", regression=True)


@on_engines()
def test_inference_on_every_engine(engine_case: Loaded) -> None:
    """The reference's numbers on every engine: a numeric secret within the tolerance and a
    categorical one, with a control; on SQLite and PostgreSQL the search in its rounds."""
    tables = {"orig": mixed(60, 1), "syn": mixed(50, 2), "ctrl": mixed(40, 4)}
    tables = {k: t.drop_columns(["seen", "ok"]) for k, t in tables.items()}
    engine, names = engine_case.load(tables)
    kinds = {"sex": "text", "région": "text", "age": "int", "income": "float"}
    numeric = {"age", "income"}
    rounds = engine_case.case.name in ("sqlite", "postgres")
    for aux, secret in ((["sex", "région", "income"], "age"), (["age", "income"], "sex")):
        with in_rounds(rounds, 0.25):
            got = ds.inference(
                names["orig"], names["syn"], aux, secret, control=names["ctrl"], engine=engine
            )
        syn = plain(tables["syn"], kinds)
        regression = secret in numeric
        for src, prefix in (("orig", ""), ("ctrl", "control_")):
            ref = attack(plain(tables[src], kinds), syn, aux, secret, numeric, regression)
            for m in ("rate", "rate_min", "rate_max") + (("baseline_rate",) if not prefix else ()):
                value = getattr(got, prefix + m)
                assert close(value, ref[m]), (secret, prefix + m, value, ref[m])


def test_the_cli_prints_the_apis_numbers(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import json
    from pathlib import Path

    from discosql.cli.main import main

    adult = Path(__file__).parent.parent / "data" / "adult"
    o, s, c = (str(adult / f"{n}.parquet") for n in ("original", "syn_1", "syn_2"))
    out = tmp_path / "inf.json"
    argv = ["inference", o, s, "--aux-cols", "age,sex,occupation", "--secret", "hours.per.week"]
    assert main([*argv, "--control", c, "--format", "json", "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    want = ds.inference(o, s, ["age", "sex", "occupation"], "hours.per.week", control=c)
    assert got == json.loads(json.dumps(want.to_dict()))
    assert main([*argv, "--exact"]) == 0
    assert "(exactly)" in capsys.readouterr().out
    assert main(["inference", o, s, "--aux-cols", "age", "--secret", "age"]) != 0
    assert "among aux_cols" in capsys.readouterr().err
