"""The tests of the report family (see docs/testing.md)."""
