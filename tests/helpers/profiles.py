"""How many examples the brute-force reference comparisons draw: 500 under the ci profile
(conftest.py; CI runs it, within its time budget: docs/testing.md), the development
profile's 60 otherwise. The other property tests draw the profile's own count (500 in CI,
fewer where a test says so with ``fixed``), but those that run an exported script in the
duckdb shell per example (a process each) draw 100 in CI, 20 otherwise. The quick profile
(5 examples, `make test-fast`) caps every count at its own."""

from __future__ import annotations

from hypothesis import settings

_DEFAULT = settings.default.max_examples
REFERENCE_EXAMPLES = 500 if _DEFAULT >= 500 else _DEFAULT
SCRIPT_EXAMPLES = 100 if _DEFAULT >= 500 else min(20, _DEFAULT)


def fixed(n: int) -> int:
    """A test's own example count ``n``, or the quick profile's (make test-fast) if smaller."""
    return min(n, _DEFAULT) if _DEFAULT < 60 else n
