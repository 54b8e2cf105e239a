"""Two of the GDPR's three tests (singling out, linkability; inference is the CAP family's,
``measure/cap``) and whole-table matches."""
