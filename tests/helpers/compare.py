"""The float comparators of the tests. Each keeps the tolerance and NaN rule its tests have
always used; comparators with another rule stay in their test module (``_same`` in
test_sweep.py, ``_close`` in test_risk_reference.py, ``close`` in
test_risk.py, ``same`` in test_reference_agreement.py)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

REL, ABS = 1e-9, 1e-12


def close(a: float, b: float) -> bool:
    """To 1e-9 relative (1e-12 absolute near 0); NaN equals NaN, and a NaN on one side only
    differs."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=REL, abs_tol=ABS)


def close_or_missing(a: Any, b: Any) -> bool:
    """``a`` is ``b`` to 1e-9 relative (1e-12 absolute near 0); an expected None or NaN is met
    by a None or a NaN."""
    if b is None or (isinstance(b, float) and math.isnan(b)):
        return a is None or (isinstance(a, float) and math.isnan(a))
    return math.isclose(a, b, rel_tol=REL, abs_tol=ABS)


def within(a: float, b: float, tol: float = 1e-12) -> bool:
    """``|a - b| <= tol`` (absolute); NaN equals NaN."""
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


def assert_value(u: Any, v: Any, where: str, rel: float = 1e-12) -> None:
    """Equal, floats to ``rel`` (NaN equals NaN); a whole float equals the same int (JSON)."""
    if isinstance(u, float) or isinstance(v, float):
        assert isinstance(u, int | float), f"{where}: {u!r} is not a number"
        assert isinstance(v, int | float), f"{where}: {v!r} is not a number"
        same = (math.isnan(u) and math.isnan(v)) or math.isclose(u, v, rel_tol=rel, abs_tol=1e-13)
    else:
        same = u == v
    assert same, f"{where}: {u!r} != {v!r}"


def assert_script_tables(tables: list[Any], ref: Any) -> None:
    """The tables an exported disclosure() script printed, in order, are ``ref``'s (a
    DisclosureResult): the same columns and rows, values by :func:`assert_value` (a driver's
    Decimal read as a float)."""
    from discosql.core.results import computed_tables

    assert len(tables) == len(computed_tables(ref.spec))
    for spec, got in zip(computed_tables(ref.spec), tables, strict=True):
        want = getattr(ref, spec.name)
        assert got.column_names == want.column_names, spec.name
        assert got.num_rows == want.num_rows, spec.name
        for g, w in zip(got.to_pylist(), want.to_pylist(), strict=True):
            for col in w:
                value = float(g[col]) if type(g[col]).__name__ == "Decimal" else g[col]
                assert_value(value, w[col], f"{spec.name}.{col}")


def script_value(got: Any, want: Any) -> bool:
    """A value an exported script printed (the duckdb shell's JSON: NaN may come as "nan") is
    the API's: floats to 1e-12 relative, NaN and None alike, anything else equal."""
    if want is None or (isinstance(want, float) and math.isnan(want)):
        return got is None or (isinstance(got, float) and math.isnan(got)) or got == "nan"
    if isinstance(want, float):
        return math.isclose(float(got), want, rel_tol=1e-12, abs_tol=1e-12)
    return bool(got == want)


def close_to(got: dict[int, float], want: dict[int, Fraction]) -> None:
    """Within two units in the last place of the exact sum of the rounded terms (the total is
    made a double once, from its integer part and its 60 binary places)."""
    assert set(got) == set(want)
    for g, exact in want.items():
        x = float(exact)
        assert abs(got[g] - x) <= 2 * math.ulp(x), (g, got[g], exact)
