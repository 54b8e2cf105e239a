"""Brute-force reference for sdcMicro's ``suda2()`` (SUDA2 special-uniques scores), pure Python.

Written from sdcMicro 5.8.0's ``R/suda2.R`` and ``src/Suda2.h`` (read to learn the behaviour, not
copied) and checked against sdcMicro's own outputs (``tests/data/sdcmicro``, cases su01..su08, see
``test_suda_reference.py``). It looks at every non-empty subset of the keys and every record;
nothing here is clever, so it is the thing to compare a SQL implementation against.

Notation: n records, m keys ``k_1..k_m``, ``x_r[j]`` the value of key j in record r (None =
missing). M is the number of key columns sdcMicro's C++ sees: M = m, except with
``pad_dummies=True`` and m < 3, where M = 3 (see "Fewer than 3 keys" below).

Definitions
-----------
Agreement. Record t *agrees with* record r on a key set S when, for every j in S, both values are
present and equal. A missing value agrees with nothing, not even with another missing value.

Sample unique. Record r is *unique on* S (S non-empty) when r has no missing value on S and no
other record agrees with r on S. (This is how sdcMicro counts: its C++ builds, per key, the list
of records holding each value and skips the missing-value list, ``if (pValue->Value ==
g_MissingValueALEX) continue;``; NA reaches it as -999 from R. So a record with a missing value is
never counted as "the same" as another record on a set that includes that key: a missing value
behaves like a value of its own that matches nothing. This is the opposite of freqCalc(), where a
missing value is a wildcard that matches everything.)

MSU (minimal sample unique). S is an MSU of r when r is unique on S and on no proper non-empty
subset of S. Because uniqueness only grows when keys are added, it is enough to check the |S| - 1
subsets ``S \\ {j}``. A key on which r is missing is never part of an MSU of r. With ``max_size``
only MSUs with |S| <= max_size are looked for (sdcMicro has no such option: its C++ overwrites
the MaxK argument with the number of columns, ``g_MaxK = g_NbVarALEX;``; None = sdcMicro).

SUDA score (``suda_score``). ``s_r = sum over the MSUs S of r of w(|S|)`` with, for an MSU of
size k,

* ``original_scores=True`` (sdcMicro's default, "as in Elliot et al."): ``w(k) = (M - k)!``
  (C++: ``g_ab[k-1] = prod_{j=k}^{M-1} (M - j)``; so w(M) = 1);
* ``original_scores=False`` (the IHSN program's scores): ``w(k) = (2^(M-k) - 1) / C(M, k)``
  (C++: ``(2^n - 1) * k! * n! / M!`` with n = M - k; so w(M) = 0: an MSU on all keys scores 0).

Per-record key contribution (``<key>_contribution``). ``c_r[j] = sum over the MSUs S of r that
contain j of w(|S|) / s_r``, 0 when s_r = 0. Despite sdcMicro's name ``contributionPercent`` it
is a fraction in [0, 1] (not a percent) and the m values of a record do not add up to 1 (an MSU
of size k counts for each of its k keys: ``sum_j c_r[j] = sum_S |S| w(|S|) / s_r >= 1``).

Attribute contribution (``attributes``, percent). ``A[j] = 100 * sum_r c_r[j] s_r / sum_r s_r``
(R: ``100 * colSums(contributionPercent * score) / sum(score)``); NaN when every score is 0. The m
values add up to more than 100 for the reason above.

Level contribution (``levels``, percent). For key j and each distinct present value v of key j,
sorted ascending (R: ``sort(unique(data[[vv]]))``, NA dropped):
``L[j, v] = 100 * sum_{r: x_r[j] = v} c_r[j] s_r / sum_r c_r[j] s_r``; NaN when the denominator is
0. Rows come key by key in the order of ``keys``. (For a text key sdcMicro works on factor codes;
the level order is then the order of the factor levels, i.e. sorted text; the oracle's R ran in
the C locale, which is Python's code-point order.)

DIS-SUDA (``dis_suda_score``). With f = ``dis_fraction`` (0 is silently replaced by 0.5:
``if (DisFraction_tmp != 0) DisFraction = DisFraction_tmp;``), P = the number of records that
belong to a group of exactly two records identical on all keys (for this, and only this, two
missing values are equal: sdcMicro compares the -999 codes), ``Q = 1 + (8 - M) / 20`` and
``A = sum over records with s_t > 0 of s_t^(-Q)``:

    dis_r = 1 / (1 + P (1 - f) / (f * s_r^Q * A))    if s_r > 0,    dis_r = 0 otherwise.

sdcMicro writes it as ``1 / (1 + (U / D - U) / (s_r^Q A))`` with ``D = U f / (U f + P (1 - f))``
(the Skinner-Elliot DIS probability, U = number of sample uniques on all keys); U cancels
algebraically, ``U / D - U = P (1 - f) / f``. Two things in its code matter only numerically:

* its U is wrong: it counts the records that are alone in their bucket of a 16-bit hash of the
  key codes, not the records that are unique (``else if (k == g_NbPerHash[i]) ++NbUniqueTotal;``
  can never be true, since k + j + 1 == g_NbPerHash[i]; e.g. testdata: 24 instead of 108). Since U
  cancels, this only changes the rounding below (and for data so large that no record is alone in
  a bucket U = 0, D = 0 and sdcMicro's DIS becomes NaN);
* f, D, Q and ``U / D - U`` are single-precision floats, so sdcMicro's DIS differs from the exact
  formula by up to ~2e-7 (relative).

``float32_dis=True`` (default) reproduces both (the hash-bucket U, float32 rounding of every step),
and then agrees with sdcMicro to ~1e-15; ``float32_dis=False`` is the exact formula in doubles
(Q = 1 + (8 - M)/20 as a double), which is what a SQL engine computing in DOUBLE gets.

Identical records. sdcMicro drops the 3rd and later copies of a record identical on all keys
before searching (they are copies, so no uniqueness changes) and gives them the first copy's
score, which is 0 anyway: a record with a twin is unique on nothing.

Fewer than 3 keys
-----------------
sdcMicro's C++ refuses fewer than 3 columns (``if (g_MaxK < 3) ... return NULL``), so R/suda2.R
adds one or two constant columns of 1 (``cbind(dataX, rep(1, nrow(dataX)))``), drops their
columns from the result and warns "Dummy variables have been added and the result might be
wrong!". A constant column is never part of an MSU, so the MSUs are those of the real keys, but
M becomes 3: the weights are (3 - k)! (IHSN: (2^(3-k) - 1) / C(3, k)) instead of (m - k)!, and Q
= 1.25 instead of 1 + (8 - m)/20 (and the hash changes). So with 2 keys and original scores a
1-MSU weighs 2 instead of 1 (a 2-MSU 1 in both): scores, the per-record contributions of records
with MSUs of both sizes, attribute/level contributions and DIS all change. The INTENT (default,
``pad_dummies=False``) is SUDA on the real keys: M = m. ``pad_dummies=True`` reproduces
sdcMicro. With 1 key sdcMicro 5.8.0 fails in R after the C++ has run (``colSums`` of a vector:
"'x' must be an array of at least two dimensions"); ``pad_dummies=True`` then gives what the C++
computed. Note that with M = 1 the IHSN weight of the only size (k = M) is 0.

Other sdcMicro behaviour, not reproduced (values are compared by equality here)
------------------------------------------------------------------------------
* The C++ truncates every value to an int (``(TValue) Mat(Index, j)``), so 1.2 and 1.7 are the
  same value there, and a real value -999 is taken for a missing value.
* Key twins: when two keys have values whose sets of records are identical (e.g. one key is a
  recoding of another), the C++ keeps one value ("primary", the one of the earlier key) and
  multiplies the MSUs. Scores stay right, but the contributions do not: in an MSU of size >= 3
  each twin's share is credited to its primary's key (``Entry.m_pContribution[VarNum] += m *
  g_ab[Msu.m_NbVar];`` loops only over the primary items), and in an MSU of size 2 a twin is
  credited only for its MSU with the other item's primary. ``sdcmicro_twin_contributions=True``
  reproduces this (checked with sdcMicro 5.8.0 on small data; none of su01..su08 has twins).

Returned dict
-------------
``records``: one dict per input row, in input order, with ``<key>_contribution``, ``suda_score``,
``dis_suda_score``; ``attributes``: [(key, A)]; ``levels``: [(key, value, L)]; ``msu_counts``:
[(k, number of records with at least one MSU of size k)] for k = 1..min(m, max_size).
"""

from __future__ import annotations

import math
import struct
from collections import Counter, defaultdict
from collections.abc import Sequence

MISSING_CODE = -999  # what R/suda2.R turns NA into before the C++ sees it


def suda_reference(
    rows: Sequence[tuple],
    keys: list[str],
    dis_fraction: float = 0.01,
    original_scores: bool = True,
    max_size: int | None = None,
    pad_dummies: bool = False,
    float32_dis: bool = True,
    sdcmicro_twin_contributions: bool = False,
) -> dict:
    """SUDA2 scores of ``rows`` (tuples of key values, None = missing) on ``keys``.

    See the module docstring for the definitions and the flags.
    """
    n, m = len(rows), len(keys)
    if any(len(r) != m for r in rows):
        raise ValueError("every row needs one value per key")
    big_m = 3 if pad_dummies and m < 3 else m  # number of columns sdcMicro's C++ works on
    largest = m if max_size is None else min(m, max_size)
    weight = msu_weights(big_m, original_scores)

    msus = find_msus(rows, largest)  # per record: list of MSUs, each a tuple of key indices

    # scores and raw (un-normalised) contributions
    credit = key_credit_sdcmicro(rows, n) if sdcmicro_twin_contributions else None
    scores, raw = [], []
    for r, record_msus in enumerate(msus):
        score, contrib = 0.0, [0.0] * m
        for msu in record_msus:
            w = weight[len(msu)]
            score += w
            for j in credited_keys(rows[r], msu, credit):
                contrib[j] += w
        scores.append(score)
        raw.append(contrib)
    fractions = [
        [c / s if s else 0.0 for c in contrib] for contrib, s in zip(raw, scores, strict=True)
    ]

    dis = dis_suda(rows, scores, dis_fraction, big_m, float32_dis)

    records = []
    for r in range(n):
        rec = {f"{k}_contribution": fractions[r][j] for j, k in enumerate(keys)}
        rec["suda_score"] = scores[r]
        rec["dis_suda_score"] = dis[r]
        records.append(rec)

    # attribute and level contributions (R: contribs = contributionPercent * score)
    weighted = [[fractions[r][j] * scores[r] for j in range(m)] for r in range(n)]
    total_score = sum(scores)
    attributes = [
        (k, percent(sum(w[j] for w in weighted), total_score)) for j, k in enumerate(keys)
    ]
    levels = []
    for j, k in enumerate(keys):
        per_level: dict = defaultdict(float)
        for r in range(n):
            if rows[r][j] is not None:
                per_level[rows[r][j]] += weighted[r][j]
        total = sum(w[j] for w in weighted)
        levels += [(k, v, percent(per_level[v], total)) for v in sorted(per_level)]

    msu_counts = [
        (size, sum(1 for record_msus in msus if any(len(s) == size for s in record_msus)))
        for size in range(1, largest + 1)
    ]
    return {
        "records": records,
        "attributes": attributes,
        "levels": levels,
        "msu_counts": msu_counts,
    }


# ---------------------------------------------------------------------------------------------
# MSUs


def find_msus(rows: Sequence[tuple], largest: int) -> list[list[tuple[int, ...]]]:
    """Every MSU of every record, subsets of the keys taken by increasing size.

    For each subset S the records are grouped by their values on S (records missing on S are left
    out); ``unique[S]`` is the set of records alone in their group. Record r has MSU S when r is in
    ``unique[S]`` and in no ``unique[S minus one key]``. Groups of S are built from the groups of S
    minus its highest key, so each subset costs one dict pass over the records.
    """
    n = len(rows)
    m = len(rows[0]) if n else 0
    group_of: dict[int, list] = {
        0: [0] * n
    }  # subset bitmask -> group id per record (None = missing)
    unique: dict[int, set[int]] = {}
    msus: list[list[tuple[int, ...]]] = [[] for _ in range(n)]
    subsets = sorted(range(1, 1 << m), key=lambda s: (bin(s).count("1"), s))
    for subset in subsets:
        members = tuple(j for j in range(m) if subset >> j & 1)
        if len(members) > largest:
            break
        last = members[-1]
        parent = group_of[subset & ~(1 << last)]
        ids: dict = {}
        group: list = [None] * n
        for r in range(n):
            value = rows[r][last]
            if parent[r] is None or value is None:
                continue
            group[r] = ids.setdefault((parent[r], value), len(ids))
        group_of[subset] = group
        size = Counter(g for g in group if g is not None)
        unique[subset] = {r for r in range(n) if group[r] is not None and size[group[r]] == 1}
        for r in unique[subset]:
            if len(members) == 1 or all(r not in unique[subset & ~(1 << j)] for j in members):
                msus[r].append(members)
    return msus


def msu_weights(big_m: int, original_scores: bool) -> list[float]:
    """``w[k]`` for an MSU of size k = 1..big_m (w[0] unused)."""
    if original_scores:
        return [0.0] + [float(math.factorial(big_m - k)) for k in range(1, big_m + 1)]
    return [0.0] + [(2 ** (big_m - k) - 1) / math.comb(big_m, k) for k in range(1, big_m + 1)]


# ---------------------------------------------------------------------------------------------
# sdcMicro's key-twin contribution accounting (off by default)


def key_credit_sdcmicro(rows: Sequence[tuple], n: int) -> dict:
    """``(key, value) -> (key, value)`` of its primary, for the values sdcMicro treats as twins.

    A value's record set is taken without the 3rd and later copies of identical records (as the
    C++ does, which changes nothing here); values seen once, and values held by all n records, are
    not items there and have no twin. The primary is the value of the earliest key.
    """
    seen: Counter = Counter()
    holders: dict = defaultdict(list)
    for r, row in enumerate(rows):
        seen[row] += 1
        if seen[row] > 2:
            continue
        for j, value in enumerate(row):
            if value is not None:
                holders[(j, value)].append(r)
    primary_of_set: dict = {}
    primary: dict = {}
    for item in sorted(holders, key=lambda it: it[0]):  # stable: key order as the C++ loops
        records = tuple(holders[item])
        if len(records) < 2 or len(records) == n:
            continue
        primary[item] = primary_of_set.setdefault(records, item)
    return primary


def credited_keys(row: tuple, msu: tuple[int, ...], credit: dict | None) -> list[int]:
    """The keys an MSU's weight is added to: its own keys, or sdcMicro's twin accounting."""
    if credit is None:
        return list(msu)
    items = [(j, row[j]) for j in msu]
    primaries = [credit.get(item, item) for item in items]
    if len(msu) >= 3:  # every item credits its primary's key
        return [p[0] for p in primaries]
    if len(msu) == 2:  # a twin is credited only in its MSU with the other item's primary
        return list(msu) if items[0] == primaries[0] or items[1] == primaries[1] else []
    return list(msu)


# ---------------------------------------------------------------------------------------------
# DIS-SUDA


def dis_suda(
    rows: Sequence[tuple], scores: list[float], dis_fraction: float, big_m: int, float32: bool
) -> list[float]:
    """DIS-SUDA per record; see the module docstring."""
    full = Counter(rows)  # None == None here (sdcMicro compares the -999 codes)
    pairs = sum(2 for c in full.values() if c == 2)
    if float32:
        f = f32(dis_fraction) or f32(0.5)
        u = float(bucket_alone_count(rows, big_m))
        share = f32(u * f)
        d = f32_div(share, f32(share + f32(pairs * f32(1.0 - f))))
        odds = f32(f32_div(u, d) - u)  # (U / D - U), in float
        q = f32(1.0 + f32(f32(8.0 - big_m) / 20.0))
    else:
        f = dis_fraction or 0.5
        odds = pairs * (1.0 - f) / f
        q = 1.0 + (8.0 - big_m) / 20.0
    adj = 0.0
    for s in scores:
        if s:
            adj += 1.0 / s**q
    return [1.0 / (1.0 + odds / (s**q * adj)) if s else 0.0 for s in scores]


def bucket_alone_count(rows: Sequence[tuple], big_m: int) -> int:
    """sdcMicro's ``NbUniqueTotal``: records alone in their bucket of a 16-bit hash of the codes.

    The codes are what the C++ receives: numbers truncated to int, text as 1-based rank among the
    sorted distinct texts of its column (R's factor codes), missing as -999, and a 1 for each
    dummy column added when there are fewer than 3 keys (``big_m`` > number of keys). Per column
    the hash is shifted left one bit (16 bits), the code added, the bit shifted out added back.
    """
    m = len(rows[0]) if rows else 0
    rank = []
    for j in range(m):
        texts = sorted({row[j] for row in rows if isinstance(row[j], str)})
        rank.append({t: i + 1 for i, t in enumerate(texts)})
    buckets: Counter = Counter()
    for row in rows:
        codes = [
            MISSING_CODE if v is None else rank[j][v] if isinstance(v, str) else int(v)
            for j, v in enumerate(row)
        ] + [1] * (big_m - m)
        h = 0
        for code in codes:
            carry = h & 0x8000
            h = (((h << 1) & 0xFFFF) + code + (1 if carry else 0)) & 0xFFFF
        buckets[h] += 1
    return sum(1 for c in buckets.values() if c == 1)


def f32(x: float) -> float:
    """``x`` rounded to single precision (exact for one +,-,*,/ of two floats done in double)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def f32_div(a: float, b: float) -> float:
    """a / b in single precision, with C's results for b == 0 (NaN for 0/0, +-inf otherwise)."""
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a)
    return f32(a / b)


def percent(num: float, den: float) -> float:
    """100 * num / den; NaN when den is 0 (R's 0/0)."""
    return 100.0 * num / den if den else math.nan


__all__ = ["suda_reference"]
