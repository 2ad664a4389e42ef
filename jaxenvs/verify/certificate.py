"""The short certificate ``jaxenvs verify ENV`` ends with, the same for every environment.

From a suite's result and its registered ``ReferenceInfo``: what was compared (the checks'
fields by tolerance, and what they stand for), how much (steps, and the checks' counts:
battles, games, decisions), the worst deviation, the first divergence or "none", the verdict,
and the versions of jaxenvs, JAX, jaxlib, Python and the reference.
"""

from __future__ import annotations

import platform
import textwrap
from importlib.metadata import PackageNotFoundError, version

from jaxenvs.verify.suite import ReferenceInfo, SuiteResult, get_reference

_WIDTH = 100
_LABEL = 18


def versions() -> dict[str, str]:
    """The installed jaxenvs, jax and jaxlib, and the running Python."""
    out = {}
    for package in ("jaxenvs", "jax", "jaxlib"):
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            out[package] = "not installed"
    out["Python"] = platform.python_version()
    return out


def _compared(result: SuiteResult) -> str:
    """The fields of every check, grouped by tolerance."""
    by_tolerance: dict[str, list[str]] = {}
    for check in result.checks:
        for f in check.comparison.fields.values():
            names = by_tolerance.setdefault(str(f.tolerance), [])
            if f.name not in names:
                names.append(f.name)
    return "; ".join(f"{tol}: {', '.join(names)}" for tol, names in by_tolerance.items()) \
        or "nothing"


def _first_divergence(result: SuiteResult) -> str:
    for check in result.checks:
        if check.ok:
            continue
        if check.detail:
            return f"{check.name}: {check.detail.splitlines()[0]}"
        d = check.comparison.divergence
        return f"{check.name}: step {d.step:,} in {', '.join(d.fields)}"
    return "none"


def certificate(result: SuiteResult, reference: ReferenceInfo | None = None) -> str:
    """The certificate of ``result``; ``reference`` defaults to the one registered with the
    suite (without one, the reference's name and versions read "not stated")."""
    reference = reference or get_reference(result.env_id)
    counts = [f"{result.steps:,} steps"] + [f"{n:,} {unit}" for unit, n in
                                            result.counts.items()]
    exact = all(f.tolerance.exact for c in result.checks
                for f in c.comparison.fields.values())
    worst = f"{result.worst_deviation:.6g}"
    if exact:
        worst += " (exact comparisons: 0 means every compared value equal)"
    ours = ", ".join(f"{name} {v}" for name, v in versions().items())
    theirs = ", ".join(f"{name} {v}" for name, v in reference.versions().items()) \
        if reference is not None else "not stated"
    verdict = "PASS" if result.ok else "FAIL"
    rows = [
        ("reference", reference.name if reference is not None else "not stated"),
        ("compared", _compared(result)),
        *([("in detail", reference.compared)] if reference and reference.compared else []),
        ("counted", f"{', '.join(counts)} in {len(result.checks):,} checks"),
        ("worst deviation", worst),
        ("first divergence", _first_divergence(result)),
        ("verdict", f"{verdict}: {result.passed:,} of {len(result.checks):,} checks passed"),
        ("versions", f"{ours}; reference: {theirs}"),
    ]
    lines = [f"Certificate: jaxenvs verify {result.env_id}"]
    for label, value in rows:
        lines.append(textwrap.fill(value, _WIDTH, initial_indent=f"  {label:<{_LABEL}}",
                                   subsequent_indent=" " * (_LABEL + 2),
                                   break_on_hyphens=False))
    return "\n".join(lines)
