"""discosql: disclosure risk measures for synthetic data, computed inside a SQL engine."""

from .anonymity.dcr import DcrResult, dcr
from .anonymity.distance_api import dcr_to_sql, membership_to_sql
from .anonymity.export import exact_matches_to_sql, linkability_to_sql, singling_out_to_sql
from .anonymity.inference import InferenceResult, inference
from .anonymity.linkability import LinkabilityResult, linkability
from .anonymity.matches import ExactMatches, exact_matches
from .anonymity.membership import MembershipResult, membership
from .anonymity.singling_out import SinglingOutResult, singling_out
from .core.results import DisclosureResult
from .engines.duckdb import duckdb_table
from .engines.factory import dbapi, postgres, spark, sqlite
from .engines.factory import duckdb_engine as duckdb
from .errors import (
    DiscoSQLError,
    DiscoSQLWarning,
    EngineError,
    InputError,
    SchemaError,
    TemplateError,
)
from .measure.cap import (
    CapScore,
    CapSummary,
    DisclosureProtectionScore,
    TaubTCAP,
    cap_records,
    cap_summary,
    categorical_cap,
    categorical_generalized_cap,
    categorical_zero_cap,
    disclosure_protection,
    taub_tcap,
)
from .measure.disclosure import disclosure
from .measure.export import to_sql
from .measure.summary import DisclosureSummary, disclosure_summary
from .protect.export import sdc_to_sql
from .protect.sdc import SdcResult, sdc
from .protect.uniques import ReplicatedUniques, replicated_uniques
from .report.build import Report, report
from .risk.export import ldiversity_to_sql, risk_to_sql, suda_to_sql
from .risk.individual import RiskResult, risk
from .risk.ldiversity import LDiversityResult, ldiversity
from .risk.suda import SudaResult, suda
from .sweep.export import sweep_to_sql
from .sweep.key_sweep import KeySweep, key_sweep
from .version import __version__

__all__ = [
    "CapScore",
    "CapSummary",
    "DcrResult",
    "DisclosureProtectionScore",
    "DisclosureResult",
    "DisclosureSummary",
    "DiscoSQLError",
    "DiscoSQLWarning",
    "EngineError",
    "ExactMatches",
    "InferenceResult",
    "InputError",
    "KeySweep",
    "LDiversityResult",
    "LinkabilityResult",
    "MembershipResult",
    "ReplicatedUniques",
    "Report",
    "RiskResult",
    "SchemaError",
    "SdcResult",
    "SinglingOutResult",
    "SudaResult",
    "TaubTCAP",
    "TemplateError",
    "__version__",
    "cap_records",
    "cap_summary",
    "categorical_cap",
    "categorical_generalized_cap",
    "categorical_zero_cap",
    "dbapi",
    "dcr",
    "dcr_to_sql",
    "disclosure",
    "disclosure_protection",
    "disclosure_summary",
    "duckdb",
    "duckdb_table",
    "exact_matches",
    "exact_matches_to_sql",
    "inference",
    "key_sweep",
    "ldiversity",
    "ldiversity_to_sql",
    "linkability",
    "linkability_to_sql",
    "membership",
    "membership_to_sql",
    "postgres",
    "replicated_uniques",
    "report",
    "risk",
    "risk_to_sql",
    "sdc",
    "sdc_to_sql",
    "singling_out",
    "singling_out_to_sql",
    "spark",
    "sqlite",
    "suda",
    "suda_to_sql",
    "sweep_to_sql",
    "taub_tcap",
    "to_sql",
]
