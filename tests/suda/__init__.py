"""The tests of the suda family (see docs/testing.md)."""
