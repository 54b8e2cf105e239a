"""Brute-force reference of sdcMicro 5.8.0's ``freqCalc``, ``measure_risk`` and ``ldiversity``
(and of 5.8.2's ``ldiversity`` rule for missing keys).

Pure Python, stdlib only, written from the definitions and from reading sdcMicro's source (GPL-2;
read, not copied): ``R/freqCalc.r``, ``R/indivRisk.R``, ``R/measure_risk.R``,
``src/Measure_Risk.h``, ``src/Measure_Threshold.h``, ``src/Framework.h`` (line numbers below are
those of the 5.8.0 files). Verified against sdcMicro's own outputs (``tests/data/sdcmicro``, cases
fc01-fc11, mr01-mr10, ld01-ld06) by ``tests/risk/test_risk_reference.py``.

Input conventions: a record's key is a tuple of values (ints, floats or strings; ``None`` = NA).
Only equality of values matters (sdcMicro works on factor codes). Every output is per record, in
input order.

freqCalc -- ``freq_reference(rows, weights=None, alpha=1.0) -> (fk, Fk)``
--------------------------------------------------------------------------
Cells are the distinct key tuples, ``None`` being a value of its own. A cell's count is ``f``,
its weight sum ``F`` (weight 1 per record without weights). Two cells are *compatible* when they
are equal on every key where both are non-missing. ``A`` is the all-NA cell.

* No NA in any key (freqCalc.r:118-129): ``fk`` = ``f`` of the record's cell, ``Fk`` = ``F``.
* NA and ONE key (freqCalc.r:141-154): a complete cell gets ``f + alpha * f(NA cell)``; the NA
  records get ``fk = n`` (all records) and ``Fk`` = total weight.
* NA and several keys (freqCalc.r:156-259), per cell:

  - complete cell c: ``f_c + alpha * sum(f_j : j an NA cell compatible with c, j != A)``; the
    all-NA cell is left out because it is joined on every key and so matches no complete cell
    (``sortKeys[[ii]] <- keyVars_n``, :169; ``addAllNAtoKeys <- FALSE``, :79 and :234-240);
  - NA cell i != A: ``f_i + alpha * sum(f_j : j != i an NA cell compatible with i, A included)
    + sum(f_c : c a complete cell compatible with i)`` -- the complete matches are NOT weighed by
    alpha (:224); the NA matches come from the ``(z==v | is.na(z)) & id != i`` conditions
    (:181-187);
  - records of the all-NA cell: ``fk = n``, ``Fk`` = total weight (:253-259).

  ``Fk`` is the same sum with ``F`` for ``f``. So with ``alpha < 1`` fk can be fractional
  (fc05, fc06, fc08, fc10).
* ``n1`` = #records with ``fk == 1``, ``n2`` = #records with ``fk == 2``, exact comparison of the
  (possibly fractional) double (:126, :151, :262). ``alpha`` outside [0, 1] is an error (:83).

measure_risk -- ``risk_reference(...)``
---------------------------------------
* Individual risk (indivRisk.R, ``survey = !is.null(w)``, measure_risk.R:224): without weights
  ``risk = 1/fk`` (:128-130). With weights (``method = "approx"``, :107-125), ``pk = fk/Fk`` and

  - ``fk > 2``: ``pk / (fk - (1 - pk))``;
  - ``fk == 2``: ``pk/(1-pk) - (pk/(1-pk))^2 * log(1/pk)``;
  - ``fk == 1``: ``pk/(1-pk) * log(1/pk)``;
  - any other fk -- a fractional ``1 < fk < 2``, possible only with alpha < 1 -- keeps
    ``risk = 0`` (the ``rep(0, N)`` of :108); a fractional ``fk > 2`` takes the ``fk > 2`` formula;
  - then, wherever ``fk == Fk`` (exactly), ``risk = 1/fk`` (:121-124).

  ``measure_risk(data.frame, ..., alpha=)`` cannot be called: the data.frame method passes
  ``alpha=alpha`` *and* ``...`` (measure_risk.R:190), so R stops with "formal argument 'alpha'
  matched by multiple actual arguments"; alpha reaches measure_risk only through an sdcMicroObj's
  options. ``alpha`` here is for that path.
* ``global_risk_ER = sum(risk)`` (measure_risk.R:251-253), ``global_risk = ER / n``,
  ``global_risk_pct = 100 * global_risk``.
* ``global_threshold`` (Measure_Threshold.h, risks sorted decreasing, measure_risk.R:258-259):
  ``ER* = max_global_risk * n``, ``S`` = sum of all risks (double, in that order). If ``S < ER*``
  the threshold is the largest risk (:110-114). Otherwise walk the sorted risks keeping
  ``count`` (records passed) and ``S`` (sum of the risks not passed); at each risk ``r`` that
  differs from the previous one, if ``S + r * count < ER*`` the threshold is ``r`` (:129-137);
  if no such ``r`` exists the threshold is 0 and "unsafe" is the last (smallest) risk. The R side
  reports NA when threshold == unsafe (measure_risk.R:260-264). Since safe == threshold always,
  and a break leaves unsafe at the previous, larger level, that is NA exactly when the global
  risk is already within the bound (``S < ER*``: mr01, mr03, mr06, mr08, mr09, mr10; also when
  every risk is 0). A level ``r`` reached with ``count`` records above it passes when
  ``S + r*count < ER*``; at the smallest level that is ``n * r_min < ER*``, so no level passes
  iff ``r_min >= max_global_risk``, and then the threshold is 0, not NA (mr07).
  ``max_global_risk`` outside (0, 1) is an error (measure_risk.R:256-258).
* ``hier_risk`` (measure_risk.R:267-292, ``fast_hier = TRUE``): per household
  ``1 - prod(1 - risk)`` over its records, given to each of its records; ``hier_risk_ER = sum``,
  ``hier_risk = ER/n``, ``pct``.
  NA household ids (not in the oracle; derived from the code, and checked against a local build of
  sdcMicro 5.8.0): ``by()`` drops the NA group but ``unique()`` keeps NA, so ``cbind`` recycles the
  first household's value into an extra row whose id is NA, and ``merge`` matches NA to NA: every
  record with an NA household id gets the hier_risk of the household with the smallest id (R
  warns "number of rows of result is not a multiple of vector length"). ``na_household="sdcmicro"``
  reproduces that; ``na_household="own"`` gives each such record its own risk (one-person
  household, the intent).

ldiversity -- ``ldiversity_reference(...)``
-------------------------------------------
R (ldiversityWORK, measure_risk.R:363-417) sorts the data by keys then sensitive variables,
passes NA as R's NA_real_ (a NaN) and ``missing = -999`` to the C++ ``measure_risk_cpp``; the
C++ tests "missing" only by ``== -999`` (Framework.h:1339-1341), so NA is a NaN that never
equals anything:

* Groups: records with equal complete keys; a record with ANY NA key is a group of its own (NaN
  != NaN in ``is_same_key_Risk``, Framework.h:1475). The "CASE 1" (all keys missing) and "CASE 2"
  (some keys missing) branches (Measure_Risk.h:545-702) are reached only by a key value equal to
  -999, never by NA; this reference raises ValueError for a -999 value (those branches have their
  own bugs: CASE 2 reuses the row index ``i`` as the loop variable at :623, CASE 1 writes no
  l-diversity at all).
* Categories of a sensitive variable in a group: equal values; every NA is a category of its own
  of frequency 1 (``pCat->value == value`` is false for NaN, Framework.h:1356, so a new category is
  made each time).

The groups above are ``missing_keys="apart"`` and the categories ``missing_sensitive="distinct"``:
sdcMicro 5.8.0 (CRAN). sdcMicro 5.8.2 (GitHub sdcTools/sdcMicro cf32510, PR #364; verified against
its outputs, ``tests/data/sdcmicro-5.8.2``, cases lx01-lx07) compares keys with NA equal to NA
(``items_match_safe``, src/Measure_Risk.h): ``missing_keys="equal"``, records with the same NA
pattern and equal other keys are one group; its sensitive values are still compared as doubles
(``"distinct"``). discosql's own rules, also here: ``missing_sensitive="category"`` (all NA of a
variable one more category) and ``"ignore"`` (NA left out: the sizes and frequencies count the
known values only; a group without one gets None in the variable's three columns, and the multi
columns take only the subgroups with a known value, None when there are none). The defaults are
discosql's (``"equal"``, ``"category"``); the oracle tests pass the rules they reproduce.
* ``<var>_Distinct_Ldiversity`` = number of categories; ``<var>_Entropy_Ldiversity`` =
  ``exp(-sum p ln p)``, ``p = freq/group size`` (double, Measure_Risk.h:63-94);
  ``<var>_Recursive_Ldiversity``: frequencies sorted decreasing ``r1 >= ... >= rm``; the smallest
  ``j`` in 1..m with ``c * (r_{j+1} + ... + r_m) <= r1`` (m if none earlier; 1 if m == 1),
  computed in C ``float``: ``c`` is the float of ``l_recurs_c`` (Rcpp::as<float>, :432; 0 becomes
  1, :434), ``S = float(sum r2..rm) * c``, then ``S -= c * r_j`` while ``S > r1``
  (:137-149). Emulated here with float32 rounding after every operation.
* ``MultiEntropy_Ldiversity``/``MultiRecursive_Ldiversity`` (Compute_Multi_LDiversity,
  :160-328). Intended: for each sensitive var i, split the group into subgroups equal on all the
  OTHER sensitive vars; entropy/recursive of var i in each; minimum over subgroups and i. Bug:
  R gives the sensitive columns as slots ``n_keys .. n_keys+m-1`` of ``Sensitive_Var``
  (R: ``ldiv_index <- length(variables) + 1:m``, measure_risk.R:377/380; C++:
  ``Require_Ldiversity = TRUE`` at index ``ldiv_index - 1``, :444), but Compute_Multi loops
  over slots ``0 .. m-1`` and skips the inactive ones (:168, :187-190). So slot i (= the i-th
  sensitive var, 0-based) takes part only when ``i >= n_keys``; with ``m <= n_keys`` (every
  oracle case) nothing runs, and the columns keep the global ``g_Config.Group_Multi*`` value: 0
  in a fresh R session (zero-initialised static, Framework.h:1335), otherwise the stale value of
  the last group of an earlier call in the same session that did run it (seen on a local build:
  a 2-key, 2-variable call right after a 1-key one returned the earlier call's last value, 1,
  not 0). With one sensitive variable the columns are never written (``Nb_Sensitive_Var >= 2``,
  :768/:797): 0.
  When ``n_keys < m`` the active slots do run, with: the group's records in R's sort order (by
  the sensitive values, NA last), a descending exchange sort on the other sensitive vars that
  cannot order NaN (Measure_Risk.h:192-219), subgroups cut where any other var differs (NaN
  differs from everything, NaN included), NA values of var i each its own category, the
  subgroup entropy stored as float (:288) and the minimum kept as float (:298-318,
  Framework.h:1329).
  ``multi="sdcmicro"`` reproduces all of that (assuming a fresh session; strings are ordered by
  Python's ``<``, which is R's factor-code order in the C locale -- this matters only for NA
  sensitive values when n_keys < m). ``multi="intent"`` computes the intended measure: all i,
  subgroups equal on the other sensitive vars with NA equal to NA for the split, var i's
  categories with the per-variable rules above, entropy in double; with one sensitive variable
  the multi columns equal that variable's entropy/recursive values.
* At most 5 sensitive variables (measure_risk.R:398-399).

Data types: sdcMicro sees factor codes, so only equality matters and this reference compares
values with ``==``. A *character* (non-factor) column is different in R: ``ldiversityWORK`` and a
direct ``freqCalc`` call ``as.numeric()`` it (measure_risk.R:388-391, freqCalc.r:108), so digit
strings become numbers and other text becomes NA (seen on a local build: a character sensitive
variable gave one category per record); ``measure_risk`` turns character keys into factors first
(measure_risk.R:216-221). The oracle reads text as factors, so this reference treats strings as
values.

Checked beyond the oracle against a local build of sdcMicro 5.8.0 (the oracle's
tools/build_sdcmicro.sh): NA household ids, fractional fk with weights (alpha through an
sdcMicroObj and ``indivRisk(freqCalc(..., alpha))``), ``n_keys < m`` multi l-diversity with and
without NA sensitive values and with ``l_recurs_c`` 0.1, 1.3, 1.7, 3, and global thresholds of 0.
"""

from __future__ import annotations

import math
import struct
from collections import Counter
from collections.abc import Sequence
from typing import Any

Key = tuple[Any, ...]

MISSING_CODE = -999  # sdcMicro's default `missing` for ldiversity's C++


def _is_na(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _norm(row: Sequence[Any]) -> Key:
    return tuple(None if _is_na(v) else v for v in row)


def _compatible(a: Key, b: Key) -> bool:
    """Equal on every position where both are non-missing."""
    return all(x is None or y is None or x == y for x, y in zip(a, b, strict=True))


# --------------------------------------------------------------------------------------------
# freqCalc
# --------------------------------------------------------------------------------------------


def freq_reference(
    rows: Sequence[Sequence[Any]], weights: Sequence[float] | None = None, alpha: float = 1.0
) -> tuple[list[float], list[float]]:
    """Per record (fk, Fk) as sdcMicro's freqCalc computes them (see the module docstring)."""
    if alpha < 0 or alpha > 1:
        raise ValueError("alpha must be in [0, 1]")
    keys = [_norm(r) for r in rows]
    n = len(keys)
    w = [1.0] * n if weights is None else [float(x) for x in weights]
    f: Counter[Key] = Counter()
    F: dict[Key, float] = {}
    for k, wi in zip(keys, w, strict=True):
        f[k] += 1
        F[k] = F.get(k, 0.0) + wi
    if not any(None in k for k in f):
        return [float(f[k]) for k in keys], [F[k] for k in keys]

    nkeys = len(keys[0])
    total_f, total_F = float(n), math.fsum(w)
    all_na = (None,) * nkeys
    complete = [c for c in f if None not in c]
    partial = [c for c in f if None in c and c != all_na]
    na_cells = partial + ([all_na] if all_na in f else [])
    fk: dict[Key, float] = {}
    Fk: dict[Key, float] = {}
    if nkeys == 1:
        for c in complete:
            fk[c] = f[c] + alpha * f[all_na]
            Fk[c] = F[c] + alpha * F[all_na]
    else:
        for c in complete:
            compat = [j for j in partial if _compatible(c, j)]
            fk[c] = f[c] + alpha * sum(f[j] for j in compat)
            Fk[c] = F[c] + alpha * sum(F[j] for j in compat)
        for i in partial:
            na_match = [j for j in na_cells if j != i and _compatible(i, j)]
            co_match = [c for c in complete if _compatible(i, c)]
            fk[i] = f[i] + alpha * sum(f[j] for j in na_match) + sum(f[c] for c in co_match)
            Fk[i] = F[i] + alpha * sum(F[j] for j in na_match) + sum(F[c] for c in co_match)
    fk[all_na], Fk[all_na] = total_f, total_F
    return [fk[k] for k in keys], [Fk[k] for k in keys]


# --------------------------------------------------------------------------------------------
# measure_risk
# --------------------------------------------------------------------------------------------


def _indiv_risk(fk: float, Fk: float, weighted: bool) -> float:
    if not weighted:
        return 1.0 / fk
    if fk == Fk:
        return 1.0 / fk
    pk = fk / Fk
    if fk > 2:
        return pk / (fk - (1 - pk))
    if fk == 2:
        q = pk / (1 - pk)
        return q - q**2 * math.log(1 / pk)
    if fk == 1:
        return pk / (1 - pk) * math.log(1 / pk)
    return 0.0  # fractional 1 < fk < 2 (alpha < 1): no branch of indivRisk applies


def _global_threshold(risks: Sequence[float], max_global_risk: float) -> float:
    """Measure_Threshold.h on the risks sorted decreasing; NaN where measure_risk gives NA."""
    r = sorted(risks, reverse=True)
    sum_risk = 0.0
    for x in r:
        sum_risk += x
    er = max_global_risk * len(r)
    current = r[0]
    threshold = 0.0
    if sum_risk < er:
        threshold = current
    else:
        for count, x in enumerate(r):  # count = records passed before x
            if x != current:
                if sum_risk + x * count < er:
                    threshold = x
                    break
                current = x
            sum_risk -= x
    return math.nan if threshold == current else threshold


def risk_reference(
    rows: Sequence[Sequence[Any]],
    weights: Sequence[float] | None = None,
    household: Sequence[Any] | None = None,
    alpha: float = 1.0,
    max_global_risk: float = 0.01,
    na_household: str = "sdcmicro",
) -> dict[str, Any]:
    """measure_risk's per-record risk/fk/Fk(/hier_risk) and its scalars (module docstring)."""
    if not 0 < max_global_risk < 1:
        raise ValueError("max_global_risk must be in (0, 1)")
    if na_household not in ("sdcmicro", "own"):
        raise ValueError("na_household must be 'sdcmicro' or 'own'")
    fk, Fk = freq_reference(rows, weights, alpha)
    risk = [_indiv_risk(a, b, weights is not None) for a, b in zip(fk, Fk, strict=True)]
    n = len(risk)
    er = math.fsum(risk)
    out: dict[str, Any] = {
        "n1": sum(1 for x in fk if x == 1),
        "n2": sum(1 for x in fk if x == 2),
        "global_risk_ER": er,
        "global_risk": er / n,
        "global_risk_pct": er / n * 100,
        "global_threshold": _global_threshold(risk, max_global_risk),
        "hier_risk_ER": math.nan,
        "hier_risk": math.nan,
        "hier_risk_pct": math.nan,
    }
    records = [
        {"row": tuple(r), "fk": a, "Fk": b, "risk": c}
        for r, a, b, c in zip(rows, fk, Fk, risk, strict=True)
    ]
    if household is not None:
        hh = [None if _is_na(h) else h for h in household]
        prod: dict[Any, float] = {}
        for h, x in zip(hh, risk, strict=True):
            if h is not None:
                prod[h] = prod.get(h, 1.0) * (1 - x)
        hier_of = {h: 1 - p for h, p in prod.items()}
        first = hier_of[min(hier_of)] if hier_of else math.nan
        hier = [
            hier_of[h] if h is not None else (first if na_household == "sdcmicro" else x)
            for h, x in zip(hh, risk, strict=True)
        ]
        for rec, v in zip(records, hier, strict=True):
            rec["hier_risk"] = v
        her = math.fsum(v for v in hier if not math.isnan(v))
        out.update(hier_risk_ER=her, hier_risk=her / n, hier_risk_pct=her / n * 100)
    out["records"] = records
    return out


# --------------------------------------------------------------------------------------------
# ldiversity
# --------------------------------------------------------------------------------------------


def _f32(x: float) -> float:
    """Round a double to the nearest C float."""
    return struct.unpack("f", struct.pack("f", x))[0]


def _categories(values: Sequence[Any], missing: str = "distinct") -> list[int]:
    """Category frequencies: equal non-missing values together; the missing values each alone
    (``distinct``, sdcMicro), together as one more category (``category``) or left out
    (``ignore``: the list may be empty)."""
    cnt = Counter(v for v in values if v is not None)
    n_missing = sum(1 for v in values if v is None)
    if missing == "distinct":
        return list(cnt.values()) + [1] * n_missing
    if missing == "category" and n_missing:
        return [*cnt.values(), n_missing]
    return list(cnt.values())


def _entropy(freqs: Sequence[int]) -> float | None:
    if not freqs:
        return None
    size = sum(freqs)
    ent = 0.0
    for fr in freqs:
        p = fr / size
        ent += p * math.log(p)
    return math.exp(-ent)


def _recursive(freqs: Sequence[int], c: float) -> int | None:
    """Recursive (c, l)-diversity as the C++ computes it, in float (None: no category)."""
    r = sorted(freqs, reverse=True)
    m = len(r)
    if m == 0:
        return None
    if m <= 1:
        return 1
    s = 0.0
    for x in r[1:]:
        s = _f32(s + x)
    s = _f32(s * c)
    j = 1
    while j < m and s > r[0]:
        s = _f32(s - _f32(c * r[j]))
        j += 1
    return j


def _multi_intent(sens: list[Key], c: float, missing: str) -> tuple[float | None, int | None]:
    """The smallest entropy and recursive l-diversity of each variable within the groups equal
    on the others (missing values equal there); groups without a category (``ignore``) take no
    part, and with none anywhere both are None."""
    m = len(sens[0])
    ent: float | None = None
    rec: int | None = None
    for i in range(m):
        sub: dict[Key, list[Any]] = {}
        for s in sens:
            sub.setdefault(s[:i] + s[i + 1 :], []).append(s[i])
        for vals in sub.values():
            fr = _categories(vals, missing)
            if not fr:
                continue
            e, r = _entropy(fr), _recursive(fr, c)
            assert e is not None
            assert r is not None
            ent = e if ent is None else min(ent, e)
            rec = r if rec is None else min(rec, r)
    return ent, rec


def _r_sort_key(s: Key) -> tuple:
    return tuple((v is None, 0 if v is None else v) for v in s)


def _multi_sdcmicro(sens: list[Key], n_keys: int, c: float) -> tuple[float, int] | None:
    """Compute_Multi_LDiversity as it runs; None when no slot is active (columns keep 0)."""
    m = len(sens[0])
    active = [i for i in range(m) if i >= n_keys]
    if m < 2 or not active:
        return None
    pset = sorted(sens, key=_r_sort_key)  # R's order() within the key group, NA last
    size = len(pset)

    def eq(a: Any, b: Any) -> bool:  # C double ==, NA being NaN
        return a is not None and b is not None and a == b

    def gt(a: Any, b: Any) -> bool:
        return a is not None and b is not None and a > b

    multi_e: float | None = None
    multi_r: int | None = None
    for i in active:
        idx = list(range(size))
        for j in range(size - 1):
            for k in range(j + 1, size):
                a, b = pset[idx[k]], pset[idx[j]]
                swap = False
                for lv in range(m):
                    if lv == i or eq(a[lv], b[lv]):
                        continue
                    swap = gt(a[lv], b[lv])
                    break
                if swap:
                    idx[j], idx[k] = idx[k], idx[j]
        subs: list[list[Any]] = []
        first = None
        for p in idx:
            rec = pset[p]
            if first is None or any(not eq(rec[lv], first[lv]) for lv in range(m) if lv != i):
                subs.append([])
                first = rec
            subs[-1].append(rec[i])
        ents = [_f32(_entropy(_categories(v)) or 0.0) for v in subs]
        recs = [_recursive(_categories(v), c) or 0 for v in subs]
        e, r = min(ents), min(recs)
        multi_e = e if multi_e is None else min(e, multi_e)
        multi_r = r if multi_r is None else min(r, multi_r)
    return multi_e, multi_r  # type: ignore[return-value]


def ldiversity_reference(
    rows: Sequence[Sequence[Any]],
    sensitive_rows: Sequence[Sequence[Any]],
    names: Sequence[str] | None = None,
    l_recurs_c: float = 2,
    multi: str = "intent",
    missing_keys: str = "equal",
    missing_sensitive: str = "category",
) -> list[dict[str, float | None]]:
    """Per record sdcMicro's ldiversity columns (see the module docstring); the defaults of
    the two rules are discosql's, sdcMicro 5.8.0 is ``missing_keys="apart",
    missing_sensitive="distinct"`` and 5.8.2 ``missing_keys="equal"`` with "distinct"."""
    if multi not in ("intent", "sdcmicro"):
        raise ValueError("multi must be 'intent' or 'sdcmicro'")
    if missing_keys not in ("equal", "apart"):
        raise ValueError("missing_keys must be 'equal' or 'apart'")
    if missing_sensitive not in ("category", "distinct", "ignore"):
        raise ValueError("missing_sensitive must be 'category', 'distinct' or 'ignore'")
    if multi == "sdcmicro" and missing_sensitive != "distinct":
        raise ValueError("multi='sdcmicro' is sdcMicro's rule: missing_sensitive='distinct'")
    keys = [_norm(r) for r in rows]
    sens = [_norm(s) for s in sensitive_rows]
    if len(keys) != len(sens):
        raise ValueError("rows and sensitive_rows differ in length")
    m = len(sens[0])
    names = list(names) if names is not None else [f"V{i + 1}" for i in range(m)]
    if len(names) != m:
        raise ValueError("one name per sensitive variable")
    if m > 5:
        raise ValueError("sdcMicro allows at most 5 sensitive variables")
    for t in keys + sens:
        if any(isinstance(v, (int, float)) and v == MISSING_CODE for v in t):
            raise ValueError("a value equal to -999 takes sdcMicro's missing-code branches")
    n_keys = len(keys[0])
    c = _f32(float(l_recurs_c)) or 1.0

    groups: dict[Any, list[int]] = {}
    for idx, k in enumerate(keys):
        # apart: an NA key is a group of its own (5.8.0); equal: NA equals NA (5.8.2)
        gid = ("na", idx) if None in k and missing_keys == "apart" else ("key", k)
        groups.setdefault(gid, []).append(idx)

    out: list[dict[str, float | None]] = [{} for _ in keys]
    for members in groups.values():
        gs = [sens[i] for i in members]
        res: dict[str, float | None] = {}
        for v, name in enumerate(names):
            fr = _categories([s[v] for s in gs], missing_sensitive)
            res[f"{name}_Distinct_Ldiversity"] = len(fr) if fr else None
            res[f"{name}_Entropy_Ldiversity"] = _entropy(fr)
            res[f"{name}_Recursive_Ldiversity"] = _recursive(fr, c)
        me: float | None
        mr: int | None
        if multi == "intent":
            me, mr = _multi_intent(gs, c, missing_sensitive)
        else:
            got = _multi_sdcmicro(gs, n_keys, c)
            me, mr = (0.0, 0) if got is None else got
        res["MultiEntropy_Ldiversity"] = me
        res["MultiRecursive_Ldiversity"] = mr
        for i in members:
            out[i] = dict(res)
    return out
