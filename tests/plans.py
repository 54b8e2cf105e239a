"""Run the stages of several targets directly: their records shared (as disclosure_summary) or
inline (one target), so that tests can compare the shapes a plan takes."""

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
    engine: Any = None,
    **options: Any,
) -> list[DisclosureResult]:
    """disclosure() of each target on one engine; several targets share their records, as in
    disclosure_summary, one target reads them inline."""
    with open_engine(engine, threads=2 if engine is None else None) as eng:
        inputs = register_inputs(eng, original, synthetic)
        plans = [plan(inputs, build_spec(keys, t, **options)) for t in targets]
        return stages.execute_many(plans)
