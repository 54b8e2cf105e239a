"""Brute-force reference for the CAP family (pure Python, record by record, no SQL).

Written from the definitions (SDMetrics 0.32 privacy/cap.py and base.py, Taub et al. PSD 2018,
Baillargeon & Charest PSD 2020), not from discosql's templates. Records are dicts; a record's key
and joint target are tuples of level names (``reference.label``: NA -> "Missing"). GeneralizedCAP
compares every original record with every distinct synthetic key, as SDMetrics does.
"""

from __future__ import annotations

import math
from collections import Counter

from ..reference import label


def _kt(rows: list[dict], keys: list[str], targets: list[str]) -> list[tuple[tuple, tuple]]:
    return [(tuple(label(r[k]) for k in keys), tuple(label(r[t]) for t in targets)) for r in rows]


def cap_scores(original, synthetic, keys, targets) -> dict[str, float]:
    """SDMetrics' CategoricalCAP, ZeroCAP and GeneralizedCAP scores (1 = safe)."""
    syn: dict[tuple, list[tuple]] = {}
    for q, t in _kt(synthetic, keys, targets):
        syn.setdefault(q, []).append(t)
    scored, total, total_gen = 0, 0.0, 0.0
    orig = _kt(original, keys, targets)
    for q, t in orig:
        if q in syn:
            scored += 1
            total += syn[q].count(t) / len(syn[q])
        if syn:  # closest synthetic keys by Hamming distance, all at the minimum pooled
            dist = {sq: sum(a != b for a, b in zip(q, sq, strict=True)) for sq in syn}
            best = min(dist.values())
            pooled = [x for sq, d in dist.items() if d == best for x in syn[sq]]
            total_gen += pooled.count(t) / len(pooled)
    n = len(orig)
    return {
        "categorical_cap": 1 - total / scored if scored else math.nan,
        "categorical_zero_cap": 1 - total / n,
        "categorical_generalized_cap": 1 - total_gen / n if syn else math.nan,
    }


def taub_tcap(original, synthetic, keys, targets, tau=1.0) -> dict[str, float]:
    """Taub's TCAP over synthetic records with WEAP >= tau."""
    orig, syn = _kt(original, keys, targets), _kt(synthetic, keys, targets)
    o_cell, o_key = Counter(orig), Counter(q for q, _ in orig)
    s_cell, s_key = Counter(syn), Counter(q for q, _ in syn)
    kept = [(q, t) for q, t in syn if s_cell[q, t] / s_key[q] >= tau]
    defined = [o_cell[q, t] / o_key[q] for q, t in kept if o_key[q]]
    return {
        "tcap": sum(defined) / len(defined) if defined else math.nan,
        "tcap_zero": sum(defined) / len(kept) if kept else math.nan,
        "n_kept": len(kept),
        "n_undefined": len(kept) - len(defined),
    }


def record_caps(original, synthetic, keys, targets) -> dict[str, object]:
    """Per-record CAP of every original record and the summary of Baillargeon & Charest."""
    orig, syn = _kt(original, keys, targets), _kt(synthetic, keys, targets)
    o_cell, o_key = Counter(orig), Counter(q for q, _ in orig)
    s_cell, s_key = Counter(syn), Counter(q for q, _ in syn)
    caps = [s_cell[q, t] / s_key[q] if s_key[q] else 0.0 for q, t in orig]
    n = len(orig)
    matched = [c for (q, _), c in zip(orig, caps, strict=True) if s_key[q]]
    levels = {t for _, t in orig}
    grid = [(q, t) for q in o_key for t in levels]
    majority = 0.0
    for q, t in orig:
        counts = {tt: s_cell[q, tt] for (qq, tt) in s_cell if qq == q}
        if counts and counts.get(t, 0) == max(counts.values()):
            majority += 1 / sum(v == max(counts.values()) for v in counts.values())
    ordered = sorted(caps)

    def quantile(p: float) -> float:
        return next(v for i, v in enumerate(ordered, start=1) if i >= p * n)

    return {
        "caps": caps,
        "mean_cap": sum(caps) / n,
        "mean_cap_matched": sum(matched) / len(matched) if matched else math.nan,
        "mean_cap_original": sum(o_cell[c] / o_key[c[0]] for c in orig) / n,
        "min_cap": min(o_cell[c] for c in grid) / n,
        "min_cap_matched": min(o_cell[c] / o_key[c[0]] for c in grid),
        "share_cap_ge_half": sum(c >= 0.5 for c in caps) / n,
        "share_cap_ge_08": sum(c >= 0.8 for c in caps) / n,
        "share_cap_eq_1": sum(c == 1 for c in caps) / n,
        "majority_correct": majority,
        "quantile": quantile,
    }


def excess(attack: float, control: float) -> float:
    """anonymeter's residual risk: (attack - control) / (1 - control)."""
    return (attack - control) / (1 - control) if control < 1 else math.nan
