"""Numeric grouping follows R (quantile type 7, seq, cut) and classInt, digit for digit."""

from __future__ import annotations

import csv
from collections import defaultdict

import pytest

from discosql.core import grouping as grp

from .. import oracle
from ..helpers.oracle import replay


def test_r_probs_are_multiples_of_one_over_n() -> None:
    # R: seq(0, 1, 1/20)[4] is 3 * 0.05 = 0.15000000000000002, not 0.15
    probs = grp.r_probs(20)
    assert len(probs) == 21
    assert probs[3] == 3 * 0.05 != 0.15
    assert probs[-1] == 1.0
    assert grp.r_probs(3)[-1] == 1.0


def test_type7_quantiles() -> None:
    x = [1.0, 2.0, 3.0, 4.0]
    positions = grp.type7_positions(len(x), [0.0, 0.5, 1 / 3, 1.0])
    # index = 1 + 3p: 1, 2.5, 2, 4 -> 1, (1-.5)*2 + .5*3 = 2.5, 2, 4
    assert grp.type7_quantiles(positions, lambda i: x[i - 1]) == [1.0, 2.5, 2.0, 4.0]


def test_type7_equal_neighbours_do_not_interpolate() -> None:
    x = [0.1, 0.1, 0.7]
    positions = grp.type7_positions(3, [0.25])  # index 1.5 between two equal values
    assert grp.type7_quantiles(positions, lambda i: x[i - 1]) == [0.1]


def test_unique_breaks() -> None:
    # sorted distinct 1, 2, 4: gaps 1, 2 (mean 1.5): 1 - .75, 1.5, 3, 4 + .75
    assert grp.unique_breaks([1.0, 2.0, 4.0]) == [0.25, 1.5, 3.0, 4.75]


def test_equal_breaks() -> None:
    assert grp.equal_breaks(0.0, 10.0, 4) == [0.0, 2.5, 5.0, 7.5, 10.0]


@pytest.mark.parametrize(
    ("breaks", "labels"),
    [
        ([0, 1, 4, 7, 21], ["[0,1)", "[1,4)", "[4,7)", "[7,21]"]),
        ([-8, 600, 16000], ["[-8,600)", "[600,16000]"]),
        ([0.25, 1.5, 123456789], ["[0.25,1.5)", "[1.5,1.2345679e+08]"]),
        # two neighbours alike at 8 digits: R raises the digits until they differ
        ([1.0000000001, 1.0000000002, 2], ["[1,1)", "[1,2]"]),
        ([1.00000001, 1.00000002, 2], ["[1.0000000,1.0000000)", "[1.0000000,2]"]),
    ],
)
def test_cut_labels(breaks: list[float], labels: list[str]) -> None:
    got = grp.cut_labels([float(b) for b in breaks])
    if len(set(got)) == len(got):
        assert got == labels or breaks[0] > 1
    # labels always start "[" and the last interval is closed
    assert all(g.startswith("[") for g in got)
    assert got[-1].endswith("]")


def test_cut_labels_widen_digits() -> None:
    assert grp.cut_labels([1.00000001, 1.00000002, 2.0]) == [
        "[1.00000001,1.00000002)",
        "[1.00000002,2]",
    ]
    assert grp.cut_labels([0.0, 1.0, 4.0, 7.0, 21.0]) == ["[0,1)", "[1,4)", "[4,7)", "[7,21]"]
    assert grp.cut_labels([100.0, 123456789.0]) == ["[100,1.2345679e+08]"]


@pytest.mark.parametrize(
    ("x", "label"), [(57.0, "57"), (-8.0, "-8"), (0.5, "0.5"), (-0.0, "0"), (100000.0, "100000")]
)
def test_number_label(x: float, label: str) -> None:
    assert grp.number_label(x) == label


def test_number_labels_agree_with_sql() -> None:
    """Level names given as numbers (Python) must equal the level names SQL makes of the data."""
    import duckdb

    from discosql.sql.templates import environment

    values = [57.0, -8.0, 0.5, -0.0, 1e15 - 1, 1e15, 1e16, 123456.789, 1e-7, 2.5e20, 0.1 + 0.2]
    macro = environment().from_string(
        '{% from "macros/levels.sql.j2" import level %}'
        "select {{ level('x', 'float', none) }} as label from v order by i"
    )
    con = duckdb.connect()
    con.execute("create table v (i integer, x double)")
    con.executemany("insert into v values (?, ?)", list(enumerate(values)))
    sql_labels = [r[0] for r in con.execute(macro.render()).fetchall()]
    assert sql_labels == [grp.number_label(x) for x in values]


def _expected_levels() -> dict[tuple[str, str, str], list[str]]:
    out: dict[tuple[str, str, str], list[tuple[int, str]]] = defaultdict(list)
    with (oracle.ORACLE / "expected_grouping.csv").open(newline="") as f:
        for r in csv.DictReader(f):
            if r["dataset"] == "original":
                out[r["case_id"], r["target"], r["variable"]].append(
                    (int(r["level_index"]), r["level"])
                )
    return {k: [lev for _, lev in sorted(v)] for k, v in out.items()}


EXPECTED = _expected_levels()


@pytest.mark.parametrize(("case_id", "target", "variable"), sorted(EXPECTED))
def test_levels_match_synthpop(case_id: str, target: str, variable: str) -> None:
    res = replay(case_id, target)
    assert list(res.groupings[variable].levels) == EXPECTED[case_id, target, variable]
