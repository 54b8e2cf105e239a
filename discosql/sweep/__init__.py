"""The key sweep: the disclosure measures for every subset of the keys (``key_sweep``), and
``sweep_to_sql``."""
