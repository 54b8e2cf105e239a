"""The SQL layer: rendering the templates of ``sql_templates/`` (quoting through one helper,
values as bound parameters), transpiling the rendered SQL to each engine's dialect, and the
facts of each dialect (``dialects.FACTS``).
Imports nothing of discosql but ``errors``."""
