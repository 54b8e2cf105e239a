"""How many examples the brute-force reference comparisons draw: 2,000 under the ci profile
(conftest.py; CI runs it), the development profile's 60 otherwise. The other property tests
draw the profile's own count (500 in CI)."""

from __future__ import annotations

from hypothesis import settings

REFERENCE_EXAMPLES = 2000 if settings.default.max_examples >= 500 else settings.default.max_examples
