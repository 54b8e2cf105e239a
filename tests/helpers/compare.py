"""The float and table comparators of the tests, all of them here (a test module defines
none of its own). Each keeps the tolerance and NaN rule its tests have always used."""

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


def close_scaled(a: Any, b: Any) -> bool:
    """``|a - b| <= 1e-12 * max(1, |b|)``; a NaN ``a`` is met by a NaN ``b`` only (the key
    sweep's rows against disclosure()'s)."""
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return bool(abs(a - b) <= 1e-12 * max(1.0, abs(b)))


def close_rel(got: float, want: float, tol: float = 1e-9) -> bool:
    """Equal, or to ``tol`` relative with no absolute slack; an expected NaN is met by a NaN
    (sdcMicro's outputs)."""
    if math.isnan(want):
        return math.isnan(got)
    return got == want or math.isclose(got, want, rel_tol=tol, abs_tol=0.0)


def close_to_text(got: Any, want: str) -> bool:
    """``got`` is the number an oracle file writes as text, to 1e-9 relative (1e-12 absolute);
    "NA" is met by None or NaN."""
    if want == "NA":
        return got is None or (isinstance(got, float) and math.isnan(got))
    return math.isclose(float(got), float(want), rel_tol=1e-9, abs_tol=1e-12)


def close_or_null(a: Any, b: Any) -> bool:
    """Numbers agree to 1e-9 (relative; 1e-12 absolute); NaN equals NaN, and a NULL (None)
    counts as NaN."""
    a = math.nan if a is None else float(a)
    b = math.nan if b is None else float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def assert_script_row(got: dict[str, Any], want: dict[str, Any]) -> None:
    """A row a script printed has ``want``'s columns (and maybe more), values by
    :func:`script_value`."""
    assert set(want) <= set(got), (got, want)
    assert all(script_value(got[k], want[k]) for k in want), (got, want)


def assert_same(got: Any, ref: Any, tables: tuple[str, ...], rel: float = 1e-12) -> None:
    """The result tables of two runs are equal: same schema, rows, strings; floats to ``rel``."""
    for name in tables:
        a, b = getattr(got, name), getattr(ref, name)
        assert a.schema == b.schema, f"{name}: {a.schema} != {b.schema}"
        ra, rb = a.to_pylist(), b.to_pylist()
        assert len(ra) == len(rb), f"{name}: {len(ra)} rows != {len(rb)}"
        for i, (x, y) in enumerate(zip(ra, rb, strict=True)):
            for col in x:
                assert_value(x[col], y[col], f"{name} row {i} column {col}", rel)


def nan_comparable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with each NaN made "NaN" (NaN != NaN), for exact comparison."""
    return [
        {k: "NaN" if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()}
        for r in rows
    ]


def assert_rows_identical(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    """Rows equal exactly, NaN equal to NaN."""
    assert nan_comparable(got) == nan_comparable(want)


def assert_identical(got: list[Any], want: list[Any]) -> None:
    """Two lists of DisclosureResults are identical: every result table's schema, and its
    rows exactly (NaN equal to NaN)."""
    from discosql.core.results import RESULT_TABLES

    assert len(got) == len(want)
    for c, r in zip(got, want, strict=True):
        for table in (t.name for t in RESULT_TABLES):
            assert getattr(c, table).schema == getattr(r, table).schema, table
            a, b = getattr(c, table).to_pylist(), getattr(r, table).to_pylist()
            assert nan_comparable(a) == nan_comparable(b), f"{c.target}: {table}"


def assert_same_rows(a: Any, b: Any, tables: tuple[str, ...]) -> None:
    """The named tables of two results have equal rows (exactly)."""
    for name in tables:
        assert getattr(a, name).to_pylist() == getattr(b, name).to_pylist(), name
