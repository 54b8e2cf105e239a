"""Helpers shared by the test modules (no tests here): a test module imports from these, from
the other helper modules of tests/ (oracle.py, reference.py, engine_data.py, ...) and never from
another test module.

* ``compare``: the float and table comparators, every one of the tests' (tolerance and NaN
  rule in each one's name and docstring).
* ``oracle``: synthpop's disclosure() calls replayed on DuckDB, and sdcMicro's oracle files.
* ``shell``: exported scripts run by the duckdb shell and by DataFusion.
* ``sql``: the portability lint of exported SQL.
* ``data``: data sets (SD2011 and changed copies, hypothesis scenarios) as Arrow tables.
* ``engines``: one ``EngineCase`` per engine and ``@on_engines(...)``, which runs a test on
  each (the ``engine_case`` fixture of conftest.py loads its tables); one ``ScriptCase`` per
  script engine and ``@on_script_engines(...)`` (the ``script_engine`` fixture).
* ``charts``: the inputs of the report's charts (no matplotlib, no Arrow: a fresh interpreter
  imports it in test_charts.py).
"""
