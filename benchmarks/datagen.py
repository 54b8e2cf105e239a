"""Seeded generator of admin-style original/synthetic data as Parquet (for benchmarks only).

Six keys (sex 2, age ~80 levels peaked near 35, region 16, marital 6, educ 8, ethnic 18, skewed),
ten targets that depend on the keys (2 to 50 levels, skewed; t_income, t_benefit and t_religion
have 5% NA). The
synthetic data is a perturbed copy: 60% original rows with each cell resampled with probability
0.2, 40% fresh draws from the same model, so that disclosure measures are non-trivial.

    python benchmarks/datagen.py --rows 1000000 --out benchmarks/data/1m
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

KEYS = ["sex", "age", "region", "marital", "educ", "ethnic"]
TARGETS = [
    "t_smoke",
    "t_occ",
    "t_income",
    "t_health",
    "t_benefit",
    "t_hours",
    "t_tenure",
    "t_religion",
    "t_disab",
    "t_lang",
]
EXTRA = {  # target: (levels, Zipf exponent, depends on)
    "t_health": (5, 1.0, "age"),
    "t_benefit": (2, 1.5, "marital"),
    "t_hours": (50, 0.5, "sex"),
    "t_tenure": (4, 0.8, "region"),
    "t_religion": (8, 1.8, "ethnic"),
    "t_disab": (3, 2.0, "age"),
    "t_lang": (20, 1.6, "ethnic"),
}
WITH_NA = ("t_income", "t_benefit", "t_religion")


def _zipf(rng: np.random.Generator, n: int, k: int, s: float) -> np.ndarray:
    p = 1.0 / np.arange(1, k + 1) ** s
    return rng.choice(k, size=n, p=p / p.sum())


def draw(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    age = np.clip(rng.normal(35, 18, n).round(), 16, 95).astype(np.int64)
    cols = {
        "sex": rng.integers(0, 2, n),
        "age": age,
        "region": _zipf(rng, n, 16, 0.8),
        "marital": _zipf(rng, n, 6, 1.3),
        "educ": _zipf(rng, n, 8, 0.6),
        "ethnic": _zipf(rng, n, 18, 2.0),
    }
    base = cols["sex"] * 3 + cols["marital"] + (age // 10)
    cols["t_smoke"] = (rng.random(n) < 0.15 + 0.1 * cols["sex"]).astype(np.int64)
    cols["t_occ"] = (base + _zipf(rng, n, 12, 1.0)) % 12
    cols["t_income"] = (base * 2 + cols["educ"] * 3 + _zipf(rng, n, 30, 0.7)) % 30
    for name, (levels, s, dep) in EXTRA.items():
        shift = cols[dep] // 10 if dep == "age" else cols[dep]
        cols[name] = (shift + _zipf(rng, n, levels, s)) % levels
    return cols


def to_table(cols: dict[str, np.ndarray], rng: np.random.Generator) -> pa.Table:
    sex = np.array(["MALE", "FEMALE"])[cols["sex"]]
    region = np.array([f"R{i:02d}" for i in range(16)])[cols["region"]]
    marital = np.array(["SINGLE", "MARRIED", "WIDOWED", "DIVORCED", "SEPARATED", "DE FACTO"])
    n = len(sex)
    targets = {
        name: pa.array(cols[name], mask=rng.random(n) < 0.05 if name in WITH_NA else None)
        for name in EXTRA
    }
    income = pa.array(cols["t_income"], mask=rng.random(n) < 0.05)
    return pa.table(
        {
            "sex": sex,
            "age": cols["age"],
            "region": region,
            "marital": marital[cols["marital"]],
            "educ": cols["educ"],
            "ethnic": np.array([f"E{i}" for i in range(18)])[cols["ethnic"]],
            "t_smoke": np.array(["NO", "YES"])[cols["t_smoke"]],
            "t_occ": cols["t_occ"],
            "t_income": income,
            **targets,
        }
    )


CHUNK = 5_000_000


def generate(rows: int, seed: int | np.random.SeedSequence = 1) -> tuple[pa.Table, pa.Table]:
    """One chunk: ``rows`` original rows and their synthetic copy, all from ``seed``."""
    rng = np.random.default_rng(seed)
    orig = draw(rng, rows)
    n_copy = int(rows * 0.6)
    fresh = draw(rng, rows - n_copy)
    syn = {}
    for name, values in orig.items():
        copied = values[:n_copy].copy()
        resample = rng.random(n_copy) < 0.2
        copied[resample] = rng.permutation(values)[: resample.sum()]
        syn[name] = np.concatenate([copied, fresh[name]])
    return to_table(orig, rng), to_table(syn, rng)


def write(rows: int, out: Path, seed: int = 1) -> None:
    """Original and synthetic Parquet files of ``rows`` rows each, written in chunks of CHUNK
    rows (chunk i drawn from seed ``[seed, i]``), so that 100M rows fit in memory; the
    perturbation (resampling, permutations) stays within a chunk."""
    out.mkdir(parents=True, exist_ok=True)
    writers: dict[str, pq.ParquetWriter] = {}
    try:
        for i, start in enumerate(range(0, rows, CHUNK)):
            n = min(CHUNK, rows - start)
            tables = generate(n, seed if rows <= CHUNK else np.random.SeedSequence([seed, i]))
            for name, table in zip(("original", "synthetic"), tables, strict=True):
                if name not in writers:
                    writers[name] = pq.ParquetWriter(out / f"{name}.parquet.tmp", table.schema)
                writers[name].write_table(table, row_group_size=1_000_000)
    finally:
        for w in writers.values():
            w.close()
    for name in writers:
        (out / f"{name}.parquet.tmp").replace(out / f"{name}.parquet")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, required=True)
    a = p.parse_args()
    write(a.rows, a.out, a.seed)
    print(f"wrote {a.rows} rows to {a.out}/original.parquet and synthetic.parquet")


if __name__ == "__main__":
    main()
