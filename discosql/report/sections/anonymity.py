"""The three tests of anonymisation (the GDPR's, as the Article 29 Working Party's Opinion
05/2014 and the EDPB name them): singling out (:func:`discosql.singling_out`), linkability
(:func:`discosql.linkability`) and inference (anonymeter's attack, :func:`discosql.inference`;
the CAP family, exact key matches, is its own section), with the whole-table matches
(:func:`discosql.exact_matches`) review boards ask for beside them.

Every number is a count of records or predicates, or a share that is a ratio of two counts:
an external report shows the counts through its output check and each rate as the ratio of
the shown counts (never an exact rate, which would give the exact counts back); a risk over
a control is taken of the shown rates. The riskiest column combinations are listed in
internal mode only (they name columns with few records behind them)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...anonymity.inference import TOLERANCE, InferenceResult
from ...anonymity.linkability import LinkabilityResult
from ...anonymity.matches import CAVEAT, DISTANCES, ExactMatches
from ...anonymity.singling_out import SinglingOutResult
from ...core.outputcheck import Numbers
from .common import formatted

RISKIEST = 5  # column combinations listed (internal mode)


@dataclass(frozen=True)
class Tested:
    """What the report ran: per synthesis its singling out and linkability (None when not
    asked), and the exact matches of every synthesis."""

    singling_out: list[SinglingOutResult]
    linkability: list[LinkabilityResult] | None
    matches: ExactMatches
    control: bool  # whether the control entered singling out and linkability
    notes: list[str]
    half_lines: bool = False  # some singling-out predicate was a half-line (a number)
    gower: bool = False  # linkability ran under anonymeter's Gower distance
    inference: list[list[InferenceResult]] = field(default_factory=list)  # per synthesis
    inference_aux: list[str] = field(default_factory=list)


def anonymity_section(tested: Tested, num: Numbers) -> dict[str, Any]:
    """The section as plain data: one table per test (a row per synthesis), the distance
    table of the matches, and in internal mode the riskiest column combinations."""
    so = tested.singling_out[0]
    section: dict[str, Any] = {
        "columns": list(so.columns),
        "n_cols": so.n_cols,
        "control": tested.control,
        "half_lines": tested.half_lines,
        "gower": tested.gower,
        "singling_out": [
            _attack(j, r.queries, r.successes, r.control_successes, num)
            for j, r in enumerate(tested.singling_out, start=1)
        ],
        "linkability": None,
        "aux_cols": None,
        "matches": _matches(tested.matches, num),
        "distance": _distance(tested.matches, num),
        "matched_columns": list(tested.matches.columns),
        "riskiest": [] if num.external else _riskiest(tested.singling_out),
        "caveat": CAVEAT,
        "notes": list(tested.notes),
    }
    section["inference_aux"] = list(tested.inference_aux)
    section["inference"] = [
        _infer(j, r, num) for j, per in enumerate(tested.inference, start=1) for r in per
    ]
    if tested.linkability is not None:
        section["aux_cols"] = [list(side) for side in tested.linkability[0].aux_cols]
        section["linkability"] = [
            _link(j, r, num) for j, r in enumerate(tested.linkability, start=1)
        ]
    return section


def _count(num: Numbers, n: int | None) -> Any:
    if n is None:
        return None
    shown = num.count(int(n))
    return shown if isinstance(shown, str) else f"{shown:,}"


def _shown(num: Numbers, n: int | None) -> Any:
    return None if n is None else num.count(int(n))


def _pct(num: Numbers, part: int | None, whole: int | None) -> Any:
    """100 * part / whole: exact internally, of the shown counts externally."""
    if part is None or whole is None:
        return None
    exact = 100.0 * part / whole if whole else math.nan
    return num.ratio(exact, num.count(int(part)), num.count(int(whole)))


def _risk(rate: Any, control: Any, num: Numbers) -> Any:
    """(rate - control) / (1 - control) of the rates as shown (percent; an external report
    rounds it as its other percentages)."""
    if rate is None or control is None:
        return None
    if isinstance(rate, str) or isinstance(control, str):
        return rate if isinstance(rate, str) else control
    if math.isnan(rate) or math.isnan(control) or control == 100:
        return math.nan
    return num.mean([100.0 * (rate - control) / (100.0 - control)])


def _attack(j: int, n: int, k: int, control: int | None, num: Numbers) -> dict[str, Any]:
    rate = _pct(num, k, n)
    row: dict[str, Any] = {
        "synthesis": j,
        "queries": _count(num, n),
        "successes": _count(num, k),
        "rate (%)": formatted(rate, ".2f"),
    }
    if control is not None:
        control_rate = _pct(num, control, n)
        row["control successes"] = _count(num, control)
        row["control rate (%)"] = formatted(control_rate, ".2f")
        row["excess risk (%)"] = formatted(_risk(rate, control_rate, num), ".2f")
    return row


def _link(j: int, r: LinkabilityResult, num: Numbers) -> dict[str, Any]:
    rate = _pct(num, r.linked, r.records)
    row: dict[str, Any] = {
        "synthesis": j,
        "records": _count(num, r.records),
        "linked": _count(num, r.linked),
        "rate (%)": formatted(rate, ".2f"),
        "linked uniquely": _count(num, r.linked_unique),
        "rate_unique (%)": formatted(_pct(num, r.linked_unique, r.records), ".2f"),
    }
    if r.control_records is not None:
        control_rate = _pct(num, r.control_linked, r.control_records)
        row["control rate (%)"] = formatted(control_rate, ".2f")
        row["excess risk (%)"] = formatted(_risk(rate, control_rate, num), ".2f")
    return row


def _infer(j: int, r: InferenceResult, num: Numbers) -> dict[str, Any]:
    """A row of the inference table: the rates exact internally; externally each of the
    expected successes (a sum of shares of tied records), its bounds and the baseline rounded
    to whole records, through the output check, over the records as shown."""

    def pct(rate: float | None, of: int | None) -> Any:
        if rate is None or of is None:
            return None
        part = 0 if math.isnan(rate) else round(rate * of)  # NaN: no records
        return num.ratio(100.0 * rate, num.count(part), num.count(of))

    rate = pct(r.rate, r.records)
    row: dict[str, Any] = {
        "synthesis": j,
        "secret": r.secret,
        "guessed": f"within {100 * TOLERANCE:g}%" if r.regression else "exactly",
        "records": _count(num, r.records),
        "rate (%)": formatted(rate, ".2f"),
        "rate_min (%)": formatted(pct(r.rate_min, r.records), ".2f"),
        "rate_max (%)": formatted(pct(r.rate_max, r.records), ".2f"),
        "baseline (%)": formatted(pct(r.baseline_rate, r.records), ".2f"),
    }
    if r.control_records is not None:
        control_rate = pct(r.control_rate, r.control_records)
        row["control rate (%)"] = formatted(control_rate, ".2f")
        row["excess risk (%)"] = formatted(_risk(rate, control_rate, num), ".2f")
    return row


def _matches(m: ExactMatches, num: Numbers) -> list[dict[str, Any]]:
    rows = []
    for r in m.summary.to_pylist():
        row: dict[str, Any] = {
            "synthesis": r["synthesis"],
            "original uniques": _count(num, r["original_uniques"]),
            "reproduced": _count(num, r["in_synthesis"]),
            "UEM (%)": formatted(_pct(num, r["in_synthesis"], r["original_uniques"]), ".2f"),
            "identical records": _count(num, r["identical_records"]),
            "identical (%)": formatted(_pct(num, r["identical_records"], r["records"]), ".2f"),
        }
        if m.control:
            row["identical to control (%)"] = formatted(
                _pct(num, r["control_identical_records"], r["records"]), ".2f"
            )
        rows.append(row)
    return rows


def _distance(m: ExactMatches, num: Numbers) -> list[dict[str, Any]]:
    """One row per synthesis: the % of its records at each smallest distance to the
    original."""
    records = {r["synthesis"]: r["records"] for r in m.summary.to_pylist()}
    rows: dict[int, dict[str, Any]] = {}
    for r in m.distances.to_pylist():
        if r["against"] != "original":
            continue
        row = rows.setdefault(r["synthesis"], {"synthesis": r["synthesis"]})
        shown = _pct(num, r["records"], records[r["synthesis"]])
        label = "1 column" if r["distance"] == "1" else f"{r['distance']} columns"
        row[f"{label} (%)"] = formatted(shown, ".2f")
    assert all(len(row) == 1 + len(DISTANCES) for row in rows.values())
    return list(rows.values())


def _riskiest(results: Sequence[SinglingOutResult]) -> list[dict[str, Any]]:
    """The column combinations whose predicates single out the most original records (over
    the syntheses), highest first (internal mode only)."""
    total: dict[tuple[str, ...], list[int]] = {}
    for r in results:
        for row in r.by_columns.to_pylist():
            t = total.setdefault(tuple(row["columns"]), [0, 0])
            t[0] += row["queries"]
            t[1] += row["successes"]
    ranked = sorted(total.items(), key=lambda kv: (-kv[1][1], -kv[1][0], kv[0]))
    return [
        {
            "columns": ", ".join(cols),
            "queries": f"{q:,}",
            "successes": f"{s:,}",
            "rate (%)": formatted(100.0 * s / q if q else math.nan, ".2f"),
        }
        for cols, (q, s) in ranked[:RISKIEST]
        if s > 0
    ]
