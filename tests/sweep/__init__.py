"""The tests of the sweep family (see docs/testing.md)."""
