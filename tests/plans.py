"""Run discosql's reference plan (level names as text, one column per key) next to the default
coded plan (integer codes, q packed into words), to check that both give identical results."""

from __future__ import annotations

from typing import Any

from discosql import stages
from discosql.engines import open_engine
from discosql.inputs import register_inputs
from discosql.plan import plan
from discosql.results import DisclosureResult
from discosql.spec import build_spec


def disclosure(
    original: Any,
    synthetic: Any,
    keys: list[str],
    targets: list[str],
    *,
    reference: bool,
    engine: Any = None,
    **options: Any,
) -> list[DisclosureResult]:
    """disclosure() of each target on one engine, by the reference or the coded plan (several
    targets: the coded plan shares its records, as disclosure_summary)."""
    with open_engine(engine, threads=2) as eng:
        inputs = register_inputs(eng, original, synthetic)
        plans = [plan(inputs, build_spec(keys, t, **options)) for t in targets]
        return stages.execute_many(plans, reference=reference)
