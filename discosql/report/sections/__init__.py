"""The sections of the release report (:func:`discosql.report`) as plain data, one module per
section (numbered and listed in ``report/build.py::SECTIONS``), each rendered by its template
in ``report/html/sections/``; ``definitions`` holds the measures' definitions and what a
threshold may name, ``common`` how a measure is shown."""

from __future__ import annotations

from .anonymity import Tested, anonymity_section
from .cap import CAP_RISKS, cap_section, certainty_section
from .definitions import (
    DEFINITIONS,
    DIRECTIONS,
    OF_ANONYMITY,
    OF_DISTANCE,
    ORIGINAL_SIDE,
    RISK_THRESHOLDS,
)
from .distance import DISTANCE_THRESHOLDS, Distances, distance_section
from .provenance import provenance_section
from .risk import risk_section
from .sdc import SWISS_CHEESE, sdc_section
from .sql import no_script, script_header, script_section
from .structure import LEVELS_SHOWN, structure_section
from .summary import HEADLINE, summary_section
from .sweep import sweep_section
from .targets import CHECK_1WAY, CHECK_2WAY, target_section
from .withheld import withheld_section

__all__ = [
    "CAP_RISKS",
    "CHECK_1WAY",
    "CHECK_2WAY",
    "DEFINITIONS",
    "DIRECTIONS",
    "DISTANCE_THRESHOLDS",
    "HEADLINE",
    "LEVELS_SHOWN",
    "OF_ANONYMITY",
    "OF_DISTANCE",
    "ORIGINAL_SIDE",
    "RISK_THRESHOLDS",
    "SWISS_CHEESE",
    "Distances",
    "Tested",
    "anonymity_section",
    "cap_section",
    "certainty_section",
    "distance_section",
    "no_script",
    "provenance_section",
    "risk_section",
    "script_header",
    "script_section",
    "sdc_section",
    "structure_section",
    "summary_section",
    "sweep_section",
    "target_section",
    "withheld_section",
]
