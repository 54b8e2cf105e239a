"""The report's distance measures (``report(distance=...)``): the arguments checked before any
data is read, then the distance to the closest record of every synthesis (with the control:
closer to the training data or to the holdout) and, with a control, membership inference by
distance, on the report's registered inputs. The section's content is shaped by
:mod:`.sections.distance`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..anonymity.dcr import DcrOptions, DcrResult, dcr_on
from ..anonymity.membership import MembershipOptions, membership_on
from ..core.inputs import Inputs
from ..engines.base import Registered
from ..errors import InputError, did_you_mean
from .sections.distance import Distances

ARGUMENTS = ("columns", "categorical", "max_pairs")


def check(distance: Any) -> dict[str, Any] | None:
    """The measures' arguments (True: the defaults; a mapping of ``columns``,
    ``categorical``, ``max_pairs``), checked before any data is read; None when not asked."""
    if distance is None or distance is False:
        return None
    if distance is not True and not isinstance(distance, Mapping):
        raise InputError(
            "distance: expected True or a mapping of columns, categorical, max_pairs, "
            f"got {distance!r}"
        )
    args = {} if distance is True else dict(distance)
    problems = [
        f"distance: {name!r} is not one of {', '.join(ARGUMENTS)}"
        f"{did_you_mean(str(name), ARGUMENTS)}"
        for name in args
        if name not in ARGUMENTS
    ]
    if problems:
        raise InputError(problems)
    DcrOptions(**args)
    return args


def run(
    inputs: Inputs,
    control: Registered | None,
    args: dict[str, Any],
    keys: Sequence[str],
    targets: Sequence[str],
    step: Callable[[str], None],
) -> Distances:
    """dcr() of every synthesis over ``columns`` (default: the keys and the targets) against
    the original, with the control when given; membership() with the control as the
    non-members."""
    given = dict(args)
    given.setdefault("columns", list(dict.fromkeys([*keys, *targets])))
    step("distance to the closest record")
    nearest: DcrResult = dcr_on(inputs, DcrOptions(**given), control, None)
    members = None
    if control is not None:
        step("membership inference by distance")
        members = membership_on(inputs, MembershipOptions(**given), control)
    return Distances(nearest, members)
