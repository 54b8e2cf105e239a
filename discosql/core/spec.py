"""Validated options of a disclosure() call (everything that does not need the data)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import InputError
from .grouping import number_label
from .options import Options


@dataclass(frozen=True)
class Exclusion:
    """Drop cells with target level ``targetlev`` whose key ``key`` has level ``keylev``."""

    key: str
    keylev: str
    targetlev: str


@dataclass(frozen=True)
class DisclosureSpec:
    """The options of :func:`discosql.disclosure`, checked and normalised.

    ``use_keys_na`` and ``ngroups_keys`` are per key, aligned with ``keys`` as given (this fixes
    synthpop's quirk Q1); level arguments are level names (numbers are turned into names).
    """

    keys: tuple[str, ...]
    target: str
    denom_lim: int = 5
    exclude_ov_denom_lim: bool = False
    not_targetlev: tuple[str, ...] = ()
    use_target_na: bool = True
    use_keys_na: tuple[bool, ...] = ()
    exclusions: tuple[Exclusion, ...] = ()
    ngroups_target: int = 0
    ngroups_keys: tuple[int, ...] = ()
    ngroups_keys_explicit: bool = False
    cont_na: Mapping[str, tuple[float, ...]] | None = None
    thresh_1way: tuple[float, float] = (50.0, 90.0)
    thresh_2way: tuple[float, float] = (4.0, 80.0)
    # the certainties of the DiSCO(tau) table, ascending (disco_tau; the curve is always there)
    tau: tuple[float, ...] = ()


def level_name(value: Any) -> str | None:
    """A level given by the user, as a level name; None if it is not a str or a number."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, numbers.Real):
        return number_label(float(value))
    return None


def _is_int(x: Any) -> bool:
    if isinstance(x, bool):
        return False
    if isinstance(x, numbers.Integral):
        return True
    return isinstance(x, numbers.Real) and math.isfinite(float(x)) and float(x).is_integer()


def _as_list(x: Any) -> list[Any]:
    if isinstance(x, str | bytes) or not isinstance(x, Sequence):
        return [x]
    return list(x)


def column_names(arg: str, value: Any, problems: list[str]) -> list[str]:
    """The column names of argument ``arg`` (one name or a list of them), the one check that
    every entry point applies to keys and targets; problems are appended to ``problems``."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Sequence) or len(value) == 0:
        problems.append(f"{arg}: expected a non-empty list of column names, got {value!r}")
        return []
    bad = [v for v in value if not isinstance(v, str)]
    if bad:
        problems.append(
            f"{arg}: every entry must be a column name (str), got {bad!r}; column numbers are "
            "not accepted, pass the names"
        )
    names = [v for v in value if isinstance(v, str)]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        problems.append(f"{arg}: duplicated column(s) {dups!r}; each may appear once")
    return names


def _check_target(keys: list[str], target: Any, problems: list[str]) -> str:
    if not isinstance(target, str):
        problems.append(f"target: expected one column name (str), got {target!r}")
        return ""
    if target in keys:
        problems.append(f"target: {target!r} is also one of the keys {keys!r}; it must not be")
    reserved = [c for c in [*keys, target] if c.startswith("__disco_")]
    if reserved:
        problems.append(
            f"keys/target: column names starting with '__disco_' are reserved: {reserved}"
        )
    return target


def _check_flags(o: DisclosureOptions, problems: list[str]) -> int:
    """denom_lim (returned; 5 when wrong, so later checks go on) and the two flags."""
    denom_lim, exclude_ov_denom_lim = o.denom_lim, o.exclude_ov_denom_lim
    use_target_na = o.use_target_na
    ok = _is_int(denom_lim) and int(denom_lim) > 0
    if not ok:
        problems.append(f"denom_lim: must be an integer > 0, got {denom_lim!r}")
    if not isinstance(exclude_ov_denom_lim, bool):
        problems.append(
            f"exclude_ov_denom_lim: must be True or False, got {exclude_ov_denom_lim!r}"
        )
    if not isinstance(use_target_na, bool):
        problems.append(f"use_target_na: must be a single True or False, got {use_target_na!r}")
    return int(denom_lim) if ok else 5


def _check_keys_na(keys: list[str], value: Any, problems: list[str]) -> tuple[bool, ...]:
    use_keys_na = value
    if isinstance(use_keys_na, bool):
        return (use_keys_na,) * len(keys)
    if (
        isinstance(use_keys_na, Sequence)
        and len(use_keys_na) == len(keys)
        and all(isinstance(x, bool) for x in use_keys_na)
    ):
        return tuple(use_keys_na)
    problems.append(
        f"use_keys_na: must be True/False or a list of {len(keys)} booleans aligned with keys "
        f"{keys!r}, got {use_keys_na!r}"
    )
    return (True,) * len(keys)


def _check_not_targetlev(value: Any, problems: list[str]) -> tuple[str, ...]:
    ntl: list[str] = []
    not_targetlev = value
    if not_targetlev is None or not_targetlev == "":
        return ()
    for v in _as_list(not_targetlev):
        name = level_name(v)
        if name is None:
            problems.append(f"not_targetlev: levels must be str, got {v!r}")
        elif name != "":
            ntl.append(name)
    return tuple(dict.fromkeys(ntl))


def _check_exclusions(
    keys: list[str], given: tuple[Any, Any, Any], problems: list[str]
) -> tuple[Exclusion, ...]:
    """Parallel lists exclude_keys, exclude_keylevs, exclude_targetlevs: all three or none."""
    if all(x is None for x in given):
        return ()
    if any(x is None for x in given):
        problems.append(
            "exclude_keys, exclude_keylevs, exclude_targetlevs: give all three (parallel lists) "
            "or none"
        )
        return ()
    ek, el, et = (_as_list(x) for x in given)
    if not len(ek) == len(el) == len(et):
        problems.append(
            "exclude_keys, exclude_keylevs, exclude_targetlevs: must have the same length, "
            f"got {len(ek)}, {len(el)} and {len(et)}"
        )
        return ()
    exclusions = []
    for i, (k, kl, tl) in enumerate(zip(ek, el, et, strict=True)):
        kln, tln = level_name(kl), level_name(tl)
        if k not in keys:
            problems.append(f"exclude_keys[{i}]: {k!r} is not one of the keys {keys!r}")
        elif kln is None or tln is None:
            problems.append(
                f"exclude_keylevs[{i}] / exclude_targetlevs[{i}]: levels must be str, "
                f"got {kl!r} and {tl!r}"
            )
        else:
            exclusions.append(Exclusion(k, kln, tln))
    return tuple(exclusions)


def _check_ngroups(value: Any, what: str, problems: list[str]) -> int:
    if value is None:
        return 0
    if not _is_int(value) or int(value) < 0:
        problems.append(f"{what}: must be an integer >= 0 (0 = no grouping), got {value!r}")
        return 0
    if int(value) == 1:
        problems.append(f"{what}: cannot be 1 (one group hides everything); use 0 or >= 2")
        return 0
    return int(value)


def _check_ngroups_keys(
    keys: list[str], value: Any, problems: list[str]
) -> tuple[tuple[int, ...], bool]:
    """Per-key group counts, and whether they were given per key (a list)."""
    ngroups_keys = value
    if ngroups_keys is None:
        return (0,) * len(keys), False
    if not isinstance(ngroups_keys, Sequence) or isinstance(ngroups_keys, str):
        return (_check_ngroups(ngroups_keys, "ngroups_keys", problems),) * len(keys), False
    if len(ngroups_keys) != len(keys):
        problems.append(
            f"ngroups_keys: must be one integer or a list of {len(keys)} aligned with keys "
            f"{keys!r}, got {list(ngroups_keys)!r}"
        )
        return (0,) * len(keys), False
    per_key = tuple(
        _check_ngroups(v, f"ngroups_keys[{i}] ({k!r})", problems)
        for i, (v, k) in enumerate(zip(ngroups_keys, keys, strict=True))
    )
    return per_key, True


def _check_cont_na(value: Any, problems: list[str]) -> dict[str, tuple[float, ...]]:
    cna: dict[str, tuple[float, ...]] = {}
    cont_na = value
    if cont_na is None:
        return cna
    if not isinstance(cont_na, Mapping):
        problems.append(f"cont_na: must be a dict {{column: [codes]}}, got {cont_na!r}")
        return cna
    for col, codes in cont_na.items():
        values = _as_list(codes)
        if not isinstance(col, str) or not all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values
        ):
            problems.append(
                f"cont_na[{col!r}]: codes must be numbers (special values of a numeric "
                f"column), got {codes!r}"
            )
            continue
        cna[col] = tuple(dict.fromkeys(float(v) for v in values if not math.isnan(v)))
    return cna


def _check_thresh(value: Any, what: str, problems: list[str]) -> tuple[float, float]:
    if (
        isinstance(value, Sequence)
        and not isinstance(value, str)
        and len(value) == 2
        and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)
            for v in value
        )
    ):
        if value[0] < 0:
            # a negative count made every cell count, and engines disagreed (division by zero)
            problems.append(f"{what}: the count must be >= 0, got {value[0]!r}")
        return (float(value[0]), float(value[1]))
    problems.append(f"{what}: must be two finite numbers (count, percent), got {value!r}")
    return (0.0, 0.0)


def check_tau(value: Any, problems: list[str]) -> tuple[float, ...]:
    """The certainties of DiSCO(tau): None (none), one number or a list of distinct numbers
    in [0, 1]; ascending (the order of the disco_tau table)."""
    tau = value
    if tau is None:
        return ()
    values = _as_list(tau)
    bad = [
        v
        for v in values
        if isinstance(v, bool)
        or not isinstance(v, numbers.Real)
        or not math.isfinite(float(v))
        or not 0 <= float(v) <= 1
    ]
    if bad or not values:
        problems.append(
            f"tau: expected a probability or a list of them, each in [0, 1], got {tau!r}"
        )
        return ()
    floats = tuple(float(v) for v in values)
    dups = sorted({v for v in floats if floats.count(v) > 1})
    if dups:
        problems.append(f"tau: {dups!r} given more than once; give each certainty once")
    return tuple(sorted(floats))


@dataclass(frozen=True)
class DisclosureOptions(Options):
    """:func:`discosql.disclosure`'s options but the keys and the target, as given;
    :func:`build_spec` checks them. The first six are one target's; the rest, the same for
    every target of a summary (:class:`discosql.measure.summary.SummaryOptions`)."""

    FAMILY: ClassVar[str] = "disclosure"

    not_targetlev: Any = None
    use_target_na: Any = True
    exclude_keys: Any = None
    exclude_keylevs: Any = None
    exclude_targetlevs: Any = None
    ngroups_target: Any = None
    denom_lim: Any = 5
    exclude_ov_denom_lim: Any = False
    use_keys_na: Any = True
    ngroups_keys: Any = None
    cont_na: Any = None
    thresh_1way: Any = (50, 90)
    thresh_2way: Any = (4, 80)
    tau: Any = None


# the options a summary gives every target alike
SHARED = (
    "denom_lim",
    "exclude_ov_denom_lim",
    "use_keys_na",
    "ngroups_keys",
    "cont_na",
    "thresh_1way",
    "thresh_2way",
    "tau",
)


def build_spec(
    keys: Any, target: Any, options: DisclosureOptions | Mapping[str, Any] | None = None
) -> DisclosureSpec:
    """Check every argument that does not need the data; one InputError lists all problems.
    ``options``: a :class:`DisclosureOptions`, or disclosure()'s options by name."""
    if not isinstance(options, DisclosureOptions):
        options = DisclosureOptions.of(options or {})
    o = options
    problems: list[str] = []  # every check appends here, in the order of the arguments
    key_list = column_names("keys", keys, problems)
    target = _check_target(key_list, target, problems)
    denom = _check_flags(o, problems)
    keys_na = _check_keys_na(key_list, o.use_keys_na, problems)
    ntl = _check_not_targetlev(o.not_targetlev, problems)
    given = (o.exclude_keys, o.exclude_keylevs, o.exclude_targetlevs)
    exclusions = _check_exclusions(key_list, given, problems)
    ng_target = _check_ngroups(o.ngroups_target, "ngroups_target", problems)
    ng_keys, explicit = _check_ngroups_keys(key_list, o.ngroups_keys, problems)
    spec = DisclosureSpec(
        keys=tuple(key_list),
        target=target,
        denom_lim=denom,
        exclude_ov_denom_lim=bool(o.exclude_ov_denom_lim),
        not_targetlev=ntl,
        use_target_na=bool(o.use_target_na),
        use_keys_na=keys_na,
        exclusions=exclusions,
        ngroups_target=ng_target,
        ngroups_keys=ng_keys,
        ngroups_keys_explicit=explicit,
        cont_na=_check_cont_na(o.cont_na, problems),
        thresh_1way=_check_thresh(o.thresh_1way, "thresh_1way", problems),
        thresh_2way=_check_thresh(o.thresh_2way, "thresh_2way", problems),
        tau=check_tau(o.tau, problems),
    )
    if problems:
        raise InputError(problems)
    return spec
