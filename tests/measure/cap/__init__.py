"""The tests of the cap family (see docs/testing.md)."""
