"""What an external report leaves out (page one lists it)."""

from __future__ import annotations


def withheld_section(check: str | None) -> list[str]:
    """What an external report leaves out (``check``: its output check, described)."""
    if check is None:
        return []
    return [
        "file paths and names of the inputs",
        "level names (check_1way levels, check_2way pairs, levels on one side only)",
        "max_denom and mean_denom (record counts of single cells)",
        "the SQL script (it names the files and levels)",
        check,
    ]
