"""The tests of the sdc family (see docs/testing.md)."""
