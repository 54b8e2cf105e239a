"""The SQL layer: rendering the templates of ``sql_templates/`` (quoting through one helper,
values as bound parameters), transpiling the rendered SQL to each engine's dialect, and the
facts of each dialect (``dialects.FACTS``), and the kind of a column from the type name its
engine gives (``types.column_kind``, through sqlglot's type parser).
Imports nothing of discosql but ``errors``."""
