"""discosql: disclosure risk measures for synthetic data, computed inside a SQL engine."""

from .api import disclosure
from .errors import (
    DiscoSQLError,
    DiscoSQLWarning,
    EngineError,
    InputError,
    SchemaError,
    TemplateError,
)
from .results import DisclosureResult
from .sources import duckdb_table

__version__ = "0.1.0"

__all__ = [
    "DisclosureResult",
    "DiscoSQLError",
    "DiscoSQLWarning",
    "EngineError",
    "InputError",
    "SchemaError",
    "TemplateError",
    "__version__",
    "disclosure",
    "duckdb_table",
]
