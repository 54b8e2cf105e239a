"""The release report: one HTML document (and JSON) gathering the measures, the key sweep, the
protection step and the original data's own risk, for a disclosure review board. Its sections
are listed in ``build.SECTIONS``; external mode's numbers go through ``core.outputcheck``."""
