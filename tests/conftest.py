"""Settings for the whole test session.

XLA:CPU's concurrency-optimized scheduler (jax 0.10.2) can deadlock on some programs: a
``vmap`` of the whole PPO ``train`` over seeds hung a CI run at load average 0, and MJX and our
HalfCheetah hang at batches near 1000 (see the HalfCheetah spec). Turning it off takes an XLA
flag, which must be set before the CPU backend starts (test subprocesses inherit it). XLA aborts
on a flag it does not know, so the flag is set only where a short probe of the installed XLA
accepts it.
"""

import os
import subprocess
import sys

_FLAG = "--xla_cpu_enable_concurrency_optimized_scheduler=false"


def _xla_accepts(flag: str) -> bool:
    """Whether the installed XLA starts its CPU backend with ``flag`` in ``XLA_FLAGS``."""
    env = dict(os.environ, XLA_FLAGS=f"{os.environ.get('XLA_FLAGS', '')} {flag}".strip(),
               JAX_PLATFORMS="cpu")
    probe = subprocess.run([sys.executable, "-c", "import jax; jax.devices()"], env=env,
                           capture_output=True, timeout=120)
    return probe.returncode == 0


if _FLAG not in os.environ.get("XLA_FLAGS", "") and _xla_accepts(_FLAG):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_FLAG}".strip()
