"""Output disclosure control of an external report: a publishable report is itself an output
that output checkers review, so every count it prints about the data goes through the rules
trusted research environments apply (OpenSAFELY: counts of 7 or fewer suppressed, the rest
rounded to 5). Counts below ``min_count`` show as "< min_count", the others are rounded to the
nearest ``round_to``; a percentage of records that stands for fewer than ``min_count`` records
(of the smallest data set, the most revealing denominator) is withheld. Zero is shown: it
reveals no one. Internal reports show exact numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

MIN_COUNT = 8  # counts of 7 or fewer suppressed (OpenSAFELY)
ROUND_TO = 5

# percentages of records, by where they appear in the report's content
IDENTITY = ("UiO", "UiS", "UiOiS", "repU")
ATTRIBUTE = ("Dorig", "Dsyn", "iS", "DiS", "DiSCO", "DiSDiO")
SUMMARY = ("attrib_orig", "attrib_syn", "ident_orig", "ident_syn")


@dataclass(frozen=True)
class OutputCheck:
    """The rules, and the smallest data set's records (``base``) that percentages are of."""

    min_count: int
    round_to: int
    base: int

    def count(self, n: Any) -> Any:
        """A count as an external report may print it."""
        if not isinstance(n, int) or isinstance(n, bool) or n == 0:
            return n
        if n < self.min_count:
            return f"< {self.min_count}"
        return int(self.round_to * math.floor(n / self.round_to + 0.5))

    def pct(self, p: Any) -> Any:
        """A percentage of records, or a note that it stands for too few records."""
        if not isinstance(p, int | float) or isinstance(p, bool) or math.isnan(p) or p == 0:
            return p
        if p * self.base / 100 < self.min_count - 0.5:  # fewer than min_count records
            return f"withheld (< {self.min_count} records)"
        return p

    def rows(
        self, rows: list[dict[str, Any]], counts: tuple[str, ...], pcts: tuple[str, ...] = ()
    ) -> list[dict[str, Any]]:
        """``rows`` with the columns ``counts`` and ``pcts`` checked."""
        out = []
        for r in rows:
            row = dict(r)
            for c in counts:
                if c in row:
                    row[c] = self.count(row[c])
            for c in pcts:
                if c in row:
                    row[c] = self.pct(row[c])
            out.append(row)
        return out

    def apply(self, content: dict[str, Any]) -> None:
        """Check every count and percentage of records in the report's content, in place."""
        content["provenance"]["inputs"] = self.rows(content["provenance"]["inputs"], ("rows",))
        summary = content["summary"]
        summary["table"] = self.rows(summary["table"], (), SUMMARY)
        headline = tuple(f"{m} {s}" for m in IDENTITY + ATTRIBUTE for s in ("mean", "worst"))
        summary["per_target"] = self.rows(summary["per_target"], (), headline)
        summary["thresholds"] = self.rows(summary["thresholds"], (), ("value",))
        for target in content["targets"].values():
            target["ident"] = self.rows(target["ident"], (), IDENTITY)
            target["attrib"] = self.rows(target["attrib"], (), ATTRIBUTE)
            target["exclusions"] = self.rows(target["exclusions"], ("count",))
        if content["identity_shared"]:
            content["identity_shared"] = self.rows(content["identity_shared"], (), IDENTITY)
        if content["sweep"]:
            content["sweep"]["worst"] = self.rows(content["sweep"]["worst"], (), ("value",))
        if content["sdc"]:
            self._sdc(content["sdc"])

    def _sdc(self, sdc: dict[str, Any]) -> None:
        removed = []
        for r in sdc["removed"]:
            row = self.rows([r], ("rows",))[0]
            if isinstance(row["rows"], str):  # a percentage of a suppressed count
                row["pct"] = "withheld"
            removed.append(row)
        sdc["removed"] = removed
        sdc["recoded"] = self.rows(sdc["recoded"], ("bottom_coded", "top_coded"))
        pcts = ("DiSCO before", "DiSCO after", "repU before", "repU after")
        sdc["compared"] = self.rows(sdc["compared"], (), pcts)
        sdc["removed_total"] = self.count(sdc["removed_total"])

    def described(self) -> str:
        return (
            f"counts below {self.min_count} shown as '< {self.min_count}', the others rounded "
            f"to the nearest {self.round_to}; percentages that stand for fewer than "
            f"{self.min_count} records withheld (output checking as in OpenSAFELY; change "
            "with min_count= / --min-count and round_to= / --round-to)"
        )
