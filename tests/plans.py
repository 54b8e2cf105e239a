"""Run the stages of several targets directly: their records shared (as disclosure_summary) or
inline (one target), one target at a time or stacked (discosql.stacked), so that tests can
compare the shapes a plan takes."""

from __future__ import annotations

from typing import Any

from discosql.core import stacked, stages
from discosql.core.inputs import register_inputs
from discosql.core.plan import plan
from discosql.core.results import DisclosureResult
from discosql.core.spec import build_spec
from discosql.engines import open_engine


def disclosure(
    original: Any,
    synthetic: Any,
    keys: list[str],
    targets: list[str],
    *,
    engine: Any = None,
    stack: int = 0,
    options_of: dict[str, dict[str, Any]] | None = None,
    **options: Any,
) -> list[DisclosureResult]:
    """disclosure() of each target on one engine; several targets share their records, as in
    disclosure_summary, one target reads them inline. ``stack``: the targets measured together
    in batches of ``stack`` (stacked.execute_stacked, whatever the data's size), else one at a
    time.
    ``options_of``: a target's own options, over ``options``."""
    with open_engine(engine, threads=2 if engine is None else None) as eng:
        inputs = register_inputs(eng, original, synthetic)
        plans = [
            plan(inputs, build_spec(keys, t, {**options, **(options_of or {}).get(t, {})}))
            for t in targets
        ]
        if not stack:
            return stages.execute_many(plans)
        budget, most = eng.stack_budget, stacked.MAX_BATCH
        eng.stack_budget, stacked.MAX_BATCH = 2**62, stack  # batches of `stack`, whatever the size
        try:
            assert stacked.batch_size(plans) == min(stack, len(plans))
            return stacked.execute_stacked(plans)
        finally:
            eng.stack_budget, stacked.MAX_BATCH = budget, most
