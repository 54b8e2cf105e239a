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
from .summary import DisclosureSummary, disclosure_summary

__version__ = "0.1.0"

__all__ = [
    "DisclosureResult",
    "DisclosureSummary",
    "DiscoSQLError",
    "DiscoSQLWarning",
    "EngineError",
    "InputError",
    "SchemaError",
    "TemplateError",
    "__version__",
    "disclosure",
    "disclosure_summary",
    "duckdb_table",
]
