"""Verification suites: per environment id, the checks of the port against its reference.

A suite is a function ``fn(options) -> Iterable[CheckResult]`` registered with
``register_suite(env_id, fn)``; it yields its checks one at a time (so callers can report
progress), each a name and a ``Comparison``. ``run_suite(env_id)`` runs one and summarises it.
A suite registered with a ``ReferenceInfo`` (what it checks against, the reference's
versions) gets a complete certificate (``jaxenvs.verify.certificate``).

An environment's suite lives in the module ``reference`` of the package that defines the
environment's class (``jaxenvs.pong.reference`` for ``jaxenvs.pong.env.Pong``); that module
registers the suite when imported, and it is imported the first time the suite is requested.
Where the suite's own module imports that reference module (so importing it from there would be
an import cycle), the reference module registers the suite by name, ``"module:function"``,
imported when the suite first runs. Nothing here depends on a particular environment, and
importing ``jaxenvs`` imports none of it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable, Iterable, Literal, Mapping

from jaxenvs.registry import import_reference_adapter, registered_envs
from jaxenvs.verify.compare import Comparison

#: The ways a suite can check an environment against recorded reference runs.
#: ``inject``: one step from every recorded state; ``replay``: whole runs from reset.
MODES = ("inject", "replay")


@dataclass(frozen=True)
class SuiteOptions:
    """What a suite should check."""

    files: str | None = None
    """Glob pattern over the suite's reference file names; None selects all of them."""
    mode: Literal["inject", "replay", "all"] = "all"
    """One of ``MODES``, or ``"all"`` for every mode."""
    full: bool = False
    """The full-size run (the sizes of the slow tests) instead of the quick default; suites
    whose default is already complete ignore it."""

    def __post_init__(self) -> None:
        if self.mode != "all" and self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)} or 'all', "
                             f"got {self.mode!r}")

    @property
    def modes(self) -> tuple[str, ...]:
        """The selected modes, in ``MODES`` order."""
        return MODES if self.mode == "all" else (self.mode,)


@dataclass(frozen=True)
class CheckResult:
    """One named check, e.g. ``"state injection pong_fs8_seed0_random.npz"``."""

    name: str
    comparison: Comparison
    counts: Mapping[str, int] = field(default_factory=dict)
    """What the check covered besides steps, e.g. ``{"battles": 64, "decisions": 3000}``."""
    detail: str | None = None
    """The first divergence in the check's own terms (first line: a one-line summary), where
    ``format_divergence`` of the comparison would say less; None if it agrees."""

    @property
    def ok(self) -> bool:
        return self.comparison.ok


@dataclass(frozen=True)
class SuiteResult:
    """All checks of one suite run."""

    env_id: str
    checks: tuple[CheckResult, ...]

    @property
    def passed(self) -> int:
        return sum(c.ok for c in self.checks)

    @property
    def failed(self) -> int:
        return len(self.checks) - self.passed

    @property
    def ok(self) -> bool:
        """True if at least one check ran and every check passed."""
        return bool(self.checks) and self.failed == 0

    @property
    def steps(self) -> int:
        """Steps compared, summed over the checks."""
        return sum(c.comparison.steps for c in self.checks)

    @property
    def worst_deviation(self) -> float:
        """Largest |Δ| of any field in any check."""
        return max((c.comparison.max_abs_deviation for c in self.checks), default=0.0)

    @property
    def counts(self) -> dict[str, int]:
        """``CheckResult.counts`` summed over the checks, per unit."""
        total: dict[str, int] = {}
        for check in self.checks:
            for unit, n in check.counts.items():
                total[unit] = total.get(unit, 0) + n
        return total

    def summary(self) -> str:
        """One line: checks passed and failed, steps compared, worst deviation."""
        return (f"{self.env_id}: {len(self.checks)} checks, {self.passed} passed, "
                f"{self.failed} failed; {self.steps:,} steps compared; "
                f"worst |Δ| {self.worst_deviation:.6g}")


@dataclass(frozen=True)
class ReferenceInfo:
    """What a suite checks its environment against, for the certificate."""

    name: str
    """E.g. ``"Pokémon Showdown in Node"``."""
    versions: Callable[[], Mapping[str, str]] = dict
    """The reference's versions, e.g. ``{"Node": "v20.1.0"}``, asked after the run."""
    compared: str = ""
    """What a step compares, where the checks' field names do not say it all."""


SuiteFn = Callable[[SuiteOptions], Iterable[CheckResult]]
_suites: dict[str, SuiteFn | str] = {}
_references: dict[str, ReferenceInfo] = {}


def register_suite(env_id: str, fn: SuiteFn | str, *,
                   reference: ReferenceInfo | None = None, overwrite: bool = False) -> None:
    """Make ``run_suite(env_id)`` run the checks ``fn(options)`` yields.

    ``fn`` may be ``"module:function"``, imported when the suite first runs. ``reference``
    completes the certificate. Registering an id twice raises unless ``overwrite=True``.
    """
    if not (callable(fn) or isinstance(fn, str) and ":" in fn):
        raise TypeError(f"suite for {env_id!r} must be callable or 'module:function', "
                        f"got {fn!r}")
    if env_id in _suites and not overwrite:
        raise ValueError(f"a suite for {env_id!r} is already registered; "
                         "pass overwrite=True to replace it")
    _suites[env_id] = fn
    if reference is not None:
        _references[env_id] = reference
    else:
        _references.pop(env_id, None)


def get_reference(env_id: str) -> ReferenceInfo | None:
    """The ``ReferenceInfo`` registered with ``env_id``'s suite, if any."""
    return _references.get(env_id)


def check_options(env_id: str, options: SuiteOptions, modes: tuple[str, ...] = MODES,
                  files: bool = True) -> None:
    """Refuse, with a ``ValueError`` naming the option, what a suite cannot do: a ``mode``
    outside ``modes``, or ``files`` for a suite that reads no files."""
    if not files and options.files is not None:
        raise ValueError(f"the {env_id} suite reads no files, so --files does not apply")
    if options.mode != "all" and options.mode not in modes:
        raise ValueError(f"the {env_id} suite has no {options.mode!r} checks; "
                         f"--mode takes {', '.join(modes)} or all")


def available_suites() -> list[str]:
    """Ids with a verification suite, registered or found beside a registered environment."""

    for env_id in registered_envs:
        if env_id not in _suites:
            import_reference_adapter(env_id)
    return sorted(_suites)


def get_suite(env_id: str) -> SuiteFn:
    """The suite of ``env_id``; ``ValueError`` listing the ids that have one if it has none."""
    if env_id not in _suites:
        import_reference_adapter(env_id)
    if env_id not in _suites:
        raise ValueError(f"No verification suite for {env_id!r}. "
                         f"Suites exist for: {', '.join(available_suites()) or 'none'}.")
    fn = _suites[env_id]
    if isinstance(fn, str):
        module, _, name = fn.partition(":")
        fn = _suites[env_id] = getattr(importlib.import_module(module), name)
    return fn


def run_suite(
    env_id: str,
    options: SuiteOptions | None = None,
    on_check: Callable[[CheckResult], None] | None = None,
) -> SuiteResult:
    """Run ``env_id``'s suite, calling ``on_check`` after each check (for progress output)."""
    checks = []
    for check in get_suite(env_id)(options or SuiteOptions()):
        checks.append(check)
        if on_check is not None:
            on_check(check)
    return SuiteResult(env_id=env_id, checks=tuple(checks))
