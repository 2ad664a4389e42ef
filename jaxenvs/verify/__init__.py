"""Verification of environments against reference implementations.

``compare`` compares trajectories field by field (bit for bit or within a tolerance) and
reports the first divergence; ``suite`` holds each environment's checks (``run_suite``);
``certificate`` sums a suite run up; ``cli`` is ``jaxenvs verify ENV``. Nothing here is
specific to one environment.
"""

from jaxenvs.verify.certificate import certificate
from jaxenvs.verify.compare import (
    EXACT,
    Comparison,
    Divergence,
    FieldResult,
    Tolerance,
    compare_trajectories,
    format_agreement_table,
    format_divergence,
)
from jaxenvs.verify.suite import (
    MODES,
    CheckResult,
    ReferenceInfo,
    SuiteOptions,
    SuiteResult,
    available_suites,
    check_options,
    get_reference,
    get_suite,
    register_suite,
    run_suite,
)
from jaxenvs.verify.tost import TostResult, tost

__all__ = [
    "EXACT",
    "MODES",
    "CheckResult",
    "Comparison",
    "Divergence",
    "FieldResult",
    "ReferenceInfo",
    "SuiteOptions",
    "SuiteResult",
    "Tolerance",
    "TostResult",
    "available_suites",
    "certificate",
    "check_options",
    "compare_trajectories",
    "format_agreement_table",
    "format_divergence",
    "get_reference",
    "get_suite",
    "register_suite",
    "run_suite",
    "tost",
]
