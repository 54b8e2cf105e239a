"""Section 6, the key sweep: the riskiest subsets and each key's contribution."""

from __future__ import annotations

from typing import Any

from ...core.outputcheck import Numbers
from ...sweep.key_sweep import KeySweep
from .common import risk_order


def sweep_section(sw: KeySweep, num: Numbers) -> dict[str, Any]:
    """The riskiest subset of each target (highest first) and, in internal mode, each key's
    contribution (the chart shows it too; an external report leaves per-subset detail out)."""
    external = num.external
    worst = [
        {**r, "keys": ", ".join(r["keys"]), "value": num.measure("DiSCO", r["value"])}
        for r in sw.worst(1, "DiSCO").to_pylist()
    ]
    worst.sort(key=lambda r: risk_order(r["value"]))
    contribution = [
        r for r in sw.contribution.to_pylist() if r["measure"] in ("DiSCO", "repU") and r["pairs"]
    ]
    contribution.sort(key=lambda r: risk_order(r["mean_increase"]))
    if external:
        contribution = []
    return {
        "keys": list(sw.keys),
        "worst": worst,
        "contribution": contribution,
        "subsets": len({tuple(k) for k in sw.table.column("keys").to_pylist()}),
    }
