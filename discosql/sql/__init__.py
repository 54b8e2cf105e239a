"""The SQL layer: rendering the templates of ``sql_templates/`` (quoting through one helper,
values as bound parameters) and transpiling the rendered SQL to each engine's dialect.
Imports nothing of discosql but ``errors``."""
