"""Settings for the whole test session.

XLA:CPU's concurrency-optimized scheduler (jax 0.10.2) can deadlock on some programs: a
``vmap`` of the whole PPO ``train`` over seeds hung a CI run at load average 0, and MJX and our
HalfCheetah hang at batches near 1000 (see the HalfCheetah spec). The flag must be set before
the CPU backend starts; test subprocesses inherit it.
"""

import os

_FLAG = "--xla_cpu_enable_concurrency_optimized_scheduler=false"
if _FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_FLAG}".strip()
