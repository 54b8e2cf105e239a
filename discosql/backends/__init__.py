"""Engines other than the embedded DuckDB: PostgreSQL (``postgres.py``) and Spark (``spark.py``).

Their drivers (psycopg, pyspark) are imported only when such an engine is opened, so neither
is needed for the default DuckDB engine; ``ds.postgres(dsn)`` and ``ds.spark(session)`` (in
``discosql/engine.py``) describe them.
"""
