"""The tests of the measure family (see docs/testing.md)."""
