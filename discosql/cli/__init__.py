"""The ``discosql`` command: one module per subcommand (listed in ``registry``), the parser
built from them, the entry point ``main``."""
