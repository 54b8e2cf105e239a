"""One peer measurement for bench_scale.py, in a Python that has sdmetrics and anonymeter
(their pinned numpy/pyarrow clash with discosql's test environment).

    /path/to/peers/bin/python benchmarks/peers_worker.py --rows 10000 --peer sdmetrics_cap

Reads benchmarks/data/n{rows}/ (written by bench_scale.py) and prints one JSON line: seconds and
the score. Target t_income, the 6 keys of datagen.py.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).parent
KEYS = ["sex", "age", "region", "marital", "educ", "ethnic"]  # = datagen.KEYS
TARGET = "t_income"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, required=True)
    p.add_argument("--peer", choices=["sdmetrics_cap", "anonymeter"], required=True)
    a = p.parse_args()
    d = HERE / "data" / f"n{a.rows}"
    cols = [*KEYS, TARGET]
    # categories as text: both peers treat every column as categorical here
    orig = pd.read_parquet(d / "original.parquet", columns=cols).astype(str)
    syn = pd.read_parquet(d / "synthetic.parquet", columns=cols).astype(str)
    t0 = time.perf_counter()
    if a.peer == "sdmetrics_cap":
        from sdmetrics.single_table import CategoricalCAP

        score = CategoricalCAP.compute(orig, syn, key_fields=KEYS, sensitive_fields=[TARGET])
    else:
        from anonymeter.evaluators import InferenceEvaluator

        control = orig.sample(frac=0.1, random_state=1)
        ev = InferenceEvaluator(
            orig, syn, aux_cols=KEYS, secret=TARGET, n_attacks=500, control=control
        )
        score = ev.evaluate(n_jobs=2).risk().value
    print(json.dumps({"seconds": time.perf_counter() - t0, "score": float(score)}))


if __name__ == "__main__":
    main()
