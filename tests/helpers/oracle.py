"""The oracles, as the tests use them: synthpop's disclosure() calls (tests/oracle.py reads
tests/data/oracle) replayed on DuckDB, sdcMicro 5.8.0's files (tests/data/sdcmicro) and
sdcMicro 5.8.2's l-diversity (tests/data/sdcmicro-5.8.2)."""

from __future__ import annotations

import csv
import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pcsv

import discosql as ds

from .. import oracle

# --- synthpop -----------------------------------------------------------------------------


def _all_calls() -> list[tuple[str, str, dict[str, Any]]]:
    calls = []
    for case in oracle.cases()["cases"]:
        for target, kwargs in oracle.disclosure_calls(case):
            calls.append((case["case_id"], target, kwargs))
    return calls


# every disclosure() call of the oracle: (case_id, target, kwargs)
CALLS = _all_calls()


@cache
def replay(case_id: str, target: str) -> ds.DisclosureResult:
    """The oracle's call, run by disclosure() on DuckDB (once per session)."""
    case = next(c for c in oracle.cases()["cases"] if c["case_id"] == case_id)
    kwargs = dict(oracle.disclosure_calls(case))[target]
    if case_id == "sd_depress_keysNA_order_quirk":
        # the user's order and flags, as given in the R call
        kwargs = dict(kwargs, keys=["marital", "sex", "age"], use_keys_na=[False, True, True])
    syn = oracle.synthetic_paths(case["synthetic"])
    return ds.disclosure(oracle.original_path(), syn, target=target, **kwargs)


def call_kwargs(case_id: str, target: str) -> tuple[dict[str, Any], list[str]]:
    """The disclosure() options of the oracle's call and the names of its syntheses (syn_1,
    ...), as replay() runs it."""
    case = next(c for c in oracle.cases()["cases"] if c["case_id"] == case_id)
    kwargs = dict(oracle.disclosure_calls(case))[target]
    if case_id == "sd_depress_keysNA_order_quirk":  # as replay() runs it
        kwargs = dict(kwargs, keys=["marital", "sex", "age"], use_keys_na=[False, True, True])
    names = [Path(f).stem for f in oracle.cases()["synthetic"][case["synthetic"]]["files"]]
    return kwargs, names


# --- sdcMicro -----------------------------------------------------------------------------

SDCMICRO = Path(__file__).parent.parent / "data" / "sdcmicro"
# sdcMicro 5.8.2's ldiversity (GitHub cf32510): its own data/ holds only what the 5.8.0 oracle
# lacks
SDCMICRO_582 = Path(__file__).parent.parent / "data" / "sdcmicro-5.8.2"
SUDA_CASES = [c for c in json.loads((SDCMICRO / "cases.json").read_text()) if c["fn"] == "suda2"]


def data_path(name: str) -> Path:
    """A data set of the sdcMicro oracles: the 5.8.0 oracle's data/ folder, else 5.8.2's."""
    path = SDCMICRO / "data" / name
    return path if path.exists() else SDCMICRO_582 / "data" / name


def load(name: str) -> pa.Table:
    """A data set of the sdcMicro oracles (their data/ folders), empty fields as NULL."""
    options = pcsv.ConvertOptions(strings_can_be_null=True)
    return pcsv.read_csv(data_path(name), convert_options=options)


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def number(text: str) -> float:
    """A number as sdcMicro's CSV files write it: NA and NaN are NaN."""
    return math.nan if text in ("NA", "NaN") else float(text)
