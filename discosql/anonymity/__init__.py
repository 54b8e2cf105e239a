"""The GDPR's three tests (singling out, linkability, inference) and whole-table matches."""
