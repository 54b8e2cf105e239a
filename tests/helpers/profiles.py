"""How many examples the brute-force reference comparisons draw: 2,000 under the ci profile
(conftest.py; CI runs it), the development profile's 60 otherwise. The other property tests
draw the profile's own count (500 in CI), but those that run an exported script in the
duckdb shell per example (a process each) draw 100 in CI, 20 otherwise."""

from __future__ import annotations

from hypothesis import settings

REFERENCE_EXAMPLES = 2000 if settings.default.max_examples >= 500 else settings.default.max_examples
SCRIPT_EXAMPLES = 100 if settings.default.max_examples >= 500 else 20
