"""Parity with SDMetrics 0.32 (a test-only dependency): the same numbers to 1e-12.

SDMetrics is O(n^2) in pure Python (12.8 s for CategoricalCAP at 10k rows), so the data here are a
few hundred rows. Its CAP classes warn that they are deprecated in favour of DisclosureProtection;
that DeprecationWarning is SDMetrics' own and is ignored here on purpose (pytest turns warnings
into errors). SDMetrics itself (seconds to import) is imported by the ``sdm`` fixture, only when
these tests run; it is a required test dependency, so a missing SDMetrics fails them.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pandas as pd
import pytest

import discosql as ds

from ...helpers.compare import within

pytestmark = pytest.mark.filterwarnings(
    "ignore:Computing CAP metrics directly is deprecated:DeprecationWarning"
)

KEYS = ["sex", "region", "age", "educ"]
N = 200


def frame(rng: np.random.Generator, n: int) -> pd.DataFrame:
    """Keys and targets that depend on each other, with text NAs (None in object columns)."""
    sex = rng.choice(np.array(["F", "M", None], dtype=object), n, p=[0.48, 0.48, 0.04])
    region = rng.choice(np.array(["N", "S", "E", "W", "é'x", None], dtype=object), n)
    age = rng.integers(0, 5, n)
    educ = rng.choice(np.array(["lo", "mid", "hi"], dtype=object), n, p=[0.5, 0.3, 0.2])
    t1 = np.where(
        rng.random(n) < 0.6, np.where(age > 2, "yes", "no"), rng.choice(["yes", "no", "maybe"], n)
    ).astype(object)
    t1[rng.random(n) < 0.05] = None
    t2 = (age + rng.integers(0, 2, n)) % 3
    income = np.round(rng.gamma(2.0, 1000.0, n), 1)
    income[rng.random(n) < 0.05] = np.nan
    return pd.DataFrame(
        {
            "sex": sex,
            "region": region,
            "age": age,
            "educ": educ,
            "t1": t1,
            "t2": t2,
            "income": income,
        }
    )


@pytest.fixture(scope="module")
def sdm() -> ModuleType:
    """sdmetrics.single_table, imported here and not at collection."""
    import sdmetrics.single_table

    return sdmetrics.single_table


@pytest.fixture(scope="module")
def data() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(20261122)
    original = frame(rng, N)
    # synthetic: half perturbed copies of original rows, half fresh draws (non-trivial matches)
    copies = original.sample(N // 2, random_state=1).reset_index(drop=True)
    for col in ("region", "t1"):
        mask = rng.random(len(copies)) < 0.3
        copies.loc[mask, col] = frame(rng, int(mask.sum()))[col].to_numpy()
    synthetic = pd.concat([copies, frame(rng, N - N // 2)], ignore_index=True)
    return original, synthetic


CASES = [
    pytest.param(KEYS[:1], ["t1"], id="1key-1target"),
    pytest.param(KEYS[:2], ["t1"], id="2keys-1target"),
    pytest.param(KEYS[:3], ["t1", "t2"], id="3keys-2targets"),
    pytest.param(KEYS, ["t2"], id="4keys-1target"),
]


@pytest.mark.parametrize(("keys", "sensitive"), CASES)
def test_cap_classes_match_sdmetrics(sdm, data, keys, sensitive) -> None:
    original, synthetic = data
    for ours, theirs in [
        (ds.categorical_cap, sdm.CategoricalCAP),
        (ds.categorical_zero_cap, sdm.CategoricalZeroCAP),
        (ds.categorical_generalized_cap, sdm.CategoricalGeneralizedCAP),
    ]:
        want = theirs.compute(original, synthetic, key_fields=keys, sensitive_fields=sensitive)
        got = ours(original, synthetic, keys, sensitive).score
        assert within(got, want), (theirs.__name__, got, want)
        assert 0 < got < 1  # the data are not degenerate: the test could fail


@pytest.mark.parametrize(("keys", "sensitive"), CASES[1:3])
@pytest.mark.parametrize("method", ["cap", "zero_cap", "generalized_cap"])
def test_disclosure_protection_matches_sdmetrics(sdm, data, keys, sensitive, method) -> None:
    original, synthetic = data
    keys = [*keys, "income"]  # a continuous key with NaN, binned into equal-width bins
    want = sdm.DisclosureProtection.compute_breakdown(
        original,
        synthetic,
        keys,
        sensitive,
        computation_method=method,
        continuous_column_names=["income"],
        num_discrete_bins=4,
    )
    got = ds.disclosure_protection(
        original,
        synthetic,
        keys,
        sensitive,
        computation_method=method,
        continuous_columns=["income"],
        num_discrete_bins=4,
    )
    assert within(got.cap_protection, want["cap_protection"])
    assert within(got.baseline_protection, want["baseline_protection"])
    assert within(got.score, want["score"])


def test_disclosure_protection_continuous_target_and_constant_column(sdm, data) -> None:
    original, synthetic = data
    original = original.assign(const=7.0)
    synthetic = synthetic.assign(const=np.where(np.arange(N) % 2 == 0, 7.0, 8.5))
    want = sdm.DisclosureProtection.compute_breakdown(
        original,
        synthetic,
        ["sex", "const"],
        ["income"],
        continuous_column_names=["income", "const"],
        num_discrete_bins=7,
    )
    got = ds.disclosure_protection(
        original,
        synthetic,
        ["sex", "const"],
        ["income"],
        continuous_columns=["income", "const"],
        num_discrete_bins=7,
    )
    assert within(got.cap_protection, want["cap_protection"])
    assert within(got.baseline_protection, want["baseline_protection"])
    assert within(got.score, want["score"])


def test_float_nan_is_a_category_in_discosql_but_never_matches_in_sdmetrics(sdm) -> None:
    """The documented difference: SDMetrics' float NaN is a fresh object per .iloc, never equal.

    discosql treats NA as one category everywhere, which equals SDMetrics with the NaN replaced
    by a placeholder value (as SDMetrics' own DisclosureProtection does with its null category).
    """
    original = pd.DataFrame({"k": [1.0, np.nan, np.nan, 2.0], "t": ["a", "b", "b", "a"]})
    synthetic = pd.DataFrame({"k": [1.0, np.nan, 2.0, 2.0], "t": ["a", "b", "a", "b"]})
    nan_as_value = pd.DataFrame({"k": original["k"].fillna(-1.0), "t": original["t"]})
    syn_as_value = pd.DataFrame({"k": synthetic["k"].fillna(-1.0), "t": synthetic["t"]})
    ours = ds.categorical_zero_cap(original, synthetic, ["k"], ["t"]).score
    theirs_nan = sdm.CategoricalZeroCAP.compute(
        original, synthetic, key_fields=["k"], sensitive_fields=["t"]
    )
    theirs_value = sdm.CategoricalZeroCAP.compute(
        nan_as_value, syn_as_value, key_fields=["k"], sensitive_fields=["t"]
    )
    assert within(ours, theirs_value)  # 1 - (1 + 1 + 1 + 0.5) / 4
    assert ours == 0.125
    assert theirs_nan == 0.625  # the two NaN records never match: each scores 0
