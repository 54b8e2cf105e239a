"""dcr(): the distance to the closest record, against the brute-force reference (every pair
compared in Python) on hypothesis data and against SDMetrics 0.32's own calculate_dcr and
DCROverfittingProtection, bit for bit."""

from __future__ import annotations

import warnings
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import discosql as ds

from ..helpers.compare import assert_rows_identical
from ..helpers.profiles import fixed
from .dcr_reference import dcr_reference
from .distance_data import RADII, data_sets, in_rounds, plain


@pytest.mark.slow
# 100 examples in CI: each one runs the search's rounds (about 0.7 s), the slowest of the
# property tests at the profile's 500 (docs/testing.md)
@settings(max_examples=fixed(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data_sets(), st.booleans(), st.booleans(), RADII, st.booleans())
def test_dcr_agrees_with_the_reference(
    data: Any, with_control: bool, rounds: bool, first_radius: float | None, syntheval: bool
) -> None:
    """``rounds``: the search in its rounds (boxes, blocks, levels) even on small data, where
    it would otherwise compare every pair at once, from a first box of ``first_radius``;
    ``syntheval``: with SynthEval's measures (its ranges over two data sets together)."""
    names, kinds, (original, synthetic, control, _) = data
    numeric = {c for c, k in kinds.items() if k in ("int", "float", "time")}
    with in_rounds(rounds, first_radius), warnings.catch_warnings():
        warnings.simplefilter("ignore", ds.DiscoSQLWarning)
        res = ds.dcr(
            original,
            synthetic,
            control=control if with_control else None,
            within=0.25,
            syntheval=syntheval,
        )
    ref = dcr_reference(
        plain(original, kinds),
        [plain(synthetic, kinds)],
        names,
        numeric,
        plain(control, kinds) if with_control else None,
        within=0.25,
        syntheval=syntheval,
    )
    assert_rows_identical(res.records.to_pylist(), ref["records"])
    got = {(r["synthesis"], r["measure"]): r for r in res.summary.to_pylist()}
    assert_rows_identical(
        [got[(r["synthesis"], r["measure"])] for r in ref["summary"]], ref["summary"]
    )


def test_dcr_is_sdmetrics_bit_for_bit() -> None:
    """SDMetrics 0.32's calculate_dcr and DCROverfittingProtection on mixed data with missing
    values: every distance and the score equal to the last bit."""
    import random

    import numpy as np
    from sdmetrics.single_table import DCROverfittingProtection
    from sdmetrics.single_table.privacy.dcr_utils import calculate_dcr

    rng = random.Random(7)

    def table(n: int) -> pa.Table:
        return pa.table(
            {
                "a": [rng.choice(["x", "y", "z", None]) for _ in range(n)],
                "b": [rng.choice([True, False]) for _ in range(n)],
                "n": [rng.choice([None, rng.random() * 100]) for _ in range(n)],
                "i": [rng.randint(0, 50) for _ in range(n)],
            }
        )

    meta = {
        "columns": {
            "a": {"sdtype": "categorical"},
            "b": {"sdtype": "boolean"},
            "n": {"sdtype": "numerical"},
            "i": {"sdtype": "numerical"},
        }
    }
    for size in (1, 7, 40, 300):
        o, s, c = table(size), table(size + 3), table(size // 2 + 1)
        res = ds.dcr(o, s, control=c)
        with warnings.catch_warnings():  # numpy's NaN warnings inside SDMetrics
            warnings.simplefilter("ignore")
            want = calculate_dcr(s.to_pandas(), o.to_pandas(), meta).to_numpy()
            b = DCROverfittingProtection.compute_breakdown(
                o.to_pandas(), s.to_pandas(), c.to_pandas(), meta, None
            )
        assert np.array_equal(np.array(res.records.column("dcr").to_pylist()), want)
        assert res.value("DCROverfittingProtection") == b["score"]
        shares = b["synthetic_data_percentages"]
        assert res.value("closer_to_training") == shares["closer_to_training"]
        assert res.value("closer_to_holdout") == shares["closer_to_holdout"]


def test_dcr_is_syntheval() -> None:
    """SynthEval 1.7's own dcr (mDCR), nndr (avg, err) and hit_rate through its entry point on mixed
    data without missing values (SynthEval refuses them), with duplicates and a constant
    column: equal to 1e-12 (SynthEval scales each value first, x * scale + min, where
    discosql divides each difference by the range: the last bits differ)."""
    import random

    from syntheval import SynthEval

    rng = random.Random(11)

    def table(n: int) -> pa.Table:
        return pa.table(
            {
                "a": [rng.choice(["x", "y", "z"]) for _ in range(n)],
                "n": [round(rng.random() * 100, rng.choice([0, 3])) for _ in range(n)],
                "i": [rng.randint(0, 50) for _ in range(n)],
                "b": [rng.choice(["u", "v"]) for _ in range(n)],
                "k": [5] * n,  # a range of 0
            }
        )

    for size in (3, 12, 60, 250):
        o, s = table(size), table(size + 5)
        s = pa.concat_tables([s, o.slice(0, size // 3)])  # copies of original records
        got = ds.dcr(o, s, syntheval=True)
        real, syn = o.to_pandas(), s.to_pandas()
        ev = SynthEval(real, cat_cols=["a", "b"], verbose=False, console="off", enable_plots=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev.evaluate(syn[real.columns], dcr={}, nndr={}, hit_rate={})
        want = ev._raw_results
        assert isinstance(want["dcr"]["mDCR"], float), want  # the metrics ran
        pairs = (
            ("mDCR", want["dcr"]["mDCR"]),
            ("syntheval_nndr", want["nndr"]["avg"]),
            ("syntheval_nndr_err", want["nndr"]["err"]),
        )
        # the hitting rate counts records: the same count (SynthEval's scaled threshold,
        # 1/30 of the original's range over the joint range, holds the same records here)
        assert got.value("hit_rate") == want["hit_rate"]["hit rate"], size
        for measure, value in pairs:
            assert got.value(measure) == pytest.approx(value, rel=1e-12, abs=1e-15), (
                size,
                measure,
            )


def test_a_round_past_max_pairs_is_refused() -> None:
    """One numeric column and nothing categorical: every record is one block, and the whole
    block is refused past max_pairs with the count and what to do."""
    o = pa.table({"x": [float(i % 3) for i in range(50)]})
    with pytest.raises(ds.InputError, match=r"pairs of records in one round .* max_pairs=10"):
        ds.dcr(o, o, max_pairs=10)
    assert ds.dcr(o, o).value("identical_share") == 1.0


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"within": 2}, "within: a distance from 0 to 1, got 2"),
        ({"max_pairs": 0}, "max_pairs: a positive integer, got 0"),
        ({"syntheval": "yes"}, "syntheval: True or False, got 'yes'"),
        ({"columns": ["a"], "categorical": ["b"]}, r"categorical: \['b'\] are not among"),
        ({"columns": ["__disco_x"]}, "reserved"),
    ],
)
def test_bad_arguments_are_refused_before_any_data_is_read(
    kw: dict[str, Any], message: str
) -> None:
    with pytest.raises(ds.InputError, match=message):
        ds.dcr("no such file.parquet", "nor this.parquet", **kw)


def test_there_is_no_script_and_the_refusal_says_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    for export in (ds.dcr_to_sql, ds.membership_to_sql):
        with pytest.raises(ds.InputError, match="decides its rounds from the data"):
            export("o.parquet", "s.parquet")
    from discosql.cli.main import main

    o = pa.table({"x": [1.0, 2.0]})
    import pyarrow.parquet as pq

    pq.write_table(o, tmp_path / "o.parquet")
    script = tmp_path / "d.sql"
    for cmd in ("dcr", "membership"):
        extra = ["--control", str(tmp_path / "o.parquet")] if cmd == "membership" else []
        argv = [cmd, str(tmp_path / "o.parquet"), str(tmp_path / "o.parquet"), *extra]
        assert main([*argv, "--sql", str(script)]) == 2
        err = capsys.readouterr().err
        assert "no SQL script of the distance family" in err
        assert "Traceback" not in err
        assert not script.exists()
