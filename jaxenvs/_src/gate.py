"""The one gate of the XLA:CPU fast path (``jaxenvs._src.cpu_kernels``).

The fast path runs where all of these hold, checked each time a function is traced:

- the computation compiles for a CPU (``jax.default_backend()``);
- the installed jax and jaxlib are within ``TESTED_JAX``, the versions its README names;
- ``JAXENVS_CPU_KERNELS`` is unset or ``1`` (``0`` switches it off);
- its package imports (it reaches into JAX's internals; an import that fails turns it off).

Everywhere else every environment runs its plain form: ``vmap`` over code written with public
JAX alone, as on a GPU, with the same trajectories. An installed JAX outside the tested range
makes the environments slower on a CPU, never wrong; a warning says so, once.
"""

from __future__ import annotations

import functools
import os
import types
import warnings
from typing import Callable

import jax
import jaxlib

#: The environment variable that switches the fast path off (``0``) or leaves it to the gate.
ENV_VAR = "JAXENVS_CPU_KERNELS"
#: The jax (and jaxlib) versions the fast path is tested with: from the first, below the second.
TESTED_JAX = ((0, 10, 2), (0, 11, 0))


def _version(text: str) -> tuple[int, ...]:
    """``"0.10.2"`` (or ``"0.10.2.dev20261201"``) as ``(0, 10, 2)``."""
    parts = []
    for part in text.split(".")[:3]:
        digits = "".join(c for c in part if c.isdigit()) if part[:1].isdigit() else ""
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def tested_jax(jax_version: str = jax.__version__,
               jaxlib_version: str = jaxlib.__version__) -> bool:
    """Whether jax and jaxlib are both within ``TESTED_JAX``."""
    low, high = TESTED_JAX
    return all(low <= _version(v) < high for v in (jax_version, jaxlib_version))


def switched_off() -> bool:
    """Whether ``JAXENVS_CPU_KERNELS`` switches the fast path off; any value but 0 or 1 raises."""
    value = os.environ.get(ENV_VAR, "1").strip()
    if value not in ("0", "1"):
        raise ValueError(f"{ENV_VAR}={value!r}: use 1 (the XLA:CPU fast path where it is "
                         "tested, the default) or 0 (the plain vmap form everywhere)")
    return value == "0"


@functools.cache
def _import_kernels() -> types.ModuleType | None:
    """The fast path's package, or ``None`` (with a warning) if importing it fails."""
    try:
        from jaxenvs._src import cpu_kernels
    except Exception as error:  # an internal JAX module moved or changed: run plain JAX
        warnings.warn(f"jaxenvs: the XLA:CPU fast path does not import with jax "
                      f"{jax.__version__} ({type(error).__name__}: {error}); the environments "
                      "run their plain vmap form, slower on a CPU", RuntimeWarning, stacklevel=3)
        return None
    return cpu_kernels


@functools.cache
def _warn_untested() -> None:
    low, high = (".".join(map(str, v)) for v in TESTED_JAX)
    warnings.warn(f"jaxenvs: the XLA:CPU fast path is tested with jax >={low},<{high}; with jax "
                  f"{jax.__version__} / jaxlib {jaxlib.__version__} the environments run their "
                  f"plain vmap form, slower on a CPU (set {ENV_VAR}=0 to choose it and silence "
                  "this)", RuntimeWarning, stacklevel=3)


def kernels() -> types.ModuleType | None:
    """The fast path's package where the gate lets it run (module docstring), else ``None``."""
    if switched_off() or jax.default_backend() != "cpu":
        return None
    if not tested_jax():
        _warn_untested()
        return None
    return _import_kernels()


def enabled() -> bool:
    """Whether the fast path runs for what is traced now (``kernels`` is not ``None``)."""
    return kernels() is not None


def fast_or_plain(plain: Callable, make_fast: Callable[[types.ModuleType], Callable]) -> Callable:
    """A function that calls ``plain`` where the fast path does not run, and elsewhere the
    function ``make_fast(cpu_kernels)`` builds on first use (then kept)."""
    fast = None

    @functools.wraps(plain)
    def call(*args):
        nonlocal fast
        found = kernels()
        if found is None:
            return plain(*args)
        if fast is None:
            fast = make_fast(found)
        return fast(*args)

    return call
