"""Measuring disclosure risk: synthpop's ``disclosure()`` for one target, ``disclosure_summary``
for many, the CAP family, and ``to_sql`` (the same measures as one SQL script)."""
