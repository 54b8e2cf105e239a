"""Replay synthpop's oracle cases (tests/data/oracle, copied from synthpop 1.9-2 runs).

Translates a case's R arguments into discosql arguments. synthpop puts keys in data column order
and aligns vector arguments with that order; discosql keeps the user's order, so cases are
replayed with keys in data order (the same computation), except where a quirk is asserted.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

ORACLE = Path(__file__).parent / "data" / "oracle"

R_TO_PY = {
    "denom_lim": "denom_lim",
    "exclude_ov_denom_lim": "exclude_ov_denom_lim",
    "not.targetlev": "not_targetlev",
    "usetargetNA": "use_target_na",
    "usekeysNA": "use_keys_na",
    "exclude.keys": "exclude_keys",
    "exclude.keylevs": "exclude_keylevs",
    "exclude.targetlevs": "exclude_targetlevs",
    "ngroups_target": "ngroups_target",
    "ngroups_keys": "ngroups_keys",
    "thresh_1way": "thresh_1way",
    "thresh_2way": "thresh_2way",
    "cont.na": "cont_na",
}


@cache
def cases() -> dict[str, Any]:
    return json.loads((ORACLE / "cases.json").read_text())


@cache
def columns() -> list[str]:
    with (ORACLE / "sd2011.csv").open() as f:
        return next(csv.reader(f))


def original_path() -> str:
    return str(ORACLE / "sd2011.csv")


def synthetic_paths(set_name: str) -> list[str]:
    return [str(ORACLE / f) for f in cases()["synthetic"][set_name]["files"]]


def _name(x: Any) -> str:
    return columns()[x - 1] if isinstance(x, int) else x


def disclosure_calls(case: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(target, discosql kwargs) for every disclosure() the case ran (one per multi target)."""
    args = dict(case["args"])
    synth = cases()["synthetic"][case["synthetic"]]
    keys = [_name(k) for k in args.pop("keys")]
    order = sorted(keys, key=columns().index)  # synthpop uses keys in data order
    cont_na = args.pop("cont.na", None) or synth["cont.na"] or None
    common: dict[str, Any] = {"keys": order}
    if cont_na:
        common["cont_na"] = cont_na
    if case["function"] == "disclosure":
        target = _name(args.pop("target"))
        kwargs = dict(common)
        for r_name, value in args.items():
            kwargs[R_TO_PY[r_name]] = value
        return [(target, kwargs)]
    # multi.disclosure: one disclosure() per target with that target's options
    targets = args.pop("targets", None)
    if targets is None:
        targets = [c for c in columns() if c not in keys]
    targets = [_name(t) for t in targets]
    per_target = {
        "not.targetslev": "not_targetlev",
        "usetargetsNA": "use_target_na",
        "ngroups_targets": "ngroups_target",
    }
    calls = []
    for i, target in enumerate(targets):
        kwargs = dict(common)
        for r_name, value in args.items():
            if r_name in per_target:
                v = value[i] if isinstance(value, list) else value
                if r_name == "not.targetslev" and v == "":
                    continue
                kwargs[per_target[r_name]] = v
            elif r_name in ("ident.meas", "attrib.meas"):
                continue
            else:
                kwargs[R_TO_PY[r_name]] = value
        calls.append((target, kwargs))
    return calls


def _read(name: str) -> list[dict[str, str]]:
    with (ORACLE / name).open(newline="") as f:
        return list(csv.DictReader(f))


@cache
def expected_measures() -> dict[tuple[str, str], dict[int, dict[str, float]]]:
    out: dict[tuple[str, str], dict[int, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for r in _read("expected_measures.csv"):
        out[r["case_id"], r["target"]][int(r["synthesis"])][r["measure"]] = float(r["value"])
    return out


@cache
def expected_exclusions() -> dict[tuple[str, str], dict[tuple[int, str, str], int]]:
    out: dict[tuple[str, str], dict[tuple[int, str, str], int]] = defaultdict(dict)
    for r in _read("expected_exclusions.csv"):
        reason = " ".join(r["reason"].split())  # synthpop's "missing in  keys" has two spaces
        out[r["case_id"], r["target"]][int(r["synthesis"]), r["table"], reason] = int(r["count"])
    return out


@cache
def expected_check_1way() -> dict[tuple[str, str], dict[int, dict[str, str]]]:
    out: dict[tuple[str, str], dict[int, dict[str, str]]] = defaultdict(dict)
    for r in _read("expected_check_1way.csv"):
        out[r["case_id"], r["target"]][int(r["synthesis"])] = r
    return out


@cache
def expected_check_2way() -> dict[tuple[str, str], dict[int, list[dict[str, str]]]]:
    out: dict[tuple[str, str], dict[int, list[dict[str, str]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for r in _read("expected_check_2way.csv"):
        out[r["case_id"], r["target"]][int(r["synthesis"])].append(r)
    return out


@cache
def expected_check_flags() -> dict[tuple[str, str], tuple[str, str]]:
    return {
        (r["case_id"], r["target"]): (r["check1"], r["check2"])
        for r in _read("expected_check_flags.csv")
    }


@cache
def expected_errors() -> dict[str, str]:
    return {r["case_id"]: r["message"] for r in _read("expected_errors.csv")}
