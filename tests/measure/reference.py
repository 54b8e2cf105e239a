"""Brute-force reference for synthpop's ``disclosure()`` measures (pure Python, no SQL).

Written independently of the package from ``shared/spec/synthpop-disclosure.md`` (sections 2-7
and 10) so that tests can compare the SQL engine against something obviously correct. Every
table is a ``{(target_label, q): count}`` dict holding only positive cells; ``q`` is the tuple of
key labels in the order the caller gave the keys. Tables are aligned by level *name* (synthpop's
positional quirk Q0 is not reproduced) and ``use_keys_na`` follows the keys as given (quirk Q1 is
not reproduced).
"""

from __future__ import annotations

import math
from collections import Counter

TABLES = ("original", "synthetic", "Dorig", "Dsyn", "iS", "DiS", "DiSCO", "DiSDiO")
REASONS = (
    "excluded target",
    "missing target",
    "missing in keys",
    "set to exclude",
    "over denom_lim",
    "remaining",
)
MEASURES = (
    "UiO",
    "UiS",
    "UiOiS",
    "repU",
    "Dorig",
    "Dsyn",
    "iS",
    "DiS",
    "DiSCO",
    "DiSDiO",
    "max_denom",
    "mean_denom",
    "baseCAPd",
    "CAPd",
    "CAPs",
    "DCAP",
    "TCAP",
    "TCAP_little",
)
MISSING = "Missing"


def label(value: object) -> str:
    """The level name of one value: None/NaN -> "Missing", bool -> TRUE/FALSE, 57.0 -> "57"."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return MISSING
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return repr(value)
    if isinstance(value, str):
        return value
    raise TypeError(f"unsupported value {value!r}")


def pct(num: float, den: float) -> float:
    """100 * num / den, NaN when den is 0."""
    return 100.0 * num / den if den else math.nan


def col_sums(table: dict) -> Counter:
    """Column (q) sums of a {(t, q): n} table."""
    sums: Counter = Counter()
    for (_t, q), n in table.items():
        sums[q] += n
    return sums


def row_sums(table: dict) -> Counter:
    """Row (target level) sums of a {(t, q): n} table."""
    sums: Counter = Counter()
    for (t, _q), n in table.items():
        sums[t] += n
    return sums


def crosstab(rows: list[dict], keys: list[str], target: str) -> dict:
    """{(target label, tuple of key labels): count}."""
    return dict(Counter((label(r[target]), tuple(label(r[k]) for k in keys)) for r in rows))


def reference_disclosure(
    original,
    synthetics,
    keys,
    target,
    *,
    denom_lim=5,
    exclude_ov_denom_lim=False,
    not_targetlev=None,
    use_target_na=True,
    use_keys_na=True,
    exclude_keys=None,
    exclude_keylevs=None,
    exclude_targetlevs=None,
    thresh_1way=(50, 90),
    thresh_2way=(4, 80),
    tau=None,
) -> dict:
    """Compute synthpop's disclosure measures, exclusions and checks for each synthesis.

    ``original`` is a list of dicts, ``synthetics`` a list of such lists (m syntheses, possibly
    empty). Returns ``{"measures": {j: {measure: float}}, "exclusions": {j: {(table, reason): n}},
    "check_1way": {j: dict | None}, "check_2way": {j: [dict, ...]}, "disco_by_level": {j: {t: n}}}``
    with syntheses numbered j = 1..m, and "disco_curve" {j: {ps: DiSCO(ps)}} and "disco_tau"
    {j: [DiSCO(tau) for tau in ``tau``]}, counted record by record. Division by zero gives NaN.
    """
    keys = list(keys)
    nkeys = len(keys)
    keys_na = [use_keys_na] * nkeys if isinstance(use_keys_na, bool) else list(use_keys_na)
    if len(keys_na) != nkeys:
        raise ValueError("use_keys_na must be a bool or one bool per key")
    # not_targetlev: None or "" (synthpop's "none") -> nothing; a str -> that level; a list -> all.
    if not_targetlev is None or not_targetlev == "":
        not_levels = set()
    elif isinstance(not_targetlev, str):
        not_levels = {not_targetlev}
    else:
        not_levels = set(not_targetlev)
    ex_keys, ex_keylevs = exclude_keys or [], exclude_keylevs or []
    ex_targetlevs = exclude_targetlevs or []
    if not len(ex_keys) == len(ex_keylevs) == len(ex_targetlevs):
        raise ValueError("exclude_keys, exclude_keylevs and exclude_targetlevs differ in length")
    # (position of the key in q, key level, target level)
    triples = [
        (keys.index(k), kl, tl)
        for k, kl, tl in zip(ex_keys, ex_keylevs, ex_targetlevs, strict=True)
    ]

    d = crosstab(original, keys, target)
    nd = len(original)
    d_col = col_sums(d)
    d_row_pre = row_sums(d)  # baseCAPd uses pre-exclusion row sums
    # "missing target" applies only when the ORIGINAL target has the level "Missing".
    drop_missing_target = not use_target_na and MISSING in d_row_pre

    def reason_for(t: str, q: tuple, n: int) -> str | None:
        """The first exclusion step that removes cell (t, q) with count n, or None."""
        if t in not_levels:
            return "excluded target"
        if drop_missing_target and t == MISSING:
            return "missing target"
        if any(not keys_na[i] and q[i] == MISSING for i in range(nkeys)):
            return "missing in keys"
        if any(t == tl and q[i] == kl for i, kl, tl in triples):
            return "set to exclude"
        if exclude_ov_denom_lim and n > denom_lim:
            return "over denom_lim"
        return None

    # "disco_by_level" (post-exclusion DiSCO record count per target level) is extra: tests use it
    # to see whether check_1way had a tie for the most disclosive level.
    out: dict = {
        "measures": {},
        "exclusions": {},
        "check_1way": {},
        "check_2way": {},
        "disco_by_level": {},
        "disco_curve": {},
        "disco_tau": {},
    }
    for j, synthetic in enumerate(synthetics, start=1):
        s = crosstab(synthetic, keys, target)
        ns = len(synthetic)
        s_col = col_sums(s)

        # Section 4: which cells are kept in each table, decided BEFORE exclusions.
        def s_is_one(t, q, s=s, s_col=s_col):
            return s.get((t, q), 0) > 0 and s[(t, q)] == s_col[q]

        disclosive_q = {q for (t, q) in s if s_is_one(t, q)}
        tables = {
            "original": dict(d),
            "synthetic": dict(s),
            "Dorig": {c: n for c, n in d.items() if n == d_col[c[1]]},
            "Dsyn": {c: n for c, n in s.items() if n == s_col[c[1]]},
            "iS": {c: n for c, n in d.items() if s_col[c[1]] > 0},
            "DiS": {c: n for c, n in d.items() if c[1] in disclosive_q},
            "DiSCO": {c: n for c, n in d.items() if s_is_one(*c)},
        }
        tables["DiSDiO"] = {c: n for c, n in tables["DiSCO"].items() if n == d_col[c[1]]}

        # Section 5: exclusions, each table on its own counts.
        counts = {(tab, r): 0 for tab in TABLES for r in REASONS}
        kept: dict = {}
        for tab in TABLES:
            kept[tab] = {}
            for (t, q), n in tables[tab].items():
                why = reason_for(t, q, n)
                if why is None:
                    kept[tab][(t, q)] = n
                    counts[(tab, "remaining")] += n
                else:
                    counts[(tab, why)] += n
        out["exclusions"][j] = counts

        # Section 6: measures from post-exclusion tables.
        kd = col_sums(kept["original"])
        ks = col_sums(kept["synthetic"])
        disco = kept["DiSCO"]
        disco_cells = [n for n in disco.values() if n > 0]
        capd = sum(n * n / kd[q] for (t, q), n in kept["original"].items())
        caps = sum(n * n / ks[q] for (t, q), n in kept["synthetic"].items())
        dcap = sum(
            n * kept["synthetic"].get((t, q), 0) / ks[q]
            for (t, q), n in kept["original"].items()
            if ks[q] > 0
        )
        out["measures"][j] = {
            "UiO": pct(sum(1 for q in kd if kd[q] == 1), nd),
            "UiS": pct(sum(1 for q in ks if ks[q] == 1), ns),
            "UiOiS": pct(sum(1 for q in kd if kd[q] == 1 and s_col[q] > 0), nd),
            "repU": pct(sum(1 for q in kd if kd[q] == 1 and ks[q] == 1), nd),
            "Dorig": pct(sum(kept["Dorig"].values()), nd),
            "Dsyn": pct(sum(kept["Dsyn"].values()), ns),
            "iS": pct(sum(kept["iS"].values()), nd),
            "DiS": pct(sum(kept["DiS"].values()), nd),
            "DiSCO": pct(sum(disco.values()), nd),
            "DiSDiO": pct(sum(kept["DiSDiO"].values()), nd),
            "max_denom": float(max(disco_cells, default=0)),
            "mean_denom": sum(disco_cells) / len(disco_cells) if disco_cells else math.nan,
            "baseCAPd": 100.0 * sum((n / nd) ** 2 for n in d_row_pre.values()) if nd else math.nan,
            "CAPd": pct(capd, nd),
            "CAPs": pct(caps, ns),
            "DCAP": pct(dcap, nd),
            "TCAP": pct(sum(disco.values()), sum(kd[q] for q in kd if ks[q] > 0)),
            "TCAP_little": pct(sum(disco.values()), sum(kept["DiS"].values())),
        }

        # DiSCO(tau): each original record whose cell survives the exclusions, with the
        # probability that the synthesis attributes its own target level (before exclusions)
        probs = []
        for r in original:
            t, q = label(r[target]), tuple(label(r[k]) for k in keys)
            if (t, q) in kept["original"]:
                probs.append(s.get((t, q), 0) / s_col[q] if s_col[q] > 0 else 0.0)
        out["disco_curve"][j] = {p: pct(sum(x >= p for x in probs), nd) for p in set(probs)}
        out["disco_tau"][j] = [pct(sum(x >= t for x in probs), nd) for t in tau or ()]

        # Section 7.1: check_1way.
        levels = {t for t, _q in d} | {t for t, _q in s}
        tab_target = row_sums(kept["original"])
        tab_dis = row_sums(disco)
        total_dis = sum(tab_dis.values())
        out["disco_by_level"][j] = {t: tab_dis[t] for t in sorted(levels)}
        check1 = None
        if levels:
            top = max(tab_dis[t] for t in levels)
            lev = min(t for t in levels if tab_dis[t] == top)
            pct_dis = pct(top, total_dis)
            if top > thresh_1way[0] and pct_dis > thresh_1way[1]:
                all_n = sum(tab_target.values())
                check1 = {
                    "Level": lev,
                    "All": all_n,
                    "PctLevelAll": pct(tab_target[lev], all_n),
                    "totalDisclosive": total_dis,
                    "nLevelDis": top,
                    "PctLevelDis": pct_dis,
                }
        out["check_1way"][j] = check1

        # Section 7.2: check_2way on the post-exclusion DiSCO table.
        rows2 = []
        for i, key in enumerate(keys):
            npairs: Counter = Counter()
            for (t, q), n in disco.items():
                if n > thresh_2way[0]:
                    npairs[(t, q[i])] += n
            for (t, kl), n in npairs.items():
                key_total = sum(1 for r in original if label(r[key]) == kl)
                key_target_total = sum(
                    1 for r in original if label(r[key]) == kl and label(r[target]) == t
                )
                share = pct(key_target_total, key_total)
                if share > thresh_2way[1]:
                    rows2.append(
                        {
                            "target_key_levs": f"{t}|{kl}",
                            "npairs": n,
                            "key": key,
                            "key_target_total": key_target_total,
                            "key_total": key_total,
                            "PctTargetKeyLevel": share,
                            "_sort": (-n, i, f"{t}|{kl}", t),
                        }
                    )
        rows2.sort(key=lambda row: row["_sort"])
        for row in rows2:
            del row["_sort"]
        out["check_2way"][j] = rows2
    return out
