"""The release report: one HTML document (and JSON) gathering the measures, the key sweep and
the protection step, for a disclosure review board."""
