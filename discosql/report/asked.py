"""What report() is asked: its arguments, every one checked before any data is read (the
board's thresholds, the keys, the original's own risk, the sweep's and sdc's arguments), all
problems of its own in one InputError."""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..core.options import Options
from ..core.outputcheck import MIN_COUNT, ROUND_TO
from ..errors import DiscoSQLWarning, InputError, did_you_mean
from ..measure.summary import SummaryOptions, check_arguments
from ..protect.sdc import SdcResult, check_sdc
from ..protect.sdc import sdc as run_sdc
from ..risk.individual import RiskOptions
from ..sweep.key_sweep import OPTIONS as SWEEP_OPTIONS
from ..sweep.key_sweep import KeySweep, SweepOptions, key_sweep
from ..sweep.key_sweep import check_arguments as check_sweep
from .sections import DIRECTIONS, DISTANCE_THRESHOLDS, ORIGINAL_SIDE, RISK_THRESHOLDS

MODES = ("internal", "external")


@dataclass
class CheckedReport:
    """report()'s arguments, checked before any data is read: the board's ``policy``
    (thresholds), the ``keys``, whether the original's own risk is measured, and the sweep's
    and sdc's arguments when the report runs them."""

    mode: str
    rules: tuple[int, int]
    policy: dict[str, float]
    keys: list[str]
    with_risk: bool
    sweep_args: dict[str, Any] | None
    sdc_args: dict[str, Any] | None = None
    risk_policy: dict[str, float] = field(default_factory=dict)  # on the original's own risk
    anonymity_args: dict[str, Any] | None = None
    distance_args: dict[str, Any] | None = None
    distance_policy: dict[str, float] = field(default_factory=dict)  # on DCR and the attack

    @property
    def external(self) -> bool:
        return self.mode == "external"


@dataclass(frozen=True)
class ReportOptions(Options):
    """report()'s own arguments as given (:func:`checked_arguments` checks them);
    ``options``: the disclosure_summary options it passes on."""

    FAMILY: ClassVar[str] = "report"

    keys: Any = None
    targets: Any = None
    sweep: Any = None
    sdc: Any = None
    risk: Any = False
    weight: Any = None
    thresholds: Any = None
    mode: Any = "internal"
    min_count: Any = MIN_COUNT
    round_to: Any = ROUND_TO
    options: dict[str, Any] = field(default_factory=dict)


def checked_arguments(given: ReportOptions, n_syn: int) -> CheckedReport:
    """Every argument of report() checked, all problems of its own at once (``n_syn``: the
    number of syntheses, which sdc's outputs are checked for)."""
    policy, key_list = _checked(given)
    with_risk = _risk_wanted(given.risk, given.weight, key_list)
    targets, options = given.targets, given.options
    sweep_args = _sweep_args(given.sweep, key_list, targets, options)
    sdc_args = _sdc_args(given.sdc, key_list, n_syn)
    # before any data is read, as engine_spec (an unknown option's name too)
    check_arguments(key_list, targets, SummaryOptions.of(options))
    mode, rules = given.mode, (given.min_count, given.round_to)
    risk_policy = {k: policy.pop(k) for k in list(policy) if k in RISK_THRESHOLDS}
    if risk_policy and not with_risk:
        raise InputError(
            f"thresholds: {', '.join(risk_policy)} judge the original data's own risk, which "
            "the report measures only with risk=True (--risk) or a weight"
        )
    distance_policy = {k: policy.pop(k) for k in list(policy) if k in DISTANCE_THRESHOLDS}
    return CheckedReport(
        mode,
        rules,
        policy,
        key_list,
        with_risk,
        sweep_args,
        sdc_args,
        risk_policy,
        distance_policy=distance_policy,
    )


def check_distance_policy(asked: CheckedReport, control: bool) -> None:
    """The thresholds on the distance measures need the section and a control (the DCR share
    and the attack compare the original with it)."""
    if asked.distance_policy and (asked.distance_args is None or not control):
        raise InputError(
            f"thresholds: {', '.join(asked.distance_policy)} judge the distance measures "
            "against a control, which the report measures only with distance=True "
            "(--distance) and control= (--control)"
        )


def _risk_wanted(risk: Any, weight: Any, keys: list[str]) -> bool:
    """Whether the report measures the original's own risk (``risk`` or a ``weight``),
    its arguments checked before any data is read."""
    if not isinstance(risk, bool):
        raise InputError(f"risk: expected True or False, got {risk!r}")
    if weight is not None:
        RiskOptions(keys, weight)
    return risk or weight is not None


def _checked(given: ReportOptions) -> tuple[dict[str, float], list[str]]:
    """The report's own arguments, all problems at once: the policy and the keys."""
    problems: list[str] = []
    keys, sweep, sdc, mode = given.keys, given.sweep, given.sdc, given.mode
    rules = (given.min_count, given.round_to)
    for name, value in zip(("min_count", "round_to"), rules, strict=True):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            problems.append(f"{name}: expected an int >= 1, got {value!r}")
    if mode not in MODES:
        problems.append(f"mode: {mode!r} is not one of {list(MODES)}")
    policy = _thresholds(given.thresholds, problems)
    if sweep is not None and not isinstance(sweep, bool | Mapping | KeySweep):
        problems.append(f"sweep: expected True, key_sweep arguments or a KeySweep, got {sweep!r}")
    if sdc is not None and not isinstance(sdc, Mapping | SdcResult):
        problems.append(f"sdc: expected sdc() arguments or an SdcResult, got {sdc!r}")
    if isinstance(sdc, SdcResult) and sdc.before is None:
        problems.append("sdc: the SdcResult has no before/after summary; make it with measure=")
    for arg, given, function in (("sweep", sweep, key_sweep), ("sdc", sdc, run_sdc)):
        if isinstance(given, Mapping):
            allowed = _arguments(function)
            for name in given:
                if name not in allowed:
                    problems.append(
                        f"{arg}: {name!r} is not an argument of {function.__name__}()"
                        f"{did_you_mean(str(name), allowed)}; allowed: {', '.join(allowed)}"
                    )
    key_list = [keys] if isinstance(keys, str) else list(keys)
    if problems:
        raise InputError(problems)
    return policy, key_list


def _arguments(function: Any) -> list[str]:
    """The keyword arguments a report may pass on to ``function`` (key_sweep: with its
    options; not the data, engine or threads, which are the report's)."""
    own = ("original", "synthetic", "engine", "threads", "progress", "options")
    names = [n for n in inspect.signature(function).parameters if n not in own]
    return names + (list(SWEEP_OPTIONS) if function is key_sweep else [])


def _thresholds(value: Any, problems: list[str]) -> dict[str, float]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problems.append(f"thresholds: expected a dict {{measure: percent}}, got {value!r}")
        return {}
    out = {}
    bounded = RISK_THRESHOLDS | DISTANCE_THRESHOLDS
    for k, v in value.items():
        if k in bounded:
            top, what = bounded[k]
            if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= top:
                problems.append(f"thresholds: {k!r} is {what}, 0 to {top:g}; got {v!r}")
            else:
                out[k] = float(v)
        elif k in ORIGINAL_SIDE:
            problems.append(
                f"thresholds: {k!r} measures the original data alone, which no synthesis "
                f"changes, so it judges nothing about a release; judge {ORIGINAL_SIDE[k]} instead"
            )
        elif k not in DIRECTIONS:
            allowed = [*DIRECTIONS, *bounded]
            problems.append(
                f"thresholds: {k!r} is not a measure{did_you_mean(str(k), allowed)}; "
                f"allowed: {', '.join(DIRECTIONS)}; with risk=True, "
                f"{', '.join(RISK_THRESHOLDS)}; with distance=True and a control, "
                f"{', '.join(DISTANCE_THRESHOLDS)}"
            )
        elif isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            problems.append(f"thresholds: {k!r} must be a number (percent), got {v!r}")
        elif not 0 <= v <= 100:
            problems.append(f"thresholds: {k!r} is a percentage of records, 0 to 100; got {v!r}")
        else:
            out[k] = float(v)
            if 0 < v < 1:  # 0.05 from someone thinking in fractions means 0.05 %
                warnings.warn(
                    f"thresholds: {k}={v:g} is {v:g} percent of the records; if you meant "
                    f"{100 * v:g}%, give {k}={100 * v:g}",
                    DiscoSQLWarning,
                    stacklevel=4,
                )
    return out


def _sweep_args(
    sweep: Any, keys: list[str], targets: Any, options: dict[str, Any]
) -> dict[str, Any] | None:
    """key_sweep's arguments for the report (its keys, targets and options unless given),
    checked before any data is read; None without a sweep to run."""
    if sweep is None or sweep is False or isinstance(sweep, KeySweep):
        return None
    args = {} if sweep is True else dict(sweep)
    args.setdefault("keys", keys)
    args.setdefault("targets", targets)
    for k in (
        "use_keys_na",
        "ngroups_keys",
        "cont_na",
        "denom_lim",
        "exclude_ov_denom_lim",
        "not_targetlevs",
        "use_targets_na",
        "ngroups_targets",
        "exclude",
    ):
        if k in options:
            args.setdefault(k, options[k])
    check_sweep(SweepOptions.flat(args))
    return args


def _sdc_args(sdc: Any, keys: list[str], n_syn: int) -> dict[str, Any] | None:
    """sdc()'s arguments for the report (its keys unless given), checked before any data is
    read; None without an sdc to run. ``measure`` is the report's summary unless given."""
    if sdc is None or isinstance(sdc, SdcResult):
        return None
    args = dict(sdc)
    args.setdefault("keys", keys)
    check_sdc(n_syn, {**args, "measure": args.get("measure", {})})
    return args
