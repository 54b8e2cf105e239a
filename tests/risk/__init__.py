"""The tests of the risk family (see docs/testing.md)."""
