"""Validated options of a disclosure() call (everything that does not need the data)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .grouping import number_label


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


def build_spec(
    keys: Any,
    target: Any,
    *,
    denom_lim: Any = 5,
    exclude_ov_denom_lim: Any = False,
    not_targetlev: Any = None,
    use_target_na: Any = True,
    use_keys_na: Any = True,
    exclude_keys: Any = None,
    exclude_keylevs: Any = None,
    exclude_targetlevs: Any = None,
    ngroups_target: Any = None,
    ngroups_keys: Any = None,
    cont_na: Any = None,
    thresh_1way: Any = (50, 90),
    thresh_2way: Any = (4, 80),
) -> DisclosureSpec:
    """Check every argument that does not need the data; one InputError lists all problems."""
    problems: list[str] = []

    # keys and target
    if isinstance(keys, str):
        keys = [keys]
    if not isinstance(keys, Sequence) or len(keys) == 0:
        problems.append(f"keys: expected a non-empty list of column names, got {keys!r}")
        keys = []
    bad = [k for k in keys if not isinstance(k, str)]
    if bad:
        problems.append(
            f"keys: every key must be a column name (str), got {bad!r}; column numbers are not "
            "accepted, pass the names"
        )
    keys = [k for k in keys if isinstance(k, str)]
    dups = sorted({k for k in keys if keys.count(k) > 1})
    if dups:
        problems.append(f"keys: duplicated key(s) {dups!r}; each key may appear once")
    if not isinstance(target, str):
        problems.append(f"target: expected one column name (str), got {target!r}")
        target = ""
    elif target in keys:
        problems.append(
            f"target: {target!r} is also one of the keys {list(keys)!r}; it must not be"
        )
    reserved = [c for c in [*keys, target] if isinstance(c, str) and c.startswith("__disco_")]
    if reserved:
        problems.append(
            f"keys/target: column names starting with '__disco_' are reserved: {reserved}"
        )
    n_keys = len(keys)

    # denominators and flags
    if not _is_int(denom_lim) or int(denom_lim) <= 0:
        problems.append(f"denom_lim: must be an integer > 0, got {denom_lim!r}")
        denom_lim = 5
    if not isinstance(exclude_ov_denom_lim, bool):
        problems.append(
            f"exclude_ov_denom_lim: must be True or False, got {exclude_ov_denom_lim!r}"
        )
    if not isinstance(use_target_na, bool):
        problems.append(f"use_target_na: must be a single True or False, got {use_target_na!r}")

    if isinstance(use_keys_na, bool):
        keys_na = (use_keys_na,) * n_keys
    elif (
        isinstance(use_keys_na, Sequence)
        and len(use_keys_na) == n_keys
        and all(isinstance(x, bool) for x in use_keys_na)
    ):
        keys_na = tuple(use_keys_na)
    else:
        problems.append(
            f"use_keys_na: must be True/False or a list of {n_keys} booleans aligned with keys "
            f"{list(keys)!r}, got {use_keys_na!r}"
        )
        keys_na = (True,) * n_keys

    # target levels to drop
    ntl: list[str] = []
    if not_targetlev is not None and not_targetlev != "":
        for v in _as_list(not_targetlev):
            name = level_name(v)
            if name is None:
                problems.append(f"not_targetlev: levels must be str, got {v!r}")
            elif name != "":
                ntl.append(name)

    # key x target exclusions
    exclusions: list[Exclusion] = []
    given = [x is not None for x in (exclude_keys, exclude_keylevs, exclude_targetlevs)]
    if any(given):
        if not all(given):
            problems.append(
                "exclude_keys, exclude_keylevs, exclude_targetlevs: give all three "
                "(parallel lists) "
                "or none"
            )
        else:
            ek, el, et = (_as_list(x) for x in (exclude_keys, exclude_keylevs, exclude_targetlevs))
            if not len(ek) == len(el) == len(et):
                problems.append(
                    "exclude_keys, exclude_keylevs, exclude_targetlevs: must have the same length, "
                    f"got {len(ek)}, {len(el)} and {len(et)}"
                )
            else:
                for i, (k, kl, tl) in enumerate(zip(ek, el, et, strict=True)):
                    kln, tln = level_name(kl), level_name(tl)
                    if k not in keys:
                        problems.append(
                            f"exclude_keys[{i}]: {k!r} is not one of the keys {list(keys)!r}"
                        )
                    elif kln is None or tln is None:
                        problems.append(
                            f"exclude_keylevs[{i}] / exclude_targetlevs[{i}]: levels must be str, "
                            f"got {kl!r} and {tl!r}"
                        )
                    else:
                        exclusions.append(Exclusion(k, kln, tln))

    # numeric grouping
    def check_ngroups(value: Any, what: str) -> int:
        if value is None:
            return 0
        if not _is_int(value) or int(value) < 0:
            problems.append(f"{what}: must be an integer >= 0 (0 = no grouping), got {value!r}")
            return 0
        if int(value) == 1:
            problems.append(f"{what}: cannot be 1 (one group hides everything); use 0 or >= 2")
            return 0
        return int(value)

    ng_target = check_ngroups(ngroups_target, "ngroups_target")
    explicit = False
    if ngroups_keys is None:
        ng_keys = (0,) * n_keys
    elif isinstance(ngroups_keys, Sequence) and not isinstance(ngroups_keys, str):
        if len(ngroups_keys) != n_keys:
            problems.append(
                f"ngroups_keys: must be one integer or a list of {n_keys} aligned with keys "
                f"{list(keys)!r}, got {list(ngroups_keys)!r}"
            )
            ng_keys = (0,) * n_keys
        else:
            explicit = True
            ng_keys = tuple(
                check_ngroups(v, f"ngroups_keys[{i}] ({k!r})")
                for i, (v, k) in enumerate(zip(ngroups_keys, keys, strict=True))
            )
    else:
        ng_keys = (check_ngroups(ngroups_keys, "ngroups_keys"),) * n_keys

    # cont_na
    cna: dict[str, tuple[float, ...]] = {}
    if cont_na is not None:
        if not isinstance(cont_na, Mapping):
            problems.append(f"cont_na: must be a dict {{column: [codes]}}, got {cont_na!r}")
        else:
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

    def check_thresh(value: Any, what: str) -> tuple[float, float]:
        if (
            isinstance(value, Sequence)
            and not isinstance(value, str)
            and len(value) == 2
            and all(
                isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)
                for v in value
            )
        ):
            return (float(value[0]), float(value[1]))
        problems.append(f"{what}: must be two finite numbers (count, percent), got {value!r}")
        return (0.0, 0.0)

    t1 = check_thresh(thresh_1way, "thresh_1way")
    t2 = check_thresh(thresh_2way, "thresh_2way")

    if problems:
        from .errors import InputError

        raise InputError(problems)
    return DisclosureSpec(
        keys=tuple(keys),
        target=target,
        denom_lim=int(denom_lim),
        exclude_ov_denom_lim=bool(exclude_ov_denom_lim),
        not_targetlev=tuple(dict.fromkeys(ntl)),
        use_target_na=bool(use_target_na),
        use_keys_na=keys_na,
        exclusions=tuple(exclusions),
        ngroups_target=ng_target,
        ngroups_keys=ng_keys,
        ngroups_keys_explicit=explicit,
        cont_na=cna,
        thresh_1way=t1,
        thresh_2way=t2,
    )
